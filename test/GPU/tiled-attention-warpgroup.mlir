// Tiled attention with Hopper's warpgroup products (warpgroup-mma, what
// an sm_90a target turns on): the key and value tiles in 128-byte
// swizzled rows from a 1024-byte boundary of dynamic shared memory, S = Q K^T
// and O += P V as wgmma sequences in one inline PTX statement each, and
// the cases that stay on mma.sync. The whole pipeline to PTX for sm_90a,
// which ptxas must accept.
// RUN: magi-opt %s --split-input-file --pass-pipeline="builtin.module(magi-bufferize, func.func(magi-tiled-attention-to-gpu{warpgroup-mma=true}))" | FileCheck %s
// RUN: magi-opt %s --split-input-file --pass-pipeline="builtin.module(magi-bufferize, func.func(magi-tiled-attention-to-gpu{warpgroup-mma=true rows-per-warp=32}))" | FileCheck %s --check-prefix=R32

// Causal bf16 at head dimension 128. Dynamic shared memory: the 1024
// bytes the alignment may take, the key and value tiles (two column blocks
// of 64 rows each, as [128, 64]) and the query tile in padded rows; the
// views start at the first 1024-byte boundary.
// CHECK-LABEL: func @causal
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %c51200_i32
// CHECK: %[[BASE:.*]] = gpu.dynamic_shared_memory
// CHECK: %[[ADDRESS:.*]] = memref.extract_aligned_pointer_as_index %[[BASE]]
// CHECK: %[[MOD:.*]] = arith.remui %[[ADDRESS]], %c1024
// CHECK: %[[GAP:.*]] = arith.subi %c1024, %[[MOD]]
// CHECK: %[[START:.*]] = arith.remui %[[GAP]], %c1024
// CHECK: memref.view %[[BASE]][{{.*}}][] : {{.*}} to memref<128x64xbf16, #gpu.address_space<workgroup>>
// CHECK: arith.addi %[[START]], %c16384
// CHECK: memref.view {{.*}} to memref<128x64xbf16, #gpu.address_space<workgroup>>
// CHECK: arith.addi %[[START]], %c32768
// CHECK: memref.view {{.*}} to memref<64x136xbf16, #gpu.address_space<workgroup>>
// Descriptors: key tile K-major (stride 1024, leading 16), value tile
// N-major (leading 8192 between column blocks, stride 1024), both with the
// 128-byte swizzle (bit 62).
// CHECK-DAG: arith.constant 4611686293305360384 : i64
// CHECK-DAG: arith.constant 4611686293338849280 : i64
// The query's fragments by ldmatrix from its padded rows, once.
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0, $1, $2, $3}, [$4+0];
// Key and value copies write chunk c of row r at c xor (r mod 8).
// CHECK: arith.xori
// CHECK: nvgpu.device_async_copy
// In the key loop: cp.async's writes fenced for the async proxy before
// the barrier, then S = Q K^T (8 steps of 16 head columns, B not
// transposed) and later O += P V (4 steps of 16 keys, B transposed), each
// waited for inside its statement.
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0Awgmma.fence.sync.aligned;\0A
// CHECK-SAME: m64n64k16.f32.bf16.bf16 {$0, {{.*}}, $31}, {$32, $33, $34, $35}, $36, 1, 1, 1, 0;
// CHECK-SAME: {$67, $68, $69, $70}, $71, 1, 1, 1, 0;\0Awgmma.commit_group.sync.aligned;\0Awgmma.wait_group.sync.aligned 0;\0A}"
// CHECK: nvvm.fence.proxy
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0Awgmma.fence.sync.aligned;\0A
// CHECK-SAME: m64n128k16.f32.bf16.bf16 {$0, {{.*}}, $63}, {$64, $65, $66, $67}, $68, 1, 1, 1, 1;
// CHECK-SAME: {$79, $80, $81, $82}, $83, 1, 1, 1, 1;\0Awgmma.commit_group.sync.aligned;\0Awgmma.wait_group.sync.aligned 0;\0A}"
// CHECK-NOT: nvvm.mma.sync
// CHECK: magi.kernel_config = {block_size = 128 : i64, key_rows = 64 : i64, query_in_shared = 0 : i64, query_rows = 64 : i64, strategy = "tiled-attention", warpgroup_mma = 1 : i64}
// CHECK-NOT: nvvm.minctasm
// Rows-per-warp 32 asks for an mma.sync tiling: no warpgroup products.
// R32-LABEL: func @causal
// R32: nvvm.mma.sync
// R32-NOT: wgmma
// R32: query_rows = 128 : i64, strategy = "tiled-attention"}
func.func @causal(%q: tensor<1x32x?x128xbf16>) -> tensor<1x32x?x128xbf16> {
  %c2 = arith.constant 2 : index
  %l = tensor.dim %q, %c2 : tensor<1x32x?x128xbf16>
  %init = tensor.empty(%l) : tensor<1x32x?x128xbf16>
  %o = magi.tiled_attention %q, %q, %q outs(%init) {scale = 0.125 : f64, is_causal = true}
      : tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16> -> tensor<1x32x?x128xbf16>
  return %o : tensor<1x32x?x128xbf16>
}

// -----

// f16 at head dimension 64: one column block (the key tile [64, 64]), S
// and O both m64n64k16.
// CHECK-LABEL: func @full64
// CHECK: dynamic_shared_memory_size %c26624_i32
// CHECK: m64n64k16.f32.f16.f16 {{.*}}, 1, 1, 1, 0;
// CHECK: m64n64k16.f32.f16.f16 {{.*}}, 1, 1, 1, 1;
// CHECK: warpgroup_mma = 1 : i64
func.func @full64(%q: tensor<2x4x?x64xf16>) -> tensor<2x4x?x64xf16> {
  %c2 = arith.constant 2 : index
  %l = tensor.dim %q, %c2 : tensor<2x4x?x64xf16>
  %init = tensor.empty(%l) : tensor<2x4x?x64xf16>
  %o = magi.tiled_attention %q, %q, %q outs(%init) {scale = 0.125 : f64}
      : tensor<2x4x?x64xf16>, tensor<2x4x?x64xf16>, tensor<2x4x?x64xf16>, tensor<2x4x?x64xf16> -> tensor<2x4x?x64xf16>
  return %o : tensor<2x4x?x64xf16>
}

// -----

// A mask at head dimension 64: one key loop (a while over the tiles the
// mask does not hide), and in it the query's fragments loaded from its shared
// tile for every key tile (ptxas gave the registers they were held in before
// the loop to P: docs/compile.md, "Warpgroup products at head dimension 64").
// CHECK-LABEL: func @masked64
// CHECK: function(@attention0_mask_tiles)
// CHECK: function(@attention0)
// CHECK: scf.while
// CHECK: scf.while
// CHECK-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: query_in_shared = 0 : i64, query_rows = 64 : i64, strategy = "tiled-attention", warpgroup_mma = 1 : i64}
func.func @masked64(%q: tensor<1x8x?x64xf16>, %m: tensor<1x1x?x?xi1>) -> tensor<1x8x?x64xf16> {
  %c2 = arith.constant 2 : index
  %l = tensor.dim %q, %c2 : tensor<1x8x?x64xf16>
  %init = tensor.empty(%l) : tensor<1x8x?x64xf16>
  %o = magi.tiled_attention %q, %q, %q mask(%m : tensor<1x1x?x?xi1>) outs(%init) {scale = 0.125 : f64}
      : tensor<1x8x?x64xf16>, tensor<1x8x?x64xf16>, tensor<1x8x?x64xf16>, tensor<1x8x?x64xf16> -> tensor<1x8x?x64xf16>
  return %o : tensor<1x8x?x64xf16>
}

// -----

// A decode step over keys split between blocks, at head dimension 64: the
// same reloaded query.
// CHECK-LABEL: func @decode64
// CHECK: function(@attention0)
// CHECK: scf.for
// CHECK-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK: key_splits = 16 : i64
// CHECK-SAME: warpgroup_mma = 1 : i64
// CHECK: function(@attention0_combine)
func.func @decode64(%q: tensor<1x32x1x64xbf16>, %k: tensor<1x32x4096x64xbf16>,
                    %v: tensor<1x32x4096x64xbf16>) -> tensor<1x32x1x64xbf16> {
  %init = tensor.empty() : tensor<1x32x1x64xbf16>
  %o = magi.tiled_attention %q, %k, %v outs(%init) {scale = 0.125 : f64}
      : tensor<1x32x1x64xbf16>, tensor<1x32x4096x64xbf16>, tensor<1x32x4096x64xbf16>, tensor<1x32x1x64xbf16> -> tensor<1x32x1x64xbf16>
  return %o : tensor<1x32x1x64xbf16>
}

// -----

// At head dimension 128 the split decode step takes warpgroup products.
// CHECK-LABEL: func @decode128
// CHECK: function(@attention0)
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK: key_splits = 16 : i64
// CHECK-SAME: warpgroup_mma = 1 : i64
// CHECK: function(@attention0_combine)
func.func @decode128(%q: tensor<1x32x1x128xbf16>, %k: tensor<1x32x4096x128xbf16>,
                     %v: tensor<1x32x4096x128xbf16>) -> tensor<1x32x1x128xbf16> {
  %init = tensor.empty() : tensor<1x32x1x128xbf16>
  %o = magi.tiled_attention %q, %k, %v outs(%init) {scale = 0.088388347648318447 : f64}
      : tensor<1x32x1x128xbf16>, tensor<1x32x4096x128xbf16>, tensor<1x32x4096x128xbf16>, tensor<1x32x1x128xbf16> -> tensor<1x32x1x128xbf16>
  return %o : tensor<1x32x1x128xbf16>
}
