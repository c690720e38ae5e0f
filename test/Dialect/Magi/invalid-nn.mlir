// RUN: magi-opt %s -split-input-file -verify-diagnostics

// Verifier and inference errors of the normalization, softmax, attention and
// fused ops.

func.func @native_layer_norm_ndim_zero(%x: tensor<2x4x8xf32>) {
  // expected-error @+2 {{normalized_ndim 0 must be in [1, rank] for a tensor of rank 3}}
  // expected-error @+1 {{'magi.native_layer_norm' op failed to infer returned types}}
  %0:3 = magi.native_layer_norm %x {normalized_ndim = 0 : i64, eps = 1.0e-5 : f64} : (tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>)
  return
}

// -----

func.func @native_layer_norm_ndim_too_large(%x: tensor<2x4x8xf32>) {
  // expected-error @+2 {{normalized_ndim 4 must be in [1, rank] for a tensor of rank 3}}
  // expected-error @+1 {{'magi.native_layer_norm' op failed to infer returned types}}
  %0:3 = magi.native_layer_norm %x {normalized_ndim = 4 : i64, eps = 1.0e-5 : f64} : (tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<1x1x1xf32>, tensor<1x1x1xf32>)
  return
}

// -----

func.func @native_layer_norm_weight_rank(%x: tensor<2x4x8xf32>, %w: tensor<4x8xf32>) {
  // expected-error @+2 {{weight must have rank 1 (the normalized shape), got 2}}
  // expected-error @+1 {{'magi.native_layer_norm' op failed to infer returned types}}
  %0:3 = magi.native_layer_norm %x weight %w {normalized_ndim = 1 : i64, eps = 1.0e-5 : f64} : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>)
  return
}

// -----

func.func @native_layer_norm_bias_size(%x: tensor<2x4x8xf32>, %b: tensor<16xf32>) {
  // expected-error @+2 {{bias and input sizes do not match: 16 vs 8}}
  // expected-error @+1 {{'magi.native_layer_norm' op failed to infer returned types}}
  %0:3 = magi.native_layer_norm %x bias %b {normalized_ndim = 1 : i64, eps = 1.0e-5 : f64} : (tensor<2x4x8xf32>, tensor<16xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>)
  return
}

// -----

func.func @native_layer_norm_half_stats(%x: tensor<2x8xbf16>) {
  // Statistics of a bf16 input are f32.
  // expected-error @+2 {{'magi.native_layer_norm' op inferred type(s) 'tensor<2x8xbf16>', 'tensor<2x1xf32>', 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2x8xbf16>', 'tensor<2x1xbf16>', 'tensor<2x1xbf16>'}}
  // expected-error @+1 {{'magi.native_layer_norm' op failed to infer returned types}}
  %0:3 = magi.native_layer_norm %x {normalized_ndim = 1 : i64, eps = 1.0e-5 : f64} : (tensor<2x8xbf16>) -> (tensor<2x8xbf16>, tensor<2x1xbf16>, tensor<2x1xbf16>)
  return
}

// -----

func.func @native_layer_norm_missing_eps(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'magi.native_layer_norm' op requires attribute 'eps'}}
  %0:3 = magi.native_layer_norm %x {normalized_ndim = 1 : i64} : (tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @layer_norm_weight_size(%x: tensor<2x4x8xf32>, %w: tensor<4x7xf32>) {
  // expected-error @+2 {{weight and input sizes do not match: 7 vs 8}}
  // expected-error @+1 {{'magi.layer_norm' op failed to infer returned types}}
  %0 = magi.layer_norm %x weight %w {normalized_ndim = 2 : i64, eps = 1.0e-5 : f64} : (tensor<2x4x8xf32>, tensor<4x7xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @layer_norm_bias_rank(%x: tensor<2x4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+2 {{bias must have rank 2 (the normalized shape), got 1}}
  // expected-error @+1 {{'magi.layer_norm' op failed to infer returned types}}
  %0 = magi.layer_norm %x bias %b {normalized_ndim = 2 : i64, eps = 1.0e-5 : f64} : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @layer_norm_ndim(%x: tensor<8xf32>) {
  // expected-error @+2 {{normalized_ndim 2 must be in [1, rank] for a tensor of rank 1}}
  // expected-error @+1 {{'magi.layer_norm' op failed to infer returned types}}
  %0 = magi.layer_norm %x {normalized_ndim = 2 : i64, eps = 1.0e-5 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @rms_norm_0d(%x: tensor<f32>) {
  // expected-error @+2 {{rms_norm needs a tensor of rank >= 1}}
  // expected-error @+1 {{'magi.rms_norm' op failed to infer returned types}}
  %0 = magi.rms_norm %x {eps = 1.0e-6 : f64} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @rms_norm_integer(%x: tensor<4x8xi32>) {
  // expected-error @+2 {{rms_norm needs a floating-point input, got 'i32'}}
  // expected-error @+1 {{'magi.rms_norm' op failed to infer returned types}}
  %0 = magi.rms_norm %x {eps = 1.0e-6 : f64} : (tensor<4x8xi32>) -> tensor<4x8xi32>
  return
}

// -----

func.func @rms_norm_weight_size(%x: tensor<4x8xbf16>, %w: tensor<16xbf16>) {
  // expected-error @+2 {{weight and input sizes do not match: 16 vs 8}}
  // expected-error @+1 {{'magi.rms_norm' op failed to infer returned types}}
  %0 = magi.rms_norm %x weight %w {eps = 1.0e-6 : f64} : (tensor<4x8xbf16>, tensor<16xbf16>) -> tensor<4x8xbf16>
  return
}

// -----

func.func @rms_norm_weight_rank(%x: tensor<4x8xbf16>, %w: tensor<4x8xbf16>) {
  // expected-error @+2 {{weight must have rank 1 (the normalized shape), got 2}}
  // expected-error @+1 {{'magi.rms_norm' op failed to infer returned types}}
  %0 = magi.rms_norm %x weight %w {eps = 1.0e-6 : f64} : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
  return
}

// -----

func.func @rms_norm_promoted_dtype(%x: tensor<4x8xbf16>, %w: tensor<8xf32>) {
  // expected-error @+2 {{'magi.rms_norm' op inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x8xbf16>'}}
  // expected-error @+1 {{'magi.rms_norm' op failed to infer returned types}}
  %0 = magi.rms_norm %x weight %w {eps = 1.0e-6 : f64} : (tensor<4x8xbf16>, tensor<8xf32>) -> tensor<4x8xbf16>
  return
}

// -----

func.func @silu_and_mul_broadcast(%g: tensor<4x8xf32>, %u: tensor<4x16xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 8 vs 16 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.silu_and_mul' op failed to infer returned types}}
  %0 = magi.silu_and_mul %g, %u : (tensor<4x8xf32>, tensor<4x16xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @rotary_odd_last_dim(%x: tensor<1x4x?x127xbf16>, %c: tensor<?x127xbf16>) {
  // expected-error @+1 {{'magi.rotary_embedding' op the last dimension of x must be even to rotate halves, got 127}}
  %0 = magi.rotary_embedding %x, %c, %c : (tensor<1x4x?x127xbf16>, tensor<?x127xbf16>, tensor<?x127xbf16>) -> tensor<1x4x?x127xbf16>
  return
}

// -----

func.func @rotary_0d(%x: tensor<f32>) {
  // expected-error @+1 {{'magi.rotary_embedding' op x must have rank >= 1}}
  %0 = magi.rotary_embedding %x, %x, %x : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @rotary_broadcast(%x: tensor<2x8xf32>, %c: tensor<3x8xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 2 vs 3 in dimension 0 of the broadcast shape}}
  // expected-error @+1 {{'magi.rotary_embedding' op failed to infer returned types}}
  %0 = magi.rotary_embedding %x, %c, %c : (tensor<2x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @softmax_integer(%x: tensor<4x8xi64>) {
  // expected-error @+2 {{softmax needs a floating-point input, got 'i64'}}
  // expected-error @+1 {{'magi.softmax' op failed to infer returned types}}
  %0 = magi.softmax %x {dim = -1 : i64} : (tensor<4x8xi64>) -> tensor<4x8xf32>
  return
}

// -----

func.func @softmax_dim_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{dimension 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.softmax' op failed to infer returned types}}
  %0 = magi.softmax %x {dim = 2 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @softmax_half_to_float_f32(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{half_to_float needs an f16 or bf16 input, got 'f32'}}
  // expected-error @+1 {{'magi.softmax' op failed to infer returned types}}
  %0 = magi.softmax %x {dim = 1 : i64, half_to_float = true} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @softmax_half_wrong_dtype(%x: tensor<4x8xf16>) {
  // Without half_to_float the result stays f16.
  // expected-error @+2 {{'magi.softmax' op inferred type(s) 'tensor<4x8xf16>' are incompatible with return type(s) of operation 'tensor<4x8xf32>'}}
  // expected-error @+1 {{'magi.softmax' op failed to infer returned types}}
  %0 = magi.softmax %x {dim = 1 : i64} : (tensor<4x8xf16>) -> tensor<4x8xf32>
  return
}

// -----

func.func @log_softmax_integer(%x: tensor<4x8xi32>) {
  // expected-error @+2 {{softmax needs a floating-point input, got 'i32'}}
  // expected-error @+1 {{'magi.log_softmax' op failed to infer returned types}}
  %0 = magi.log_softmax %x {dim = 0 : i64} : (tensor<4x8xi32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @log_softmax_dim_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{dimension -3 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.log_softmax' op failed to infer returned types}}
  %0 = magi.log_softmax %x {dim = -3 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @attention_gqa_not_multiple(%q: tensor<1x32x?x128xbf16>, %kv: tensor<1x6x?x128xbf16>) {
  // expected-error @+2 {{query heads (32) must be a multiple of key/value heads (6)}}
  // expected-error @+1 {{'magi.attention' op failed to infer returned types}}
  %0 = magi.attention %q, %kv, %kv : (tensor<1x32x?x128xbf16>, tensor<1x6x?x128xbf16>, tensor<1x6x?x128xbf16>) -> tensor<1x32x?x128xbf16>
  return
}

// -----

func.func @attention_gqa_fewer_query_heads(%q: tensor<1x4x?x128xbf16>, %kv: tensor<1x8x?x128xbf16>) {
  // expected-error @+2 {{query heads (4) must be a multiple of key/value heads (8)}}
  // expected-error @+1 {{'magi.attention' op failed to infer returned types}}
  %0 = magi.attention %q, %kv, %kv : (tensor<1x4x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x8x?x128xbf16>) -> tensor<1x4x?x128xbf16>
  return
}

// -----

func.func @attention_layout_rank(%q: tensor<1x?x128xbf16>) {
  // expected-error @+2 {{layout 'bshd' needs query, key and value of rank 4}}
  // expected-error @+1 {{'magi.attention' op failed to infer returned types}}
  %0 = magi.attention %q, %q, %q {layout = "bshd"} : (tensor<1x?x128xbf16>, tensor<1x?x128xbf16>, tensor<1x?x128xbf16>) -> tensor<1x?x128xbf16>
  return
}

// -----

func.func @attention_layout_unknown(%q: tensor<1x4x?x128xbf16>) {
  // expected-error @+2 {{layout must be 'bhsd' or 'bshd', got 'bsdh'}}
  // expected-error @+1 {{'magi.attention' op failed to infer returned types}}
  %0 = magi.attention %q, %q, %q {layout = "bsdh"} : (tensor<1x4x?x128xbf16>, tensor<1x4x?x128xbf16>, tensor<1x4x?x128xbf16>) -> tensor<1x4x?x128xbf16>
  return
}

// -----

// In layout bshd the heads are dimension 2: 32 query heads on 6 do not group.
func.func @attention_layout_gqa(%q: tensor<1x?x32x128xbf16>, %kv: tensor<1x?x6x128xbf16>) {
  // expected-error @+2 {{query heads (32) must be a multiple of key/value heads (6)}}
  // expected-error @+1 {{'magi.attention' op failed to infer returned types}}
  %0 = magi.attention %q, %kv, %kv {layout = "bshd"} : (tensor<1x?x32x128xbf16>, tensor<1x?x6x128xbf16>, tensor<1x?x6x128xbf16>) -> tensor<1x?x32x128xbf16>
  return
}

// -----

func.func @attention_kv_heads_mismatch(%q: tensor<1x32x?x128xbf16>, %k: tensor<1x8x?x128xbf16>, %v: tensor<1x4x?x128xbf16>) {
  // expected-error @+2 {{key and value head counts do not match: 8 vs 4}}
  // expected-error @+1 {{'magi.attention' op failed to infer returned types}}
  %0 = magi.attention %q, %k, %v : (tensor<1x32x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x4x?x128xbf16>) -> tensor<1x32x?x128xbf16>
  return
}

// -----

func.func @attention_head_size_mismatch(%q: tensor<1x8x16x128xf32>, %k: tensor<1x8x16x64xf32>) {
  // expected-error @+2 {{query and key head sizes do not match: 128 vs 64}}
  // expected-error @+1 {{'magi.attention' op failed to infer returned types}}
  %0 = magi.attention %q, %k, %k : (tensor<1x8x16x128xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32>
  return
}

// -----

func.func @attention_sequence_mismatch(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x20x64xf32>, %v: tensor<1x8x24x64xf32>) {
  // expected-error @+2 {{key and value sequence lengths do not match: 20 vs 24}}
  // expected-error @+1 {{'magi.attention' op failed to infer returned types}}
  %0 = magi.attention %q, %k, %v : (tensor<1x8x16x64xf32>, tensor<1x8x20x64xf32>, tensor<1x8x24x64xf32>) -> tensor<1x8x16x64xf32>
  return
}

// -----

func.func @attention_batch_mismatch(%q: tensor<2x8x16x64xf32>, %k: tensor<3x8x16x64xf32>) {
  // expected-error @+2 {{batch sizes do not match: 2 vs 3}}
  // expected-error @+1 {{'magi.attention' op failed to infer returned types}}
  %0 = magi.attention %q, %k, %k : (tensor<2x8x16x64xf32>, tensor<3x8x16x64xf32>, tensor<3x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @attention_rank_mismatch(%q: tensor<8x16x64xf32>, %k: tensor<1x8x16x64xf32>) {
  // expected-error @+2 {{query, key and value must have the same rank >= 2, got 3, 4, 4}}
  // expected-error @+1 {{'magi.attention' op failed to infer returned types}}
  %0 = magi.attention %q, %k, %k : (tensor<8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>) -> tensor<8x16x64xf32>
  return
}

// -----

func.func @attention_rank_1(%q: tensor<64xf32>) {
  // expected-error @+2 {{query, key and value must have the same rank >= 2, got 1, 1, 1}}
  // expected-error @+1 {{'magi.attention' op failed to infer returned types}}
  %0 = magi.attention %q, %q, %q : (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return
}

// -----

func.func @attention_dtype_mismatch(%q: tensor<1x8x16x64xbf16>, %k: tensor<1x8x16x64xf16>) {
  // expected-error @+2 {{query, key and value must have the same dtype}}
  // expected-error @+1 {{'magi.attention' op failed to infer returned types}}
  %0 = magi.attention %q, %k, %k : (tensor<1x8x16x64xbf16>, tensor<1x8x16x64xf16>, tensor<1x8x16x64xf16>) -> tensor<1x8x16x64xbf16>
  return
}

// -----

func.func @attention_wrong_result(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x20x64xf32>, %v: tensor<1x8x20x32xf32>) {
  // The result takes the value's head size.
  // expected-error @+2 {{'magi.attention' op inferred type(s) 'tensor<1x8x16x32xf32>' are incompatible with return type(s) of operation 'tensor<1x8x16x64xf32>'}}
  // expected-error @+1 {{'magi.attention' op failed to infer returned types}}
  %0 = magi.attention %q, %k, %v : (tensor<1x8x16x64xf32>, tensor<1x8x20x64xf32>, tensor<1x8x20x32xf32>) -> tensor<1x8x16x64xf32>
  return
}

// -----

func.func @efficient_attention_not_4d(%q: tensor<8x16x64xf32>) {
  // expected-error @+2 {{query must be 4-d [B, H, L, E], got rank 3}}
  // expected-error @+1 {{'magi.scaled_dot_product_efficient_attention' op failed to infer returned types}}
  %0:4 = magi.scaled_dot_product_efficient_attention %q, %q, %q : (tensor<8x16x64xf32>, tensor<8x16x64xf32>, tensor<8x16x64xf32>) -> (tensor<8x16x64xf32>, tensor<8x16x0xf32>, tensor<i64>, tensor<i64>)
  return
}

// -----

func.func @cudnn_attention_not_4d(%q: tensor<8x16x64xbf16>) {
  // expected-error @+1 {{'magi.scaled_dot_product_cudnn_attention' op query must be 4-d [B, H, L, E], got rank 3}}
  %0:6 = magi.scaled_dot_product_cudnn_attention %q, %q, %q : (tensor<8x16x64xbf16>, tensor<8x16x64xbf16>, tensor<8x16x64xbf16>) -> (tensor<8x16x64xbf16>, tensor<8x16x1xf32>, index, index, tensor<i64>, tensor<i64>)
  return
}

// -----

func.func @cudnn_attention_result(%q: tensor<1x2x16x64xbf16>, %v: tensor<1x2x16x32xbf16>) {
  // expected-error @+1 {{'magi.scaled_dot_product_cudnn_attention' op result 'tensor<1x2x16x64xbf16>' is not the attention's 'tensor<1x2x16x32xbf16>'}}
  %0:6 = magi.scaled_dot_product_cudnn_attention %q, %q, %v : (tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x32xbf16>) -> (tensor<1x2x16x64xbf16>, tensor<1x2x16x1xf32>, index, index, tensor<i64>, tensor<i64>)
  return
}

// -----

func.func @efficient_attention_no_gqa(%q: tensor<1x32x16x64xf32>, %kv: tensor<1x8x16x64xf32>) {
  // expected-error @+2 {{query and key head counts differ (32 vs 8)}}
  // expected-error @+1 {{'magi.scaled_dot_product_efficient_attention' op failed to infer returned types}}
  %0:4 = magi.scaled_dot_product_efficient_attention %q, %kv, %kv : (tensor<1x32x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>) -> (tensor<1x32x16x64xf32>, tensor<1x32x0xf32>, tensor<i64>, tensor<i64>)
  return
}

// -----

func.func @efficient_attention_lse_length(%q: tensor<1x4x40x64xf32>) {
  // The log-sum-exp length rounds up to a multiple of 32.
  // expected-error @+2 {{'magi.scaled_dot_product_efficient_attention' op inferred type(s) 'tensor<1x4x40x64xf32>', 'tensor<1x4x64xf32>', 'tensor<i64>', 'tensor<i64>' are incompatible with return type(s) of operation 'tensor<1x4x40x64xf32>', 'tensor<1x4x40xf32>', 'tensor<i64>', 'tensor<i64>'}}
  // expected-error @+1 {{'magi.scaled_dot_product_efficient_attention' op failed to infer returned types}}
  %0:4 = magi.scaled_dot_product_efficient_attention %q, %q, %q {compute_log_sumexp = true} : (tensor<1x4x40x64xf32>, tensor<1x4x40x64xf32>, tensor<1x4x40x64xf32>) -> (tensor<1x4x40x64xf32>, tensor<1x4x40xf32>, tensor<i64>, tensor<i64>)
  return
}
