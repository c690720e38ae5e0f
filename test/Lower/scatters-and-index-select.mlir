// slice_scatter and select_scatter lower to tensor.insert_slice into self
// (the slice's offsets and strides; a rank-reducing insert at the wrapped
// index), index_select to one gathering generic; with a symbolic size they
// compile through PTX and ptxas. The lowered code computes what the
// interpreter does.
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" | FileCheck %s --check-prefix=IR
// RUN: magi-interp %s --function=main | FileCheck %s
// RUN: magi-interp %s --function=main --lowered-pieces | FileCheck %s
// RUN: magi-interp %s --function=select_rows | FileCheck %s --check-prefix=SELECT
// RUN: magi-interp %s --function=select_rows --lowered-pieces | FileCheck %s --check-prefix=SELECT
// RUN: magi-compile %S/Inputs/scatter-select-graph.mlir -o %t --cache-mode=off --no-cubin | FileCheck %s --check-prefix=COMPILE

// IR-LABEL: func.func @main
// IR: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [2, 3] [2, 1] : tensor<2x3xf32> into tensor<4x3xf32>
// IR: tensor.insert_slice %{{.*}} into %{{.*}}[0, 2] [4, 1] [1, 1] : tensor<4xf32> into tensor<4x3xf32>
// IR-LABEL: func.func @select_rows
// IR: linalg.generic
// IR: tensor.extract

// CHECK:      out0: tensor<4x3xf32> = {{\[}}[1, 2, 3], [0, 0, 0], [4, 5, 6], [0, 0, 0]]
// CHECK-NEXT: out1: tensor<4x3xf32> = {{\[}}[0, 0, 7], [0, 0, 8], [0, 0, 9], [0, 0, 10]]
// CHECK-NEXT: out2: tensor<4x3xi64> = {{\[}}[1, 1, 1], [1, 1, 1], [-1, -2, -3], [1, 1, 1]]
// CHECK-NEXT: out3: tensor<4x3xf32> = {{\[}}[0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]

// SELECT:      out0: tensor<2x3xf32> = {{\[}}[7, 8, 9], [1, 2, 3]]
// SELECT-NEXT: out1: tensor<3x1xf32> = {{\[}}[3], [6], [9]]
// SELECT-NEXT: out2: tensor<3x4xi64> = {{\[}}[1, 1, 3, 2], [4, 4, 6, 5], [7, 7, 9, 8]]

// COMPILE: 1 pieces, {{[0-9]+}} kernels
func.func @main() -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xi64>, tensor<4x3xf32>) {
  %x = magi.constant dense<0.0> : tensor<4x3xf32>
  %i = magi.constant dense<1> : tensor<4x3xi64>
  %s = magi.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %c = magi.constant dense<[7.0, 8.0, 9.0, 10.0]> : tensor<4xf32>
  %r = magi.constant dense<[-1, -2, -3]> : tensor<3xi64>
  %e = magi.constant dense<0.0> : tensor<0x3xf32>
  %a = magi.slice_scatter %x, %s, 0 [0, 4, 2] : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %b = magi.select_scatter %x, %c, 1 [-1] : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  %d = magi.select_scatter %i, %r, 0 [2] : (tensor<4x3xi64>, tensor<3xi64>) -> tensor<4x3xi64>
  %f = magi.slice_scatter %x, %e, 0 [9, 12, 1] : (tensor<4x3xf32>, tensor<0x3xf32>) -> tensor<4x3xf32>
  return %a, %b, %d, %f : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xi64>, tensor<4x3xf32>
}
func.func @select_rows() -> (tensor<2x3xf32>, tensor<3x1xf32>, tensor<3x4xi64>) {
  %x = magi.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]> : tensor<3x3xf32>
  %i = magi.constant dense<[2, -3]> : tensor<2xi64>
  %j = magi.constant dense<-1> : tensor<i64>
  %k = magi.constant dense<[0, 0, 2, 1]> : tensor<4xi32>
  %xi = magi.constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9]]> : tensor<3x3xi64>
  %a = magi.index_select %x, %i {dim = 0 : i64} : (tensor<3x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %b = magi.index_select %x, %j {dim = 1 : i64} : (tensor<3x3xf32>, tensor<i64>) -> tensor<3x1xf32>
  %c = magi.index_select %xi, %k {dim = -1 : i64} : (tensor<3x3xi64>, tensor<4xi32>) -> tensor<3x4xi64>
  return %a, %b, %c : tensor<2x3xf32>, tensor<3x1xf32>, tensor<3x4xi64>
}
