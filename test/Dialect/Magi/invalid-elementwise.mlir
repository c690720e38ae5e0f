// RUN: magi-opt %s -split-input-file -verify-diagnostics

// Verifier and inference errors of the elementwise ops.

func.func @broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 4 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.add' op failed to infer returned types}}
  %0 = magi.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_mismatch_leading(%a: tensor<2x1x3xf32>, %b: tensor<5x1x3xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 2 vs 5 in dimension 0 of the broadcast shape}}
  // expected-error @+1 {{'magi.mul' op failed to infer returned types}}
  %0 = magi.mul %a, %b : (tensor<2x1x3xf32>, tensor<5x1x3xf32>) -> tensor<2x1x3xf32>
  return
}

// -----

func.func @broadcast_mismatch_where(%c: tensor<3xi1>, %a: tensor<4xf32>) {
  // The condition takes part in broadcasting.
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 4 in dimension 0 of the broadcast shape}}
  // expected-error @+1 {{'magi.where' op failed to infer returned types}}
  %0 = magi.where %c, %a, %a : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @broadcast_wrong_result_shape(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'magi.sub' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'magi.sub' op failed to infer returned types}}
  %0 = magi.sub %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @no_tensor_operand(%a: f64, %b: f64) {
  // expected-error @+2 {{expected at least one tensor operand}}
  // expected-error @+1 {{'magi.add' op failed to infer returned types}}
  %0 = magi.add %a, %b : (f64, f64) -> tensor<f32>
  return
}

// -----

func.func @promotion_wrong_dtype_int_float_scalar(%a: tensor<4xi32>, %f: f64) {
  // An integer tensor with a Python float gives the default dtype, f32.
  // expected-error @+2 {{'magi.add' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'magi.add' op failed to infer returned types}}
  %0 = magi.add %a, %f : (tensor<4xi32>, f64) -> tensor<4xi32>
  return
}

// -----

func.func @promotion_wrong_dtype_scalar_widens(%a: tensor<4xbf16>, %f: f64) {
  // A Python float does not widen a bf16 tensor.
  // expected-error @+2 {{'magi.mul' op inferred type(s) 'tensor<4xbf16>' are incompatible with return type(s) of operation 'tensor<4xf64>'}}
  // expected-error @+1 {{'magi.mul' op failed to infer returned types}}
  %0 = magi.mul %a, %f : (tensor<4xbf16>, f64) -> tensor<4xf64>
  return
}

// -----

func.func @promotion_wrong_dtype_half(%a: tensor<4xbf16>, %b: tensor<4xf16>) {
  // expected-error @+2 {{'magi.add' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xbf16>'}}
  // expected-error @+1 {{'magi.add' op failed to infer returned types}}
  %0 = magi.add %a, %b : (tensor<4xbf16>, tensor<4xf16>) -> tensor<4xbf16>
  return
}

// -----

func.func @promotion_wrong_dtype_uint8(%a: tensor<4xui8>, %b: tensor<4xi8>) {
  // expected-error @+2 {{'magi.add' op inferred type(s) 'tensor<4xi16>' are incompatible with return type(s) of operation 'tensor<4xi8>'}}
  // expected-error @+1 {{'magi.add' op failed to infer returned types}}
  %0 = magi.add %a, %b : (tensor<4xui8>, tensor<4xi8>) -> tensor<4xi8>
  return
}

// -----

func.func @promotion_wrong_dtype_0d(%a: tensor<4xf16>, %b: tensor<f64>) {
  // A 0-d tensor of the same category does not widen.
  // expected-error @+2 {{'magi.add' op inferred type(s) 'tensor<4xf16>' are incompatible with return type(s) of operation 'tensor<4xf64>'}}
  // expected-error @+1 {{'magi.add' op failed to infer returned types}}
  %0 = magi.add %a, %b : (tensor<4xf16>, tensor<f64>) -> tensor<4xf64>
  return
}

// -----

func.func @unary_wrong_dtype(%a: tensor<4xi64>) {
  // expected-error @+2 {{'magi.exp' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi64>'}}
  // expected-error @+1 {{'magi.exp' op failed to infer returned types}}
  %0 = magi.exp %a : (tensor<4xi64>) -> tensor<4xi64>
  return
}

// -----

func.func @unary_wrong_shape(%a: tensor<4xf32>) {
  // expected-error @+2 {{'magi.neg' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<5xf32>'}}
  // expected-error @+1 {{'magi.neg' op failed to infer returned types}}
  %0 = magi.neg %a : (tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @unary_wrong_rank(%a: tensor<4xf32>) {
  // expected-error @+2 {{'magi.relu' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4x1xf32>'}}
  // expected-error @+1 {{'magi.relu' op failed to infer returned types}}
  %0 = magi.relu %a : (tensor<4xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @logical_not_not_bool(%a: tensor<4xf32>) {
  // expected-error @+2 {{'magi.logical_not' op inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'magi.logical_not' op failed to infer returned types}}
  %0 = magi.logical_not %a : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @compare_not_bool(%a: tensor<4xf32>) {
  // expected-error @+2 {{'magi.lt' op inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'magi.lt' op failed to infer returned types}}
  %0 = magi.lt %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @bitwise_not_float(%a: tensor<4xf32>) {
  // expected-error @+2 {{bitwise_not needs an integer or bool tensor, got 'f32'}}
  // expected-error @+1 {{'magi.bitwise_not' op failed to infer returned types}}
  %0 = magi.bitwise_not %a : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @bitwise_and_float(%a: tensor<4xi32>, %b: tensor<4xbf16>) {
  // expected-error @+2 {{bitwise ops need integer or bool operands, got 'bf16'}}
  // expected-error @+1 {{'magi.bitwise_and' op failed to infer returned types}}
  %0 = magi.bitwise_and %a, %b : (tensor<4xi32>, tensor<4xbf16>) -> tensor<4xbf16>
  return
}

// -----

func.func @bitwise_or_float_scalar(%a: tensor<4xi32>, %f: f64) {
  // expected-error @+2 {{bitwise ops need integer or bool operands, got 'f32'}}
  // expected-error @+1 {{'magi.bitwise_or' op failed to infer returned types}}
  %0 = magi.bitwise_or %a, %f : (tensor<4xi32>, f64) -> tensor<4xf32>
  return
}

// -----

func.func @bitwise_xor_float(%a: tensor<4xf16>) {
  // expected-error @+2 {{bitwise ops need integer or bool operands, got 'f16'}}
  // expected-error @+1 {{'magi.bitwise_xor' op failed to infer returned types}}
  %0 = magi.bitwise_xor %a, %a : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return
}

// -----

func.func @gelu_bad_approximate(%a: tensor<4xf32>) {
  // expected-error @+1 {{'magi.gelu' op approximate must be "none" or "tanh", got "erf"}}
  %0 = magi.gelu %a {approximate = "erf"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @div_bad_rounding_mode(%a: tensor<4xf32>) {
  // expected-error @+1 {{'magi.div' op rounding_mode must be "trunc" or "floor", got "round"}}
  %0 = magi.div %a, %a {rounding_mode = "round"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @div_true_division_of_ints(%a: tensor<4xi32>) {
  // expected-error @+2 {{'magi.div' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'magi.div' op failed to infer returned types}}
  %0 = magi.div %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @clamp_no_bounds(%a: tensor<4xf32>) {
  // expected-error @+1 {{'magi.clamp' op needs at least one of min and max}}
  %0 = magi.clamp %a : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @clamp_int_bound(%a: tensor<4xf32>) {
  // expected-error @+1 {{'magi.clamp' op attribute 'min' failed to satisfy constraint: 64-bit float attribute}}
  %0 = magi.clamp %a {min = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @where_condition_not_bool(%c: tensor<4xi32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'magi.where' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = magi.where %c, %a, %a : (tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @to_copy_wrong_dtype(%a: tensor<4xf32>) {
  // expected-error @+2 {{'magi.to_copy' op inferred type(s) 'tensor<4xf16>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'magi.to_copy' op failed to infer returned types}}
  %0 = magi.to_copy %a {dtype = f16} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @clone_wrong_dtype(%a: tensor<4xf32>) {
  // expected-error @+2 {{'magi.clone' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf16>'}}
  // expected-error @+1 {{'magi.clone' op failed to infer returned types}}
  %0 = magi.clone %a : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @copy_src_higher_rank(%a: tensor<2x3xf32>, %b: tensor<4x2x3xf32>) {
  // expected-error @+2 {{source of shape 'tensor<4x2x3xf32>' does not broadcast to 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'magi.copy' op failed to infer returned types}}
  %0 = magi.copy %a, %b : (tensor<2x3xf32>, tensor<4x2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @copy_src_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 4 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.copy' op failed to infer returned types}}
  %0 = magi.copy %a, %b : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @unsupported_dtype(%a: tensor<4xi3>) {
  // expected-error @+1 {{'magi.neg' op operand #0 must be ranked tensor of PyTorch dtype values, but got 'tensor<4xi3>'}}
  %0 = magi.neg %a : (tensor<4xi3>) -> tensor<4xi3>
  return
}

// -----

func.func @unsupported_scalar(%a: tensor<4xf32>, %b: f32) {
  // expected-error @+1 {{'magi.add' op operand #1 must be tensor or Python scalar, but got 'f32'}}
  %0 = magi.add %a, %b : (tensor<4xf32>, f32) -> tensor<4xf32>
  return
}

// -----

func.func @unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'magi.abs' op operand #0 must be ranked tensor of PyTorch dtype values, but got 'tensor<*xf32>'}}
  %0 = magi.abs %a : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @alpha_not_float(%a: tensor<4xf32>) {
  // expected-error @+1 {{'magi.add' op attribute 'alpha' failed to satisfy constraint: 64-bit float attribute}}
  %0 = magi.add %a, %a {alpha = 2 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @sub_broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 2 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.sub' op failed to infer returned types}}
  %0 = magi.sub %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @div_broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 2 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.div' op failed to infer returned types}}
  %0 = magi.div %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @pow_broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 2 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.pow' op failed to infer returned types}}
  %0 = magi.pow %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @remainder_broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 2 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.remainder' op failed to infer returned types}}
  %0 = magi.remainder %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @maximum_broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 2 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.maximum' op failed to infer returned types}}
  %0 = magi.maximum %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @minimum_broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 2 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.minimum' op failed to infer returned types}}
  %0 = magi.minimum %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @logical_and_broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 2 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.logical_and' op failed to infer returned types}}
  %0 = magi.logical_and %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xi1>
  return
}

// -----

func.func @logical_or_broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 2 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.logical_or' op failed to infer returned types}}
  %0 = magi.logical_or %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xi1>
  return
}

// -----

func.func @eq_broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 2 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.eq' op failed to infer returned types}}
  %0 = magi.eq %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xi1>
  return
}

// -----

func.func @ne_broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 2 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.ne' op failed to infer returned types}}
  %0 = magi.ne %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xi1>
  return
}

// -----

func.func @lt_broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 2 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.lt' op failed to infer returned types}}
  %0 = magi.lt %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xi1>
  return
}

// -----

func.func @le_broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 2 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.le' op failed to infer returned types}}
  %0 = magi.le %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xi1>
  return
}

// -----

func.func @gt_broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 2 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.gt' op failed to infer returned types}}
  %0 = magi.gt %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xi1>
  return
}

// -----

func.func @ge_broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 2 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.ge' op failed to infer returned types}}
  %0 = magi.ge %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xi1>
  return
}

// -----

func.func @bitwise_and_broadcast_mismatch(%a: tensor<2x3xi32>, %b: tensor<2xi32>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 3 vs 2 in dimension 1 of the broadcast shape}}
  // expected-error @+1 {{'magi.bitwise_and' op failed to infer returned types}}
  %0 = magi.bitwise_and %a, %b : (tensor<2x3xi32>, tensor<2xi32>) -> tensor<2x3xi32>
  return
}

// -----

func.func @cos_of_integers_is_float(%a: tensor<4xi32>) {
  // expected-error @+2 {{'magi.cos' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'magi.cos' op failed to infer returned types}}
  %0 = magi.cos %a : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @sin_of_integers_is_float(%a: tensor<4xi32>) {
  // expected-error @+2 {{'magi.sin' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'magi.sin' op failed to infer returned types}}
  %0 = magi.sin %a : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @log_of_integers_is_float(%a: tensor<4xi32>) {
  // expected-error @+2 {{'magi.log' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'magi.log' op failed to infer returned types}}
  %0 = magi.log %a : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @sqrt_of_integers_is_float(%a: tensor<4xi32>) {
  // expected-error @+2 {{'magi.sqrt' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'magi.sqrt' op failed to infer returned types}}
  %0 = magi.sqrt %a : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @rsqrt_of_integers_is_float(%a: tensor<4xi32>) {
  // expected-error @+2 {{'magi.rsqrt' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'magi.rsqrt' op failed to infer returned types}}
  %0 = magi.rsqrt %a : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @reciprocal_of_integers_is_float(%a: tensor<4xi32>) {
  // expected-error @+2 {{'magi.reciprocal' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'magi.reciprocal' op failed to infer returned types}}
  %0 = magi.reciprocal %a : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @sigmoid_of_integers_is_float(%a: tensor<4xi32>) {
  // expected-error @+2 {{'magi.sigmoid' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'magi.sigmoid' op failed to infer returned types}}
  %0 = magi.sigmoid %a : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @tanh_of_integers_is_float(%a: tensor<4xi32>) {
  // expected-error @+2 {{'magi.tanh' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'magi.tanh' op failed to infer returned types}}
  %0 = magi.tanh %a : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @erf_of_integers_is_float(%a: tensor<4xi32>) {
  // expected-error @+2 {{'magi.erf' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'magi.erf' op failed to infer returned types}}
  %0 = magi.erf %a : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @silu_keeps_float_dtype(%a: tensor<4xf16>) {
  // expected-error @+2 {{'magi.silu' op inferred type(s) 'tensor<4xf16>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'magi.silu' op failed to infer returned types}}
  %0 = magi.silu %a : (tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @gelu_keeps_float_dtype(%a: tensor<4xf16>) {
  // expected-error @+2 {{'magi.gelu' op inferred type(s) 'tensor<4xf16>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'magi.gelu' op failed to infer returned types}}
  %0 = magi.gelu %a : (tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @abs_wrong_result(%a: tensor<4xi32>) {
  // expected-error @+2 {{'magi.abs' op inferred type(s) 'tensor<4xi32>' are incompatible with return type(s) of operation 'tensor<4xi64>'}}
  // expected-error @+1 {{'magi.abs' op failed to infer returned types}}
  %0 = magi.abs %a : (tensor<4xi32>) -> tensor<4xi64>
  return
}

// -----

func.func @bitwise_not_wrong_result(%a: tensor<4xi32>) {
  // expected-error @+2 {{'magi.bitwise_not' op inferred type(s) 'tensor<4xi32>' are incompatible with return type(s) of operation 'tensor<4xi64>'}}
  // expected-error @+1 {{'magi.bitwise_not' op failed to infer returned types}}
  %0 = magi.bitwise_not %a : (tensor<4xi32>) -> tensor<4xi64>
  return
}

// -----

func.func @where_wrong_dtype(%c: tensor<4xi1>, %a: tensor<4xi32>, %f: f64) {
  // An integer tensor with a Python float: f32.
  // expected-error @+2 {{'magi.where' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'magi.where' op failed to infer returned types}}
  %0 = magi.where %c, %a, %f : (tensor<4xi1>, tensor<4xi32>, f64) -> tensor<4xi32>
  return
}

// -----

func.func @where_no_tensor_value(%c: f64, %f: f64) {
  // expected-error @+1 {{'magi.where' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'f64'}}
  %0 = magi.where %c, %f, %f : (f64, f64, f64) -> tensor<f32>
  return
}

// -----

func.func @clamp_wrong_result(%a: tensor<4xbf16>) {
  // expected-error @+2 {{'magi.clamp' op inferred type(s) 'tensor<4xbf16>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'magi.clamp' op failed to infer returned types}}
  %0 = magi.clamp %a {max = 1.0} : (tensor<4xbf16>) -> tensor<4xf32>
  return
}

// -----

func.func @copy_wrong_result(%a: tensor<2x3xf32>, %b: tensor<3xbf16>) {
  // The result has the type of self.
  // expected-error @+2 {{'magi.copy' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3xbf16>'}}
  // expected-error @+1 {{'magi.copy' op failed to infer returned types}}
  %0 = magi.copy %a, %b : (tensor<2x3xf32>, tensor<3xbf16>) -> tensor<2x3xbf16>
  return
}
