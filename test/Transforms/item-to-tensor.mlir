// RUN: magi-opt %s -split-input-file -magi-item-to-tensor | FileCheck %s

// magi-item-to-tensor: `magi.item` (tensor.item()) of a
// one-element tensor, where its scalar feeds an elementwise magi op, is
// replaced there by the tensor viewed as 0-d (cast to the dtype the scalar
// stood for: f32 for a float, i64 for an int). Once every use is rewritten,
// the .item() goes.

// An f32 item into add, mul, a comparison and where: a 0-d view each; the
// results keep their types.
// CHECK-LABEL: func.func @f32_item
// CHECK-SAME: (%[[T:.*]]: tensor<1xf32>, %[[X:.*]]: tensor<4x8xf32>, %[[H:.*]]: tensor<4x8xbf16>, %[[C:.*]]: tensor<4x8xi1>)
// CHECK-NOT: magi.opaque
// CHECK-NEXT: %[[V0:.*]] = magi.view %[[T]] [] : tensor<1xf32> -> tensor<f32>
// CHECK-NEXT: %[[A:.*]] = magi.add %[[X]], %[[V0]] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[V1:.*]] = magi.view %[[T]] [] : tensor<1xf32> -> tensor<f32>
// CHECK-NEXT: %[[B:.*]] = magi.mul %[[H]], %[[V1]] : (tensor<4x8xbf16>, tensor<f32>) -> tensor<4x8xbf16>
// CHECK-NEXT: %[[V2:.*]] = magi.view %[[T]] [] : tensor<1xf32> -> tensor<f32>
// CHECK-NEXT: %[[G:.*]] = magi.gt %[[X]], %[[V2]] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xi1>
// CHECK-NEXT: %[[V3:.*]] = magi.view %[[T]] [] : tensor<1xf32> -> tensor<f32>
// CHECK-NEXT: %[[W:.*]] = magi.where %[[C]], %[[V3]], %[[X]] : (tensor<4x8xi1>, tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[A]], %[[B]], %[[G]], %[[W]]
func.func @f32_item(%t: tensor<1xf32>, %x: tensor<4x8xf32>, %h: tensor<4x8xbf16>, %c: tensor<4x8xi1>) -> (tensor<4x8xf32>, tensor<4x8xbf16>, tensor<4x8xi1>, tensor<4x8xf32>) {
  %s = magi.item %t : tensor<1xf32> -> f64
  %a = magi.add %x, %s : (tensor<4x8xf32>, f64) -> tensor<4x8xf32>
  %b = magi.mul %h, %s : (tensor<4x8xbf16>, f64) -> tensor<4x8xbf16>
  %g = magi.gt %x, %s : (tensor<4x8xf32>, f64) -> tensor<4x8xi1>
  %w = magi.where %c, %s, %x : (tensor<4x8xi1>, f64, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %a, %b, %g, %w : tensor<4x8xf32>, tensor<4x8xbf16>, tensor<4x8xi1>, tensor<4x8xf32>
}

// -----

// A bf16 item is a Python float: the 0-d view is cast to f32 (the default
// dtype); an i32 item is a Python int: cast to i64. A rank-2 one-element
// tensor is viewed as 0-d too.
// CHECK-LABEL: func.func @cast_items
// CHECK-SAME: (%[[TB:.*]]: tensor<1x1xbf16>, %[[TI:.*]]: tensor<1xi32>, %[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi64>)
// CHECK-NEXT: %[[VB:.*]] = magi.view %[[TB]] [] : tensor<1x1xbf16> -> tensor<bf16>
// CHECK-NEXT: %[[CB:.*]] = magi.to_copy %[[VB]] {dtype = f32} : (tensor<bf16>) -> tensor<f32>
// CHECK-NEXT: %[[A:.*]] = magi.sub %[[X]], %[[CB]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: %[[VI:.*]] = magi.view %[[TI]] [] : tensor<1xi32> -> tensor<i32>
// CHECK-NEXT: %[[CI:.*]] = magi.to_copy %[[VI]] {dtype = i64} : (tensor<i32>) -> tensor<i64>
// CHECK-NEXT: %[[B:.*]] = magi.mul %[[I]], %[[CI]] : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @cast_items(%tb: tensor<1x1xbf16>, %ti: tensor<1xi32>, %x: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
  %s = magi.item %tb : tensor<1x1xbf16> -> f64
  %a = magi.sub %x, %s : (tensor<4xf32>, f64) -> tensor<4xf32>
  %n = magi.item %ti : tensor<1xi32> -> index
  %b = magi.mul %i, %n : (tensor<4xi64>, index) -> tensor<4xi64>
  return %a, %b : tensor<4xf32>, tensor<4xi64>
}

// -----

// A use that is not an elementwise op keeps the scalar, and with it the
// .item(); the elementwise use is still rewritten.
// CHECK-LABEL: func.func @other_use
// CHECK-SAME: (%[[T:.*]]: tensor<1xf32>, %[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[S:.*]] = magi.item %[[T]] : tensor<1xf32> -> f64
// CHECK-NEXT: %[[V:.*]] = magi.view %[[T]] []
// CHECK-NEXT: magi.add %[[X]], %[[V]]
// CHECK-NEXT: magi.scalar_tensor %[[S]] {dtype = f32}
func.func @other_use(%t: tensor<1xf32>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %s = magi.item %t : tensor<1xf32> -> f64
  %a = magi.add %x, %s : (tensor<4xf32>, f64) -> tensor<4xf32>
  %g = magi.scalar_tensor %s {dtype = f32} : (f64) -> tensor<f32>
  return %a, %g : tensor<4xf32>, tensor<f32>
}

// -----

// Not known to be one element: untouched.
// CHECK-LABEL: func.func @not_one_element
// CHECK-NEXT: %[[SD:.*]] = magi.item %arg0 : tensor<?xf32> -> f64
// CHECK-NEXT: magi.add %arg1, %[[SD]] : (tensor<4xf32>, f64)
// CHECK-NOT: magi.view
func.func @not_one_element(%td: tensor<?xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %sd = magi.item %td : tensor<?xf32> -> f64
  %b = magi.add %x, %sd : (tensor<4xf32>, f64) -> tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

// Another opaque op is not an .item().
// CHECK-LABEL: func.func @other_opaque
// CHECK-NEXT: magi.opaque "aten::item"
// CHECK-NOT: magi.view
func.func @other_opaque(%t: tensor<1xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %s = magi.opaque "aten::item"(%t) : (tensor<1xf32>) -> f64
  %a = magi.add %x, %s : (tensor<4xf32>, f64) -> tensor<4xf32>
  return %a : tensor<4xf32>
}
