// RUN: magi-opt %s -magi-explicit-promotion | FileCheck %s
// RUN: magi-opt %s -magi-explicit-promotion > %t.once.mlir
// RUN: magi-opt %t.once.mlir -magi-explicit-promotion > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// (Running it again adds nothing.)

// magi-explicit-promotion: every tensor operand of an elementwise op whose
// dtype is not the one the op computes in gets a magi.to_copy first; Python
// scalars stay.

// bf16 * f32: the bf16 operand is cast to f32.
// CHECK-LABEL: func.func @mixed_mul
// CHECK-SAME: (%[[H:.*]]: tensor<4x8xbf16>, %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[C:.*]] = magi.to_copy %[[H]] {dtype = f32} : (tensor<4x8xbf16>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[R:.*]] = magi.mul %[[C]], %[[X]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @mixed_mul(%h: tensor<4x8xbf16>, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = magi.mul %h, %x : (tensor<4x8xbf16>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

// A dimensioned bf16 tensor wins over a 0-d f32 one: the 0-d one is cast
// down to bf16.
// CHECK-LABEL: func.func @zero_d
// CHECK-SAME: (%[[H:.*]]: tensor<4x8xbf16>, %[[Z:.*]]: tensor<f32>)
// CHECK-NEXT: %[[C:.*]] = magi.to_copy %[[Z]] {dtype = bf16} : (tensor<f32>) -> tensor<bf16>
// CHECK-NEXT: magi.add %[[H]], %[[C]] : (tensor<4x8xbf16>, tensor<bf16>) -> tensor<4x8xbf16>
func.func @zero_d(%h: tensor<4x8xbf16>, %z: tensor<f32>) -> tensor<4x8xbf16> {
  %a = magi.add %h, %z : (tensor<4x8xbf16>, tensor<f32>) -> tensor<4x8xbf16>
  return %a : tensor<4x8xbf16>
}

// Comparisons compute in the promoted dtype (their result is bool).
// CHECK-LABEL: func.func @compare
// CHECK-SAME: (%[[H:.*]]: tensor<4x8xbf16>, %[[X:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<4x8xi64>, %[[S:.*]]: f64)
// CHECK-NEXT: %[[C:.*]] = magi.to_copy %[[H]] {dtype = f32} : (tensor<4x8xbf16>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[A:.*]] = magi.lt %[[C]], %[[X]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// An int tensor against a Python float compares in the default float dtype.
// CHECK-NEXT: %[[CI:.*]] = magi.to_copy %[[I]] {dtype = f32} : (tensor<4x8xi64>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[B:.*]] = magi.eq %[[CI]], %[[S]] : (tensor<4x8xf32>, f64) -> tensor<4x8xi1>
// Same dtype: nothing to do.
// CHECK-NEXT: %[[D:.*]] = magi.ge %[[X]], %[[X]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// CHECK-NEXT: return %[[A]], %[[B]], %[[D]]
func.func @compare(%h: tensor<4x8xbf16>, %x: tensor<4x8xf32>, %i: tensor<4x8xi64>, %s: f64) -> (tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>) {
  %a = magi.lt %h, %x : (tensor<4x8xbf16>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %b = magi.eq %i, %s : (tensor<4x8xi64>, f64) -> tensor<4x8xi1>
  %d = magi.ge %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  return %a, %b, %d : tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>
}

// Python scalars are not cast: bf16 + float stays bf16 with the f64 scalar.
// Integer true division computes in f32: the int tensor is cast, the int
// scalar is not.
// CHECK-LABEL: func.func @scalars
// CHECK-SAME: (%[[H:.*]]: tensor<4x8xbf16>, %[[I:.*]]: tensor<4x8xi64>, %[[S:.*]]: f64, %[[N:.*]]: i64)
// CHECK-NEXT: %[[A:.*]] = magi.add %[[H]], %[[S]] : (tensor<4x8xbf16>, f64) -> tensor<4x8xbf16>
// CHECK-NEXT: %[[C:.*]] = magi.to_copy %[[I]] {dtype = f32} : (tensor<4x8xi64>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[D:.*]] = magi.div %[[C]], %[[N]] : (tensor<4x8xf32>, i64) -> tensor<4x8xf32>
// CHECK-NEXT: %[[P:.*]] = magi.pow %[[H]], %[[N]] : (tensor<4x8xbf16>, i64) -> tensor<4x8xbf16>
// CHECK-NEXT: return %[[A]], %[[D]], %[[P]]
func.func @scalars(%h: tensor<4x8xbf16>, %i: tensor<4x8xi64>, %s: f64, %n: i64) -> (tensor<4x8xbf16>, tensor<4x8xf32>, tensor<4x8xbf16>) {
  %a = magi.add %h, %s : (tensor<4x8xbf16>, f64) -> tensor<4x8xbf16>
  %d = magi.div %i, %n : (tensor<4x8xi64>, i64) -> tensor<4x8xf32>
  %p = magi.pow %h, %n : (tensor<4x8xbf16>, i64) -> tensor<4x8xbf16>
  return %a, %d, %p : tensor<4x8xbf16>, tensor<4x8xf32>, tensor<4x8xbf16>
}

// where: the branches are cast, the bool condition is not.
// CHECK-LABEL: func.func @where
// CHECK-SAME: (%[[C:.*]]: tensor<4x8xi1>, %[[I:.*]]: tensor<4x8xi64>, %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[CI:.*]] = magi.to_copy %[[I]] {dtype = f32} : (tensor<4x8xi64>) -> tensor<4x8xf32>
// CHECK-NEXT: magi.where %[[C]], %[[CI]], %[[X]] : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NOT: magi.to_copy
func.func @where(%c: tensor<4x8xi1>, %i: tensor<4x8xi64>, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w = magi.where %c, %i, %x : (tensor<4x8xi1>, tensor<4x8xi64>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %w : tensor<4x8xf32>
}

// The fused elementwise ops too.
// CHECK-LABEL: func.func @fused
// CHECK-SAME: (%[[G:.*]]: tensor<4x8xbf16>, %[[U:.*]]: tensor<4x8xf32>, %[[X:.*]]: tensor<2x4x8xbf16>, %[[CS:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[CG:.*]] = magi.to_copy %[[G]] {dtype = f32}
// CHECK-NEXT: magi.silu_and_mul %[[CG]], %[[U]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[CX:.*]] = magi.to_copy %[[X]] {dtype = f32}
// CHECK-NEXT: magi.rotary_embedding %[[CX]], %[[CS]], %[[CS]] : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
func.func @fused(%g: tensor<4x8xbf16>, %u: tensor<4x8xf32>, %x: tensor<2x4x8xbf16>, %cs: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<2x4x8xf32>) {
  %a = magi.silu_and_mul %g, %u : (tensor<4x8xbf16>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = magi.rotary_embedding %x, %cs, %cs : (tensor<2x4x8xbf16>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  return %a, %r : tensor<4x8xf32>, tensor<2x4x8xf32>
}

// Non-elementwise ops are left alone (matmul of mixed dtypes does not exist
// in PyTorch; cat promotes by itself).
// CHECK-LABEL: func.func @not_elementwise
// CHECK-NOT: magi.to_copy
// CHECK: magi.cat
// CHECK-NOT: magi.to_copy
func.func @not_elementwise(%h: tensor<4x8xbf16>, %x: tensor<4x8xf32>) -> tensor<8x8xf32> {
  %c = magi.cat %h, %x {dim = 0 : i64} : (tensor<4x8xbf16>, tensor<4x8xf32>) -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}
