// var lowers to the mean and the centered sum of squares (two reductions,
// f32 for half types), then one generic dividing by max(N - correction, 0)
// (0 / 0 is NaN, as in PyTorch), expand_shape for keepdim. The lowered code
// computes what the interpreter does.
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" | FileCheck %s --check-prefix=IR
// RUN: magi-interp %s | FileCheck %s
// RUN: magi-interp %s --lowered-pieces | FileCheck %s

// IR-LABEL: func.func @main
// IR: arith.addf
// IR: arith.mulf
// IR: arith.maximumf
// IR: tensor.expand_shape
// IR-NOT: magi.var

// CHECK:      out0: tensor<3xf32> = [0.5, 18, 8]
// CHECK-NEXT: out1: tensor<2x1xf32> = {{\[}}[4.388889], [4.388889]]
// CHECK-NEXT: out2: tensor<f32> = 5.3
// CHECK-NEXT: out3: tensor<2xbf16> = [6.6, 6.6]
// CHECK-NEXT: out4: tensor<f32> = nan
func.func @main() -> (tensor<3xf32>, tensor<2x1xf32>, tensor<f32>, tensor<2xbf16>, tensor<f32>) {
  %x = magi.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]]> : tensor<2x3xf32>
  %h = magi.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]]> : tensor<2x3xbf16>
  %one = magi.constant dense<[7.0]> : tensor<1xf32>
  %a = magi.var %x {dims = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  %b = magi.var %x {dims = array<i64: 1>, correction = 0.0 : f64, keepdim = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %c = magi.var %x : (tensor<2x3xf32>) -> tensor<f32>
  %d = magi.var %h {dims = array<i64: -1>} : (tensor<2x3xbf16>) -> tensor<2xbf16>
  %e = magi.var %one : (tensor<1xf32>) -> tensor<f32>
  return %a, %b, %c, %d, %e : tensor<3xf32>, tensor<2x1xf32>, tensor<f32>, tensor<2xbf16>, tensor<f32>
}
