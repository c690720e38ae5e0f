// magi-fuse-elementwise: producers fuse only into consumers that read each
// produced element once.
// RUN: magi-opt %s --magi-lower-to-linalg=fail-on-unconverted --magi-fuse-elementwise | FileCheck %s

// An elementwise chain is one generic; the reduction takes its elementwise
// prologue (exp) but the matrix product does not take its operand's (relu):
// fused, relu would be recomputed once per output column.
// CHECK-LABEL: func @chains
// CHECK: %[[RELU:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: arith.mulf
// CHECK: arith.maximumf
// CHECK: linalg.matmul ins(%[[RELU]],
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: math.exp
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @chains(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>) -> (tensor<4x3xf32>, tensor<4xf32>) {
  %0 = magi.mul %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = magi.relu %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = magi.mm %1, %w : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %3 = magi.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = magi.sum %3 {dims = array<i64: -1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %2, %4 : tensor<4x3xf32>, tensor<4xf32>
}
