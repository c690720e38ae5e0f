// sort and topk lower to two generics, quadratic in the sorted size (as
// routers sort a handful of experts): the first counts the elements that
// precede each one in the interpreter's stable order (NaN above every
// number; equal elements keep their index order), its position; the second
// fills each kept position with its element and index. On the GPU both are
// serial reductions. The lowered code computes what the interpreter does.
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" | FileCheck %s --check-prefix=IR
// RUN: magi-interp %s | FileCheck %s
// RUN: magi-interp %s --lowered-pieces | FileCheck %s
// RUN: magi-compile %S/Inputs/topk-graph.mlir -o %t --cache-mode=off --no-cubin | FileCheck %s --check-prefix=COMPILE

// IR-LABEL: func.func @main
// IR: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// IR: arith.cmpf uno
// IR: arith.addi
// IR: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// IR: arith.cmpi eq
// IR-NOT: magi.sort

// CHECK:      out0: tensor<2x5xf32> = {{\[}}[-1, 2, 3, 3, nan], [-2, -2, 0, 5, 5]]
// CHECK-NEXT: out1: tensor<2x5xi64> = {{\[}}[2, 4, 0, 3, 1], [1, 4, 3, 0, 2]]
// CHECK-NEXT: out2: tensor<2x5xf32> = {{\[}}[nan, 3, 3, 2, -1], [5, 5, 0, -2, -2]]
// CHECK-NEXT: out3: tensor<2x5xi64> = {{\[}}[1, 0, 3, 4, 2], [0, 2, 3, 1, 4]]
// CHECK-NEXT: out4: tensor<2x2xf32> = {{\[}}[nan, 3], [5, 5]]
// CHECK-NEXT: out5: tensor<2x2xi64> = {{\[}}[1, 0], [0, 2]]
// CHECK-NEXT: out6: tensor<2x3xi64> = {{\[}}[-1, 4, 7], [-9, 2, 2]]
// CHECK-NEXT: out7: tensor<2x3xi64> = {{\[}}[1, 0, 2], [2, 0, 1]]
// CHECK-NEXT: out8: tensor<1x5xbf16> = {{\[}}[3, 1.5, 1.5, 0, -2]]
// CHECK-NEXT: out9: tensor<1x5xi64> = {{\[}}[2, 0, 3, 4, 1]]
// CHECK-NEXT: out10: tensor<2x5xi64> = {{\[}}[0, 1, 0, 1, 1], [1, 0, 1, 0, 0]]

// COMPILE: 1 pieces, {{[0-9]+}} kernels
func.func @main() -> (tensor<2x5xf32>, tensor<2x5xi64>, tensor<2x5xf32>, tensor<2x5xi64>, tensor<2x2xf32>, tensor<2x2xi64>, tensor<2x3xi64>, tensor<2x3xi64>, tensor<1x5xbf16>, tensor<1x5xi64>, tensor<2x5xi64>) {
  %x = magi.constant dense<[[3.0, 0x7FC00000, -1.0, 3.0, 2.0], [5.0, -2.0, 5.0, 0.0, -2.0]]> : tensor<2x5xf32>
  %i = magi.constant dense<[[4, -1, 7], [2, 2, -9]]> : tensor<2x3xi64>
  %h = magi.constant dense<[[1.5, -2.0, 3.0, 1.5, 0.0]]> : tensor<1x5xbf16>
  %a:2 = magi.sort %x {dim = 1 : i64} : (tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xi64>)
  %b:2 = magi.sort %x {dim = -1 : i64, descending = true} : (tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xi64>)
  %c:2 = magi.topk %x {k = 2 : i64} : (tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
  %d:2 = magi.topk %i {k = 3 : i64, largest = false} : (tensor<2x3xi64>) -> (tensor<2x3xi64>, tensor<2x3xi64>)
  %e:2 = magi.sort %h {descending = true} : (tensor<1x5xbf16>) -> (tensor<1x5xbf16>, tensor<1x5xi64>)
  %f:2 = magi.sort %x {dim = 0 : i64} : (tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xi64>)
  return %a#0, %a#1, %b#0, %b#1, %c#0, %c#1, %d#0, %d#1, %e#0, %e#1, %f#1 : tensor<2x5xf32>, tensor<2x5xi64>, tensor<2x5xf32>, tensor<2x5xi64>, tensor<2x2xf32>, tensor<2x2xi64>, tensor<2x3xi64>, tensor<2x3xi64>, tensor<1x5xbf16>, tensor<1x5xi64>, tensor<2x5xi64>
}
