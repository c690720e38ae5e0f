// amin, all and prod lower as the other reductions do (a fill of the
// identity, one reduction generic, a rounding generic for half types):
// amin from +inf (the largest integer; true for bools, with `and`), all as
// `and` of the values as bools, prod from 1 (integers and bools multiply in
// int64). The lowered code computes what the interpreter does.
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" | FileCheck %s --check-prefix=IR
// RUN: magi-interp %s | FileCheck %s
// RUN: magi-interp %s --lowered-pieces | FileCheck %s
// RUN: magi-compile %S/Inputs/reductions-graph.mlir -o %t --cache-mode=off --no-cubin | FileCheck %s --check-prefix=COMPILE

// IR-LABEL: func.func @main
// IR-DAG: arith.constant 0x7F800000 : f32
// IR-DAG: arith.constant 9223372036854775807 : i64
// IR: arith.minimumf
// IR: arith.minsi
// IR: arith.andi
// IR: arith.mulf
// IR: arith.muli

// CHECK:      out0: tensor<3xf32> = [0.5, -2, -1]
// CHECK-NEXT: out1: tensor<2xi64> = [-7, 1]
// CHECK-NEXT: out2: tensor<i1> = false
// CHECK-NEXT: out3: tensor<2x1xi1> = {{\[}}[true], [true]]
// CHECK-NEXT: out4: tensor<3xf32> = [0.75, -8, -3]
// CHECK-NEXT: out5: tensor<2xi64> = [-42, 45]
// CHECK-NEXT: out6: tensor<2xbf16> = [-9, -2]
// CHECK-NEXT: out7: tensor<i64> = 0
// CHECK-NEXT: out8: tensor<i1> = false

// COMPILE: 1 pieces, {{[0-9]+}} kernels
func.func @main() -> (tensor<3xf32>, tensor<2xi64>, tensor<i1>, tensor<2x1xi1>, tensor<3xf32>, tensor<2xi64>, tensor<2xbf16>, tensor<i64>, tensor<i1>) {
  %x = magi.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]]> : tensor<2x3xf32>
  %i = magi.constant dense<[[3, -7, 2], [5, 1, 9]]> : tensor<2x3xi64>
  %b = magi.constant dense<[[true, false, true], [true, true, true]]> : tensor<2x3xi1>
  %h = magi.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]]> : tensor<2x3xbf16>
  %a0 = magi.amin %x {dims = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  %a1 = magi.amin %i {dims = array<i64: 1>} : (tensor<2x3xi64>) -> tensor<2xi64>
  %a2 = magi.all %b : (tensor<2x3xi1>) -> tensor<i1>
  %a3 = magi.all %x {dims = array<i64: 1>, keepdim = true} : (tensor<2x3xf32>) -> tensor<2x1xi1>
  %p0 = magi.prod %x {dims = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  %p1 = magi.prod %i {dims = array<i64: 1>} : (tensor<2x3xi64>) -> tensor<2xi64>
  %p2 = magi.prod %h {dims = array<i64: 1>} : (tensor<2x3xbf16>) -> tensor<2xbf16>
  %p3 = magi.prod %b : (tensor<2x3xi1>) -> tensor<i64>
  %a4 = magi.amin %b : (tensor<2x3xi1>) -> tensor<i1>
  return %a0, %a1, %a2, %a3, %p0, %p1, %p2, %p3, %a4 : tensor<3xf32>, tensor<2xi64>, tensor<i1>, tensor<2x1xi1>, tensor<3xf32>, tensor<2xi64>, tensor<2xbf16>, tensor<i64>, tensor<i1>
}
