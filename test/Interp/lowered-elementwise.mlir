// The elementwise ops of PyTorch's rounding, sign, predicates, clamps,
// leaky_relu, fmod, remainder, atan2, log1p and expm1, interpreted and
// lowered to linalg (--lowered-pieces): the same values both ways, edge
// values included (ties of round to even, NaN and infinities, INT64_MIN % -1).
// expm1's f32 result may differ in its last digit (libm in f32 against the
// interpreter's double).

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/tensors.py npy %t/x.npy float32 2,4 -2.5,-0.5,0.5,2.5,nan,inf,-inf,7
// RUN: %python %S/Inputs/tensors.py npy %t/y.npy float32 2,4 3,-3,2,-2,1,1,2,-3
// RUN: %python %S/Inputs/tensors.py npy %t/i.npy int64 4 7,-7,7,-9223372036854775808
// RUN: %python %S/Inputs/tensors.py npy %t/j.npy int64 4 3,3,-3,-1
// RUN: magi-interp %s --input %t/x.npy --input %t/y.npy --input %t/i.npy --input %t/j.npy | FileCheck %s
// RUN: magi-interp %s --lowered-pieces --input %t/x.npy --input %t/y.npy --input %t/i.npy --input %t/j.npy | FileCheck %s

// CHECK:      out0: tensor<2x4xf32> = {{\[}}[-3, -1, 0, 2], [nan, inf, -inf, 7]]
// CHECK-NEXT: out1: tensor<2x4xf32> = {{\[}}[-2, -0, 1, 3], [nan, inf, -inf, 7]]
// CHECK-NEXT: out2: tensor<2x4xf32> = {{\[}}[-2, -0, 0, 2], [nan, inf, -inf, 7]]
// CHECK-NEXT: out3: tensor<2x4xf32> = {{\[}}[-2, -0, 0, 2], [nan, inf, -inf, 7]]
// CHECK-NEXT: out4: tensor<2x4xf32> = {{\[}}[-1, -1, 1, 1], [0, 1, -1, 1]]
// CHECK-NEXT: out5: tensor<2x4xf32> = {{\[}}[-1, -0.5, 0.5, 1.5], [nan, 1.5, -1, 1.5]]
// CHECK-NEXT: out6: tensor<2x4xi1> = {{\[}}[false, false, false, false], [true, false, false, false]]
// CHECK-NEXT: out7: tensor<2x4xi1> = {{\[}}[false, false, false, false], [false, true, true, false]]
// CHECK-NEXT: out8: tensor<2x4xf32> = {{\[}}[-0.625, -0.125, 0.5, 2.5], [nan, inf, -inf, 7]]
// CHECK-NEXT: out9: tensor<2x4xf32> = {{\[}}[-2.5, -0.5, 0.5, 0.5], [nan, nan, nan, 1]]
// CHECK-NEXT: out10: tensor<2x4xf32> = {{\[}}[0.5, -0.5, 0.5, -1.5], [nan, nan, nan, -2]]
// CHECK-NEXT: out11: tensor<2x4xf32> = {{\[}}[-0.69473827, -2.976444, 0.24497867, 2.2455373], [nan, 1.5707964, -1.5707964, 1.9756881]]
// CHECK-NEXT: out12: tensor<4xi64> = [1, -1, 1, 0]
// CHECK-NEXT: out13: tensor<4xi64> = [1, 2, -2, 0]
// CHECK-NEXT: out14: tensor<4xi64> = [1, -1, 1, -1]
// CHECK-NEXT: out15: tensor<4xi64> = [5, -5, 5, -5]
// CHECK-NEXT: out16: tensor<2x4xf32> = {{\[}}[1.3862944, nan, 1.0986123, nan], [0.6931472, 0.6931472, 1.0986123, nan]]
// CHECK-NEXT: out17: tensor<2x4xf32> = {{\[}}[-0.917915, -0.39346933, 0.648721{{[23]}}, 11.182494], [nan, inf, -1, 1095.6332]]

func.func @main(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>, %i: tensor<4xi64>, %j: tensor<4xi64>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = magi.floor %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = magi.ceil %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = magi.round %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = magi.trunc %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %4 = magi.sign %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %5 = magi.clamp %x {min = -1.0 : f64, max = 1.5 : f64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = magi.isnan %x : (tensor<2x4xf32>) -> tensor<2x4xi1>
  %7 = magi.isinf %x : (tensor<2x4xf32>) -> tensor<2x4xi1>
  %8 = magi.leaky_relu %x {negative_slope = 0.25 : f64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %9 = magi.fmod %x, %y : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %10 = magi.remainder %x, %y : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %11 = magi.atan2 %x, %y : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %12 = magi.fmod %i, %j : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %13 = magi.remainder %i, %j : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %14 = magi.sign %i : (tensor<4xi64>) -> tensor<4xi64>
  %15 = magi.clamp %i {min = -5.0 : f64, max = 5.0 : f64} : (tensor<4xi64>) -> tensor<4xi64>
  %16 = magi.log1p %y : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %17 = magi.expm1 %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<2x4xf32>, tensor<2x4xf32>
}
