// magi-lower-to-linalg{tiled-attention}: attention that fits one tiled
// kernel becomes magi.tiled_attention (the scores never materialize);
// anything else keeps the six generics. Without the option nothing changes.
// RUN: magi-opt %s --split-input-file --magi-lower-to-linalg="tiled-attention fail-on-unconverted" | FileCheck %s
// RUN: magi-opt %s --split-input-file --magi-lower-to-linalg | FileCheck %s --check-prefix=PLAIN

// GQA, causal, a dynamic token count: the output is a fresh tensor of the
// query's sizes, the scale made explicit.
// CHECK-LABEL: func @gqa_causal
// CHECK-SAME: (%[[Q:.*]]: tensor<1x32x?x128xbf16>, %[[K:.*]]: tensor<1x8x?x128xbf16>, %[[V:.*]]: tensor<1x8x?x128xbf16>)
// CHECK: %[[L:.*]] = tensor.dim %[[Q]], %c2
// CHECK: %[[INIT:.*]] = tensor.empty(%[[L]]) : tensor<1x32x?x128xbf16>
// CHECK: %[[O:.*]] = magi.tiled_attention %[[Q]], %[[K]], %[[V]] outs(%[[INIT]]) {is_causal = true, scale = 0.088388347648318{{[0-9]*}} : f64}
// CHECK-SAME: -> tensor<1x32x?x128xbf16>
// CHECK-NOT: linalg.generic
// CHECK: return %[[O]]
// PLAIN-LABEL: func @gqa_causal
// PLAIN-NOT: magi.tiled_attention
// PLAIN: linalg.generic
func.func @gqa_causal(%q: tensor<1x32x?x128xbf16>, %k: tensor<1x8x?x128xbf16>,
                      %v: tensor<1x8x?x128xbf16>) -> tensor<1x32x?x128xbf16> {
  %o = magi.attention %q, %k, %v {is_causal = true}
      : (tensor<1x32x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x8x?x128xbf16>) -> tensor<1x32x?x128xbf16>
  return %o : tensor<1x32x?x128xbf16>
}

// -----

// An additive mask broadcast over batch and heads (as LLaMA's export has).
// CHECK-LABEL: func @masked
// CHECK: magi.tiled_attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<1x1x?x?xf16>) outs(%{{.*}}) {scale = 1.250000e-01 : f64}
func.func @masked(%q: tensor<1x4x?x64xf16>, %k: tensor<1x4x?x64xf16>, %v: tensor<1x4x?x64xf16>,
                  %m: tensor<1x1x?x?xf16>) -> tensor<1x4x?x64xf16> {
  %o = magi.attention %q, %k, %v mask %m
      : (tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>, tensor<1x1x?x?xf16>) -> tensor<1x4x?x64xf16>
  return %o : tensor<1x4x?x64xf16>
}

// -----

// What does not fit stays generics: a head dimension of 32, f32 operands, a
// mask that varies over the query heads' group differently (per key head).
// CHECK-LABEL: func @head_dim_32
// CHECK-NOT: magi.tiled_attention
// CHECK: linalg.generic
func.func @head_dim_32(%q: tensor<1x4x16x32xbf16>) -> tensor<1x4x16x32xbf16> {
  %o = magi.attention %q, %q, %q : (tensor<1x4x16x32xbf16>, tensor<1x4x16x32xbf16>, tensor<1x4x16x32xbf16>) -> tensor<1x4x16x32xbf16>
  return %o : tensor<1x4x16x32xbf16>
}

// -----

// CHECK-LABEL: func @f32
// CHECK-NOT: magi.tiled_attention
// CHECK: linalg.generic
func.func @f32(%q: tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  %o = magi.attention %q, %q, %q : (tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32>
  return %o : tensor<1x4x16x64xf32>
}

// -----

// CHECK-LABEL: func @mask_per_row_of_batch
// CHECK-NOT: magi.tiled_attention
// CHECK: linalg.generic
func.func @mask_per_row_of_batch(%q: tensor<1x4x16x64xbf16>, %m: tensor<16x16xbf16>) -> tensor<1x4x16x64xbf16> {
  %o = magi.attention %q, %q, %q mask %m : (tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<16x16xbf16>) -> tensor<1x4x16x64xbf16>
  return %o : tensor<1x4x16x64xbf16>
}
