// magi-outline-kernels refuses launches it cannot tell apart after outlining.
// RUN: not magi-opt %s --magi-outline-kernels 2>&1 | FileCheck %s

// Outlining would rename the second @k: its bounds could land on the first.
// CHECK: error: magi-outline-kernels: two launches with nvvm attributes name the kernel @m::@k
func.func @twice(%m: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1)
             module(@m) function(@k) {
    gpu.terminator
  } {nvvm.minctasm = 2 : i32}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1)
             module(@m) function(@k) {
    gpu.terminator
  } {nvvm.minctasm = 4 : i32}
  return
}
