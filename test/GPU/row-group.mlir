// Row groups: magi-choose-kernel-config puts a block reduction and its
// neighbouring loops over the same rows into one `row-group` when each
// block would touch only its own rows of what the group writes;
// magi-map-to-gpu runs the group as one kernel, one block per row, a barrier
// between phases.
// RUN: magi-opt %s --split-input-file --magi-choose-kernel-config="earlier-row-phases=false" | FileCheck %s --check-prefix=CONFIG
// RUN: magi-opt %s --split-input-file --magi-choose-kernel-config="row-groups=false" | FileCheck %s --check-prefix=APART
// A row phase further back joins with earlier-row-phases (the default):
// RUN: magi-opt %s --split-input-file --magi-choose-kernel-config | FileCheck %s --check-prefix=JOIN
// RUN: magi-opt %s --split-input-file --magi-choose-kernel-config --magi-map-to-gpu=lean-row-groups=false | FileCheck %s --check-prefix=JOINREG
// RUN: magi-opt %s --split-input-file --magi-choose-kernel-config="vector-access=false earlier-row-phases=false" | FileCheck %s --check-prefix=SCALAR
// RUN: magi-opt %s --split-input-file --magi-choose-kernel-config="vector-access=false earlier-row-phases=false" --magi-map-to-gpu=lean-row-groups=false | FileCheck %s --check-prefix=MAP
// With vector access, a group whose rows split into whole 16-byte vectors
// keeps each block's row in registers (row_chunks); lean-row-groups (the
// default) drops what the REG run keeps:
// RUN: magi-opt %s --split-input-file --magi-choose-kernel-config="earlier-row-phases=false" --magi-map-to-gpu=lean-row-groups=false | FileCheck %s --check-prefix=REG
// RUN: magi-opt %s --split-input-file --magi-choose-kernel-config="earlier-row-phases=false" --magi-map-to-gpu | FileCheck %s --check-prefix=LEAN
// A group that is not row-local, or whose loops are not phases of one row
// space, is refused by the mapping.
// RUN: not magi-opt %s --split-input-file --magi-map-to-gpu 2>&1 | FileCheck %s --check-prefix=BAD

// An RMSNorm after a residual add: h = a + b, r = fill 0 then sum of h²,
// y = h * r. One group of four loops over 4 rows of 4096.
// With vector access the rows fit the registers: 4096 f32 columns are
// 1024 vectors of 4, four per thread of 256.
// CONFIG-LABEL: func @rms_norm
// CONFIG-COUNT-4: magi.kernel_config = {block_size = 256 : i64, group = 0 : i64, row_chunks = 4 : i64, strategy = "row-group", vector_width = 4 : i64}
// CONFIG-NOT: magi.kernel_config
// SCALAR-LABEL: func @rms_norm
// SCALAR-COUNT-4: magi.kernel_config = {block_size = 256 : i64, group = 0 : i64, strategy = "row-group"}
// APART-LABEL: func @rms_norm
// APART: strategy = "elementwise"
// APART: strategy = "elementwise"
// APART: strategy = "block-reduction"
// APART: strategy = "elementwise"
// MAP-LABEL: func @rms_norm
// MAP: %[[ROWS:c4_[0-9]+]] = arith.constant 4 : index
// MAP: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ROWS]], {{.*}} threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256
// The add: the threads split the columns, four at a time, loads first.
// MAP:   scf.for
// MAP:     scf.if
// MAP-COUNT-8: memref.load
// MAP-COUNT-4: memref.store {{.*}}, %arg2
// MAP:   gpu.barrier
// The fill is folded into the reduction: no store of zeros.
// MAP-NOT: memref.store %cst
// MAP:   scf.for {{.*}} iter_args
// MAP:   gpu.all_reduce add
// MAP:   scf.if
// MAP:     memref.store {{.*}}, %arg3
// MAP:   gpu.barrier
// MAP:   scf.for
// MAP:     memref.store {{.*}}, %arg4
// MAP:   gpu.terminator
// MAP-NOT: gpu.launch
// MAP: return
// In registers: thread t's chunks k start at column (t + 256 k) * 4; the
// add loads a and b for all four chunks first, then stores h a vector at a
// time; the reduction takes h's elements from those vectors (no load of
// h), and so does the last phase.
// The piece's arguments may be one buffer: lean-row-groups keeps the
// barriers.
// LEAN-LABEL: func @rms_norm
// LEAN: gpu.barrier
// LEAN: gpu.all_reduce add
// LEAN: gpu.barrier
// LEAN: gpu.terminator
// REG-LABEL: func @rms_norm
// REG: gpu.launch {{.*}} threads(%[[TX:[a-z0-9]+]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256
// REG-COUNT-4: arith.muli {{.*}}, %c4
// REG-NOT: scf.for
// REG-COUNT-8: vector.load %arg{{[01]}}{{.*}} : memref<4x4096xf32>, vector<4xf32>
// REG-NEXT: arith.addf
// REG-COUNT-4: vector.store {{.*}}, %arg2
// REG-NOT: vector.load %arg2
// REG: gpu.barrier
// REG-NOT: vector.load %arg2
// REG-NOT: memref.load %arg2
// REG-COUNT-16: vector.extract
// REG: gpu.all_reduce add
// REG: memref.store {{.*}}, %arg3
// REG: gpu.barrier
// REG-NOT: load %arg2
// REG-COUNT-4: vector.store {{.*}}, %arg4
// REG-NOT: load %arg2
// REG: gpu.terminator
func.func @rms_norm(%a: memref<4x4096xf32>, %b: memref<4x4096xf32>, %h: memref<4x4096xf32>, %r: memref<4xf32>, %y: memref<4x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4096) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<4x4096xf32>
    %z = memref.load %b[%i, %j] : memref<4x4096xf32>
    %s = arith.addf %x, %z : f32
    memref.store %s, %h[%i, %j] : memref<4x4096xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %r[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c4096 step %c1 {
      %x = memref.load %h[%i, %j] : memref<4x4096xf32>
      %acc = memref.load %r[%i] : memref<4xf32>
      %sq = arith.mulf %x, %x : f32
      %n = arith.addf %acc, %sq : f32
      memref.store %n, %r[%i] : memref<4xf32>
    }
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4096) step (%c1, %c1) {
    %x = memref.load %h[%i, %j] : memref<4x4096xf32>
    %s = memref.load %r[%i] : memref<4xf32>
    %v = arith.mulf %x, %s : f32
    memref.store %v, %y[%i, %j] : memref<4x4096xf32>
    scf.reduce
  }
  return
}

// -----

// The same RMSNorm with a weight, into buffers the function allocates (as
// a piece's plan does): no other buffer can be one of them. With
// lean-row-groups every thread folds the (uniform) total and the last
// phase takes it from there rather than from memory; the phases then share
// no buffer one writes, so no barrier separates them; the weight (which
// the kernel never writes) is loaded first thing, not after the reduction.
// By default the total goes through memory, behind a barrier.
// CONFIG-LABEL: func @rms_norm_allocated
// CONFIG-COUNT-4: strategy = "row-group"
// SCALAR-LABEL: func @rms_norm_allocated
// APART-LABEL: func @rms_norm_allocated
// MAP-LABEL: func @rms_norm_allocated
// MAP: gpu.all_reduce add
// MAP: gpu.barrier
// MAP: memref.load %alloc
// REG-LABEL: func @rms_norm_allocated
// REG: gpu.all_reduce add
// REG: scf.if
// REG: memref.store {{.*}}, %[[R:alloc[_0-9]*]]
// REG: gpu.barrier
// REG: memref.load %[[R]]
// REG: vector.load %arg2
// REG: gpu.terminator
// LEAN-LABEL: func @rms_norm_allocated
// LEAN: gpu.launch
// LEAN-NOT: gpu.barrier
// LEAN-COUNT-4: vector.load %arg2
// LEAN-NOT: gpu.barrier
// LEAN: %[[TOTAL:.*]] = gpu.all_reduce add
// LEAN: %[[SUM:.*]] = arith.addf %{{.*}}, %[[TOTAL]]
// LEAN: scf.if
// LEAN-NEXT: memref.store %[[SUM]], %[[R:alloc[_0-9]*]]
// LEAN-NOT: gpu.barrier
// LEAN-NOT: memref.load %[[R]]
// LEAN: vector.broadcast %[[SUM]]
// LEAN-NOT: gpu.barrier
// LEAN: gpu.terminator
func.func @rms_norm_allocated(%a: memref<4x4096xf32>, %b: memref<4x4096xf32>, %w: memref<4096xf32>) -> (memref<4x4096xf32>, memref<4x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %h = memref.alloc() : memref<4x4096xf32>
  %r = memref.alloc() : memref<4xf32>
  %y = memref.alloc() : memref<4x4096xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4096) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<4x4096xf32>
    %z = memref.load %b[%i, %j] : memref<4x4096xf32>
    %s = arith.addf %x, %z : f32
    memref.store %s, %h[%i, %j] : memref<4x4096xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %r[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c4096 step %c1 {
      %x = memref.load %h[%i, %j] : memref<4x4096xf32>
      %acc = memref.load %r[%i] : memref<4xf32>
      %sq = arith.mulf %x, %x : f32
      %n = arith.addf %acc, %sq : f32
      memref.store %n, %r[%i] : memref<4xf32>
    }
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4096) step (%c1, %c1) {
    %x = memref.load %h[%i, %j] : memref<4x4096xf32>
    %s = memref.load %r[%i] : memref<4xf32>
    %g = memref.load %w[%j] : memref<4096xf32>
    %v = arith.mulf %x, %s : f32
    %u = arith.mulf %v, %g : f32
    memref.store %u, %y[%i, %j] : memref<4x4096xf32>
    scf.reduce
  }
  return %h, %y : memref<4x4096xf32>, memref<4x4096xf32>
}

// -----

// An embedding's gather, then a loop over other rows (transformers computes
// the RoPE tables there), then the RMSNorm of the gathered rows: the gather
// moves down to join the RMSNorm's group, which then reads the table's rows
// once (the loop between touches none of its buffers), with
// earlier-row-phases; by default it stays apart. In @gather_read_between,
// the loop between reads the gathered rows: the gather stays where it is,
// a kernel of its own, either way.
// JOIN-LABEL: func @gather_then_norm
// JOIN: memref.load %arg2
// JOIN: math.cos
// JOIN: strategy = "elementwise"
// JOIN: memref.load %arg0
// JOIN: memref.load %arg1
// JOIN: group = 0 : i64, row_chunks = 4 : i64, strategy = "row-group"
// JOIN-COUNT-3: group = 0 : i64, row_chunks = 4 : i64, strategy = "row-group"
// JOIN-NOT: magi.kernel_config
// JOINREG-LABEL: func @gather_then_norm
// JOINREG: gpu.launch
// JOINREG: math.cos
// JOINREG: gpu.launch
// JOINREG: memref.load %arg0
// JOINREG: vector.load %arg1
// JOINREG: gpu.all_reduce add
// JOINREG-NOT: gpu.launch
// JOINREG: return
// CONFIG-LABEL: func @gather_then_norm
// CONFIG: memref.load %arg1
// CONFIG: strategy = "elementwise"
// CONFIG: math.cos
// CONFIG: strategy = "elementwise"
// CONFIG-COUNT-3: group = 0 : i64, row_chunks = 4 : i64, strategy = "row-group"
func.func @gather_then_norm(%ids: memref<4xi64>, %table: memref<100x4096xf32>, %freq: memref<64xf32>,
                            %r: memref<4xf32>, %y: memref<4x4096xf32>) -> (memref<4x4096xf32>, memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %h = memref.alloc() : memref<4x4096xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4096) step (%c1, %c1) {
    %id = memref.load %ids[%i] : memref<4xi64>
    %row = arith.index_cast %id : i64 to index
    %v = memref.load %table[%row, %j] : memref<100x4096xf32>
    memref.store %v, %h[%i, %j] : memref<4x4096xf32>
    scf.reduce
  }
  %t = memref.alloc() : memref<64xf32>
  scf.parallel (%k) = (%c0) to (%c64) step (%c1) {
    %f = memref.load %freq[%k] : memref<64xf32>
    %c = math.cos %f : f32
    memref.store %c, %t[%k] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %r[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c4096 step %c1 {
      %x = memref.load %h[%i, %j] : memref<4x4096xf32>
      %acc = memref.load %r[%i] : memref<4xf32>
      %sq = arith.mulf %x, %x : f32
      %n = arith.addf %acc, %sq : f32
      memref.store %n, %r[%i] : memref<4xf32>
    }
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4096) step (%c1, %c1) {
    %x = memref.load %h[%i, %j] : memref<4x4096xf32>
    %s = memref.load %r[%i] : memref<4xf32>
    %v = arith.mulf %x, %s : f32
    memref.store %v, %y[%i, %j] : memref<4x4096xf32>
    scf.reduce
  }
  return %h, %t : memref<4x4096xf32>, memref<64xf32>
}

// With static sizes the positions are a loop over the same rows too (it
// matches as a phase of the group's rows) but feeds nothing the RMSNorm
// reads: the scan passes it and still moves the gather down.
// JOIN-LABEL: func @gather_positions_then_norm
// JOIN: arith.uitofp
// JOIN: strategy = "elementwise"
// JOIN: math.cos
// JOIN: strategy = "elementwise"
// JOIN: memref.load %arg0
// JOIN: memref.load %arg1
// JOIN: group = 0 : i64, row_chunks = 4 : i64, strategy = "row-group"
// JOIN-COUNT-3: group = 0 : i64, row_chunks = 4 : i64, strategy = "row-group"
// JOIN-NOT: magi.kernel_config
// CONFIG-LABEL: func @gather_positions_then_norm
// CONFIG: memref.load %arg1
// CONFIG: strategy = "elementwise"
// CONFIG: arith.uitofp
// CONFIG: strategy = "elementwise"
func.func @gather_positions_then_norm(%ids: memref<4xi64>, %table: memref<100x4096xf32>, %freq: memref<64xf32>,
                                      %r: memref<4xf32>, %y: memref<4x4096xf32>) -> (memref<4x4096xf32>, memref<64xf32>, memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %h = memref.alloc() : memref<4x4096xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4096) step (%c1, %c1) {
    %id = memref.load %ids[%i] : memref<4xi64>
    %row = arith.index_cast %id : i64 to index
    %v = memref.load %table[%row, %j] : memref<100x4096xf32>
    memref.store %v, %h[%i, %j] : memref<4x4096xf32>
    scf.reduce
  }
  %p = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %n = arith.index_castui %i : index to i32
    %f = arith.uitofp %n : i32 to f32
    memref.store %f, %p[%i] : memref<4xf32>
    scf.reduce
  }
  %t = memref.alloc() : memref<64xf32>
  scf.parallel (%k) = (%c0) to (%c64) step (%c1) {
    %f = memref.load %freq[%k] : memref<64xf32>
    %c = math.cos %f : f32
    memref.store %c, %t[%k] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %r[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c4096 step %c1 {
      %x = memref.load %h[%i, %j] : memref<4x4096xf32>
      %acc = memref.load %r[%i] : memref<4xf32>
      %sq = arith.mulf %x, %x : f32
      %n = arith.addf %acc, %sq : f32
      memref.store %n, %r[%i] : memref<4xf32>
    }
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4096) step (%c1, %c1) {
    %x = memref.load %h[%i, %j] : memref<4x4096xf32>
    %s = memref.load %r[%i] : memref<4xf32>
    %v = arith.mulf %x, %s : f32
    memref.store %v, %y[%i, %j] : memref<4x4096xf32>
    scf.reduce
  }
  return %h, %t, %p : memref<4x4096xf32>, memref<64xf32>, memref<4xf32>
}

// JOIN-LABEL: func @gather_read_between
// JOIN: memref.load %arg1
// JOIN: strategy = "elementwise"
// JOIN: math.cos
// JOIN: strategy = "elementwise"
// JOIN-COUNT-3: group = 0 : i64, row_chunks = 4 : i64, strategy = "row-group"
// CONFIG-LABEL: func @gather_read_between
// CONFIG: memref.load %arg1
// CONFIG: strategy = "elementwise"
// CONFIG: math.cos
// CONFIG: strategy = "elementwise"
// CONFIG-COUNT-3: group = 0 : i64, row_chunks = 4 : i64, strategy = "row-group"
// CONFIG-NOT: magi.kernel_config
func.func @gather_read_between(%ids: memref<4xi64>, %table: memref<100x4096xf32>,
                               %r: memref<4xf32>, %y: memref<4x4096xf32>) -> (memref<4x4096xf32>, memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %h = memref.alloc() : memref<4x4096xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4096) step (%c1, %c1) {
    %id = memref.load %ids[%i] : memref<4xi64>
    %row = arith.index_cast %id : i64 to index
    %v = memref.load %table[%row, %j] : memref<100x4096xf32>
    memref.store %v, %h[%i, %j] : memref<4x4096xf32>
    scf.reduce
  }
  %t = memref.alloc() : memref<64xf32>
  scf.parallel (%k) = (%c0) to (%c64) step (%c1) {
    %f = memref.load %h[%c0, %k] : memref<4x4096xf32>
    %c = math.cos %f : f32
    memref.store %c, %t[%k] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %r[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c4096 step %c1 {
      %x = memref.load %h[%i, %j] : memref<4x4096xf32>
      %acc = memref.load %r[%i] : memref<4xf32>
      %sq = arith.mulf %x, %x : f32
      %n = arith.addf %acc, %sq : f32
      memref.store %n, %r[%i] : memref<4xf32>
    }
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4096) step (%c1, %c1) {
    %x = memref.load %h[%i, %j] : memref<4x4096xf32>
    %s = memref.load %r[%i] : memref<4xf32>
    %v = arith.mulf %x, %s : f32
    memref.store %v, %y[%i, %j] : memref<4x4096xf32>
    scf.reduce
  }
  return %h, %t : memref<4x4096xf32>, memref<64xf32>
}

// -----

// The sum and the result in one buffer (as bufferization leaves a final
// RMSNorm whose sum nothing else reads): the sum's stores are erased, the
// row is written once, by the last phase. Scalar loads keep both stores:
// the reduction reads the sums from memory.
// CONFIG-LABEL: func @rms_norm_in_place
// CONFIG-COUNT-4: strategy = "row-group"
// REG-LABEL: func @rms_norm_in_place
// REG: gpu.launch
// REG-COUNT-8: vector.load %arg{{[01]}}{{.*}} : memref<4x4096xf32>, vector<4xf32>
// REG-NOT: vector.store
// REG: gpu.all_reduce add
// REG: memref.store {{.*}}, %arg3
// REG: gpu.barrier
// REG-COUNT-4: vector.store {{.*}}, %arg2
// REG-NOT: vector.store
// REG: gpu.terminator
// MAP-LABEL: func @rms_norm_in_place
// MAP-COUNT-4: memref.store {{.*}}, %arg2
// MAP: gpu.all_reduce add
// MAP: memref.store {{.*}}, %arg2
func.func @rms_norm_in_place(%a: memref<4x4096xf32>, %b: memref<4x4096xf32>, %h: memref<4x4096xf32>, %r: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4096) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<4x4096xf32>
    %z = memref.load %b[%i, %j] : memref<4x4096xf32>
    %s = arith.addf %x, %z : f32
    memref.store %s, %h[%i, %j] : memref<4x4096xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %r[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c4096 step %c1 {
      %x = memref.load %h[%i, %j] : memref<4x4096xf32>
      %acc = memref.load %r[%i] : memref<4xf32>
      %sq = arith.mulf %x, %x : f32
      %n = arith.addf %acc, %sq : f32
      memref.store %n, %r[%i] : memref<4xf32>
    }
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4096) step (%c1, %c1) {
    %x = memref.load %h[%i, %j] : memref<4x4096xf32>
    %s = memref.load %r[%i] : memref<4xf32>
    %v = arith.mulf %x, %s : f32
    memref.store %v, %h[%i, %j] : memref<4x4096xf32>
    scf.reduce
  }
  return
}

// -----

// Not row-local: the last loop reads h at the next row, which another
// block writes. The loops stay apart (the fill folds into the reduction).
// CONFIG-LABEL: func @next_row
// CONFIG-NOT: row-group
// CONFIG: return
func.func @next_row(%a: memref<4x4096xf32>, %h: memref<4x4096xf32>, %r: memref<4xf32>, %y: memref<4x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c4096 = arith.constant 4096 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4096) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<4x4096xf32>
    memref.store %x, %h[%i, %j] : memref<4x4096xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c4096 step %c1 {
      %x = memref.load %h[%i, %j] : memref<4x4096xf32>
      %acc = memref.load %r[%i] : memref<4xf32>
      %n = arith.addf %acc, %x : f32
      memref.store %n, %r[%i] : memref<4xf32>
    }
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4096) step (%c1, %c1) {
    %i1 = arith.addi %i, %c1 : index
    %next = arith.remui %i1, %c4 : index
    %x = memref.load %h[%next, %j] : memref<4x4096xf32>
    memref.store %x, %y[%i, %j] : memref<4x4096xf32>
    scf.reduce
  }
  return
}

// -----

// The same loops given a group by hand: the mapping refuses it.
// BAD: error: row group accesses a buffer it writes outside each block's row
func.func @bad_group(%h: memref<4x4096xf32>, %r: memref<4xf32>, %y: memref<4x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c4096 = arith.constant 4096 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c4096 step %c1 {
      %x = memref.load %h[%i, %j] : memref<4x4096xf32>
      %acc = memref.load %r[%i] : memref<4xf32>
      %n = arith.addf %acc, %x : f32
      memref.store %n, %r[%i] : memref<4xf32>
    }
    scf.reduce
  } {magi.kernel_config = {block_size = 256 : i64, group = 0 : i64, strategy = "row-group"}}
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4096) step (%c1, %c1) {
    %x = memref.load %h[%i, %j] : memref<4x4096xf32>
    %s = memref.load %r[%c0] : memref<4xf32>
    %v = arith.mulf %x, %s : f32
    memref.store %v, %y[%i, %j] : memref<4x4096xf32>
    scf.reduce
  } {magi.kernel_config = {block_size = 256 : i64, group = 0 : i64, strategy = "row-group"}}
  return
}

// -----

// row_chunks given by hand that do not fit the group: refused.
// BAD: error: row_chunks 3 with vector_width 4 and block_size 256 does not fit this row group
func.func @bad_chunks(%h: memref<4x4096xf32>, %r: memref<4xf32>, %y: memref<4x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c4096 = arith.constant 4096 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c4096 step %c1 {
      %x = memref.load %h[%i, %j] : memref<4x4096xf32>
      %acc = memref.load %r[%i] : memref<4xf32>
      %n = arith.addf %acc, %x : f32
      memref.store %n, %r[%i] : memref<4xf32>
    }
    scf.reduce
  } {magi.kernel_config = {block_size = 256 : i64, group = 0 : i64, row_chunks = 3 : i64, strategy = "row-group", vector_width = 4 : i64}}
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4096) step (%c1, %c1) {
    %x = memref.load %h[%i, %j] : memref<4x4096xf32>
    %s = memref.load %r[%i] : memref<4xf32>
    %v = arith.mulf %x, %s : f32
    memref.store %v, %y[%i, %j] : memref<4x4096xf32>
    scf.reduce
  } {magi.kernel_config = {block_size = 256 : i64, group = 0 : i64, row_chunks = 3 : i64, strategy = "row-group", vector_width = 4 : i64}}
  return
}

// -----

// Rows of 4100 f32 columns (not whole vectors of 4) stay a group without
// registers; rows of 8192 are 2048 vectors, 8 a thread (the most).
// CONFIG-LABEL: func @odd_rows
// CONFIG-COUNT-2: magi.kernel_config = {block_size = 256 : i64, group = 0 : i64, strategy = "row-group"}
// CONFIG-COUNT-2: magi.kernel_config = {block_size = 256 : i64, group = 1 : i64, row_chunks = 8 : i64, strategy = "row-group", vector_width = 4 : i64}
func.func @odd_rows(%h: memref<4x4100xf32>, %r: memref<4xf32>, %y: memref<4x4100xf32>,
                    %g: memref<4x8192xf32>, %q: memref<4xf32>, %z: memref<4x8192xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c4100 = arith.constant 4100 : index
  %c8192 = arith.constant 8192 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c4100 step %c1 {
      %x = memref.load %h[%i, %j] : memref<4x4100xf32>
      %acc = memref.load %r[%i] : memref<4xf32>
      %n = arith.addf %acc, %x : f32
      memref.store %n, %r[%i] : memref<4xf32>
    }
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4100) step (%c1, %c1) {
    %x = memref.load %h[%i, %j] : memref<4x4100xf32>
    %s = memref.load %r[%i] : memref<4xf32>
    %v = arith.mulf %x, %s : f32
    memref.store %v, %y[%i, %j] : memref<4x4100xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c8192 step %c1 {
      %x = memref.load %g[%i, %j] : memref<4x8192xf32>
      %acc = memref.load %q[%i] : memref<4xf32>
      %n = arith.addf %acc, %x : f32
      memref.store %n, %q[%i] : memref<4xf32>
    }
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8192) step (%c1, %c1) {
    %x = memref.load %g[%i, %j] : memref<4x8192xf32>
    %s = memref.load %q[%i] : memref<4xf32>
    %v = arith.mulf %x, %s : f32
    memref.store %v, %z[%i, %j] : memref<4x8192xf32>
    scf.reduce
  }
  return
}

// -----

// Rows in registers never forward across a store that may name the same
// elements through other index values: the reduction loads buf[%c0, i, *],
// the next phase stores buf[%z, i, *] (%z is another 0), so the last phase
// loads buf again instead of reusing the reduction's vectors.
// REG-LABEL: func @store_through_other_indices
// REG: gpu.all_reduce add
// REG-COUNT-4: vector.store {{.*}}, %arg0[
// REG: gpu.barrier
// REG: vector.load %arg0[
// REG: gpu.terminator
func.func @store_through_other_indices(%buf: memref<1x4x4096xf32>, %r: memref<4xf32>, %y: memref<4x4096xf32>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c4096 = arith.constant 4096 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c4096 step %c1 {
      %x = memref.load %buf[%c0, %i, %j] : memref<1x4x4096xf32>
      %acc = memref.load %r[%i] : memref<4xf32>
      %n = arith.addf %acc, %x : f32
      memref.store %n, %r[%i] : memref<4xf32>
    }
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4096) step (%c1, %c1) {
    %v = memref.load %y[%i, %j] : memref<4x4096xf32>
    memref.store %v, %buf[%z, %i, %j] : memref<1x4x4096xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4096) step (%c1, %c1) {
    %x = memref.load %buf[%c0, %i, %j] : memref<1x4x4096xf32>
    %s = memref.load %r[%i] : memref<4xf32>
    %v = arith.mulf %x, %s : f32
    memref.store %v, %y[%i, %j] : memref<4x4096xf32>
    scf.reduce
  }
  return
}
