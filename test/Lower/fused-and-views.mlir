// RUN: magi-opt %s --magi-lower-to-linalg=fail-on-unconverted | FileCheck %s

// The fused ops lower to few top-level linalg ops (each one kernel later).

// CHECK-DAG: #[[$KV:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 2, d3, d4)>

// rms_norm: one reduction (sum of squares in f32) and one elementwise generic.
// CHECK-LABEL: func.func @rms_norm
// CHECK: linalg.fill ins(%{{.*}} : f32)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}outs(%{{.*}} : tensor<1x?xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]{{.*}}ins(%{{.*}} : tensor<1x?x128xbf16>, tensor<1x?xf32>, tensor<128xbf16>)
// CHECK: linalg.yield %{{.*}} : bf16
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @rms_norm(%x: tensor<1x?x128xbf16>, %w: tensor<128xbf16>) -> tensor<1x?x128xbf16> {
  %0 = magi.rms_norm %x weight %w {eps = 1.0E-6 : f64} : (tensor<1x?x128xbf16>, tensor<128xbf16>) -> tensor<1x?x128xbf16>
  return %0 : tensor<1x?x128xbf16>
}

// attention: scores (reduction over E, the kv head is h floordiv 2), the row
// max, the row sum of exp, the probabilities rounded to bf16, their product
// with V (reduction over S), and the normalization.
// CHECK-LABEL: func.func @attention
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$KV]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: math.exp
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK: math.exp
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.extf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK: arith.divf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @attention(%q: tensor<1x4x?x32xbf16>, %k: tensor<1x2x?x32xbf16>, %v: tensor<1x2x?x32xbf16>, %m: tensor<1x4x?x?xbf16>) -> tensor<1x4x?x32xbf16> {
  %0 = magi.attention %q, %k, %v mask %m {scale = 0.17677669529663689 : f64} : (tensor<1x4x?x32xbf16>, tensor<1x2x?x32xbf16>, tensor<1x2x?x32xbf16>, tensor<1x4x?x?xbf16>) -> tensor<1x4x?x32xbf16>
  return %0 : tensor<1x4x?x32xbf16>
}

// Views whose groups follow from the static sizes are reshapes, with the
// symbolic size as the output shape.
// CHECK-LABEL: func.func @views
// CHECK-SAME: (%[[X:.*]]: tensor<?x128xf32>, %[[N:.*]]: index)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1], [2, 3]] output_shape [1, %[[N]], 4, 32] : tensor<?x128xf32> into tensor<1x?x4x32xf32>
// CHECK: tensor.collapse_shape %[[E]] {{\[\[}}0, 1], [2, 3]] : tensor<1x?x4x32xf32> into tensor<?x128xf32>
// CHECK-NOT: linalg
func.func @views(%x: tensor<?x128xf32>, %n: index) -> tensor<?x128xf32> {
  %0 = magi.view %x [1, %n, -1, 32] : tensor<?x128xf32> -> tensor<1x?x4x32xf32>
  %1 = magi.view %0 [%n, 128] : tensor<1x?x4x32xf32> -> tensor<?x128xf32>
  return %1 : tensor<?x128xf32>
}

// One group with one dynamic size on each side is a collapse and an
// expand (the whole tensors have equal sizes, so the group's do).
// CHECK-LABEL: func.func @view_one_dynamic
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]]
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [%{{.*}}, 8]
func.func @view_one_dynamic(%x: tensor<?x4xf32>, %a: index) -> tensor<?x8xf32> {
  %0 = magi.view %x [%a, 8] : tensor<?x4xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// An expand of two dynamic sizes in one group gathers instead: LLVM 22's
// expand-strided-metadata crashes on such an expand_shape
// (llvm/llvm-project#186830).
// CHECK-LABEL: func.func @view_dynamic
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic
// CHECK: tensor.extract
func.func @view_dynamic(%x: tensor<?x?xf32>, %a: index, %b: index) -> tensor<?x?xf32> {
  %0 = magi.view %x [%a, %b] : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// A view whose groups the static sizes do not determine gathers: result
// element i reads source element i (row-major) in the body.
// CHECK-LABEL: func.func @view_gather
// CHECK: linalg.generic
// CHECK: linalg.index
// CHECK: tensor.extract
func.func @view_gather(%x: tensor<?xf32>) -> tensor<2x4xf32> {
  %0 = magi.view %x [2, 4] : tensor<?xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// Symbolic integers become index arithmetic. Python's %: the remainder,
// plus the divisor when their signs differ; a divisor of 0 or -1 is never
// divided by (x86 traps on INT64_MIN rem -1). Selects and comparisons only,
// which launch plans carry.
// CHECK-LABEL: func.func @symbols
// CHECK-SAME: (%{{.*}}: tensor<?x4xf32>, %[[K:.*]]: index)
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x4xf32>
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[K]], %c0
// CHECK: %[[M:.*]] = arith.cmpi eq, %[[K]], %c-1
// CHECK: %[[B1:.*]] = arith.select %[[M]], %c1, %[[K]]
// CHECK: %[[B:.*]] = arith.select %[[Z]], %c1, %[[B1]]
// CHECK: %[[R:.*]] = arith.remsi %[[D]], %[[B]] : index
// CHECK: %[[SUM:.*]] = arith.addi %[[R]], %[[B]]
// CHECK-NOT: arith.andi
// CHECK-NOT: arith.xori
// CHECK: return
// CHECK-NOT: magi.
func.func @symbols(%x: tensor<?x4xf32>, %k: index) -> index {
  %0 = magi.sym_size %x, 0 : tensor<?x4xf32>
  %1 = magi.sym_mod %0, %k
  return %1 : index
}
