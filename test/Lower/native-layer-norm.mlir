// native_layer_norm lowers as layer_norm does (mean and centered sum of
// squares, one normalizing generic) and also gives the mean and
// 1 / sqrt(var + eps) per row, the normalized dimensions kept as 1. The
// lowered code computes in f32 what the interpreter computes in f64: the
// checks stop at six digits.
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" | FileCheck %s --check-prefix=IR
// RUN: magi-interp %s | FileCheck %s
// RUN: magi-interp %s --lowered-pieces | FileCheck %s

// IR-LABEL: func.func @main
// IR: math.sqrt
// IR: tensor.expand_shape {{.*}} : tensor<2xf32> into tensor<2x1xf32>
// IR: tensor.expand_shape {{.*}} : tensor<2xf32> into tensor<2x1xf32>
// IR-NOT: magi.native_layer_norm

// CHECK:      out0: tensor<2x4xf32> = {{\[}}[0.443553{{[0-9]*}}, 0.266430{{[0-9]*}}, 2.52484{{[0-9]*}}, -0.761163{{[0-9]*}}], [-0.473015{{[0-9]*}}, 1.70952{{[0-9]*}}, -2.56779{{[0-9]*}}, -1.33786{{[0-9]*}}]]
// CHECK-NEXT: out1: tensor<2x1xf32> = {{\[}}[0.6875], [1.375]]
// CHECK-NEXT: out2: tensor<2x1xf32> = {{\[}}[0.545912{{[0-9]*}}], [0.540589{{[0-9]*}}]]
// CHECK-NEXT: out3: tensor<1x2x4xbf16> = {{\[\[}}[0.25, -1.62, 1.055, -0.418], [-0.283, 1.586, -1.086, 0.516]]]
// CHECK-NEXT: out4: tensor<1x1x1xf32> = {{\[\[}}[1.03125]]]
// CHECK-NEXT: out5: tensor<1x1x1xf32> = {{\[\[}}[0.5340005]]]
func.func @main() -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x2x4xbf16>, tensor<1x1x1xf32>, tensor<1x1x1xf32>) {
  %x = magi.constant dense<[[1.5, -2.0, 3.0, 0.25], [0.5, 4.0, -1.0, 2.0]]> : tensor<2x4xf32>
  %h = magi.constant dense<[[[1.5, -2.0, 3.0, 0.25], [0.5, 4.0, -1.0, 2.0]]]> : tensor<1x2x4xbf16>
  %w = magi.constant dense<[1.0, 0.5, 2.0, -1.0]> : tensor<4xf32>
  %b = magi.constant dense<[0.0, 1.0, 0.0, -1.0]> : tensor<4xf32>
  %r, %m, %s = magi.native_layer_norm %x weight %w bias %b {eps = 1.0e-05 : f64, normalized_ndim = 1 : i64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  %r2, %m2, %s2 = magi.native_layer_norm %h {eps = 1.0e-05 : f64, normalized_ndim = 2 : i64} : (tensor<1x2x4xbf16>) -> (tensor<1x2x4xbf16>, tensor<1x1x1xf32>, tensor<1x1x1xf32>)
  return %r, %m, %s, %r2, %m2, %s2 : tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x2x4xbf16>, tensor<1x1x1xf32>, tensor<1x1x1xf32>
}
