// magi-choose-kernel-config: one configuration per future kernel, decided
// apart from the mapping that executes it.
// RUN: magi-opt %s --magi-choose-kernel-config | FileCheck %s
// RUN: magi-opt %s --magi-choose-kernel-config="block-size=512 reduction-block-size=64" | FileCheck %s --check-prefix=OPTS
// Block sizes past the CUDA limit are refused.
// RUN: not magi-opt %s --magi-choose-kernel-config="block-size=2048" 2>&1 | FileCheck %s --check-prefix=LIMIT
// LIMIT: error: block size 2048 is outside 1..1024 (the CUDA limit)

// CHECK-LABEL: func @kinds
// An elementwise loop with a symbolic bound: the default block.
// CHECK: scf.parallel
// CHECK: magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise"}
// A loop whose threads each run a serial inner loop.
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: magi.kernel_config = {block_size = 128 : i64, strategy = "serial-reduction"}
// A small static loop: its 40 iterations round up to 64 threads (two warps).
// CHECK: scf.parallel
// CHECK: magi.kernel_config = {block_size = 64 : i64, strategy = "elementwise"}
// A store outside any loop runs in a single thread.
// CHECK: memref.store
// CHECK-SAME: magi.kernel_config = {block_size = 1 : i64, strategy = "single-thread"}
// Allocation and sizes stay on the host, unconfigured.
// CHECK-NOT: magi.kernel_config
// CHECK: return
// OPTS-LABEL: func @kinds
// OPTS: block_size = 512 : i64, strategy = "elementwise"
// OPTS: block_size = 64 : i64, strategy = "serial-reduction"
// OPTS: block_size = 64 : i64, strategy = "elementwise"
func.func @kinds(%a: memref<?x64xf32>, %out: memref<?xf32>, %small: memref<40xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %a, %c0 : memref<?x64xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c64) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<?x64xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %a[%i, %j] : memref<?x64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.for %j = %c0 to %c64 step %c1 {
      %x = memref.load %a[%i, %j] : memref<?x64xf32>
      %acc = memref.load %out[%i] : memref<?xf32>
      %s = arith.addf %acc, %x : f32
      memref.store %s, %out[%i] : memref<?xf32>
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c40) step (%c1) {
    memref.store %zero, %small[%i] : memref<40xf32>
    scf.reduce
  }
  memref.store %zero, %out[%c0] : memref<?xf32>
  %buffer = memref.alloc(%n) : memref<?xf32>
  return
}

