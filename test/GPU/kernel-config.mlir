// magi-choose-kernel-config: one configuration per future kernel, decided
// apart from the mapping that executes it.
// RUN: magi-opt %s --magi-choose-kernel-config | FileCheck %s
// RUN: magi-opt %s --magi-choose-kernel-config="block-size=512 reduction-block-size=64" | FileCheck %s --check-prefix=OPTS
// Block sizes past the CUDA limit are refused.
// RUN: not magi-opt %s --magi-choose-kernel-config="block-size=2048" 2>&1 | FileCheck %s --check-prefix=LIMIT
// LIMIT: error: block size 2048 is outside 1..1024 (the CUDA limit)
// RUN: magi-opt %s --magi-choose-kernel-config="max-elements-per-thread=1" | FileCheck %s --check-prefix=ONE
// RUN: magi-opt %s --magi-choose-kernel-config="vector-access=false" | FileCheck %s --check-prefix=SCALAR
// RUN: magi-opt %s --magi-choose-kernel-config="one-wave=true" | FileCheck %s --check-prefix=WAVE
// SCALAR-NOT: vector_width
// RUN: not magi-opt %s --magi-choose-kernel-config="max-elements-per-thread=3" 2>&1 | FileCheck %s --check-prefix=PER
// PER: error: max-elements-per-thread 3 is not a power of two in 1..64

// CHECK-LABEL: func @kinds
// An elementwise loop with a symbolic bound: the default block, four
// iterations a thread (their loads overlap), each iteration a vector of
// four f32 (the rows are 64 long: every access streams, aligned).
// CHECK: scf.parallel
// CHECK: magi.kernel_config = {block_size = 256 : i64, elements_per_thread = 4 : i64, strategy = "elementwise", vector_width = 4 : i64}
// A loop whose threads each run a serial inner loop.
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: magi.kernel_config = {block_size = 128 : i64, strategy = "serial-reduction"}
// A small static loop: its 40 stores of a constant are 10 vectors of four,
// which round up to 32 threads (a warp), one vector a thread.
// CHECK: scf.parallel
// CHECK: magi.kernel_config = {block_size = 32 : i64, strategy = "elementwise", vector_width = 4 : i64}
// A store outside any loop runs in a single thread.
// CHECK: memref.store
// CHECK-SAME: magi.kernel_config = {block_size = 1 : i64, strategy = "single-thread"}
// Allocation and sizes stay on the host, unconfigured.
// CHECK-NOT: magi.kernel_config
// CHECK: return
// OPTS-LABEL: func @kinds
// OPTS: block_size = 512 : i64, elements_per_thread = 4 : i64, strategy = "elementwise"
// OPTS: block_size = 64 : i64, strategy = "serial-reduction"
// OPTS: block_size = 32 : i64, strategy = "elementwise", vector_width = 4 : i64
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


// Iterations per thread grow with a static count while 132 x 2048 threads
// remain: 2^20 bf16 elements are 2^17 vectors of 8 (one a thread); 2^24
// iterations of a transposing copy (no vectors) give the most, 8. A body
// that reads after its first store keeps one iteration a thread.
// CHECK-LABEL: func @per_thread
// CHECK: {block_size = 256 : i64, strategy = "elementwise", vector_width = 8 : i64}
// CHECK: {block_size = 256 : i64, elements_per_thread = 8 : i64, strategy = "elementwise"}
// CHECK: {block_size = 256 : i64, strategy = "elementwise"}
// ONE-LABEL: func @per_thread
// ONE-NOT: elements_per_thread
// ONE: return
func.func @per_thread(%a: memref<1024x1024xbf16>, %b: memref<4096x4096xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %c4096 = arith.constant 4096 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c1024, %c1024) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<1024x1024xbf16>
    %y = arith.addf %x, %x : bf16
    memref.store %y, %a[%i, %j] : memref<1024x1024xbf16>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4096, %c4096) step (%c1, %c1) {
    %x = memref.load %b[%i, %j] : memref<4096x4096xbf16>
    memref.store %x, %b[%j, %i] : memref<4096x4096xbf16>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4096, %c4096) step (%c1, %c1) {
    %x = memref.load %b[%i, %j] : memref<4096x4096xbf16>
    memref.store %x, %b[%j, %i] : memref<4096x4096xbf16>
    %z = memref.load %b[%i, %i] : memref<4096x4096xbf16>
    memref.store %z, %b[%i, %j] : memref<4096x4096xbf16>
    scf.reduce
  }
  return
}

// SiLU·mul's shape at T = 512: 512 x 11008 bf16, 704,512 vectors of 8.
// By default 2 a thread (352,256 threads: the fewest that still fill the
// 270,336 of one wave, so 1.3 waves); with one-wave, 4 (176,128 threads,
// all resident at once).
// CHECK-LABEL: func @wave
// CHECK: {block_size = 256 : i64, elements_per_thread = 2 : i64, strategy = "elementwise", vector_width = 8 : i64}
// WAVE-LABEL: func @wave
// WAVE: {block_size = 256 : i64, elements_per_thread = 4 : i64, strategy = "elementwise", vector_width = 8 : i64}
func.func @wave(%a: memref<512x11008xbf16>, %b: memref<512x11008xbf16>, %c: memref<512x11008xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c11008 = arith.constant 11008 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c512, %c11008) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<512x11008xbf16>
    %y = memref.load %b[%i, %j] : memref<512x11008xbf16>
    %z = arith.mulf %x, %y : bf16
    memref.store %z, %c[%i, %j] : memref<512x11008xbf16>
    scf.reduce
  }
  return
}

// -----

// vector_width: W = 16 bytes / the widest streamed element. Mixed bf16 and
// f32 buffers move four elements a vector (16 bytes of f32, 8 of bf16); a
// load that does not depend on the last loop is broadcast and does not
// count.
// CHECK-LABEL: func @vectors
// CHECK: {block_size = 256 : i64, strategy = "elementwise", vector_width = 4 : i64}
// A view at an offset that is not a multiple of W (4100 % 8 = 4) is
// scalar.
// CHECK: {block_size = 256 : i64, strategy = "elementwise"}
// The last induction variable used as a value (an iota) is scalar.
// CHECK: {block_size = 256 : i64, strategy = "elementwise"}
// A last trip count that is not a multiple of W (1001) is
// scalar.
// CHECK: {block_size = 256 : i64, strategy = "elementwise"}
// Booleans (i1) are never moved as vectors.
// CHECK: {block_size = 256 : i64, strategy = "elementwise"}
func.func @vectors(%a: memref<64x4096xbf16>, %f: memref<64x4096xf32>, %s: memref<64xf32>,
                   %off: memref<64x4096xbf16, strided<[8192, 1], offset: 4100>>,
                   %iota: memref<64x4096xi64>, %odd: memref<64x1001xbf16>,
                   %m: memref<64x4096xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c1001 = arith.constant 1001 : index
  %c4096 = arith.constant 4096 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c4096) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<64x4096xbf16>
    %r = memref.load %s[%i] : memref<64xf32>
    %xf = arith.extf %x : bf16 to f32
    %y = arith.mulf %xf, %r : f32
    memref.store %y, %f[%i, %j] : memref<64x4096xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c4096) step (%c1, %c1) {
    %x = memref.load %off[%i, %j] : memref<64x4096xbf16, strided<[8192, 1], offset: 4100>>
    memref.store %x, %a[%i, %j] : memref<64x4096xbf16>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c4096) step (%c1, %c1) {
    %v = arith.index_cast %j : index to i64
    memref.store %v, %iota[%i, %j] : memref<64x4096xi64>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c1001) step (%c1, %c1) {
    %x = memref.load %odd[%i, %j] : memref<64x1001xbf16>
    %y = arith.addf %x, %x : bf16
    memref.store %y, %odd[%i, %j] : memref<64x1001xbf16>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c4096) step (%c1, %c1) {
    %x = memref.load %m[%i, %j] : memref<64x4096xi1>
    %y = arith.xori %x, %x : i1
    memref.store %y, %m[%i, %j] : memref<64x4096xi1>
    scf.reduce
  }
  return
}

// Views whose dynamic strides or offset are known multiples of W from how
// they are made (knownLayout): a transposed dense buffer (strides S x 512,
// 64, 512, 1 with a dynamic S) and a subview of it at a dynamic head %h
// (offset %h x 64) are vectorized; a subview at a dynamic column %c is not
// (its offset is not known to be a multiple of 8).
// CHECK-LABEL: func @known_views
// CHECK: {block_size = 256 : i64, {{.*}}strategy = "elementwise", vector_width = 8 : i64}
// CHECK: {block_size = 256 : i64, {{.*}}strategy = "elementwise", vector_width = 8 : i64}
// CHECK: {block_size = 256 : i64, {{.*}}strategy = "elementwise"}}
func.func @known_views(%x: memref<2x?x8x64xbf16>, %h: index, %c: index,
                       %out: memref<2x8x?x64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c56 = arith.constant 56 : index
  %c64 = arith.constant 64 : index
  %s = memref.dim %x, %c1 : memref<2x?x8x64xbf16>
  %t = memref.transpose %x (d0, d1, d2, d3) -> (d0, d2, d1, d3)
      : memref<2x?x8x64xbf16> to memref<2x8x?x64xbf16, strided<[?, 64, 512, 1]>>
  scf.parallel (%b, %n, %i, %j) = (%c0, %c0, %c0, %c0) to (%c2, %c8, %s, %c64) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %t[%b, %n, %i, %j] : memref<2x8x?x64xbf16, strided<[?, 64, 512, 1]>>
    memref.store %v, %out[%b, %n, %i, %j] : memref<2x8x?x64xbf16>
    scf.reduce
  }
  %heads = memref.subview %t[0, %h, 0, 0] [2, 4, %s, 64] [1, 1, 1, 1]
      : memref<2x8x?x64xbf16, strided<[?, 64, 512, 1]>>
        to memref<2x4x?x64xbf16, strided<[?, 64, 512, 1], offset: ?>>
  scf.parallel (%b, %n, %i, %j) = (%c0, %c0, %c0, %c0) to (%c2, %c4, %s, %c64) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %heads[%b, %n, %i, %j] : memref<2x4x?x64xbf16, strided<[?, 64, 512, 1], offset: ?>>
    memref.store %v, %out[%b, %n, %i, %j] : memref<2x8x?x64xbf16>
    scf.reduce
  }
  %columns = memref.subview %t[0, 0, 0, %c] [2, 8, %s, 56] [1, 1, 1, 1]
      : memref<2x8x?x64xbf16, strided<[?, 64, 512, 1]>>
        to memref<2x8x?x56xbf16, strided<[?, 64, 512, 1], offset: ?>>
  scf.parallel (%b, %n, %i, %j) = (%c0, %c0, %c0, %c0) to (%c2, %c8, %s, %c56) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %columns[%b, %n, %i, %j] : memref<2x8x?x56xbf16, strided<[?, 64, 512, 1], offset: ?>>
    memref.store %v, %out[%b, %n, %i, %j] : memref<2x8x?x64xbf16>
    scf.reduce
  }
  return
}

// Rotary embedding's rotated half: the partner element (j + 64) mod 128
// runs through 8 consecutive values over each vector of 8, and j < 64 is the
// same for all 8, so the loop is vectorized. A load at 2 j is gathered
// (eight scalar loads, one vector store); a bound (60) that splits a
// vector is tested for each of the 8 elements, the select taking the
// vector of their results.
// CHECK-LABEL: func @rotated_half
// CHECK: {block_size = 256 : i64, strategy = "elementwise", vector_width = 8 : i64}
// CHECK: {block_size = 256 : i64, strategy = "elementwise", vector_width = 8 : i64}
// CHECK: {block_size = 256 : i64, strategy = "elementwise", vector_width = 8 : i64}
#rotate = affine_map<(d0) -> (d0 - ((d0 + 64) floordiv 128) * 128 + 64)>
#twice = affine_map<(d0) -> (d0 * 2)>
func.func @rotated_half(%x: memref<512x128xbf16>, %o: memref<512x128xbf16>, %w: memref<512x256xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c60 = arith.constant 60 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c512, %c128) step (%c1, %c1) {
    %p = affine.apply #rotate(%j)
    %a = memref.load %x[%i, %j] : memref<512x128xbf16>
    %b = memref.load %x[%i, %p] : memref<512x128xbf16>
    %low = arith.cmpi slt, %j, %c64 : index
    %nb = arith.negf %b : bf16
    %r = arith.select %low, %nb, %b : bf16
    %s = arith.addf %a, %r : bf16
    memref.store %s, %o[%i, %j] : memref<512x128xbf16>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c512, %c128) step (%c1, %c1) {
    %p = affine.apply #twice(%j)
    %b = memref.load %w[%i, %p] : memref<512x256xbf16>
    memref.store %b, %o[%i, %j] : memref<512x128xbf16>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c512, %c128) step (%c1, %c1) {
    %a = memref.load %x[%i, %j] : memref<512x128xbf16>
    %low = arith.cmpi slt, %j, %c60 : index
    %na = arith.negf %a : bf16
    %r = arith.select %low, %na, %a : bf16
    memref.store %r, %o[%i, %j] : memref<512x128xbf16>
    scf.reduce
  }
  return
}

// An im2col over a flat position p of a 28 x 28 image: the read at
// (p floordiv 28 + 1, p mod 28 + 2) is gathered, the store streams.
// CHECK-LABEL: func @gathered_rows
// CHECK: {block_size = 256 : i64, strategy = "elementwise", vector_width = 8 : i64}
#row = affine_map<(d0) -> (d0 floordiv 28 + 1)>
#col = affine_map<(d0) -> (d0 mod 28 + 2)>
func.func @gathered_rows(%x: memref<64x30x30xbf16>, %o: memref<64x784xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c784 = arith.constant 784 : index
  scf.parallel (%i, %p) = (%c0, %c0) to (%c64, %c784) step (%c1, %c1) {
    %r = affine.apply #row(%p)
    %c = affine.apply #col(%p)
    %v = memref.load %x[%i, %r, %c] : memref<64x30x30xbf16>
    memref.store %v, %o[%i, %p] : memref<64x784xbf16>
    scf.reduce
  }
  return
}

// -----

// Eight vectors a thread (a 4096 x 11008 bf16 product of two streams) take
// blocks of 128 threads: more of them fit an SM's registers.
// CHECK-LABEL: func @eight_vectors
// CHECK: {block_size = 128 : i64, elements_per_thread = 8 : i64, strategy = "elementwise", vector_width = 8 : i64}
func.func @eight_vectors(%a: memref<4096x11008xbf16>, %b: memref<4096x11008xbf16>, %c: memref<4096x11008xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %c11008 = arith.constant 11008 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4096, %c11008) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<4096x11008xbf16>
    %y = memref.load %b[%i, %j] : memref<4096x11008xbf16>
    %z = arith.mulf %x, %y : bf16
    memref.store %z, %c[%i, %j] : memref<4096x11008xbf16>
    scf.reduce
  }
  return
}

// A row reduction of one row (RMSNorm at one token) whose one-iteration
// parallel loop canonicalization folded away: the serial loop is wrapped in
// a one-iteration parallel loop again and reduced by a block, not by one
// thread. A serial loop that is no row accumulation stays single-thread.
// CHECK-LABEL: func @lone_row
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK-NEXT: scf.for
// CHECK: } {magi.kernel_config = {block_size = 256 : i64, strategy = "block-reduction"}}
// CHECK-NOT: arith.constant
// CHECK: scf.for
// CHECK: } {magi.kernel_config = {block_size = 1 : i64, strategy = "single-thread"}}
func.func @lone_row(%x: memref<1x1x4096xbf16>, %acc: memref<1x1xf32>, %scan: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  scf.for %k = %c0 to %c4096 step %c1 {
    %v = memref.load %x[%c0, %c0, %k] : memref<1x1x4096xbf16>
    %a = memref.load %acc[%c0, %c0] : memref<1x1xf32>
    %e = arith.extf %v : bf16 to f32
    %sq = arith.mulf %e, %e : f32
    %s = arith.addf %sq, %a : f32
    memref.store %s, %acc[%c0, %c0] : memref<1x1xf32>
  }
  scf.for %k = %c1 to %c4096 step %c1 {
    %p = arith.subi %k, %c1 : index
    %prev = memref.load %scan[%p] : memref<4096xf32>
    %cur = memref.load %scan[%k] : memref<4096xf32>
    %s = arith.addf %prev, %cur : f32
    memref.store %s, %scan[%k] : memref<4096xf32>
  }
  return
}

// -----

// A loop computing sin or cos (libdevice's full range reduction, about 500
// PTX lines each) keeps one scalar element a thread, though its accesses
// stream: one copy of that code for ptxas. The same loop with exp is
// vectorized and unrolled as usual.
// CHECK-LABEL: func @range_reduction
// CHECK: math.cos
// CHECK: magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise"}
// CHECK: math.exp
// CHECK: magi.kernel_config = {block_size = 256 : i64, elements_per_thread = 4 : i64, strategy = "elementwise", vector_width = 4 : i64}
func.func @range_reduction(%a: memref<?x64xf32>, %b: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %a, %c0 : memref<?x64xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c64) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<?x64xf32>
    %y = math.cos %x : f32
    memref.store %y, %b[%i, %j] : memref<?x64xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c64) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<?x64xf32>
    %y = math.exp %x : f32
    memref.store %y, %b[%i, %j] : memref<?x64xf32>
    scf.reduce
  }
  return
}
