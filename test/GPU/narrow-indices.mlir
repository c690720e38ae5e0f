// The kernels' index arithmetic in 32 bits: the GPU pipeline runs
// arith-int-range-narrowing after lower-affine, and the launch's known
// sizes (7 blocks of 256 threads here) bound the thread's linear id, so
// its computation and test are i32 (64-bit integer operations are
// emulated on the GPU).
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" \
// RUN: | magi-opt --magi-gpu-pipeline="chip=sm_90" --mlir-print-ir-after=arith-int-range-narrowing -o /dev/null 2>&1 \
// RUN: | FileCheck %s
// CHECK: gpu.func @k0({{.*}}known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 7, 1, 1>}
// CHECK:     %[[BLOCK:.*]] = arith.index_castui %block_id_x : index to i32
// CHECK:     %[[FIRST:.*]] = arith.muli %[[BLOCK]], %c256_i32 : i32
// CHECK:     %[[THREAD:.*]] = arith.index_castui %thread_id_x : index to i32
// CHECK:     %[[ID:.*]] = arith.addi %[[FIRST]], %[[THREAD]] : i32
// CHECK:     arith.cmpi ult, %[[ID]], %c1600_i32 : i32
func.func @double(%x: tensor<64x100xf32>) -> tensor<64x100xf32> {
  %0 = magi.add %x, %x : (tensor<64x100xf32>, tensor<64x100xf32>) -> tensor<64x100xf32>
  return %0 : tensor<64x100xf32>
}
