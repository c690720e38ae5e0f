// RUN: magi-opt %s | FileCheck %s
// RUN: magi-opt %s | magi-opt | FileCheck %s
// RUN: magi-opt %s -emit-bytecode | magi-opt | FileCheck %s
// RUN: magi-opt %s --verify-roundtrip | FileCheck %s

// Positive tests for the reductions: magi.sum, magi.mean, magi.amax,
// magi.amin, magi.any, magi.all, magi.max_dim, magi.argmax and magi.cumsum.

// CHECK-LABEL: func.func @sum
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x4xf32>, %[[I:.*]]: tensor<3x4xi32>, %[[B:.*]]: tensor<5xi1>, %[[S:.*]]: tensor<bf16>)
func.func @sum(%x: tensor<2x?x4xf32>, %i: tensor<3x4xi32>, %b: tensor<5xi1>, %s: tensor<bf16>) {
  // CHECK: magi.sum %[[X]] {dims = array<i64: 1>} : (tensor<2x?x4xf32>) -> tensor<2x4xf32>
  %0 = magi.sum %x {dims = array<i64: 1>} : (tensor<2x?x4xf32>) -> tensor<2x4xf32>
  // No dims: all dimensions.
  // CHECK: magi.sum %[[X]] : (tensor<2x?x4xf32>) -> tensor<f32>
  %1 = magi.sum %x : (tensor<2x?x4xf32>) -> tensor<f32>
  // An empty dims list also reduces all dimensions, as in PyTorch.
  // CHECK: magi.sum %[[X]] {dims = array<i64>} : (tensor<2x?x4xf32>) -> tensor<f32>
  %2 = magi.sum %x {dims = array<i64>} : (tensor<2x?x4xf32>) -> tensor<f32>
  // Negative dims and keepdim.
  // CHECK: magi.sum %[[X]] {dims = array<i64: -1, 0>, keepdim = true} : (tensor<2x?x4xf32>) -> tensor<1x?x1xf32>
  %3 = magi.sum %x {dims = array<i64: -1, 0>, keepdim = true} : (tensor<2x?x4xf32>) -> tensor<1x?x1xf32>
  // keepdim = false is the default and is not printed.
  // CHECK: magi.sum %[[X]] {dims = array<i64: 2>} : (tensor<2x?x4xf32>) -> tensor<2x?xf32>
  %4 = magi.sum %x {dims = array<i64: 2>, keepdim = false} : (tensor<2x?x4xf32>) -> tensor<2x?xf32>
  // Integers and bool sum to i64.
  // CHECK: magi.sum %[[I]] {dims = array<i64: 0>} : (tensor<3x4xi32>) -> tensor<4xi64>
  %5 = magi.sum %i {dims = array<i64: 0>} : (tensor<3x4xi32>) -> tensor<4xi64>
  // CHECK: magi.sum %[[B]] : (tensor<5xi1>) -> tensor<i64>
  %6 = magi.sum %b : (tensor<5xi1>) -> tensor<i64>
  // An explicit dtype wins.
  // CHECK: magi.sum %[[I]] {dtype = f16} : (tensor<3x4xi32>) -> tensor<f16>
  %7 = magi.sum %i {dtype = f16} : (tensor<3x4xi32>) -> tensor<f16>
  // A 0-d tensor: dim 0 and -1 are accepted.
  // CHECK: magi.sum %[[S]] {dims = array<i64: -1>} : (tensor<bf16>) -> tensor<bf16>
  %8 = magi.sum %s {dims = array<i64: -1>} : (tensor<bf16>) -> tensor<bf16>
  // CHECK: magi.sum %[[S]] {dims = array<i64: 0>, keepdim = true} : (tensor<bf16>) -> tensor<bf16>
  %9 = magi.sum %s {dims = array<i64: 0>, keepdim = true} : (tensor<bf16>) -> tensor<bf16>
  return
}

// CHECK-LABEL: func.func @mean
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x4xbf16>, %[[I:.*]]: tensor<3x4xi32>)
func.func @mean(%x: tensor<2x?x4xbf16>, %i: tensor<3x4xi32>) {
  // CHECK: magi.mean %[[X]] {dims = array<i64: -1>, keepdim = true} : (tensor<2x?x4xbf16>) -> tensor<2x?x1xbf16>
  %0 = magi.mean %x {dims = array<i64: -1>, keepdim = true} : (tensor<2x?x4xbf16>) -> tensor<2x?x1xbf16>
  // CHECK: magi.mean %[[X]] : (tensor<2x?x4xbf16>) -> tensor<bf16>
  %1 = magi.mean %x : (tensor<2x?x4xbf16>) -> tensor<bf16>
  // CHECK: magi.mean %[[X]] {dims = array<i64: 0>, dtype = f32} : (tensor<2x?x4xbf16>) -> tensor<?x4xf32>
  %2 = magi.mean %x {dims = array<i64: 0>, dtype = f32} : (tensor<2x?x4xbf16>) -> tensor<?x4xf32>
  // An integer input needs an explicit floating-point dtype.
  // CHECK: magi.mean %[[I]] {dims = array<i64: 1>, dtype = f32} : (tensor<3x4xi32>) -> tensor<3xf32>
  %3 = magi.mean %i {dims = array<i64: 1>, dtype = f32} : (tensor<3x4xi32>) -> tensor<3xf32>
  return
}

// CHECK-LABEL: func.func @amax_amin
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x4xf16>, %[[I:.*]]: tensor<3x4xi8>)
func.func @amax_amin(%x: tensor<2x?x4xf16>, %i: tensor<3x4xi8>) {
  // The input dtype is kept, integers included.
  // CHECK: magi.amax %[[X]] {dims = array<i64: 1>} : (tensor<2x?x4xf16>) -> tensor<2x4xf16>
  %0 = magi.amax %x {dims = array<i64: 1>} : (tensor<2x?x4xf16>) -> tensor<2x4xf16>
  // CHECK: magi.amax %[[I]] {dims = array<i64: 0, 1>, keepdim = true} : (tensor<3x4xi8>) -> tensor<1x1xi8>
  %1 = magi.amax %i {dims = array<i64: 0, 1>, keepdim = true} : (tensor<3x4xi8>) -> tensor<1x1xi8>
  // CHECK: magi.amin %[[X]] {dims = array<i64: -2>} : (tensor<2x?x4xf16>) -> tensor<2x4xf16>
  %2 = magi.amin %x {dims = array<i64: -2>} : (tensor<2x?x4xf16>) -> tensor<2x4xf16>
  // CHECK: magi.amin %[[I]] : (tensor<3x4xi8>) -> tensor<i8>
  %3 = magi.amin %i : (tensor<3x4xi8>) -> tensor<i8>
  return
}

// CHECK-LABEL: func.func @any_all
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xf32>, %[[B:.*]]: tensor<3x4xi1>)
func.func @any_all(%x: tensor<2x?xf32>, %b: tensor<3x4xi1>) {
  // The result is bool.
  // CHECK: magi.any %[[X]] {dims = array<i64: 1>} : (tensor<2x?xf32>) -> tensor<2xi1>
  %0 = magi.any %x {dims = array<i64: 1>} : (tensor<2x?xf32>) -> tensor<2xi1>
  // CHECK: magi.any %[[B]] : (tensor<3x4xi1>) -> tensor<i1>
  %1 = magi.any %b : (tensor<3x4xi1>) -> tensor<i1>
  // CHECK: magi.all %[[B]] {dims = array<i64: 0>, keepdim = true} : (tensor<3x4xi1>) -> tensor<1x4xi1>
  %2 = magi.all %b {dims = array<i64: 0>, keepdim = true} : (tensor<3x4xi1>) -> tensor<1x4xi1>
  // CHECK: magi.all %[[X]] : (tensor<2x?xf32>) -> tensor<i1>
  %3 = magi.all %x : (tensor<2x?xf32>) -> tensor<i1>
  return
}

// CHECK-LABEL: func.func @max_dim
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x4xf32>, %[[I:.*]]: tensor<5xi32>)
func.func @max_dim(%x: tensor<2x?x4xf32>, %i: tensor<5xi32>) -> (tensor<2x4xf32>, tensor<2x4xi64>) {
  // Values keep the dtype; indices are i64. The results are named after the
  // ODS result names.
  // CHECK: %[[V:[^ ,]+]], %[[IDX:[^ ,]+]] = magi.max_dim %[[X]] {dim = 1 : i64} : (tensor<2x?x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  %v, %idx = magi.max_dim %x {dim = 1 : i64} : (tensor<2x?x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  // CHECK: magi.max_dim %[[X]] {dim = -1 : i64, keepdim = true} : (tensor<2x?x4xf32>) -> (tensor<2x?x1xf32>, tensor<2x?x1xi64>)
  %r:2 = magi.max_dim %x {dim = -1 : i64, keepdim = true} : (tensor<2x?x4xf32>) -> (tensor<2x?x1xf32>, tensor<2x?x1xi64>)
  // CHECK: magi.max_dim %[[I]] {dim = 0 : i64} : (tensor<5xi32>) -> (tensor<i32>, tensor<i64>)
  %q:2 = magi.max_dim %i {dim = 0 : i64} : (tensor<5xi32>) -> (tensor<i32>, tensor<i64>)
  // CHECK: return %[[V]], %[[IDX]]
  return %v, %idx : tensor<2x4xf32>, tensor<2x4xi64>
}

// CHECK-LABEL: func.func @argmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x4xf32>)
func.func @argmax(%x: tensor<2x?x4xf32>) {
  // No dim: the index into the flattened tensor.
  // CHECK: magi.argmax %[[X]] : (tensor<2x?x4xf32>) -> tensor<i64>
  %0 = magi.argmax %x : (tensor<2x?x4xf32>) -> tensor<i64>
  // CHECK: magi.argmax %[[X]] {keepdim = true} : (tensor<2x?x4xf32>) -> tensor<1x1x1xi64>
  %1 = magi.argmax %x {keepdim = true} : (tensor<2x?x4xf32>) -> tensor<1x1x1xi64>
  // CHECK: magi.argmax %[[X]] {dim = -1 : i64} : (tensor<2x?x4xf32>) -> tensor<2x?xi64>
  %2 = magi.argmax %x {dim = -1 : i64} : (tensor<2x?x4xf32>) -> tensor<2x?xi64>
  // CHECK: magi.argmax %[[X]] {dim = 1 : i64, keepdim = true} : (tensor<2x?x4xf32>) -> tensor<2x1x4xi64>
  %3 = magi.argmax %x {dim = 1 : i64, keepdim = true} : (tensor<2x?x4xf32>) -> tensor<2x1x4xi64>
  return
}

// CHECK-LABEL: func.func @cumsum
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xf16>, %[[I:.*]]: tensor<3x4xi32>, %[[B:.*]]: tensor<4xi1>)
func.func @cumsum(%x: tensor<2x?xf16>, %i: tensor<3x4xi32>, %b: tensor<4xi1>) {
  // CHECK: magi.cumsum %[[X]] {dim = 1 : i64} : (tensor<2x?xf16>) -> tensor<2x?xf16>
  %0 = magi.cumsum %x {dim = 1 : i64} : (tensor<2x?xf16>) -> tensor<2x?xf16>
  // Integers and bool sum to i64.
  // CHECK: magi.cumsum %[[I]] {dim = 0 : i64} : (tensor<3x4xi32>) -> tensor<3x4xi64>
  %1 = magi.cumsum %i {dim = 0 : i64} : (tensor<3x4xi32>) -> tensor<3x4xi64>
  // CHECK: magi.cumsum %[[B]] {dim = -1 : i64} : (tensor<4xi1>) -> tensor<4xi64>
  %2 = magi.cumsum %b {dim = -1 : i64} : (tensor<4xi1>) -> tensor<4xi64>
  // CHECK: magi.cumsum %[[I]] {dim = 1 : i64, dtype = f32} : (tensor<3x4xi32>) -> tensor<3x4xf32>
  %3 = magi.cumsum %i {dim = 1 : i64, dtype = f32} : (tensor<3x4xi32>) -> tensor<3x4xf32>
  return
}
