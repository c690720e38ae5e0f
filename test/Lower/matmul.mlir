// RUN: magi-opt %s --magi-lower-to-linalg | FileCheck %s

// Maps of the transposed product below.
// CHECK-DAG: #[[$MA:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$MBT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$MC:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>

// CHECK-LABEL: func.func @mm
// CHECK-SAME: (%[[A:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<4x16xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x4xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x16xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x16xf32>)
// CHECK: linalg.matmul ins(%[[A]], %[[B]] : tensor<?x4xf32>, tensor<4x16xf32>) outs(%[[F]] : tensor<?x16xf32>)
func.func @mm(%a: tensor<?x4xf32>, %b: tensor<4x16xf32>) -> tensor<?x16xf32> {
  %0 = magi.mm %a, %b : (tensor<?x4xf32>, tensor<4x16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// A transposed operand: a generic with the transposed map.
// CHECK-LABEL: func.func @mm_transposed_bf16
// CHECK: linalg.generic {indexing_maps = [#[[$MA]], #[[$MBT]], #[[$MC]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:   arith.extf %{{.*}} : bf16 to f32
// CHECK:   arith.extf %{{.*}} : bf16 to f32
// CHECK:   arith.mulf
// CHECK:   arith.addf
// CHECK: linalg.generic
// CHECK:   arith.truncf %{{.*}} : f32 to bf16
func.func @mm_transposed_bf16(%a: tensor<8x4xbf16>, %w: tensor<16x4xbf16>) -> tensor<8x16xbf16> {
  %0 = magi.mm %a, %w {transpose_mat2} : (tensor<8x4xbf16>, tensor<16x4xbf16>) -> tensor<8x16xbf16>
  return %0 : tensor<8x16xbf16>
}

// bf16 batch matmul accumulates in f32 (the named op casts its operands).
// CHECK-LABEL: func.func @bmm_bf16
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x8x16xf32>)
// CHECK: %[[P:.*]] = linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x8x4xbf16>, tensor<2x4x16xbf16>) outs(%[[F]] : tensor<2x8x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[P]] : tensor<2x8x16xf32>)
// CHECK:   arith.truncf %{{.*}} : f32 to bf16
func.func @bmm_bf16(%a: tensor<2x8x4xbf16>, %b: tensor<2x4x16xbf16>) -> tensor<2x8x16xbf16> {
  %0 = magi.bmm %a, %b : (tensor<2x8x4xbf16>, tensor<2x4x16xbf16>) -> tensor<2x8x16xbf16>
  return %0 : tensor<2x8x16xbf16>
}
