// RUN: magi-opt %s | FileCheck %s
// RUN: magi-opt %s | magi-opt | FileCheck %s
// RUN: magi-opt %s -emit-bytecode | magi-opt | FileCheck %s
// RUN: magi-opt %s --verify-roundtrip | FileCheck %s

// Positive tests for the matrix products: magi.mm, magi.bmm, magi.addmm.

// CHECK-LABEL: func.func @mm
// CHECK-SAME: (%[[A:.*]]: tensor<?x64xbf16>, %[[B:.*]]: tensor<64x128xbf16>, %[[C:.*]]: tensor<3x?xf32>, %[[D:.*]]: tensor<?x5xf32>)
func.func @mm(%a: tensor<?x64xbf16>, %b: tensor<64x128xbf16>, %c: tensor<3x?xf32>, %d: tensor<?x5xf32>) {
  // CHECK: magi.mm %[[A]], %[[B]] : (tensor<?x64xbf16>, tensor<64x128xbf16>) -> tensor<?x128xbf16>
  %0 = magi.mm %a, %b : (tensor<?x64xbf16>, tensor<64x128xbf16>) -> tensor<?x128xbf16>
  // Dynamic contraction sizes are accepted.
  // CHECK: magi.mm %[[C]], %[[D]] : (tensor<3x?xf32>, tensor<?x5xf32>) -> tensor<3x5xf32>
  %1 = magi.mm %c, %d : (tensor<3x?xf32>, tensor<?x5xf32>) -> tensor<3x5xf32>
  // A dynamic row count may be declared static.
  // CHECK: magi.mm %[[A]], %[[B]] : (tensor<?x64xbf16>, tensor<64x128xbf16>) -> tensor<8x128xbf16>
  %2 = magi.mm %a, %b : (tensor<?x64xbf16>, tensor<64x128xbf16>) -> tensor<8x128xbf16>
  return
}

// CHECK-LABEL: func.func @bmm
// CHECK-SAME: (%[[A:.*]]: tensor<4x?x16xf16>, %[[B:.*]]: tensor<4x16x8xf16>, %[[C:.*]]: tensor<?x2x3xf32>, %[[D:.*]]: tensor<6x3x?xf32>)
func.func @bmm(%a: tensor<4x?x16xf16>, %b: tensor<4x16x8xf16>, %c: tensor<?x2x3xf32>, %d: tensor<6x3x?xf32>) {
  // CHECK: magi.bmm %[[A]], %[[B]] : (tensor<4x?x16xf16>, tensor<4x16x8xf16>) -> tensor<4x?x8xf16>
  %0 = magi.bmm %a, %b : (tensor<4x?x16xf16>, tensor<4x16x8xf16>) -> tensor<4x?x8xf16>
  // A dynamic batch size is resolved by a static one.
  // CHECK: magi.bmm %[[C]], %[[D]] : (tensor<?x2x3xf32>, tensor<6x3x?xf32>) -> tensor<6x2x?xf32>
  %1 = magi.bmm %c, %d : (tensor<?x2x3xf32>, tensor<6x3x?xf32>) -> tensor<6x2x?xf32>
  return
}

// CHECK-LABEL: func.func @addmm
// CHECK-SAME: (%[[BIAS:.*]]: tensor<128xbf16>, %[[A:.*]]: tensor<?x64xbf16>, %[[W:.*]]: tensor<64x128xbf16>, %[[FULL:.*]]: tensor<?x128xbf16>, %[[COL:.*]]: tensor<1x1xbf16>)
func.func @addmm(%bias: tensor<128xbf16>, %a: tensor<?x64xbf16>, %w: tensor<64x128xbf16>,
                 %full: tensor<?x128xbf16>, %col: tensor<1x1xbf16>) {
  // The linear layer: a 1-d bias broadcast over rows. Default beta and alpha
  // (1.0) are not printed.
  // CHECK: magi.addmm %[[BIAS]], %[[A]], %[[W]] : (tensor<128xbf16>, tensor<?x64xbf16>, tensor<64x128xbf16>) -> tensor<?x128xbf16>
  %0 = magi.addmm %bias, %a, %w : (tensor<128xbf16>, tensor<?x64xbf16>, tensor<64x128xbf16>) -> tensor<?x128xbf16>
  // CHECK: magi.addmm %[[FULL]], %[[A]], %[[W]] {alpha = 2.000000e+00 : f64, beta = 5.000000e-01 : f64} : (tensor<?x128xbf16>, tensor<?x64xbf16>, tensor<64x128xbf16>) -> tensor<?x128xbf16>
  %1 = magi.addmm %full, %a, %w {beta = 0.5, alpha = 2.0} : (tensor<?x128xbf16>, tensor<?x64xbf16>, tensor<64x128xbf16>) -> tensor<?x128xbf16>
  // CHECK: magi.addmm %[[COL]], %[[A]], %[[W]] : (tensor<1x1xbf16>, tensor<?x64xbf16>, tensor<64x128xbf16>) -> tensor<?x128xbf16>
  %2 = magi.addmm %col, %a, %w : (tensor<1x1xbf16>, tensor<?x64xbf16>, tensor<64x128xbf16>) -> tensor<?x128xbf16>
  return
}

// CHECK-LABEL: func.func @grouped_mm
func.func @grouped_mm(%a: tensor<?x64xbf16>, %b: tensor<8x64x128xbf16>, %bt: tensor<8x128x64xbf16>, %offs: tensor<8xi32>) {
  // CHECK: magi.grouped_mm %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x64xbf16>, tensor<8x64x128xbf16>, tensor<8xi32>) -> tensor<?x128xbf16>
  %0 = magi.grouped_mm %a, %b, %offs : (tensor<?x64xbf16>, tensor<8x64x128xbf16>, tensor<8xi32>) -> tensor<?x128xbf16>
  // CHECK: magi.grouped_mm %{{.*}}, %{{.*}}, %{{.*}} {transpose_mat2} : (tensor<?x64xbf16>, tensor<8x128x64xbf16>, tensor<8xi32>) -> tensor<?x128xbf16>
  %1 = magi.grouped_mm %a, %bt, %offs {transpose_mat2} : (tensor<?x64xbf16>, tensor<8x128x64xbf16>, tensor<8xi32>) -> tensor<?x128xbf16>
  return
}
