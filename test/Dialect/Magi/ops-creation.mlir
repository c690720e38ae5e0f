// RUN: magi-opt %s | FileCheck %s
// RUN: magi-opt %s | magi-opt | FileCheck %s
// RUN: magi-opt %s -emit-bytecode | magi-opt | FileCheck %s
// RUN: magi-opt %s --verify-roundtrip | FileCheck %s

// Positive tests for the constant and tensor-creation ops: magi.constant,
// magi.scalar_tensor, magi.full, magi.full_like and magi.arange.

// CHECK-LABEL: func.func @constant
func.func @constant() -> (tensor<2xf32>, tensor<2x3xi1>, tensor<ui8>, tensor<2xbf16>, tensor<0xi64>) {
  // CHECK: %[[A:.*]] = magi.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %a = magi.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: %[[B:.*]] = magi.constant dense<true> : tensor<2x3xi1>
  %b = magi.constant dense<true> : tensor<2x3xi1>
  // A 0-d literal of an unsigned dtype.
  // CHECK: %[[C:.*]] = magi.constant dense<7> : tensor<ui8>
  %c = magi.constant dense<7> : tensor<ui8>
  // The attribute dictionary comes before the value.
  // CHECK: %[[D:.*]] = magi.constant {note = "w"} dense<[1.000000e+00, -2.000000e+00]> : tensor<2xbf16>
  %d = magi.constant {note = "w"} dense<[1.0, -2.0]> : tensor<2xbf16>
  // An empty tensor.
  // CHECK: %[[E:.*]] = magi.constant dense<> : tensor<0xi64>
  %e = magi.constant dense<> : tensor<0xi64>
  // CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]]
  return %a, %b, %c, %d, %e : tensor<2xf32>, tensor<2x3xi1>, tensor<ui8>, tensor<2xbf16>, tensor<0xi64>
}

// CHECK-LABEL: func.func @scalar_tensor
// CHECK-SAME: (%[[F:.*]]: f64, %[[I:.*]]: i64, %[[B:.*]]: i1, %[[S:.*]]: index)
func.func @scalar_tensor(%f: f64, %i: i64, %b: i1, %s: index) -> (tensor<f32>, tensor<bf16>, tensor<i1>, tensor<i64>) {
  // CHECK: %[[R0:.*]] = magi.scalar_tensor %[[F]] {dtype = f32} : (f64) -> tensor<f32>
  %0 = magi.scalar_tensor %f {dtype = f32} : (f64) -> tensor<f32>
  // The dtype need not match the scalar's type.
  // CHECK: %[[R1:.*]] = magi.scalar_tensor %[[I]] {dtype = bf16} : (i64) -> tensor<bf16>
  %1 = magi.scalar_tensor %i {dtype = bf16} : (i64) -> tensor<bf16>
  // CHECK: %[[R2:.*]] = magi.scalar_tensor %[[B]] {dtype = i1} : (i1) -> tensor<i1>
  %2 = magi.scalar_tensor %b {dtype = i1} : (i1) -> tensor<i1>
  // A symbolic integer.
  // CHECK: %[[R3:.*]] = magi.scalar_tensor %[[S]] {dtype = i64} : (index) -> tensor<i64>
  %3 = magi.scalar_tensor %s {dtype = i64} : (index) -> tensor<i64>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]]
  return %0, %1, %2, %3 : tensor<f32>, tensor<bf16>, tensor<i1>, tensor<i64>
}

// CHECK-LABEL: func.func @full
// CHECK-SAME: (%[[S:.*]]: index)
func.func @full(%s: index) -> (tensor<i64>, tensor<2x?x3xi1>, tensor<4x5xf16>, tensor<?x?xf32>, tensor<0x2xf32>) {
  // A 0-d tensor: no sizes.
  // CHECK: %[[R0:.*]] = magi.full [] {dtype = i64, fill_value = 1 : i64} : tensor<i64>
  %0 = magi.full [] {fill_value = 1 : i64, dtype = i64} : tensor<i64>
  // Mixed static and symbolic sizes; a bool fill value.
  // CHECK: %[[R1:.*]] = magi.full [2, %[[S]], 3] {dtype = i1, fill_value = true} : tensor<2x?x3xi1>
  %1 = magi.full [2, %s, 3] {fill_value = true, dtype = i1} : tensor<2x?x3xi1>
  // CHECK: %[[R2:.*]] = magi.full [4, 5] {dtype = f16, fill_value = -1.500000e+00 : f64} : tensor<4x5xf16>
  %2 = magi.full [4, 5] {fill_value = -1.5 : f64, dtype = f16} : tensor<4x5xf16>
  // The same symbol twice.
  // CHECK: %[[R3:.*]] = magi.full [%[[S]], %[[S]]] {dtype = f32, fill_value = 0.000000e+00 : f64} : tensor<?x?xf32>
  %3 = magi.full [%s, %s] {fill_value = 0.0 : f64, dtype = f32} : tensor<?x?xf32>
  // A size of zero.
  // CHECK: %[[R4:.*]] = magi.full [0, 2] {dtype = f32, fill_value = 0 : i64} : tensor<0x2xf32>
  %4 = magi.full [0, 2] {fill_value = 0 : i64, dtype = f32} : tensor<0x2xf32>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]]
  return %0, %1, %2, %3, %4 : tensor<i64>, tensor<2x?x3xi1>, tensor<4x5xf16>, tensor<?x?xf32>, tensor<0x2xf32>
}

// CHECK-LABEL: func.func @full_like
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xbf16>, %[[Y:.*]]: tensor<f32>)
func.func @full_like(%x: tensor<2x?xbf16>, %y: tensor<f32>) -> (tensor<2x?xf32>, tensor<2x?xbf16>, tensor<i1>, tensor<2x7xi64>) {
  // The shape of self, the given dtype.
  // CHECK: %[[R0:.*]] = magi.full_like %[[X]] {dtype = f32, fill_value = 0.000000e+00 : f64} : (tensor<2x?xbf16>) -> tensor<2x?xf32>
  %0 = magi.full_like %x {fill_value = 0.0 : f64, dtype = f32} : (tensor<2x?xbf16>) -> tensor<2x?xf32>
  // CHECK: %[[R1:.*]] = magi.full_like %[[X]] {dtype = bf16, fill_value = 1 : i64} : (tensor<2x?xbf16>) -> tensor<2x?xbf16>
  %1 = magi.full_like %x {fill_value = 1 : i64, dtype = bf16} : (tensor<2x?xbf16>) -> tensor<2x?xbf16>
  // CHECK: %[[R2:.*]] = magi.full_like %[[Y]] {dtype = i1, fill_value = false} : (tensor<f32>) -> tensor<i1>
  %2 = magi.full_like %y {fill_value = false, dtype = i1} : (tensor<f32>) -> tensor<i1>
  // A declared result may refine a dynamic size inferred as `?`.
  // CHECK: %[[R3:.*]] = magi.full_like %[[X]] {dtype = i64, fill_value = 3 : i64} : (tensor<2x?xbf16>) -> tensor<2x7xi64>
  %3 = magi.full_like %x {fill_value = 3 : i64, dtype = i64} : (tensor<2x?xbf16>) -> tensor<2x7xi64>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]]
  return %0, %1, %2, %3 : tensor<2x?xf32>, tensor<2x?xbf16>, tensor<i1>, tensor<2x7xi64>
}

// CHECK-LABEL: func.func @arange
// CHECK-SAME: (%[[S:.*]]: index, %[[I:.*]]: i64)
func.func @arange(%s: index, %i: i64) -> (tensor<4xi64>, tensor<?xf32>, tensor<19xf32>, tensor<0xf32>, tensor<10xf32>, tensor<?xi64>, tensor<8xi64>) {
  // CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
  // CHECK-DAG: %[[C10:.*]] = arith.constant 10 : i64
  // CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i64
  // CHECK-DAG: %[[HALF:.*]] = arith.constant 5.000000e-01 : f64
  // CHECK-DAG: %[[M1:.*]] = arith.constant -1 : i64
  %c0 = arith.constant 0 : i64
  %c10 = arith.constant 10 : i64
  %c3 = arith.constant 3 : i64
  %half = arith.constant 0.5 : f64
  %m1 = arith.constant -1 : i64
  // Constant operands: a static length, ceil((10 - 0) / 3) = 4.
  // CHECK: %[[R0:.*]] = magi.arange %[[C0]], %[[C10]], %[[C3]] {dtype = i64} : (i64, i64, i64) -> tensor<4xi64>
  %0 = magi.arange %c0, %c10, %c3 {dtype = i64} : (i64, i64, i64) -> tensor<4xi64>
  // A symbolic end: the length is `?`.
  // CHECK: %[[R1:.*]] = magi.arange %[[C0]], %[[S]], %[[C3]] {dtype = f32} : (i64, index, i64) -> tensor<?xf32>
  %1 = magi.arange %c0, %s, %c3 {dtype = f32} : (i64, index, i64) -> tensor<?xf32>
  // Floating-point bounds: ceil((10 - 0.5) / 0.5) = 19.
  // CHECK: %[[R2:.*]] = magi.arange %[[HALF]], %[[C10]], %[[HALF]] {dtype = f32} : (f64, i64, f64) -> tensor<19xf32>
  %2 = magi.arange %half, %c10, %half {dtype = f32} : (f64, i64, f64) -> tensor<19xf32>
  // An empty range.
  // CHECK: %[[R3:.*]] = magi.arange %[[C10]], %[[C0]], %[[C3]] {dtype = f32} : (i64, i64, i64) -> tensor<0xf32>
  %3 = magi.arange %c10, %c0, %c3 {dtype = f32} : (i64, i64, i64) -> tensor<0xf32>
  // A negative step.
  // CHECK: %[[R4:.*]] = magi.arange %[[C10]], %[[C0]], %[[M1]] {dtype = f32} : (i64, i64, i64) -> tensor<10xf32>
  %4 = magi.arange %c10, %c0, %m1 {dtype = f32} : (i64, i64, i64) -> tensor<10xf32>
  // A non-constant step.
  // CHECK: %[[R5:.*]] = magi.arange %[[C0]], %[[C10]], %[[I]] {dtype = i64} : (i64, i64, i64) -> tensor<?xi64>
  %5 = magi.arange %c0, %c10, %i {dtype = i64} : (i64, i64, i64) -> tensor<?xi64>
  // A `?` length may be declared static.
  // CHECK: %[[R6:.*]] = magi.arange %[[C0]], %[[S]], %[[I]] {dtype = i64} : (i64, index, i64) -> tensor<8xi64>
  %6 = magi.arange %c0, %s, %i {dtype = i64} : (i64, index, i64) -> tensor<8xi64>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]], %[[R6]]
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xi64>, tensor<?xf32>, tensor<19xf32>, tensor<0xf32>, tensor<10xf32>, tensor<?xi64>, tensor<8xi64>
}
