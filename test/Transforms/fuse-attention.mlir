// RUN: magi-opt %s -magi-fuse=enable=attention -canonicalize -magi-dce | FileCheck %s

// magi-fuse's attention fusion: magi.scaled_dot_product_efficient_attention whose
// log-sum-exp and RNG results are unused becomes magi.attention (folding the
// repeat_kv of K and V into grouped-query heads); so does PyTorch's math SDPA
// spelled out in bmm / softmax / _safe_softmax as BERT captures it.

//===----------------------------------------------------------------------===//
// The efficient-attention kernel op.
//===----------------------------------------------------------------------===//

// bias, scale and dropout carry over.
// CHECK-LABEL: func.func @efficient
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x?x32xbf16>, %[[K:.*]]: tensor<1x4x?x32xbf16>, %[[V:.*]]: tensor<1x4x?x32xbf16>, %[[B:.*]]: tensor<1x4x?x?xbf16>)
// CHECK-NEXT: %[[R:.*]] = magi.attention %[[Q]], %[[K]], %[[V]] mask %[[B]] {dropout_p = 1.000000e-01 : f64, scale = 0.17677669529663689 : f64} : (tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x?xbf16>) -> tensor<1x4x?x32xbf16>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: magi.scaled_dot_product_efficient_attention
func.func @efficient(%q: tensor<1x4x?x32xbf16>, %k: tensor<1x4x?x32xbf16>, %v: tensor<1x4x?x32xbf16>, %b: tensor<1x4x?x?xbf16>) -> tensor<1x4x?x32xbf16> {
  %r, %lse, %seed, %off = magi.scaled_dot_product_efficient_attention %q, %k, %v bias %b {scale = 0.17677669529663689 : f64, dropout_p = 0.1 : f64} : (tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x?xbf16>) -> (tensor<1x4x?x32xbf16>, tensor<1x4x0xf32>, tensor<i64>, tensor<i64>)
  return %r : tensor<1x4x?x32xbf16>
}

// is_causal carries over; a log-sum-exp that is computed but unused does not
// stop the fusion.
// CHECK-LABEL: func.func @efficient_causal
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x40x16xf16>)
// CHECK-NEXT: %[[R:.*]] = magi.attention %[[Q]], %[[Q]], %[[Q]] {is_causal = true} : (tensor<2x4x40x16xf16>, tensor<2x4x40x16xf16>, tensor<2x4x40x16xf16>) -> tensor<2x4x40x16xf16>
// CHECK-NEXT: return %[[R]]
func.func @efficient_causal(%q: tensor<2x4x40x16xf16>) -> tensor<2x4x40x16xf16> {
  %r, %lse, %seed, %off = magi.scaled_dot_product_efficient_attention %q, %q, %q {is_causal = true, compute_log_sumexp = true} : (tensor<2x4x40x16xf16>, tensor<2x4x40x16xf16>, tensor<2x4x40x16xf16>) -> (tensor<2x4x40x16xf16>, tensor<2x4x64xf32>, tensor<i64>, tensor<i64>)
  return %r : tensor<2x4x40x16xf16>
}

// The log-sum-exp is only bound: the fusion fires and its binding goes.
// CHECK-LABEL: func.func @lse_bound_only
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x?x32xf32>, %[[N:.*]]: index)
// CHECK: %[[S0:.*]] = magi.symbolic_int "s0"
// CHECK-NEXT: %[[V:.*]] = magi.view %[[Q]] [1, 4, %[[S0]], 32]
// CHECK-NEXT: %[[R:.*]] = magi.attention %[[V]], %[[V]], %[[V]] : (tensor<1x4x?x32xf32>, tensor<1x4x?x32xf32>, tensor<1x4x?x32xf32>) -> tensor<1x4x?x32xf32>
// CHECK-NEXT: magi.bind_symbolic_shape %[[R]], [%[[S0]]]
// CHECK-NOT: magi.bind_symbolic_shape
// CHECK: return %[[R]]
func.func @lse_bound_only(%q: tensor<1x4x?x32xf32>, %n: index) -> tensor<1x4x?x32xf32> {
  %s0 = magi.symbolic_int "s0" min 2 max 512
  // A real use of the symbol keeps it (and its bindings) alive.
  %v = magi.view %q [1, 4, %s0, 32] : tensor<1x4x?x32xf32> -> tensor<1x4x?x32xf32>
  %r, %lse, %seed, %off = magi.scaled_dot_product_efficient_attention %v, %v, %v {compute_log_sumexp = true} : (tensor<1x4x?x32xf32>, tensor<1x4x?x32xf32>, tensor<1x4x?x32xf32>) -> (tensor<1x4x?x32xf32>, tensor<1x4x?xf32>, tensor<i64>, tensor<i64>)
  magi.bind_symbolic_shape %r, [%s0], affine_map<()[s0] -> (1, 4, s0, 32)> : tensor<1x4x?x32xf32>
  magi.bind_symbolic_shape %lse, [%s0], affine_map<()[s0] -> (1, 4, s0 - s0 mod 32 + 32)> : tensor<1x4x?xf32>
  return %r : tensor<1x4x?x32xf32>
}

// GQA as transformers' repeat_kv writes it: 4 query heads over 2 key/value
// heads, each repeated twice by unsqueeze(2) -> expand -> view. The attention
// takes the unrepeated K and V.
// CHECK-LABEL: func.func @gqa_repeat_kv
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x?x32xbf16>, %[[K:.*]]: tensor<1x2x?x32xbf16>, %[[V:.*]]: tensor<1x2x?x32xbf16>, %[[M:.*]]: tensor<1x4x?x?xbf16>, %[[N:.*]]: index)
// CHECK-NEXT: %[[R:.*]] = magi.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] {scale = 0.17677669529663689 : f64} : (tensor<1x4x?x32xbf16>, tensor<1x2x?x32xbf16>, tensor<1x2x?x32xbf16>, tensor<1x4x?x?xbf16>) -> tensor<1x4x?x32xbf16>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: magi.unsqueeze
// CHECK-NOT: magi.expand
// CHECK-NOT: magi.view
func.func @gqa_repeat_kv(%q: tensor<1x4x?x32xbf16>, %k: tensor<1x2x?x32xbf16>, %v: tensor<1x2x?x32xbf16>, %m: tensor<1x4x?x?xbf16>, %n: index) -> tensor<1x4x?x32xbf16> {
  %k5 = magi.unsqueeze %k {dim = 2 : i64} : (tensor<1x2x?x32xbf16>) -> tensor<1x2x1x?x32xbf16>
  %ke = magi.expand %k5 [1, 2, 2, %n, 32] : tensor<1x2x1x?x32xbf16> -> tensor<1x2x2x?x32xbf16>
  %kr = magi.view %ke [1, 4, %n, 32] : tensor<1x2x2x?x32xbf16> -> tensor<1x4x?x32xbf16>
  %v5 = magi.unsqueeze %v {dim = 2 : i64} : (tensor<1x2x?x32xbf16>) -> tensor<1x2x1x?x32xbf16>
  %ve = magi.expand %v5 [1, 2, 2, %n, 32] : tensor<1x2x1x?x32xbf16> -> tensor<1x2x2x?x32xbf16>
  %vr = magi.view %ve [1, 4, %n, 32] : tensor<1x2x2x?x32xbf16> -> tensor<1x4x?x32xbf16>
  %r, %lse, %seed, %off = magi.scaled_dot_product_efficient_attention %q, %kr, %vr bias %m {scale = 0.17677669529663689 : f64} : (tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x?xbf16>) -> (tensor<1x4x?x32xbf16>, tensor<1x4x0xf32>, tensor<i64>, tensor<i64>)
  return %r : tensor<1x4x?x32xbf16>
}

// 8 query heads over 1 key/value head (multi-query), static shapes.
// CHECK-LABEL: func.func @mqa_repeat_kv
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x16x64xf32>, %[[K:.*]]: tensor<2x1x16x64xf32>, %[[V:.*]]: tensor<2x1x16x64xf32>)
// CHECK-NEXT: %[[R:.*]] = magi.attention %[[Q]], %[[K]], %[[V]] {is_causal = true} : (tensor<2x8x16x64xf32>, tensor<2x1x16x64xf32>, tensor<2x1x16x64xf32>) -> tensor<2x8x16x64xf32>
// CHECK-NEXT: return %[[R]]
func.func @mqa_repeat_kv(%q: tensor<2x8x16x64xf32>, %k: tensor<2x1x16x64xf32>, %v: tensor<2x1x16x64xf32>) -> tensor<2x8x16x64xf32> {
  %k5 = magi.unsqueeze %k {dim = 2 : i64} : (tensor<2x1x16x64xf32>) -> tensor<2x1x1x16x64xf32>
  %ke = magi.expand %k5 [2, 1, 8, 16, 64] : tensor<2x1x1x16x64xf32> -> tensor<2x1x8x16x64xf32>
  %kr = magi.view %ke [2, 8, 16, 64] : tensor<2x1x8x16x64xf32> -> tensor<2x8x16x64xf32>
  %v5 = magi.unsqueeze %v {dim = 2 : i64} : (tensor<2x1x16x64xf32>) -> tensor<2x1x1x16x64xf32>
  %ve = magi.expand %v5 [2, 1, 8, 16, 64] : tensor<2x1x1x16x64xf32> -> tensor<2x1x8x16x64xf32>
  %vr = magi.view %ve [2, 8, 16, 64] : tensor<2x1x8x16x64xf32> -> tensor<2x8x16x64xf32>
  %r, %lse, %seed, %off = magi.scaled_dot_product_efficient_attention %q, %kr, %vr {is_causal = true} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> (tensor<2x8x16x64xf32>, tensor<2x8x0xf32>, tensor<i64>, tensor<i64>)
  return %r : tensor<2x8x16x64xf32>
}

// Mismatched GQA factors (K: 2 heads x 2, V: 1 head x 4): the attention is
// formed, but on the repeated K and V.
// CHECK-LABEL: func.func @gqa_mismatched_factors
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x8x32xf32>, %[[K:.*]]: tensor<1x2x8x32xf32>, %[[V:.*]]: tensor<1x1x8x32xf32>)
// CHECK: %[[KR:.*]] = magi.view {{.*}} -> tensor<1x4x8x32xf32>
// CHECK: %[[VR:.*]] = magi.view {{.*}} -> tensor<1x4x8x32xf32>
// CHECK-NEXT: %[[R:.*]] = magi.attention %[[Q]], %[[KR]], %[[VR]] : (tensor<1x4x8x32xf32>, tensor<1x4x8x32xf32>, tensor<1x4x8x32xf32>) -> tensor<1x4x8x32xf32>
// CHECK-NOT: magi.scaled_dot_product_efficient_attention
func.func @gqa_mismatched_factors(%q: tensor<1x4x8x32xf32>, %k: tensor<1x2x8x32xf32>, %v: tensor<1x1x8x32xf32>) -> tensor<1x4x8x32xf32> {
  %k5 = magi.unsqueeze %k {dim = 2 : i64} : (tensor<1x2x8x32xf32>) -> tensor<1x2x1x8x32xf32>
  %ke = magi.expand %k5 [1, 2, 2, 8, 32] : tensor<1x2x1x8x32xf32> -> tensor<1x2x2x8x32xf32>
  %kr = magi.view %ke [1, 4, 8, 32] : tensor<1x2x2x8x32xf32> -> tensor<1x4x8x32xf32>
  %v5 = magi.unsqueeze %v {dim = 2 : i64} : (tensor<1x1x8x32xf32>) -> tensor<1x1x1x8x32xf32>
  %ve = magi.expand %v5 [1, 1, 4, 8, 32] : tensor<1x1x1x8x32xf32> -> tensor<1x1x4x8x32xf32>
  %vr = magi.view %ve [1, 4, 8, 32] : tensor<1x1x4x8x32xf32> -> tensor<1x4x8x32xf32>
  %r, %lse, %seed, %off = magi.scaled_dot_product_efficient_attention %q, %kr, %vr : (tensor<1x4x8x32xf32>, tensor<1x4x8x32xf32>, tensor<1x4x8x32xf32>) -> (tensor<1x4x8x32xf32>, tensor<1x4x0xf32>, tensor<i64>, tensor<i64>)
  return %r : tensor<1x4x8x32xf32>
}

// Only K is repeated: both stay as they are.
// CHECK-LABEL: func.func @gqa_only_k_repeated
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x8x32xf32>, %[[K:.*]]: tensor<1x2x8x32xf32>, %[[V:.*]]: tensor<1x4x8x32xf32>)
// CHECK: %[[KR:.*]] = magi.view {{.*}} -> tensor<1x4x8x32xf32>
// CHECK-NEXT: %[[R:.*]] = magi.attention %[[Q]], %[[KR]], %[[V]] : (tensor<1x4x8x32xf32>, tensor<1x4x8x32xf32>, tensor<1x4x8x32xf32>) -> tensor<1x4x8x32xf32>
func.func @gqa_only_k_repeated(%q: tensor<1x4x8x32xf32>, %k: tensor<1x2x8x32xf32>, %v: tensor<1x4x8x32xf32>) -> tensor<1x4x8x32xf32> {
  %k5 = magi.unsqueeze %k {dim = 2 : i64} : (tensor<1x2x8x32xf32>) -> tensor<1x2x1x8x32xf32>
  %ke = magi.expand %k5 [1, 2, 2, 8, 32] : tensor<1x2x1x8x32xf32> -> tensor<1x2x2x8x32xf32>
  %kr = magi.view %ke [1, 4, 8, 32] : tensor<1x2x2x8x32xf32> -> tensor<1x4x8x32xf32>
  %r, %lse, %seed, %off = magi.scaled_dot_product_efficient_attention %q, %kr, %v : (tensor<1x4x8x32xf32>, tensor<1x4x8x32xf32>, tensor<1x4x8x32xf32>) -> (tensor<1x4x8x32xf32>, tensor<1x4x0xf32>, tensor<i64>, tensor<i64>)
  return %r : tensor<1x4x8x32xf32>
}

// A repeat through unsqueeze(1) (not transformers' layout): not folded.
// CHECK-LABEL: func.func @repeat_unsqueeze_dim1
// CHECK: %[[KR:.*]] = magi.view {{.*}} -> tensor<1x4x8x32xf32>
// CHECK: %[[VR:.*]] = magi.view {{.*}} -> tensor<1x4x8x32xf32>
// CHECK-NEXT: magi.attention %arg0, %[[KR]], %[[VR]]
func.func @repeat_unsqueeze_dim1(%q: tensor<1x4x8x32xf32>, %k: tensor<1x2x8x32xf32>, %v: tensor<1x2x8x32xf32>) -> tensor<1x4x8x32xf32> {
  %k5 = magi.unsqueeze %k {dim = 1 : i64} : (tensor<1x2x8x32xf32>) -> tensor<1x1x2x8x32xf32>
  %ke = magi.expand %k5 [1, 2, 2, 8, 32] : tensor<1x1x2x8x32xf32> -> tensor<1x2x2x8x32xf32>
  %kr = magi.view %ke [1, 4, 8, 32] : tensor<1x2x2x8x32xf32> -> tensor<1x4x8x32xf32>
  %v5 = magi.unsqueeze %v {dim = 1 : i64} : (tensor<1x2x8x32xf32>) -> tensor<1x1x2x8x32xf32>
  %ve = magi.expand %v5 [1, 2, 2, 8, 32] : tensor<1x1x2x8x32xf32> -> tensor<1x2x2x8x32xf32>
  %vr = magi.view %ve [1, 4, 8, 32] : tensor<1x2x2x8x32xf32> -> tensor<1x4x8x32xf32>
  %r, %lse, %seed, %off = magi.scaled_dot_product_efficient_attention %q, %kr, %vr : (tensor<1x4x8x32xf32>, tensor<1x4x8x32xf32>, tensor<1x4x8x32xf32>) -> (tensor<1x4x8x32xf32>, tensor<1x4x0xf32>, tensor<i64>, tensor<i64>)
  return %r : tensor<1x4x8x32xf32>
}

// Negative: the log-sum-exp is used.
// CHECK-LABEL: func.func @lse_used
// CHECK-NOT: magi.attention
// CHECK: %[[R:.*]], %[[LSE:.*]], %{{.*}}, %{{.*}} = magi.scaled_dot_product_efficient_attention
// CHECK-NOT: magi.attention
// CHECK: return %[[R]], %[[LSE]]
func.func @lse_used(%q: tensor<2x4x40x16xf16>) -> (tensor<2x4x40x16xf16>, tensor<2x4x64xf32>) {
  %r, %lse, %seed, %off = magi.scaled_dot_product_efficient_attention %q, %q, %q {compute_log_sumexp = true} : (tensor<2x4x40x16xf16>, tensor<2x4x40x16xf16>, tensor<2x4x40x16xf16>) -> (tensor<2x4x40x16xf16>, tensor<2x4x64xf32>, tensor<i64>, tensor<i64>)
  return %r, %lse : tensor<2x4x40x16xf16>, tensor<2x4x64xf32>
}

// Negative: the RNG seed and offset are used (dropout replayed in backward).
// CHECK-LABEL: func.func @philox_used
// CHECK-NOT: magi.attention
// CHECK: magi.scaled_dot_product_efficient_attention
// CHECK-NOT: magi.attention
func.func @philox_used(%q: tensor<2x4x40x16xf16>) -> (tensor<2x4x40x16xf16>, tensor<i64>, tensor<i64>) {
  %r, %lse, %seed, %off = magi.scaled_dot_product_efficient_attention %q, %q, %q {dropout_p = 0.1 : f64} : (tensor<2x4x40x16xf16>, tensor<2x4x40x16xf16>, tensor<2x4x40x16xf16>) -> (tensor<2x4x40x16xf16>, tensor<2x4x0xf32>, tensor<i64>, tensor<i64>)
  return %r, %seed, %off : tensor<2x4x40x16xf16>, tensor<i64>, tensor<i64>
}

//===----------------------------------------------------------------------===//
// The math SDPA in primitive ops.
//===----------------------------------------------------------------------===//

// As BERT captures it: q and k^T each scaled by sqrt(scale), batched bmm
// through expand + view, an additive mask, _safe_softmax (softmax with
// all -inf rows set to 0), bmm with V. The scale is the product.
// CHECK-LABEL: func.func @math_bert
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x?x32xf32>, %[[K:.*]]: tensor<1x4x?x32xf32>, %[[V:.*]]: tensor<1x4x?x32xf32>, %[[M:.*]]: tensor<1x1x?x?xf32>, %[[N:.*]]: index)
// CHECK-NEXT: %[[R:.*]] = magi.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] {scale = 0.1767766952966369{{[0-9]*}} : f64} : (tensor<1x4x?x32xf32>, tensor<1x4x?x32xf32>, tensor<1x4x?x32xf32>, tensor<1x1x?x?xf32>) -> tensor<1x4x?x32xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: magi.bmm
// CHECK-NOT: magi.softmax
// CHECK-NOT: magi.where
func.func @math_bert(%q: tensor<1x4x?x32xf32>, %k: tensor<1x4x?x32xf32>, %v: tensor<1x4x?x32xf32>, %mask: tensor<1x1x?x?xf32>, %n: index) -> tensor<1x4x?x32xf32> {
  %cs = arith.constant 0.42044820762685731 : f64
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %qs = magi.mul %q, %cs : (tensor<1x4x?x32xf32>, f64) -> tensor<1x4x?x32xf32>
  %kt = magi.permute %k {dims = array<i64: 0, 1, 3, 2>} : (tensor<1x4x?x32xf32>) -> tensor<1x4x32x?xf32>
  %ks = magi.mul %kt, %cs : (tensor<1x4x32x?xf32>, f64) -> tensor<1x4x32x?xf32>
  %qe = magi.expand %qs [1, 4, %n, 32] : tensor<1x4x?x32xf32> -> tensor<1x4x?x32xf32>
  %qb = magi.view %qe [4, %n, 32] : tensor<1x4x?x32xf32> -> tensor<4x?x32xf32>
  %ke = magi.expand %ks [1, 4, 32, %n] : tensor<1x4x32x?xf32> -> tensor<1x4x32x?xf32>
  %kb = magi.view %ke [4, 32, %n] : tensor<1x4x32x?xf32> -> tensor<4x32x?xf32>
  %s = magi.bmm %qb, %kb : (tensor<4x?x32xf32>, tensor<4x32x?xf32>) -> tensor<4x?x?xf32>
  %s4 = magi.view %s [1, 4, %n, %n] : tensor<4x?x?xf32> -> tensor<1x4x?x?xf32>
  %sm = magi.add %s4, %mask : (tensor<1x4x?x?xf32>, tensor<1x1x?x?xf32>) -> tensor<1x4x?x?xf32>
  %p = magi.softmax %sm {dim = -1 : i64} : (tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32>
  %eq = magi.eq %sm, %ninf : (tensor<1x4x?x?xf32>, f64) -> tensor<1x4x?x?xi1>
  %ne = magi.logical_not %eq : (tensor<1x4x?x?xi1>) -> tensor<1x4x?x?xi1>
  %any = magi.any %ne {dims = array<i64: -1>, keepdim = true} : (tensor<1x4x?x?xi1>) -> tensor<1x4x?x1xi1>
  %none = magi.logical_not %any : (tensor<1x4x?x1xi1>) -> tensor<1x4x?x1xi1>
  %z = magi.full_like %p {dtype = f32, fill_value = 0.000000e+00 : f64} : (tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32>
  %ps = magi.where %none, %z, %p : (tensor<1x4x?x1xi1>, tensor<1x4x?x?xf32>, tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32>
  %pe = magi.expand %ps [1, 4, %n, %n] : tensor<1x4x?x?xf32> -> tensor<1x4x?x?xf32>
  %pb = magi.view %pe [4, %n, %n] : tensor<1x4x?x?xf32> -> tensor<4x?x?xf32>
  %ve = magi.expand %v [1, 4, %n, 32] : tensor<1x4x?x32xf32> -> tensor<1x4x?x32xf32>
  %vb = magi.view %ve [4, %n, 32] : tensor<1x4x?x32xf32> -> tensor<4x?x32xf32>
  %o = magi.bmm %pb, %vb : (tensor<4x?x?xf32>, tensor<4x?x32xf32>) -> tensor<4x?x32xf32>
  %o4 = magi.view %o [1, 4, %n, 32] : tensor<4x?x32xf32> -> tensor<1x4x?x32xf32>
  return %o4 : tensor<1x4x?x32xf32>
}

// A plain softmax, no mask, no scaling: scale 1, no mask operand.
// CHECK-LABEL: func.func @math_plain_softmax
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x8x16xf32>, %[[K:.*]]: tensor<2x4x8x16xf32>, %[[V:.*]]: tensor<2x4x8x16xf32>)
// CHECK-NEXT: %[[R:.*]] = magi.attention %[[Q]], %[[K]], %[[V]] {scale = 1.000000e+00 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @math_plain_softmax(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  %kt = magi.permute %k {dims = array<i64: 0, 1, 3, 2>} : (tensor<2x4x8x16xf32>) -> tensor<2x4x16x8xf32>
  %qb = magi.view %q [8, 8, 16] : tensor<2x4x8x16xf32> -> tensor<8x8x16xf32>
  %kb = magi.view %kt [8, 16, 8] : tensor<2x4x16x8xf32> -> tensor<8x16x8xf32>
  %s = magi.bmm %qb, %kb : (tensor<8x8x16xf32>, tensor<8x16x8xf32>) -> tensor<8x8x8xf32>
  %s4 = magi.view %s [2, 4, 8, 8] : tensor<8x8x8xf32> -> tensor<2x4x8x8xf32>
  %p = magi.softmax %s4 {dim = 3 : i64} : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %pb = magi.view %p [8, 8, 8] : tensor<2x4x8x8xf32> -> tensor<8x8x8xf32>
  %vb = magi.view %v [8, 8, 16] : tensor<2x4x8x16xf32> -> tensor<8x8x16xf32>
  %o = magi.bmm %pb, %vb : (tensor<8x8x8xf32>, tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
  %o4 = magi.view %o [2, 4, 8, 16] : tensor<8x8x16xf32> -> tensor<2x4x8x16xf32>
  return %o4 : tensor<2x4x8x16xf32>
}

// Negative: K is not transposed (permute 0, 2, 1, 3).
// CHECK-LABEL: func.func @math_wrong_transpose
// CHECK-NOT: magi.attention
// CHECK: magi.bmm
// CHECK-NOT: magi.attention
func.func @math_wrong_transpose(%q: tensor<2x8x8x8xf32>, %k: tensor<2x8x8x8xf32>, %v: tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32> {
  %kt = magi.permute %k {dims = array<i64: 0, 2, 1, 3>} : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %qb = magi.view %q [16, 8, 8] : tensor<2x8x8x8xf32> -> tensor<16x8x8xf32>
  %kb = magi.view %kt [16, 8, 8] : tensor<2x8x8x8xf32> -> tensor<16x8x8xf32>
  %s = magi.bmm %qb, %kb : (tensor<16x8x8xf32>, tensor<16x8x8xf32>) -> tensor<16x8x8xf32>
  %s4 = magi.view %s [2, 8, 8, 8] : tensor<16x8x8xf32> -> tensor<2x8x8x8xf32>
  %p = magi.softmax %s4 {dim = -1 : i64} : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %pb = magi.view %p [16, 8, 8] : tensor<2x8x8x8xf32> -> tensor<16x8x8xf32>
  %vb = magi.view %v [16, 8, 8] : tensor<2x8x8x8xf32> -> tensor<16x8x8xf32>
  %o = magi.bmm %pb, %vb : (tensor<16x8x8xf32>, tensor<16x8x8xf32>) -> tensor<16x8x8xf32>
  %o4 = magi.view %o [2, 8, 8, 8] : tensor<16x8x8xf32> -> tensor<2x8x8x8xf32>
  return %o4 : tensor<2x8x8x8xf32>
}

// Negative: softmax over the query dim instead of the key dim.
// CHECK-LABEL: func.func @math_softmax_wrong_dim
// CHECK-NOT: magi.attention
// CHECK: magi.softmax
// CHECK-NOT: magi.attention
func.func @math_softmax_wrong_dim(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  %kt = magi.permute %k {dims = array<i64: 0, 1, 3, 2>} : (tensor<2x4x8x16xf32>) -> tensor<2x4x16x8xf32>
  %qb = magi.view %q [8, 8, 16] : tensor<2x4x8x16xf32> -> tensor<8x8x16xf32>
  %kb = magi.view %kt [8, 16, 8] : tensor<2x4x16x8xf32> -> tensor<8x16x8xf32>
  %s = magi.bmm %qb, %kb : (tensor<8x8x16xf32>, tensor<8x16x8xf32>) -> tensor<8x8x8xf32>
  %s4 = magi.view %s [2, 4, 8, 8] : tensor<8x8x8xf32> -> tensor<2x4x8x8xf32>
  %p = magi.softmax %s4 {dim = 2 : i64} : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %pb = magi.view %p [8, 8, 8] : tensor<2x4x8x8xf32> -> tensor<8x8x8xf32>
  %vb = magi.view %v [8, 8, 16] : tensor<2x4x8x16xf32> -> tensor<8x8x16xf32>
  %o = magi.bmm %pb, %vb : (tensor<8x8x8xf32>, tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
  %o4 = magi.view %o [2, 4, 8, 16] : tensor<8x8x16xf32> -> tensor<2x4x8x16xf32>
  return %o4 : tensor<2x4x8x16xf32>
}

// Negative: a log_softmax is not a softmax.
// CHECK-LABEL: func.func @math_log_softmax
// CHECK-NOT: magi.attention
// CHECK: magi.log_softmax
// CHECK-NOT: magi.attention
func.func @math_log_softmax(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  %kt = magi.permute %k {dims = array<i64: 0, 1, 3, 2>} : (tensor<2x4x8x16xf32>) -> tensor<2x4x16x8xf32>
  %qb = magi.view %q [8, 8, 16] : tensor<2x4x8x16xf32> -> tensor<8x8x16xf32>
  %kb = magi.view %kt [8, 16, 8] : tensor<2x4x16x8xf32> -> tensor<8x16x8xf32>
  %s = magi.bmm %qb, %kb : (tensor<8x8x16xf32>, tensor<8x16x8xf32>) -> tensor<8x8x8xf32>
  %s4 = magi.view %s [2, 4, 8, 8] : tensor<8x8x8xf32> -> tensor<2x4x8x8xf32>
  %p = magi.log_softmax %s4 {dim = -1 : i64} : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %pb = magi.view %p [8, 8, 8] : tensor<2x4x8x8xf32> -> tensor<8x8x8xf32>
  %vb = magi.view %v [8, 8, 16] : tensor<2x4x8x16xf32> -> tensor<8x8x16xf32>
  %o = magi.bmm %pb, %vb : (tensor<8x8x8xf32>, tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
  %o4 = magi.view %o [2, 4, 8, 16] : tensor<8x8x16xf32> -> tensor<2x4x8x16xf32>
  return %o4 : tensor<2x4x8x16xf32>
}

// Negative: the "safe" where fills fully masked rows with 1, not 0.
// CHECK-LABEL: func.func @math_safe_softmax_fill_one
// CHECK-NOT: magi.attention
// CHECK: magi.where
// CHECK-NOT: magi.attention
func.func @math_safe_softmax_fill_one(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %kt = magi.permute %k {dims = array<i64: 0, 1, 3, 2>} : (tensor<2x4x8x16xf32>) -> tensor<2x4x16x8xf32>
  %qb = magi.view %q [8, 8, 16] : tensor<2x4x8x16xf32> -> tensor<8x8x16xf32>
  %kb = magi.view %kt [8, 16, 8] : tensor<2x4x16x8xf32> -> tensor<8x16x8xf32>
  %s = magi.bmm %qb, %kb : (tensor<8x8x16xf32>, tensor<8x16x8xf32>) -> tensor<8x8x8xf32>
  %s4 = magi.view %s [2, 4, 8, 8] : tensor<8x8x8xf32> -> tensor<2x4x8x8xf32>
  %p = magi.softmax %s4 {dim = -1 : i64} : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %eq = magi.eq %s4, %ninf : (tensor<2x4x8x8xf32>, f64) -> tensor<2x4x8x8xi1>
  %ne = magi.logical_not %eq : (tensor<2x4x8x8xi1>) -> tensor<2x4x8x8xi1>
  %any = magi.any %ne {dims = array<i64: -1>, keepdim = true} : (tensor<2x4x8x8xi1>) -> tensor<2x4x8x1xi1>
  %none = magi.logical_not %any : (tensor<2x4x8x1xi1>) -> tensor<2x4x8x1xi1>
  %z = magi.full_like %p {dtype = f32, fill_value = 1.000000e+00 : f64} : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %ps = magi.where %none, %z, %p : (tensor<2x4x8x1xi1>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %pb = magi.view %ps [8, 8, 8] : tensor<2x4x8x8xf32> -> tensor<8x8x8xf32>
  %vb = magi.view %v [8, 8, 16] : tensor<2x4x8x16xf32> -> tensor<8x8x16xf32>
  %o = magi.bmm %pb, %vb : (tensor<8x8x8xf32>, tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
  %o4 = magi.view %o [2, 4, 8, 16] : tensor<8x8x16xf32> -> tensor<2x4x8x16xf32>
  return %o4 : tensor<2x4x8x16xf32>
}
