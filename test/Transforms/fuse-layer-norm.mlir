// RUN: magi-opt %s -magi-fuse=enable=layer-norm | FileCheck %s
// RUN: magi-opt %s -magi-fuse=enable=layer-norm -canonicalize -magi-dce | FileCheck %s --check-prefix=DCE

// magi-fuse's layer-norm fusion: magi.native_layer_norm whose mean and rstd have no use
// other than shape bindings becomes magi.layer_norm.

// Unused statistics; weight and bias.
// CHECK-LABEL: func.func @unused_stats
// CHECK-SAME: (%[[X:.*]]: tensor<2x16x128xbf16>, %[[W:.*]]: tensor<128xbf16>, %[[B:.*]]: tensor<128xbf16>)
// CHECK-NEXT: %[[R:.*]] = magi.layer_norm %[[X]] weight %[[W]] bias %[[B]] {eps = 9.9999999999999998E-13 : f64, normalized_ndim = 1 : i64} : (tensor<2x16x128xbf16>, tensor<128xbf16>, tensor<128xbf16>) -> tensor<2x16x128xbf16>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: magi.native_layer_norm
func.func @unused_stats(%x: tensor<2x16x128xbf16>, %w: tensor<128xbf16>, %b: tensor<128xbf16>) -> tensor<2x16x128xbf16> {
  %r, %mean, %rstd = magi.native_layer_norm %x weight %w bias %b {eps = 1.0e-12 : f64, normalized_ndim = 1 : i64} : (tensor<2x16x128xbf16>, tensor<128xbf16>, tensor<128xbf16>) -> (tensor<2x16x128xbf16>, tensor<2x16x1xf32>, tensor<2x16x1xf32>)
  return %r : tensor<2x16x128xbf16>
}

// No weight or bias, two normalized dims.
// CHECK-LABEL: func.func @no_affine
// CHECK-SAME: (%[[X:.*]]: tensor<4x8x16xf32>)
// CHECK-NEXT: %[[R:.*]] = magi.layer_norm %[[X]] {eps = 1.000000e-05 : f64, normalized_ndim = 2 : i64} : (tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @no_affine(%x: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  %r, %mean, %rstd = magi.native_layer_norm %x {eps = 1.0e-05 : f64, normalized_ndim = 2 : i64} : (tensor<4x8x16xf32>) -> (tensor<4x8x16xf32>, tensor<4x1x1xf32>, tensor<4x1x1xf32>)
  return %r : tensor<4x8x16xf32>
}

// Statistics used only by shape bindings, as imported: the bindings of mean
// and rstd go, the binding of the result stays on the fused op.
// CHECK-LABEL: func.func @bound_only_stats
// CHECK-SAME: (%[[X:.*]]: tensor<1x?x128xf32>, %[[W:.*]]: tensor<128xf32>, %[[B:.*]]: tensor<128xf32>)
// CHECK-NEXT: %[[S0:.*]] = magi.symbolic_int "s0" min 2 max 512
// CHECK-NEXT: magi.bind_symbolic_shape %[[X]], [%[[S0]]]
// CHECK-NEXT: %[[R:.*]] = magi.layer_norm %[[X]] weight %[[W]] bias %[[B]] {eps = 1.000000e-05 : f64, normalized_ndim = 1 : i64} : (tensor<1x?x128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<1x?x128xf32>
// CHECK-NEXT: magi.bind_symbolic_shape %[[R]], [%[[S0]]], #{{.*}} : tensor<1x?x128xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: tensor<1x?x1xf32>
func.func @bound_only_stats(%x: tensor<1x?x128xf32>, %w: tensor<128xf32>, %b: tensor<128xf32>) -> tensor<1x?x128xf32> {
  %s0 = magi.symbolic_int "s0" min 2 max 512
  magi.bind_symbolic_shape %x, [%s0], affine_map<()[s0] -> (1, s0, 128)> : tensor<1x?x128xf32>
  %r, %mean, %rstd = magi.native_layer_norm %x weight %w bias %b {eps = 1.0e-05 : f64, normalized_ndim = 1 : i64} : (tensor<1x?x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<1x?x128xf32>, tensor<1x?x1xf32>, tensor<1x?x1xf32>)
  magi.bind_symbolic_shape %r, [%s0], affine_map<()[s0] -> (1, s0, 128)> : tensor<1x?x128xf32>
  magi.bind_symbolic_shape %mean, [%s0], affine_map<()[s0] -> (1, s0, 1)> : tensor<1x?x1xf32>
  magi.bind_symbolic_shape %rstd, [%s0], affine_map<()[s0] -> (1, s0, 1)> : tensor<1x?x1xf32>
  return %r : tensor<1x?x128xf32>
}

// Two layer norms in a row both fuse.
// CHECK-LABEL: func.func @two_in_a_row
// CHECK: %[[A:.*]] = magi.layer_norm %arg0
// CHECK-NEXT: %[[B:.*]] = magi.layer_norm %[[A]]
// CHECK-NEXT: return %[[B]]
func.func @two_in_a_row(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %r, %m, %s = magi.native_layer_norm %x {eps = 1.0e-05 : f64, normalized_ndim = 1 : i64} : (tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  %r2, %m2, %s2 = magi.native_layer_norm %r {eps = 1.0e-05 : f64, normalized_ndim = 1 : i64} : (tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %r2 : tensor<4x16xf32>
}

//===----------------------------------------------------------------------===//
// Negative cases: a statistic has a real use.
//===----------------------------------------------------------------------===//

// The mean is returned.
// CHECK-LABEL: func.func @mean_returned
// CHECK-NOT: magi.layer_norm
// CHECK: %[[R:.*]], %[[MEAN:.*]], %{{.*}} = magi.native_layer_norm
// CHECK-NOT: magi.layer_norm
// CHECK: return %[[R]], %[[MEAN]]
func.func @mean_returned(%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>) {
  %r, %mean, %rstd = magi.native_layer_norm %x {eps = 1.0e-05 : f64, normalized_ndim = 1 : i64} : (tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %r, %mean : tensor<4x16xf32>, tensor<4x1xf32>
}

// rstd feeds an op (as in a backward graph).
// CHECK-LABEL: func.func @rstd_used
// CHECK-NOT: magi.layer_norm
// CHECK: %{{.*}}, %{{.*}}, %[[RSTD:.*]] = magi.native_layer_norm
// CHECK-NOT: magi.layer_norm
// CHECK: magi.mul %{{.*}}, %[[RSTD]]
func.func @rstd_used(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %r, %mean, %rstd = magi.native_layer_norm %x {eps = 1.0e-05 : f64, normalized_ndim = 1 : i64} : (tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  %y = magi.mul %r, %rstd : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// A statistic used by a real op and also bound: the binding is not enough to
// make it unused, and it is kept.
// CHECK-LABEL: func.func @mean_bound_and_used
// CHECK-NOT: magi.layer_norm
// CHECK: %{{.*}}, %[[MEAN:.*]], %{{.*}} = magi.native_layer_norm
// CHECK-NEXT: magi.bind_symbolic_shape %[[MEAN]]
// CHECK-NOT: magi.layer_norm
func.func @mean_bound_and_used(%x: tensor<?x16xf32>) -> tensor<?x1xf32> {
  %s0 = magi.symbolic_int "s0" min 2 max 512
  %r, %mean, %rstd = magi.native_layer_norm %x {eps = 1.0e-05 : f64, normalized_ndim = 1 : i64} : (tensor<?x16xf32>) -> (tensor<?x16xf32>, tensor<?x1xf32>, tensor<?x1xf32>)
  magi.bind_symbolic_shape %mean, [%s0], affine_map<()[s0] -> (s0, 1)> : tensor<?x1xf32>
  %y = magi.neg %mean : (tensor<?x1xf32>) -> tensor<?x1xf32>
  return %y : tensor<?x1xf32>
}

// With -canonicalize -magi-dce after the fusion: nothing of the native op is
// left, and the unfused ones stay.
// DCE-LABEL: func.func @unused_stats
// DCE-NEXT: magi.layer_norm
// DCE-NEXT: return
// DCE-LABEL: func.func @mean_returned
// DCE: magi.native_layer_norm
// DCE-LABEL: func.func @rstd_used
// DCE: magi.native_layer_norm
