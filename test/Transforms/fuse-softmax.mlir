// RUN: magi-opt %s -magi-fuse=enable=softmax -canonicalize -magi-dce | FileCheck %s

// magi-fuse's softmax fusion: exp(x - amax(x, d)) / sum(exp(x - amax(x, d)), d), keepdim
// reductions, becomes magi.softmax along d (normalized to a non-negative dim).

// The last dim, named -1 by amax and 2 by sum.
// CHECK-LABEL: func.func @last_dim
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x64xf32>)
// CHECK-NEXT: %[[R:.*]] = magi.softmax %[[X]] {dim = 2 : i64} : (tensor<2x?x64xf32>) -> tensor<2x?x64xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: magi.amax
// CHECK-NOT: magi.exp
// CHECK-NOT: magi.sum
// CHECK-NOT: magi.div
func.func @last_dim(%x: tensor<2x?x64xf32>) -> tensor<2x?x64xf32> {
  %m = magi.amax %x {dims = array<i64: -1>, keepdim = true} : (tensor<2x?x64xf32>) -> tensor<2x?x1xf32>
  %d = magi.sub %x, %m : (tensor<2x?x64xf32>, tensor<2x?x1xf32>) -> tensor<2x?x64xf32>
  %e = magi.exp %d : (tensor<2x?x64xf32>) -> tensor<2x?x64xf32>
  %s = magi.sum %e {dims = array<i64: 2>, keepdim = true} : (tensor<2x?x64xf32>) -> tensor<2x?x1xf32>
  %r = magi.div %e, %s : (tensor<2x?x64xf32>, tensor<2x?x1xf32>) -> tensor<2x?x64xf32>
  return %r : tensor<2x?x64xf32>
}

// Along dim 0, bf16.
// CHECK-LABEL: func.func @first_dim
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xbf16>)
// CHECK-NEXT: %[[R:.*]] = magi.softmax %[[X]] {dim = 0 : i64} : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
// CHECK-NEXT: return %[[R]]
func.func @first_dim(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %m = magi.amax %x {dims = array<i64: 0>, keepdim = true} : (tensor<4x8xbf16>) -> tensor<1x8xbf16>
  %d = magi.sub %x, %m : (tensor<4x8xbf16>, tensor<1x8xbf16>) -> tensor<4x8xbf16>
  %e = magi.exp %d : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %s = magi.sum %e {dims = array<i64: -2>, keepdim = true} : (tensor<4x8xbf16>) -> tensor<1x8xbf16>
  %r = magi.div %e, %s : (tensor<4x8xbf16>, tensor<1x8xbf16>) -> tensor<4x8xbf16>
  return %r : tensor<4x8xbf16>
}

//===----------------------------------------------------------------------===//
// Negative cases.
//===----------------------------------------------------------------------===//

// amax and sum along different dims.
// CHECK-LABEL: func.func @different_dims
// CHECK-NOT: magi.softmax
// CHECK: magi.exp
// CHECK-NOT: magi.softmax
func.func @different_dims(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = magi.amax %x {dims = array<i64: 0>, keepdim = true} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %d = magi.sub %x, %m : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %e = magi.exp %d : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = magi.sum %e {dims = array<i64: 1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %r = magi.div %e, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// The max of another tensor.
// CHECK-LABEL: func.func @amax_of_other
// CHECK-NOT: magi.softmax
// CHECK: magi.exp
// CHECK-NOT: magi.softmax
func.func @amax_of_other(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = magi.amax %y {dims = array<i64: -1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = magi.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = magi.exp %d : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = magi.sum %e {dims = array<i64: -1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %r = magi.div %e, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// The sum of another exp.
// CHECK-LABEL: func.func @sum_of_other
// CHECK-NOT: magi.softmax
// CHECK: magi.sum
// CHECK-NOT: magi.softmax
func.func @sum_of_other(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = magi.amax %x {dims = array<i64: -1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = magi.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = magi.exp %d : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %e2 = magi.exp %y : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = magi.sum %e2 {dims = array<i64: -1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %r = magi.div %e, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// The max reduction without keepdim.
// CHECK-LABEL: func.func @amax_no_keepdim
// CHECK-NOT: magi.softmax
// CHECK: magi.amax
// CHECK-NOT: magi.softmax
func.func @amax_no_keepdim(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = magi.amax %x {dims = array<i64: -1>} : (tensor<4x4xf32>) -> tensor<4xf32>
  %d = magi.sub %x, %m : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %e = magi.exp %d : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = magi.sum %e {dims = array<i64: -1>, keepdim = true} : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %r = magi.div %e, %s : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// A division with a rounding mode.
// CHECK-LABEL: func.func @div_rounding
// CHECK-NOT: magi.softmax
// CHECK: magi.div
// CHECK-NOT: magi.softmax
func.func @div_rounding(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = magi.amax %x {dims = array<i64: -1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = magi.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = magi.exp %d : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = magi.sum %e {dims = array<i64: -1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %r = magi.div %e, %s {rounding_mode = "floor"} : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// The sub has an alpha.
// CHECK-LABEL: func.func @sub_alpha
// CHECK-NOT: magi.softmax
// CHECK: magi.sub
// CHECK-NOT: magi.softmax
func.func @sub_alpha(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = magi.amax %x {dims = array<i64: -1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = magi.sub %x, %m {alpha = 2.0} : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = magi.exp %d : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = magi.sum %e {dims = array<i64: -1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %r = magi.div %e, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// The sum has an explicit dtype.
// CHECK-LABEL: func.func @sum_dtype
// CHECK-NOT: magi.softmax
// CHECK: magi.sum
// CHECK-NOT: magi.softmax
func.func @sum_dtype(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = magi.amax %x {dims = array<i64: -1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = magi.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = magi.exp %d : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = magi.sum %e {dims = array<i64: -1>, keepdim = true, dtype = f32} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %r = magi.div %e, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// The sum over two dims.
// CHECK-LABEL: func.func @sum_two_dims
// CHECK-NOT: magi.softmax
// CHECK: magi.sum
// CHECK-NOT: magi.softmax
func.func @sum_two_dims(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = magi.amax %x {dims = array<i64: -1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = magi.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = magi.exp %d : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = magi.sum %e {dims = array<i64: 0, 1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<1x1xf32>
  %r = magi.div %e, %s : (tensor<4x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
