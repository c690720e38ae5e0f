// tril/triu, flip and repeat lower to one generic each: the triangle a
// select on (column - row) against the diagonal, flip and repeat gathers
// (tensor.extract at size - 1 - index, and at index mod size). The lowered
// code computes what the interpreter does; with a symbolic size they
// compile through PTX and ptxas.
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" | FileCheck %s --check-prefix=IR
// RUN: magi-interp %s | FileCheck %s
// RUN: magi-interp %s --lowered-pieces | FileCheck %s
// RUN: magi-compile %S/Inputs/shape-ops-graph.mlir -o %t --cache-mode=off --no-cubin | FileCheck %s --check-prefix=COMPILE

// IR-LABEL: func.func @main
// IR: linalg.generic
// IR: arith.cmpi sle
// IR: linalg.generic
// IR: arith.cmpi sge
// IR: linalg.generic
// IR: tensor.extract
// IR: linalg.generic
// IR: arith.remui
// IR: tensor.extract

// CHECK:      out0: tensor<3x4xf32> = {{\[}}[1, 2, 0, 0], [5, 6, 7, 0], [9, 10, 11, 12]]
// CHECK-NEXT: out1: tensor<3x4xi64> = {{\[}}[1, 2, 3, 4], [5, 6, 7, 8], [0, 10, 11, 12]]
// CHECK-NEXT: out2: tensor<2x3xf32> = {{\[}}[6, 5, 4], [3, 2, 1]]
// CHECK-NEXT: out3: tensor<2x4x3xf32> = {{\[}}{{\[}}[1, 2, 3], [4, 5, 6], [1, 2, 3], [4, 5, 6]], {{\[}}[1, 2, 3], [4, 5, 6], [1, 2, 3], [4, 5, 6]]]
// CHECK-NEXT: out4: tensor<2x3xbf16> = {{\[}}[3, 2, 1], [6, 5, 4]]

// COMPILE: 1 pieces, 1 kernels
func.func @main() -> (tensor<3x4xf32>, tensor<3x4xi64>, tensor<2x3xf32>, tensor<2x4x3xf32>, tensor<2x3xbf16>) {
  %x = magi.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %i = magi.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]> : tensor<3x4xi64>
  %y = magi.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %h = magi.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xbf16>
  %l = magi.tril %x {diagonal = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %u = magi.triu %i {diagonal = -1 : i64} : (tensor<3x4xi64>) -> tensor<3x4xi64>
  %f = magi.flip %y {dims = array<i64: 0, -1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = magi.repeat %y {repeats = array<i64: 2, 2, 1>} : (tensor<2x3xf32>) -> tensor<2x4x3xf32>
  %f2 = magi.flip %h {dims = array<i64: 1>} : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
  return %l, %u, %f, %r, %f2 : tensor<3x4xf32>, tensor<3x4xi64>, tensor<2x3xf32>, tensor<2x4x3xf32>, tensor<2x3xbf16>
}
