// RUN: magi-opt %s -canonicalize -split-input-file | FileCheck %s

// Folders of the magi ops, and the cases that must not fold.

// CHECK-LABEL: func.func @sym_size_static
// CHECK-SAME: (%[[X:.*]]: tensor<1x?x8xf32>)
func.func @sym_size_static(%x: tensor<1x?x8xf32>) -> (index, index, index) {
  // CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
  // CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
  // A dynamic dimension does not fold.
  // CHECK-DAG: %[[D:.*]] = magi.sym_size %[[X]], 1 : tensor<1x?x8xf32>
  // CHECK-NOT: magi.sym_size
  // CHECK: return %[[C1]], %[[D]], %[[C8]] : index, index, index
  %0 = magi.sym_size %x, 0 : tensor<1x?x8xf32>
  %1 = magi.sym_size %x, 1 : tensor<1x?x8xf32>
  %2 = magi.sym_size %x, 2 : tensor<1x?x8xf32>
  return %0, %1, %2 : index, index, index
}

// -----

// A dimension bound to exactly one symbol is that symbol; one bound to an
// expression of it (s0 + 1) stays a sym_size.
// CHECK-LABEL: func.func @sym_size_bound
// CHECK-SAME: (%[[X:.*]]: tensor<1x?xi64>, %[[Y:.*]]: tensor<?xf32>)
func.func @sym_size_bound(%x: tensor<1x?xi64>, %y: tensor<?xf32>) -> (index, index) {
  // CHECK: %[[S:.*]] = magi.symbolic_int "s0"
  // CHECK: %[[D:.*]] = magi.sym_size %[[Y]], 0
  // CHECK: return %[[S]], %[[D]] : index, index
  %s = magi.symbolic_int "s0" min 2
  magi.bind_symbolic_shape %x, [%s], affine_map<()[s0] -> (1, s0)> : tensor<1x?xi64>
  magi.bind_symbolic_shape %y, [%s], affine_map<()[s0] -> (s0 + 1)> : tensor<?xf32>
  %0 = magi.sym_size %x, 1 : tensor<1x?xi64>
  %1 = magi.sym_size %y, 0 : tensor<?xf32>
  return %0, %1 : index, index
}

// -----

// Inside a cond's branch, the symbol defined around it is seen too; one
// defined after the sym_size is not.
// CHECK-LABEL: func.func @sym_size_in_a_region
func.func @sym_size_in_a_region(%x: tensor<?xf32>, %y: tensor<?xf32>, %p: i1) -> (index, index) {
  // The branch gives s0 itself (so the canonicalizer makes it a select).
  // CHECK: %[[S:.*]] = magi.symbolic_int "s0"
  // CHECK: %[[IF:.*]] = arith.select %{{.*}}, %[[S]], %{{.*}} : index
  // CHECK: %[[LATE:.*]] = magi.sym_size
  // CHECK: return %[[IF]], %[[LATE]]
  %s = magi.symbolic_int "s0" min 2
  magi.bind_symbolic_shape %x, [%s], affine_map<()[s0] -> (s0)> : tensor<?xf32>
  %0 = scf.if %p -> index {
    %n = magi.sym_size %x, 0 : tensor<?xf32>
    scf.yield %n : index
  } else {
    %c0 = arith.constant 0 : index
    scf.yield %c0 : index
  }
  %1 = magi.sym_size %y, 0 : tensor<?xf32>
  %t = magi.symbolic_int "t0" min 2
  magi.bind_symbolic_shape %y, [%t], affine_map<()[s0] -> (s0)> : tensor<?xf32>
  return %0, %1 : index, index
}

// -----

// CHECK-LABEL: func.func @sym_size_chain
func.func @sym_size_chain(%x: tensor<4x6xf32>) -> index {
  // 4 * 6 + 1 = 25, all folded.
  // CHECK: %[[C:.*]] = arith.constant 25 : index
  // CHECK-NOT: magi.
  // CHECK: return %[[C]] : index
  %c1 = arith.constant 1 : index
  %a = magi.sym_size %x, 0 : tensor<4x6xf32>
  %b = magi.sym_size %x, 1 : tensor<4x6xf32>
  %m = magi.sym_mul %a, %b
  %r = magi.sym_add %m, %c1
  return %r : index
}

// -----

// CHECK-LABEL: func.func @sym_add_sub_mul
func.func @sym_add_sub_mul() -> (index, index, index, index, index) {
  %c7 = arith.constant 7 : index
  %c3 = arith.constant 3 : index
  %cm5 = arith.constant -5 : index
  // CHECK-DAG: %[[C10:.*]] = arith.constant 10 : index
  // CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
  // CHECK-DAG: %[[C21:.*]] = arith.constant 21 : index
  // CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
  // CHECK-DAG: %[[CM15:.*]] = arith.constant -15 : index
  // CHECK-NOT: magi.sym
  // CHECK: return %[[C10]], %[[C4]], %[[C21]], %[[C2]], %[[CM15]]
  %0 = magi.sym_add %c7, %c3
  %1 = magi.sym_sub %c7, %c3
  %2 = magi.sym_mul %c7, %c3
  %3 = magi.sym_add %c7, %cm5
  %4 = magi.sym_mul %c3, %cm5
  return %0, %1, %2, %3, %4 : index, index, index, index, index
}

// -----

// CHECK-LABEL: func.func @sym_identities
// CHECK-SAME: (%[[S:.*]]: index)
func.func @sym_identities(%s: index) -> (index, index, index, index, index, index, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // x + 0, 0 + x, x - 0, x * 1, 1 * x, x // 1, min(x, x), max(x, x) are x.
  // CHECK-NOT: magi.sym
  // CHECK: return %[[S]], %[[S]], %[[S]], %[[S]], %[[S]], %[[S]], %[[S]], %[[S]]
  %0 = magi.sym_add %s, %c0
  %1 = magi.sym_add %c0, %s
  %2 = magi.sym_sub %s, %c0
  %3 = magi.sym_mul %s, %c1
  %4 = magi.sym_mul %c1, %s
  %5 = magi.sym_floordiv %s, %c1
  %6 = magi.sym_min %s, %s
  %7 = magi.sym_max %s, %s
  return %0, %1, %2, %3, %4, %5, %6, %7 : index, index, index, index, index, index, index, index
}

// -----

// CHECK-LABEL: func.func @sym_no_identity
// CHECK-SAME: (%[[S:.*]]: index, %[[T:.*]]: index)
func.func @sym_no_identity(%s: index, %t: index) -> (index, index, index, index, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // 0 - x is not x, 1 // x is not 1, x % 1 is not folded, and distinct
  // operands stay.
  // CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
  // CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
  // CHECK: %[[A:.*]] = magi.sym_sub %[[C0]], %[[S]]
  // CHECK: %[[B:.*]] = magi.sym_mod %[[S]], %[[C1]]
  // CHECK: %[[C:.*]] = magi.sym_min %[[S]], %[[T]]
  // CHECK: %[[D:.*]] = magi.sym_max %[[S]], %[[T]]
  // CHECK: %[[E:.*]] = magi.sym_floordiv %[[C1]], %[[S]]
  // CHECK: %[[F:.*]] = magi.sym_add %[[S]], %[[T]]
  // CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]]
  %0 = magi.sym_sub %c0, %s
  %1 = magi.sym_mod %s, %c1
  %2 = magi.sym_min %s, %t
  %3 = magi.sym_max %s, %t
  %4 = magi.sym_floordiv %c1, %s
  %5 = magi.sym_add %s, %t
  return %0, %1, %2, %3, %4, %5 : index, index, index, index, index, index
}

// -----

// CHECK-LABEL: func.func @sym_commutative_constant_right
// CHECK-SAME: (%[[S:.*]]: index)
func.func @sym_commutative_constant_right(%s: index) -> (index, index) {
  %c4 = arith.constant 4 : index
  // Constants move to the right of commutative ops.
  // CHECK: %[[C4:.*]] = arith.constant 4 : index
  // CHECK: magi.sym_add %[[S]], %[[C4]]
  // CHECK: magi.sym_mul %[[S]], %[[C4]]
  %0 = magi.sym_add %c4, %s
  %1 = magi.sym_mul %c4, %s
  return %0, %1 : index, index
}

// -----

// Python floor division and modulo: the quotient rounds toward -inf and the
// remainder has the sign of the divisor.
// CHECK-LABEL: func.func @sym_floordiv_mod
func.func @sym_floordiv_mod() -> (index, index, index, index, index, index, index, index, index, index) {
  %c7 = arith.constant 7 : index
  %cm7 = arith.constant -7 : index
  %c3 = arith.constant 3 : index
  %cm3 = arith.constant -3 : index
  %c6 = arith.constant 6 : index
  %cm6 = arith.constant -6 : index
  // CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
  // CHECK-DAG: %[[CM3:.*]] = arith.constant -3 : index
  // CHECK-DAG: %[[CM2:.*]] = arith.constant -2 : index
  // CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
  // CHECK-DAG: %[[CM1:.*]] = arith.constant -1 : index
  // CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
  // CHECK-NOT: magi.sym
  //   7 // 3 = 2,   -7 // 3 = -3,   7 // -3 = -3,   -7 // -3 = 2,   -6 // 3 = -2
  //   7 % 3 = 1,    -7 % 3 = 2,     7 % -3 = -2,    -7 % -3 = -1,   -6 % 3 = 0
  // CHECK: return %[[C2]], %[[CM3]], %[[CM3]], %[[C2]], %[[CM2]], %[[C1]], %[[C2]], %[[CM2]], %[[CM1]], %[[C0]]
  %0 = magi.sym_floordiv %c7, %c3
  %1 = magi.sym_floordiv %cm7, %c3
  %2 = magi.sym_floordiv %c7, %cm3
  %3 = magi.sym_floordiv %cm7, %cm3
  %4 = magi.sym_floordiv %cm6, %c3
  %5 = magi.sym_mod %c7, %c3
  %6 = magi.sym_mod %cm7, %c3
  %7 = magi.sym_mod %c7, %cm3
  %8 = magi.sym_mod %cm7, %cm3
  %9 = magi.sym_mod %cm6, %c3
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : index, index, index, index, index, index, index, index, index, index
}

// -----

// CHECK-LABEL: func.func @sym_division_by_zero
func.func @sym_division_by_zero() -> (index, index) {
  %c7 = arith.constant 7 : index
  %c0 = arith.constant 0 : index
  // Division by zero is left alone.
  // CHECK: magi.sym_floordiv
  // CHECK: magi.sym_mod
  %0 = magi.sym_floordiv %c7, %c0
  %1 = magi.sym_mod %c7, %c0
  return %0, %1 : index, index
}

// -----

// CHECK-LABEL: func.func @sym_min_max
func.func @sym_min_max() -> (index, index, index, index) {
  %c7 = arith.constant 7 : index
  %cm3 = arith.constant -3 : index
  // CHECK-DAG: %[[C7:.*]] = arith.constant 7 : index
  // CHECK-DAG: %[[CM3:.*]] = arith.constant -3 : index
  // CHECK-NOT: magi.sym
  // CHECK: return %[[CM3]], %[[C7]], %[[CM3]], %[[C7]]
  %0 = magi.sym_min %c7, %cm3
  %1 = magi.sym_max %c7, %cm3
  %2 = magi.sym_min %cm3, %c7
  %3 = magi.sym_max %cm3, %c7
  return %0, %1, %2, %3 : index, index, index, index
}

// -----

// CHECK-LABEL: func.func @to_copy
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xbf16>)
func.func @to_copy(%x: tensor<2x?xbf16>) -> (tensor<2x?xbf16>, tensor<2x?xf32>) {
  // A conversion to the same dtype is the identity; another dtype is kept.
  // CHECK: %[[C:.*]] = magi.to_copy %[[X]] {dtype = f32} : (tensor<2x?xbf16>) -> tensor<2x?xf32>
  // CHECK-NOT: magi.to_copy
  // CHECK: return %[[X]], %[[C]]
  %0 = magi.to_copy %x {dtype = bf16} : (tensor<2x?xbf16>) -> tensor<2x?xbf16>
  %1 = magi.to_copy %x {dtype = f32} : (tensor<2x?xbf16>) -> tensor<2x?xf32>
  return %0, %1 : tensor<2x?xbf16>, tensor<2x?xf32>
}

// -----

// CHECK-LABEL: func.func @to_copy_refined
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32>)
func.func @to_copy_refined(%x: tensor<?xf32>) -> tensor<4xf32> {
  // Same dtype, but the declared type is more static: not folded.
  // CHECK: %[[C:.*]] = magi.to_copy %[[X]] {dtype = f32} : (tensor<?xf32>) -> tensor<4xf32>
  // CHECK: return %[[C]]
  %0 = magi.to_copy %x {dtype = f32} : (tensor<?xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @clone
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
func.func @clone(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<3x4xf32>) {
  // CHECK: %[[C:.*]] = magi.clone %[[X]] : (tensor<?x4xf32>) -> tensor<3x4xf32>
  // CHECK-NOT: magi.clone
  // CHECK: return %[[X]], %[[C]]
  %0 = magi.clone %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = magi.clone %x : (tensor<?x4xf32>) -> tensor<3x4xf32>
  return %0, %1 : tensor<?x4xf32>, tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @view
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<?x3xf32>, %[[S:.*]]: index)
func.func @view(%x: tensor<2x3xf32>, %y: tensor<?x3xf32>, %s: index) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x2xf32>, tensor<?x3xf32>) {
  // A static view to the same shape is the identity, however it is written.
  // CHECK: %[[V:.*]] = magi.view %[[X]] [3, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  // A dynamic one is not: the `?` may differ.
  // CHECK: %[[W:.*]] = magi.view %[[Y]] [%[[S]], 3] : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK: return %[[X]], %[[X]], %[[V]], %[[W]]
  %0 = magi.view %x [2, 3] : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = magi.view %x [-1, 3] : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = magi.view %x [3, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  %3 = magi.view %y [%s, 3] : tensor<?x3xf32> -> tensor<?x3xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x2xf32>, tensor<?x3xf32>
}

// -----

// CHECK-LABEL: func.func @expand
// CHECK-SAME: (%[[X:.*]]: tensor<2x1xf32>, %[[Y:.*]]: tensor<?x4xf32>)
func.func @expand(%x: tensor<2x1xf32>, %y: tensor<?x4xf32>) -> (tensor<2x1xf32>, tensor<2x5xf32>, tensor<?x4xf32>) {
  // CHECK: %[[E:.*]] = magi.expand %[[X]] [2, 5] : tensor<2x1xf32> -> tensor<2x5xf32>
  // CHECK: %[[F:.*]] = magi.expand %[[Y]] [-1, 4] : tensor<?x4xf32> -> tensor<?x4xf32>
  // CHECK: return %[[X]], %[[E]], %[[F]]
  %0 = magi.expand %x [-1, 1] : tensor<2x1xf32> -> tensor<2x1xf32>
  %1 = magi.expand %x [2, 5] : tensor<2x1xf32> -> tensor<2x5xf32>
  %2 = magi.expand %y [-1, 4] : tensor<?x4xf32> -> tensor<?x4xf32>
  return %0, %1, %2 : tensor<2x1xf32>, tensor<2x5xf32>, tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @permute
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x4xf32>)
func.func @permute(%x: tensor<2x?x4xf32>) -> (tensor<2x?x4xf32>, tensor<2x4x?xf32>) {
  // The identity permutation folds, even with dynamic sizes.
  // CHECK: %[[P:.*]] = magi.permute %[[X]] {dims = array<i64: 0, 2, 1>} : (tensor<2x?x4xf32>) -> tensor<2x4x?xf32>
  // CHECK-NOT: magi.permute
  // CHECK: return %[[X]], %[[P]]
  %0 = magi.permute %x {dims = array<i64: 0, 1, 2>} : (tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  %1 = magi.permute %x {dims = array<i64: 0, 2, 1>} : (tensor<2x?x4xf32>) -> tensor<2x4x?xf32>
  return %0, %1 : tensor<2x?x4xf32>, tensor<2x4x?xf32>
}

// -----

// CHECK-LABEL: func.func @squeeze
// CHECK-SAME: (%[[X:.*]]: tensor<2x1x?xf32>)
func.func @squeeze(%x: tensor<2x1x?xf32>) -> (tensor<2x1x?xf32>, tensor<2x?xf32>) {
  // Squeezing dimensions not known to be 1 changes nothing.
  // CHECK: %[[S:.*]] = magi.squeeze %[[X]] {dims = array<i64: 1>} : (tensor<2x1x?xf32>) -> tensor<2x?xf32>
  // CHECK-NOT: magi.squeeze
  // CHECK: return %[[X]], %[[S]]
  %0 = magi.squeeze %x {dims = array<i64: 0, 2>} : (tensor<2x1x?xf32>) -> tensor<2x1x?xf32>
  %1 = magi.squeeze %x {dims = array<i64: 1>} : (tensor<2x1x?xf32>) -> tensor<2x?xf32>
  return %0, %1 : tensor<2x1x?xf32>, tensor<2x?xf32>
}

// -----

// CHECK-LABEL: func.func @slice_full
// CHECK-SAME: (%[[X:.*]]: tensor<4x10xf32>)
func.func @slice_full(%x: tensor<4x10xf32>) -> (tensor<4x10xf32>, tensor<4x10xf32>, tensor<4x10xf32>, tensor<4x10xf32>) {
  // 0:end:1 with end >= the size is the identity.
  // CHECK-NOT: magi.slice
  // CHECK: return %[[X]], %[[X]], %[[X]], %[[X]]
  %0 = magi.slice %x, 1 [0, 10, 1] : tensor<4x10xf32> -> tensor<4x10xf32>
  %1 = magi.slice %x, 1 [0, 9223372036854775807, 1] : tensor<4x10xf32> -> tensor<4x10xf32>
  %2 = magi.slice %x, -1 [0, 100, 1] : tensor<4x10xf32> -> tensor<4x10xf32>
  %3 = magi.slice %x, 0 [0, 4, 1] : tensor<4x10xf32> -> tensor<4x10xf32>
  return %0, %1, %2, %3 : tensor<4x10xf32>, tensor<4x10xf32>, tensor<4x10xf32>, tensor<4x10xf32>
}

// -----

// CHECK-LABEL: func.func @slice_full_dynamic
// CHECK-SAME: (%[[Y:.*]]: tensor<4x?xf32>)
func.func @slice_full_dynamic(%y: tensor<4x?xf32>) -> tensor<4x?xf32> {
  // An absent end (INT64_MAX) covers any size, even a dynamic one.
  // CHECK-NOT: magi.slice
  // CHECK: return %[[Y]]
  %0 = magi.slice %y, 1 [0, 9223372036854775807, 1] : tensor<4x?xf32> -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// CHECK-LABEL: func.func @slice_not_full
// CHECK-SAME: (%[[X:.*]]: tensor<4x10xf32>, %[[Y:.*]]: tensor<4x?xf32>, %[[S:.*]]: index)
func.func @slice_not_full(%x: tensor<4x10xf32>, %y: tensor<4x?xf32>, %s: index)
    -> (tensor<4x9xf32>, tensor<4x5xf32>, tensor<4x?xf32>, tensor<4x?xf32>, tensor<4x10xf32>, tensor<4x9xf32>) {
  // CHECK: %[[A:.*]] = magi.slice %[[X]], 1 [1, 10, 1] : tensor<4x10xf32> -> tensor<4x9xf32>
  // CHECK: %[[B:.*]] = magi.slice %[[X]], 1 [0, 10, 2] : tensor<4x10xf32> -> tensor<4x5xf32>
  // A finite end over a dynamic size may cut it short.
  // CHECK: %[[C:.*]] = magi.slice %[[Y]], 1 [0, 10, 1] : tensor<4x?xf32> -> tensor<4x?xf32>
  // CHECK: %[[D:.*]] = magi.slice %[[X]], 1 [0, %[[S]], 1] : tensor<4x10xf32> -> tensor<4x?xf32>
  // A symbolic end declared static is kept too: the end is not known.
  // CHECK: %[[E:.*]] = magi.slice %[[X]], 1 [0, %[[S]], 1] : tensor<4x10xf32> -> tensor<4x10xf32>
  // An end short of the size.
  // CHECK: %[[F:.*]] = magi.slice %[[X]], 1 [0, -1, 1] : tensor<4x10xf32> -> tensor<4x9xf32>
  // CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]]
  %0 = magi.slice %x, 1 [1, 10, 1] : tensor<4x10xf32> -> tensor<4x9xf32>
  %1 = magi.slice %x, 1 [0, 10, 2] : tensor<4x10xf32> -> tensor<4x5xf32>
  %2 = magi.slice %y, 1 [0, 10, 1] : tensor<4x?xf32> -> tensor<4x?xf32>
  %3 = magi.slice %x, 1 [0, %s, 1] : tensor<4x10xf32> -> tensor<4x?xf32>
  %4 = magi.slice %x, 1 [0, %s, 1] : tensor<4x10xf32> -> tensor<4x10xf32>
  %5 = magi.slice %x, 1 [0, -1, 1] : tensor<4x10xf32> -> tensor<4x9xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4x9xf32>, tensor<4x5xf32>, tensor<4x?xf32>, tensor<4x?xf32>, tensor<4x10xf32>, tensor<4x9xf32>
}

// -----

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf16>) {
  // Equal constants are uniqued; different types are not.
  // CHECK-DAG: %[[A:.*]] = magi.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  // CHECK-DAG: %[[B:.*]] = magi.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf16>
  // CHECK-NOT: magi.constant
  // CHECK: return %[[A]], %[[A]], %[[B]]
  %0 = magi.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = magi.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %2 = magi.constant dense<[1.0, 2.0]> : tensor<2xf16>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf16>
}

// -----

// CHECK-LABEL: func.func @dead_code
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
func.func @dead_code(%x: tensor<4xf32>) {
  // Unused pure ops are erased; the opaque op, assumed to have side effects,
  // is kept.
  // CHECK-NOT: magi.neg
  // CHECK-NOT: magi.symbolic_int
  // CHECK-NOT: magi.sym_add
  // CHECK: magi.opaque "aten::print"(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: return
  %0 = magi.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  %s = magi.symbolic_int "s0" min 1
  %t = magi.sym_add %s, %s
  %1 = magi.opaque "aten::print"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @binding_keeps_symbol
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32>)
func.func @binding_keeps_symbol(%x: tensor<?xf32>) {
  // A binding of a function argument is kept, and so is its symbol.
  // CHECK: %[[S:.*]] = magi.symbolic_int "s0" min 1
  // CHECK-NEXT: magi.bind_symbolic_shape %[[X]], [%[[S]]]
  %s = magi.symbolic_int "s0" min 1
  magi.bind_symbolic_shape %x, [%s], affine_map<()[s0] -> (s0)> : tensor<?xf32>
  return
}

// -----

// CHECK-LABEL: func.func @view_of_view
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @view_of_view(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  // view(view(x)) is view(x).
  // CHECK: %[[V:.*]] = magi.view %[[X]] [4, 6] : tensor<2x3x4xf32> -> tensor<4x6xf32>
  // CHECK-NOT: magi.view
  // CHECK: return %[[V]]
  %0 = magi.view %x [6, 4] : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = magi.view %0 [4, 6] : tensor<6x4xf32> -> tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}

// -----

// CHECK-LABEL: func.func @view_of_view_to_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @view_of_view_to_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // Once the inner view is bypassed, the outer one is the identity.
  // CHECK-NOT: magi.view
  // CHECK: return %[[X]]
  %0 = magi.view %x [6] : tensor<2x3xf32> -> tensor<6xf32>
  %1 = magi.view %0 [2, 3] : tensor<6xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @assert_tensor_metadata_dropped
func.func @assert_tensor_metadata_dropped(%x: tensor<4xf32>) {
  // The verifier has proved the assertion, so it is dropped.
  // CHECK-NOT: magi.assert_tensor_metadata
  // CHECK: return
  magi.assert_tensor_metadata %x {dtype = f32} : tensor<4xf32>
  magi.assert_tensor_metadata %x : tensor<4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @binding_of_dead_tensor
func.func @binding_of_dead_tensor(%x: tensor<?x4xf32>) {
  // A binding is the only use of its tensor: both go, and then the symbol.
  // CHECK-NOT: magi.
  // CHECK: return
  %s = magi.symbolic_int "s0" min 1
  %0 = magi.neg %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  magi.bind_symbolic_shape %0, [%s], affine_map<()[s0] -> (s0, 4)> : tensor<?x4xf32>
  return
}

// -----

// A dead tensor's binding stays when it alone gives a symbol something
// reads (here a runtime assertion over it); with a second binding of the
// symbol, it goes.
// CHECK-LABEL: func.func @binding_alone_gives_a_read_symbol
func.func @binding_alone_gives_a_read_symbol(%x: tensor<?x4xf32>, %y: tensor<?xf32>) {
  // CHECK: %[[S:.*]] = magi.symbolic_int "u0"
  // CHECK: %[[N:.*]] = magi.neg
  // CHECK-NEXT: magi.bind_symbolic_shape %[[N]], [%[[S]]]
  // CHECK: %[[T:.*]] = magi.symbolic_int "u1"
  // CHECK-NOT: magi.neg
  // CHECK: magi.bind_symbolic_shape %{{.*}}, [%[[T]]]
  // CHECK-NOT: magi.bind_symbolic_shape
  // CHECK: return
  %c3 = arith.constant 3 : index
  %s = magi.symbolic_int "u0" min 0
  %0 = magi.neg %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  magi.bind_symbolic_shape %0, [%s], affine_map<()[s0] -> (s0, 4)> : tensor<?x4xf32>
  %le = magi.sym_compare "le" %s, %c3
  magi.assert_symbolic %le, "u0 <= 3"
  %t = magi.symbolic_int "u1" min 0
  %1 = magi.neg %y : (tensor<?xf32>) -> tensor<?xf32>
  magi.bind_symbolic_shape %1, [%t], affine_map<()[s0] -> (s0)> : tensor<?xf32>
  magi.bind_symbolic_shape %y, [%t], affine_map<()[s0] -> (s0)> : tensor<?xf32>
  %le1 = magi.sym_compare "le" %t, %c3
  magi.assert_symbolic %le1, "u1 <= 3"
  return
}

// -----

// CHECK-LABEL: func.func @binding_of_used_tensor
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
func.func @binding_of_used_tensor(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: %[[S:.*]] = magi.symbolic_int "s0" min 1
  // CHECK: %[[N:.*]] = magi.neg %[[X]]
  // CHECK: magi.bind_symbolic_shape %[[N]], [%[[S]]]
  // CHECK: return %[[N]]
  %s = magi.symbolic_int "s0" min 1
  %0 = magi.neg %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  magi.bind_symbolic_shape %0, [%s], affine_map<()[s0] -> (s0, 4)> : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// An attention mask broadcast over the heads by magi.expand is used as it is
// (the op broadcasts it itself); the expand then has no use and goes.
// CHECK-LABEL: func @attention_mask_expand
// CHECK-SAME: %[[M:[a-z0-9]+]]: tensor<1x1x?x?xbf16>
// CHECK-NOT: magi.expand
// CHECK: magi.attention %{{.*}}, %{{.*}}, %{{.*}} mask %[[M]] {{.*}}tensor<1x1x?x?xbf16>) -> tensor<1x4x?x32xbf16>
func.func @attention_mask_expand(%q: tensor<1x4x?x32xbf16>, %k: tensor<1x4x?x32xbf16>, %v: tensor<1x4x?x32xbf16>, %m: tensor<1x1x?x?xbf16>, %n: index) -> tensor<1x4x?x32xbf16> {
  %e = magi.expand %m [1, 4, %n, %n] : tensor<1x1x?x?xbf16> -> tensor<1x4x?x?xbf16>
  %0 = magi.attention %q, %k, %v mask %e {scale = 0.17677669529663689 : f64} : (tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x?xbf16>) -> tensor<1x4x?x32xbf16>
  return %0 : tensor<1x4x?x32xbf16>
}

// A mask expanded from another rank is left alone.
// CHECK-LABEL: func @attention_mask_rank
// CHECK: magi.expand
func.func @attention_mask_rank(%q: tensor<1x4x8x32xbf16>, %k: tensor<1x4x8x32xbf16>, %v: tensor<1x4x8x32xbf16>, %m: tensor<8x8xbf16>) -> tensor<1x4x8x32xbf16> {
  %e = magi.expand %m [1, 4, 8, 8] : tensor<8x8xbf16> -> tensor<1x4x8x8xbf16>
  %0 = magi.attention %q, %k, %v mask %e : (tensor<1x4x8x32xbf16>, tensor<1x4x8x32xbf16>, tensor<1x4x8x32xbf16>, tensor<1x4x8x8xbf16>) -> tensor<1x4x8x32xbf16>
  return %0 : tensor<1x4x8x32xbf16>
}

// -----

// Folding a sym_size to a constant makes arange infer a static length where
// the declared type says `?`: the op stays valid (issue #12), and the declared
// type is kept.
// CHECK-LABEL: func.func @arange_after_sym_size_folds
func.func @arange_after_sym_size_folds(%x: tensor<2x8xf32>) -> tensor<?xf32> {
  // CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
  // CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
  // CHECK-DAG: %[[C7:.*]] = arith.constant 7 : index
  // CHECK: magi.arange %[[C0]], %[[C7]], %[[C1]] {dtype = f32} : (i64, index, i64) -> tensor<?xf32>
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %one = arith.constant 1 : index
  %n = magi.sym_size %x, 1 : tensor<2x8xf32>
  %m = magi.sym_sub %n, %one
  %r = magi.arange %c0, %m, %c1 {dtype = f32} : (i64, index, i64) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// SymBools fold on constants (and x == x); an assertion that holds goes,
// one that fails stays for the run to report.
// CHECK-LABEL: func.func @sym_bool_folds
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:     %[[TRUE:.*]] = arith.constant true
// CHECK-DAG:     %[[FALSE:.*]] = arith.constant false
// CHECK-NOT:     magi.assert_symbolic %{{.*}}, "holds"
// CHECK:         magi.assert_symbolic %[[FALSE]], "never"
// CHECK-NEXT:    %[[GT:.*]] = magi.sym_compare "gt" %{{.*}}, %[[C3]]
// CHECK-NEXT:    return %[[TRUE]], %[[GT]] : i1, i1
func.func @sym_bool_folds(%s: index) -> (i1, i1) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %lt = magi.sym_compare "lt" %c2, %c3
  %self = magi.sym_compare "le" %s, %s
  %not = magi.sym_not %lt
  %and = magi.sym_and %lt, %self
  %or = magi.sym_or %not, %not
  magi.assert_symbolic %and, "holds"
  magi.assert_symbolic %or, "never"
  %keep = magi.sym_compare "gt" %s, %c3
  %passthrough = magi.sym_and %lt, %keep
  return %and, %passthrough : i1, i1
}
