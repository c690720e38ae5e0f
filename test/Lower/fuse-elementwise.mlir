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

// A projection's rounding stays next to its product (the library call takes
// it over), and the head transpose that RoPE reads at d and at d ± half fuses
// into it: RoPE reads the rounded projection through the reshape, twice.
// CHECK-LABEL: func @projection_then_rope
// CHECK: %[[P:.*]] = linalg.generic {{.*}}"reduction"
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[P]] :
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.truncf
// CHECK: %[[V:.*]] = tensor.expand_shape %[[R]]
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {{.*}} ins(%[[V]], %{{.*}}, %{{.*}}, %[[V]] :
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @projection_then_rope(%x: tensor<4x64xbf16>, %w: tensor<64x64xbf16>, %c: tensor<1x1x4x16xbf16>, %s: tensor<1x1x4x16xbf16>) -> tensor<1x4x4x16xbf16> {
  %0 = magi.mm %x, %w {transpose_mat2} : (tensor<4x64xbf16>, tensor<64x64xbf16>) -> tensor<4x64xbf16>
  %1 = magi.view %0 [1, 4, 4, 16] : tensor<4x64xbf16> -> tensor<1x4x4x16xbf16>
  %2 = magi.permute %1 {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x16xbf16>) -> tensor<1x4x4x16xbf16>
  %3 = magi.rotary_embedding %2, %c, %s : (tensor<1x4x4x16xbf16>, tensor<1x1x4x16xbf16>, tensor<1x1x4x16xbf16>) -> tensor<1x4x4x16xbf16>
  return %3 : tensor<1x4x4x16xbf16>
}

// A producer that computes (exp) and is read twice by one consumer is kept:
// fused, it would be computed twice. A transpose the function returns stays
// a named transpose.
// CHECK-LABEL: func @computed_twice
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: linalg.transpose
func.func @computed_twice(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = magi.exp %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = magi.permute %0 {dims = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = magi.add %0, %1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %3 = magi.permute %x {dims = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %2, %3 : tensor<4x4xf32>, tensor<4x4xf32>
}
