// RUN: magi-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// magi.max_pool and magi.avg_pool: forms that verify and every inference
// error.

// CHECK-LABEL: func.func @valid
func.func @valid(%x: tensor<?x3x?x?xbf16>, %y: tensor<2x5x6x7xf32>) {
  // CHECK: magi.max_pool %{{.*}} {ceil_mode, dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<?x3x?x?xbf16>) -> (tensor<?x3x?x?xbf16>, tensor<?x3x?x?xi64>)
  %v, %i = magi.max_pool %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode} : (tensor<?x3x?x?xbf16>) -> (tensor<?x3x?x?xbf16>, tensor<?x3x?x?xi64>)
  // CHECK: magi.avg_pool %{{.*}} {count_include_pad = false, divisor_override = 4 : i64, kernel_size = array<i64: 2, 2, 2>, padding = array<i64: 1, 0, 1>, stride = array<i64: 2, 3, 2>} : (tensor<2x5x6x7xf32>) -> tensor<2x3x2x4xf32>
  %a = magi.avg_pool %y {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 3, 2>, padding = array<i64: 1, 0, 1>, count_include_pad = false, divisor_override = 4 : i64} : (tensor<2x5x6x7xf32>) -> tensor<2x3x2x4xf32>
  return
}

// -----

func.func @max_integer(%x: tensor<1x4x4xi32>) {
  // expected-error @+2 {{max_pool needs a floating-point input, got 'i32'}}
  // expected-error @+1 {{'magi.max_pool' op failed to infer returned types}}
  %0:2 = magi.max_pool %x {kernel_size = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 0>, dilation = array<i64: 1>} : (tensor<1x4x4xi32>) -> (tensor<1x4x2xi32>, tensor<1x4x2xi64>)
  return
}

// -----

func.func @avg_integer(%x: tensor<1x4x4xi32>) {
  // expected-error @+2 {{avg_pool needs a floating-point input, got 'i32'}}
  // expected-error @+1 {{'magi.avg_pool' op failed to infer returned types}}
  %0 = magi.avg_pool %x {kernel_size = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 0>} : (tensor<1x4x4xi32>) -> tensor<1x4x2xi32>
  return
}

// -----

func.func @no_kept_dim(%x: tensor<4x4xf32>) {
  // expected-error @+2 {{max_pool pools 1 to 3 dimensions after at least one kept one, got a kernel of 2 for rank 2}}
  // expected-error @+1 {{'magi.max_pool' op failed to infer returned types}}
  %0:2 = magi.max_pool %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<4x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
  return
}

// -----

func.func @list_length(%x: tensor<1x4x4xf32>) {
  // expected-error @+2 {{avg_pool stride must have 2 entries, got 1}}
  // expected-error @+1 {{'magi.avg_pool' op failed to infer returned types}}
  %0 = magi.avg_pool %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2>, padding = array<i64: 0, 0>} : (tensor<1x4x4xf32>) -> tensor<1x2x2xf32>
  return
}

// -----

func.func @big_padding(%x: tensor<1x4x4xf32>) {
  // expected-error @+2 {{max_pool needs kernel, stride and dilation >= 1 and 0 <= padding <= kernel / 2 in pooled dimension 0}}
  // expected-error @+1 {{'magi.max_pool' op failed to infer returned types}}
  %0:2 = magi.max_pool %x {kernel_size = array<i64: 2>, stride = array<i64: 1>, padding = array<i64: 2>, dilation = array<i64: 1>} : (tensor<1x4x4xf32>) -> (tensor<1x4x7xf32>, tensor<1x4x7xi64>)
  return
}

// -----

func.func @window(%x: tensor<1x4x2xf32>) {
  // expected-error @+2 {{avg_pool window is larger than the padded input in pooled dimension 0}}
  // expected-error @+1 {{'magi.avg_pool' op failed to infer returned types}}
  %0 = magi.avg_pool %x {kernel_size = array<i64: 3>, stride = array<i64: 1>, padding = array<i64: 0>} : (tensor<1x4x2xf32>) -> tensor<1x4x1xf32>
  return
}

// -----

func.func @divisor(%x: tensor<1x4x4xf32>) {
  // expected-error @+2 {{avg_pool divisor_override must not be 0}}
  // expected-error @+1 {{'magi.avg_pool' op failed to infer returned types}}
  %0 = magi.avg_pool %x {kernel_size = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 0>, divisor_override = 0 : i64} : (tensor<1x4x4xf32>) -> tensor<1x4x2xf32>
  return
}
