// RUN: magi-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// magi.diagonal: inferred shapes (the two dimensions removed, the diagonal
// last; its length clamped at 0; dynamic when a size is) and every
// inference error.

// CHECK-LABEL: func.func @valid
func.func @valid(%x: tensor<4x5x6xf32>, %y: tensor<?x3xbf16>) {
  // CHECK: magi.diagonal %{{.*}} {dim1 = 0 : i64, dim2 = 2 : i64, offset = -1 : i64} : (tensor<4x5x6xf32>) -> tensor<5x3xf32>
  %a = magi.diagonal %x {offset = -1 : i64, dim1 = 0 : i64, dim2 = 2 : i64} : (tensor<4x5x6xf32>) -> tensor<5x3xf32>
  // CHECK: magi.diagonal %{{.*}} {dim1 = -1 : i64, dim2 = 1 : i64, offset = 9 : i64} : (tensor<4x5x6xf32>) -> tensor<4x0xf32>
  %b = magi.diagonal %x {offset = 9 : i64, dim1 = -1 : i64, dim2 = 1 : i64} : (tensor<4x5x6xf32>) -> tensor<4x0xf32>
  // CHECK: magi.diagonal %{{.*}} {dim1 = 0 : i64, dim2 = 1 : i64, offset = 0 : i64} : (tensor<?x3xbf16>) -> tensor<?xbf16>
  %c = magi.diagonal %y {offset = 0 : i64, dim1 = 0 : i64, dim2 = 1 : i64} : (tensor<?x3xbf16>) -> tensor<?xbf16>
  return
}

// -----

func.func @same_dims(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{diagonal dimensions cannot be identical: 1}}
  // expected-error @+1 {{'magi.diagonal' op failed to infer returned types}}
  %a = magi.diagonal %x {offset = 0 : i64, dim1 = 1 : i64, dim2 = -1 : i64} : (tensor<4x5xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @rank_one(%x: tensor<4xf32>) {
  // expected-error @+2 {{diagonal needs a tensor of rank 2 or more, got 'tensor<4xf32>'}}
  // expected-error @+1 {{'magi.diagonal' op failed to infer returned types}}
  %a = magi.diagonal %x {offset = 0 : i64, dim1 = 0 : i64, dim2 = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @dim_out_of_range(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{out of range}}
  // expected-error @+1 {{'magi.diagonal' op failed to infer returned types}}
  %a = magi.diagonal %x {offset = 0 : i64, dim1 = 0 : i64, dim2 = 2 : i64} : (tensor<4x5xf32>) -> tensor<4xf32>
  return
}
