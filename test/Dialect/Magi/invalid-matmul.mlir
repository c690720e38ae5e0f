// RUN: magi-opt %s -split-input-file -verify-diagnostics

// Inference errors of the matrix products.

func.func @mm_contraction_mismatch(%a: tensor<8x64xf32>, %b: tensor<32x16xf32>) {
  // expected-error @+2 {{contraction sizes do not match: 64 vs 32}}
  // expected-error @+1 {{'magi.mm' op failed to infer returned types}}
  %0 = magi.mm %a, %b : (tensor<8x64xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @mm_not_2d(%a: tensor<2x8x64xf32>, %b: tensor<64x16xf32>) {
  // expected-error @+2 {{operands must be 2-d, got ranks 3 and 2}}
  // expected-error @+1 {{'magi.mm' op failed to infer returned types}}
  %0 = magi.mm %a, %b : (tensor<2x8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @mm_dtype_mismatch(%a: tensor<8x64xf32>, %b: tensor<64x16xbf16>) {
  // expected-error @+2 {{operands must have the same dtype, got 'f32' and 'bf16'}}
  // expected-error @+1 {{'magi.mm' op failed to infer returned types}}
  %0 = magi.mm %a, %b : (tensor<8x64xf32>, tensor<64x16xbf16>) -> tensor<8x16xf32>
  return
}

// -----

func.func @mm_wrong_result(%a: tensor<8x64xf32>, %b: tensor<64x16xf32>) {
  // expected-error @+2 {{'magi.mm' op inferred type(s) 'tensor<8x16xf32>' are incompatible with return type(s) of operation 'tensor<16x8xf32>'}}
  // expected-error @+1 {{'magi.mm' op failed to infer returned types}}
  %0 = magi.mm %a, %b : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @bmm_not_3d(%a: tensor<8x64xf32>, %b: tensor<64x16xf32>) {
  // expected-error @+2 {{operands must be 3-d, got ranks 2 and 2}}
  // expected-error @+1 {{'magi.bmm' op failed to infer returned types}}
  %0 = magi.bmm %a, %b : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @bmm_batch_mismatch(%a: tensor<4x8x64xf32>, %b: tensor<5x64x16xf32>) {
  // expected-error @+2 {{batch sizes do not match: 4 vs 5}}
  // expected-error @+1 {{'magi.bmm' op failed to infer returned types}}
  %0 = magi.bmm %a, %b : (tensor<4x8x64xf32>, tensor<5x64x16xf32>) -> tensor<4x8x16xf32>
  return
}

// -----

func.func @bmm_contraction_mismatch(%a: tensor<4x8x64xf16>, %b: tensor<4x63x16xf16>) {
  // expected-error @+2 {{contraction sizes do not match: 64 vs 63}}
  // expected-error @+1 {{'magi.bmm' op failed to infer returned types}}
  %0 = magi.bmm %a, %b : (tensor<4x8x64xf16>, tensor<4x63x16xf16>) -> tensor<4x8x16xf16>
  return
}

// -----

func.func @addmm_contraction_mismatch(%bias: tensor<16xf32>, %a: tensor<8x64xf32>, %b: tensor<32x16xf32>) {
  // expected-error @+2 {{contraction sizes do not match: 64 vs 32}}
  // expected-error @+1 {{'magi.addmm' op failed to infer returned types}}
  %0 = magi.addmm %bias, %a, %b : (tensor<16xf32>, tensor<8x64xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @addmm_self_dtype(%bias: tensor<16xbf16>, %a: tensor<8x64xf32>, %b: tensor<64x16xf32>) {
  // expected-error @+2 {{operands must have the same dtype, got 'bf16' and 'f32'}}
  // expected-error @+1 {{'magi.addmm' op failed to infer returned types}}
  %0 = magi.addmm %bias, %a, %b : (tensor<16xbf16>, tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @addmm_self_not_broadcastable(%bias: tensor<8xf32>, %a: tensor<8x64xf32>, %b: tensor<64x16xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 8 vs 16 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.addmm' op failed to infer returned types}}
  %0 = magi.addmm %bias, %a, %b : (tensor<8xf32>, tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @addmm_self_rank_3(%bias: tensor<2x8x16xf32>, %a: tensor<8x64xf32>, %b: tensor<64x16xf32>) {
  // expected-error @+2 {{self 'tensor<2x8x16xf32>' does not broadcast to the product 'tensor<8x16xf32>'}}
  // expected-error @+1 {{'magi.addmm' op failed to infer returned types}}
  %0 = magi.addmm %bias, %a, %b : (tensor<2x8x16xf32>, tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @addmm_mat1_not_2d(%bias: tensor<16xf32>, %a: tensor<64xf32>, %b: tensor<64x16xf32>) {
  // expected-error @+2 {{operands must be 2-d, got ranks 1 and 2}}
  // expected-error @+1 {{'magi.addmm' op failed to infer returned types}}
  %0 = magi.addmm %bias, %a, %b : (tensor<16xf32>, tensor<64xf32>, tensor<64x16xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @grouped_mm_ranks(%a: tensor<6x2xf32>, %b: tensor<2x4xf32>, %offs: tensor<3xi32>) {
  // expected-error @+2 {{grouped_mm takes a 2-d self, a 3-d mat2 and 1-d offs, got ranks 2, 2 and 1}}
  // expected-error @+1 {{'magi.grouped_mm' op failed to infer returned types}}
  %0 = magi.grouped_mm %a, %b, %offs : (tensor<6x2xf32>, tensor<2x4xf32>, tensor<3xi32>) -> tensor<6x4xf32>
  return
}

// -----

func.func @grouped_mm_contraction(%a: tensor<6x2xf32>, %b: tensor<3x5x4xf32>, %offs: tensor<3xi32>) {
  // expected-error @+2 {{contraction sizes do not match: 2 vs 5}}
  // expected-error @+1 {{'magi.grouped_mm' op failed to infer returned types}}
  %0 = magi.grouped_mm %a, %b, %offs : (tensor<6x2xf32>, tensor<3x5x4xf32>, tensor<3xi32>) -> tensor<6x4xf32>
  return
}

// -----

func.func @grouped_mm_groups(%a: tensor<6x2xf32>, %b: tensor<3x2x4xf32>, %offs: tensor<4xi32>) {
  // expected-error @+2 {{group counts of mat2 and offs do not match: 3 vs 4}}
  // expected-error @+1 {{'magi.grouped_mm' op failed to infer returned types}}
  %0 = magi.grouped_mm %a, %b, %offs : (tensor<6x2xf32>, tensor<3x2x4xf32>, tensor<4xi32>) -> tensor<6x4xf32>
  return
}

// -----

func.func @grouped_mm_dtypes(%a: tensor<6x2xf32>, %b: tensor<3x2x4xbf16>, %offs: tensor<3xi32>) {
  // expected-error @+2 {{operands must have the same dtype, got 'f32' and 'bf16'}}
  // expected-error @+1 {{'magi.grouped_mm' op failed to infer returned types}}
  %0 = magi.grouped_mm %a, %b, %offs : (tensor<6x2xf32>, tensor<3x2x4xbf16>, tensor<3xi32>) -> tensor<6x4xf32>
  return
}
