// RUN: magi-opt %s -split-input-file -verify-diagnostics

// Verifier errors of magi.tiled_attention, the kernel-level op the GPU
// lowering forms.
func.func @rank(%q: tensor<4x16x64xbf16>, %k: tensor<4x16x64xbf16>, %v: tensor<4x16x64xbf16>, %init: tensor<4x16x64xbf16>) {
  // expected-error @+1 {{'magi.tiled_attention' op needs [B, H, L, E] operands of rank 4}}
  %o = magi.tiled_attention %q, %k, %v outs(%init) {scale = 0.125 : f64} : tensor<4x16x64xbf16>, tensor<4x16x64xbf16>, tensor<4x16x64xbf16>, tensor<4x16x64xbf16> -> tensor<4x16x64xbf16>
  return
}

// -----

func.func @mixed(%q: tensor<1x4x16x64xbf16>, %k: memref<1x4x16x64xbf16>, %v: tensor<1x4x16x64xbf16>, %init: tensor<1x4x16x64xbf16>) {
  // expected-error @+1 {{'magi.tiled_attention' op needs all operands as tensors or all as memrefs}}
  %o = magi.tiled_attention %q, %k, %v outs(%init) {scale = 0.125 : f64} : tensor<1x4x16x64xbf16>, memref<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @element_types(%q: tensor<1x4x16x64xbf16>, %k: tensor<1x4x16x64xf16>, %v: tensor<1x4x16x64xbf16>, %init: tensor<1x4x16x64xbf16>) {
  // expected-error @+1 {{'magi.tiled_attention' op needs one element type for all operands}}
  %o = magi.tiled_attention %q, %k, %v outs(%init) {scale = 0.125 : f64} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @f32(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>, %init: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{'magi.tiled_attention' op needs f16 or bf16 operands}}
  %o = magi.tiled_attention %q, %k, %v outs(%init) {scale = 0.125 : f64} : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @no_result(%q: tensor<1x4x16x64xbf16>, %k: tensor<1x4x16x64xbf16>, %v: tensor<1x4x16x64xbf16>, %init: tensor<1x4x16x64xbf16>) {
  // expected-error @+1 {{'magi.tiled_attention' op on tensors needs a result}}
  magi.tiled_attention %q, %k, %v outs(%init) {scale = 0.125 : f64} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @memref_result(%q: memref<1x4x16x64xbf16>, %k: memref<1x4x16x64xbf16>, %v: memref<1x4x16x64xbf16>, %init: memref<1x4x16x64xbf16>) {
  // expected-error @+1 {{'magi.tiled_attention' op on memrefs has no result}}
  %o = magi.tiled_attention %q, %k, %v outs(%init) {scale = 0.125 : f64} : memref<1x4x16x64xbf16>, memref<1x4x16x64xbf16>, memref<1x4x16x64xbf16>, memref<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @result_type(%q: tensor<1x4x16x64xbf16>, %k: tensor<1x4x16x64xbf16>, %v: tensor<1x4x16x64xbf16>, %init: tensor<1x4x16x64xbf16>) {
  // expected-error @+1 {{'magi.tiled_attention' op needs a result of the type of init}}
  %o = magi.tiled_attention %q, %k, %v outs(%init) {scale = 0.125 : f64} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x?x64xbf16>
  return
}

// -----

func.func @head_dim(%q: tensor<1x4x16x32xbf16>, %k: tensor<1x4x16x32xbf16>, %v: tensor<1x4x16x32xbf16>, %init: tensor<1x4x16x32xbf16>) {
  // expected-error @+1 {{'magi.tiled_attention' op needs a static head dimension of 64 or 128}}
  %o = magi.tiled_attention %q, %k, %v outs(%init) {scale = 0.125 : f64} : tensor<1x4x16x32xbf16>, tensor<1x4x16x32xbf16>, tensor<1x4x16x32xbf16>, tensor<1x4x16x32xbf16> -> tensor<1x4x16x32xbf16>
  return
}

// -----

func.func @head_dims_differ(%q: tensor<1x4x16x64xbf16>, %k: tensor<1x4x16x128xbf16>, %v: tensor<1x4x16x64xbf16>, %init: tensor<1x4x16x64xbf16>) {
  // expected-error @+1 {{'magi.tiled_attention' op needs one head dimension for q, k, v and init}}
  %o = magi.tiled_attention %q, %k, %v outs(%init) {scale = 0.125 : f64} : tensor<1x4x16x64xbf16>, tensor<1x4x16x128xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @batch(%q: tensor<1x4x16x64xbf16>, %k: tensor<2x4x16x64xbf16>, %v: tensor<2x4x16x64xbf16>, %init: tensor<1x4x16x64xbf16>) {
  // expected-error @+1 {{'magi.tiled_attention' op needs one batch size}}
  %o = magi.tiled_attention %q, %k, %v outs(%init) {scale = 0.125 : f64} : tensor<1x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @key_value(%q: tensor<1x4x16x64xbf16>, %k: tensor<1x4x16x64xbf16>, %v: tensor<1x4x8x64xbf16>, %init: tensor<1x4x16x64xbf16>) {
  // expected-error @+1 {{'magi.tiled_attention' op needs key and value of one shape}}
  %o = magi.tiled_attention %q, %k, %v outs(%init) {scale = 0.125 : f64} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x8x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @init_shape(%q: tensor<1x4x16x64xbf16>, %k: tensor<1x4x16x64xbf16>, %v: tensor<1x4x16x64xbf16>, %init: tensor<1x4x8x64xbf16>) {
  // expected-error @+1 {{'magi.tiled_attention' op needs init of the query's shape}}
  %o = magi.tiled_attention %q, %k, %v outs(%init) {scale = 0.125 : f64} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x8x64xbf16> -> tensor<1x4x8x64xbf16>
  return
}

// -----

func.func @heads(%q: tensor<1x4x16x64xbf16>, %k: tensor<1x3x16x64xbf16>, %v: tensor<1x3x16x64xbf16>, %init: tensor<1x4x16x64xbf16>) {
  // expected-error @+1 {{'magi.tiled_attention' op needs static head counts, the query's a multiple of the key's}}
  %o = magi.tiled_attention %q, %k, %v outs(%init) {scale = 0.125 : f64} : tensor<1x4x16x64xbf16>, tensor<1x3x16x64xbf16>, tensor<1x3x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @mask_rank(%q: tensor<1x4x16x64xbf16>, %k: tensor<1x4x16x64xbf16>, %v: tensor<1x4x16x64xbf16>, %m: tensor<16x16xbf16>, %init: tensor<1x4x16x64xbf16>) {
  // expected-error @+1 {{'magi.tiled_attention' op needs a mask of rank 4, a tensor or memref as the other operands}}
  %o = magi.tiled_attention %q, %k, %v mask(%m : tensor<16x16xbf16>) outs(%init) {scale = 0.125 : f64} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @mask_type(%q: tensor<1x4x16x64xbf16>, %k: tensor<1x4x16x64xbf16>, %v: tensor<1x4x16x64xbf16>, %m: tensor<1x1x16x16xi32>, %init: tensor<1x4x16x64xbf16>) {
  // expected-error @+1 {{'magi.tiled_attention' op needs a boolean or an f16, bf16 or f32 mask}}
  %o = magi.tiled_attention %q, %k, %v mask(%m : tensor<1x1x16x16xi32>) outs(%init) {scale = 0.125 : f64} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @mask_broadcast(%q: tensor<1x4x16x64xbf16>, %k: tensor<1x4x16x64xbf16>, %v: tensor<1x4x16x64xbf16>, %m: tensor<1x2x16x16xbf16>, %init: tensor<1x4x16x64xbf16>) {
  // expected-error @+1 {{'magi.tiled_attention' op needs mask dimensions 0 and 1 of static size 1 or the query's}}
  %o = magi.tiled_attention %q, %k, %v mask(%m : tensor<1x2x16x16xbf16>) outs(%init) {scale = 0.125 : f64} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @mask_shape(%q: tensor<1x4x16x64xbf16>, %k: tensor<1x4x16x64xbf16>, %v: tensor<1x4x16x64xbf16>, %m: tensor<1x1x16x8xbf16>, %init: tensor<1x4x16x64xbf16>) {
  // expected-error @+1 {{'magi.tiled_attention' op needs a mask of [.., .., L, S]}}
  %o = magi.tiled_attention %q, %k, %v mask(%m : tensor<1x1x16x8xbf16>) outs(%init) {scale = 0.125 : f64} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @layout(%q: tensor<1x4x16x64xbf16>) {
  // expected-error @+1 {{'magi.tiled_attention' op has layout 'bsdh'; expected 'bhsd' or 'bshd'}}
  %o = magi.tiled_attention %q, %q, %q outs(%q) {layout = "bsdh", scale = 0.125 : f64} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

// Layout bshd: [B, L, H, E], so 6 heads (dimension 2) on 4 do not group.
func.func @layout_heads(%q: tensor<1x16x6x64xbf16>, %kv: tensor<1x16x4x64xbf16>) {
  // expected-error @+1 {{'magi.tiled_attention' op needs static head counts, the query's a multiple of the key's}}
  %o = magi.tiled_attention %q, %kv, %kv outs(%q) {layout = "bshd", scale = 0.125 : f64} : tensor<1x16x6x64xbf16>, tensor<1x16x4x64xbf16>, tensor<1x16x4x64xbf16>, tensor<1x16x6x64xbf16> -> tensor<1x16x6x64xbf16>
  return
}
