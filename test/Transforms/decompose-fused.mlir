// RUN: magi-opt %s -split-input-file -magi-decompose-fused -verify-diagnostics | FileCheck %s
// RUN: magi-opt %s -split-input-file -magi-decompose-fused='ops=magi.rms_norm,magi.layer_norm' | FileCheck %s --check-prefix=SOME
// RUN: magi-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(magi-decompose-fused{ops=magi.silu_and_mul}))' | FileCheck %s --check-prefix=SILU
// RUN: magi-opt %s -split-input-file -magi-decompose-fused='ops=magi.attention,magi.rotary_embedding' -verify-diagnostics | magi-opt -split-input-file -magi-fuse=enable=attention -canonicalize -magi-dce | FileCheck %s --check-prefix=ROUND
// RUN: magi-opt %s -split-input-file -magi-decompose-fused='ops=magi.softmax,magi.gelu' | magi-opt -split-input-file -magi-fuse=enable=softmax,gelu -canonicalize -magi-dce | FileCheck %s --check-prefix=SG
// RUN: not magi-opt %s -split-input-file -magi-decompose-fused='ops=magi.add' 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// magi-decompose-fused: the fused ops back into the primitive ops their
// documentation defines them by; `ops` restricts it to some of them. The ops
// it knows are those with DecomposableOpInterface.
// UNKNOWN: error: magi-decompose-fused: 'magi.add' is not a fused op it decomposes (known: magi.attention, magi.gelu, magi.layer_norm, magi.rms_norm, magi.rotary_embedding, magi.silu_and_mul, magi.softmax)

// rms_norm of bf16 with a weight: upcast to f32, pow 2, mean(-1, keepdim),
// + eps, rsqrt, times the upcast input, cast back, weight times that.
// CHECK-LABEL: func.func @rms_norm_bf16_weight
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x64xbf16>, %[[W:.*]]: tensor<64xbf16>)
// CHECK-NEXT: %[[X32:.*]] = magi.to_copy %[[X]] {dtype = f32} : (tensor<2x?x64xbf16>) -> tensor<2x?x64xf32>
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-NEXT: %[[SQ:.*]] = magi.pow %[[X32]], %[[TWO]] : (tensor<2x?x64xf32>, i64) -> tensor<2x?x64xf32>
// CHECK-NEXT: %[[MEAN:.*]] = magi.mean %[[SQ]] {dims = array<i64: -1>, keepdim = true} : (tensor<2x?x64xf32>) -> tensor<2x?x1xf32>
// CHECK-NEXT: %[[EPS:.*]] = arith.constant 9.9999999999999995E-7 : f64
// CHECK: %[[VAR:.*]] = magi.add %[[MEAN]], %[[EPS]] : (tensor<2x?x1xf32>, f64) -> tensor<2x?x1xf32>
// CHECK: %[[INV:.*]] = magi.rsqrt %[[VAR]] : (tensor<2x?x1xf32>) -> tensor<2x?x1xf32>
// CHECK: %[[N32:.*]] = magi.mul %[[X32]], %[[INV]] : (tensor<2x?x64xf32>, tensor<2x?x1xf32>) -> tensor<2x?x64xf32>
// CHECK: %[[N:.*]] = magi.to_copy %[[N32]] {dtype = bf16} : (tensor<2x?x64xf32>) -> tensor<2x?x64xbf16>
// CHECK: %[[Y:.*]] = magi.mul %[[W]], %[[N]] : (tensor<64xbf16>, tensor<2x?x64xbf16>) -> tensor<2x?x64xbf16>
// CHECK: return %[[Y]]
// CHECK-NOT: magi.rms_norm
// SOME-LABEL: func.func @rms_norm_bf16_weight
// SOME-NOT: magi.rms_norm
// SOME: magi.rsqrt
// SILU-LABEL: func.func @rms_norm_bf16_weight
// SILU: magi.rms_norm
func.func @rms_norm_bf16_weight(%x: tensor<2x?x64xbf16>, %w: tensor<64xbf16>) -> tensor<2x?x64xbf16> {
  %0 = magi.rms_norm %x weight %w {eps = 1.0e-6 : f64} : (tensor<2x?x64xbf16>, tensor<64xbf16>) -> tensor<2x?x64xbf16>
  return %0 : tensor<2x?x64xbf16>
}

// -----

// rms_norm of f32 without a weight: no casts, no weight mul.
// CHECK-LABEL: func.func @rms_norm_f32_no_weight
// CHECK-SAME: (%[[X:.*]]: tensor<2x64xf32>)
// CHECK-NOT: magi.to_copy
// CHECK: %[[SQ:.*]] = magi.pow %[[X]], %{{.*}} : (tensor<2x64xf32>, i64) -> tensor<2x64xf32>
// CHECK: %[[MEAN:.*]] = magi.mean %[[SQ]] {dims = array<i64: -1>, keepdim = true}
// CHECK: %[[VAR:.*]] = magi.add %[[MEAN]], %{{.*}} : (tensor<2x1xf32>, f64) -> tensor<2x1xf32>
// CHECK: %[[INV:.*]] = magi.rsqrt %[[VAR]]
// CHECK: %[[Y:.*]] = magi.mul %[[X]], %[[INV]] : (tensor<2x64xf32>, tensor<2x1xf32>) -> tensor<2x64xf32>
// CHECK-NEXT: return %[[Y]]
func.func @rms_norm_f32_no_weight(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %0 = magi.rms_norm %x {eps = 1.0e-5 : f64} : (tensor<2x64xf32>) -> tensor<2x64xf32>
  return %0 : tensor<2x64xf32>
}

// -----

// rms_norm with compute_dtype = f64: the casts go through f64.
// CHECK-LABEL: func.func @rms_norm_compute_f64
// CHECK-SAME: (%[[X:.*]]: tensor<2x64xbf16>)
// CHECK: %[[X64:.*]] = magi.to_copy %[[X]] {dtype = f64} : (tensor<2x64xbf16>) -> tensor<2x64xf64>
// CHECK: magi.pow %[[X64]], %{{.*}} : (tensor<2x64xf64>, i64) -> tensor<2x64xf64>
// CHECK: magi.mean {{.*}} -> tensor<2x1xf64>
// CHECK: arith.constant 1.000000e-05 : f64
// CHECK: magi.rsqrt {{.*}} -> tensor<2x1xf64>
// CHECK: %[[N:.*]] = magi.mul %[[X64]], %{{.*}} : (tensor<2x64xf64>, tensor<2x1xf64>) -> tensor<2x64xf64>
// CHECK: %[[Y:.*]] = magi.to_copy %[[N]] {dtype = bf16} : (tensor<2x64xf64>) -> tensor<2x64xbf16>
// CHECK-NEXT: return %[[Y]]
func.func @rms_norm_compute_f64(%x: tensor<2x64xbf16>) -> tensor<2x64xbf16> {
  %0 = magi.rms_norm %x {eps = 1.0e-5 : f64, compute_dtype = f64} : (tensor<2x64xbf16>) -> tensor<2x64xbf16>
  return %0 : tensor<2x64xbf16>
}

// -----

// silu_and_mul: silu then mul.
// CHECK-LABEL: func.func @silu_and_mul
// CHECK-SAME: (%[[G:.*]]: tensor<2x?x256xbf16>, %[[U:.*]]: tensor<2x?x256xbf16>)
// CHECK-NEXT: %[[S:.*]] = magi.silu %[[G]] : (tensor<2x?x256xbf16>) -> tensor<2x?x256xbf16>
// CHECK-NEXT: %[[Y:.*]] = magi.mul %[[S]], %[[U]] : (tensor<2x?x256xbf16>, tensor<2x?x256xbf16>) -> tensor<2x?x256xbf16>
// CHECK-NEXT: return %[[Y]]
// SOME-LABEL: func.func @silu_and_mul
// SOME: magi.silu_and_mul
// SILU-LABEL: func.func @silu_and_mul
// SILU-NOT: magi.silu_and_mul
// SILU: magi.silu
func.func @silu_and_mul(%g: tensor<2x?x256xbf16>, %u: tensor<2x?x256xbf16>) -> tensor<2x?x256xbf16> {
  %0 = magi.silu_and_mul %g, %u : (tensor<2x?x256xbf16>, tensor<2x?x256xbf16>) -> tensor<2x?x256xbf16>
  return %0 : tensor<2x?x256xbf16>
}

// -----

// silu_and_mul with broadcasting and promotion keeps the fused op's type.
// CHECK-LABEL: func.func @silu_and_mul_promote
// CHECK-SAME: (%[[G:.*]]: tensor<2x?x256xbf16>, %[[U:.*]]: tensor<256xf32>)
// CHECK-NEXT: %[[S:.*]] = magi.silu %[[G]] : (tensor<2x?x256xbf16>) -> tensor<2x?x256xbf16>
// CHECK-NEXT: magi.mul %[[S]], %[[U]] : (tensor<2x?x256xbf16>, tensor<256xf32>) -> tensor<2x?x256xf32>
func.func @silu_and_mul_promote(%g: tensor<2x?x256xbf16>, %u: tensor<256xf32>) -> tensor<2x?x256xf32> {
  %0 = magi.silu_and_mul %g, %u : (tensor<2x?x256xbf16>, tensor<256xf32>) -> tensor<2x?x256xf32>
  return %0 : tensor<2x?x256xf32>
}

// -----

// rotary_embedding: x * cos + cat(-x[..., d/2:], x[..., :d/2]) * sin.
// CHECK-LABEL: func.func @rotary_embedding
// CHECK-SAME: (%[[X:.*]]: tensor<1x32x?x128xbf16>, %[[COS:.*]]: tensor<1x1x?x128xbf16>, %[[SIN:.*]]: tensor<1x1x?x128xbf16>)
// CHECK-NEXT: %[[LO:.*]] = magi.slice %[[X]], -1 [0, 64, 1] : tensor<1x32x?x128xbf16> -> tensor<1x32x?x64xbf16>
// CHECK-NEXT: %[[HI:.*]] = magi.slice %[[X]], -1 [64, 9223372036854775807, 1] : tensor<1x32x?x128xbf16> -> tensor<1x32x?x64xbf16>
// CHECK-NEXT: %[[NEG:.*]] = magi.neg %[[HI]] : (tensor<1x32x?x64xbf16>) -> tensor<1x32x?x64xbf16>
// CHECK-NEXT: %[[ROT:.*]] = magi.cat %[[NEG]], %[[LO]] {dim = -1 : i64} : (tensor<1x32x?x64xbf16>, tensor<1x32x?x64xbf16>) -> tensor<1x32x?x128xbf16>
// CHECK-NEXT: %[[A:.*]] = magi.mul %[[X]], %[[COS]] : (tensor<1x32x?x128xbf16>, tensor<1x1x?x128xbf16>) -> tensor<1x32x?x128xbf16>
// CHECK-NEXT: %[[B:.*]] = magi.mul %[[ROT]], %[[SIN]] : (tensor<1x32x?x128xbf16>, tensor<1x1x?x128xbf16>) -> tensor<1x32x?x128xbf16>
// CHECK-NEXT: %[[Y:.*]] = magi.add %[[A]], %[[B]] : (tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>) -> tensor<1x32x?x128xbf16>
// CHECK-NEXT: return %[[Y]]
// SOME-LABEL: func.func @rotary_embedding
// SOME: magi.rotary_embedding
func.func @rotary_embedding(%x: tensor<1x32x?x128xbf16>, %cos: tensor<1x1x?x128xbf16>, %sin: tensor<1x1x?x128xbf16>) -> tensor<1x32x?x128xbf16> {
  %0 = magi.rotary_embedding %x, %cos, %sin : (tensor<1x32x?x128xbf16>, tensor<1x1x?x128xbf16>, tensor<1x1x?x128xbf16>) -> tensor<1x32x?x128xbf16>
  return %0 : tensor<1x32x?x128xbf16>
}

// -----

// layer_norm: native_layer_norm, its first result.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x64xbf16>, %[[W:.*]]: tensor<64xbf16>, %[[B:.*]]: tensor<64xbf16>)
// CHECK-NEXT: %[[R:.*]], %{{.*}}, %{{.*}} = magi.native_layer_norm %[[X]] weight %[[W]] bias %[[B]] {eps = 1.000000e-05 : f64, normalized_ndim = 1 : i64} : (tensor<2x?x64xbf16>, tensor<64xbf16>, tensor<64xbf16>) -> (tensor<2x?x64xbf16>, tensor<2x?x1xf32>, tensor<2x?x1xf32>)
// CHECK-NEXT: return %[[R]]
// SOME-LABEL: func.func @layer_norm
// SOME: magi.native_layer_norm
// SILU-LABEL: func.func @layer_norm
// SILU: magi.layer_norm
func.func @layer_norm(%x: tensor<2x?x64xbf16>, %w: tensor<64xbf16>, %b: tensor<64xbf16>) -> tensor<2x?x64xbf16> {
  %0 = magi.layer_norm %x weight %w bias %b {normalized_ndim = 1 : i64, eps = 1.0e-5 : f64} : (tensor<2x?x64xbf16>, tensor<64xbf16>, tensor<64xbf16>) -> tensor<2x?x64xbf16>
  return %0 : tensor<2x?x64xbf16>
}

// -----

// layer_norm over two dims, no weight or bias.
// CHECK-LABEL: func.func @layer_norm_two_dims
// CHECK-NEXT: %[[R:.*]], %{{.*}}, %{{.*}} = magi.native_layer_norm %arg0 {eps = 1.000000e-05 : f64, normalized_ndim = 2 : i64} : (tensor<4x8x16xf32>) -> (tensor<4x8x16xf32>, tensor<4x1x1xf32>, tensor<4x1x1xf32>)
// CHECK-NEXT: return %[[R]]
func.func @layer_norm_two_dims(%x: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  %0 = magi.layer_norm %x {normalized_ndim = 2 : i64, eps = 1.0e-5 : f64} : (tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return %0 : tensor<4x8x16xf32>
}

// -----

// attention without GQA: the SDPA kernel op, mask as its bias, scale and
// dropout carried over; its other results unused.
// CHECK-LABEL: func.func @attention
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x?x32xbf16>, %[[K:.*]]: tensor<1x4x?x32xbf16>, %[[V:.*]]: tensor<1x4x?x32xbf16>, %[[M:.*]]: tensor<1x4x?x?xbf16>)
// CHECK-NEXT: %[[R:.*]], %{{.*}}, %{{.*}}, %{{.*}} = magi.scaled_dot_product_efficient_attention %[[Q]], %[[K]], %[[V]] bias %[[M]] {dropout_p = 1.000000e-01 : f64, scale = 1.250000e-01 : f64} : (tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x?xbf16>) -> (tensor<1x4x?x32xbf16>, tensor<1x4x0xf32>, tensor<i64>, tensor<i64>)
// CHECK-NEXT: return %[[R]]
// SOME-LABEL: func.func @attention
// SOME-NEXT: magi.attention
func.func @attention(%q: tensor<1x4x?x32xbf16>, %k: tensor<1x4x?x32xbf16>, %v: tensor<1x4x?x32xbf16>, %m: tensor<1x4x?x?xbf16>) -> tensor<1x4x?x32xbf16> {
  %0 = magi.attention %q, %k, %v mask %m {scale = 0.125 : f64, dropout_p = 0.1 : f64} : (tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x?xbf16>) -> tensor<1x4x?x32xbf16>
  return %0 : tensor<1x4x?x32xbf16>
}

// -----

// GQA (32 query heads over 8 key/value heads): K and V repeated 4 times as
// transformers' repeat_kv does, the dynamic length read with sym_size.
// CHECK-LABEL: func.func @attention_gqa
// CHECK-SAME: (%[[Q:.*]]: tensor<1x32x?x128xbf16>, %[[K:.*]]: tensor<1x8x?x128xbf16>, %[[V:.*]]: tensor<1x8x?x64xbf16>)
// CHECK-NEXT: %[[K5:.*]] = magi.unsqueeze %[[K]] {dim = 2 : i64} : (tensor<1x8x?x128xbf16>) -> tensor<1x8x1x?x128xbf16>
// CHECK-NEXT: %[[KE:.*]] = magi.expand %[[K5]] [-1, -1, 4, -1, -1] : tensor<1x8x1x?x128xbf16> -> tensor<1x8x4x?x128xbf16>
// CHECK-NEXT: %[[KS:.*]] = magi.sym_size %[[K]], 2
// CHECK-NEXT: %[[KR:.*]] = magi.view %[[KE]] [1, 32, %[[KS]], 128] : tensor<1x8x4x?x128xbf16> -> tensor<1x32x?x128xbf16>
// CHECK-NEXT: %[[V5:.*]] = magi.unsqueeze %[[V]] {dim = 2 : i64}
// CHECK-NEXT: %[[VE:.*]] = magi.expand %[[V5]] [-1, -1, 4, -1, -1]
// CHECK-NEXT: %[[VS:.*]] = magi.sym_size %[[V]], 2
// CHECK-NEXT: %[[VR:.*]] = magi.view %[[VE]] [1, 32, %[[VS]], 64] : tensor<1x8x4x?x64xbf16> -> tensor<1x32x?x64xbf16>
// CHECK-NEXT: %[[R:.*]], %{{.*}}, %{{.*}}, %{{.*}} = magi.scaled_dot_product_efficient_attention %[[Q]], %[[KR]], %[[VR]] {is_causal = true} : (tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>, tensor<1x32x?x64xbf16>) -> (tensor<1x32x?x64xbf16>
// CHECK-NEXT: return %[[R]]
func.func @attention_gqa(%q: tensor<1x32x?x128xbf16>, %k: tensor<1x8x?x128xbf16>, %v: tensor<1x8x?x64xbf16>) -> tensor<1x32x?x64xbf16> {
  %0 = magi.attention %q, %k, %v {is_causal = true} : (tensor<1x32x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x8x?x64xbf16>) -> tensor<1x32x?x64xbf16>
  return %0 : tensor<1x32x?x64xbf16>
}

// -----

// GQA with static shapes, then fused back: the round trip gives the same op.
// CHECK-LABEL: func.func @attention_gqa_static
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x16x64xf32>, %[[K:.*]]: tensor<2x2x16x64xf32>)
// CHECK: magi.view %{{.*}} [2, 8, 16, 64] : tensor<2x2x4x16x64xf32> -> tensor<2x8x16x64xf32>
// CHECK: magi.scaled_dot_product_efficient_attention %[[Q]]
// ROUND-LABEL: func.func @attention_gqa_static
// ROUND-SAME: (%[[Q:.*]]: tensor<2x8x16x64xf32>, %[[K:.*]]: tensor<2x2x16x64xf32>)
// ROUND-NEXT: %[[R:.*]] = magi.attention %[[Q]], %[[K]], %[[K]] : (tensor<2x8x16x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32>) -> tensor<2x8x16x64xf32>
// ROUND-NEXT: return %[[R]]
func.func @attention_gqa_static(%q: tensor<2x8x16x64xf32>, %k: tensor<2x2x16x64xf32>) -> tensor<2x8x16x64xf32> {
  %0 = magi.attention %q, %k, %k : (tensor<2x8x16x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32>) -> tensor<2x8x16x64xf32>
  return %0 : tensor<2x8x16x64xf32>
}

// -----

// softmax: exp(x - amax) / sum(exp(x - amax)) along its dim, keepdim;
// half_to_float casts the input to f32 first. Fused back, the same ops.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[H:.*]]: tensor<4x8xf16>)
// CHECK-NEXT: %[[M:.*]] = magi.amax %[[X]] {dims = array<i64: -1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[D:.*]] = magi.sub %[[X]], %[[M]]
// CHECK-NEXT: %[[E:.*]] = magi.exp %[[D]]
// CHECK-NEXT: %[[S:.*]] = magi.sum %[[E]] {dims = array<i64: -1>, keepdim = true}
// CHECK-NEXT: %[[R0:.*]] = magi.div %[[E]], %[[S]] : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[H32:.*]] = magi.to_copy %[[H]] {dtype = f32} : (tensor<4x8xf16>) -> tensor<4x8xf32>
// CHECK-NEXT: magi.amax %[[H32]] {dims = array<i64: 0>, keepdim = true} : (tensor<4x8xf32>) -> tensor<1x8xf32>
// CHECK: %[[R1:.*]] = magi.div {{.*}} -> tensor<4x8xf32>
// CHECK-NEXT: return %[[R0]], %[[R1]]
// SG-LABEL: func.func @softmax
// SG-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[H:.*]]: tensor<4x8xf16>)
// SG-NEXT: %[[R0:.*]] = magi.softmax %[[X]] {dim = 1 : i64}
// SG-NEXT: %[[H32:.*]] = magi.to_copy %[[H]] {dtype = f32}
// SG-NEXT: %[[R1:.*]] = magi.softmax %[[H32]] {dim = 0 : i64}
// SG-NEXT: return %[[R0]], %[[R1]]
func.func @softmax(%x: tensor<4x8xf32>, %h: tensor<4x8xf16>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = magi.softmax %x {dim = -1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = magi.softmax %h {dim = 0 : i64, half_to_float = true} : (tensor<4x8xf16>) -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// gelu: the tanh approximation and the erf form spelled out. Fused back, the
// same ops.
// CHECK-LABEL: func.func @gelu
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xbf16>)
// CHECK: magi.pow %[[X]], %{{.*}} : (tensor<4x8xbf16>, f64)
// CHECK: arith.constant 4.471500e-02 : f64
// CHECK: arith.constant 0.79788456080286541 : f64
// CHECK: magi.tanh
// CHECK: arith.constant 5.000000e-01 : f64
// CHECK: arith.constant 1.000000e+00 : f64
// CHECK: %[[T:.*]] = magi.mul {{.*}} -> tensor<4x8xbf16>
// CHECK: arith.constant 0.70710678118654757 : f64
// CHECK: magi.erf
// CHECK: arith.constant 1.000000e+00 : f64
// CHECK-NEXT: magi.add
// CHECK-NEXT: %[[E:.*]] = magi.mul {{.*}} -> tensor<4x8xbf16>
// CHECK-NEXT: return %[[T]], %[[E]]
// CHECK-NOT: magi.gelu
// SG-LABEL: func.func @gelu
// SG-SAME: (%[[X:.*]]: tensor<4x8xbf16>)
// SG-NEXT: %[[T:.*]] = magi.gelu %[[X]] {approximate = "tanh"}
// SG-NEXT: %[[E:.*]] = magi.gelu %[[X]] :
// SG-NEXT: return %[[T]], %[[E]]
func.func @gelu(%x: tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x8xbf16>) {
  %0 = magi.gelu %x {approximate = "tanh"} : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %1 = magi.gelu %x : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
  return %0, %1 : tensor<4x8xbf16>, tensor<4x8xbf16>
}

// -----

// Errors (the SOME and SILU runs, restricted to other ops, do not reach them).

func.func @rotary_dynamic_last_dim(%x: tensor<4x?xf32>, %c: tensor<?xf32>) -> tensor<4x?xf32> {
  // expected-error @+1 {{cannot decompose rotary_embedding with a dynamic last dimension}}
  %0 = magi.rotary_embedding %x, %c, %c : (tensor<4x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

func.func @attention_rank_2(%q: tensor<5x16xf32>, %k: tensor<7x16xf32>) -> tensor<5x16xf32> {
  // expected-error @+1 {{cannot decompose attention of rank 2 (the SDPA kernels take [B, H, L, E])}}
  %0 = magi.attention %q, %k, %k : (tensor<5x16xf32>, tensor<7x16xf32>, tensor<7x16xf32>) -> tensor<5x16xf32>
  return %0 : tensor<5x16xf32>
}

// -----

func.func @attention_dynamic_heads(%q: tensor<1x?x8x16xf32>, %k: tensor<1x2x8x16xf32>) -> tensor<1x?x8x16xf32> {
  // expected-error @+1 {{cannot decompose attention with dynamic head counts}}
  %0 = magi.attention %q, %k, %k : (tensor<1x?x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x?x8x16xf32>
  return %0 : tensor<1x?x8x16xf32>
}
