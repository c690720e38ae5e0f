// RUN: magi-opt %s -magi-fold-transposes | FileCheck %s
// RUN: magi-opt %s -magi-fold-transposes -canonicalize | FileCheck %s --check-prefix=CLEAN

// magi-fold-transposes: a matrix operand of mm / bmm / addmm that is a permute
// swapping its last two dims is read in place, and the op's transpose flag is
// toggled.

// CHECK-LABEL: func.func @folds
// CHECK-SAME: (%[[A:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<16x4xf32>, %[[C:.*]]: tensor<2x4x8xf32>, %[[BIAS:.*]]: tensor<16xf32>, %[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[WT:.*]] = magi.permute %[[W]] {dims = array<i64: 1, 0>}
// x @ w.T
// CHECK: %[[M:.*]] = magi.mm %[[A]], %[[W]] {transpose_mat2} : (tensor<8x4xf32>, tensor<16x4xf32>) -> tensor<8x16xf32>
// c.T @ c, batched
// CHECK: %[[BM:.*]] = magi.bmm %[[C]], %[[C]] {transpose_self} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
// both addmm matrices
// CHECK: %[[AM:.*]] = magi.addmm %[[BIAS]], %[[X]], %[[W]] {transpose_mat1, transpose_mat2} : (tensor<16xf32>, tensor<4x8xf32>, tensor<16x4xf32>) -> tensor<8x16xf32>
// an operand already flagged: the flag goes, (w.T).T.T read as w.T
// CHECK: %[[M2:.*]] = magi.mm %[[A]], %[[WT]] : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
// CHECK: return %[[M]], %[[BM]], %[[AM]], %[[M2]]
// The permutes left unused go with the canonicalizer.
// CLEAN-LABEL: func.func @folds
// CLEAN-COUNT-1: magi.permute
// CLEAN-NOT: magi.permute
func.func @folds(%a: tensor<8x4xf32>, %w: tensor<16x4xf32>, %c: tensor<2x4x8xf32>, %bias: tensor<16xf32>, %x: tensor<4x8xf32>) -> (tensor<8x16xf32>, tensor<2x8x8xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %wt = magi.permute %w {dims = array<i64: 1, 0>} : (tensor<16x4xf32>) -> tensor<4x16xf32>
  %m = magi.mm %a, %wt : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  %ct = magi.permute %c {dims = array<i64: 0, 2, 1>} : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
  %bm = magi.bmm %ct, %c : (tensor<2x8x4xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
  %xt = magi.permute %x {dims = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %am = magi.addmm %bias, %xt, %wt : (tensor<16xf32>, tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  %wtt = magi.permute %wt {dims = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<16x4xf32>
  %m2 = magi.mm %a, %wtt {transpose_mat2} : (tensor<8x4xf32>, tensor<16x4xf32>) -> tensor<8x16xf32>
  return %m, %bm, %am, %m2 : tensor<8x16xf32>, tensor<2x8x8xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}

// Permutes that do not swap the last two dims are not transposes of the
// matrices: left alone.
// CHECK-LABEL: func.func @not_transposes
// CLEAN-LABEL: func.func @not_transposes
// CHECK: %[[P:.*]] = magi.permute %{{.*}} {dims = array<i64: 1, 0, 2>}
// CHECK: magi.bmm %[[P]], %{{.*}} : (tensor<2x8x4xf32>
// CHECK-NOT: transpose_
func.func @not_transposes(%c: tensor<8x2x4xf32>, %d: tensor<2x4x8xf32>) -> tensor<2x8x8xf32> {
  %p = magi.permute %c {dims = array<i64: 1, 0, 2>} : (tensor<8x2x4xf32>) -> tensor<2x8x4xf32>
  %bm = magi.bmm %p, %d : (tensor<2x8x4xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
  return %bm : tensor<2x8x8xf32>
}
