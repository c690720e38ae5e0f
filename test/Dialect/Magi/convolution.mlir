// RUN: magi-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// magi.convolution: forms that verify (1-, 2- and 3-d, groups, bias,
// symbolic batch and image sizes) and every inference error.

// CHECK-LABEL: func.func @valid
func.func @valid(%x1: tensor<1x4x9xf32>, %w1: tensor<6x2x3xf32>,
                 %x2: tensor<?x3x?x?xbf16>, %w2: tensor<8x3x3x3xbf16>, %b2: tensor<8xbf16>,
                 %x3: tensor<2x2x5x6x7xf16>, %w3: tensor<4x2x1x2x3xf16>) {
  // CHECK: magi.convolution %{{.*}}, %{{.*}} {dilation = array<i64: 2>, groups = 2 : i64, padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<1x4x9xf32>, tensor<6x2x3xf32>) -> tensor<1x6x4xf32>
  %0 = magi.convolution %x1, %w1 {stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 2>, groups = 2 : i64} : (tensor<1x4x9xf32>, tensor<6x2x3xf32>) -> tensor<1x6x4xf32>
  // CHECK: magi.convolution %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : (tensor<?x3x?x?xbf16>, tensor<8x3x3x3xbf16>, tensor<8xbf16>) -> tensor<?x8x?x?xbf16>
  %1 = magi.convolution %x2, %w2, %b2 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<?x3x?x?xbf16>, tensor<8x3x3x3xbf16>, tensor<8xbf16>) -> tensor<?x8x?x?xbf16>
  // CHECK: magi.convolution %{{.*}}, %{{.*}} {{.*}} : (tensor<2x2x5x6x7xf16>, tensor<4x2x1x2x3xf16>) -> tensor<2x4x5x3x5xf16>
  %2 = magi.convolution %x3, %w3 {stride = array<i64: 1, 2, 1>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>} : (tensor<2x2x5x6x7xf16>, tensor<4x2x1x2x3xf16>) -> tensor<2x4x5x3x5xf16>
  return
}

// -----

func.func @rank(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>) {
  // expected-error @+2 {{convolution input must be [N, C, *spatial] with 1 to 3 spatial dimensions, got rank 2}}
  // expected-error @+1 {{'magi.convolution' op failed to infer returned types}}
  %0 = magi.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 1 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @weight_rank(%x: tensor<1x4x8xf32>, %w: tensor<4x4xf32>) {
  // expected-error @+2 {{convolution weight must have the input's rank 3, got 2}}
  // expected-error @+1 {{'magi.convolution' op failed to infer returned types}}
  %0 = magi.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 1 : i64} : (tensor<1x4x8xf32>, tensor<4x4xf32>) -> tensor<1x4x8xf32>
  return
}

// -----

func.func @dtypes(%x: tensor<1x4x8xf32>, %w: tensor<2x4x3xbf16>) {
  // expected-error @+2 {{convolution input and weight must have the same dtype, got 'f32' and 'bf16'}}
  // expected-error @+1 {{'magi.convolution' op failed to infer returned types}}
  %0 = magi.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 1 : i64} : (tensor<1x4x8xf32>, tensor<2x4x3xbf16>) -> tensor<1x2x6xf32>
  return
}

// -----

func.func @integer(%x: tensor<1x4x8xi32>, %w: tensor<2x4x3xi32>) {
  // expected-error @+2 {{convolution needs a floating-point input, got 'i32'}}
  // expected-error @+1 {{'magi.convolution' op failed to infer returned types}}
  %0 = magi.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 1 : i64} : (tensor<1x4x8xi32>, tensor<2x4x3xi32>) -> tensor<1x2x6xi32>
  return
}

// -----

func.func @list_length(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+2 {{convolution stride must have 2 entries, got 1}}
  // expected-error @+1 {{'magi.convolution' op failed to infer returned types}}
  %0 = magi.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x6x6xf32>
  return
}

// -----

func.func @stride_zero(%x: tensor<1x4x8xf32>, %w: tensor<2x4x3xf32>) {
  // expected-error @+2 {{convolution needs stride and dilation >= 1 and padding >= 0 in spatial dimension 0}}
  // expected-error @+1 {{'magi.convolution' op failed to infer returned types}}
  %0 = magi.convolution %x, %w {stride = array<i64: 0>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 1 : i64} : (tensor<1x4x8xf32>, tensor<2x4x3xf32>) -> tensor<1x2x6xf32>
  return
}

// -----

func.func @groups_zero(%x: tensor<1x4x8xf32>, %w: tensor<2x4x3xf32>) {
  // expected-error @+2 {{convolution groups must be >= 1, got 0}}
  // expected-error @+1 {{'magi.convolution' op failed to infer returned types}}
  %0 = magi.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 0 : i64} : (tensor<1x4x8xf32>, tensor<2x4x3xf32>) -> tensor<1x2x6xf32>
  return
}

// -----

func.func @channels(%x: tensor<1x4x8xf32>, %w: tensor<2x3x3xf32>) {
  // expected-error @+2 {{convolution input has 4 channels, the weight expects 3 per group times 1 groups}}
  // expected-error @+1 {{'magi.convolution' op failed to infer returned types}}
  %0 = magi.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 1 : i64} : (tensor<1x4x8xf32>, tensor<2x3x3xf32>) -> tensor<1x2x6xf32>
  return
}

// -----

func.func @out_channels(%x: tensor<1x4x8xf32>, %w: tensor<3x2x3xf32>) {
  // expected-error @+2 {{convolution weight's 3 output channels do not split into 2 groups}}
  // expected-error @+1 {{'magi.convolution' op failed to infer returned types}}
  %0 = magi.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 2 : i64} : (tensor<1x4x8xf32>, tensor<3x2x3xf32>) -> tensor<1x3x6xf32>
  return
}

// -----

func.func @bias_shape(%x: tensor<1x4x8xf32>, %w: tensor<2x4x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{convolution bias must be [2], got 'tensor<3xf32>'}}
  // expected-error @+1 {{'magi.convolution' op failed to infer returned types}}
  %0 = magi.convolution %x, %w, %b {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 1 : i64} : (tensor<1x4x8xf32>, tensor<2x4x3xf32>, tensor<3xf32>) -> tensor<1x2x6xf32>
  return
}

// -----

func.func @bias_dtype(%x: tensor<1x4x8xf32>, %w: tensor<2x4x3xf32>, %b: tensor<2xbf16>) {
  // expected-error @+2 {{convolution bias must have the input's dtype 'f32', got 'bf16'}}
  // expected-error @+1 {{'magi.convolution' op failed to infer returned types}}
  %0 = magi.convolution %x, %w, %b {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 1 : i64} : (tensor<1x4x8xf32>, tensor<2x4x3xf32>, tensor<2xbf16>) -> tensor<1x2x6xf32>
  return
}

// -----

func.func @window(%x: tensor<1x4x2xf32>, %w: tensor<2x4x3xf32>) {
  // expected-error @+2 {{convolution window of 3 is larger than the padded input's 2 in spatial dimension 0}}
  // expected-error @+1 {{'magi.convolution' op failed to infer returned types}}
  %0 = magi.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 1 : i64} : (tensor<1x4x2xf32>, tensor<2x4x3xf32>) -> tensor<1x2x1xf32>
  return
}

// -----

// Transposed: the weight is [C, O / groups, *kernel]; the output grows by
// the stride.
// CHECK-LABEL: func.func @transposed
func.func @transposed(%x: tensor<?x4x?xf32>, %w: tensor<4x3x4xf32>, %b: tensor<6xf32>,
                      %x2: tensor<1x4x3x3xbf16>, %w2: tensor<4x2x3x3xbf16>) {
  // CHECK: magi.convolution {{.*}} transposed} : (tensor<?x4x?xf32>, tensor<4x3x4xf32>, tensor<6xf32>) -> tensor<?x6x?xf32>
  %0 = magi.convolution %x, %w, %b {stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, groups = 2 : i64, transposed} : (tensor<?x4x?xf32>, tensor<4x3x4xf32>, tensor<6xf32>) -> tensor<?x6x?xf32>
  // (3 - 1) * 2 - 2 + 2 * (3 - 1) + 1 + 1 = 8, and 8 with output padding 1.
  // CHECK: magi.convolution {{.*}} output_padding = array<i64: 1, 1>{{.*}} -> tensor<1x2x8x8xbf16>
  %1 = magi.convolution %x2, %w2 {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 2, 2>, transposed, output_padding = array<i64: 1, 1>} : (tensor<1x4x3x3xbf16>, tensor<4x2x3x3xbf16>) -> tensor<1x2x8x8xbf16>
  return
}

// -----

func.func @output_padding_not_transposed(%x: tensor<1x4x8xf32>, %w: tensor<2x4x3xf32>) {
  // expected-error @+2 {{convolution output_padding needs `transposed`}}
  // expected-error @+1 {{'magi.convolution' op failed to infer returned types}}
  %0 = magi.convolution %x, %w {stride = array<i64: 2>, padding = array<i64: 0>, dilation = array<i64: 1>, output_padding = array<i64: 1>} : (tensor<1x4x8xf32>, tensor<2x4x3xf32>) -> tensor<1x2x3xf32>
  return
}

// -----

func.func @output_padding_entries(%x: tensor<1x4x8xf32>, %w: tensor<4x2x3xf32>) {
  // expected-error @+2 {{convolution output_padding must have 1 entries, got 2}}
  // expected-error @+1 {{'magi.convolution' op failed to infer returned types}}
  %0 = magi.convolution %x, %w {stride = array<i64: 2>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed, output_padding = array<i64: 1, 1>} : (tensor<1x4x8xf32>, tensor<4x2x3xf32>) -> tensor<1x2x17xf32>
  return
}

// -----

func.func @output_padding_too_large(%x: tensor<1x4x8xf32>, %w: tensor<4x2x3xf32>) {
  // expected-error @+2 {{convolution output_padding 2 must be >= 0 and smaller than the stride or the dilation in spatial dimension 0}}
  // expected-error @+1 {{'magi.convolution' op failed to infer returned types}}
  %0 = magi.convolution %x, %w {stride = array<i64: 2>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed, output_padding = array<i64: 2>} : (tensor<1x4x8xf32>, tensor<4x2x3xf32>) -> tensor<1x2x19xf32>
  return
}

// -----

func.func @transposed_channels(%x: tensor<1x4x8xf32>, %w: tensor<3x2x3xf32>) {
  // expected-error @+2 {{transposed convolution input has 4 channels, the weight 3}}
  // expected-error @+1 {{'magi.convolution' op failed to infer returned types}}
  %0 = magi.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed} : (tensor<1x4x8xf32>, tensor<3x2x3xf32>) -> tensor<1x2x10xf32>
  return
}

// -----

func.func @transposed_groups(%x: tensor<1x3x8xf32>, %w: tensor<3x2x3xf32>) {
  // expected-error @+2 {{transposed convolution's 3 input channels do not split into 2 groups}}
  // expected-error @+1 {{'magi.convolution' op failed to infer returned types}}
  %0 = magi.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 2 : i64, transposed} : (tensor<1x3x8xf32>, tensor<3x2x3xf32>) -> tensor<1x4x10xf32>
  return
}

// -----

func.func @transposed_size(%x: tensor<1x4x1xf32>, %w: tensor<4x2x1xf32>) {
  // expected-error @+2 {{transposed convolution output size -1 is not positive in spatial dimension 0}}
  // expected-error @+1 {{'magi.convolution' op failed to infer returned types}}
  %0 = magi.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>, transposed} : (tensor<1x4x1xf32>, tensor<4x2x1xf32>) -> tensor<1x2x1xf32>
  return
}
