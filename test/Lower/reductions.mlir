// RUN: magi-opt %s --magi-lower-to-linalg | FileCheck %s

// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1) -> (d0)>

// sum over the last dimension, keepdim: fill, reduce, expand.
// CHECK-LABEL: func.func @sum_keepdim
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
// CHECK: %[[Z:.*]] = arith.constant 0.0{{.*}} : f32
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<?xf32>) -> tensor<?xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<?x8xf32>) outs(%[[F]] : tensor<?xf32>)
// CHECK:   arith.addf
// CHECK: tensor.expand_shape %[[R]] {{\[}}[0, 1]] output_shape [%{{.*}}, 1] : tensor<?xf32> into tensor<?x1xf32>
func.func @sum_keepdim(%x: tensor<?x8xf32>) -> tensor<?x1xf32> {
  %0 = magi.sum %x {dims = array<i64: -1>, keepdim = true} : (tensor<?x8xf32>) -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}

// mean of bf16 accumulates in f32, divides by the count, truncates once.
// CHECK-LABEL: func.func @mean_bf16
// CHECK: linalg.fill ins(%{{.*}} : f32)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:   arith.extf %{{.*}} : bf16 to f32
// CHECK:   arith.addf
// CHECK: linalg.generic
// CHECK:   %[[N:.*]] = arith.sitofp %{{.*}} : i64 to f32
// CHECK:   %[[Q:.*]] = arith.divf %{{.*}}, %[[N]] : f32
// CHECK:   arith.truncf %[[Q]] : f32 to bf16
// CHECK-NOT: tensor.expand_shape
func.func @mean_bf16(%x: tensor<4x8xbf16>) -> tensor<4xbf16> {
  %0 = magi.mean %x {dims = array<i64: 1>} : (tensor<4x8xbf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// amax starts from -inf.
// CHECK-LABEL: func.func @amax_all
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]
// CHECK:   arith.maximumf
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
func.func @amax_all(%x: tensor<4x8xf32>) -> tensor<1x1xf32> {
  %0 = magi.amax %x {keepdim = true} : (tensor<4x8xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// cumsum: a second loop over the scanned dim adds x[k] where k <= j, else
// 0 (a plain sum). Booleans along a static dim count in i32, widened at
// the end; along a dynamic dim they count in the result's i64.
// CHECK-LABEL: func.func @cumsum_bool
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:   %[[X:.*]] = arith.extui %{{.*}} : i1 to i32
// CHECK:   %[[IN:.*]] = arith.cmpi ule
// CHECK:   %[[T:.*]] = arith.select %[[IN]], %[[X]], %{{.*}} : i32
// CHECK:   arith.addi %{{.*}}, %[[T]] : i32
// CHECK: arith.extsi %{{.*}} : i32 to i64
func.func @cumsum_bool(%x: tensor<1x4096xi1>) -> tensor<1x4096xi64> {
  %0 = magi.cumsum %x {dim = -1 : i64} : (tensor<1x4096xi1>) -> tensor<1x4096xi64>
  return %0 : tensor<1x4096xi64>
}

// CHECK-LABEL: func.func @cumsum_bool_dynamic
// CHECK: linalg.generic
// CHECK:   arith.extui %{{.*}} : i1 to i64
// CHECK:   arith.addi %{{.*}}, %{{.*}} : i64
// CHECK-NOT: arith.extsi
func.func @cumsum_bool_dynamic(%x: tensor<1x?xi1>) -> tensor<1x?xi64> {
  %0 = magi.cumsum %x {dim = 1 : i64} : (tensor<1x?xi1>) -> tensor<1x?xi64>
  return %0 : tensor<1x?xi64>
}

// A float cumsum adds the selected term too (acc + select(k <= j, x, 0)).
// CHECK-LABEL: func.func @cumsum_f32
// CHECK: linalg.generic
// CHECK:   %[[T:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK:   arith.addf %{{.*}}, %[[T]] : f32
func.func @cumsum_f32(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = magi.cumsum %x {dim = 1 : i64} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
