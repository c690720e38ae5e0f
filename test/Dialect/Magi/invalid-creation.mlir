// RUN: magi-opt %s -split-input-file -verify-diagnostics

// Verifier and inference errors of the constant and creation ops.

func.func @constant_not_tensor() {
  // expected-error @+2 {{value must be a ranked tensor literal}}
  // expected-error @+1 {{'magi.constant' op failed to infer returned types}}
  %0 = "magi.constant"() <{value = dense<1.0> : vector<2xf32>}> : () -> tensor<2xf32>
  return
}

// -----

func.func @constant_bad_dtype() {
  // expected-error @+1 {{'magi.constant' op result #0 must be ranked tensor of PyTorch dtype values, but got 'tensor<2xi3>'}}
  %0 = magi.constant dense<1> : tensor<2xi3>
  return
}

// -----

func.func @constant_wrong_result_type() {
  // expected-error @+2 {{'magi.constant' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<2xf16>'}}
  // expected-error @+1 {{'magi.constant' op failed to infer returned types}}
  %0 = "magi.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf16>
  return
}

// -----

func.func @scalar_tensor_wrong_dtype(%f: f64) {
  // expected-error @+2 {{'magi.scalar_tensor' op inferred type(s) 'tensor<f32>' are incompatible with return type(s) of operation 'tensor<f64>'}}
  // expected-error @+1 {{'magi.scalar_tensor' op failed to infer returned types}}
  %0 = magi.scalar_tensor %f {dtype = f32} : (f64) -> tensor<f64>
  return
}

// -----

func.func @scalar_tensor_from_tensor(%x: tensor<f32>) {
  // expected-error @+1 {{'magi.scalar_tensor' op operand #0 must be Python scalar, but got 'tensor<f32>'}}
  %0 = magi.scalar_tensor %x {dtype = f32} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @scalar_tensor_f32_scalar(%f: f32) {
  // A Python float is f64.
  // expected-error @+1 {{'magi.scalar_tensor' op operand #0 must be Python scalar, but got 'f32'}}
  %0 = magi.scalar_tensor %f {dtype = f32} : (f32) -> tensor<f32>
  return
}

// -----

func.func @full_negative_size() {
  // expected-error @+2 {{size -2 is negative}}
  // expected-error @+1 {{'magi.full' op failed to infer returned types}}
  %0 = magi.full [3, -2] {fill_value = 0.0 : f64, dtype = f32} : tensor<3x2xf32>
  return
}

// -----

func.func @full_wrong_shape(%s: index) {
  // expected-error @+2 {{'magi.full' op inferred type(s) 'tensor<2x?xf32>' are incompatible with return type(s) of operation 'tensor<3x?xf32>'}}
  // expected-error @+1 {{'magi.full' op failed to infer returned types}}
  %0 = magi.full [2, %s] {fill_value = 0.0 : f64, dtype = f32} : tensor<3x?xf32>
  return
}

// -----

func.func @full_dynamic_count_mismatch(%s: index) {
  // expected-error @+2 {{expected 0 dynamic values for sizes, got 1}}
  // expected-error @+1 {{'magi.full' op failed to infer returned types}}
  %0 = "magi.full"(%s) <{static_sizes = array<i64: 2, 3>, fill_value = 0.0 : f64, dtype = f32}> : (index) -> tensor<2x3xf32>
  return
}

// -----

func.func @full_bad_fill_value() {
  // expected-error @+1 {{'magi.full' op attribute 'fill_value' failed to satisfy constraint}}
  %0 = magi.full [2] {fill_value = "one", dtype = f32} : tensor<2xf32>
  return
}

// -----

func.func @full_like_wrong_dtype(%x: tensor<2x?xbf16>) {
  // expected-error @+2 {{'magi.full_like' op inferred type(s) 'tensor<2x?xf32>' are incompatible with return type(s) of operation 'tensor<2x?xbf16>'}}
  // expected-error @+1 {{'magi.full_like' op failed to infer returned types}}
  %0 = magi.full_like %x {fill_value = 0.0 : f64, dtype = f32} : (tensor<2x?xbf16>) -> tensor<2x?xbf16>
  return
}

// -----

func.func @arange_zero_step() {
  %c0 = arith.constant 0 : i64
  %c10 = arith.constant 10 : i64
  // expected-error @+2 {{step must be nonzero}}
  // expected-error @+1 {{'magi.arange' op failed to infer returned types}}
  %0 = magi.arange %c0, %c10, %c0 {dtype = i64} : (i64, i64, i64) -> tensor<?xi64>
  return
}

// -----

func.func @arange_wrong_length() {
  %c0 = arith.constant 0 : i64
  %c10 = arith.constant 10 : i64
  %c3 = arith.constant 3 : i64
  // ceil(10 / 3) = 4.
  // expected-error @+2 {{'magi.arange' op inferred type(s) 'tensor<4xi64>' are incompatible with return type(s) of operation 'tensor<3xi64>'}}
  // expected-error @+1 {{'magi.arange' op failed to infer returned types}}
  %0 = magi.arange %c0, %c10, %c3 {dtype = i64} : (i64, i64, i64) -> tensor<3xi64>
  return
}

