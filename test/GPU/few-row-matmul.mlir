// magi-few-row-matmul-to-gpu: a product of few static rows with its weight
// stored [N, K] becomes one gpu.launch that loads 16-byte chunks of weight
// rows straight into mma.sync's B registers; anything else stays a linalg op.
// RUN: magi-opt %s --split-input-file --magi-few-row-matmul-to-gpu | FileCheck %s
// RUN: magi-opt %s --split-input-file --magi-few-row-matmul-to-gpu="column-tiles=1 warps=2 stages=2" | FileCheck %s --check-prefix=OPTS
// RUN: magi-opt %s --split-input-file --magi-few-row-matmul-to-gpu="max-rows=0" | FileCheck %s --check-prefix=OFF
// RUN: magi-opt %s --split-input-file --magi-few-row-matmul-to-gpu="max-rows=32" | FileCheck %s --check-prefix=ROWS32
// RUN: magi-opt %s --split-input-file --magi-few-row-matmul-to-gpu="prefetch-columns=1024" | FileCheck %s --check-prefix=PREFETCH
// RUN: magi-opt %s --split-input-file --magi-few-row-matmul-to-gpu="prefetch-columns=1024" --magi-outline-kernels --magi-wait-for-previous-grid | FileCheck %s --check-prefix=OUTLINED

#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
// A projection at 16 tokens: x [16, 4096] times w [64, 4096]^T into f32,
// rounded to bf16. The kernel writes the rounding's buffer; the fill, the
// product and the rounding are gone. 64 columns make 2 blocks of 4 column
// tiles (32 weight rows); 4 warps, each a ring of 4 stages of 48 rows (32
// weight rows, 16 of x) in dynamic shared memory (96 KiB), then the
// partial sums (8 KiB). Three stages are copied before the loop, eight
// 16-byte copies of weight rows and four of x a lane each; the loop copies
// one more, waits until at most 3 groups are in flight, and multiplies two
// steps: 4 weight and 2 x chunks each, 2 x 4 products.
// CHECK-LABEL: func @projection
// CHECK-SAME: (%[[X:.*]]: memref<16x4096xbf16>, %[[W:.*]]: memref<64x4096xbf16>)
// CHECK-NOT: linalg.fill
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<16x64xbf16>
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c2{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) dynamic_shared_memory_size %c106496_i32 module(@projection_kernels) function(@gemm0)
// CHECK: %[[SHARED:.*]] = gpu.dynamic_shared_memory
// CHECK: %[[RING:.*]] = memref.view %[[SHARED]][%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<768x64xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[PARTIALS:.*]] = memref.view %[[SHARED]][%c98304{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-8: nvgpu.device_async_copy %[[W]][{{.*}}], %[[RING]][{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK-COUNT-4: nvgpu.device_async_copy %[[X]][{{.*}}], %[[RING]][{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK: nvvm.cp.async.commit.group
// CHECK-COUNT-2: nvvm.cp.async.commit.group
// CHECK: scf.for {{.*}} iter_args
// CHECK-COUNT-8: nvgpu.device_async_copy %[[W]]
// CHECK-COUNT-4: nvgpu.device_async_copy %[[X]]
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 3
// CHECK: nvvm.bar.warp.sync
// CHECK-COUNT-6: vector.load %[[RING]][{{.*}}] {alignment = 16 : i64} : memref<768x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK-COUNT-8: nvvm.mma.sync {{.*}} {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK-COUNT-6: vector.load %[[RING]]
// CHECK-COUNT-8: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: nvvm.bar.warp.sync
// CHECK-NEXT: scf.yield
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: memref.store {{.*}}, %[[PARTIALS]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[PARTIALS]]
// CHECK: arith.truncf {{.*}} : f32 to bf16
// CHECK: memref.store {{.*}}, %[[OUT]]
// CHECK: gpu.terminator
// CHECK-NEXT: } {magi.kernel_config = {block_size = 128 : i64, column_tiles = 4 : i64, row_tiles = 1 : i64, stages = 4 : i64, strategy = "few-row-gemm", warps = 4 : i64}}
// CHECK-NOT: linalg.generic
// CHECK: return %[[OUT]]
// With prefetch-columns, before anything else reads memory: the block's 32
// weight rows (a thread a row, rows past N skipped), the first 1024 k of
// each (2048 bytes) prefetched into L2, then the wait for the previous
// kernel; the first copies come after it. Outlined, the kernel keeps its
// one wait (magi-wait-for-previous-grid adds none).
// PREFETCH-LABEL: func @projection
// PREFETCH: gpu.launch
// PREFETCH: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[W:.*]] : memref<64x4096xbf16> -> index
// PREFETCH: scf.for %{{.*}} = %{{.*}} to %c32{{.*}} step %c128
// PREFETCH: scf.if
// PREFETCH: %[[INT:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr
// PREFETCH: %[[GLOBAL:.*]] = llvm.addrspacecast %[[INT]] : !llvm.ptr to !llvm.ptr<1>
// PREFETCH: nvvm.cp.async.bulk.prefetch %[[GLOBAL]], %{{.*}} : <1>
// PREFETCH-NOT: nvgpu.device_async_copy
// PREFETCH: nvvm.griddepcontrol  wait
// PREFETCH-NEXT: nvvm.griddepcontrol  launch_dependents
// PREFETCH: nvgpu.device_async_copy %[[W]]
// PREFETCH: prefetch_columns = 1024 : i64
// OUTLINED-LABEL: gpu.func @gemm0(
// OUTLINED-NOT: nvvm.griddepcontrol
// OUTLINED: nvvm.cp.async.bulk.prefetch
// OUTLINED: nvvm.griddepcontrol wait
// OUTLINED-NOT: nvvm.griddepcontrol wait
// OUTLINED: gpu.return
// OPTS-LABEL: func @projection
// OPTS: gpu.launch blocks({{.*}}) in ({{.*}} = %c8{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c64{{.*}}, {{.*}}) dynamic_shared_memory_size %c13312_i32
// OPTS: memref.view {{.*}} to memref<96x64xbf16, #gpu.address_space<workgroup>>
// OPTS: nvvm.cp.async.wait.group 1
// OPTS: } {magi.kernel_config = {block_size = 64 : i64, column_tiles = 1 : i64, row_tiles = 1 : i64, stages = 2 : i64, strategy = "few-row-gemm", warps = 2 : i64}}
// OFF-LABEL: func @projection
// OFF-NOT: gpu.launch
func.func @projection(%x: memref<16x4096xbf16>, %w: memref<64x4096xbf16>) -> memref<16x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<16x64xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<16x64xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<16x4096xbf16>, memref<64x4096xbf16>) outs(%acc : memref<16x64xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %o : f32
    linalg.yield %3 : f32
  }
  %out = memref.alloc() : memref<16x64xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<16x64xf32>) outs(%out : memref<16x64xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  }
  return %out : memref<16x64xbf16>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
// With max-rows=32: f16 at 20 rows (two row tiles; of the second's rows 16..31 only 16..19
// are copied, the rest zero-filled), 20 columns (the block's weight rows
// past 19 copy row 19 and are not stored), K = 200 (four stages, the last
// partly past K: every copy guarded), into an f32 output that is not
// rounded. The products take f16 pairs as vector<2xf16>.
// By default (16 rows at most) it stays a linalg op.
// CHECK-LABEL: func @ragged
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
// ROWS32-LABEL: func @ragged
// ROWS32: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}}) dynamic_shared_memory_size %c147456_i32
// ROWS32: %[[INSIDE:.*]] = arith.cmpi ult, %{{.*}}, %c200
// ROWS32: %[[COUNT:.*]] = arith.select %[[INSIDE]], %c8{{.*}}, %c0
// ROWS32: %[[C19:.*]] = arith.constant 19 : index
// ROWS32: arith.minui %{{.*}}, %[[C19]]
// ROWS32: nvgpu.device_async_copy {{.*}}, 8, %[[COUNT]] {bypassL1}
// ROWS32: %[[ROW_INSIDE:.*]] = arith.cmpi ult, %{{.*}}, %c20
// ROWS32: arith.select %[[ROW_INSIDE]], %[[COUNT]], %c0
// ROWS32: scf.for
// ROWS32: nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// ROWS32: gpu.barrier
// ROWS32: %[[ROW_IN:.*]] = arith.cmpi ult, %{{.*}}, %c20
// ROWS32: %[[COL_IN:.*]] = arith.cmpi ult, %{{.*}}, %c20
// ROWS32: %[[STORE:.*]] = arith.andi %[[ROW_IN]], %[[COL_IN]]
// ROWS32: scf.if %[[STORE]] {
// ROWS32-NOT: arith.truncf
// ROWS32: memref.store {{.*}} : memref<20x20xf32>
// ROWS32: row_tiles = 2 : i64
func.func @ragged(%x: memref<20x200xf16>, %w: memref<20x200xf16>, %out: memref<20x20xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<20x20xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<20x200xf16>, memref<20x200xf16>) outs(%out : memref<20x20xf32>) {
  ^bb0(%in: f16, %in_1: f16, %o: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.extf %in_1 : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %o : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
// Left to cuBLASLt (or loops): more rows than max-rows (48 > 32), a weight stored
// [K, N], f32 inputs, a dynamic row count, K not a multiple of 8, and an
// output that does not hold zeros.
// CHECK-LABEL: func @untouched
// CHECK-NOT: gpu.launch
// CHECK-COUNT-6: linalg.generic
// CHECK-NOT: gpu.launch
func.func @untouched(%x48: memref<48x64xbf16>, %w: memref<32x64xbf16>, %o48: memref<48x32xf32>,
                     %x: memref<16x64xbf16>, %wkn: memref<64x32xbf16>, %o: memref<16x32xf32>,
                     %xf: memref<16x64xf32>, %wf: memref<32x64xf32>,
                     %xd: memref<?x64xbf16>, %od: memref<?x32xf32>,
                     %x12: memref<16x12xbf16>, %w12: memref<32x12xbf16>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%o48 : memref<48x32xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x48, %w : memref<48x64xbf16>, memref<32x64xbf16>) outs(%o48 : memref<48x32xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %acc : f32
    linalg.yield %3 : f32
  }
  linalg.fill ins(%zero : f32) outs(%o : memref<16x32xf32>)
  linalg.generic {indexing_maps = [#a, #kn, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %wkn : memref<16x64xbf16>, memref<64x32xbf16>) outs(%o : memref<16x32xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %acc : f32
    linalg.yield %3 : f32
  }
  linalg.fill ins(%zero : f32) outs(%o : memref<16x32xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xf, %wf : memref<16x64xf32>, memref<32x64xf32>) outs(%o : memref<16x32xf32>) {
  ^bb0(%in: f32, %in_1: f32, %acc: f32):
    %2 = arith.mulf %in, %in_1 : f32
    %3 = arith.addf %2, %acc : f32
    linalg.yield %3 : f32
  }
  linalg.fill ins(%zero : f32) outs(%od : memref<?x32xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xd, %w : memref<?x64xbf16>, memref<32x64xbf16>) outs(%od : memref<?x32xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %acc : f32
    linalg.yield %3 : f32
  }
  linalg.fill ins(%zero : f32) outs(%o : memref<16x32xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x12, %w12 : memref<16x12xbf16>, memref<32x12xbf16>) outs(%o : memref<16x32xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %acc : f32
    linalg.yield %3 : f32
  }
  // Accumulates into what the previous product wrote: no zeros.
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<16x64xbf16>, memref<32x64xbf16>) outs(%o : memref<16x32xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %acc : f32
    linalg.yield %3 : f32
  }
  return
}
