// Reductions and scans: dims, keepdim, dtype, integer sums to int64, ties and
// NaN in max/argmax.

// RUN: magi-interp %s | FileCheck %s

// CHECK:      out0: tensor<i64> = 21
// CHECK-NEXT: out1: tensor<2x1xf32> = {{\[}}[6], [15]]
// CHECK-NEXT: out2: tensor<3xf32> = [2.5, 3.5, 4.5]
// CHECK-NEXT: out3: tensor<2xbf16> = [3, 6]
// CHECK-NEXT: out4: tensor<2xbf16> = [1, 4]
// CHECK-NEXT: out5: tensor<3xi1> = [true, false, true]
// CHECK-NEXT: out6: tensor<i1> = false
// CHECK-NEXT: out7: tensor<2xf32> = [3, nan]
// CHECK-NEXT: out8: tensor<2xi64> = [1, 0]
// CHECK-NEXT: out9: tensor<1x1xi64> = {{\[}}[5]]
// CHECK-NEXT: out10: tensor<2xi64> = [1, 1]
// CHECK-NEXT: out11: tensor<2x3xi64> = {{\[}}[0, 1, 2], [0, 1, 1]]
// CHECK-NEXT: out12: tensor<2x3xf32> = {{\[}}[1, 3, 6], [4, 9, 15]]
// CHECK-NEXT: out13: tensor<f64> = 21
func.func @main() -> (tensor<i64>, tensor<2x1xf32>, tensor<3xf32>, tensor<2xbf16>, tensor<2xbf16>, tensor<3xi1>, tensor<i1>, tensor<2xf32>, tensor<2xi64>, tensor<1x1xi64>, tensor<2xi64>, tensor<2x3xi64>, tensor<2x3xf32>, tensor<f64>) {
  %i = magi.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %f = magi.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = magi.constant dense<[[1.0, 3.0, 2.0], [4.0, 6.0, 6.0]]> : tensor<2x3xbf16>
  // Integers sum to int64 over every dimension.
  %sum = magi.sum %i : (tensor<2x3xi32>) -> tensor<i64>
  %sumk = magi.sum %f {dims = array<i64: -1>, keepdim = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %mean = magi.mean %f {dims = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  %amax = magi.amax %b {dims = array<i64: 1>} : (tensor<2x3xbf16>) -> tensor<2xbf16>
  %amin = magi.amin %b {dims = array<i64: 1>} : (tensor<2x3xbf16>) -> tensor<2xbf16>
  %mask = magi.constant dense<[[true, false, false], [true, false, true]]> : tensor<2x3xi1>
  %any = magi.any %mask {dims = array<i64: 0>} : (tensor<2x3xi1>) -> tensor<3xi1>
  %all = magi.all %mask : (tensor<2x3xi1>) -> tensor<i1>
  // max_dim: values and the index of the first maximum; NaN is the maximum.
  %n = magi.constant dense<[[1.0, 3.0, 3.0], [0x7FC00000, 1.0, 2.0]]> : tensor<2x3xf32>
  %v, %idx = magi.max_dim %n {dim = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  %am = magi.argmax %i {keepdim = true} : (tensor<2x3xi32>) -> tensor<1x1xi64>
  %amd = magi.argmax %b {dim = -1 : i64} : (tensor<2x3xbf16>) -> tensor<2xi64>
  // cumsum of bool counts in int64.
  %notmask = magi.logical_not %mask : (tensor<2x3xi1>) -> tensor<2x3xi1>
  %cs = magi.cumsum %notmask {dim = 1 : i64} : (tensor<2x3xi1>) -> tensor<2x3xi64>
  %csf = magi.cumsum %f {dim = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // An explicit dtype converts before reducing.
  %sumd = magi.sum %i {dtype = f64} : (tensor<2x3xi32>) -> tensor<f64>
  return %sum, %sumk, %mean, %amax, %amin, %any, %all, %v, %idx, %am, %amd, %cs, %csf, %sumd : tensor<i64>, tensor<2x1xf32>, tensor<3xf32>, tensor<2xbf16>, tensor<2xbf16>, tensor<3xi1>, tensor<i1>, tensor<2xf32>, tensor<2xi64>, tensor<1x1xi64>, tensor<2xi64>, tensor<2x3xi64>, tensor<2x3xf32>, tensor<f64>
}

// RUN: magi-interp %s --function=more | FileCheck %s --check-prefix=MORE
// MORE:      out0: tensor<2xi64> = [6, 120]
// MORE-NEXT: out1: tensor<2x1xf32> = {{\[}}[1], [0.6666667]]
// MORE-NEXT: out2: tensor<f32> = 3.5
// MORE-NEXT: out3: tensor<2xf32> = [1, nan]
// MORE-NEXT: out4: tensor<2xi64> = [0, 0]
// MORE-NEXT: out5: tensor<2xi64> = [0, 0]
// MORE-NEXT: out6: tensor<2x2xf32> = {{\[}}[3, 3], [nan, 2]]
// MORE-NEXT: out7: tensor<2x2xi64> = {{\[}}[1, 2], [0, 2]]
// MORE-NEXT: out8: tensor<2x3xf32> = {{\[}}[1, 3, 3], [1, 2, nan]]
// MORE-NEXT: out9: tensor<2x3xi64> = {{\[}}[0, 1, 2], [1, 2, 0]]
// MORE-NEXT: out10: tensor<2x3xi32> = {{\[}}[4, 5, 6], [1, 2, 3]]
// MORE-NEXT: out11: tensor<2x3xi64> = {{\[}}[1, 1, 1], [0, 0, 0]]
func.func @more() -> (tensor<2xi64>, tensor<2x1xf32>, tensor<f32>, tensor<2xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2x2xf32>, tensor<2x2xi64>, tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xi32>, tensor<2x3xi64>) {
  %i = magi.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %prod = magi.prod %i {dims = array<i64: 1>} : (tensor<2x3xi32>) -> tensor<2xi64>
  %f = magi.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  // Unbiased (correction 1) and biased (correction 0) variance.
  %var = magi.var %f {dims = array<i64: 1>, keepdim = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %var0 = magi.var %f {dims = array<i64: 1>, correction = 0.0 : f64, keepdim = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %both = magi.cat %var, %var0 {dim = 0 : i64} : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<4x1xf32>
  %pair = magi.slice %both, 0 [1, 4, 2] : tensor<4x1xf32> -> tensor<2x1xf32>
  %all = magi.var %f : (tensor<2x3xf32>) -> tensor<f32>
  // min_dim and argmin: the first minimum; NaN counts as the minimum.
  %n = magi.constant dense<[[1.0, 3.0, 3.0], [0x7FC00000, 1.0, 2.0]]> : tensor<2x3xf32>
  %v, %idx = magi.min_dim %n {dim = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  %am = magi.argmin %n {dim = -1 : i64} : (tensor<2x3xf32>) -> tensor<2xi64>
  // topk: ties keep their order; NaN is above every number.
  %tv, %ti = magi.topk %n {k = 2 : i64} : (tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
  %sv, %si = magi.sort %n {dim = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  %desc, %di = magi.sort %i {dim = 0 : i64, descending = true} : (tensor<2x3xi32>) -> (tensor<2x3xi32>, tensor<2x3xi64>)
  return %prod, %pair, %all, %v, %idx, %am, %tv, %ti, %sv, %si, %desc, %di : tensor<2xi64>, tensor<2x1xf32>, tensor<f32>, tensor<2xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2x2xf32>, tensor<2x2xi64>, tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xi32>, tensor<2x3xi64>
}
