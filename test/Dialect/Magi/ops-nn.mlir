// RUN: magi-opt %s | FileCheck %s
// RUN: magi-opt %s | magi-opt | FileCheck %s
// RUN: magi-opt %s -emit-bytecode | magi-opt | FileCheck %s
// RUN: magi-opt %s --verify-roundtrip | FileCheck %s
// RUN: magi-opt %s -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Positive tests for the normalization, softmax, attention and fused ops:
// magi.native_layer_norm, magi.layer_norm, magi.rms_norm, magi.silu_and_mul,
// magi.rotary_embedding, magi.softmax, magi.log_softmax, magi.attention and
// magi.scaled_dot_product_efficient_attention.

// CHECK-LABEL: func.func @native_layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x64xbf16>, %[[W:.*]]: tensor<64xbf16>, %[[B:.*]]: tensor<64xbf16>, %[[Y:.*]]: tensor<4x8x16xf32>, %[[W2:.*]]: tensor<8x16xf32>)
func.func @native_layer_norm(%x: tensor<2x?x64xbf16>, %w: tensor<64xbf16>, %b: tensor<64xbf16>,
                             %y: tensor<4x8x16xf32>, %w2: tensor<8x16xf32>) -> (tensor<2x?x64xbf16>, tensor<2x?x1xf32>) {
  // mean and rstd are f32 for a bf16 input; the results are named.
  // CHECK: %[[R:[^ ,]+]], %[[MEAN:[^ ,]+]], %[[RSTD:[^ ,]+]] = magi.native_layer_norm %[[X]] weight %[[W]] bias %[[B]] {eps = 1.000000e-05 : f64, normalized_ndim = 1 : i64} : (tensor<2x?x64xbf16>, tensor<64xbf16>, tensor<64xbf16>) -> (tensor<2x?x64xbf16>, tensor<2x?x1xf32>, tensor<2x?x1xf32>)
  %0:3 = magi.native_layer_norm %x weight %w bias %b {normalized_ndim = 1 : i64, eps = 1.0e-5 : f64} : (tensor<2x?x64xbf16>, tensor<64xbf16>, tensor<64xbf16>) -> (tensor<2x?x64xbf16>, tensor<2x?x1xf32>, tensor<2x?x1xf32>)
  // Two normalized dimensions, no weight or bias; f32 statistics stay f32.
  // CHECK: magi.native_layer_norm %[[Y]] {eps = 9.9999999999999995E-7 : f64, normalized_ndim = 2 : i64} : (tensor<4x8x16xf32>) -> (tensor<4x8x16xf32>, tensor<4x1x1xf32>, tensor<4x1x1xf32>)
  %1:3 = magi.native_layer_norm %y {normalized_ndim = 2 : i64, eps = 1.0e-6 : f64} : (tensor<4x8x16xf32>) -> (tensor<4x8x16xf32>, tensor<4x1x1xf32>, tensor<4x1x1xf32>)
  // A weight alone.
  // CHECK: magi.native_layer_norm %[[Y]] weight %[[W2]] {eps = 1.000000e-05 : f64, normalized_ndim = 2 : i64} : (tensor<4x8x16xf32>, tensor<8x16xf32>) -> (tensor<4x8x16xf32>, tensor<4x1x1xf32>, tensor<4x1x1xf32>)
  %2:3 = magi.native_layer_norm %y weight %w2 {normalized_ndim = 2 : i64, eps = 1.0e-5 : f64} : (tensor<4x8x16xf32>, tensor<8x16xf32>) -> (tensor<4x8x16xf32>, tensor<4x1x1xf32>, tensor<4x1x1xf32>)
  // A bias alone; all dimensions normalized.
  // CHECK: magi.native_layer_norm %[[W]] bias %[[B]] {eps = 1.000000e-05 : f64, normalized_ndim = 1 : i64} : (tensor<64xbf16>, tensor<64xbf16>) -> (tensor<64xbf16>, tensor<1xf32>, tensor<1xf32>)
  %3:3 = magi.native_layer_norm %w bias %b {normalized_ndim = 1 : i64, eps = 1.0e-5 : f64} : (tensor<64xbf16>, tensor<64xbf16>) -> (tensor<64xbf16>, tensor<1xf32>, tensor<1xf32>)
  // CHECK: return %[[R]], %[[MEAN]]
  return %0#0, %0#1 : tensor<2x?x64xbf16>, tensor<2x?x1xf32>
}

// The optional operands are recorded in operandSegmentSizes.
// GENERIC-LABEL: sym_name = "native_layer_norm"
// GENERIC: "magi.native_layer_norm"(%{{.*}}, %{{.*}}, %{{.*}}) <{eps = 1.000000e-05 : f64, normalized_ndim = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1>}>
// GENERIC: "magi.native_layer_norm"(%{{.*}}) <{eps = 9.9999999999999995E-7 : f64, normalized_ndim = 2 : i64, operandSegmentSizes = array<i32: 1, 0, 0>}>
// GENERIC: "magi.native_layer_norm"(%{{.*}}, %{{.*}}) <{eps = 1.000000e-05 : f64, normalized_ndim = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>}>
// GENERIC: "magi.native_layer_norm"(%{{.*}}, %{{.*}}) <{eps = 1.000000e-05 : f64, normalized_ndim = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 1>}>

// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x64xf16>, %[[W:.*]]: tensor<64xf16>, %[[B:.*]]: tensor<?xf16>)
func.func @layer_norm(%x: tensor<2x?x64xf16>, %w: tensor<64xf16>, %b: tensor<?xf16>) {
  // The result has the input's type.
  // CHECK: magi.layer_norm %[[X]] weight %[[W]] bias %[[B]] {eps = 1.000000e-05 : f64, normalized_ndim = 1 : i64} : (tensor<2x?x64xf16>, tensor<64xf16>, tensor<?xf16>) -> tensor<2x?x64xf16>
  %0 = magi.layer_norm %x weight %w bias %b {normalized_ndim = 1 : i64, eps = 1.0e-5 : f64} : (tensor<2x?x64xf16>, tensor<64xf16>, tensor<?xf16>) -> tensor<2x?x64xf16>
  // CHECK: magi.layer_norm %[[X]] {eps = 1.000000e-05 : f64, normalized_ndim = 3 : i64} : (tensor<2x?x64xf16>) -> tensor<2x?x64xf16>
  %1 = magi.layer_norm %x {normalized_ndim = 3 : i64, eps = 1.0e-5 : f64} : (tensor<2x?x64xf16>) -> tensor<2x?x64xf16>
  // CHECK: magi.layer_norm %[[X]] weight %[[W]] {eps = 1.000000e-05 : f64, normalized_ndim = 1 : i64} : (tensor<2x?x64xf16>, tensor<64xf16>) -> tensor<2x?x64xf16>
  %2 = magi.layer_norm %x weight %w {normalized_ndim = 1 : i64, eps = 1.0e-5 : f64} : (tensor<2x?x64xf16>, tensor<64xf16>) -> tensor<2x?x64xf16>
  return
}

// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x64xbf16>, %[[W:.*]]: tensor<64xbf16>, %[[W32:.*]]: tensor<64xf32>, %[[V:.*]]: tensor<8xf32>)
func.func @rms_norm(%x: tensor<2x?x64xbf16>, %w: tensor<64xbf16>, %w32: tensor<64xf32>, %v: tensor<8xf32>) {
  // CHECK: magi.rms_norm %[[X]] weight %[[W]] {eps = 9.9999999999999995E-7 : f64} : (tensor<2x?x64xbf16>, tensor<64xbf16>) -> tensor<2x?x64xbf16>
  %0 = magi.rms_norm %x weight %w {eps = 1.0e-6 : f64} : (tensor<2x?x64xbf16>, tensor<64xbf16>) -> tensor<2x?x64xbf16>
  // The result dtype promotes the input and weight dtypes.
  // CHECK: magi.rms_norm %[[X]] weight %[[W32]] {eps = 9.9999999999999995E-7 : f64} : (tensor<2x?x64xbf16>, tensor<64xf32>) -> tensor<2x?x64xf32>
  %1 = magi.rms_norm %x weight %w32 {eps = 1.0e-6 : f64} : (tensor<2x?x64xbf16>, tensor<64xf32>) -> tensor<2x?x64xf32>
  // No weight; an explicit compute dtype.
  // CHECK: magi.rms_norm %[[X]] {compute_dtype = f64, eps = 1.000000e-05 : f64} : (tensor<2x?x64xbf16>) -> tensor<2x?x64xbf16>
  %2 = magi.rms_norm %x {eps = 1.0e-5 : f64, compute_dtype = f64} : (tensor<2x?x64xbf16>) -> tensor<2x?x64xbf16>
  // A 1-d input.
  // CHECK: magi.rms_norm %[[V]] {eps = 1.000000e-05 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  %3 = magi.rms_norm %v {eps = 1.0e-5 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// CHECK-LABEL: func.func @silu_and_mul
// CHECK-SAME: (%[[G:.*]]: tensor<2x?x256xbf16>, %[[U:.*]]: tensor<2x?x256xbf16>, %[[V:.*]]: tensor<256xf32>)
func.func @silu_and_mul(%g: tensor<2x?x256xbf16>, %u: tensor<2x?x256xbf16>, %v: tensor<256xf32>) {
  // CHECK: magi.silu_and_mul %[[G]], %[[U]] : (tensor<2x?x256xbf16>, tensor<2x?x256xbf16>) -> tensor<2x?x256xbf16>
  %0 = magi.silu_and_mul %g, %u : (tensor<2x?x256xbf16>, tensor<2x?x256xbf16>) -> tensor<2x?x256xbf16>
  // Broadcasting and promotion as for magi.mul.
  // CHECK: magi.silu_and_mul %[[G]], %[[V]] : (tensor<2x?x256xbf16>, tensor<256xf32>) -> tensor<2x?x256xf32>
  %1 = magi.silu_and_mul %g, %v : (tensor<2x?x256xbf16>, tensor<256xf32>) -> tensor<2x?x256xf32>
  return
}

// CHECK-LABEL: func.func @rotary_embedding
// CHECK-SAME: (%[[X:.*]]: tensor<1x32x?x128xbf16>, %[[COS:.*]]: tensor<1x1x?x128xbf16>, %[[SIN:.*]]: tensor<1x1x?x128xbf16>, %[[D:.*]]: tensor<4x?xf32>, %[[C2:.*]]: tensor<?xf32>)
func.func @rotary_embedding(%x: tensor<1x32x?x128xbf16>, %cos: tensor<1x1x?x128xbf16>, %sin: tensor<1x1x?x128xbf16>,
                            %d: tensor<4x?xf32>, %c2: tensor<?xf32>) {
  // cos and sin broadcast against x.
  // CHECK: magi.rotary_embedding %[[X]], %[[COS]], %[[SIN]] : (tensor<1x32x?x128xbf16>, tensor<1x1x?x128xbf16>, tensor<1x1x?x128xbf16>) -> tensor<1x32x?x128xbf16>
  %0 = magi.rotary_embedding %x, %cos, %sin : (tensor<1x32x?x128xbf16>, tensor<1x1x?x128xbf16>, tensor<1x1x?x128xbf16>) -> tensor<1x32x?x128xbf16>
  // A dynamic last dimension is accepted.
  // CHECK: magi.rotary_embedding %[[D]], %[[C2]], %[[C2]] : (tensor<4x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<4x?xf32>
  %1 = magi.rotary_embedding %d, %c2, %c2 : (tensor<4x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<4x?xf32>
  return
}

// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x64xbf16>, %[[Y:.*]]: tensor<4x8xf32>, %[[S:.*]]: tensor<f16>, %[[H:.*]]: tensor<2x?x64xf16>)
func.func @softmax(%x: tensor<2x?x64xbf16>, %y: tensor<4x8xf32>, %s: tensor<f16>, %h: tensor<2x?x64xf16>) {
  // CHECK: magi.softmax %[[X]] {dim = -1 : i64} : (tensor<2x?x64xbf16>) -> tensor<2x?x64xbf16>
  %0 = magi.softmax %x {dim = -1 : i64} : (tensor<2x?x64xbf16>) -> tensor<2x?x64xbf16>
  // half_to_float gives f32 for an f16 input.
  // CHECK: magi.softmax %[[H]] {dim = 1 : i64, half_to_float = true} : (tensor<2x?x64xf16>) -> tensor<2x?x64xf32>
  %1 = magi.softmax %h {dim = 1 : i64, half_to_float = true} : (tensor<2x?x64xf16>) -> tensor<2x?x64xf32>
  // CHECK: magi.softmax %[[Y]] {dim = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = magi.softmax %y {dim = 0 : i64, half_to_float = false} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: magi.softmax %[[S]] {dim = 0 : i64} : (tensor<f16>) -> tensor<f16>
  %3 = magi.softmax %s {dim = 0 : i64} : (tensor<f16>) -> tensor<f16>
  // CHECK: magi.log_softmax %[[X]] {dim = -1 : i64} : (tensor<2x?x64xbf16>) -> tensor<2x?x64xbf16>
  %4 = magi.log_softmax %x {dim = -1 : i64} : (tensor<2x?x64xbf16>) -> tensor<2x?x64xbf16>
  // CHECK: magi.log_softmax %[[H]] {dim = 2 : i64, half_to_float = true} : (tensor<2x?x64xf16>) -> tensor<2x?x64xf32>
  %5 = magi.log_softmax %h {dim = 2 : i64, half_to_float = true} : (tensor<2x?x64xf16>) -> tensor<2x?x64xf32>
  // CHECK: magi.log_softmax %[[Y]] {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = magi.log_softmax %y {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// CHECK-LABEL: func.func @attention
// CHECK-SAME: (%[[Q:.*]]: tensor<1x32x?x128xbf16>, %[[K:.*]]: tensor<1x8x?x128xbf16>, %[[V:.*]]: tensor<1x8x?x64xbf16>, %[[M:.*]]: tensor<1x1x?x?xi1>, %[[FM:.*]]: tensor<?x?xbf16>, %[[Q2:.*]]: tensor<5x16xf32>, %[[K2:.*]]: tensor<7x16xf32>, %[[Q3:.*]]: tensor<4x5x16xf32>)
func.func @attention(%q: tensor<1x32x?x128xbf16>, %k: tensor<1x8x?x128xbf16>, %v: tensor<1x8x?x64xbf16>,
                     %m: tensor<1x1x?x?xi1>, %fm: tensor<?x?xbf16>, %q2: tensor<5x16xf32>,
                     %k2: tensor<7x16xf32>, %q3: tensor<4x5x16xf32>) {
  // Grouped-query attention: 32 query heads over 8 key/value heads. The
  // result takes the value's head size.
  // CHECK: magi.attention %[[Q]], %[[K]], %[[V]] : (tensor<1x32x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x8x?x64xbf16>) -> tensor<1x32x?x64xbf16>
  %0 = magi.attention %q, %k, %v : (tensor<1x32x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x8x?x64xbf16>) -> tensor<1x32x?x64xbf16>
  // A boolean mask and the causal flag.
  // CHECK: magi.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] {is_causal = true} : (tensor<1x32x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x8x?x64xbf16>, tensor<1x1x?x?xi1>) -> tensor<1x32x?x64xbf16>
  %1 = magi.attention %q, %k, %v mask %m {is_causal = true} : (tensor<1x32x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x8x?x64xbf16>, tensor<1x1x?x?xi1>) -> tensor<1x32x?x64xbf16>
  // An additive mask, a scale and dropout.
  // CHECK: magi.attention %[[Q]], %[[K]], %[[V]] mask %[[FM]] {dropout_p = 1.000000e-01 : f64, scale = 1.250000e-01 : f64} : (tensor<1x32x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x8x?x64xbf16>, tensor<?x?xbf16>) -> tensor<1x32x?x64xbf16>
  %2 = magi.attention %q, %k, %v mask %fm {scale = 0.125 : f64, dropout_p = 0.1 : f64} : (tensor<1x32x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x8x?x64xbf16>, tensor<?x?xbf16>) -> tensor<1x32x?x64xbf16>
  // Rank 2: no heads.
  // CHECK: magi.attention %[[Q2]], %[[K2]], %[[K2]] : (tensor<5x16xf32>, tensor<7x16xf32>, tensor<7x16xf32>) -> tensor<5x16xf32>
  %3 = magi.attention %q2, %k2, %k2 : (tensor<5x16xf32>, tensor<7x16xf32>, tensor<7x16xf32>) -> tensor<5x16xf32>
  // Rank 3: heads but no batch dimension.
  // CHECK: magi.attention %[[Q3]], %[[Q3]], %[[Q3]] : (tensor<4x5x16xf32>, tensor<4x5x16xf32>, tensor<4x5x16xf32>) -> tensor<4x5x16xf32>
  %4 = magi.attention %q3, %q3, %q3 : (tensor<4x5x16xf32>, tensor<4x5x16xf32>, tensor<4x5x16xf32>) -> tensor<4x5x16xf32>
  return
}

// CHECK-LABEL: func.func @efficient_attention
// CHECK-SAME: (%[[Q:.*]]: tensor<1x32x?x128xbf16>, %[[B:.*]]: tensor<1x32x?x?xbf16>, %[[Q2:.*]]: tensor<2x4x40x16xf16>)
func.func @efficient_attention(%q: tensor<1x32x?x128xbf16>, %b: tensor<1x32x?x?xbf16>, %q2: tensor<2x4x40x16xf16>) {
  // CHECK: %[[R:[^ ,]+]], %[[LSE:[^ ,]+]], %[[SEED:[^ ,]+]], %[[OFF:[^ ,]+]] = magi.scaled_dot_product_efficient_attention %[[Q]], %[[Q]], %[[Q]] {compute_log_sumexp = true} : (tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>) -> (tensor<1x32x?x128xbf16>, tensor<1x32x?xf32>, tensor<i64>, tensor<i64>)
  %0:4 = magi.scaled_dot_product_efficient_attention %q, %q, %q {compute_log_sumexp = true} : (tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>) -> (tensor<1x32x?x128xbf16>, tensor<1x32x?xf32>, tensor<i64>, tensor<i64>)
  // Without compute_log_sumexp the log-sum-exp is empty.
  // CHECK: magi.scaled_dot_product_efficient_attention %[[Q]], %[[Q]], %[[Q]] bias %[[B]] {is_causal = true, scale = 5.000000e-01 : f64} : (tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>, tensor<1x32x?x?xbf16>) -> (tensor<1x32x?x128xbf16>, tensor<1x32x0xf32>, tensor<i64>, tensor<i64>)
  %1:4 = magi.scaled_dot_product_efficient_attention %q, %q, %q bias %b {is_causal = true, scale = 0.5 : f64} : (tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>, tensor<1x32x?x?xbf16>) -> (tensor<1x32x?x128xbf16>, tensor<1x32x0xf32>, tensor<i64>, tensor<i64>)
  // A static length rounds up to a multiple of 32: 40 -> 64.
  // CHECK: magi.scaled_dot_product_efficient_attention %[[Q2]], %[[Q2]], %[[Q2]] {compute_log_sumexp = true, dropout_p = 2.500000e-01 : f64} : (tensor<2x4x40x16xf16>, tensor<2x4x40x16xf16>, tensor<2x4x40x16xf16>) -> (tensor<2x4x40x16xf16>, tensor<2x4x64xf32>, tensor<i64>, tensor<i64>)
  %2:4 = magi.scaled_dot_product_efficient_attention %q2, %q2, %q2 {compute_log_sumexp = true, dropout_p = 0.25 : f64} : (tensor<2x4x40x16xf16>, tensor<2x4x40x16xf16>, tensor<2x4x40x16xf16>) -> (tensor<2x4x40x16xf16>, tensor<2x4x64xf32>, tensor<i64>, tensor<i64>)
  return
}
