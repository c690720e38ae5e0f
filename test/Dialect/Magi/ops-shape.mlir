// RUN: magi-opt %s | FileCheck %s
// RUN: magi-opt %s | magi-opt | FileCheck %s
// RUN: magi-opt %s -emit-bytecode | magi-opt | FileCheck %s
// RUN: magi-opt %s --verify-roundtrip | FileCheck %s

// Positive tests for the shape ops: magi.view, magi.expand, magi.permute,
// magi.unsqueeze, magi.squeeze, magi.slice, magi.select, magi.cat,
// magi.split_with_sizes and magi.constant_pad_nd.

// CHECK-LABEL: func.func @view
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[Y:.*]]: tensor<?x64xbf16>, %[[O:.*]]: tensor<1x1xf32>, %[[S:.*]]: index)
func.func @view(%x: tensor<2x3x4xf32>, %y: tensor<?x64xbf16>, %o: tensor<1x1xf32>, %s: index) {
  // CHECK: magi.view %[[X]] [6, 4] : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %0 = magi.view %x [6, 4] : tensor<2x3x4xf32> -> tensor<6x4xf32>
  // One size may be -1: inferred from the element count.
  // CHECK: magi.view %[[X]] [-1, 2] : tensor<2x3x4xf32> -> tensor<12x2xf32>
  %1 = magi.view %x [-1, 2] : tensor<2x3x4xf32> -> tensor<12x2xf32>
  // CHECK: magi.view %[[X]] [2, -1, 2, 1] : tensor<2x3x4xf32> -> tensor<2x6x2x1xf32>
  %2 = magi.view %x [2, -1, 2, 1] : tensor<2x3x4xf32> -> tensor<2x6x2x1xf32>
  // A symbolic size.
  // CHECK: magi.view %[[Y]] [1, %[[S]], 64] : tensor<?x64xbf16> -> tensor<1x?x64xbf16>
  %3 = magi.view %y [1, %s, 64] : tensor<?x64xbf16> -> tensor<1x?x64xbf16>
  // -1 over a dynamic input is `?`.
  // CHECK: magi.view %[[Y]] [-1] : tensor<?x64xbf16> -> tensor<?xbf16>
  %4 = magi.view %y [-1] : tensor<?x64xbf16> -> tensor<?xbf16>
  // CHECK: magi.view %[[Y]] [-1, 8, 8] : tensor<?x64xbf16> -> tensor<?x8x8xbf16>
  %5 = magi.view %y [-1, 8, 8] : tensor<?x64xbf16> -> tensor<?x8x8xbf16>
  // To a 0-d tensor.
  // CHECK: magi.view %[[O]] [] : tensor<1x1xf32> -> tensor<f32>
  %6 = magi.view %o [] : tensor<1x1xf32> -> tensor<f32>
  // A symbolic size may be declared static.
  // CHECK: magi.view %[[Y]] [%[[S]], 32] : tensor<?x64xbf16> -> tensor<16x32xbf16>
  %7 = magi.view %y [%s, 32] : tensor<?x64xbf16> -> tensor<16x32xbf16>
  return
}

// CHECK-LABEL: func.func @expand
// CHECK-SAME: (%[[X:.*]]: tensor<2x1x4xf32>, %[[Y:.*]]: tensor<1x?xf16>, %[[S:.*]]: index)
func.func @expand(%x: tensor<2x1x4xf32>, %y: tensor<1x?xf16>, %s: index) {
  // A size-1 dimension grows; new leading dimensions are added.
  // CHECK: magi.expand %[[X]] [5, 2, 3, 4] : tensor<2x1x4xf32> -> tensor<5x2x3x4xf32>
  %0 = magi.expand %x [5, 2, 3, 4] : tensor<2x1x4xf32> -> tensor<5x2x3x4xf32>
  // -1 keeps a size.
  // CHECK: magi.expand %[[X]] [-1, 7, -1] : tensor<2x1x4xf32> -> tensor<2x7x4xf32>
  %1 = magi.expand %x [-1, 7, -1] : tensor<2x1x4xf32> -> tensor<2x7x4xf32>
  // A symbolic size over a size-1 dimension is `?`.
  // CHECK: magi.expand %[[X]] [2, %[[S]], 4] : tensor<2x1x4xf32> -> tensor<2x?x4xf32>
  %2 = magi.expand %x [2, %s, 4] : tensor<2x1x4xf32> -> tensor<2x?x4xf32>
  // A symbolic size over a static size other than 1 is that size.
  // CHECK: magi.expand %[[X]] [%[[S]], 1, 4] : tensor<2x1x4xf32> -> tensor<2x1x4xf32>
  %3 = magi.expand %x [%s, 1, 4] : tensor<2x1x4xf32> -> tensor<2x1x4xf32>
  // -1 over a dynamic size stays dynamic.
  // CHECK: magi.expand %[[Y]] [3, -1] : tensor<1x?xf16> -> tensor<3x?xf16>
  %4 = magi.expand %y [3, -1] : tensor<1x?xf16> -> tensor<3x?xf16>
  // A static size over a dynamic one.
  // CHECK: magi.expand %[[Y]] [%[[S]], 1, 8] : tensor<1x?xf16> -> tensor<?x1x8xf16>
  %5 = magi.expand %y [%s, 1, 8] : tensor<1x?xf16> -> tensor<?x1x8xf16>
  return
}

// CHECK-LABEL: func.func @permute
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x4xf32>, %[[S:.*]]: tensor<i64>)
func.func @permute(%x: tensor<2x?x4xf32>, %s: tensor<i64>) {
  // CHECK: magi.permute %[[X]] {dims = array<i64: 2, 0, 1>} : (tensor<2x?x4xf32>) -> tensor<4x2x?xf32>
  %0 = magi.permute %x {dims = array<i64: 2, 0, 1>} : (tensor<2x?x4xf32>) -> tensor<4x2x?xf32>
  // Negative entries count from the end.
  // CHECK: magi.permute %[[X]] {dims = array<i64: 0, -1, -2>} : (tensor<2x?x4xf32>) -> tensor<2x4x?xf32>
  %1 = magi.permute %x {dims = array<i64: 0, -1, -2>} : (tensor<2x?x4xf32>) -> tensor<2x4x?xf32>
  // The identity.
  // CHECK: magi.permute %[[X]] {dims = array<i64: 0, 1, 2>} : (tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  %2 = magi.permute %x {dims = array<i64: 0, 1, 2>} : (tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  // A 0-d tensor has the empty permutation.
  // CHECK: magi.permute %[[S]] {dims = array<i64>} : (tensor<i64>) -> tensor<i64>
  %3 = magi.permute %s {dims = array<i64>} : (tensor<i64>) -> tensor<i64>
  return
}

// CHECK-LABEL: func.func @unsqueeze_squeeze
// CHECK-SAME: (%[[X:.*]]: tensor<2x1x?xf32>, %[[S:.*]]: tensor<f16>)
func.func @unsqueeze_squeeze(%x: tensor<2x1x?xf32>, %s: tensor<f16>) {
  // CHECK: magi.unsqueeze %[[X]] {dim = 0 : i64} : (tensor<2x1x?xf32>) -> tensor<1x2x1x?xf32>
  %0 = magi.unsqueeze %x {dim = 0 : i64} : (tensor<2x1x?xf32>) -> tensor<1x2x1x?xf32>
  // dim may be the new rank minus one, or negative.
  // CHECK: magi.unsqueeze %[[X]] {dim = 3 : i64} : (tensor<2x1x?xf32>) -> tensor<2x1x?x1xf32>
  %1 = magi.unsqueeze %x {dim = 3 : i64} : (tensor<2x1x?xf32>) -> tensor<2x1x?x1xf32>
  // CHECK: magi.unsqueeze %[[X]] {dim = -1 : i64} : (tensor<2x1x?xf32>) -> tensor<2x1x?x1xf32>
  %2 = magi.unsqueeze %x {dim = -1 : i64} : (tensor<2x1x?xf32>) -> tensor<2x1x?x1xf32>
  // CHECK: magi.unsqueeze %[[X]] {dim = -4 : i64} : (tensor<2x1x?xf32>) -> tensor<1x2x1x?xf32>
  %3 = magi.unsqueeze %x {dim = -4 : i64} : (tensor<2x1x?xf32>) -> tensor<1x2x1x?xf32>
  // CHECK: magi.unsqueeze %[[S]] {dim = 0 : i64} : (tensor<f16>) -> tensor<1xf16>
  %4 = magi.unsqueeze %s {dim = 0 : i64} : (tensor<f16>) -> tensor<1xf16>
  // Only dimensions of size 1 are removed.
  // CHECK: magi.squeeze %[[X]] {dims = array<i64: 1>} : (tensor<2x1x?xf32>) -> tensor<2x?xf32>
  %5 = magi.squeeze %x {dims = array<i64: 1>} : (tensor<2x1x?xf32>) -> tensor<2x?xf32>
  // CHECK: magi.squeeze %[[X]] {dims = array<i64: 0, -2>} : (tensor<2x1x?xf32>) -> tensor<2x?xf32>
  %6 = magi.squeeze %x {dims = array<i64: 0, -2>} : (tensor<2x1x?xf32>) -> tensor<2x?xf32>
  // A dynamic size is kept (it is not known to be 1).
  // CHECK: magi.squeeze %[[X]] {dims = array<i64: 2>} : (tensor<2x1x?xf32>) -> tensor<2x1x?xf32>
  %7 = magi.squeeze %x {dims = array<i64: 2>} : (tensor<2x1x?xf32>) -> tensor<2x1x?xf32>
  // CHECK: magi.squeeze %[[S]] {dims = array<i64: 0>} : (tensor<f16>) -> tensor<f16>
  %8 = magi.squeeze %s {dims = array<i64: 0>} : (tensor<f16>) -> tensor<f16>
  return
}

// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:.*]]: tensor<4x10xf32>, %[[Y:.*]]: tensor<1x?x64xbf16>, %[[S:.*]]: index)
func.func @slice(%x: tensor<4x10xf32>, %y: tensor<1x?x64xbf16>, %s: index) {
  // CHECK: magi.slice %[[X]], 1 [2, 8, 1] : tensor<4x10xf32> -> tensor<4x6xf32>
  %0 = magi.slice %x, 1 [2, 8, 1] : tensor<4x10xf32> -> tensor<4x6xf32>
  // A step: ceil((8 - 2) / 4) = 2.
  // CHECK: magi.slice %[[X]], 1 [2, 8, 4] : tensor<4x10xf32> -> tensor<4x2xf32>
  %1 = magi.slice %x, 1 [2, 8, 4] : tensor<4x10xf32> -> tensor<4x2xf32>
  // An absent end is INT64_MAX; bounds are clamped to the size.
  // CHECK: magi.slice %[[X]], 1 [3, 9223372036854775807, 1] : tensor<4x10xf32> -> tensor<4x7xf32>
  %2 = magi.slice %x, 1 [3, 9223372036854775807, 1] : tensor<4x10xf32> -> tensor<4x7xf32>
  // Negative bounds count from the end.
  // CHECK: magi.slice %[[X]], -1 [-3, -1, 1] : tensor<4x10xf32> -> tensor<4x2xf32>
  %3 = magi.slice %x, -1 [-3, -1, 1] : tensor<4x10xf32> -> tensor<4x2xf32>
  // CHECK: magi.slice %[[X]], 0 [-100, 100, 1] : tensor<4x10xf32> -> tensor<4x10xf32>
  %4 = magi.slice %x, 0 [-100, 100, 1] : tensor<4x10xf32> -> tensor<4x10xf32>
  // An empty slice.
  // CHECK: magi.slice %[[X]], 1 [8, 2, 1] : tensor<4x10xf32> -> tensor<4x0xf32>
  %5 = magi.slice %x, 1 [8, 2, 1] : tensor<4x10xf32> -> tensor<4x0xf32>
  // Symbolic bounds make the size `?`.
  // CHECK: magi.slice %[[Y]], 1 [0, %[[S]], 1] : tensor<1x?x64xbf16> -> tensor<1x?x64xbf16>
  %6 = magi.slice %y, 1 [0, %s, 1] : tensor<1x?x64xbf16> -> tensor<1x?x64xbf16>
  // CHECK: magi.slice %[[X]], 1 [%[[S]], 10, 2] : tensor<4x10xf32> -> tensor<4x?xf32>
  %7 = magi.slice %x, 1 [%s, 10, 2] : tensor<4x10xf32> -> tensor<4x?xf32>
  // CHECK: magi.slice %[[Y]], 2 [0, 32, 1] : tensor<1x?x64xbf16> -> tensor<1x?x32xbf16>
  %8 = magi.slice %y, 2 [0, 32, 1] : tensor<1x?x64xbf16> -> tensor<1x?x32xbf16>
  return
}

// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x?xf32>, %[[S:.*]]: index)
func.func @select(%x: tensor<2x3x?xf32>, %s: index) {
  // CHECK: magi.select %[[X]], 1 [2] : tensor<2x3x?xf32> -> tensor<2x?xf32>
  %0 = magi.select %x, 1 [2] : tensor<2x3x?xf32> -> tensor<2x?xf32>
  // Negative dim and index.
  // CHECK: magi.select %[[X]], -3 [-2] : tensor<2x3x?xf32> -> tensor<3x?xf32>
  %1 = magi.select %x, -3 [-2] : tensor<2x3x?xf32> -> tensor<3x?xf32>
  // A symbolic index.
  // CHECK: magi.select %[[X]], 2 [%[[S]]] : tensor<2x3x?xf32> -> tensor<2x3xf32>
  %2 = magi.select %x, 2 [%s] : tensor<2x3x?xf32> -> tensor<2x3xf32>
  // Any static index into a dynamic dimension.
  // CHECK: magi.select %[[X]], 2 [100] : tensor<2x3x?xf32> -> tensor<2x3xf32>
  %3 = magi.select %x, 2 [100] : tensor<2x3x?xf32> -> tensor<2x3xf32>
  return
}

// CHECK-LABEL: func.func @cat
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<5x3xf32>, %[[C:.*]]: tensor<?x3xf32>, %[[D:.*]]: tensor<2x?xbf16>, %[[E:.*]]: tensor<2x4xi64>)
func.func @cat(%a: tensor<2x3xf32>, %b: tensor<5x3xf32>, %c: tensor<?x3xf32>, %d: tensor<2x?xbf16>, %e: tensor<2x4xi64>) {
  // CHECK: magi.cat %[[A]], %[[B]] {dim = 0 : i64} : (tensor<2x3xf32>, tensor<5x3xf32>) -> tensor<7x3xf32>
  %0 = magi.cat %a, %b {dim = 0 : i64} : (tensor<2x3xf32>, tensor<5x3xf32>) -> tensor<7x3xf32>
  // A dynamic size along dim makes the sum `?`.
  // CHECK: magi.cat %[[A]], %[[C]], %[[B]] {dim = 0 : i64} : (tensor<2x3xf32>, tensor<?x3xf32>, tensor<5x3xf32>) -> tensor<?x3xf32>
  %1 = magi.cat %a, %c, %b {dim = 0 : i64} : (tensor<2x3xf32>, tensor<?x3xf32>, tensor<5x3xf32>) -> tensor<?x3xf32>
  // A dynamic size elsewhere is resolved by a static one; dtypes promote.
  // CHECK: magi.cat %[[D]], %[[A]] {dim = -1 : i64} : (tensor<2x?xbf16>, tensor<2x3xf32>) -> tensor<2x?xf32>
  %2 = magi.cat %d, %a {dim = -1 : i64} : (tensor<2x?xbf16>, tensor<2x3xf32>) -> tensor<2x?xf32>
  // CHECK: magi.cat %[[C]], %[[E]] {dim = 1 : i64} : (tensor<?x3xf32>, tensor<2x4xi64>) -> tensor<2x7xf32>
  %3 = magi.cat %c, %e {dim = 1 : i64} : (tensor<?x3xf32>, tensor<2x4xi64>) -> tensor<2x7xf32>
  // A single tensor.
  // CHECK: magi.cat %[[E]] {dim = 0 : i64} : (tensor<2x4xi64>) -> tensor<2x4xi64>
  %4 = magi.cat %e {dim = 0 : i64} : (tensor<2x4xi64>) -> tensor<2x4xi64>
  return
}

// CHECK-LABEL: func.func @split_with_sizes
// CHECK-SAME: (%[[X:.*]]: tensor<2x6x4xf32>, %[[Y:.*]]: tensor<?x8xf16>, %[[S:.*]]: index)
func.func @split_with_sizes(%x: tensor<2x6x4xf32>, %y: tensor<?x8xf16>, %s: index) -> (tensor<2x1x4xf32>, tensor<2x5x4xf32>) {
  // CHECK: %[[R:.*]]:2 = magi.split_with_sizes %[[X]] [1, 5] {dim = 1 : i64} : tensor<2x6x4xf32> -> tensor<2x1x4xf32>, tensor<2x5x4xf32>
  %0:2 = magi.split_with_sizes %x [1, 5] {dim = 1 : i64} : tensor<2x6x4xf32> -> tensor<2x1x4xf32>, tensor<2x5x4xf32>
  // Three pieces along a negative dim, one of them empty.
  // CHECK: magi.split_with_sizes %[[X]] [2, 0, 2] {dim = -1 : i64} : tensor<2x6x4xf32> -> tensor<2x6x2xf32>, tensor<2x6x0xf32>, tensor<2x6x2xf32>
  %1:3 = magi.split_with_sizes %x [2, 0, 2] {dim = -1 : i64} : tensor<2x6x4xf32> -> tensor<2x6x2xf32>, tensor<2x6x0xf32>, tensor<2x6x2xf32>
  // Symbolic split sizes along a dynamic dimension.
  // CHECK: magi.split_with_sizes %[[Y]] [%[[S]], 3, %[[S]]] {dim = 0 : i64} : tensor<?x8xf16> -> tensor<?x8xf16>, tensor<3x8xf16>, tensor<?x8xf16>
  %2:3 = magi.split_with_sizes %y [%s, 3, %s] {dim = 0 : i64} : tensor<?x8xf16> -> tensor<?x8xf16>, tensor<3x8xf16>, tensor<?x8xf16>
  // A single piece.
  // CHECK: magi.split_with_sizes %[[Y]] [8] {dim = 1 : i64} : tensor<?x8xf16> -> tensor<?x8xf16>
  %3 = magi.split_with_sizes %y [8] {dim = 1 : i64} : tensor<?x8xf16> -> tensor<?x8xf16>
  // CHECK: return %[[R]]#0, %[[R]]#1
  return %0#0, %0#1 : tensor<2x1x4xf32>, tensor<2x5x4xf32>
}

// CHECK-LABEL: func.func @constant_pad_nd
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[Y:.*]]: tensor<?x4xi64>, %[[N:.*]]: index)
func.func @constant_pad_nd(%x: tensor<2x3x4xf32>, %y: tensor<?x4xi64>, %n: index) {
  // Pairs start from the last dimension. The default value 0.0 is not printed.
  // CHECK: magi.constant_pad_nd %[[X]] [1, 2] : tensor<2x3x4xf32> -> tensor<2x3x7xf32>
  %0 = magi.constant_pad_nd %x [1, 2] : tensor<2x3x4xf32> -> tensor<2x3x7xf32>
  // CHECK: magi.constant_pad_nd %[[X]] [0, 0, 1, 1, 2, 0] {value = -1.000000e+00 : f64} : tensor<2x3x4xf32> -> tensor<4x5x4xf32>
  %1 = magi.constant_pad_nd %x [0, 0, 1, 1, 2, 0] {value = -1.0 : f64} : tensor<2x3x4xf32> -> tensor<4x5x4xf32>
  // Negative amounts crop.
  // CHECK: magi.constant_pad_nd %[[X]] [-1, -1] : tensor<2x3x4xf32> -> tensor<2x3x2xf32>
  %2 = magi.constant_pad_nd %x [-1, -1] : tensor<2x3x4xf32> -> tensor<2x3x2xf32>
  // A dynamic dimension stays dynamic.
  // CHECK: magi.constant_pad_nd %[[Y]] [0, 1, 3, 3] : tensor<?x4xi64> -> tensor<?x5xi64>
  %3 = magi.constant_pad_nd %y [0, 1, 3, 3] : tensor<?x4xi64> -> tensor<?x5xi64>
  // An empty pad.
  // CHECK: magi.constant_pad_nd %[[Y]] [] : tensor<?x4xi64> -> tensor<?x4xi64>
  %4 = magi.constant_pad_nd %y [] : tensor<?x4xi64> -> tensor<?x4xi64>
  // A symbolic amount makes the padded dimension dynamic.
  // CHECK: magi.constant_pad_nd %[[X]] [0, %[[N]]] {value = 1.000000e+00 : f64} : tensor<2x3x4xf32> -> tensor<2x3x?xf32>
  %5 = magi.constant_pad_nd %x [0, %n] {value = 1.0 : f64} : tensor<2x3x4xf32> -> tensor<2x3x?xf32>
  // CHECK: magi.constant_pad_nd %[[X]] [%[[N]], %[[N]], 1, 1] : tensor<2x3x4xf32> -> tensor<2x5x?xf32>
  %6 = magi.constant_pad_nd %x [%n, %n, 1, 1] : tensor<2x3x4xf32> -> tensor<2x5x?xf32>
  // The dynamic size may be declared static.
  // CHECK: magi.constant_pad_nd %[[X]] [0, %[[N]]] : tensor<2x3x4xf32> -> tensor<2x3x8xf32>
  %7 = magi.constant_pad_nd %x [0, %n] : tensor<2x3x4xf32> -> tensor<2x3x8xf32>
  return
}
