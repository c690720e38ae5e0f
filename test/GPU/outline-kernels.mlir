// magi-outline-kernels: upstream outlining, with each named launch's nvvm.*
// attributes on the kernel it becomes (others are not carried).
// RUN: magi-opt %s --magi-outline-kernels | FileCheck %s

// CHECK-LABEL: func.func @bounds
// CHECK: gpu.launch_func @bounds_kernels::@bounded
// CHECK: gpu.launch_func @bounds_kernels::@plain
// CHECK: gpu.func @bounded(%{{.*}}: memref<4xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>, known_grid_size = array<i32: 1, 1, 1>, nvvm.minctasm = 3 : i32}
// CHECK: gpu.func @plain(%{{.*}}: memref<4xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
func.func @bounds(%m: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c4, %b = %c1, %c = %c1)
             module(@bounds_kernels) function(@bounded) {
    %v = arith.constant 1.0 : f32
    memref.store %v, %m[%tx] : memref<4xf32>
    gpu.terminator
  } {nvvm.minctasm = 3 : i32}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c4, %b = %c1, %c = %c1)
             module(@bounds_kernels) function(@plain) {
    %v = arith.constant 2.0 : f32
    memref.store %v, %m[%tx] : memref<4xf32>
    gpu.terminator
  } {magi.other = 1 : i64}
  return
}

