// RUN: magi-opt %s -split-input-file -magi-split | FileCheck %s
// A value read on the host without a bound that gives sizes only as the
// start or end of slices of static dimensions (tensor_split at indices
// held in a tensor) is clamped: bound by the largest such dimension, any
// value read (Python clamps a slice's bounds to [0, size]). Any other way
// of giving a size leaves it without a bound (the launch plan then refuses
// it), and one that gives no size may be any value.

// tensor_split(x, t) for t of two indices: the reads are the ends and
// starts of three slices of a dimension of 5.
// CHECK-LABEL: func.func private @split_at_indices_piece_1
// CHECK:         %[[FIVE:.*]] = arith.constant 5 : index
// CHECK:         magi.item %{{.*}} bound %[[FIVE]] {clamped, symbol = "u0"}
// CHECK-LABEL: func.func private @split_at_indices_piece_2
// CHECK:         magi.item %{{.*}} bound %{{.*}} {clamped, symbol = "u1"}
// CHECK-LABEL: func.func @split_at_indices
func.func @split_at_indices(%x: tensor<5x3xf32>, %t: tensor<2xi64>) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) {
  %t0 = magi.slice %t, 0 [0, 1, 1] : tensor<2xi64> -> tensor<1xi64>
  %t1 = magi.slice %t, 0 [1, 2, 1] : tensor<2xi64> -> tensor<1xi64>
  %s0 = magi.squeeze %t0 {dims = array<i64: 0>} : (tensor<1xi64>) -> tensor<i64>
  %s1 = magi.squeeze %t1 {dims = array<i64: 0>} : (tensor<1xi64>) -> tensor<i64>
  %i = magi.item %s0 {symbol = "u0"} : tensor<i64> -> index
  %j = magi.item %s1 {symbol = "u1"} : tensor<i64> -> index
  %a = magi.slice %x, 0 [0, %i, 1] : tensor<5x3xf32> -> tensor<?x3xf32>
  %b = magi.slice %x, 0 [%i, %j, 1] : tensor<5x3xf32> -> tensor<?x3xf32>
  %c = magi.slice %x, 0 [%j, 9223372036854775807, 1] : tensor<5x3xf32> -> tensor<?x3xf32>
  return %a, %b, %c : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>
}

// -----

// Slices of two dimensions (5 and 7), and a runtime assertion over the
// value besides: bound by the larger.
// CHECK-LABEL: func.func private @two_dimensions_piece_0
// CHECK:         %[[SEVEN:.*]] = arith.constant 7 : index
// CHECK:         magi.item %{{.*}} bound %[[SEVEN]] {clamped, symbol = "u0"}
func.func @two_dimensions(%x: tensor<5x7xf32>, %t: tensor<i64>) -> (tensor<?x7xf32>, tensor<5x?xf32>) {
  %i = magi.item %t {symbol = "u0"} : tensor<i64> -> index
  %c9 = arith.constant 9 : index
  %le = magi.sym_compare "le" %i, %c9
  magi.assert_symbolic %le, "u0 <= 9"
  %a = magi.slice %x, 0 [%i, 9223372036854775807, 1] : tensor<5x7xf32> -> tensor<?x7xf32>
  %b = magi.slice %x, 1 [0, %i, 1] : tensor<5x7xf32> -> tensor<5x?xf32>
  return %a, %b : tensor<?x7xf32>, tensor<5x?xf32>
}

// -----

// A slice's step, a value computed from the read, or a dimension of
// unknown size: no bound (each of these sizes can grow past any).
// CHECK-LABEL: func.func private @not_clamped_piece_0
// CHECK:         magi.item %{{.*}} {symbol = "u0"} : tensor<i64> -> index
// CHECK-LABEL: func.func private @not_clamped_piece_2
// CHECK:         magi.item %{{.*}} {symbol = "u1"} : tensor<i64> -> index
// CHECK-LABEL: func.func private @not_clamped_piece_4
// CHECK:         magi.item %{{.*}} {symbol = "u2"} : tensor<i64> -> index
// CHECK-NOT:   {clamped
func.func @not_clamped(%x: tensor<64xf32>, %y: tensor<?xf32>, %t: tensor<i64>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %step = magi.item %t {symbol = "u0"} : tensor<i64> -> index
  %a = magi.slice %x, 0 [0, 64, %step] : tensor<64xf32> -> tensor<?xf32>
  %k = magi.item %t {symbol = "u1"} : tensor<i64> -> index
  %c1 = arith.constant 1 : index
  %k1 = magi.sym_add %k, %c1
  %b = magi.slice %x, 0 [0, %k1, 1] : tensor<64xf32> -> tensor<?xf32>
  %e = magi.item %t {symbol = "u2"} : tensor<i64> -> index
  %c = magi.slice %y, 0 [0, %e, 1] : tensor<?xf32> -> tensor<?xf32>
  return %a, %b, %c : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}
