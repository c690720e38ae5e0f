// RUN: magi-opt %s | FileCheck %s
// RUN: magi-opt %s | magi-opt | FileCheck %s
// RUN: magi-opt %s -emit-bytecode | magi-opt | FileCheck %s
// RUN: magi-opt %s --verify-roundtrip | FileCheck %s

// Positive tests for magi.assert_tensor_metadata and magi.opaque.

// CHECK-LABEL: func.func @assert_tensor_metadata
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xbf16>, %[[I:.*]]: tensor<i64>)
func.func @assert_tensor_metadata(%x: tensor<2x?xbf16>, %i: tensor<i64>) {
  // CHECK: magi.assert_tensor_metadata %[[X]] {dtype = bf16} : tensor<2x?xbf16>
  magi.assert_tensor_metadata %x {dtype = bf16} : tensor<2x?xbf16>
  // Without a dtype nothing is asserted.
  // CHECK: magi.assert_tensor_metadata %[[X]] : tensor<2x?xbf16>
  magi.assert_tensor_metadata %x : tensor<2x?xbf16>
  // CHECK: magi.assert_tensor_metadata %[[I]] {dtype = i64} : tensor<i64>
  magi.assert_tensor_metadata %i {dtype = i64} : tensor<i64>
  return
}

// CHECK-LABEL: func.func @opaque
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[F:.*]]: f64, %[[S:.*]]: index)
func.func @opaque(%x: tensor<8x16xf32>, %f: f64, %s: index) -> (tensor<8x4xf32>, tensor<8x4xi64>) {
  // Several results; constant arguments as attributes.
  // CHECK: %[[R:.*]]:2 = magi.opaque "aten::topk.default"(%[[X]]) {dim = -1 : i64, k = 4 : i64} : (tensor<8x16xf32>) -> (tensor<8x4xf32>, tensor<8x4xi64>)
  %v, %i = magi.opaque "aten::topk.default"(%x) {k = 4 : i64, dim = -1 : i64} : (tensor<8x16xf32>) -> (tensor<8x4xf32>, tensor<8x4xi64>)
  // Scalar operands of any type; a custom namespace.
  // CHECK: %[[Y:.*]] = magi.opaque "mylib::my_op"(%[[X]], %[[F]], %[[S]]) : (tensor<8x16xf32>, f64, index) -> tensor<8x16xf32>
  %y = magi.opaque "mylib::my_op"(%x, %f, %s) : (tensor<8x16xf32>, f64, index) -> tensor<8x16xf32>
  // No operands and no results.
  // CHECK: magi.opaque "aten::_assert_async.msg"() {msg = "boom"} : () -> ()
  magi.opaque "aten::_assert_async.msg"() {msg = "boom"} : () -> ()
  // Operand and result types are not checked: anything goes, e.g. a dtype
  // Magi does not represent, or a non-tensor type.
  // CHECK: magi.opaque "prims::convert_element_type"(%[[Y]]) : (tensor<8x16xf32>) -> tensor<8x16xi3>
  %z = magi.opaque "prims::convert_element_type"(%y) : (tensor<8x16xf32>) -> tensor<8x16xi3>
  // CHECK: magi.opaque "aten::item"(%[[Y]]) : (tensor<8x16xf32>) -> memref<f32>
  %m = magi.opaque "aten::item"(%y) : (tensor<8x16xf32>) -> memref<f32>
  // A nested namespace.
  // CHECK: magi.opaque "torch::ops::mylib::op"(%[[X]]) : (tensor<8x16xf32>) -> ()
  magi.opaque "torch::ops::mylib::op"(%x) : (tensor<8x16xf32>) -> ()
  // CHECK: return %[[R]]#0, %[[R]]#1
  return %v, %i : tensor<8x4xf32>, tensor<8x4xi64>
}
