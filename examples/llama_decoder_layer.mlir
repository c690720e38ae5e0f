// One LLaMA decoder layer as torch.export captures it (core ATen), written by
// hand in the magi dialect: bf16, a symbolic token count %s0, 4 query heads
// sharing 2 key/value heads (GQA), rotary embeddings (rotate-half), RMSNorm in
// its primitive form, SwiGLU MLP and SDPA attention (causal).
//
//   hidden 128, head size 32, intermediate 256.
//
// Check it: build/bin/magi-opt examples/llama_decoder_layer.mlir

func.func @llama_decoder_layer(
    %hidden: tensor<1x?x128xbf16> {magi.input_kind = "user_input", magi.name = "hidden_states"},
    %cos: tensor<1x?x32xbf16> {magi.input_kind = "user_input", magi.name = "cos"},
    %sin: tensor<1x?x32xbf16> {magi.input_kind = "user_input", magi.name = "sin"},
    %w_in_norm: tensor<128xbf16> {magi.input_kind = "parameter", magi.name = "layers.0.input_layernorm.weight"},
    %w_q: tensor<128x128xbf16> {magi.input_kind = "parameter", magi.name = "layers.0.self_attn.q_proj.weight"},
    %w_k: tensor<64x128xbf16> {magi.input_kind = "parameter", magi.name = "layers.0.self_attn.k_proj.weight"},
    %w_v: tensor<64x128xbf16> {magi.input_kind = "parameter", magi.name = "layers.0.self_attn.v_proj.weight"},
    %w_o: tensor<128x128xbf16> {magi.input_kind = "parameter", magi.name = "layers.0.self_attn.o_proj.weight"},
    %w_post_norm: tensor<128xbf16> {magi.input_kind = "parameter", magi.name = "layers.0.post_attention_layernorm.weight"},
    %w_gate: tensor<256x128xbf16> {magi.input_kind = "parameter", magi.name = "layers.0.mlp.gate_proj.weight"},
    %w_up: tensor<256x128xbf16> {magi.input_kind = "parameter", magi.name = "layers.0.mlp.up_proj.weight"},
    %w_down: tensor<128x256xbf16> {magi.input_kind = "parameter", magi.name = "layers.0.mlp.down_proj.weight"})
    -> tensor<1x?x128xbf16> {
  %s0 = magi.symbolic_int "s0" min 2 max 4096
  magi.bind_symbolic_shape %hidden, [%s0], affine_map<()[s0] -> (1, s0, 128)> : tensor<1x?x128xbf16>
  magi.bind_symbolic_shape %cos, [%s0], affine_map<()[s0] -> (1, s0, 32)> : tensor<1x?x32xbf16>
  magi.bind_symbolic_shape %sin, [%s0], affine_map<()[s0] -> (1, s0, 32)> : tensor<1x?x32xbf16>
  %two = arith.constant 2 : i64
  %eps = arith.constant 1.0e-06 : f64

  // input RMSNorm: x.float().pow(2).mean(-1, keepdim) ; x * rsqrt(var + eps) ; .to(bf16) * w
  %x32 = magi.to_copy %hidden {dtype = f32} : (tensor<1x?x128xbf16>) -> tensor<1x?x128xf32>
  %sq = magi.pow %x32, %two : (tensor<1x?x128xf32>, i64) -> tensor<1x?x128xf32>
  %var = magi.mean %sq {dims = array<i64: -1>, keepdim = true} : (tensor<1x?x128xf32>) -> tensor<1x?x1xf32>
  %var_eps = magi.add %var, %eps : (tensor<1x?x1xf32>, f64) -> tensor<1x?x1xf32>
  %inv = magi.rsqrt %var_eps : (tensor<1x?x1xf32>) -> tensor<1x?x1xf32>
  %normed32 = magi.mul %x32, %inv : (tensor<1x?x128xf32>, tensor<1x?x1xf32>) -> tensor<1x?x128xf32>
  %normed = magi.to_copy %normed32 {dtype = bf16} : (tensor<1x?x128xf32>) -> tensor<1x?x128xbf16>
  %h = magi.mul %w_in_norm, %normed : (tensor<128xbf16>, tensor<1x?x128xbf16>) -> tensor<1x?x128xbf16>

  // q/k/v projections: view to 2-d, mm with the transposed weight, view back.
  %h2 = magi.view %h [%s0, 128] : tensor<1x?x128xbf16> -> tensor<?x128xbf16>
  %w_q_t = magi.permute %w_q {dims = array<i64: 1, 0>} : (tensor<128x128xbf16>) -> tensor<128x128xbf16>
  %q2 = magi.mm %h2, %w_q_t : (tensor<?x128xbf16>, tensor<128x128xbf16>) -> tensor<?x128xbf16>
  %w_k_t = magi.permute %w_k {dims = array<i64: 1, 0>} : (tensor<64x128xbf16>) -> tensor<128x64xbf16>
  %k2 = magi.mm %h2, %w_k_t : (tensor<?x128xbf16>, tensor<128x64xbf16>) -> tensor<?x64xbf16>
  %w_v_t = magi.permute %w_v {dims = array<i64: 1, 0>} : (tensor<64x128xbf16>) -> tensor<128x64xbf16>
  %v2 = magi.mm %h2, %w_v_t : (tensor<?x128xbf16>, tensor<128x64xbf16>) -> tensor<?x64xbf16>
  %q4 = magi.view %q2 [1, %s0, 4, 32] : tensor<?x128xbf16> -> tensor<1x?x4x32xbf16>
  %q = magi.permute %q4 {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x?x4x32xbf16>) -> tensor<1x4x?x32xbf16>
  %k4 = magi.view %k2 [1, %s0, 2, 32] : tensor<?x64xbf16> -> tensor<1x?x2x32xbf16>
  %k = magi.permute %k4 {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x?x2x32xbf16>) -> tensor<1x2x?x32xbf16>
  %v4 = magi.view %v2 [1, %s0, 2, 32] : tensor<?x64xbf16> -> tensor<1x?x2x32xbf16>
  %v = magi.permute %v4 {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x?x2x32xbf16>) -> tensor<1x2x?x32xbf16>

  // Rotary embedding, rotate-half form: q * cos + cat(-q[..., 16:], q[..., :16]) * sin
  %cos4 = magi.unsqueeze %cos {dim = 1 : i64} : (tensor<1x?x32xbf16>) -> tensor<1x1x?x32xbf16>
  %sin4 = magi.unsqueeze %sin {dim = 1 : i64} : (tensor<1x?x32xbf16>) -> tensor<1x1x?x32xbf16>
  %q_cos = magi.mul %q, %cos4 : (tensor<1x4x?x32xbf16>, tensor<1x1x?x32xbf16>) -> tensor<1x4x?x32xbf16>
  %q_lo = magi.slice %q, 3 [0, 16, 1] : tensor<1x4x?x32xbf16> -> tensor<1x4x?x16xbf16>
  %q_hi = magi.slice %q, 3 [16, 9223372036854775807, 1] : tensor<1x4x?x32xbf16> -> tensor<1x4x?x16xbf16>
  %q_hi_neg = magi.neg %q_hi : (tensor<1x4x?x16xbf16>) -> tensor<1x4x?x16xbf16>
  %q_rot = magi.cat %q_hi_neg, %q_lo {dim = -1 : i64} : (tensor<1x4x?x16xbf16>, tensor<1x4x?x16xbf16>) -> tensor<1x4x?x32xbf16>
  %q_sin = magi.mul %q_rot, %sin4 : (tensor<1x4x?x32xbf16>, tensor<1x1x?x32xbf16>) -> tensor<1x4x?x32xbf16>
  %q_emb = magi.add %q_cos, %q_sin : (tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>) -> tensor<1x4x?x32xbf16>
  %k_cos = magi.mul %k, %cos4 : (tensor<1x2x?x32xbf16>, tensor<1x1x?x32xbf16>) -> tensor<1x2x?x32xbf16>
  %k_lo = magi.slice %k, 3 [0, 16, 1] : tensor<1x2x?x32xbf16> -> tensor<1x2x?x16xbf16>
  %k_hi = magi.slice %k, 3 [16, 9223372036854775807, 1] : tensor<1x2x?x32xbf16> -> tensor<1x2x?x16xbf16>
  %k_hi_neg = magi.neg %k_hi : (tensor<1x2x?x16xbf16>) -> tensor<1x2x?x16xbf16>
  %k_rot = magi.cat %k_hi_neg, %k_lo {dim = -1 : i64} : (tensor<1x2x?x16xbf16>, tensor<1x2x?x16xbf16>) -> tensor<1x2x?x32xbf16>
  %k_sin = magi.mul %k_rot, %sin4 : (tensor<1x2x?x32xbf16>, tensor<1x1x?x32xbf16>) -> tensor<1x2x?x32xbf16>
  %k_emb = magi.add %k_cos, %k_sin : (tensor<1x2x?x32xbf16>, tensor<1x2x?x32xbf16>) -> tensor<1x2x?x32xbf16>

  // GQA: repeat each key/value head for 2 query heads, as transformers does.
  %k5 = magi.unsqueeze %k_emb {dim = 2 : i64} : (tensor<1x2x?x32xbf16>) -> tensor<1x2x1x?x32xbf16>
  %k_rep = magi.expand %k5 [1, 2, 2, %s0, 32] : tensor<1x2x1x?x32xbf16> -> tensor<1x2x2x?x32xbf16>
  %k_full = magi.view %k_rep [1, 4, %s0, 32] : tensor<1x2x2x?x32xbf16> -> tensor<1x4x?x32xbf16>
  %v5 = magi.unsqueeze %v {dim = 2 : i64} : (tensor<1x2x?x32xbf16>) -> tensor<1x2x1x?x32xbf16>
  %v_rep = magi.expand %v5 [1, 2, 2, %s0, 32] : tensor<1x2x1x?x32xbf16> -> tensor<1x2x2x?x32xbf16>
  %v_full = magi.view %v_rep [1, 4, %s0, 32] : tensor<1x2x2x?x32xbf16> -> tensor<1x4x?x32xbf16>

  // Causal SDPA (the splitting op).
  %attn, %lse, %seed, %offset = magi.scaled_dot_product_efficient_attention %q_emb, %k_full, %v_full {is_causal = true, scale = 0.17677669529663687 : f64}
      : (tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>) -> (tensor<1x4x?x32xbf16>, tensor<1x4x0xf32>, tensor<i64>, tensor<i64>)
  %attn_t = magi.permute %attn {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x4x?x32xbf16>) -> tensor<1x?x4x32xbf16>
  %attn2 = magi.view %attn_t [%s0, 128] : tensor<1x?x4x32xbf16> -> tensor<?x128xbf16>
  %w_o_t = magi.permute %w_o {dims = array<i64: 1, 0>} : (tensor<128x128xbf16>) -> tensor<128x128xbf16>
  %o2 = magi.mm %attn2, %w_o_t : (tensor<?x128xbf16>, tensor<128x128xbf16>) -> tensor<?x128xbf16>
  %o = magi.view %o2 [1, %s0, 128] : tensor<?x128xbf16> -> tensor<1x?x128xbf16>
  %res1 = magi.add %hidden, %o : (tensor<1x?x128xbf16>, tensor<1x?x128xbf16>) -> tensor<1x?x128xbf16>

  // post-attention RMSNorm
  %y32 = magi.to_copy %res1 {dtype = f32} : (tensor<1x?x128xbf16>) -> tensor<1x?x128xf32>
  %ysq = magi.pow %y32, %two : (tensor<1x?x128xf32>, i64) -> tensor<1x?x128xf32>
  %yvar = magi.mean %ysq {dims = array<i64: -1>, keepdim = true} : (tensor<1x?x128xf32>) -> tensor<1x?x1xf32>
  %yvar_eps = magi.add %yvar, %eps : (tensor<1x?x1xf32>, f64) -> tensor<1x?x1xf32>
  %yinv = magi.rsqrt %yvar_eps : (tensor<1x?x1xf32>) -> tensor<1x?x1xf32>
  %ynormed32 = magi.mul %y32, %yinv : (tensor<1x?x128xf32>, tensor<1x?x1xf32>) -> tensor<1x?x128xf32>
  %ynormed = magi.to_copy %ynormed32 {dtype = bf16} : (tensor<1x?x128xf32>) -> tensor<1x?x128xbf16>
  %y = magi.mul %w_post_norm, %ynormed : (tensor<128xbf16>, tensor<1x?x128xbf16>) -> tensor<1x?x128xbf16>

  // SwiGLU MLP: down(silu(gate(y)) * up(y))
  %y2 = magi.view %y [%s0, 128] : tensor<1x?x128xbf16> -> tensor<?x128xbf16>
  %w_gate_t = magi.permute %w_gate {dims = array<i64: 1, 0>} : (tensor<256x128xbf16>) -> tensor<128x256xbf16>
  %gate = magi.mm %y2, %w_gate_t : (tensor<?x128xbf16>, tensor<128x256xbf16>) -> tensor<?x256xbf16>
  %w_up_t = magi.permute %w_up {dims = array<i64: 1, 0>} : (tensor<256x128xbf16>) -> tensor<128x256xbf16>
  %up = magi.mm %y2, %w_up_t : (tensor<?x128xbf16>, tensor<128x256xbf16>) -> tensor<?x256xbf16>
  %gate_sig = magi.sigmoid %gate : (tensor<?x256xbf16>) -> tensor<?x256xbf16>
  %gate_act = magi.mul %gate, %gate_sig : (tensor<?x256xbf16>, tensor<?x256xbf16>) -> tensor<?x256xbf16>
  %mlp_in = magi.mul %gate_act, %up : (tensor<?x256xbf16>, tensor<?x256xbf16>) -> tensor<?x256xbf16>
  %w_down_t = magi.permute %w_down {dims = array<i64: 1, 0>} : (tensor<128x256xbf16>) -> tensor<256x128xbf16>
  %down2 = magi.mm %mlp_in, %w_down_t : (tensor<?x256xbf16>, tensor<256x128xbf16>) -> tensor<?x128xbf16>
  %down = magi.view %down2 [1, %s0, 128] : tensor<?x128xbf16> -> tensor<1x?x128xbf16>
  %out = magi.add %res1, %down : (tensor<1x?x128xbf16>, tensor<1x?x128xbf16>) -> tensor<1x?x128xbf16>
  magi.bind_symbolic_shape %out, [%s0], affine_map<()[s0] -> (1, s0, 128)> : tensor<1x?x128xbf16>
  return %out : tensor<1x?x128xbf16>
}
