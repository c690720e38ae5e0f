// RUN: magi-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// magi.batch_norm: forms that verify (f32 statistics for a bf16 input,
// without weight or bias, a symbolic batch) and every inference error.

// CHECK-LABEL: func.func @valid
func.func @valid(%x: tensor<?x4x5x5xbf16>, %m: tensor<4xf32>, %v: tensor<4xf32>,
                 %w: tensor<4xbf16>, %b: tensor<4xbf16>, %y: tensor<2x3xf32>,
                 %m3: tensor<3xf32>) {
  // CHECK: magi.batch_norm %{{.*}}, %{{.*}}, %{{.*}} weight %{{.*}} bias %{{.*}} {eps = 1.000000e-05 : f64} : (tensor<?x4x5x5xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>, tensor<4xbf16>) -> tensor<?x4x5x5xbf16>
  %0 = magi.batch_norm %x, %m, %v weight %w bias %b {eps = 1.0e-05 : f64} : (tensor<?x4x5x5xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>, tensor<4xbf16>) -> tensor<?x4x5x5xbf16>
  // CHECK: magi.batch_norm %{{.*}}, %{{.*}}, %{{.*}} {eps = 1.000000e-03 : f64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = magi.batch_norm %y, %m3, %m3 {eps = 1.0e-03 : f64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @rank(%x: tensor<4xf32>, %m: tensor<4xf32>) {
  // expected-error @+2 {{batch_norm input must be [N, C, ...], got rank 1}}
  // expected-error @+1 {{'magi.batch_norm' op failed to infer returned types}}
  %0 = magi.batch_norm %x, %m, %m {eps = 1.0e-05 : f64} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @integer(%x: tensor<2x4xi64>, %m: tensor<4xf32>) {
  // expected-error @+2 {{batch_norm needs a floating-point input, got 'i64'}}
  // expected-error @+1 {{'magi.batch_norm' op failed to infer returned types}}
  %0 = magi.batch_norm %x, %m, %m {eps = 1.0e-05 : f64} : (tensor<2x4xi64>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xi64>
  return
}

// -----

func.func @stats_shape(%x: tensor<2x4xf32>, %m: tensor<4xf32>, %v: tensor<3xf32>) {
  // expected-error @+2 {{batch_norm running_var must be [4] (the channels), got 'tensor<3xf32>'}}
  // expected-error @+1 {{'magi.batch_norm' op failed to infer returned types}}
  %0 = magi.batch_norm %x, %m, %v {eps = 1.0e-05 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @weight_dtype(%x: tensor<2x4xbf16>, %m: tensor<4xf32>, %w: tensor<4xf16>) {
  // expected-error @+2 {{batch_norm weight must have the input's dtype or f32, got 'f16'}}
  // expected-error @+1 {{'magi.batch_norm' op failed to infer returned types}}
  %0 = magi.batch_norm %x, %m, %m weight %w {eps = 1.0e-05 : f64} : (tensor<2x4xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>) -> tensor<2x4xbf16>
  return
}
