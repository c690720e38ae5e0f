// magi.batch_norm (inference batch norm): (x - mean) / sqrt(var + eps) *
// weight + bias per channel (dimension 1), interpreted and lowered to one
// generic in f32; the data make every result exact (var + eps = 4). bf16
// input with f32 statistics, and f32 without weight and bias.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 2,3,2 1,2,3,4,5,6,-1,-2,-3,-4,-5,-6
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/m.npy float32 3 1,0,-2
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/v.npy float32 3 3,3,3
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/w.npy float32 3 2,4,-1
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/b.npy float32 3 0,1,0.5
// RUN: magi-interp %s --input %t/x.npy --input %t/m.npy --input %t/v.npy --input %t/w.npy --input %t/b.npy | FileCheck %s
// RUN: magi-interp %s --lowered-pieces --input %t/x.npy --input %t/m.npy --input %t/v.npy --input %t/w.npy --input %t/b.npy | FileCheck %s
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" | FileCheck %s --check-prefix=IR

// IR-LABEL: func.func @main
// IR: linalg.generic
// IR: math.sqrt
// IR-NOT: magi.batch_norm

// Channel 0: (x - 1) / 2 * 2 + 0; channel 1: x / 2 * 4 + 1; channel 2:
// (x + 2) / 2 * -1 + 0.5.
// CHECK:      out0: tensor<2x3x2xbf16> = {{\[\[\[}}0, 1], [7, 9], [-3, -3.5]], {{\[\[}}-2, -3], [-5, -7], [2, 2.5]]]
// CHECK-NEXT: out1: tensor<2x3x2xf32> = {{\[\[\[}}0, 0.5], [1.5, 2], [3.5, 4]], {{\[\[}}-1, -1.5], [-1.5, -2], [-1.5, -2]]]

func.func @main(%x: tensor<2x3x2xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>)
    -> (tensor<2x3x2xbf16>, tensor<2x3x2xf32>) {
  %h = magi.to_copy %x {dtype = bf16} : (tensor<2x3x2xf32>) -> tensor<2x3x2xbf16>
  %0 = magi.batch_norm %h, %m, %v weight %w bias %b {eps = 1.0 : f64} : (tensor<2x3x2xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x2xbf16>
  %1 = magi.batch_norm %x, %m, %v {eps = 1.0 : f64} : (tensor<2x3x2xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x2xf32>
  return %0, %1 : tensor<2x3x2xbf16>, tensor<2x3x2xf32>
}
