// RUN: magi-opt %s -split-input-file -verify-diagnostics

// Verifier and inference errors of the more recently added ops (the unary,
// binary, reduction, scatter, flip/repeat/tril/triu ops of ops-extra.mlir)
// and of the transpose_* attributes of the matrix products.

func.func @leaky_relu_int(%x: tensor<4xi32>) {
  // leaky_relu has floating-point kernels only, as in PyTorch.
  // expected-error @+2 {{leaky_relu needs a floating-point tensor, got 'i32'}}
  // expected-error @+1 {{'magi.leaky_relu' op failed to infer returned types}}
  %0 = magi.leaky_relu %x : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @elu_int(%x: tensor<4xi64>) {
  // elu has floating-point kernels only, as in PyTorch.
  // expected-error @+2 {{elu needs a floating-point tensor, got 'i64'}}
  // expected-error @+1 {{'magi.elu' op failed to infer returned types}}
  %0 = magi.elu %x : (tensor<4xi64>) -> tensor<4xi64>
  return
}

// -----

func.func @log1p_int_wrong_result(%x: tensor<4xi64>) {
  // An integer operand computes in f32.
  // expected-error @+2 {{'magi.log1p' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi64>'}}
  // expected-error @+1 {{'magi.log1p' op failed to infer returned types}}
  %0 = magi.log1p %x : (tensor<4xi64>) -> tensor<4xi64>
  return
}

// -----

func.func @expm1_wrong_shape(%x: tensor<2x?xf16>) {
  // expected-error @+2 {{'magi.expm1' op inferred type(s) 'tensor<2x?xf16>' are incompatible with return type(s) of operation 'tensor<3x?xf16>'}}
  // expected-error @+1 {{'magi.expm1' op failed to infer returned types}}
  %0 = magi.expm1 %x : (tensor<2x?xf16>) -> tensor<3x?xf16>
  return
}

// -----

func.func @log2_bool_wrong_result(%x: tensor<4xi1>) {
  // expected-error @+2 {{'magi.log2' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi1>'}}
  // expected-error @+1 {{'magi.log2' op failed to infer returned types}}
  %0 = magi.log2 %x : (tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @floor_int_promoted(%x: tensor<4xi32>) {
  // floor is the identity on integers: the dtype is kept, not promoted.
  // expected-error @+2 {{'magi.floor' op inferred type(s) 'tensor<4xi32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'magi.floor' op failed to infer returned types}}
  %0 = magi.floor %x : (tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @round_wrong_dtype(%x: tensor<4xbf16>) {
  // expected-error @+2 {{'magi.round' op inferred type(s) 'tensor<4xbf16>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'magi.round' op failed to infer returned types}}
  %0 = magi.round %x : (tensor<4xbf16>) -> tensor<4xf32>
  return
}

// -----

func.func @isnan_not_bool(%x: tensor<2x3xf32>) {
  // The result is bool.
  // expected-error @+2 {{'magi.isnan' op inferred type(s) 'tensor<2x3xi1>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'magi.isnan' op failed to infer returned types}}
  %0 = magi.isnan %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @isinf_wrong_shape(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'magi.isinf' op inferred type(s) 'tensor<2x3xi1>' are incompatible with return type(s) of operation 'tensor<3xi1>'}}
  // expected-error @+1 {{'magi.isinf' op failed to infer returned types}}
  %0 = magi.isinf %x : (tensor<2x3xf32>) -> tensor<3xi1>
  return
}

// -----

func.func @logical_xor_broadcast_mismatch(%a: tensor<3xf32>, %b: tensor<4xi1>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 4 in dimension 0 of the broadcast shape}}
  // expected-error @+1 {{'magi.logical_xor' op failed to infer returned types}}
  %0 = magi.logical_xor %a, %b : (tensor<3xf32>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @logical_xor_not_bool(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'magi.logical_xor' op inferred type(s) 'tensor<3xi1>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'magi.logical_xor' op failed to infer returned types}}
  %0 = magi.logical_xor %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @fmod_no_tensor(%a: f64, %b: i64) {
  // expected-error @+2 {{expected at least one tensor operand}}
  // expected-error @+1 {{'magi.fmod' op failed to infer returned types}}
  %0 = magi.fmod %a, %b : (f64, i64) -> tensor<f32>
  return
}

// -----

func.func @fmod_float_scalar_promotes(%a: tensor<4xi32>, %b: f64) {
  // A float scalar makes an int tensor's result f32.
  // expected-error @+2 {{'magi.fmod' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'magi.fmod' op failed to infer returned types}}
  %0 = magi.fmod %a, %b : (tensor<4xi32>, f64) -> tensor<4xi32>
  return
}

// -----

func.func @atan2_int_not_promoted(%a: tensor<4xi32>, %b: tensor<4xi32>) {
  // Integer operands promote to f32.
  // expected-error @+2 {{'magi.atan2' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'magi.atan2' op failed to infer returned types}}
  %0 = magi.atan2 %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @atan2_broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x1x4xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 4 in dimension 2 of the broadcast shape}}
  // expected-error @+1 {{'magi.atan2' op failed to infer returned types}}
  %0 = magi.atan2 %a, %b : (tensor<2x3xf32>, tensor<2x1x4xf32>) -> tensor<2x2x4xf32>
  return
}

// -----

func.func @prod_dim_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dimension 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.prod' op failed to infer returned types}}
  %0 = magi.prod %x {dims = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @prod_dim_repeated(%x: tensor<2x3xf32>) {
  // 1 and -1 are the same dimension.
  // expected-error @+2 {{dimension -1 appears more than once in the reduction}}
  // expected-error @+1 {{'magi.prod' op failed to infer returned types}}
  %0 = magi.prod %x {dims = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @prod_int_keeps_dtype(%x: tensor<2x3xi32>) {
  // Integers multiply in i64.
  // expected-error @+2 {{'magi.prod' op inferred type(s) 'tensor<i64>' are incompatible with return type(s) of operation 'tensor<i32>'}}
  // expected-error @+1 {{'magi.prod' op failed to infer returned types}}
  %0 = magi.prod %x : (tensor<2x3xi32>) -> tensor<i32>
  return
}

// -----

func.func @var_of_integers(%x: tensor<2x3xi32>) {
  // PyTorch's std and var support floating-point dtypes only.
  // expected-error @+2 {{var needs a floating-point tensor, got 'i32'}}
  // expected-error @+1 {{'magi.var' op failed to infer returned types}}
  %0 = magi.var %x : (tensor<2x3xi32>) -> tensor<f32>
  return
}

// -----

func.func @var_dim_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dimension -3 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.var' op failed to infer returned types}}
  %0 = magi.var %x {dims = array<i64: -3>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @var_dim_repeated(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dimension 0 appears more than once in the reduction}}
  // expected-error @+1 {{'magi.var' op failed to infer returned types}}
  %0 = magi.var %x {dims = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @var_half_promoted(%x: tensor<2x3xbf16>) {
  // The input dtype is kept.
  // expected-error @+2 {{'magi.var' op inferred type(s) 'tensor<2xbf16>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{'magi.var' op failed to infer returned types}}
  %0 = magi.var %x {dims = array<i64: 1>} : (tensor<2x3xbf16>) -> tensor<2xf32>
  return
}

// -----

func.func @var_keepdim_mismatch(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'magi.var' op inferred type(s) 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{'magi.var' op failed to infer returned types}}
  %0 = magi.var %x {dims = array<i64: 1>, keepdim = true} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @min_dim_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dimension 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.min_dim' op failed to infer returned types}}
  %0:2 = magi.min_dim %x {dim = 2 : i64} : (tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  return
}

// -----

func.func @min_dim_wrong_index_dtype(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'magi.min_dim' op inferred type(s) 'tensor<2xf32>', 'tensor<2xi64>' are incompatible with return type(s) of operation 'tensor<2xf32>', 'tensor<2xi32>'}}
  // expected-error @+1 {{'magi.min_dim' op failed to infer returned types}}
  %0:2 = magi.min_dim %x {dim = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xi32>)
  return
}

// -----

func.func @argmin_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dimension -3 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.argmin' op failed to infer returned types}}
  %0 = magi.argmin %x {dim = -3 : i64} : (tensor<2x3xf32>) -> tensor<2xi64>
  return
}

// -----

func.func @argmin_wrong_dtype(%x: tensor<2x3xi32>) {
  // expected-error @+2 {{'magi.argmin' op inferred type(s) 'tensor<3xi64>' are incompatible with return type(s) of operation 'tensor<3xi32>'}}
  // expected-error @+1 {{'magi.argmin' op failed to infer returned types}}
  %0 = magi.argmin %x {dim = 0 : i64} : (tensor<2x3xi32>) -> tensor<3xi32>
  return
}

// -----

func.func @topk_k_too_large(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{k = 6 is out of range for a dimension of size 5}}
  // expected-error @+1 {{'magi.topk' op failed to infer returned types}}
  %0:2 = magi.topk %x {k = 6 : i64} : (tensor<4x5xf32>) -> (tensor<4x6xf32>, tensor<4x6xi64>)
  return
}

// -----

func.func @topk_k_negative(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{k = -1 is negative}}
  // expected-error @+1 {{'magi.topk' op failed to infer returned types}}
  %0:2 = magi.topk %x {k = -1 : i64, dim = 0 : i64} : (tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xi64>)
  return
}

// -----

func.func @topk_dim_out_of_range(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{dimension 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.topk' op failed to infer returned types}}
  %0:2 = magi.topk %x {k = 1 : i64, dim = 2 : i64} : (tensor<4x5xf32>) -> (tensor<4x1xf32>, tensor<4x1xi64>)
  return
}

// -----

func.func @topk_wrong_result(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{'magi.topk' op inferred type(s) 'tensor<4x2xf32>', 'tensor<4x2xi64>' are incompatible with return type(s) of operation 'tensor<4x5xf32>', 'tensor<4x2xi32>'}}
  // expected-error @+1 {{'magi.topk' op failed to infer returned types}}
  %0:2 = magi.topk %x {k = 2 : i64} : (tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x2xi32>)
  return
}

// -----

func.func @sort_dim_out_of_range(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{dimension -3 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.sort' op failed to infer returned types}}
  %0:2 = magi.sort %x {dim = -3 : i64} : (tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xi64>)
  return
}

// -----

func.func @sort_wrong_index_dtype(%x: tensor<4x5xf16>) {
  // expected-error @+2 {{'magi.sort' op inferred type(s) 'tensor<4x5xf16>', 'tensor<4x5xi64>' are incompatible with return type(s) of operation 'tensor<4x5xf16>', 'tensor<4x5xi32>'}}
  // expected-error @+1 {{'magi.sort' op failed to infer returned types}}
  %0:2 = magi.sort %x : (tensor<4x5xf16>) -> (tensor<4x5xf16>, tensor<4x5xi32>)
  return
}

// -----

func.func @scatter_index_rank(%x: tensor<4x5xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{index has rank 1 but self has rank 2}}
  // expected-error @+1 {{'magi.scatter' op failed to infer returned types}}
  %0 = magi.scatter %x, %i, %x {dim = 0 : i64} : (tensor<4x5xf32>, tensor<4xi64>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @scatter_src_rank(%x: tensor<4x5xf32>, %i: tensor<2x5xi64>, %s: tensor<5xf32>) {
  // expected-error @+2 {{src has rank 1 but self has rank 2}}
  // expected-error @+1 {{'magi.scatter' op failed to infer returned types}}
  %0 = magi.scatter %x, %i, %s {dim = 0 : i64} : (tensor<4x5xf32>, tensor<2x5xi64>, tensor<5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @scatter_dim_out_of_range(%x: tensor<4x5xf32>, %i: tensor<2x5xi64>) {
  // expected-error @+2 {{dimension 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.scatter' op failed to infer returned types}}
  %0 = magi.scatter %x, %i, %x {dim = 2 : i64} : (tensor<4x5xf32>, tensor<2x5xi64>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @scatter_bad_reduce(%x: tensor<4x5xf32>, %i: tensor<2x5xi64>) {
  // The importer names scatter_reduce's "sum" and "prod" "add" and "multiply".
  // expected-error @+1 {{'magi.scatter' op reduce must be one of "add", "multiply", "mean", "amax", "amin", got "sum"}}
  %0 = magi.scatter %x, %i, %x {dim = 0 : i64, reduce = "sum"} : (tensor<4x5xf32>, tensor<2x5xi64>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @scatter_exclude_self_without_reduce(%x: tensor<4x5xf32>, %i: tensor<2x5xi64>) {
  // expected-error @+1 {{'magi.scatter' op include_self = false needs a reduction}}
  %0 = magi.scatter %x, %i, %x {dim = 0 : i64, include_self = false} : (tensor<4x5xf32>, tensor<2x5xi64>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @scatter_float_index(%x: tensor<4x5xf32>, %i: tensor<2x5xf32>) {
  // expected-error @+1 {{'magi.scatter' op operand #1 must be ranked tensor of 64-bit signless integer or 32-bit signless integer values, but got 'tensor<2x5xf32>'}}
  %0 = magi.scatter %x, %i, %x {dim = 0 : i64} : (tensor<4x5xf32>, tensor<2x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @scatter_wrong_result(%x: tensor<4x5xf32>, %i: tensor<2x5xi64>) {
  // The result has self's shape, not the index's.
  // expected-error @+2 {{'magi.scatter' op inferred type(s) 'tensor<4x5xf32>' are incompatible with return type(s) of operation 'tensor<2x5xf32>'}}
  // expected-error @+1 {{'magi.scatter' op failed to infer returned types}}
  %0 = magi.scatter %x, %i, %x {dim = 0 : i64} : (tensor<4x5xf32>, tensor<2x5xi64>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @index_put_count_mismatch(%x: tensor<4x5xf32>, %i: tensor<2xi64>, %v: tensor<2xf32>) {
  // expected-error @+2 {{got 2 index tensors for 1 indexed dimensions}}
  // expected-error @+1 {{'magi.index_put' op failed to infer returned types}}
  %0 = magi.index_put %x[%i, %i], %v {indexed_dims = array<i64: 0>} : (tensor<4x5xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @index_put_dims_not_increasing(%x: tensor<4x5xf32>, %i: tensor<2xi64>, %v: tensor<2xf32>) {
  // expected-error @+2 {{indexed_dims must be increasing dimensions of self (rank 2)}}
  // expected-error @+1 {{'magi.index_put' op failed to infer returned types}}
  %0 = magi.index_put %x[%i, %i], %v {indexed_dims = array<i64: 1, 0>} : (tensor<4x5xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @index_put_dims_out_of_range(%x: tensor<4x5xf32>, %i: tensor<2xi64>, %v: tensor<2xf32>) {
  // expected-error @+2 {{indexed_dims must be increasing dimensions of self (rank 2)}}
  // expected-error @+1 {{'magi.index_put' op failed to infer returned types}}
  %0 = magi.index_put %x[%i], %v {indexed_dims = array<i64: 2>} : (tensor<4x5xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @index_put_dtype_mismatch(%x: tensor<4x5xf32>, %i: tensor<2xi64>, %v: tensor<2x5xf16>) {
  // PyTorch's index_put needs values of self's dtype (no promotion).
  // expected-error @+2 {{values must have the dtype of self}}
  // expected-error @+1 {{'magi.index_put' op failed to infer returned types}}
  %0 = magi.index_put %x[%i], %v {indexed_dims = array<i64: 0>} : (tensor<4x5xf32>, tensor<2xi64>, tensor<2x5xf16>) -> tensor<4x5xf32>
  return
}

// -----

func.func @index_put_float_index(%x: tensor<4x5xf32>, %i: tensor<2xf32>, %v: tensor<2x5xf32>) {
  // expected-error @+1 {{'magi.index_put' op operand #1 must be variadic of ranked tensor of 64-bit signless integer or 32-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = magi.index_put %x[%i], %v {indexed_dims = array<i64: 0>} : (tensor<4x5xf32>, tensor<2xf32>, tensor<2x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @index_put_wrong_result(%x: tensor<4x5xf32>, %i: tensor<2xi64>, %v: tensor<2x5xf32>) {
  // expected-error @+2 {{'magi.index_put' op inferred type(s) 'tensor<4x5xf32>' are incompatible with return type(s) of operation 'tensor<2x5xf32>'}}
  // expected-error @+1 {{'magi.index_put' op failed to infer returned types}}
  %0 = magi.index_put %x[%i], %v {indexed_dims = array<i64: 0>} : (tensor<4x5xf32>, tensor<2xi64>, tensor<2x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @slice_scatter_bounds_count(%x: tensor<4x5xf32>, %s: tensor<2x5xf32>) {
  // expected-error @+2 {{expected [start, end, step], got 2 bounds}}
  // expected-error @+1 {{'magi.slice_scatter' op failed to infer returned types}}
  %0 = magi.slice_scatter %x, %s, 0 [0, 2] : (tensor<4x5xf32>, tensor<2x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @slice_scatter_dynamic_count(%x: tensor<4x5xf32>, %s: tensor<2x5xf32>) {
  // A `?` bound without its symbolic operand.
  // expected-error @+2 {{expected 1 dynamic values for bounds, got 0}}
  // expected-error @+1 {{'magi.slice_scatter' op failed to infer returned types}}
  %0 = "magi.slice_scatter"(%x, %s) <{dim = 0 : i64, static_bounds = array<i64: 0, -9223372036854775808, 1>}> : (tensor<4x5xf32>, tensor<2x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @slice_scatter_src_rank(%x: tensor<4x5xf32>, %s: tensor<5xf32>) {
  // expected-error @+2 {{src 'tensor<5xf32>' must have the rank and dtype of self 'tensor<4x5xf32>'}}
  // expected-error @+1 {{'magi.slice_scatter' op failed to infer returned types}}
  %0 = magi.slice_scatter %x, %s, 0 [0, 1, 1] : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @slice_scatter_src_dtype(%x: tensor<4x5xf32>, %s: tensor<2x5xf16>) {
  // expected-error @+2 {{src 'tensor<2x5xf16>' must have the rank and dtype of self 'tensor<4x5xf32>'}}
  // expected-error @+1 {{'magi.slice_scatter' op failed to infer returned types}}
  %0 = magi.slice_scatter %x, %s, 0 [0, 2, 1] : (tensor<4x5xf32>, tensor<2x5xf16>) -> tensor<4x5xf32>
  return
}

// -----

func.func @slice_scatter_dim_out_of_range(%x: tensor<4x5xf32>, %s: tensor<4x2xf32>) {
  // expected-error @+2 {{dimension 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.slice_scatter' op failed to infer returned types}}
  %0 = magi.slice_scatter %x, %s, 2 [0, 2, 1] : (tensor<4x5xf32>, tensor<4x2xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @slice_scatter_wrong_result(%x: tensor<4x5xf32>, %s: tensor<4x2xf32>) {
  // The result has self's shape, not src's.
  // expected-error @+2 {{'magi.slice_scatter' op inferred type(s) 'tensor<4x5xf32>' are incompatible with return type(s) of operation 'tensor<4x2xf32>'}}
  // expected-error @+1 {{'magi.slice_scatter' op failed to infer returned types}}
  %0 = magi.slice_scatter %x, %s, 1 [0, 2, 1] : (tensor<4x5xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @select_scatter_index_count(%x: tensor<4x5xf32>, %s: tensor<5xf32>) {
  // expected-error @+2 {{expected one index, got 2}}
  // expected-error @+1 {{'magi.select_scatter' op failed to infer returned types}}
  %0 = magi.select_scatter %x, %s, 0 [1, 2] : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @select_scatter_dynamic_count(%x: tensor<4x5xf32>, %s: tensor<5xf32>, %n: index) {
  // expected-error @+2 {{expected 0 dynamic values for index, got 1}}
  // expected-error @+1 {{'magi.select_scatter' op failed to infer returned types}}
  %0 = "magi.select_scatter"(%x, %s, %n) <{dim = 0 : i64, static_index = array<i64: 1>}> : (tensor<4x5xf32>, tensor<5xf32>, index) -> tensor<4x5xf32>
  return
}

// -----

func.func @select_scatter_src_rank(%x: tensor<4x5xf32>) {
  // src must have the selected dimension removed.
  // expected-error @+2 {{src 'tensor<4x5xf32>' must have the dtype of self and one dimension less than 'tensor<4x5xf32>'}}
  // expected-error @+1 {{'magi.select_scatter' op failed to infer returned types}}
  %0 = magi.select_scatter %x, %x, 0 [1] : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @select_scatter_src_dtype(%x: tensor<4x5xf32>, %s: tensor<5xi32>) {
  // expected-error @+2 {{src 'tensor<5xi32>' must have the dtype of self and one dimension less than 'tensor<4x5xf32>'}}
  // expected-error @+1 {{'magi.select_scatter' op failed to infer returned types}}
  %0 = magi.select_scatter %x, %s, 0 [1] : (tensor<4x5xf32>, tensor<5xi32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @select_scatter_dim_out_of_range(%x: tensor<4x5xf32>, %s: tensor<5xf32>) {
  // expected-error @+2 {{dimension -3 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.select_scatter' op failed to infer returned types}}
  %0 = magi.select_scatter %x, %s, -3 [1] : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @select_scatter_wrong_result(%x: tensor<4x5xf32>, %s: tensor<5xf32>) {
  // expected-error @+2 {{'magi.select_scatter' op inferred type(s) 'tensor<4x5xf32>' are incompatible with return type(s) of operation 'tensor<5xf32>'}}
  // expected-error @+1 {{'magi.select_scatter' op failed to infer returned types}}
  %0 = magi.select_scatter %x, %s, 0 [1] : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @flip_dim_out_of_range(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{dimension 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.flip' op failed to infer returned types}}
  %0 = magi.flip %x {dims = array<i64: 0, 2>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @flip_wrong_result(%x: tensor<4x5xf32>) {
  // flip keeps the shape (it is not a transpose).
  // expected-error @+2 {{'magi.flip' op inferred type(s) 'tensor<4x5xf32>' are incompatible with return type(s) of operation 'tensor<5x4xf32>'}}
  // expected-error @+1 {{'magi.flip' op failed to infer returned types}}
  %0 = magi.flip %x {dims = array<i64: 0, 1>} : (tensor<4x5xf32>) -> tensor<5x4xf32>
  return
}

// -----

func.func @repeat_too_few(%x: tensor<4x5xf32>) {
  // As in PyTorch, repeat takes at least one count per dimension of self.
  // expected-error @+2 {{repeat needs at least 2 repeats, got 1}}
  // expected-error @+1 {{'magi.repeat' op failed to infer returned types}}
  %0 = magi.repeat %x {repeats = array<i64: 2>} : (tensor<4x5xf32>) -> tensor<8x5xf32>
  return
}

// -----

func.func @repeat_negative(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{repeat count -1 is negative}}
  // expected-error @+1 {{'magi.repeat' op failed to infer returned types}}
  %0 = magi.repeat %x {repeats = array<i64: 2, -1>} : (tensor<4x5xf32>) -> tensor<8x5xf32>
  return
}

// -----

func.func @repeat_wrong_result(%x: tensor<4x5xf32>) {
  // Extra counts add leading dimensions; they do not multiply existing ones.
  // expected-error @+2 {{'magi.repeat' op inferred type(s) 'tensor<3x4x10xf32>' are incompatible with return type(s) of operation 'tensor<12x10xf32>'}}
  // expected-error @+1 {{'magi.repeat' op failed to infer returned types}}
  %0 = magi.repeat %x {repeats = array<i64: 3, 1, 2>} : (tensor<4x5xf32>) -> tensor<12x10xf32>
  return
}

// -----

func.func @tril_rank_1(%x: tensor<4xf32>) {
  // expected-error @+2 {{needs a tensor of rank >= 2, got 1}}
  // expected-error @+1 {{'magi.tril' op failed to infer returned types}}
  %0 = magi.tril %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @triu_rank_0(%x: tensor<f32>) {
  // expected-error @+2 {{needs a tensor of rank >= 2, got 0}}
  // expected-error @+1 {{'magi.triu' op failed to infer returned types}}
  %0 = magi.triu %x {diagonal = 1 : i64} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @tril_wrong_result(%x: tensor<4x4xi1>) {
  // expected-error @+2 {{'magi.tril' op inferred type(s) 'tensor<4x4xi1>' are incompatible with return type(s) of operation 'tensor<4x4xf32>'}}
  // expected-error @+1 {{'magi.tril' op failed to infer returned types}}
  %0 = magi.tril %x : (tensor<4x4xi1>) -> tensor<4x4xf32>
  return
}

// -----

func.func @mm_transpose_mat2_contraction_mismatch(%a: tensor<8x64xf32>, %b: tensor<64x16xf32>) {
  // mat2 transposed is 16x64: self's 64 columns meet its 16 rows.
  // expected-error @+2 {{contraction sizes do not match: 64 vs 16}}
  // expected-error @+1 {{'magi.mm' op failed to infer returned types}}
  %0 = magi.mm %a, %b {transpose_mat2} : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x64xf32>
  return
}

// -----

func.func @mm_transpose_self_contraction_mismatch(%a: tensor<8x64xf32>, %b: tensor<64x16xf32>) {
  // self transposed is 64x8: its 8 columns meet mat2's 64 rows, although the
  // untransposed product would be valid.
  // expected-error @+2 {{contraction sizes do not match: 8 vs 64}}
  // expected-error @+1 {{'magi.mm' op failed to infer returned types}}
  %0 = magi.mm %a, %b {transpose_self} : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @mm_transposed_wrong_result(%a: tensor<64x8xf32>, %b: tensor<64x16xf32>) {
  // self transposed is 8x64.
  // expected-error @+2 {{'magi.mm' op inferred type(s) 'tensor<8x16xf32>' are incompatible with return type(s) of operation 'tensor<64x16xf32>'}}
  // expected-error @+1 {{'magi.mm' op failed to infer returned types}}
  %0 = magi.mm %a, %b {transpose_self} : (tensor<64x8xf32>, tensor<64x16xf32>) -> tensor<64x16xf32>
  return
}

// -----

func.func @mm_transpose_not_unit(%a: tensor<8x64xf32>, %b: tensor<16x64xf32>) {
  // expected-error @+1 {{'magi.mm' op attribute 'transpose_mat2' failed to satisfy constraint: unit attribute}}
  %0 = magi.mm %a, %b {transpose_mat2 = true} : (tensor<8x64xf32>, tensor<16x64xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @bmm_transpose_mat2_contraction_mismatch(%q: tensor<4x8x64xf16>, %k: tensor<4x16x32xf16>) {
  // expected-error @+2 {{contraction sizes do not match: 64 vs 32}}
  // expected-error @+1 {{'magi.bmm' op failed to infer returned types}}
  %0 = magi.bmm %q, %k {transpose_mat2} : (tensor<4x8x64xf16>, tensor<4x16x32xf16>) -> tensor<4x8x16xf16>
  return
}

// -----

func.func @bmm_transposed_wrong_result(%q: tensor<4x8x64xf16>, %k: tensor<4x16x64xf16>) {
  // Only the last two dimensions are transposed, never the batch.
  // expected-error @+2 {{'magi.bmm' op inferred type(s) 'tensor<4x8x16xf16>' are incompatible with return type(s) of operation 'tensor<16x8x4xf16>'}}
  // expected-error @+1 {{'magi.bmm' op failed to infer returned types}}
  %0 = magi.bmm %q, %k {transpose_mat2} : (tensor<4x8x64xf16>, tensor<4x16x64xf16>) -> tensor<16x8x4xf16>
  return
}

// -----

func.func @addmm_transposed_contraction_mismatch(%bias: tensor<16xf32>, %a: tensor<64x8xf32>, %b: tensor<16x32xf32>) {
  // expected-error @+2 {{contraction sizes do not match: 64 vs 32}}
  // expected-error @+1 {{'magi.addmm' op failed to infer returned types}}
  %0 = magi.addmm %bias, %a, %b {transpose_mat1, transpose_mat2} : (tensor<16xf32>, tensor<64x8xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @addmm_transposed_bias_mismatch(%bias: tensor<64xf32>, %a: tensor<?x64xf32>, %w: tensor<128x64xf32>) {
  // The product is ?x128: a bias of the input size does not broadcast to it.
  // expected-error @+2 {{shapes are not broadcast-compatible: size 64 vs 128 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.addmm' op failed to infer returned types}}
  %0 = magi.addmm %bias, %a, %w {transpose_mat2} : (tensor<64xf32>, tensor<?x64xf32>, tensor<128x64xf32>) -> tensor<?x128xf32>
  return
}

// -----

func.func @addmm_transposed_wrong_result(%bias: tensor<128xf32>, %a: tensor<?x64xf32>, %w: tensor<128x64xf32>) {
  // expected-error @+2 {{'magi.addmm' op inferred type(s) 'tensor<?x128xf32>' are incompatible with return type(s) of operation 'tensor<?x64xf32>'}}
  // expected-error @+1 {{'magi.addmm' op failed to infer returned types}}
  %0 = magi.addmm %bias, %a, %w {transpose_mat2} : (tensor<128xf32>, tensor<?x64xf32>, tensor<128x64xf32>) -> tensor<?x64xf32>
  return
}

// -----

func.func @scatter_src_dtype(%x: tensor<4x5xf32>, %i: tensor<4x5xi64>, %s: tensor<4x5xf16>) {
  // expected-error @+2 {{src has dtype 'f16' but self has dtype 'f32'}}
  // expected-error @+1 {{'magi.scatter' op failed to infer returned types}}
  %0 = magi.scatter %x, %i, %s {dim = 0 : i64} : (tensor<4x5xf32>, tensor<4x5xi64>, tensor<4x5xf16>) -> tensor<4x5xf32>
  return
}

// -----

func.func @scatter_index_too_big(%x: tensor<4x5xf32>, %i: tensor<9x9xi64>, %s: tensor<4x5xf32>) {
  // expected-error @+2 {{index size 9 in dimension 0 exceeds the size of src or self}}
  // expected-error @+1 {{'magi.scatter' op failed to infer returned types}}
  %0 = magi.scatter %x, %i, %s {dim = 0 : i64} : (tensor<4x5xf32>, tensor<9x9xi64>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @slice_scatter_step(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{slice step must be positive, got -1}}
  // expected-error @+1 {{'magi.slice_scatter' op failed to infer returned types}}
  %0 = magi.slice_scatter %x, %x, 0 [0, 4, -1] : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @slice_scatter_src_shape(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{src 'tensor<4x5xf32>' does not have the shape of the slice, 'tensor<2x5xf32>'}}
  // expected-error @+1 {{'magi.slice_scatter' op failed to infer returned types}}
  %0 = magi.slice_scatter %x, %x, 0 [0, 2, 1] : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @select_scatter_index(%x: tensor<4x5xf32>, %r: tensor<5xf32>) {
  // expected-error @+2 {{index 10 is out of range for a dimension of size 4}}
  // expected-error @+1 {{'magi.select_scatter' op failed to infer returned types}}
  %0 = magi.select_scatter %x, %r, 0 [10] : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @select_scatter_src_shape(%x: tensor<4x5xf32>, %r: tensor<4xf32>) {
  // expected-error @+2 {{src 'tensor<4xf32>' does not have the shape of the selected slice}}
  // expected-error @+1 {{'magi.select_scatter' op failed to infer returned types}}
  %0 = magi.select_scatter %x, %r, 0 [1] : (tensor<4x5xf32>, tensor<4xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @flip_twice(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{dimension 0 appears more than once}}
  // expected-error @+1 {{'magi.flip' op failed to infer returned types}}
  %0 = magi.flip %x {dims = array<i64: 0, 0>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @index_put_values_shape(%x: tensor<4x5xf32>, %i: tensor<2xi64>, %v: tensor<7x9xf32>) {
  // expected-error @+2 {{values 'tensor<7x9xf32>' do not broadcast to the indexed shape 'tensor<2x5xf32>'}}
  // expected-error @+1 {{'magi.index_put' op failed to infer returned types}}
  %0 = magi.index_put %x[%i], %v {indexed_dims = array<i64: 0>} : (tensor<4x5xf32>, tensor<2xi64>, tensor<7x9xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @topk_zero_d(%x: tensor<f32>) {
  // expected-error @+2 {{k = 2 is out of range for a dimension of size 1}}
  // expected-error @+1 {{'magi.topk' op failed to infer returned types}}
  %0:2 = magi.topk %x {k = 2 : i64} : (tensor<f32>) -> (tensor<f32>, tensor<i64>)
  return
}
