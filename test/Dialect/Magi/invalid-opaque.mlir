// RUN: magi-opt %s -split-input-file -verify-diagnostics

// Verifier errors of magi.assert_tensor_metadata and magi.opaque.

func.func @assert_dtype_mismatch(%x: tensor<2x?xbf16>) {
  // expected-error @+1 {{'magi.assert_tensor_metadata' op asserts dtype 'f32' but the tensor has dtype 'bf16'}}
  magi.assert_tensor_metadata %x {dtype = f32} : tensor<2x?xbf16>
  return
}

// -----

func.func @assert_dtype_signedness(%x: tensor<4xi8>) {
  // expected-error @+1 {{'magi.assert_tensor_metadata' op asserts dtype 'ui8' but the tensor has dtype 'i8'}}
  magi.assert_tensor_metadata %x {dtype = ui8} : tensor<4xi8>
  return
}

// -----

func.func @assert_dtype_not_a_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'magi.assert_tensor_metadata' op attribute 'dtype' failed to satisfy constraint: type attribute of PyTorch dtype}}
  magi.assert_tensor_metadata %x {dtype = "f32"} : tensor<4xf32>
  return
}

// -----

func.func @opaque_unqualified(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{'magi.opaque' op op name must be qualified as 'namespace::name', got 'topk'}}
  %0 = magi.opaque "topk"(%x) : (tensor<8x16xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @opaque_single_colon(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{'magi.opaque' op op name must be qualified as 'namespace::name', got 'aten:topk'}}
  %0 = magi.opaque "aten:topk"(%x) : (tensor<8x16xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @opaque_no_namespace(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{'magi.opaque' op op name must be qualified as 'namespace::name', got '::topk'}}
  %0 = magi.opaque "::topk"(%x) : (tensor<8x16xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @opaque_no_name(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{'magi.opaque' op op name must be qualified as 'namespace::name', got 'aten::'}}
  %0 = magi.opaque "aten::"(%x) : (tensor<8x16xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @opaque_empty_name() {
  // expected-error @+1 {{'magi.opaque' op op name must be qualified as 'namespace::name', got ''}}
  magi.opaque ""() : () -> ()
  return
}

// -----

func.func @opaque_type_count_mismatch(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{custom op 'magi.opaque' number of operands and types do not match: got 1 operands and 2 types}}
  %0 = magi.opaque "aten::add.Tensor"(%x) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return
}
