// The tiled attention kernel's tilings: chosen per attention by default,
// or given by the options; launch bounds carried through outlining.
// RUN: magi-opt %s --split-input-file --pass-pipeline="builtin.module(magi-bufferize, func.func(magi-tiled-attention-to-gpu))" | FileCheck %s
// RUN: magi-opt %s --split-input-file --pass-pipeline="builtin.module(magi-bufferize, func.func(magi-tiled-attention-to-gpu{rows-per-warp=32 key-rows=32}))" | FileCheck %s --check-prefix=R32K32
// RUN: magi-opt %s --split-input-file --pass-pipeline="builtin.module(magi-bufferize, func.func(magi-tiled-attention-to-gpu), magi-outline-kernels)" | FileCheck %s --check-prefix=OUTLINED

// With a mask: 16 rows a warp, 64-row key tiles, the query tile kept in
// shared memory (17 KiB beside the key and value tiles: 51 KiB, so the
// tiles are views of dynamic shared memory), 3 blocks an SM.
// CHECK-LABEL: func @masked
// CHECK: function(@attention0_mask_tiles)
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %c52224_i32
// CHECK-SAME: function(@attention0)
// CHECK: %[[BASE:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[BASE]][%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x136xbf16, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[BASE]][%c17408{{.*}}][] : {{.*}} to memref<64x136xbf16, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[BASE]][%c34816{{.*}}][] : {{.*}} to memref<64x136xbf16, #gpu.address_space<workgroup>>
// The query's fragments loaded again in the loop, for each key tile.
// CHECK: scf.while
// CHECK: nvvm.cp.async.wait.group 1
// CHECK: llvm.inline_asm has_side_effects {{.*}}ldmatrix{{.*}}[$4+0];
// CHECK: magi.kernel_config = {block_size = 128 : i64, key_rows = 64 : i64, query_in_shared = 1 : i64, query_rows = 64 : i64, strategy = "tiled-attention"}
// CHECK-SAME: nvvm.minctasm = 3 : i32
// OUTLINED-LABEL: gpu.module @masked_kernels
// OUTLINED: gpu.func @attention0_mask_tiles
// OUTLINED-NOT: nvvm.minctasm
// OUTLINED: gpu.func @attention0({{.*}}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, nvvm.minctasm = 3 : i32}
// Given 32 rows a warp and 32-row key tiles: the mask's class table has
// the kernel's 128 x 32 tiles (a warp of the classifying block reads 16
// rows, a lane one key of each: 16 loads); the query tile goes through a
// buffer of its own into registers; 128 accumulators, 4 maxima and 4 sums
// a thread carried over the key tiles.
// R32K32-LABEL: func @masked
// R32K32: arith.ceildivui %{{.*}}, %c128
// R32K32: %[[QT:.*]] = arith.ceildivui %{{.*}}, %c128
// R32K32: %[[KT:.*]] = arith.ceildivui %{{.*}}, %c32
// R32K32: memref.alloc(%[[QT]], %[[KT]]) : memref<1x1x?x?xi8>
// R32K32: function(@attention0_mask_tiles)
// R32K32-COUNT-16: memref.load %arg1
// R32K32-NOT: memref.load %arg1
// R32K32: gpu.all_reduce
// R32K32: dynamic_shared_memory_size %c52224_i32
// R32K32: memref.view {{.*}} to memref<32x136xbf16, #gpu.address_space<workgroup>>
// R32K32: memref.view %{{.*}}[%c8704][] {{.*}} to memref<32x136xbf16, #gpu.address_space<workgroup>>
// R32K32: memref.view %{{.*}}[%c17408][] {{.*}} to memref<128x136xbf16, #gpu.address_space<workgroup>>
// R32K32: %{{.*}}:137 = scf.while
// R32K32: key_rows = 32 : i64, query_in_shared = 0 : i64, query_rows = 128 : i64
// R32K32-NOT: nvvm.minctasm
func.func @masked(%q: tensor<1x32x?x128xbf16>, %m: tensor<1x1x?x?xbf16>) -> tensor<1x32x?x128xbf16> {
  %c2 = arith.constant 2 : index
  %l = tensor.dim %q, %c2 : tensor<1x32x?x128xbf16>
  %init = tensor.empty(%l) : tensor<1x32x?x128xbf16>
  %o = magi.tiled_attention %q, %q, %q mask(%m : tensor<1x1x?x?xbf16>) outs(%init) {scale = 0.125 : f64}
      : tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16> -> tensor<1x32x?x128xbf16>
  return %o : tensor<1x32x?x128xbf16>
}

// -----

// Causal without a mask: the query in registers, static shared memory,
// 3 blocks an SM.
// CHECK-LABEL: func @causal
// CHECK: gpu.launch {{.*}} function(@attention0)
// CHECK-SAME: workgroup(%{{.*}} : memref<64x136xbf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<64x136xbf16, #gpu.address_space<workgroup>>)
// CHECK: query_in_shared = 0 : i64, query_rows = 64 : i64
// CHECK-SAME: nvvm.minctasm = 3 : i32
func.func @causal(%q: tensor<1x32x?x128xbf16>) -> tensor<1x32x?x128xbf16> {
  %c2 = arith.constant 2 : index
  %l = tensor.dim %q, %c2 : tensor<1x32x?x128xbf16>
  %init = tensor.empty(%l) : tensor<1x32x?x128xbf16>
  %o = magi.tiled_attention %q, %q, %q outs(%init) {scale = 0.125 : f64, is_causal = true}
      : tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16> -> tensor<1x32x?x128xbf16>
  return %o : tensor<1x32x?x128xbf16>
}

// -----

// Neither: 32 rows a warp (a block covers 128 query rows), the query in
// shared memory, no launch bound. Each key fragment serves both of a
// warp's query fragments: one ldmatrix, four products.
// CHECK-LABEL: func @full
// CHECK: arith.ceildivui %{{.*}}, %c128
// CHECK: gpu.launch {{.*}} function(@attention0)
// CHECK-SAME: workgroup(%{{.*}} : memref<64x72xf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<64x72xf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<128x72xf16, #gpu.address_space<workgroup>>)
// CHECK: scf.for
// CHECK: llvm.inline_asm has_side_effects {{.*}}[$4+0];
// CHECK: llvm.inline_asm has_side_effects {{.*}}[$4+2304];
// CHECK: llvm.inline_asm has_side_effects {{.*}}[$4+0];
// CHECK-COUNT-4: nvvm.mma.sync
// CHECK-NEXT: llvm.extract
// CHECK: query_in_shared = 1 : i64, query_rows = 128 : i64, strategy = "tiled-attention"}}
// CHECK-NOT: nvvm.minctasm
func.func @full(%q: tensor<2x4x?x64xf16>) -> tensor<2x4x?x64xf16> {
  %c2 = arith.constant 2 : index
  %l = tensor.dim %q, %c2 : tensor<2x4x?x64xf16>
  %init = tensor.empty(%l) : tensor<2x4x?x64xf16>
  %o = magi.tiled_attention %q, %q, %q outs(%init) {scale = 0.125 : f64}
      : tensor<2x4x?x64xf16>, tensor<2x4x?x64xf16>, tensor<2x4x?x64xf16>, tensor<2x4x?x64xf16> -> tensor<2x4x?x64xf16>
  return %o : tensor<2x4x?x64xf16>
}
