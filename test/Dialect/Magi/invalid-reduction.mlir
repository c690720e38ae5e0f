// RUN: magi-opt %s -split-input-file -verify-diagnostics

// Inference errors of the reductions.

func.func @sum_dim_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dimension 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.sum' op failed to infer returned types}}
  %0 = magi.sum %x {dims = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @sum_dim_out_of_range_negative(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dimension -3 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.sum' op failed to infer returned types}}
  %0 = magi.sum %x {dims = array<i64: -3>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @sum_dim_repeated(%x: tensor<2x3xf32>) {
  // -1 and 1 are the same dimension.
  // expected-error @+2 {{dimension 1 appears more than once in the reduction}}
  // expected-error @+1 {{'magi.sum' op failed to infer returned types}}
  %0 = magi.sum %x {dims = array<i64: -1, 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @sum_wrong_dtype(%x: tensor<2x3xi32>) {
  // Integers sum to i64.
  // expected-error @+2 {{'magi.sum' op inferred type(s) 'tensor<3xi64>' are incompatible with return type(s) of operation 'tensor<3xi32>'}}
  // expected-error @+1 {{'magi.sum' op failed to infer returned types}}
  %0 = magi.sum %x {dims = array<i64: 0>} : (tensor<2x3xi32>) -> tensor<3xi32>
  return
}

// -----

func.func @sum_keepdim_mismatch(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'magi.sum' op inferred type(s) 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{'magi.sum' op failed to infer returned types}}
  %0 = magi.sum %x {dims = array<i64: 1>, keepdim = true} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @mean_of_integers(%x: tensor<2x3xi64>) {
  // expected-error @+2 {{cannot reduce a tensor of 'i64' without an explicit floating-point dtype}}
  // expected-error @+1 {{'magi.mean' op failed to infer returned types}}
  %0 = magi.mean %x {dims = array<i64: 1>} : (tensor<2x3xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @mean_of_bool(%x: tensor<4xi1>) {
  // expected-error @+2 {{cannot reduce a tensor of 'i1' without an explicit floating-point dtype}}
  // expected-error @+1 {{'magi.mean' op failed to infer returned types}}
  %0 = magi.mean %x : (tensor<4xi1>) -> tensor<f32>
  return
}

// -----

func.func @amax_dim_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dimension 5 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.amax' op failed to infer returned types}}
  %0 = magi.amax %x {dims = array<i64: 5>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @amin_wrong_dtype(%x: tensor<2x3xi8>) {
  // expected-error @+2 {{'magi.amin' op inferred type(s) 'tensor<i8>' are incompatible with return type(s) of operation 'tensor<i64>'}}
  // expected-error @+1 {{'magi.amin' op failed to infer returned types}}
  %0 = magi.amin %x : (tensor<2x3xi8>) -> tensor<i64>
  return
}

// -----

func.func @any_not_bool(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'magi.any' op inferred type(s) 'tensor<i1>' are incompatible with return type(s) of operation 'tensor<f32>'}}
  // expected-error @+1 {{'magi.any' op failed to infer returned types}}
  %0 = magi.any %x : (tensor<2x3xf32>) -> tensor<f32>
  return
}

// -----

func.func @all_dim_repeated(%x: tensor<2x3xi1>) {
  // expected-error @+2 {{dimension -2 appears more than once in the reduction}}
  // expected-error @+1 {{'magi.all' op failed to infer returned types}}
  %0 = magi.all %x {dims = array<i64: 0, -2>} : (tensor<2x3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @max_dim_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dimension 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.max_dim' op failed to infer returned types}}
  %0:2 = magi.max_dim %x {dim = 2 : i64} : (tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  return
}

// -----

func.func @max_dim_wrong_index_dtype(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'magi.max_dim' op inferred type(s) 'tensor<2xf32>', 'tensor<2xi64>' are incompatible with return type(s) of operation 'tensor<2xf32>', 'tensor<2xi32>'}}
  // expected-error @+1 {{'magi.max_dim' op failed to infer returned types}}
  %0:2 = magi.max_dim %x {dim = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xi32>)
  return
}

// -----

func.func @argmax_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dimension -3 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.argmax' op failed to infer returned types}}
  %0 = magi.argmax %x {dim = -3 : i64} : (tensor<2x3xf32>) -> tensor<2xi64>
  return
}

// -----

func.func @argmax_wrong_dtype(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'magi.argmax' op inferred type(s) 'tensor<2xi64>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{'magi.argmax' op failed to infer returned types}}
  %0 = magi.argmax %x {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @cumsum_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dimension 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.cumsum' op failed to infer returned types}}
  %0 = magi.cumsum %x {dim = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @cumsum_int_keeps_dtype(%x: tensor<4xi32>) {
  // expected-error @+2 {{'magi.cumsum' op inferred type(s) 'tensor<4xi64>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'magi.cumsum' op failed to infer returned types}}
  %0 = magi.cumsum %x {dim = 0 : i64} : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @sum_0d_out_of_range(%x: tensor<f32>) {
  // A 0-d tensor accepts dims 0 and -1 only.
  // expected-error @+2 {{dimension 1 is out of range for a tensor of rank 0}}
  // expected-error @+1 {{'magi.sum' op failed to infer returned types}}
  %0 = magi.sum %x {dims = array<i64: 1>} : (tensor<f32>) -> tensor<f32>
  return
}
