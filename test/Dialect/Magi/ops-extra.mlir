// RUN: magi-opt %s | FileCheck %s
// RUN: magi-opt %s | magi-opt | FileCheck %s
// RUN: magi-opt %s -emit-bytecode | magi-opt | FileCheck %s
// RUN: magi-opt %s --verify-roundtrip | FileCheck %s

// Positive tests for the more recently added ops: the unary ops magi.log1p,
// expm1, log2, floor, ceil, round, trunc, sign, isnan, isinf and leaky_relu;
// the binary ops magi.logical_xor, fmod and atan2; the reductions magi.prod,
// var, min_dim, argmin, topk and sort; the scatter ops magi.scatter,
// index_put, slice_scatter and select_scatter; magi.flip, repeat, tril and
// triu; and the transpose_* unit attributes of magi.mm, bmm and addmm.

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @float_unary_extra
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xf16>, %[[I:.*]]: tensor<4xi64>, %[[B:.*]]: tensor<4xi1>, %[[U:.*]]: tensor<3xui8>, %[[D:.*]]: tensor<f64>)
func.func @float_unary_extra(%x: tensor<2x?xf16>, %i: tensor<4xi64>, %b: tensor<4xi1>, %u: tensor<3xui8>, %d: tensor<f64>) {
  // Floating-point operands keep their dtype; integer and bool operands
  // compute in the default dtype (f32), as torch.log1p(int_tensor) does.
  // CHECK: magi.log1p %[[X]] : (tensor<2x?xf16>) -> tensor<2x?xf16>
  %0 = magi.log1p %x : (tensor<2x?xf16>) -> tensor<2x?xf16>
  // CHECK: magi.log1p %[[I]] : (tensor<4xi64>) -> tensor<4xf32>
  %1 = magi.log1p %i : (tensor<4xi64>) -> tensor<4xf32>
  // CHECK: magi.expm1 %[[D]] : (tensor<f64>) -> tensor<f64>
  %2 = magi.expm1 %d : (tensor<f64>) -> tensor<f64>
  // CHECK: magi.expm1 %[[B]] : (tensor<4xi1>) -> tensor<4xf32>
  %3 = magi.expm1 %b : (tensor<4xi1>) -> tensor<4xf32>
  // CHECK: magi.log2 %[[X]] : (tensor<2x?xf16>) -> tensor<2x?xf16>
  %4 = magi.log2 %x : (tensor<2x?xf16>) -> tensor<2x?xf16>
  // CHECK: magi.log2 %[[U]] : (tensor<3xui8>) -> tensor<3xf32>
  %5 = magi.log2 %u : (tensor<3xui8>) -> tensor<3xf32>
  // A declared result may refine a `?` to a static size.
  // CHECK: magi.log2 %[[X]] : (tensor<2x?xf16>) -> tensor<2x7xf16>
  %6 = magi.log2 %x : (tensor<2x?xf16>) -> tensor<2x7xf16>
  return
}

// CHECK-LABEL: func.func @rounding
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xbf16>, %[[I:.*]]: tensor<4xi32>, %[[U:.*]]: tensor<2xui8>, %[[D:.*]]: tensor<f64>)
func.func @rounding(%x: tensor<?x3xbf16>, %i: tensor<4xi32>, %u: tensor<2xui8>, %d: tensor<f64>) {
  // The result has the operand's type: on integers these are the identity,
  // and the integer dtype is kept (not promoted to float).
  // CHECK: magi.floor %[[X]] : (tensor<?x3xbf16>) -> tensor<?x3xbf16>
  %0 = magi.floor %x : (tensor<?x3xbf16>) -> tensor<?x3xbf16>
  // CHECK: magi.floor %[[I]] : (tensor<4xi32>) -> tensor<4xi32>
  %1 = magi.floor %i : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: magi.ceil %[[D]] : (tensor<f64>) -> tensor<f64>
  %2 = magi.ceil %d : (tensor<f64>) -> tensor<f64>
  // CHECK: magi.ceil %[[U]] : (tensor<2xui8>) -> tensor<2xui8>
  %3 = magi.ceil %u : (tensor<2xui8>) -> tensor<2xui8>
  // CHECK: magi.round %[[X]] : (tensor<?x3xbf16>) -> tensor<?x3xbf16>
  %4 = magi.round %x : (tensor<?x3xbf16>) -> tensor<?x3xbf16>
  // CHECK: magi.round %[[I]] : (tensor<4xi32>) -> tensor<4xi32>
  %5 = magi.round %i : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: magi.trunc %[[X]] : (tensor<?x3xbf16>) -> tensor<?x3xbf16>
  %6 = magi.trunc %x : (tensor<?x3xbf16>) -> tensor<?x3xbf16>
  // CHECK: magi.trunc %[[I]] : (tensor<4xi32>) -> tensor<4xi32>
  %7 = magi.trunc %i : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: magi.trunc %[[X]] : (tensor<?x3xbf16>) -> tensor<5x3xbf16>
  %8 = magi.trunc %x : (tensor<?x3xbf16>) -> tensor<5x3xbf16>
  return
}

// CHECK-LABEL: func.func @sign
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xf32>, %[[I:.*]]: tensor<4xi8>, %[[B:.*]]: tensor<4xi1>)
func.func @sign(%x: tensor<2x?xf32>, %i: tensor<4xi8>, %b: tensor<4xi1>) {
  // The operand's type, bool included.
  // CHECK: magi.sign %[[X]] : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %0 = magi.sign %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: magi.sign %[[I]] : (tensor<4xi8>) -> tensor<4xi8>
  %1 = magi.sign %i : (tensor<4xi8>) -> tensor<4xi8>
  // CHECK: magi.sign %[[B]] : (tensor<4xi1>) -> tensor<4xi1>
  %2 = magi.sign %b : (tensor<4xi1>) -> tensor<4xi1>
  return
}

// CHECK-LABEL: func.func @isnan_isinf
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xbf16>, %[[I:.*]]: tensor<4xi64>, %[[D:.*]]: tensor<f64>)
func.func @isnan_isinf(%x: tensor<2x?xbf16>, %i: tensor<4xi64>, %d: tensor<f64>) {
  // The result is bool with the operand's shape, whatever its dtype.
  // CHECK: magi.isnan %[[X]] : (tensor<2x?xbf16>) -> tensor<2x?xi1>
  %0 = magi.isnan %x : (tensor<2x?xbf16>) -> tensor<2x?xi1>
  // CHECK: magi.isnan %[[I]] : (tensor<4xi64>) -> tensor<4xi1>
  %1 = magi.isnan %i : (tensor<4xi64>) -> tensor<4xi1>
  // CHECK: magi.isinf %[[D]] : (tensor<f64>) -> tensor<i1>
  %2 = magi.isinf %d : (tensor<f64>) -> tensor<i1>
  // CHECK: magi.isinf %[[X]] : (tensor<2x?xbf16>) -> tensor<2x?xi1>
  %3 = magi.isinf %x : (tensor<2x?xbf16>) -> tensor<2x?xi1>
  // CHECK: magi.isinf %[[I]] : (tensor<4xi64>) -> tensor<4xi1>
  %4 = magi.isinf %i : (tensor<4xi64>) -> tensor<4xi1>
  return
}

// CHECK-LABEL: func.func @elu
func.func @elu(%x: tensor<2x?xf32>) {
  // Default constants (1) are not printed.
  // CHECK: magi.elu %{{.*}} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %0 = magi.elu %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: magi.elu %{{.*}} {alpha = 2.000000e+00 : f64, input_scale = 5.000000e-01 : f64} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %1 = magi.elu %x {alpha = 2.0 : f64, input_scale = 0.5 : f64} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

// CHECK-LABEL: func.func @leaky_relu
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xf32>, %[[H:.*]]: tensor<bf16>)
func.func @leaky_relu(%x: tensor<2x?xf32>, %h: tensor<bf16>) {
  // The default negative_slope (0.01) is not printed.
  // CHECK: magi.leaky_relu %[[X]] : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %0 = magi.leaky_relu %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: magi.leaky_relu %[[X]] : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %1 = magi.leaky_relu %x {negative_slope = 0.01 : f64} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: magi.leaky_relu %[[H]] {negative_slope = 2.000000e-01 : f64} : (tensor<bf16>) -> tensor<bf16>
  %2 = magi.leaky_relu %h {negative_slope = 0.2 : f64} : (tensor<bf16>) -> tensor<bf16>
  return
}

//===----------------------------------------------------------------------===//
// Binary ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @logical_xor
// CHECK-SAME: (%[[A:.*]]: tensor<2x?xf32>, %[[B:.*]]: tensor<3xi32>, %[[C:.*]]: tensor<2x1xi1>, %[[F:.*]]: f64)
func.func @logical_xor(%a: tensor<2x?xf32>, %b: tensor<3xi32>, %c: tensor<2x1xi1>, %f: f64) {
  // The result is bool; operands broadcast.
  // CHECK: magi.logical_xor %[[A]], %[[B]] : (tensor<2x?xf32>, tensor<3xi32>) -> tensor<2x3xi1>
  %0 = magi.logical_xor %a, %b : (tensor<2x?xf32>, tensor<3xi32>) -> tensor<2x3xi1>
  // CHECK: magi.logical_xor %[[C]], %[[B]] : (tensor<2x1xi1>, tensor<3xi32>) -> tensor<2x3xi1>
  %1 = magi.logical_xor %c, %b : (tensor<2x1xi1>, tensor<3xi32>) -> tensor<2x3xi1>
  // A Python scalar on one side.
  // CHECK: magi.logical_xor %[[A]], %[[F]] : (tensor<2x?xf32>, f64) -> tensor<2x?xi1>
  %2 = magi.logical_xor %a, %f : (tensor<2x?xf32>, f64) -> tensor<2x?xi1>
  return
}

// CHECK-LABEL: func.func @fmod
// CHECK-SAME: (%[[I:.*]]: tensor<4x1xi32>, %[[F:.*]]: tensor<3xf32>, %[[H:.*]]: tensor<3xf16>, %[[Z:.*]]: tensor<f32>, %[[N:.*]]: i64, %[[D:.*]]: f64)
func.func @fmod(%i: tensor<4x1xi32>, %f: tensor<3xf32>, %h: tensor<3xf16>, %z: tensor<f32>, %n: i64, %d: f64) {
  // Broadcasting with PyTorch type promotion: int and float give the float.
  // CHECK: magi.fmod %[[I]], %[[F]] : (tensor<4x1xi32>, tensor<3xf32>) -> tensor<4x3xf32>
  %0 = magi.fmod %i, %f : (tensor<4x1xi32>, tensor<3xf32>) -> tensor<4x3xf32>
  // An int scalar does not widen an int tensor.
  // CHECK: magi.fmod %[[I]], %[[N]] : (tensor<4x1xi32>, i64) -> tensor<4x1xi32>
  %1 = magi.fmod %i, %n : (tensor<4x1xi32>, i64) -> tensor<4x1xi32>
  // A float scalar makes an int tensor f32 (the default dtype).
  // CHECK: magi.fmod %[[I]], %[[D]] : (tensor<4x1xi32>, f64) -> tensor<4x1xf32>
  %2 = magi.fmod %i, %d : (tensor<4x1xi32>, f64) -> tensor<4x1xf32>
  // A 0-d tensor of the same category does not widen a dimensioned one.
  // CHECK: magi.fmod %[[H]], %[[Z]] : (tensor<3xf16>, tensor<f32>) -> tensor<3xf16>
  %3 = magi.fmod %h, %z : (tensor<3xf16>, tensor<f32>) -> tensor<3xf16>
  return
}

// CHECK-LABEL: func.func @atan2
// CHECK-SAME: (%[[I:.*]]: tensor<4x1xi32>, %[[J:.*]]: tensor<3xi64>, %[[B:.*]]: tensor<3xi1>, %[[H:.*]]: tensor<2x?xf16>, %[[Z:.*]]: tensor<f64>)
func.func @atan2(%i: tensor<4x1xi32>, %j: tensor<3xi64>, %b: tensor<3xi1>, %h: tensor<2x?xf16>, %z: tensor<f64>) {
  // Integer (and bool) operands promote to the default dtype, f32.
  // CHECK: magi.atan2 %[[I]], %[[J]] : (tensor<4x1xi32>, tensor<3xi64>) -> tensor<4x3xf32>
  %0 = magi.atan2 %i, %j : (tensor<4x1xi32>, tensor<3xi64>) -> tensor<4x3xf32>
  // CHECK: magi.atan2 %[[B]], %[[B]] : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xf32>
  %1 = magi.atan2 %b, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xf32>
  // Floating-point operands keep their dtype.
  // CHECK: magi.atan2 %[[H]], %[[H]] : (tensor<2x?xf16>, tensor<2x?xf16>) -> tensor<2x?xf16>
  %2 = magi.atan2 %h, %h : (tensor<2x?xf16>, tensor<2x?xf16>) -> tensor<2x?xf16>
  // A 0-d float tensor of a higher category than the dimensioned int tensor
  // decides the dtype.
  // CHECK: magi.atan2 %[[J]], %[[Z]] : (tensor<3xi64>, tensor<f64>) -> tensor<3xf64>
  %3 = magi.atan2 %j, %z : (tensor<3xi64>, tensor<f64>) -> tensor<3xf64>
  return
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @prod
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x4xf16>, %[[I:.*]]: tensor<3x4xi32>, %[[B:.*]]: tensor<5xi1>, %[[U:.*]]: tensor<2xui8>)
func.func @prod(%x: tensor<2x?x4xf16>, %i: tensor<3x4xi32>, %b: tensor<5xi1>, %u: tensor<2xui8>) {
  // A floating-point input keeps its dtype.
  // CHECK: magi.prod %[[X]] {dims = array<i64: 1>} : (tensor<2x?x4xf16>) -> tensor<2x4xf16>
  %0 = magi.prod %x {dims = array<i64: 1>} : (tensor<2x?x4xf16>) -> tensor<2x4xf16>
  // CHECK: magi.prod %[[X]] : (tensor<2x?x4xf16>) -> tensor<f16>
  %1 = magi.prod %x : (tensor<2x?x4xf16>) -> tensor<f16>
  // CHECK: magi.prod %[[X]] {dims = array<i64: -1>, keepdim = true} : (tensor<2x?x4xf16>) -> tensor<2x?x1xf16>
  %2 = magi.prod %x {dims = array<i64: -1>, keepdim = true} : (tensor<2x?x4xf16>) -> tensor<2x?x1xf16>
  // Integers, unsigned integers and bool multiply in i64.
  // CHECK: magi.prod %[[I]] {dims = array<i64: 0>} : (tensor<3x4xi32>) -> tensor<4xi64>
  %3 = magi.prod %i {dims = array<i64: 0>} : (tensor<3x4xi32>) -> tensor<4xi64>
  // CHECK: magi.prod %[[B]] : (tensor<5xi1>) -> tensor<i64>
  %4 = magi.prod %b : (tensor<5xi1>) -> tensor<i64>
  // CHECK: magi.prod %[[U]] : (tensor<2xui8>) -> tensor<i64>
  %5 = magi.prod %u : (tensor<2xui8>) -> tensor<i64>
  // An explicit dtype wins.
  // CHECK: magi.prod %[[I]] {dims = array<i64: 1>, dtype = f32} : (tensor<3x4xi32>) -> tensor<3xf32>
  %6 = magi.prod %i {dims = array<i64: 1>, dtype = f32} : (tensor<3x4xi32>) -> tensor<3xf32>
  return
}

// CHECK-LABEL: func.func @var
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x4xf32>, %[[H:.*]]: tensor<?x8xbf16>, %[[S:.*]]: tensor<f64>)
func.func @var(%x: tensor<2x?x4xf32>, %h: tensor<?x8xbf16>, %s: tensor<f64>) {
  // No dims: all dimensions. The default correction (1, unbiased) and
  // keepdim (false) are not printed.
  // CHECK: magi.var %[[X]] : (tensor<2x?x4xf32>) -> tensor<f32>
  %0 = magi.var %x : (tensor<2x?x4xf32>) -> tensor<f32>
  // CHECK: magi.var %[[X]] : (tensor<2x?x4xf32>) -> tensor<f32>
  %1 = magi.var %x {correction = 1.0 : f64, keepdim = false} : (tensor<2x?x4xf32>) -> tensor<f32>
  // The dtype is kept and the reduced dimensions go.
  // CHECK: magi.var %[[X]] {dims = array<i64: 1>} : (tensor<2x?x4xf32>) -> tensor<2x4xf32>
  %2 = magi.var %x {dims = array<i64: 1>} : (tensor<2x?x4xf32>) -> tensor<2x4xf32>
  // CHECK: magi.var %[[X]] {correction = 0.000000e+00 : f64, dims = array<i64: 0, -1>, keepdim = true} : (tensor<2x?x4xf32>) -> tensor<1x?x1xf32>
  %3 = magi.var %x {dims = array<i64: 0, -1>, correction = 0.0 : f64, keepdim = true} : (tensor<2x?x4xf32>) -> tensor<1x?x1xf32>
  // A half-precision input keeps its dtype.
  // CHECK: magi.var %[[H]] {dims = array<i64: -1>} : (tensor<?x8xbf16>) -> tensor<?xbf16>
  %4 = magi.var %h {dims = array<i64: -1>} : (tensor<?x8xbf16>) -> tensor<?xbf16>
  // An empty dims list reduces all dimensions.
  // CHECK: magi.var %[[H]] {dims = array<i64>, keepdim = true} : (tensor<?x8xbf16>) -> tensor<1x1xbf16>
  %5 = magi.var %h {dims = array<i64>, keepdim = true} : (tensor<?x8xbf16>) -> tensor<1x1xbf16>
  // CHECK: magi.var %[[S]] {dims = array<i64: 0>} : (tensor<f64>) -> tensor<f64>
  %6 = magi.var %s {dims = array<i64: 0>} : (tensor<f64>) -> tensor<f64>
  return
}

// CHECK-LABEL: func.func @min_dim
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x4xf32>, %[[I:.*]]: tensor<5xi32>, %[[S:.*]]: tensor<bf16>)
func.func @min_dim(%x: tensor<2x?x4xf32>, %i: tensor<5xi32>, %s: tensor<bf16>) -> (tensor<2x4xf32>, tensor<2x4xi64>) {
  // Values keep the dtype; indices are i64.
  // CHECK: %[[V:[^ ,]+]], %[[IDX:[^ ,]+]] = magi.min_dim %[[X]] {dim = 1 : i64} : (tensor<2x?x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  %v, %idx = magi.min_dim %x {dim = 1 : i64} : (tensor<2x?x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  // CHECK: magi.min_dim %[[X]] {dim = -1 : i64, keepdim = true} : (tensor<2x?x4xf32>) -> (tensor<2x?x1xf32>, tensor<2x?x1xi64>)
  %r:2 = magi.min_dim %x {dim = -1 : i64, keepdim = true} : (tensor<2x?x4xf32>) -> (tensor<2x?x1xf32>, tensor<2x?x1xi64>)
  // CHECK: magi.min_dim %[[I]] {dim = 0 : i64} : (tensor<5xi32>) -> (tensor<i32>, tensor<i64>)
  %q:2 = magi.min_dim %i {dim = 0 : i64} : (tensor<5xi32>) -> (tensor<i32>, tensor<i64>)
  // A 0-d tensor accepts dim 0 and -1.
  // CHECK: magi.min_dim %[[S]] {dim = -1 : i64, keepdim = true} : (tensor<bf16>) -> (tensor<bf16>, tensor<i64>)
  %p:2 = magi.min_dim %s {dim = -1 : i64, keepdim = true} : (tensor<bf16>) -> (tensor<bf16>, tensor<i64>)
  // CHECK: return %[[V]], %[[IDX]]
  return %v, %idx : tensor<2x4xf32>, tensor<2x4xi64>
}

// CHECK-LABEL: func.func @argmin
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x4xf32>, %[[I:.*]]: tensor<6xi8>)
func.func @argmin(%x: tensor<2x?x4xf32>, %i: tensor<6xi8>) {
  // No dim: the index into the flattened tensor.
  // CHECK: magi.argmin %[[X]] : (tensor<2x?x4xf32>) -> tensor<i64>
  %0 = magi.argmin %x : (tensor<2x?x4xf32>) -> tensor<i64>
  // CHECK: magi.argmin %[[X]] {keepdim = true} : (tensor<2x?x4xf32>) -> tensor<1x1x1xi64>
  %1 = magi.argmin %x {keepdim = true} : (tensor<2x?x4xf32>) -> tensor<1x1x1xi64>
  // CHECK: magi.argmin %[[X]] {dim = -1 : i64} : (tensor<2x?x4xf32>) -> tensor<2x?xi64>
  %2 = magi.argmin %x {dim = -1 : i64} : (tensor<2x?x4xf32>) -> tensor<2x?xi64>
  // CHECK: magi.argmin %[[X]] {dim = 1 : i64, keepdim = true} : (tensor<2x?x4xf32>) -> tensor<2x1x4xi64>
  %3 = magi.argmin %x {dim = 1 : i64, keepdim = true} : (tensor<2x?x4xf32>) -> tensor<2x1x4xi64>
  // CHECK: magi.argmin %[[I]] {dim = 0 : i64} : (tensor<6xi8>) -> tensor<i64>
  %4 = magi.argmin %i {dim = 0 : i64} : (tensor<6xi8>) -> tensor<i64>
  return
}

// CHECK-LABEL: func.func @topk
// CHECK-SAME: (%[[X:.*]]: tensor<8x?xf32>, %[[I:.*]]: tensor<5x6xi32>, %[[S:.*]]: tensor<f16>)
func.func @topk(%x: tensor<8x?xf32>, %i: tensor<5x6xi32>, %s: tensor<f16>) -> (tensor<3x6xi32>, tensor<3x6xi64>) {
  // The last dimension by default; a dynamic dimension becomes k. Values keep
  // the dtype; indices are i64. Defaults (dim = -1, largest, sorted) are not
  // printed.
  // CHECK: magi.topk %[[X]] {k = 4 : i64} : (tensor<8x?xf32>) -> (tensor<8x4xf32>, tensor<8x4xi64>)
  %a:2 = magi.topk %x {k = 4 : i64} : (tensor<8x?xf32>) -> (tensor<8x4xf32>, tensor<8x4xi64>)
  // CHECK: magi.topk %[[X]] {k = 4 : i64} : (tensor<8x?xf32>) -> (tensor<8x4xf32>, tensor<8x4xi64>)
  %b:2 = magi.topk %x {k = 4 : i64, dim = -1 : i64, largest = true, sorted = true} : (tensor<8x?xf32>) -> (tensor<8x4xf32>, tensor<8x4xi64>)
  // The smallest, unsorted, along dimension 0; k equal to the size is allowed.
  // CHECK: magi.topk %[[X]] {dim = 0 : i64, k = 8 : i64, largest = false, sorted = false} : (tensor<8x?xf32>) -> (tensor<8x?xf32>, tensor<8x?xi64>)
  %c:2 = magi.topk %x {k = 8 : i64, dim = 0 : i64, largest = false, sorted = false} : (tensor<8x?xf32>) -> (tensor<8x?xf32>, tensor<8x?xi64>)
  // An integer input; k = 0 gives an empty dimension.
  // CHECK: %[[V:[^ ,]+]], %[[IDX:[^ ,]+]] = magi.topk %[[I]] {dim = -2 : i64, k = 3 : i64} : (tensor<5x6xi32>) -> (tensor<3x6xi32>, tensor<3x6xi64>)
  %v, %idx = magi.topk %i {k = 3 : i64, dim = -2 : i64} : (tensor<5x6xi32>) -> (tensor<3x6xi32>, tensor<3x6xi64>)
  // CHECK: magi.topk %[[I]] {k = 0 : i64} : (tensor<5x6xi32>) -> (tensor<5x0xi32>, tensor<5x0xi64>)
  %d:2 = magi.topk %i {k = 0 : i64} : (tensor<5x6xi32>) -> (tensor<5x0xi32>, tensor<5x0xi64>)
  // A 0-d tensor.
  // CHECK: magi.topk %[[S]] {k = 1 : i64} : (tensor<f16>) -> (tensor<f16>, tensor<i64>)
  %e:2 = magi.topk %s {k = 1 : i64} : (tensor<f16>) -> (tensor<f16>, tensor<i64>)
  // CHECK: return %[[V]], %[[IDX]]
  return %v, %idx : tensor<3x6xi32>, tensor<3x6xi64>
}

// CHECK-LABEL: func.func @sort
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xbf16>, %[[I:.*]]: tensor<7xi64>, %[[S:.*]]: tensor<f32>)
func.func @sort(%x: tensor<2x?xbf16>, %i: tensor<7xi64>, %s: tensor<f32>) {
  // Values have the input's type; indices are i64 of the same shape.
  // CHECK: magi.sort %[[X]] : (tensor<2x?xbf16>) -> (tensor<2x?xbf16>, tensor<2x?xi64>)
  %a:2 = magi.sort %x : (tensor<2x?xbf16>) -> (tensor<2x?xbf16>, tensor<2x?xi64>)
  // CHECK: magi.sort %[[X]] {descending = true, dim = 0 : i64} : (tensor<2x?xbf16>) -> (tensor<2x?xbf16>, tensor<2x?xi64>)
  %b:2 = magi.sort %x {dim = 0 : i64, descending = true} : (tensor<2x?xbf16>) -> (tensor<2x?xbf16>, tensor<2x?xi64>)
  // CHECK: magi.sort %[[I]] : (tensor<7xi64>) -> (tensor<7xi64>, tensor<7xi64>)
  %c:2 = magi.sort %i {dim = -1 : i64, descending = false} : (tensor<7xi64>) -> (tensor<7xi64>, tensor<7xi64>)
  // CHECK: magi.sort %[[S]] {dim = 0 : i64} : (tensor<f32>) -> (tensor<f32>, tensor<i64>)
  %d:2 = magi.sort %s {dim = 0 : i64} : (tensor<f32>) -> (tensor<f32>, tensor<i64>)
  // A declared result may refine a `?`.
  // CHECK: magi.sort %[[X]] : (tensor<2x?xbf16>) -> (tensor<2x5xbf16>, tensor<2x5xi64>)
  %e:2 = magi.sort %x : (tensor<2x?xbf16>) -> (tensor<2x5xbf16>, tensor<2x5xi64>)
  return
}

//===----------------------------------------------------------------------===//
// Scatter ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @scatter
// CHECK-SAME: (%[[X:.*]]: tensor<4x?xf32>, %[[I:.*]]: tensor<2x3xi64>, %[[S:.*]]: tensor<2x5xf32>, %[[F:.*]]: f64)
func.func @scatter(%x: tensor<4x?xf32>, %i: tensor<2x3xi64>, %s: tensor<2x5xf32>, %f: f64) {
  // The result has self's type; index and src have self's rank and may be
  // smaller.
  // CHECK: magi.scatter %[[X]], %[[I]], %[[S]] {dim = 0 : i64} : (tensor<4x?xf32>, tensor<2x3xi64>, tensor<2x5xf32>) -> tensor<4x?xf32>
  %0 = magi.scatter %x, %i, %s {dim = 0 : i64} : (tensor<4x?xf32>, tensor<2x3xi64>, tensor<2x5xf32>) -> tensor<4x?xf32>
  // scatter_add, along a negative dim.
  // CHECK: magi.scatter %[[X]], %[[I]], %[[S]] {dim = -1 : i64, reduce = "add"} : (tensor<4x?xf32>, tensor<2x3xi64>, tensor<2x5xf32>) -> tensor<4x?xf32>
  %1 = magi.scatter %x, %i, %s {dim = -1 : i64, reduce = "add"} : (tensor<4x?xf32>, tensor<2x3xi64>, tensor<2x5xf32>) -> tensor<4x?xf32>
  // CHECK: magi.scatter %[[X]], %[[I]], %[[S]] {dim = 1 : i64, reduce = "multiply"} : (tensor<4x?xf32>, tensor<2x3xi64>, tensor<2x5xf32>) -> tensor<4x?xf32>
  %2 = magi.scatter %x, %i, %s {dim = 1 : i64, reduce = "multiply"} : (tensor<4x?xf32>, tensor<2x3xi64>, tensor<2x5xf32>) -> tensor<4x?xf32>
  // A Python scalar src (aten.scatter.value).
  // CHECK: magi.scatter %[[X]], %[[I]], %[[F]] {dim = 0 : i64} : (tensor<4x?xf32>, tensor<2x3xi64>, f64) -> tensor<4x?xf32>
  %3 = magi.scatter %x, %i, %f {dim = 0 : i64} : (tensor<4x?xf32>, tensor<2x3xi64>, f64) -> tensor<4x?xf32>
  // A declared result may refine a `?`.
  // CHECK: magi.scatter %[[X]], %[[I]], %[[S]] {dim = 0 : i64} : (tensor<4x?xf32>, tensor<2x3xi64>, tensor<2x5xf32>) -> tensor<4x6xf32>
  %4 = magi.scatter %x, %i, %s {dim = 0 : i64} : (tensor<4x?xf32>, tensor<2x3xi64>, tensor<2x5xf32>) -> tensor<4x6xf32>
  return
}

// CHECK-LABEL: func.func @index_put
// CHECK-SAME: (%[[X:.*]]: tensor<4x?x6xf16>, %[[I:.*]]: tensor<3xi64>, %[[J:.*]]: tensor<3xi32>, %[[V:.*]]: tensor<3x6xf16>, %[[W:.*]]: tensor<f16>)
func.func @index_put(%x: tensor<4x?x6xf16>, %i: tensor<3xi64>, %j: tensor<3xi32>, %v: tensor<3x6xf16>, %w: tensor<f16>) {
  // The result has self's type.
  // CHECK: magi.index_put %[[X]][%[[I]], %[[J]]], %[[V]] {indexed_dims = array<i64: 0, 1>} : (tensor<4x?x6xf16>, tensor<3xi64>, tensor<3xi32>, tensor<3x6xf16>) -> tensor<4x?x6xf16>
  %0 = magi.index_put %x[%i, %j], %v {indexed_dims = array<i64: 0, 1>} : (tensor<4x?x6xf16>, tensor<3xi64>, tensor<3xi32>, tensor<3x6xf16>) -> tensor<4x?x6xf16>
  // Non-adjacent indexed dimensions; values broadcast; accumulate.
  // CHECK: magi.index_put %[[X]][%[[I]], %[[I]]], %[[W]] {accumulate = true, indexed_dims = array<i64: 0, 2>} : (tensor<4x?x6xf16>, tensor<3xi64>, tensor<3xi64>, tensor<f16>) -> tensor<4x?x6xf16>
  %1 = magi.index_put %x[%i, %i], %w {indexed_dims = array<i64: 0, 2>, accumulate = true} : (tensor<4x?x6xf16>, tensor<3xi64>, tensor<3xi64>, tensor<f16>) -> tensor<4x?x6xf16>
  // accumulate = false is the default and is not printed.
  // CHECK: magi.index_put %[[X]][%[[J]]], %[[W]] {indexed_dims = array<i64: 1>} : (tensor<4x?x6xf16>, tensor<3xi32>, tensor<f16>) -> tensor<4x?x6xf16>
  %2 = magi.index_put %x[%j], %w {indexed_dims = array<i64: 1>, accumulate = false} : (tensor<4x?x6xf16>, tensor<3xi32>, tensor<f16>) -> tensor<4x?x6xf16>
  return
}

// CHECK-LABEL: func.func @slice_scatter
// CHECK-SAME: (%[[X:.*]]: tensor<4x10xf32>, %[[A:.*]]: tensor<4x6xf32>, %[[B:.*]]: tensor<2x10xf32>, %[[C:.*]]: tensor<4x?xf32>, %[[S:.*]]: index)
func.func @slice_scatter(%x: tensor<4x10xf32>, %a: tensor<4x6xf32>, %b: tensor<2x10xf32>, %c: tensor<4x?xf32>, %s: index) {
  // The result has self's type.
  // CHECK: magi.slice_scatter %[[X]], %[[A]], 1 [2, 8, 1] : (tensor<4x10xf32>, tensor<4x6xf32>) -> tensor<4x10xf32>
  %0 = magi.slice_scatter %x, %a, 1 [2, 8, 1] : (tensor<4x10xf32>, tensor<4x6xf32>) -> tensor<4x10xf32>
  // An absent end (INT64_MAX), a step, a negative dim.
  // CHECK: magi.slice_scatter %[[X]], %[[B]], -2 [0, 9223372036854775807, 2] : (tensor<4x10xf32>, tensor<2x10xf32>) -> tensor<4x10xf32>
  %1 = magi.slice_scatter %x, %b, -2 [0, 9223372036854775807, 2] : (tensor<4x10xf32>, tensor<2x10xf32>) -> tensor<4x10xf32>
  // A symbolic bound.
  // CHECK: magi.slice_scatter %[[X]], %[[C]], 1 [0, %[[S]], 1] : (tensor<4x10xf32>, tensor<4x?xf32>, index) -> tensor<4x10xf32>
  %2 = magi.slice_scatter %x, %c, 1 [0, %s, 1] : (tensor<4x10xf32>, tensor<4x?xf32>, index) -> tensor<4x10xf32>
  return
}

// CHECK-LABEL: func.func @select_scatter
// CHECK-SAME: (%[[X:.*]]: tensor<4x?xbf16>, %[[R:.*]]: tensor<?xbf16>, %[[C:.*]]: tensor<4xbf16>, %[[V:.*]]: tensor<5xi64>, %[[Z:.*]]: tensor<i64>, %[[S:.*]]: index)
func.func @select_scatter(%x: tensor<4x?xbf16>, %r: tensor<?xbf16>, %c: tensor<4xbf16>, %v: tensor<5xi64>, %z: tensor<i64>, %s: index) {
  // src has one dimension less than self; the result has self's type.
  // CHECK: magi.select_scatter %[[X]], %[[R]], 0 [1] : (tensor<4x?xbf16>, tensor<?xbf16>) -> tensor<4x?xbf16>
  %0 = magi.select_scatter %x, %r, 0 [1] : (tensor<4x?xbf16>, tensor<?xbf16>) -> tensor<4x?xbf16>
  // A negative index and dim.
  // CHECK: magi.select_scatter %[[X]], %[[C]], -1 [-1] : (tensor<4x?xbf16>, tensor<4xbf16>) -> tensor<4x?xbf16>
  %1 = magi.select_scatter %x, %c, -1 [-1] : (tensor<4x?xbf16>, tensor<4xbf16>) -> tensor<4x?xbf16>
  // A symbolic index.
  // CHECK: magi.select_scatter %[[X]], %[[C]], 1 [%[[S]]] : (tensor<4x?xbf16>, tensor<4xbf16>, index) -> tensor<4x?xbf16>
  %2 = magi.select_scatter %x, %c, 1 [%s] : (tensor<4x?xbf16>, tensor<4xbf16>, index) -> tensor<4x?xbf16>
  // A 1-d self takes a 0-d src.
  // CHECK: magi.select_scatter %[[V]], %[[Z]], 0 [3] : (tensor<5xi64>, tensor<i64>) -> tensor<5xi64>
  %3 = magi.select_scatter %v, %z, 0 [3] : (tensor<5xi64>, tensor<i64>) -> tensor<5xi64>
  return
}

//===----------------------------------------------------------------------===//
// flip, repeat, tril, triu
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @flip
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x4xf32>, %[[S:.*]]: tensor<i1>)
func.func @flip(%x: tensor<2x?x4xf32>, %s: tensor<i1>) {
  // The result has the operand's type.
  // CHECK: magi.flip %[[X]] {dims = array<i64: 0, -1>} : (tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  %0 = magi.flip %x {dims = array<i64: 0, -1>} : (tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  // CHECK: magi.flip %[[X]] {dims = array<i64: 1>} : (tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  %1 = magi.flip %x {dims = array<i64: 1>} : (tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  // No dims: nothing flipped.
  // CHECK: magi.flip %[[X]] {dims = array<i64>} : (tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  %2 = magi.flip %x {dims = array<i64>} : (tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  // A 0-d tensor accepts dim 0.
  // CHECK: magi.flip %[[S]] {dims = array<i64: 0>} : (tensor<i1>) -> tensor<i1>
  %3 = magi.flip %s {dims = array<i64: 0>} : (tensor<i1>) -> tensor<i1>
  return
}

// CHECK-LABEL: func.func @repeat
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[D:.*]]: tensor<?x3xi64>, %[[S:.*]]: tensor<f16>)
func.func @repeat(%x: tensor<2x3xf32>, %d: tensor<?x3xi64>, %s: tensor<f16>) {
  // Each size is multiplied by its repeat count.
  // CHECK: magi.repeat %[[X]] {repeats = array<i64: 2, 4>} : (tensor<2x3xf32>) -> tensor<4x12xf32>
  %0 = magi.repeat %x {repeats = array<i64: 2, 4>} : (tensor<2x3xf32>) -> tensor<4x12xf32>
  // Extra repeat counts add leading dimensions.
  // CHECK: magi.repeat %[[X]] {repeats = array<i64: 5, 1, 1, 2>} : (tensor<2x3xf32>) -> tensor<5x1x2x6xf32>
  %1 = magi.repeat %x {repeats = array<i64: 5, 1, 1, 2>} : (tensor<2x3xf32>) -> tensor<5x1x2x6xf32>
  // A zero count gives an empty dimension.
  // CHECK: magi.repeat %[[X]] {repeats = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<0x3xf32>
  %2 = magi.repeat %x {repeats = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<0x3xf32>
  // A dynamic size stays dynamic.
  // CHECK: magi.repeat %[[D]] {repeats = array<i64: 2, 3, 2>} : (tensor<?x3xi64>) -> tensor<2x?x6xi64>
  %3 = magi.repeat %d {repeats = array<i64: 2, 3, 2>} : (tensor<?x3xi64>) -> tensor<2x?x6xi64>
  // A 0-d tensor: the repeat counts are the shape.
  // CHECK: magi.repeat %[[S]] {repeats = array<i64: 3, 2>} : (tensor<f16>) -> tensor<3x2xf16>
  %4 = magi.repeat %s {repeats = array<i64: 3, 2>} : (tensor<f16>) -> tensor<3x2xf16>
  // CHECK: magi.repeat %[[S]] {repeats = array<i64>} : (tensor<f16>) -> tensor<f16>
  %5 = magi.repeat %s {repeats = array<i64>} : (tensor<f16>) -> tensor<f16>
  return
}

// CHECK-LABEL: func.func @triangle
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>, %[[B:.*]]: tensor<2x?x5xi1>)
func.func @triangle(%x: tensor<4x4xf32>, %b: tensor<2x?x5xi1>) {
  // The result has the operand's type. The default diagonal (0) is not
  // printed.
  // CHECK: magi.tril %[[X]] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = magi.tril %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
  // CHECK: magi.tril %[[X]] {diagonal = -1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = magi.tril %x {diagonal = -1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  // CHECK: magi.triu %[[X]] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = magi.triu %x {diagonal = 0 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  // Batched, bool, dynamic.
  // CHECK: magi.triu %[[B]] {diagonal = 1 : i64} : (tensor<2x?x5xi1>) -> tensor<2x?x5xi1>
  %3 = magi.triu %b {diagonal = 1 : i64} : (tensor<2x?x5xi1>) -> tensor<2x?x5xi1>
  // CHECK: magi.tril %[[B]] : (tensor<2x?x5xi1>) -> tensor<2x3x5xi1>
  %4 = magi.tril %b : (tensor<2x?x5xi1>) -> tensor<2x3x5xi1>
  return
}

//===----------------------------------------------------------------------===//
// Transposed operands of the matrix products
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @mm_transposed
// CHECK-SAME: (%[[A:.*]]: tensor<?x64xbf16>, %[[W:.*]]: tensor<128x64xbf16>, %[[AT:.*]]: tensor<64x?xbf16>, %[[B:.*]]: tensor<64x128xbf16>)
func.func @mm_transposed(%a: tensor<?x64xbf16>, %w: tensor<128x64xbf16>, %at: tensor<64x?xbf16>, %b: tensor<64x128xbf16>) {
  // transpose_mat2: self @ mat2^T contracts self's columns with mat2's
  // columns (a linear layer's [out, in] weight).
  // CHECK: magi.mm %[[A]], %[[W]] {transpose_mat2} : (tensor<?x64xbf16>, tensor<128x64xbf16>) -> tensor<?x128xbf16>
  %0 = magi.mm %a, %w {transpose_mat2} : (tensor<?x64xbf16>, tensor<128x64xbf16>) -> tensor<?x128xbf16>
  // transpose_self: self^T @ mat2.
  // CHECK: magi.mm %[[AT]], %[[B]] {transpose_self} : (tensor<64x?xbf16>, tensor<64x128xbf16>) -> tensor<?x128xbf16>
  %1 = magi.mm %at, %b {transpose_self} : (tensor<64x?xbf16>, tensor<64x128xbf16>) -> tensor<?x128xbf16>
  // Both: self^T @ mat2^T.
  // CHECK: magi.mm %[[AT]], %[[W]] {transpose_mat2, transpose_self} : (tensor<64x?xbf16>, tensor<128x64xbf16>) -> tensor<?x128xbf16>
  %2 = magi.mm %at, %w {transpose_self, transpose_mat2} : (tensor<64x?xbf16>, tensor<128x64xbf16>) -> tensor<?x128xbf16>
  // (64x128)^T @ (128x64)^T is 128x128, where the plain product is 64x64.
  // CHECK: magi.mm %[[B]], %[[W]] {transpose_mat2, transpose_self} : (tensor<64x128xbf16>, tensor<128x64xbf16>) -> tensor<128x128xbf16>
  %3 = magi.mm %b, %w {transpose_self, transpose_mat2} : (tensor<64x128xbf16>, tensor<128x64xbf16>) -> tensor<128x128xbf16>
  // A declared result may refine the dynamic row count.
  // CHECK: magi.mm %[[A]], %[[W]] {transpose_mat2} : (tensor<?x64xbf16>, tensor<128x64xbf16>) -> tensor<8x128xbf16>
  %4 = magi.mm %a, %w {transpose_mat2} : (tensor<?x64xbf16>, tensor<128x64xbf16>) -> tensor<8x128xbf16>
  return
}

// CHECK-LABEL: func.func @bmm_transposed
// CHECK-SAME: (%[[Q:.*]]: tensor<4x?x16xf16>, %[[K:.*]]: tensor<4x?x16xf16>, %[[P:.*]]: tensor<4x8x?xf16>, %[[V:.*]]: tensor<4x8x16xf16>)
func.func @bmm_transposed(%q: tensor<4x?x16xf16>, %k: tensor<4x?x16xf16>, %p: tensor<4x8x?xf16>, %v: tensor<4x8x16xf16>) {
  // q @ k^T, as in attention scores: the last two dimensions of mat2 swap.
  // CHECK: magi.bmm %[[Q]], %[[K]] {transpose_mat2} : (tensor<4x?x16xf16>, tensor<4x?x16xf16>) -> tensor<4x?x?xf16>
  %0 = magi.bmm %q, %k {transpose_mat2} : (tensor<4x?x16xf16>, tensor<4x?x16xf16>) -> tensor<4x?x?xf16>
  // p^T @ v; the batch dimension is not transposed.
  // CHECK: magi.bmm %[[P]], %[[V]] {transpose_self} : (tensor<4x8x?xf16>, tensor<4x8x16xf16>) -> tensor<4x?x16xf16>
  %1 = magi.bmm %p, %v {transpose_self} : (tensor<4x8x?xf16>, tensor<4x8x16xf16>) -> tensor<4x?x16xf16>
  return
}

// CHECK-LABEL: func.func @addmm_transposed
// CHECK-SAME: (%[[BIAS:.*]]: tensor<128xf32>, %[[A:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<128x64xf32>, %[[AT:.*]]: tensor<64x?xf32>)
func.func @addmm_transposed(%bias: tensor<128xf32>, %a: tensor<?x64xf32>, %w: tensor<128x64xf32>, %at: tensor<64x?xf32>) {
  // The linear layer with its weight as stored ([out, in]).
  // CHECK: magi.addmm %[[BIAS]], %[[A]], %[[W]] {transpose_mat2} : (tensor<128xf32>, tensor<?x64xf32>, tensor<128x64xf32>) -> tensor<?x128xf32>
  %0 = magi.addmm %bias, %a, %w {transpose_mat2} : (tensor<128xf32>, tensor<?x64xf32>, tensor<128x64xf32>) -> tensor<?x128xf32>
  // CHECK: magi.addmm %[[BIAS]], %[[AT]], %[[W]] {alpha = 2.000000e+00 : f64, transpose_mat1, transpose_mat2} : (tensor<128xf32>, tensor<64x?xf32>, tensor<128x64xf32>) -> tensor<?x128xf32>
  %1 = magi.addmm %bias, %at, %w {transpose_mat1, transpose_mat2, alpha = 2.0} : (tensor<128xf32>, tensor<64x?xf32>, tensor<128x64xf32>) -> tensor<?x128xf32>
  return
}
