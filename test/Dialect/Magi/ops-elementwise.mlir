// RUN: magi-opt %s | FileCheck %s
// RUN: magi-opt %s | magi-opt | FileCheck %s
// RUN: magi-opt %s -emit-bytecode | magi-opt | FileCheck %s
// RUN: magi-opt %s --verify-roundtrip | FileCheck %s

// Positive tests for the elementwise ops: unary ops, binary ops with
// broadcasting and PyTorch type promotion, comparisons, magi.where,
// magi.clamp and the copies (magi.to_copy, magi.clone, magi.copy).

//===----------------------------------------------------------------------===//
// Unary ops that keep the operand's type
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @same_type_unary
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xf32>, %[[I:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi1>, %[[H:.*]]: tensor<bf16>)
func.func @same_type_unary(%x: tensor<2x?xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>, %h: tensor<bf16>) {
  // CHECK: magi.neg %[[X]] : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %0 = magi.neg %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: magi.neg %[[I]] : (tensor<4xi32>) -> tensor<4xi32>
  %1 = magi.neg %i : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: magi.abs %[[X]] : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %2 = magi.abs %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: magi.abs %[[H]] : (tensor<bf16>) -> tensor<bf16>
  %3 = magi.abs %h : (tensor<bf16>) -> tensor<bf16>
  // CHECK: magi.relu %[[X]] : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %4 = magi.relu %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: magi.relu %[[I]] : (tensor<4xi32>) -> tensor<4xi32>
  %5 = magi.relu %i : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: magi.bitwise_not %[[I]] : (tensor<4xi32>) -> tensor<4xi32>
  %6 = magi.bitwise_not %i : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: magi.bitwise_not %[[B]] : (tensor<4xi1>) -> tensor<4xi1>
  %7 = magi.bitwise_not %b : (tensor<4xi1>) -> tensor<4xi1>
  // A declared result may refine a `?` to a static size.
  // CHECK: magi.neg %[[X]] : (tensor<2x?xf32>) -> tensor<2x5xf32>
  %8 = magi.neg %x : (tensor<2x?xf32>) -> tensor<2x5xf32>
  return
}

// CHECK-LABEL: func.func @logical_not
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xf32>, %[[I:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi1>)
func.func @logical_not(%x: tensor<2x?xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>) {
  // The result is bool whatever the operand's dtype.
  // CHECK: magi.logical_not %[[X]] : (tensor<2x?xf32>) -> tensor<2x?xi1>
  %0 = magi.logical_not %x : (tensor<2x?xf32>) -> tensor<2x?xi1>
  // CHECK: magi.logical_not %[[I]] : (tensor<4xi32>) -> tensor<4xi1>
  %1 = magi.logical_not %i : (tensor<4xi32>) -> tensor<4xi1>
  // CHECK: magi.logical_not %[[B]] : (tensor<4xi1>) -> tensor<4xi1>
  %2 = magi.logical_not %b : (tensor<4xi1>) -> tensor<4xi1>
  return
}

//===----------------------------------------------------------------------===//
// Unary ops computed in floating point
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @float_unary
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xf16>, %[[I:.*]]: tensor<4xi64>, %[[B:.*]]: tensor<4xi1>, %[[D:.*]]: tensor<f64>, %[[U:.*]]: tensor<3xui8>)
func.func @float_unary(%x: tensor<2x?xf16>, %i: tensor<4xi64>, %b: tensor<4xi1>, %d: tensor<f64>, %u: tensor<3xui8>) {
  // Floating-point operands keep their dtype.
  // CHECK: magi.cos %[[X]] : (tensor<2x?xf16>) -> tensor<2x?xf16>
  %0 = magi.cos %x : (tensor<2x?xf16>) -> tensor<2x?xf16>
  // Integer and bool operands promote to the default dtype, f32.
  // CHECK: magi.cos %[[I]] : (tensor<4xi64>) -> tensor<4xf32>
  %1 = magi.cos %i : (tensor<4xi64>) -> tensor<4xf32>
  // CHECK: magi.sin %[[X]] : (tensor<2x?xf16>) -> tensor<2x?xf16>
  %2 = magi.sin %x : (tensor<2x?xf16>) -> tensor<2x?xf16>
  // CHECK: magi.sin %[[B]] : (tensor<4xi1>) -> tensor<4xf32>
  %3 = magi.sin %b : (tensor<4xi1>) -> tensor<4xf32>
  // CHECK: magi.exp %[[D]] : (tensor<f64>) -> tensor<f64>
  %4 = magi.exp %d : (tensor<f64>) -> tensor<f64>
  // CHECK: magi.exp %[[U]] : (tensor<3xui8>) -> tensor<3xf32>
  %5 = magi.exp %u : (tensor<3xui8>) -> tensor<3xf32>
  // CHECK: magi.log %[[X]] : (tensor<2x?xf16>) -> tensor<2x?xf16>
  %6 = magi.log %x : (tensor<2x?xf16>) -> tensor<2x?xf16>
  // CHECK: magi.log %[[I]] : (tensor<4xi64>) -> tensor<4xf32>
  %7 = magi.log %i : (tensor<4xi64>) -> tensor<4xf32>
  // CHECK: magi.sqrt %[[X]] : (tensor<2x?xf16>) -> tensor<2x?xf16>
  %8 = magi.sqrt %x : (tensor<2x?xf16>) -> tensor<2x?xf16>
  // CHECK: magi.sqrt %[[I]] : (tensor<4xi64>) -> tensor<4xf32>
  %9 = magi.sqrt %i : (tensor<4xi64>) -> tensor<4xf32>
  // CHECK: magi.rsqrt %[[X]] : (tensor<2x?xf16>) -> tensor<2x?xf16>
  %10 = magi.rsqrt %x : (tensor<2x?xf16>) -> tensor<2x?xf16>
  // CHECK: magi.rsqrt %[[I]] : (tensor<4xi64>) -> tensor<4xf32>
  %11 = magi.rsqrt %i : (tensor<4xi64>) -> tensor<4xf32>
  // CHECK: magi.reciprocal %[[D]] : (tensor<f64>) -> tensor<f64>
  %12 = magi.reciprocal %d : (tensor<f64>) -> tensor<f64>
  // CHECK: magi.reciprocal %[[I]] : (tensor<4xi64>) -> tensor<4xf32>
  %13 = magi.reciprocal %i : (tensor<4xi64>) -> tensor<4xf32>
  // CHECK: magi.sigmoid %[[X]] : (tensor<2x?xf16>) -> tensor<2x?xf16>
  %14 = magi.sigmoid %x : (tensor<2x?xf16>) -> tensor<2x?xf16>
  // CHECK: magi.sigmoid %[[B]] : (tensor<4xi1>) -> tensor<4xf32>
  %15 = magi.sigmoid %b : (tensor<4xi1>) -> tensor<4xf32>
  // CHECK: magi.tanh %[[X]] : (tensor<2x?xf16>) -> tensor<2x?xf16>
  %16 = magi.tanh %x : (tensor<2x?xf16>) -> tensor<2x?xf16>
  // CHECK: magi.tanh %[[I]] : (tensor<4xi64>) -> tensor<4xf32>
  %17 = magi.tanh %i : (tensor<4xi64>) -> tensor<4xf32>
  // CHECK: magi.erf %[[X]] : (tensor<2x?xf16>) -> tensor<2x?xf16>
  %18 = magi.erf %x : (tensor<2x?xf16>) -> tensor<2x?xf16>
  // CHECK: magi.erf %[[I]] : (tensor<4xi64>) -> tensor<4xf32>
  %19 = magi.erf %i : (tensor<4xi64>) -> tensor<4xf32>
  // CHECK: magi.silu %[[X]] : (tensor<2x?xf16>) -> tensor<2x?xf16>
  %20 = magi.silu %x : (tensor<2x?xf16>) -> tensor<2x?xf16>
  // CHECK: magi.silu %[[D]] : (tensor<f64>) -> tensor<f64>
  %21 = magi.silu %d : (tensor<f64>) -> tensor<f64>
  return
}

// CHECK-LABEL: func.func @gelu
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xbf16>)
func.func @gelu(%x: tensor<?x8xbf16>) {
  // The default "none" is not printed.
  // CHECK: magi.gelu %[[X]] : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  %0 = magi.gelu %x : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  // CHECK-NEXT: magi.gelu %[[X]] : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  %1 = magi.gelu %x {approximate = "none"} : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  // CHECK-NEXT: magi.gelu %[[X]] {approximate = "tanh"} : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  %2 = magi.gelu %x {approximate = "tanh"} : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  return
}

//===----------------------------------------------------------------------===//
// Binary ops: broadcasting
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>, %[[C:.*]]: tensor<4x1x3xf32>, %[[D:.*]]: tensor<?x3xf32>, %[[E:.*]]: tensor<1x?xf32>, %[[S:.*]]: tensor<f32>)
func.func @broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<4x1x3xf32>,
                     %d: tensor<?x3xf32>, %e: tensor<1x?xf32>, %s: tensor<f32>) {
  // Lower rank is aligned to the right.
  // CHECK: magi.add %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = magi.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // Size-1 dimensions stretch.
  // CHECK: magi.mul %[[C]], %[[A]] : (tensor<4x1x3xf32>, tensor<2x3xf32>) -> tensor<4x2x3xf32>
  %1 = magi.mul %c, %a : (tensor<4x1x3xf32>, tensor<2x3xf32>) -> tensor<4x2x3xf32>
  // `?` against a static size gives the static size.
  // CHECK: magi.sub %[[D]], %[[A]] : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = magi.sub %d, %a : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // `?` against 1 stays `?`.
  // CHECK: magi.add %[[D]], %[[E]] : (tensor<?x3xf32>, tensor<1x?xf32>) -> tensor<?x3xf32>
  %3 = magi.add %d, %e : (tensor<?x3xf32>, tensor<1x?xf32>) -> tensor<?x3xf32>
  // A 0-d tensor broadcasts to anything.
  // CHECK: magi.add %[[S]], %[[C]] : (tensor<f32>, tensor<4x1x3xf32>) -> tensor<4x1x3xf32>
  %4 = magi.add %s, %c : (tensor<f32>, tensor<4x1x3xf32>) -> tensor<4x1x3xf32>
  // The alpha of add and sub.
  // CHECK: magi.add %[[A]], %[[B]] {alpha = 2.000000e+00 : f64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = magi.add %a, %b {alpha = 2.0} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: magi.sub %[[A]], %[[B]] {alpha = -1.000000e+00 : f64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %6 = magi.sub %a, %b {alpha = -1.0} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // A `?` from broadcasting may be declared static.
  // CHECK: magi.add %[[D]], %[[E]] : (tensor<?x3xf32>, tensor<1x?xf32>) -> tensor<7x3xf32>
  %7 = magi.add %d, %e : (tensor<?x3xf32>, tensor<1x?xf32>) -> tensor<7x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Binary ops: type promotion (torch.result_type)
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @promotion
func.func @promotion(%f32: tensor<4xf32>, %f16: tensor<4xf16>, %bf16: tensor<4xbf16>,
                     %i64: tensor<4xi64>, %i32: tensor<4xi32>, %i8: tensor<4xi8>,
                     %u8: tensor<4xui8>, %b: tensor<4xi1>, %i32_0d: tensor<i32>,
                     %f64_0d: tensor<f64>, %b_0d: tensor<i1>) {
  // Same dtype.
  // CHECK: magi.add %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %0 = magi.add %f32, %f32 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // The wider float.
  // CHECK: magi.add %{{.*}}, %{{.*}} : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
  %1 = magi.add %f16, %f32 : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
  // f16 and bf16 have no common 16-bit type: f32.
  // CHECK: magi.add %{{.*}}, %{{.*}} : (tensor<4xbf16>, tensor<4xf16>) -> tensor<4xf32>
  %2 = magi.add %bf16, %f16 : (tensor<4xbf16>, tensor<4xf16>) -> tensor<4xf32>
  // Integer and float: the float.
  // CHECK: magi.mul %{{.*}}, %{{.*}} : (tensor<4xi64>, tensor<4xbf16>) -> tensor<4xbf16>
  %3 = magi.mul %i64, %bf16 : (tensor<4xi64>, tensor<4xbf16>) -> tensor<4xbf16>
  // The wider integer.
  // CHECK: magi.mul %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi64>
  %4 = magi.mul %i32, %i64 : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi64>
  // uint8 with int8: int16.
  // CHECK: magi.sub %{{.*}}, %{{.*}} : (tensor<4xui8>, tensor<4xi8>) -> tensor<4xi16>
  %5 = magi.sub %u8, %i8 : (tensor<4xui8>, tensor<4xi8>) -> tensor<4xi16>
  // uint8 with a wider signed type: the signed type.
  // CHECK: magi.sub %{{.*}}, %{{.*}} : (tensor<4xui8>, tensor<4xi32>) -> tensor<4xi32>
  %6 = magi.sub %u8, %i32 : (tensor<4xui8>, tensor<4xi32>) -> tensor<4xi32>
  // Bool with an integer: the integer.
  // CHECK: magi.add %{{.*}}, %{{.*}} : (tensor<4xi1>, tensor<4xi8>) -> tensor<4xi8>
  %7 = magi.add %b, %i8 : (tensor<4xi1>, tensor<4xi8>) -> tensor<4xi8>
  // Bool with bool stays bool.
  // CHECK: magi.add %{{.*}}, %{{.*}} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %8 = magi.add %b, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // A 0-d tensor of the same category does not widen a dimensioned one.
  // CHECK: magi.add %{{.*}}, %{{.*}} : (tensor<4xi8>, tensor<i32>) -> tensor<4xi8>
  %9 = magi.add %i8, %i32_0d : (tensor<4xi8>, tensor<i32>) -> tensor<4xi8>
  // CHECK: magi.add %{{.*}}, %{{.*}} : (tensor<4xf16>, tensor<f64>) -> tensor<4xf16>
  %10 = magi.add %f16, %f64_0d : (tensor<4xf16>, tensor<f64>) -> tensor<4xf16>
  // A 0-d tensor of a higher category does: its own dtype.
  // CHECK: magi.add %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<f64>) -> tensor<4xf64>
  %11 = magi.add %i32, %f64_0d : (tensor<4xi32>, tensor<f64>) -> tensor<4xf64>
  // CHECK: magi.add %{{.*}}, %{{.*}} : (tensor<4xi1>, tensor<i32>) -> tensor<4xi32>
  %12 = magi.add %b, %i32_0d : (tensor<4xi1>, tensor<i32>) -> tensor<4xi32>
  // Only 0-d tensors: ordinary promotion among them.
  // CHECK: magi.add %{{.*}}, %{{.*}} : (tensor<i32>, tensor<f64>) -> tensor<f64>
  %13 = magi.add %i32_0d, %f64_0d : (tensor<i32>, tensor<f64>) -> tensor<f64>
  // CHECK: magi.add %{{.*}}, %{{.*}} : (tensor<i1>, tensor<i1>) -> tensor<i1>
  %14 = magi.add %b_0d, %b_0d : (tensor<i1>, tensor<i1>) -> tensor<i1>
  return
}

// CHECK-LABEL: func.func @promotion_scalars
func.func @promotion_scalars(%f32: tensor<4xf32>, %bf16: tensor<4xbf16>, %i32: tensor<4xi32>,
                             %u8: tensor<4xui8>, %b: tensor<4xi1>, %i32_0d: tensor<i32>,
                             %fs: f64, %is: i64, %bs: i1, %sym: index) {
  // A Python float keeps a floating tensor's dtype.
  // CHECK: magi.add %{{.*}}, %{{.*}} : (tensor<4xbf16>, f64) -> tensor<4xbf16>
  %0 = magi.add %bf16, %fs : (tensor<4xbf16>, f64) -> tensor<4xbf16>
  // A Python float with an integer tensor: the default dtype.
  // CHECK: magi.mul %{{.*}}, %{{.*}} : (tensor<4xi32>, f64) -> tensor<4xf32>
  %1 = magi.mul %i32, %fs : (tensor<4xi32>, f64) -> tensor<4xf32>
  // A Python int keeps an integer tensor's dtype, even uint8.
  // CHECK: magi.mul %{{.*}}, %{{.*}} : (tensor<4xi32>, i64) -> tensor<4xi32>
  %2 = magi.mul %i32, %is : (tensor<4xi32>, i64) -> tensor<4xi32>
  // CHECK: magi.add %{{.*}}, %{{.*}} : (tensor<4xui8>, i64) -> tensor<4xui8>
  %3 = magi.add %u8, %is : (tensor<4xui8>, i64) -> tensor<4xui8>
  // A Python int with a bool tensor: int64.
  // CHECK: magi.add %{{.*}}, %{{.*}} : (tensor<4xi1>, i64) -> tensor<4xi64>
  %4 = magi.add %b, %is : (tensor<4xi1>, i64) -> tensor<4xi64>
  // A Python float with a bool tensor: the default dtype.
  // CHECK: magi.add %{{.*}}, %{{.*}} : (tensor<4xi1>, f64) -> tensor<4xf32>
  %5 = magi.add %b, %fs : (tensor<4xi1>, f64) -> tensor<4xf32>
  // A Python bool never widens.
  // CHECK: magi.mul %{{.*}}, %{{.*}} : (tensor<4xi1>, i1) -> tensor<4xi1>
  %6 = magi.mul %b, %bs : (tensor<4xi1>, i1) -> tensor<4xi1>
  // CHECK: magi.mul %{{.*}}, %{{.*}} : (tensor<4xf32>, i1) -> tensor<4xf32>
  %7 = magi.mul %f32, %bs : (tensor<4xf32>, i1) -> tensor<4xf32>
  // A symbolic integer counts as a Python int.
  // CHECK: magi.mul %{{.*}}, %{{.*}} : (tensor<4xi32>, index) -> tensor<4xi32>
  %8 = magi.mul %i32, %sym : (tensor<4xi32>, index) -> tensor<4xi32>
  // CHECK: magi.add %{{.*}}, %{{.*}} : (tensor<4xi1>, index) -> tensor<4xi64>
  %9 = magi.add %b, %sym : (tensor<4xi1>, index) -> tensor<4xi64>
  // The scalar may come first.
  // CHECK: magi.sub %{{.*}}, %{{.*}} : (f64, tensor<4xi32>) -> tensor<4xf32>
  %10 = magi.sub %fs, %i32 : (f64, tensor<4xi32>) -> tensor<4xf32>
  // A 0-d integer tensor with a Python float: the default dtype.
  // CHECK: magi.add %{{.*}}, %{{.*}} : (tensor<i32>, f64) -> tensor<f32>
  %11 = magi.add %i32_0d, %fs : (tensor<i32>, f64) -> tensor<f32>
  // A 0-d integer tensor with a Python int: the tensor's dtype.
  // CHECK: magi.add %{{.*}}, %{{.*}} : (tensor<i32>, i64) -> tensor<i32>
  %12 = magi.add %i32_0d, %is : (tensor<i32>, i64) -> tensor<i32>
  return
}

// CHECK-LABEL: func.func @binary_ops
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<3xf32>, %[[I:.*]]: tensor<2x3xi32>, %[[F:.*]]: f64, %[[N:.*]]: i64)
func.func @binary_ops(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %i: tensor<2x3xi32>, %f: f64, %n: i64) {
  // CHECK: magi.pow %[[X]], %[[F]] : (tensor<2x3xf32>, f64) -> tensor<2x3xf32>
  %0 = magi.pow %x, %f : (tensor<2x3xf32>, f64) -> tensor<2x3xf32>
  // An integer tensor to a float power is floating point.
  // CHECK: magi.pow %[[I]], %[[F]] : (tensor<2x3xi32>, f64) -> tensor<2x3xf32>
  %1 = magi.pow %i, %f : (tensor<2x3xi32>, f64) -> tensor<2x3xf32>
  // CHECK: magi.pow %[[I]], %[[N]] : (tensor<2x3xi32>, i64) -> tensor<2x3xi32>
  %2 = magi.pow %i, %n : (tensor<2x3xi32>, i64) -> tensor<2x3xi32>
  // CHECK: magi.pow %[[F]], %[[X]] : (f64, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = magi.pow %f, %x : (f64, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: magi.remainder %[[I]], %[[N]] : (tensor<2x3xi32>, i64) -> tensor<2x3xi32>
  %4 = magi.remainder %i, %n : (tensor<2x3xi32>, i64) -> tensor<2x3xi32>
  // CHECK: magi.remainder %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = magi.remainder %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: magi.maximum %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %6 = magi.maximum %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: magi.maximum %[[I]], %[[X]] : (tensor<2x3xi32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = magi.maximum %i, %x : (tensor<2x3xi32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: magi.minimum %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %8 = magi.minimum %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: magi.minimum %[[I]], %[[I]] : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %9 = magi.minimum %i, %i : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  return
}

// CHECK-LABEL: func.func @div
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>, %[[I:.*]]: tensor<4xi32>, %[[J:.*]]: tensor<4xi64>, %[[B:.*]]: tensor<4xi1>, %[[F:.*]]: f64, %[[N:.*]]: i64)
func.func @div(%x: tensor<4xf16>, %i: tensor<4xi32>, %j: tensor<4xi64>, %b: tensor<4xi1>, %f: f64, %n: i64) {
  // True division keeps a floating dtype.
  // CHECK: magi.div %[[X]], %[[F]] : (tensor<4xf16>, f64) -> tensor<4xf16>
  %0 = magi.div %x, %f : (tensor<4xf16>, f64) -> tensor<4xf16>
  // True division of integers is f32.
  // CHECK: magi.div %[[I]], %[[J]] : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xf32>
  %1 = magi.div %i, %j : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xf32>
  // CHECK: magi.div %[[I]], %[[N]] : (tensor<4xi32>, i64) -> tensor<4xf32>
  %2 = magi.div %i, %n : (tensor<4xi32>, i64) -> tensor<4xf32>
  // CHECK: magi.div %[[B]], %[[B]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xf32>
  %3 = magi.div %b, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xf32>
  // Rounding division keeps the promoted dtype.
  // CHECK: magi.div %[[I]], %[[J]] {rounding_mode = "floor"} : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi64>
  %4 = magi.div %i, %j {rounding_mode = "floor"} : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi64>
  // CHECK: magi.div %[[I]], %[[N]] {rounding_mode = "trunc"} : (tensor<4xi32>, i64) -> tensor<4xi32>
  %5 = magi.div %i, %n {rounding_mode = "trunc"} : (tensor<4xi32>, i64) -> tensor<4xi32>
  // CHECK: magi.div %[[X]], %[[I]] {rounding_mode = "floor"} : (tensor<4xf16>, tensor<4xi32>) -> tensor<4xf16>
  %6 = magi.div %x, %i {rounding_mode = "floor"} : (tensor<4xf16>, tensor<4xi32>) -> tensor<4xf16>
  return
}

// CHECK-LABEL: func.func @bitwise_logical
// CHECK-SAME: (%[[I:.*]]: tensor<2x3xi32>, %[[B:.*]]: tensor<3xi1>, %[[X:.*]]: tensor<2x3xf32>, %[[N:.*]]: i64, %[[T:.*]]: i1)
func.func @bitwise_logical(%i: tensor<2x3xi32>, %b: tensor<3xi1>, %x: tensor<2x3xf32>, %n: i64, %t: i1) {
  // CHECK: magi.bitwise_and %[[I]], %[[B]] : (tensor<2x3xi32>, tensor<3xi1>) -> tensor<2x3xi32>
  %0 = magi.bitwise_and %i, %b : (tensor<2x3xi32>, tensor<3xi1>) -> tensor<2x3xi32>
  // CHECK: magi.bitwise_and %[[B]], %[[T]] : (tensor<3xi1>, i1) -> tensor<3xi1>
  %1 = magi.bitwise_and %b, %t : (tensor<3xi1>, i1) -> tensor<3xi1>
  // CHECK: magi.bitwise_or %[[I]], %[[N]] : (tensor<2x3xi32>, i64) -> tensor<2x3xi32>
  %2 = magi.bitwise_or %i, %n : (tensor<2x3xi32>, i64) -> tensor<2x3xi32>
  // CHECK: magi.bitwise_or %[[B]], %[[B]] : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %3 = magi.bitwise_or %b, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  // CHECK: magi.bitwise_xor %[[I]], %[[I]] : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %4 = magi.bitwise_xor %i, %i : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  // Logical ops give bool for any operand dtypes.
  // CHECK: magi.logical_and %[[X]], %[[I]] : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x3xi1>
  %5 = magi.logical_and %x, %i : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x3xi1>
  // CHECK: magi.logical_and %[[B]], %[[T]] : (tensor<3xi1>, i1) -> tensor<3xi1>
  %6 = magi.logical_and %b, %t : (tensor<3xi1>, i1) -> tensor<3xi1>
  // CHECK: magi.logical_or %[[X]], %[[B]] : (tensor<2x3xf32>, tensor<3xi1>) -> tensor<2x3xi1>
  %7 = magi.logical_or %x, %b : (tensor<2x3xf32>, tensor<3xi1>) -> tensor<2x3xi1>
  return
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @compare
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xf32>, %[[Y:.*]]: tensor<1x5xbf16>, %[[I:.*]]: tensor<5xi64>, %[[F:.*]]: f64, %[[N:.*]]: i64, %[[S:.*]]: index)
func.func @compare(%x: tensor<2x?xf32>, %y: tensor<1x5xbf16>, %i: tensor<5xi64>, %f: f64, %n: i64, %s: index) {
  // CHECK: magi.eq %[[X]], %[[Y]] : (tensor<2x?xf32>, tensor<1x5xbf16>) -> tensor<2x5xi1>
  %0 = magi.eq %x, %y : (tensor<2x?xf32>, tensor<1x5xbf16>) -> tensor<2x5xi1>
  // CHECK: magi.ne %[[I]], %[[N]] : (tensor<5xi64>, i64) -> tensor<5xi1>
  %1 = magi.ne %i, %n : (tensor<5xi64>, i64) -> tensor<5xi1>
  // CHECK: magi.lt %[[X]], %[[F]] : (tensor<2x?xf32>, f64) -> tensor<2x?xi1>
  %2 = magi.lt %x, %f : (tensor<2x?xf32>, f64) -> tensor<2x?xi1>
  // CHECK: magi.le %[[I]], %[[Y]] : (tensor<5xi64>, tensor<1x5xbf16>) -> tensor<1x5xi1>
  %3 = magi.le %i, %y : (tensor<5xi64>, tensor<1x5xbf16>) -> tensor<1x5xi1>
  // CHECK: magi.gt %[[I]], %[[S]] : (tensor<5xi64>, index) -> tensor<5xi1>
  %4 = magi.gt %i, %s : (tensor<5xi64>, index) -> tensor<5xi1>
  // CHECK: magi.ge %[[F]], %[[X]] : (f64, tensor<2x?xf32>) -> tensor<2x?xi1>
  %5 = magi.ge %f, %x : (f64, tensor<2x?xf32>) -> tensor<2x?xi1>
  return
}

//===----------------------------------------------------------------------===//
// where, clamp
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @where
// CHECK-SAME: (%[[C:.*]]: tensor<2x1xi1>, %[[X:.*]]: tensor<3xf16>, %[[Y:.*]]: tensor<2x3xf32>, %[[I:.*]]: tensor<3xi32>, %[[F:.*]]: f64, %[[N:.*]]: i64)
func.func @where(%c: tensor<2x1xi1>, %x: tensor<3xf16>, %y: tensor<2x3xf32>, %i: tensor<3xi32>, %f: f64, %n: i64) {
  // The condition broadcasts too; its dtype takes no part in promotion.
  // CHECK: magi.where %[[C]], %[[X]], %[[Y]] : (tensor<2x1xi1>, tensor<3xf16>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = magi.where %c, %x, %y : (tensor<2x1xi1>, tensor<3xf16>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: magi.where %[[C]], %[[X]], %[[F]] : (tensor<2x1xi1>, tensor<3xf16>, f64) -> tensor<2x3xf16>
  %1 = magi.where %c, %x, %f : (tensor<2x1xi1>, tensor<3xf16>, f64) -> tensor<2x3xf16>
  // CHECK: magi.where %[[C]], %[[I]], %[[F]] : (tensor<2x1xi1>, tensor<3xi32>, f64) -> tensor<2x3xf32>
  %2 = magi.where %c, %i, %f : (tensor<2x1xi1>, tensor<3xi32>, f64) -> tensor<2x3xf32>
  // Two scalars: the condition gives the shape.
  // CHECK: magi.where %[[C]], %[[N]], %[[F]] : (tensor<2x1xi1>, i64, f64) -> tensor<2x1xf32>
  %3 = magi.where %c, %n, %f : (tensor<2x1xi1>, i64, f64) -> tensor<2x1xf32>
  // CHECK: magi.where %[[C]], %[[N]], %[[N]] : (tensor<2x1xi1>, i64, i64) -> tensor<2x1xi64>
  %4 = magi.where %c, %n, %n : (tensor<2x1xi1>, i64, i64) -> tensor<2x1xi64>
  return
}

// CHECK-LABEL: func.func @clamp
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xbf16>)
func.func @clamp(%x: tensor<2x?xbf16>) {
  // CHECK: magi.clamp %[[X]] {min = 0.000000e+00 : f64} : (tensor<2x?xbf16>) -> tensor<2x?xbf16>
  %0 = magi.clamp %x {min = 0.0} : (tensor<2x?xbf16>) -> tensor<2x?xbf16>
  // CHECK: magi.clamp %[[X]] {max = 6.000000e+00 : f64} : (tensor<2x?xbf16>) -> tensor<2x?xbf16>
  %1 = magi.clamp %x {max = 6.0} : (tensor<2x?xbf16>) -> tensor<2x?xbf16>
  // CHECK: magi.clamp %[[X]] {max = 1.000000e+00 : f64, min = -1.000000e+00 : f64} : (tensor<2x?xbf16>) -> tensor<2x?xbf16>
  %2 = magi.clamp %x {min = -1.0, max = 1.0} : (tensor<2x?xbf16>) -> tensor<2x?xbf16>
  return
}

//===----------------------------------------------------------------------===//
// Copies and conversions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @to_copy
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xbf16>, %[[B:.*]]: tensor<i1>)
func.func @to_copy(%x: tensor<2x?xbf16>, %b: tensor<i1>) {
  // CHECK: magi.to_copy %[[X]] {dtype = f32} : (tensor<2x?xbf16>) -> tensor<2x?xf32>
  %0 = magi.to_copy %x {dtype = f32} : (tensor<2x?xbf16>) -> tensor<2x?xf32>
  // CHECK: magi.to_copy %[[X]] {dtype = bf16} : (tensor<2x?xbf16>) -> tensor<2x?xbf16>
  %1 = magi.to_copy %x {dtype = bf16} : (tensor<2x?xbf16>) -> tensor<2x?xbf16>
  // CHECK: magi.to_copy %[[B]] {dtype = ui8} : (tensor<i1>) -> tensor<ui8>
  %2 = magi.to_copy %b {dtype = ui8} : (tensor<i1>) -> tensor<ui8>
  return
}

// CHECK-LABEL: func.func @clone_copy
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xf32>, %[[Y:.*]]: tensor<2x3xbf16>, %[[Z:.*]]: tensor<3xi64>, %[[S:.*]]: tensor<f16>)
func.func @clone_copy(%x: tensor<2x?xf32>, %y: tensor<2x3xbf16>, %z: tensor<3xi64>, %s: tensor<f16>) {
  // CHECK: magi.clone %[[X]] : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %0 = magi.clone %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: magi.clone %[[S]] : (tensor<f16>) -> tensor<f16>
  %1 = magi.clone %s : (tensor<f16>) -> tensor<f16>
  // The result has the type of self: src is broadcast and converted.
  // CHECK: magi.copy %[[Y]], %[[Z]] : (tensor<2x3xbf16>, tensor<3xi64>) -> tensor<2x3xbf16>
  %2 = magi.copy %y, %z : (tensor<2x3xbf16>, tensor<3xi64>) -> tensor<2x3xbf16>
  // CHECK: magi.copy %[[X]], %[[Y]] : (tensor<2x?xf32>, tensor<2x3xbf16>) -> tensor<2x?xf32>
  %3 = magi.copy %x, %y : (tensor<2x?xf32>, tensor<2x3xbf16>) -> tensor<2x?xf32>
  // CHECK: magi.copy %[[Y]], %[[S]] : (tensor<2x3xbf16>, tensor<f16>) -> tensor<2x3xbf16>
  %4 = magi.copy %y, %s : (tensor<2x3xbf16>, tensor<f16>) -> tensor<2x3xbf16>
  return
}
