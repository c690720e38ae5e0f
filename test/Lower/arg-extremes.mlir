// max_dim/min_dim and argmax/argmin lower to one reduction generic in index
// order with two accumulators (the best value, in the input's dtype, and
// its index): strictly better replaces, the first NaN wins and stays, ties
// keep the first index; argmax/argmin without a dim reduce the collapsed
// tensor. On the GPU that reduction is a serial one (one thread a row),
// which keeps the order. The lowered code computes what the interpreter
// does.
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" | FileCheck %s --check-prefix=IR
// RUN: magi-interp %s | FileCheck %s
// RUN: magi-interp %s --lowered-pieces | FileCheck %s
// RUN: magi-compile %S/Inputs/argmax-graph.mlir -o %t --cache-mode=off --no-cubin | FileCheck %s --check-prefix=COMPILE
// RUN: grep -c '"strategy": "serial-reduction"' %t/manifest.json | FileCheck %s --check-prefix=SERIAL

// IR-LABEL: func.func @main
// IR: linalg.generic
// IR: arith.cmpf ogt
// IR: arith.cmpf uno
// IR: linalg.index
// IR: tensor.collapse_shape
// IR-NOT: magi.argmax

// CHECK:      out0: tensor<2xf32> = [4, nan]
// CHECK-NEXT: out1: tensor<2xi64> = [1, 0]
// CHECK-NEXT: out2: tensor<3x1xi64> = {{\[}}[2], [1], [2]]
// CHECK-NEXT: out3: tensor<i64> = 6
// CHECK-NEXT: out4: tensor<1x1xi64> = {{\[}}[1]]
// CHECK-NEXT: out5: tensor<3xi64> = [1, 1, 1]
// CHECK-NEXT: out6: tensor<2xbf16> = [-2, -1]
// CHECK-NEXT: out7: tensor<2xi64> = [1, 2]
// CHECK-NEXT: out8: tensor<3xi64> = [0, 0, 0]
// CHECK-NEXT: out9: tensor<i64> = 0

// COMPILE: 1 pieces, {{[0-9]+}} kernels
// SERIAL: {{[1-9]}}
func.func @main() -> (tensor<2xf32>, tensor<2xi64>, tensor<3x1xi64>, tensor<i64>, tensor<1x1xi64>, tensor<3xi64>, tensor<2xbf16>, tensor<2xi64>, tensor<3xi64>, tensor<i64>) {
  %x = magi.constant dense<[[1.5, 4.0, 4.0], [0x7FC00000, 4.0, 0x7FC00000]]> : tensor<2x3xf32>
  %y = magi.constant dense<[[1.5, 4.0, -4.0], [0.5, -2.0, 3.0], [7.0, 7.0, -9.0]]> : tensor<3x3xf32>
  %i = magi.constant dense<[[3, -7, 2], [5, 1, 9], [-7, 0, 9]]> : tensor<3x3xi64>
  %h = magi.constant dense<[[1.5, -2.0, -2.0], [0.5, 4.0, -1.0]]> : tensor<2x3xbf16>
  %b = magi.constant dense<[[false, true, true], [false, false, false]]> : tensor<2x3xi1>
  %v:2 = magi.max_dim %x {dim = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  %a1 = magi.argmin %y {dim = 1 : i64, keepdim = true} : (tensor<3x3xf32>) -> tensor<3x1xi64>
  %a2 = magi.argmax %y : (tensor<3x3xf32>) -> tensor<i64>
  %a3 = magi.argmin %i {keepdim = true} : (tensor<3x3xi64>) -> tensor<1x1xi64>
  %a4 = magi.argmax %i {dim = 0 : i64} : (tensor<3x3xi64>) -> tensor<3xi64>
  %w:2 = magi.min_dim %h {dim = -1 : i64} : (tensor<2x3xbf16>) -> (tensor<2xbf16>, tensor<2xi64>)
  %a5 = magi.argmax %b {dim = 0 : i64} : (tensor<2x3xi1>) -> tensor<3xi64>
  %a6 = magi.argmin %b : (tensor<2x3xi1>) -> tensor<i64>
  return %v#0, %v#1, %a1, %a2, %a3, %a4, %w#0, %w#1, %a5, %a6 : tensor<2xf32>, tensor<2xi64>, tensor<3x1xi64>, tensor<i64>, tensor<1x1xi64>, tensor<3xi64>, tensor<2xbf16>, tensor<2xi64>, tensor<3xi64>, tensor<i64>
}
