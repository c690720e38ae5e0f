// Row reductions: magi-choose-kernel-config picks `block-reduction` for
// long rows read along the reduced dimension (and for rows of symbolic
// length), keeps short static rows and strided rows serial; magi-map-to-gpu
// maps it to one block per row whose threads split the row and combine with
// gpu.all_reduce, thread 0 folding the total into the output.
// RUN: magi-opt %s --magi-choose-kernel-config | FileCheck %s --check-prefix=CONFIG
// RUN: magi-opt %s --magi-choose-kernel-config="row-reduction-block-size=64" | FileCheck %s --check-prefix=LIMIT
// RUN: magi-opt %s --magi-choose-kernel-config --magi-map-to-gpu | FileCheck %s --check-prefix=MAP
// A block-reduction configuration on a loop that is not a row reduction is
// refused.
// RUN: not magi-opt %s --magi-map-to-gpu --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// CONFIG-LABEL: func @rms
// 4096 elements a row: 512 threads would be eight a thread, capped at 256.
// CONFIG: magi.kernel_config = {block_size = 256 : i64, strategy = "block-reduction"}
// A row of symbolic length: 128 threads.
// CONFIG: magi.kernel_config = {block_size = 128 : i64, strategy = "block-reduction"}
// A row of 128: one thread a row.
// CONFIG: magi.kernel_config = {block_size = 128 : i64, strategy = "serial-reduction"}
// Strided reads along the reduced dimension (a column sum): serial.
// CONFIG: magi.kernel_config = {block_size = 128 : i64, strategy = "serial-reduction"}
// The combined value depends on the loaded one (a running select): serial.
// CONFIG: magi.kernel_config = {block_size = 128 : i64, strategy = "serial-reduction"}
// LIMIT: block_size = 64 : i64, strategy = "block-reduction"
// LIMIT: block_size = 64 : i64, strategy = "block-reduction"

// MAP-LABEL: func @rms
// MAP:      %[[ROWS:.*]] = memref.dim %arg0
// MAP:      gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ROWS]], {{.*}} threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256
// MAP:        %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// MAP:        %[[PART:.*]] = scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// MAP:          %[[V:.*]] = memref.load %arg0[%{{.*}}, %[[J]]]
// MAP:          %[[SQ:.*]] = arith.mulf %[[V]], %[[V]]
// MAP:          %[[N:.*]] = arith.addf %[[ACC]], %[[SQ]]
// MAP:          scf.yield %[[N]]
// MAP:        %[[TOTAL:.*]] = gpu.all_reduce add %[[PART]] uniform
// MAP:        %[[FIRST:.*]] = arith.cmpi eq, %[[TX]]
// MAP:        scf.if %[[FIRST]] {
// MAP:          %[[OLD:.*]] = memref.load %arg1
// MAP:          %[[NEW:.*]] = arith.addf %[[OLD]], %[[TOTAL]]
// MAP:          memref.store %[[NEW]], %arg1
// MAP: } {magi.kernel_config = {block_size = 256 : i64, strategy = "block-reduction"}}
// MAP: gpu.all_reduce maximumf
func.func @rms(%x: memref<?x4096xf32>, %out: memref<?xf32>, %y: memref<?x?xf32>,
               %m: memref<?xf32>, %z: memref<?x128xf32>, %col: memref<128xf32>,
               %cnt: memref<?xi32>, %mask: memref<?x4096xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c4096 = arith.constant 4096 : index
  %n = memref.dim %x, %c0 : memref<?x4096xf32>
  %k = memref.dim %y, %c1 : memref<?x?xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.for %j = %c0 to %c4096 step %c1 {
      %v = memref.load %x[%i, %j] : memref<?x4096xf32>
      %a = memref.load %out[%i] : memref<?xf32>
      %sq = arith.mulf %v, %v : f32
      %s = arith.addf %sq, %a : f32
      memref.store %s, %out[%i] : memref<?xf32>
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.for %j = %c0 to %k step %c1 {
      %v = memref.load %y[%i, %j] : memref<?x?xf32>
      %a = memref.load %m[%i] : memref<?xf32>
      %s = arith.maximumf %a, %v : f32
      memref.store %s, %m[%i] : memref<?xf32>
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.for %j = %c0 to %c128 step %c1 {
      %v = memref.load %z[%i, %j] : memref<?x128xf32>
      %a = memref.load %out[%i] : memref<?xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %out[%i] : memref<?xf32>
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
    scf.for %j = %c0 to %n step %c1 {
      %v = memref.load %z[%j, %i] : memref<?x128xf32>
      %a = memref.load %col[%i] : memref<128xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %col[%i] : memref<128xf32>
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.for %j = %c0 to %c4096 step %c1 {
      %v = memref.load %mask[%i, %j] : memref<?x4096xi32>
      %a = memref.load %cnt[%i] : memref<?xi32>
      %p = arith.cmpi sgt, %a, %v : i32
      %w = arith.select %p, %a, %v : i32
      %s = arith.addi %a, %w : i32
      memref.store %s, %cnt[%i] : memref<?xi32>
    }
    scf.reduce
  }
  return
}

// The kernel that fills the output with the initial value just before a
// block reduction is folded into it: thread 0 stores the total combined
// with that value, and there is one launch.
// MAP-LABEL: func @filled
// MAP-COUNT-1: gpu.launch
// MAP-NOT: gpu.launch
// MAP:      %[[INIT:.*]] = arith.constant 0.000000e+00 : f32
// MAP:      %[[TOTAL:.*]] = gpu.all_reduce add
// MAP:      scf.if
// MAP-NEXT:   %[[NEW:.*]] = arith.addf %[[INIT]], %[[TOTAL]]
// MAP-NEXT:   memref.store %[[NEW]], %arg1[%{{.*}}, %{{.*}}]
func.func @filled(%x: memref<1x?x4096xf32>, %out: memref<1x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c1 : memref<1x?x4096xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %zero, %out[%c0, %i] : memref<1x?xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.for %j = %c0 to %c4096 step %c1 {
      %v = memref.load %x[%c0, %i, %j] : memref<1x?x4096xf32>
      %a = memref.load %out[%c0, %i] : memref<1x?xf32>
      %sq = arith.mulf %v, %v : f32
      %s = arith.addf %sq, %a : f32
      memref.store %s, %out[%c0, %i] : memref<1x?xf32>
    }
    scf.reduce
  }
  return
}

// -----

// BAD: error: strategy 'block-reduction' needs a row reduction
func.func @not_a_row_reduction(%a: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %zero, %a[%i] : memref<?xf32>
    scf.reduce
  } {magi.kernel_config = {block_size = 128 : i64, strategy = "block-reduction"}}
  return
}
