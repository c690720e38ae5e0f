// Matrix products, normalization, softmax, fused ops and attention.

// RUN: magi-interp %s --function=matmul | FileCheck %s --check-prefix=MM
// RUN: magi-interp %s --function=norms | FileCheck %s --check-prefix=NORM
// RUN: magi-interp %s --function=fused | FileCheck %s --check-prefix=FUSED
// RUN: magi-interp %s --function=attention | FileCheck %s --check-prefix=ATTN
// RUN: magi-interp %s --function=efficient_attention | FileCheck %s --check-prefix=EFF

// MM:      out0: tensor<2x2xf32> = {{\[}}[19, 22], [43, 50]]
// MM-NEXT: out1: tensor<2x2x2xf32> = {{\[}}{{\[}}[19, 22], [43, 50]], {{\[}}[1, 2], [3, 4]]]
// MM-NEXT: out2: tensor<2x2xf32> = {{\[}}[11.5, 9], [23.5, 23]]
// MM-NEXT: out3: tensor<1x1xbf16> = {{\[}}[258]]
// MM-NEXT: out4: tensor<2x2xi64> = {{\[}}[19, 22], [43, 50]]
// MM-NEXT: out5: tensor<2x2xf32> = {{\[}}[19, 22], [43, 50]]
// MM-NEXT: out6: tensor<2x2x2xf32> = {{\[}}{{\[}}[19, 22], [43, 50]], {{\[}}[1, 2], [3, 4]]]
// MM-NEXT: out7: tensor<2x2xf32> = {{\[}}[11.5, 9], [23.5, 23]]
func.func @matmul() -> (tensor<2x2xf32>, tensor<2x2x2xf32>, tensor<2x2xf32>, tensor<1x1xbf16>, tensor<2x2xi64>, tensor<2x2xf32>, tensor<2x2x2xf32>, tensor<2x2xf32>) {
  %a = magi.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = magi.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %mm = magi.mm %a, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %id = magi.constant dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %a3 = magi.cat %a, %id {dim = 0 : i64} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %a3v = magi.view %a3 [2, 2, 2] : tensor<4x2xf32> -> tensor<2x2x2xf32>
  %b3 = magi.cat %b, %a {dim = 0 : i64} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %b3v = magi.view %b3 [2, 2, 2] : tensor<4x2xf32> -> tensor<2x2x2xf32>
  %bmm = magi.bmm %a3v, %b3v : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  // beta * self + alpha * (mat1 @ mat2), self broadcast along rows.
  %bias = magi.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %addmm = magi.addmm %bias, %a, %b {beta = 2.0 : f64, alpha = 0.5 : f64} : (tensor<2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // bf16 products accumulate in (at least) f32: 256 + 1 + 1 is 258, where a
  // bf16 accumulator would stay at 256.
  %x = magi.constant dense<[[256.0, 1.0, 1.0]]> : tensor<1x3xbf16>
  %ones = magi.constant dense<1.0> : tensor<3x1xbf16>
  %acc = magi.mm %x, %ones : (tensor<1x3xbf16>, tensor<3x1xbf16>) -> tensor<1x1xbf16>
  %ai = magi.to_copy %a {dtype = i64} : (tensor<2x2xf32>) -> tensor<2x2xi64>
  %bi = magi.to_copy %b {dtype = i64} : (tensor<2x2xf32>) -> tensor<2x2xi64>
  %mmi = magi.mm %ai, %bi : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
  // transpose_* flags read an operand with its last two dimensions swapped.
  %at = magi.permute %a {dims = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %bt = magi.permute %b {dims = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %mmt = magi.mm %at, %bt {transpose_self, transpose_mat2} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %b3t = magi.permute %b3v {dims = array<i64: 0, 2, 1>} : (tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  %bmmt = magi.bmm %a3v, %b3t {transpose_mat2} : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  %addmmt = magi.addmm %bias, %at, %b {beta = 2.0 : f64, alpha = 0.5 : f64, transpose_mat1} : (tensor<2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %mm, %bmm, %addmm, %acc, %mmi, %mmt, %bmmt, %addmmt : tensor<2x2xf32>, tensor<2x2x2xf32>, tensor<2x2xf32>, tensor<1x1xbf16>, tensor<2x2xi64>, tensor<2x2xf32>, tensor<2x2x2xf32>, tensor<2x2xf32>
}

// NORM:      out0: tensor<2x4xf32> = {{\[}}[-1.3416408, -0.4472136, 0.8944272, 3.6832817], [-1.3416408, -0.4472136, 0.8944272, 3.6832817]]
// NORM-NEXT: out1: tensor<2x1xf32> = {{\[}}[2.5], [25]]
// NORM-NEXT: out2: tensor<2x1xf32> = {{\[}}[0.8944272], [0.08944272]]
// NORM-NEXT: out3: tensor<2x4xbf16> = {{\[}}[-1.34, -0.447, 0.447, 1.34], [-1.34, -0.447, 0.447, 1.34]]
// NORM-NEXT: out4: tensor<2x1xf32> = {{\[}}[2.5], [25]]
// NORM-NEXT: out5: tensor<1x2xbf16> = {{\[}}[1.695, 0.566]]
func.func @norms() -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x4xbf16>, tensor<2x1xf32>, tensor<1x2xbf16>) {
  %x = magi.constant dense<[[1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0]]> : tensor<2x4xf32>
  %w = magi.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %b = magi.constant dense<[0.0, 0.0, 0.0, 1.0]> : tensor<4xf32>
  // Biased variance; mean and rstd keep the leading dimensions.
  %y, %mean, %rstd = magi.native_layer_norm %x weight %w bias %b {eps = 0.0 : f64, normalized_ndim = 1 : i64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  // bf16: statistics in f32 and one rounding of the result.
  %xb = magi.to_copy %x {dtype = bf16} : (tensor<2x4xf32>) -> tensor<2x4xbf16>
  %yb, %meanb, %rstdb = magi.native_layer_norm %xb {eps = 0.0 : f64, normalized_ndim = 1 : i64} : (tensor<2x4xbf16>) -> (tensor<2x4xbf16>, tensor<2x1xf32>, tensor<2x1xf32>)
  %yl = magi.layer_norm %xb {eps = 0.0 : f64, normalized_ndim = 1 : i64} : (tensor<2x4xbf16>) -> tensor<2x4xbf16>
  %same = magi.eq %yl, %yb : (tensor<2x4xbf16>, tensor<2x4xbf16>) -> tensor<2x4xi1>
  %ok = magi.all %same : (tensor<2x4xi1>) -> tensor<i1>
  magi.assert_tensor_metadata %ok {dtype = i1} : tensor<i1>
  // rms_norm rounds to the input dtype before the weight multiplies:
  // [3, 4] * rsqrt(12.5) = [0.8485, 1.1314] -> bf16 [0.8477, 1.133] -> * [2, 0.5].
  %r = magi.constant dense<[[3.0, 4.0]]> : tensor<1x2xbf16>
  %rw = magi.constant dense<[2.0, 0.5]> : tensor<2xbf16>
  %rms = magi.rms_norm %r weight %rw {eps = 0.0 : f64} : (tensor<1x2xbf16>, tensor<2xbf16>) -> tensor<1x2xbf16>
  return %y, %mean, %rstd, %yl, %meanb, %rms : tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x4xbf16>, tensor<2x1xf32>, tensor<1x2xbf16>
}

// FUSED:      out0: tensor<2x3xf32> = {{\[}}[0.09003057, 0.24472848, 0.66524094], [0.33333334, 0.33333334, 0.33333334]]
// FUSED-NEXT: out1: tensor<2x3xf32> = {{\[}}[-2.407606, -1.407606, -0.40760598], [-1.0986123, -1.0986123, -1.0986123]]
// FUSED-NEXT: out2: tensor<2x3xf32> = {{\[}}[0.09003057, 0.24472848, 0.66524094], [0.33333334, 0.33333334, 0.33333334]]
// FUSED-NEXT: out3: tensor<2xf32> = [0, 2.1931758]
// FUSED-NEXT: out4: tensor<1x4xf32> = {{\[}}[-1, -1, 2, 3]]
func.func @fused() -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<1x4xf32>) {
  %x = magi.constant dense<[[1.0, 2.0, 3.0], [5.0, 5.0, 5.0]]> : tensor<2x3xf32>
  %sm = magi.softmax %x {dim = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %lsm = magi.log_softmax %x {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // half_to_float: a bf16 input gives an f32 result.
  %xb = magi.to_copy %x {dtype = bf16} : (tensor<2x3xf32>) -> tensor<2x3xbf16>
  %smb = magi.softmax %xb {dim = 1 : i64, half_to_float = true} : (tensor<2x3xbf16>) -> tensor<2x3xf32>
  %gate = magi.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %up = magi.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %swiglu = magi.silu_and_mul %gate, %up : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  // x * cos + rotate_half(x) * sin, rotate_half([1, 2, 3, 4]) = [-3, -4, 1, 2].
  %v = magi.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %half = magi.constant dense<0.5> : tensor<4xf32>
  %rope = magi.rotary_embedding %v, %half, %half : (tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  return %sm, %lsm, %smb, %swiglu, %rope : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<1x4xf32>
}

// Two query heads share one key/value head (GQA). Keys: k0 = [ln 4, 0],
// k1 = [0, 0]; values v0 = [4, 0], v1 = [0, 4]. A query [1, 0] weighs the
// values 4:1 (-> [3.2, 0.8]), a zero query 1:1 (-> [2, 2]).
// ATTN:      out0: tensor<1x2x2x2xf32> = {{\[}}{{\[}}{{\[}}[3.2, 0.8], [2, 2]], {{\[}}[2, 2], [3.2, 0.8]]]]
// ATTN-NEXT: out1: tensor<1x2x2x2xf32> = {{\[}}{{\[}}{{\[}}[4, 0], [2, 2]], {{\[}}[4, 0], [3.2, 0.8]]]]
// ATTN-NEXT: out2: tensor<1x2x2x2xf32> = {{\[}}{{\[}}{{\[}}[4, 0], [0, 4]], {{\[}}[4, 0], [0, 4]]]]
// ATTN-NEXT: out3: tensor<1x2x2x2xf32> = {{\[}}{{\[}}{{\[}}[4, 0], [2, 2]], {{\[}}[4, 0], [3.2, 0.8]]]]
// ATTN-NEXT: out4: tensor<2x2xf32> = {{\[}}[3.2, 0.8], [2, 2]]
func.func @attention() -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<2x2xf32>) {
  %q = magi.constant dense<[[[[1.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [1.0, 0.0]]]]> : tensor<1x2x2x2xf32>
  %k = magi.constant dense<[[[[1.3862943611198906, 0.0], [0.0, 0.0]]]]> : tensor<1x1x2x2xf32>
  %v = magi.constant dense<[[[[4.0, 0.0], [0.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %plain = magi.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<1x2x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32>
  // Causal: query i sees keys j <= i.
  %causal = magi.attention %q, %k, %v {is_causal = true, scale = 1.0 : f64} : (tensor<1x2x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32>
  // A boolean mask keeps `true`; it broadcasts over batch and heads.
  %eye = magi.constant dense<[[true, false], [false, true]]> : tensor<2x2xi1>
  %masked = magi.attention %q, %k, %v mask %eye {scale = 1.0 : f64} : (tensor<1x2x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<2x2xi1>) -> tensor<1x2x2x2xf32>
  // An additive mask; the default scale is 1/sqrt(E) = 1/sqrt(2).
  %ninf = magi.constant dense<[[0.0, 0xFF800000], [0.0, 0.0]]> : tensor<2x2xf32>
  %sqrt2 = arith.constant 1.4142135623730951 : f64
  %qs = magi.mul %q, %sqrt2 : (tensor<1x2x2x2xf32>, f64) -> tensor<1x2x2x2xf32>
  %additive = magi.attention %qs, %k, %v mask %ninf : (tensor<1x2x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2x2xf32>
  // Rank 2: no batch or head dimensions.
  %q2 = magi.view %q [4, 2] : tensor<1x2x2x2xf32> -> tensor<4x2xf32>
  %q2s = magi.slice %q2, 0 [0, 2, 1] : tensor<4x2xf32> -> tensor<2x2xf32>
  %k2 = magi.view %k [2, 2] : tensor<1x1x2x2xf32> -> tensor<2x2xf32>
  %v2 = magi.view %v [2, 2] : tensor<1x1x2x2xf32> -> tensor<2x2xf32>
  %flat = magi.attention %q2s, %k2, %v2 {scale = 1.0 : f64} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %plain, %causal, %masked, %additive, %flat : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<2x2xf32>
}

// EFF:      out0: tensor<1x1x2x2xbf16> = {{\[}}{{\[}}{{\[}}[3, 1], [2, 2]]]]
// EFF-NEXT: out1: tensor<1x1x0xf32> = {{\[}}{{\[}}[]]]
// EFF-NEXT: out2: tensor<i64> = 0
// EFF-NEXT: out3: tensor<i64> = 0
// EFF-NEXT: out4: tensor<1x1x4xf32> = {{\[}}{{\[}}[0.6931472, 0.6931472, inf, inf]]]
// EFF-NEXT: out5: tensor<1x1x2x2xbf16> = {{\[}}{{\[}}{{\[}}[4, 0], [2, 2]]]]
func.func @efficient_attention() -> (tensor<1x1x2x2xbf16>, tensor<1x1x0xf32>, tensor<i64>, tensor<i64>, tensor<1x1x4xf32>, tensor<1x1x2x2xbf16>) {
  // ln 3 is no bf16, so it comes in through the scale: q = k = [[1, 0],
  // [0, 0]] give the scores [[ln 3, 0], [0, 0]].
  %q = magi.constant dense<[[[[1.0, 0.0], [0.0, 0.0]]]]> : tensor<1x1x2x2xbf16>
  %v = magi.constant dense<[[[[4.0, 0.0], [0.0, 4.0]]]]> : tensor<1x1x2x2xbf16>
  %out, %lse, %seed, %offset = magi.scaled_dot_product_efficient_attention %q, %q, %v {scale = 1.0986122886681098 : f64} : (tensor<1x1x2x2xbf16>, tensor<1x1x2x2xbf16>, tensor<1x1x2x2xbf16>) -> (tensor<1x1x2x2xbf16>, tensor<1x1x0xf32>, tensor<i64>, tensor<i64>)
  // With the log-sum-exp (padded to a multiple of 32 with +inf), causal, and
  // scale ln 2: row 0 sees key 0 alone (lse = ln 2), row 1 two zero scores
  // (lse = ln 2).
  %bias = magi.constant dense<0.0> : tensor<1x1x2x2xbf16>
  %out2, %lse2, %seed2, %offset2 = magi.scaled_dot_product_efficient_attention %q, %q, %v bias %bias {compute_log_sumexp = true, is_causal = true, scale = 0.6931471805599453 : f64} : (tensor<1x1x2x2xbf16>, tensor<1x1x2x2xbf16>, tensor<1x1x2x2xbf16>, tensor<1x1x2x2xbf16>) -> (tensor<1x1x2x2xbf16>, tensor<1x1x32xf32>, tensor<i64>, tensor<i64>)
  %lse4 = magi.slice %lse2, 2 [0, 4, 1] : tensor<1x1x32xf32> -> tensor<1x1x4xf32>
  return %out, %lse, %seed, %offset, %lse4, %out2 : tensor<1x1x2x2xbf16>, tensor<1x1x0xf32>, tensor<i64>, tensor<i64>, tensor<1x1x4xf32>, tensor<1x1x2x2xbf16>
}
