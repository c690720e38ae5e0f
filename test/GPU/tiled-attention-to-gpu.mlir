// magi.tiled_attention through magi-bufferize (in place into its init's
// buffer) and magi-tiled-attention-to-gpu (one FlashAttention-style kernel).
// RUN: magi-opt %s --split-input-file --pass-pipeline="builtin.module(magi-bufferize, func.func(magi-tiled-attention-to-gpu{rows-per-warp=16}))" | FileCheck %s
// RUN: magi-opt %s --split-input-file --magi-bufferize | FileCheck %s --check-prefix=BUF
// RUN: magi-opt %s --split-input-file --pass-pipeline="builtin.module(magi-bufferize, func.func(magi-tiled-attention-to-gpu{rows-per-warp=16 key-splits=4}))" | FileCheck %s --check-prefix=SPLIT4
// RUN: magi-opt %s --split-input-file --pass-pipeline="builtin.module(magi-bufferize, func.func(magi-tiled-attention-to-gpu{rows-per-warp=16 key-splits=1}))" | FileCheck %s --check-prefix=NOSPLIT

// BUF-LABEL: func @gqa_masked
// BUF: %[[OUT:.*]] = memref.alloc(%{{.*}}) {{.*}}: memref<1x32x?x128xbf16>
// BUF: magi.tiled_attention %arg0, %arg1, %arg2 mask(%arg3 : memref<1x1x?x?xbf16>) outs(%[[OUT]]) {scale = 1.250000e-01 : f64} : memref<1x32x?x128xbf16>, memref<1x8x?x128xbf16>, memref<1x8x?x128xbf16>, memref<1x32x?x128xbf16>{{$}}
// BUF: return %[[OUT]]

// The mask's tiles classified first (hidden, passing, mixed), one block of
// 256 threads a 64 x 64 tile (a warp 8 rows, a lane 2 adjacent keys: 16
// independent loads), into an i8 table [1, 1, query tiles, key tiles].
// CHECK-LABEL: func @gqa_masked
// CHECK: %[[TILES:.*]] = arith.ceildivui %{{.*}}, %c64
// CHECK: %[[TABLE:.*]] = memref.alloc(%[[QT:.*]], %[[KT:.*]]) : memref<1x1x?x?xi8>
// CHECK: gpu.launch blocks({{.*}}) in (%{{[a-z0-9]+}} = %[[KT]], %{{[a-z0-9]+}} = %[[QT]], %{{[a-z0-9]+}} = %c1{{.*}}) threads({{.*}}) in (%{{[a-z0-9]+}} = %c256
// CHECK-SAME: function(@attention0_mask_tiles)
// CHECK-NOT: scf.for
// CHECK-COUNT-16: memref.load %arg3
// CHECK-NOT: memref.load %arg3
// CHECK: gpu.all_reduce  or %{{.*}} uniform
// CHECK: memref.store %{{.*}}, %[[TABLE]]
// CHECK: strategy = "attention-mask-tiles"
// Then one block of 128 threads per (64 query rows, head, batch); two
// padded 64-row tiles of shared memory.
// CHECK: gpu.launch blocks(%[[BX:[a-z0-9]+]], %[[BY:[a-z0-9]+]], %[[BZ:[a-z0-9]+]]) in (%{{[a-z0-9]+}} = %[[TILES]], %{{[a-z0-9]+}} = %c32, %{{[a-z0-9]+}} = %{{[a-z0-9_]+}})
// CHECK-SAME: threads(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in (%{{[a-z0-9]+}} = %c128, %{{[a-z0-9]+}} = %c1, %{{[a-z0-9]+}} = %c1)
// CHECK-SAME: module(@gqa_masked_kernels) function(@attention0)
// CHECK-SAME: workgroup(%[[SK:[a-z0-9]+]] : memref<64x136xbf16, #gpu.address_space<workgroup>>, %[[SV:[a-z0-9]+]] : memref<64x136xbf16, #gpu.address_space<workgroup>>)
// The heaviest query tiles first; key/value head h floordiv 4.
// CHECK: arith.subi %{{.*}}, %[[BX]]
// CHECK: arith.divui %[[BY]], %c4
// The query tile, zero-filled past the end, into registers.
// CHECK: nvgpu.device_async_copy %arg0[%[[BZ]], %[[BY]], %{{.*}}, %{{.*}}], %[[SK]][%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: gpu.barrier
// Each lane's fragment addresses: one 32-bit shared address per tile, every
// ldmatrix a constant offset from it (inline PTX).
// CHECK: memref.extract_aligned_pointer_as_index %[[SK]]
// CHECK: %[[QADDR:.*]] = arith.index_castui %{{.*}} : index to i32
// CHECK: memref.extract_aligned_pointer_as_index %[[SK]]
// CHECK: memref.extract_aligned_pointer_as_index %[[SV]]
// CHECK: %[[VADDR:.*]] = arith.index_castui %{{.*}} : index to i32
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0, $1, $2, $3}, [$4+0];", "=r,=r,=r,=r,r" %[[QADDR]]
// CHECK: llvm.inline_asm has_side_effects {{.*}} [$4+32];", "=r,=r,=r,=r,r" %[[QADDR]]
// CHECK-COUNT-6: llvm.inline_asm has_side_effects {{.*}} %[[QADDR]]
// The first tile the mask does not hide, its key and value tiles in
// flight, then the loop over the tiles it does not hide.
// CHECK: scf.while
// CHECK: memref.load %[[TABLE]]
// CHECK: nvgpu.device_async_copy %arg1
// CHECK: nvgpu.device_async_copy %arg2
// CHECK: scf.while {{.*}} -> (index, f32, f32
// CHECK: scf.condition
// CHECK: nvvm.cp.async.wait.group 1
// S = Q K^T: 64 tensor-core products m16n8k16 in bf16.
// CHECK-COUNT-64: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>{{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>
// The mask's term added to each of this thread's 32 scores as it is read,
// only in mixed tiles.
// CHECK: memref.load %[[TABLE]]
// CHECK: %[[MIXED:.*]] = arith.cmpi eq, %{{.*}}, %c2_i32
// CHECK: scf.if %[[MIXED]]
// CHECK-COUNT-32: memref.load %arg3
// Keys past the end or hidden by the mask score -inf; a quad's max.
// CHECK: arith.select {{.*}}, %cst
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK: math.exp2
// P rounded into registers; the next key tile in flight once every warp is
// done with this one; then the value tile.
// CHECK: arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy %arg1
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 1
// O += P V with V's fragments transposed.
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [$4+0];", "=r,=r,=r,=r,r" %[[VADDR]]
// CHECK-COUNT-64: nvvm.mma.sync
// CHECK: nvgpu.device_async_copy %arg2
// CHECK: scf.yield
// Rows divided by their sums (zeros for a row the mask hides), stored
// where they exist.
// CHECK: arith.cmpf ogt
// CHECK: scf.if
// CHECK-COUNT-16: vector.store %{{.*}}, %{{.*}}[%[[BZ]], %[[BY]], %{{.*}}, %{{.*}}] : memref<1x32x?x128xbf16>, vector<2xbf16>
// CHECK: magi.kernel_config = {block_size = 128 : i64, key_rows = 64 : i64, query_in_shared = 0 : i64, query_rows = 64 : i64, strategy = "tiled-attention"}
// CHECK-NOT: magi.tiled_attention
func.func @gqa_masked(%q: tensor<1x32x?x128xbf16>, %k: tensor<1x8x?x128xbf16>, %v: tensor<1x8x?x128xbf16>,
                      %m: tensor<1x1x?x?xbf16>) -> tensor<1x32x?x128xbf16> {
  %c2 = arith.constant 2 : index
  %l = tensor.dim %q, %c2 : tensor<1x32x?x128xbf16>
  %init = tensor.empty(%l) : tensor<1x32x?x128xbf16>
  %o = magi.tiled_attention %q, %k, %v mask(%m : tensor<1x1x?x?xbf16>) outs(%init) {scale = 0.125 : f64}
      : tensor<1x32x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x32x?x128xbf16> -> tensor<1x32x?x128xbf16>
  return %o : tensor<1x32x?x128xbf16>
}

// -----

// Causal without a mask: no vote, the loop stops at the diagonal tile, the
// keys after a query masked; f16 and a head dimension of 64 (4 steps of 16).
// Two loops: the tiles every row of the block sees in full (before the
// diagonal one), with no comparison per score, then the rest, with one.
// The running max is of the raw scores, each probability one fma + exp2.
// CHECK-LABEL: func @causal_f16
// CHECK: workgroup(%[[SK:[a-z0-9]+]] : memref<64x72xf16, #gpu.address_space<workgroup>>, %{{[a-z0-9]+}} : memref<64x72xf16, #gpu.address_space<workgroup>>)
// CHECK-COUNT-4: llvm.inline_asm has_side_effects {{.*}}ldmatrix
// CHECK: %[[KT:.*]] = arith.ceildivui
// CHECK: %[[TILES:.*]] = arith.minui %[[KT]]
// CHECK-NOT: nvvm.vote.sync
// CHECK: %[[FULL:.*]] = arith.divui %{{.*}}, %c64{{.*}} : index
// CHECK-NEXT: %[[SPLIT:.*]] = arith.minui %[[FULL]], %[[TILES]]
// CHECK: %[[LOOP1:.*]]:36 = scf.for %{{.*}} = %{{.*}} to %[[SPLIT]]
// CHECK: nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: arith.select
// CHECK: arith.maximumf
// CHECK: math.fma
// CHECK-NEXT: math.exp2
// CHECK: scf.yield
// CHECK: scf.for %{{.*}} = %[[SPLIT]] to %[[TILES]] {{.*}} iter_args(%{{.*}} = %[[LOOP1]]#0,
// CHECK: nvvm.mma.sync
// CHECK: arith.cmpi sgt, %{{.*}}, %c{{[0-9]+}}_i32 : i32
// CHECK-NEXT: arith.select
// CHECK: math.fma
func.func @causal_f16(%q: tensor<2x4x?x64xf16>) -> tensor<2x4x?x64xf16> {
  %c2 = arith.constant 2 : index
  %l = tensor.dim %q, %c2 : tensor<2x4x?x64xf16>
  %init = tensor.empty(%l) : tensor<2x4x?x64xf16>
  %o = magi.tiled_attention %q, %q, %q outs(%init) {scale = 0.125 : f64, is_causal = true}
      : tensor<2x4x?x64xf16>, tensor<2x4x?x64xf16>, tensor<2x4x?x64xf16>, tensor<2x4x?x64xf16> -> tensor<2x4x?x64xf16>
  return %o : tensor<2x4x?x64xf16>
}

// -----

// A strided view whose strides are not known: checked in the kernel; rows
// that are not contiguous are copied first, by a kernel of their own.
// CHECK-LABEL: func @views
// CHECK: %[[DENSE:.*]] = memref.alloc
// CHECK: gpu.launch {{.*}} function(@attention0_dense_rows0)
// CHECK: memref.load %arg1
// CHECK: memref.store %{{.*}}, %[[DENSE]]
// CHECK: gpu.launch {{.*}} function(@attention0)
// CHECK: memref.extract_strided_metadata %arg0
// CHECK: cf.assert %{{.*}}, "magi.tiled_attention: the query view's strides and offset must be multiples of 8 elements"
// CHECK: nvgpu.device_async_copy %[[DENSE]]
func.func @views(%q: memref<1x4x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>,
                 %k: memref<1x4x?x64xbf16, strided<[?, ?, 1, ?], offset: ?>>,
                 %v: memref<1x4x?x64xbf16>, %out: memref<1x4x?x64xbf16>) {
  magi.tiled_attention %q, %k, %v outs(%out) {scale = 0.125 : f64}
      : memref<1x4x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<1x4x?x64xbf16, strided<[?, ?, 1, ?], offset: ?>>,
        memref<1x4x?x64xbf16>, memref<1x4x?x64xbf16>
  return
}

// -----

// A decode step: one query row of 32 heads over 4096 cached keys. 32 blocks
// would leave most SMs idle, so the keys are split: 16 blocks a head, 4 key
// tiles each, writing their rows' unnormalized output, max and sum to f32
// partials; a second kernel (one thread a column) combines the splits.
// CHECK-LABEL: func @decode_split
// CHECK: %[[O:.*]] = memref.alloc() : memref<16x1x32x1x128xf32>
// CHECK: %[[MAX:.*]] = memref.alloc() : memref<16x1x32x1xf32>
// CHECK: %[[SUM:.*]] = memref.alloc() : memref<16x1x32x1xf32>
// CHECK: gpu.launch blocks(%[[SPLIT:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in (%{{[a-z0-9]+}} = %c16{{.*}}, %{{[a-z0-9]+}} = %c32
// CHECK-SAME: function(@attention0)
// Each split's first key tile.
// CHECK: arith.muli %[[SPLIT]], %c4
// CHECK: vector.store %{{.*}}, %[[O]][%[[SPLIT]], {{.*}}] : memref<16x1x32x1x128xf32>, vector<2xf32>
// CHECK: memref.store %{{.*}}, %[[MAX]][%[[SPLIT]],
// CHECK: memref.store %{{.*}}, %[[SUM]][%[[SPLIT]],
// CHECK: key_splits = 16 : i64
// CHECK: gpu.launch blocks({{.*}}) in (%{{[a-z0-9]+}} = %c1{{.*}}, %{{[a-z0-9]+}} = %c32{{.*}}, %{{[a-z0-9]+}} = %c1{{.*}}) threads(%[[COL:[a-z0-9]+]], {{.*}}) in (%{{[a-z0-9]+}} = %c128
// CHECK-SAME: function(@attention0_combine)
// CHECK-COUNT-16: arith.maximumf
// CHECK-COUNT-16: math.exp2
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: strategy = "attention-combine"
// key-splits overrides the count (4 splits of 16 tiles), 1 turns it off.
// SPLIT4-LABEL: func @decode_split
// SPLIT4: memref.alloc() : memref<4x1x32x1x128xf32>
// SPLIT4: gpu.launch blocks(%[[S:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in (%{{[a-z0-9]+}} = %c4
// SPLIT4: arith.muli %[[S]], %c16
// SPLIT4: function(@attention0_combine)
// NOSPLIT-LABEL: func @decode_split
// NOSPLIT-NOT: key_splits
// NOSPLIT-NOT: attention0_combine
// NOSPLIT: return
func.func @decode_split(%q: tensor<1x32x1x128xbf16>, %k: tensor<1x32x4096x128xbf16>,
                        %v: tensor<1x32x4096x128xbf16>) -> tensor<1x32x1x128xbf16> {
  %init = tensor.empty() : tensor<1x32x1x128xbf16>
  %o = magi.tiled_attention %q, %k, %v outs(%init) {scale = 0.088388347648318447 : f64}
      : tensor<1x32x1x128xbf16>, tensor<1x32x4096x128xbf16>, tensor<1x32x4096x128xbf16>, tensor<1x32x1x128xbf16> -> tensor<1x32x1x128xbf16>
  return %o : tensor<1x32x1x128xbf16>
}

// -----

// Static sizes, a bf16 mask whose rows are contiguous and aligned, keys a
// multiple of 8: the classification loads 16-byte vectors, 8 threads a row
// of the tile and 32 rows a pass, two passes.
// CHECK-LABEL: func @static_masked
// CHECK: gpu.launch
// CHECK-SAME: function(@attention0_mask_tiles)
// CHECK-NOT: memref.load %arg1
// CHECK-COUNT-2: vector.load %arg1[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<1x1x128x128xbf16>, vector<8xbf16>
// CHECK-NOT: vector.load %arg1
// CHECK: gpu.all_reduce  or %{{.*}} uniform
// CHECK: strategy = "attention-mask-tiles"
func.func @static_masked(%q: tensor<1x32x128x128xbf16>, %m: tensor<1x1x128x128xbf16>) -> tensor<1x32x128x128xbf16> {
  %init = tensor.empty() : tensor<1x32x128x128xbf16>
  %o = magi.tiled_attention %q, %q, %q mask(%m : tensor<1x1x128x128xbf16>) outs(%init) {scale = 0.125 : f64}
      : tensor<1x32x128x128xbf16>, tensor<1x32x128x128xbf16>, tensor<1x32x128x128xbf16>, tensor<1x32x128x128xbf16> -> tensor<1x32x128x128xbf16>
  return %o : tensor<1x32x128x128xbf16>
}

// -----

// An f32 mask: 4 terms a vector, 16 threads a row, four passes.
// CHECK-LABEL: func @static_masked_f32
// CHECK-COUNT-4: vector.load %arg1[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<1x1x128x128xf32>, vector<4xf32>
// CHECK-NOT: vector.load %arg1
// CHECK: strategy = "attention-mask-tiles"
func.func @static_masked_f32(%q: tensor<1x32x128x128xbf16>, %m: tensor<1x1x128x128xf32>) -> tensor<1x32x128x128xbf16> {
  %init = tensor.empty() : tensor<1x32x128x128xbf16>
  %o = magi.tiled_attention %q, %q, %q mask(%m : tensor<1x1x128x128xf32>) outs(%init) {scale = 0.125 : f64}
      : tensor<1x32x128x128xbf16>, tensor<1x32x128x128xbf16>, tensor<1x32x128x128xbf16>, tensor<1x32x128x128xbf16> -> tensor<1x32x128x128xbf16>
  return %o : tensor<1x32x128x128xbf16>
}

// -----

// Scalar loads where vectors cannot serve: a boolean mask (its vector would
// be bits, the buffer holds bytes) and keys not a multiple of the width.
// CHECK-LABEL: func @static_boolean_mask
// CHECK: function(@attention0_mask_tiles)
// CHECK-NOT: vector.load %arg1
// CHECK-COUNT-16: memref.load %arg1
// CHECK: strategy = "attention-mask-tiles"
func.func @static_boolean_mask(%q: tensor<1x32x128x128xbf16>, %m: tensor<1x1x128x128xi1>) -> tensor<1x32x128x128xbf16> {
  %init = tensor.empty() : tensor<1x32x128x128xbf16>
  %o = magi.tiled_attention %q, %q, %q mask(%m : tensor<1x1x128x128xi1>) outs(%init) {scale = 0.125 : f64}
      : tensor<1x32x128x128xbf16>, tensor<1x32x128x128xbf16>, tensor<1x32x128x128xbf16>, tensor<1x32x128x128xbf16> -> tensor<1x32x128x128xbf16>
  return %o : tensor<1x32x128x128xbf16>
}

// -----

// CHECK-LABEL: func @static_odd_keys
// CHECK: function(@attention0_mask_tiles)
// CHECK-NOT: vector.load %arg2
// CHECK-COUNT-16: memref.load %arg2
// CHECK: strategy = "attention-mask-tiles"
func.func @static_odd_keys(%q: tensor<1x32x128x128xbf16>, %k: tensor<1x32x100x128xbf16>, %m: tensor<1x1x128x100xbf16>) -> tensor<1x32x128x128xbf16> {
  %init = tensor.empty() : tensor<1x32x128x128xbf16>
  %o = magi.tiled_attention %q, %k, %k mask(%m : tensor<1x1x128x100xbf16>) outs(%init) {scale = 0.125 : f64}
      : tensor<1x32x128x128xbf16>, tensor<1x32x100x128xbf16>, tensor<1x32x100x128xbf16>, tensor<1x32x128x128xbf16> -> tensor<1x32x128x128xbf16>
  return %o : tensor<1x32x128x128xbf16>
}

// -----

// Layout bshd ([B, S, H, E], as magi-fuse's attention-layout leaves LLaMA's
// attention): the kernel reads q, k, v and writes the output through
// transposed views of the buffers, whose rows stay contiguous: no copy.
// CHECK-LABEL: func @sequence_major
// CHECK-DAG: memref.transpose %arg0 (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<1x?x4x64xbf16> to memref<1x4x?x64xbf16, strided<[?, 64, 256, 1]>>
// CHECK-DAG: memref.transpose %arg1 (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<1x?x2x64xbf16> to memref<1x2x?x64xbf16, strided<[?, 64, 128, 1]>>
// CHECK-DAG: memref.transpose %[[OUT:.*]] (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<1x?x4x64xbf16> to memref<1x4x?x64xbf16, strided<[?, 64, 256, 1]>>
// CHECK-NOT: strategy = "elementwise"
// CHECK: function(@attention0)
// Their dynamic batch strides (S x 256, S x 128) are multiples of 8, and
// the batch has one row anyway: no check in the kernel (a check is a call,
// which would make ptxas serialize the wgmma instructions).
// CHECK-NOT: cf.assert
// CHECK-NOT: gpu.launch
// CHECK: return %[[OUT]]
func.func @sequence_major(%q: tensor<1x?x4x64xbf16>, %kv: tensor<1x?x2x64xbf16>) -> tensor<1x?x4x64xbf16> {
  %c1 = arith.constant 1 : index
  %l = tensor.dim %q, %c1 : tensor<1x?x4x64xbf16>
  %init = tensor.empty(%l) : tensor<1x?x4x64xbf16>
  %o = magi.tiled_attention %q, %kv, %kv outs(%init) {is_causal = true, layout = "bshd", scale = 0.125 : f64}
      : tensor<1x?x4x64xbf16>, tensor<1x?x2x64xbf16>, tensor<1x?x2x64xbf16>, tensor<1x?x4x64xbf16> -> tensor<1x?x4x64xbf16>
  return %o : tensor<1x?x4x64xbf16>
}

// -----

// Views whose dynamic strides and offset are known multiples of 8 from how
// they are made (a dense buffer's transpose: batch stride S x 512; a
// subview at head %h: offset %h x 64) need no check in the kernel.
// CHECK-LABEL: func @known_views
// CHECK: memref.subview
// CHECK: function(@attention0)
// CHECK-NOT: cf.assert
// CHECK: return
func.func @known_views(%q: memref<2x?x8x64xbf16>, %h: index, %out: memref<2x4x?x64xbf16>) {
  %c1 = arith.constant 1 : index
  %l = memref.dim %q, %c1 : memref<2x?x8x64xbf16>
  %t = memref.transpose %q (d0, d1, d2, d3) -> (d0, d2, d1, d3)
      : memref<2x?x8x64xbf16> to memref<2x8x?x64xbf16, strided<[?, 64, 512, 1]>>
  %s = memref.subview %t[0, %h, 0, 0] [2, 4, %l, 64] [1, 1, 1, 1]
      : memref<2x8x?x64xbf16, strided<[?, 64, 512, 1]>>
        to memref<2x4x?x64xbf16, strided<[?, 64, 512, 1], offset: ?>>
  magi.tiled_attention %s, %s, %s outs(%out) {scale = 0.125 : f64}
      : memref<2x4x?x64xbf16, strided<[?, 64, 512, 1], offset: ?>>,
        memref<2x4x?x64xbf16, strided<[?, 64, 512, 1], offset: ?>>,
        memref<2x4x?x64xbf16, strided<[?, 64, 512, 1], offset: ?>>, memref<2x4x?x64xbf16>
  return
}

// -----

// A view of 64 of a buffer's 72 columns from column %h: its offset is not
// known to be a multiple of 8 elements, so the kernel checks it.
// CHECK-LABEL: func @unknown_offset
// CHECK: function(@attention0)
// CHECK: cf.assert %{{.*}}, "magi.tiled_attention: the query view's strides and offset must be multiples of 8 elements"
func.func @unknown_offset(%q: memref<2x?x8x72xbf16>, %h: index, %out: memref<2x8x?x64xbf16>) {
  %c1 = arith.constant 1 : index
  %l = memref.dim %q, %c1 : memref<2x?x8x72xbf16>
  %t = memref.transpose %q (d0, d1, d2, d3) -> (d0, d2, d1, d3)
      : memref<2x?x8x72xbf16> to memref<2x8x?x72xbf16, strided<[?, 72, 576, 1]>>
  %s = memref.subview %t[0, 0, 0, %h] [2, 8, %l, 64] [1, 1, 1, 1]
      : memref<2x8x?x72xbf16, strided<[?, 72, 576, 1]>>
        to memref<2x8x?x64xbf16, strided<[?, 72, 576, 1], offset: ?>>
  magi.tiled_attention %s, %s, %s outs(%out) {scale = 0.125 : f64}
      : memref<2x8x?x64xbf16, strided<[?, 72, 576, 1], offset: ?>>,
        memref<2x8x?x64xbf16, strided<[?, 72, 576, 1], offset: ?>>,
        memref<2x8x?x64xbf16, strided<[?, 72, 576, 1], offset: ?>>, memref<2x8x?x64xbf16>
  return
}
