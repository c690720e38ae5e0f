// magi-tiled-attention-to-loops: the tiled kernel's algorithm as CPU loops
// on buffers (test/Interp/lowered-tiled-attention.mlir runs it).
// RUN: magi-opt %s --split-input-file --pass-pipeline="builtin.module(one-shot-bufferize{bufferize-function-boundaries}, func.func(magi-tiled-attention-to-loops))" | FileCheck %s
// RUN: magi-opt %s --split-input-file --pass-pipeline="builtin.module(one-shot-bufferize{bufferize-function-boundaries}, func.func(magi-tiled-attention-to-loops{key-splits=1}))" | FileCheck %s --check-prefix=NOSPLIT

// Causal, no mask: per batch, head and 64-row query tile the key tiles up
// to the diagonal (min(key tiles, query tile + 1)), per row its causal
// limit; the running max of the raw scores scaled once (0.125 log2(e) =
// 0.180336878), P rounded to f16 before the product with V, the output
// divided by the sum (zeros where it is 0) and rounded.
// CHECK-LABEL: func @causal
// CHECK: arith.ceildivui %{{.*}}, %c64
// CHECK: %[[KEYTILES:.*]] = arith.ceildivui %{{.*}}, %c64
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 0.180336878 : f32
// CHECK-DAG: memref.alloca() : memref<64xf32>
// CHECK-DAG: memref.alloca() : memref<128xf32>
// CHECK: %[[NEXT:.*]] = arith.addi %{{.*}}, %c1 : index
// CHECK-NEXT: %[[TILES:.*]] = arith.minui %[[KEYTILES]], %[[NEXT]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[TILES]] step %{{.*}} iter_args(%{{.*}} = %cst, %{{.*}} = %cst_{{.*}}) -> (f32, f32)
// CHECK: math.fma
// CHECK: arith.maximumf
// CHECK: arith.mulf %{{.*}}, %[[SCALE]]
// CHECK: math.exp2
// CHECK: math.exp2
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NOT: magi.tiled_attention
func.func @causal(%q: tensor<1x2x?x128xf16>) -> tensor<1x2x?x128xf16> {
  %c2 = arith.constant 2 : index
  %l = tensor.dim %q, %c2 : tensor<1x2x?x128xf16>
  %init = tensor.empty(%l) : tensor<1x2x?x128xf16>
  %o = magi.tiled_attention %q, %q, %q outs(%init) {scale = 0.125 : f64, is_causal = true}
      : tensor<1x2x?x128xf16>, tensor<1x2x?x128xf16>, tensor<1x2x?x128xf16>, tensor<1x2x?x128xf16> -> tensor<1x2x?x128xf16>
  return %o : tensor<1x2x?x128xf16>
}

// -----

// One query against 200 keys, 2 heads: split into 4 by the GPU pass's rule
// (f32 partial outputs, maxima and sums), then combined; key-splits=1
// keeps one walk.
// CHECK-LABEL: func @decode
// CHECK: memref.alloc() : memref<4x1x2x1x64xf32>
// CHECK: memref.alloc() : memref<4x1x2x1xf32>
// CHECK: memref.alloc() : memref<4x1x2x1xf32>
// CHECK: scf.for %[[SPLIT:.*]] = %{{.*}} to %c4
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[SPLIT]], %{{.*}}, %{{.*}}, %{{.*}}] : memref<4x1x2x1xf32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[SPLIT]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<4x1x2x1x64xf32>
// The combination: the largest max, each split weighted by exp2 of its
// distance from it.
// CHECK: scf.for
// CHECK: arith.maximumf
// CHECK: math.exp2
// CHECK: math.fma
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// NOSPLIT-LABEL: func @decode
// NOSPLIT-NOT: memref.alloc() : memref<{{.*}}xf32>
// NOSPLIT: return
func.func @decode(%q: tensor<1x2x1x64xbf16>, %k: tensor<1x2x200x64xbf16>) -> tensor<1x2x1x64xbf16> {
  %init = tensor.empty() : tensor<1x2x1x64xbf16>
  %o = magi.tiled_attention %q, %k, %k outs(%init) {scale = 0.125 : f64}
      : tensor<1x2x1x64xbf16>, tensor<1x2x200x64xbf16>, tensor<1x2x200x64xbf16>, tensor<1x2x1x64xbf16> -> tensor<1x2x1x64xbf16>
  return %o : tensor<1x2x1x64xbf16>
}

// -----

// A boolean mask: each (query tile, key tile) classified by scanning it
// (some score visible; some changed), hidden tiles skipped, the mask read
// per score only in mixed ones, scores scaled before the max.
// CHECK-LABEL: func @masked
// CHECK: scf.for
// CHECK: %[[FLAGS:.*]]:2 = scf.for {{.*}} -> (i1, i1)
// CHECK: arith.select %[[FLAGS]]#0
// CHECK: %[[HIDDEN:.*]] = arith.cmpi eq, %{{.*}}, %c0_i32
// CHECK: %[[MIXED:.*]] = arith.cmpi eq, %{{.*}}, %c2_i32
// CHECK: scf.if %[[HIDDEN]] -> (f32, f32)
// CHECK: scf.if %[[MIXED]] -> (f32)
// CHECK: memref.load %{{.*}} : memref<1x1x?x?xi1
// CHECK: arith.select
func.func @masked(%q: tensor<1x4x?x64xbf16>, %k: tensor<1x2x?x64xbf16>, %m: tensor<1x1x?x?xi1>) -> tensor<1x4x?x64xbf16> {
  %c2 = arith.constant 2 : index
  %l = tensor.dim %q, %c2 : tensor<1x4x?x64xbf16>
  %init = tensor.empty(%l) : tensor<1x4x?x64xbf16>
  %o = magi.tiled_attention %q, %k, %k mask(%m : tensor<1x1x?x?xi1>) outs(%init) {scale = 0.125 : f64}
      : tensor<1x4x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x4x?x64xbf16> -> tensor<1x4x?x64xbf16>
  return %o : tensor<1x4x?x64xbf16>
}
