// linalg_vector_norm (not a core op, but run_decompositions() keeps it:
// pairwise_distance, normalize) imports as PyTorch defines the norm:
// sqrt(sum(x * x)) for ord 2 (the default), sum(abs(x)) for 1, amax / amin
// of abs(x) for +-inf, the count of nonzeros for 0, pow(sum(pow(abs(x),
// ord)), 1 / ord) otherwise, over `dim` with `keepdim`; a result of another
// type than self's (a `dtype`) stays opaque.
// PyTorch's own sample (pairwise_distance, scripts/gpu-ops-check.py)
// matches interpreted and lowered.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: tar -xzf %S/../Ops/Inputs/core-op-samples.tgz -C %t nn.functional.pairwise_distance-0
// RUN: magi-interp %t/nn.functional.pairwise_distance-0/model.pt2 --fixture %t/nn.functional.pairwise_distance-0/case0 | FileCheck %s --check-prefix=INTERP
// RUN: magi-interp %t/nn.functional.pairwise_distance-0/model.pt2 --fixture %t/nn.functional.pairwise_distance-0/case0 --lowered-pieces | FileCheck %s --check-prefix=INTERP
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/norm.pt2 \
// RUN:   "{'inputs': {'x': ('f32', [2, 3]), 'h': ('bf16', [2, 3])}, \
// RUN:     'nodes': [('aten.linalg_vector_norm.default', [('self', 'x')], {'two': ('f32', [])}), \
// RUN:               ('aten.linalg_vector_norm.default', [('self', 'x'), ('ord', 1.0), ('dim', [1]), ('keepdim', True)], {'one': ('f32', [2, 1])}), \
// RUN:               ('aten.linalg_vector_norm.default', [('self', 'x'), ('ord', 1e400), ('dim', [0])], {'inf': ('f32', [3])}), \
// RUN:               ('aten.linalg_vector_norm.default', [('self', 'x'), ('ord', -1e400), ('dim', [0])], {'ninf': ('f32', [3])}), \
// RUN:               ('aten.linalg_vector_norm.default', [('self', 'h'), ('ord', 3.0), ('dim', [1])], {'three': ('bf16', [2])}), \
// RUN:               ('aten.linalg_vector_norm.default', [('self', 'x'), ('ord', 0.0)], {'zero': ('f32', [])}), \
// RUN:               ('aten.linalg_vector_norm.default', [('self', 'h')], {'wide': ('f32', [])})], \
// RUN:     'outputs': ['two', 'one', 'inf', 'ninf', 'three', 'zero', 'wide']}"
// RUN: magi-import %t/norm.pt2 -o %t/norm.mlir 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: FileCheck %s --input-file=%t/norm.mlir
// RUN: magi-opt --verify-roundtrip %t/norm.mlir > /dev/null

// INTERP: out0: rel_err={{.*}} OK
// WARN: warning: ops without a typed magi op, kept as magi.opaque: aten::linalg_vector_norm.default (1)

// CHECK-LABEL: func.func @main(
// CHECK: %[[SQ:.*]] = magi.mul %arg0, %arg0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[S2:.*]] = magi.sum %[[SQ]] : (tensor<2x3xf32>) -> tensor<f32>
// CHECK: magi.sqrt %[[S2]] : (tensor<f32>) -> tensor<f32>
// CHECK: %[[A1:.*]] = magi.abs %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: magi.sum %[[A1]] {dims = array<i64: 1>, keepdim = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
// CHECK: %[[A2:.*]] = magi.abs %arg0
// CHECK: magi.amax %[[A2]] {dims = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
// CHECK: %[[A3:.*]] = magi.abs %arg0
// CHECK: magi.amin %[[A3]] {dims = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
// CHECK: %[[A4:.*]] = magi.abs %arg1 : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
// CHECK: %[[P:.*]] = arith.constant 3.000000e+00 : f64
// CHECK: %[[POW:.*]] = magi.pow %[[A4]], %[[P]] : (tensor<2x3xbf16>, f64) -> tensor<2x3xbf16>
// CHECK: %[[S3:.*]] = magi.sum %[[POW]] {dims = array<i64: 1>} : (tensor<2x3xbf16>) -> tensor<2xbf16>
// CHECK: %[[ROOT:.*]] = arith.constant 0.33333333333333331 : f64
// CHECK: magi.pow %[[S3]], %[[ROOT]] : (tensor<2xbf16>, f64) -> tensor<2xbf16>
// CHECK: %[[NZ:.*]] = magi.ne %arg0, %{{.*}} : (tensor<2x3xf32>, f64) -> tensor<2x3xi1>
// CHECK: %[[ONES:.*]] = magi.to_copy %[[NZ]] {dtype = f32} : (tensor<2x3xi1>) -> tensor<2x3xf32>
// CHECK: magi.sum %[[ONES]] : (tensor<2x3xf32>) -> tensor<f32>
// CHECK: magi.opaque "aten::linalg_vector_norm.default"(%arg1) {magi.operand_names = ["self"]} : (tensor<2x3xbf16>) -> tensor<f32>
