// native_group_norm imports as a layer norm over each group: the input (in
// f32 for bf16) viewed as [N, groups, C / groups * HxW], normalized, viewed
// back, times the per-channel weight, plus the bias, rounded once; mean and
// rstd are the layer norm's, viewed as [N, groups]. PyTorch's own sample
// (scripts/gpu-ops-check.py) matches interpreted and lowered; an archive
// written by op_archive.py covers bf16 and a symbolic batch.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: tar -xzf %S/../Ops/Inputs/core-op-samples.tgz -C %t nn.functional.group_norm-0
// RUN: magi-interp %t/nn.functional.group_norm-0/model.pt2 --fixture %t/nn.functional.group_norm-0/case0 | FileCheck %s --check-prefix=INTERP
// RUN: magi-interp %t/nn.functional.group_norm-0/model.pt2 --fixture %t/nn.functional.group_norm-0/case0 --lowered-pieces | FileCheck %s --check-prefix=INTERP
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/gn.pt2 \
// RUN:   "{'symbols': {'s0': (1, 64)}, \
// RUN:     'inputs': {'x': ('bf16', ['s0', 8, 4, 4]), 'w': ('bf16', [8]), 'b': ('bf16', [8])}, \
// RUN:     'nodes': [('aten.native_group_norm.default', [('input', 'x'), ('weight', 'w'), ('bias', 'b'), ('N', 2), ('C', 8), ('HxW', 16), ('group', 4), ('eps', 1e-5)], \
// RUN:                {'y': ('bf16', ['s0', 8, 4, 4]), 'mean': ('bf16', ['s0', 4]), 'rstd': ('bf16', ['s0', 4])})], \
// RUN:     'outputs': ['y', 'mean', 'rstd']}"
// RUN: magi-import %t/gn.pt2 -o %t/gn.mlir
// RUN: FileCheck %s --input-file=%t/gn.mlir
// RUN: magi-opt --verify-roundtrip %t/gn.mlir > /dev/null
// RUN: magi-compile %t/gn.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet

// INTERP: out0: rel_err={{.*}} OK

// CHECK-LABEL: func.func @main(
// CHECK: %[[X:.*]] = magi.to_copy %arg0 {dtype = f32} : (tensor<?x8x4x4xbf16>) -> tensor<?x8x4x4xf32>
// CHECK: %[[N:.*]] = magi.sym_size %arg0, 0 : tensor<?x8x4x4xbf16>
// CHECK: %[[G:.*]] = magi.view %[[X]] [%[[N]], 4, 32] : tensor<?x8x4x4xf32> -> tensor<?x4x32xf32>
// CHECK: %[[Y:.*]], %[[MEAN:.*]], %[[RSTD:.*]] = magi.native_layer_norm %[[G]] {eps = 1.000000e-05 : f64, normalized_ndim = 1 : i64} : (tensor<?x4x32xf32>) -> (tensor<?x4x32xf32>, tensor<?x4x1xf32>, tensor<?x4x1xf32>)
// CHECK: magi.view %[[Y]] [%{{.*}}, 8, 4, 4] : tensor<?x4x32xf32> -> tensor<?x8x4x4xf32>
// CHECK: magi.view %{{.*}} [8, 1, 1] : tensor<8xf32> -> tensor<8x1x1xf32>
// CHECK: magi.mul
// CHECK: magi.add
// CHECK: magi.to_copy %{{.*}} {dtype = bf16} : (tensor<?x8x4x4xf32>) -> tensor<?x8x4x4xbf16>
// CHECK: magi.view %[[MEAN]] [%{{.*}}, 4] : tensor<?x4x1xf32> -> tensor<?x4xf32>
// CHECK: magi.view %[[RSTD]] [%{{.*}}, 4] : tensor<?x4x1xf32> -> tensor<?x4xf32>
// CHECK-NOT: magi.opaque
