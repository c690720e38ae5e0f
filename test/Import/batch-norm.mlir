// aten._native_batch_norm_legit_no_training imports as magi.batch_norm; its
// saved statistics are what PyTorch returns on the export's device: empty
// on the CPU (a [0] constant), the running mean and 1 / sqrt(var + eps) in
// f32 on CUDA (for a bf16 input); another form stays opaque. The archive is
// written by op_archive.py (PyTorch is not here to export one).
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/bn.pt2 \
// RUN:   "{'symbols': {'s0': (1, 64)}, \
// RUN:     'inputs': {'x': ('f32', ['s0', 4, 6, 6]), 'h': ('bf16', ['s0', 4, 6, 6]), 'm': ('f32', [4]), 'v': ('f32', [4]), 'w': ('f32', [4]), 'b': ('f32', [4])}, \
// RUN:     'nodes': [('aten._native_batch_norm_legit_no_training.default', [('input', 'x'), ('weight', 'w'), ('bias', 'b'), ('running_mean', 'm'), \
// RUN:                ('running_var', 'v'), ('momentum', 0.1), ('eps', 1e-05)], {'y': ('f32', ['s0', 4, 6, 6]), 'ym': ('f32', [0]), 'yr': ('f32', [0])}), \
// RUN:               ('aten._native_batch_norm_legit_no_training.default', [('input', 'h'), ('weight', None), ('bias', None), ('running_mean', 'm'), \
// RUN:                ('running_var', 'v'), ('momentum', 0.1), ('eps', 0.001)], {'z': ('bf16', ['s0', 4, 6, 6]), 'zm': ('f32', [4]), 'zr': ('f32', [4])}), \
// RUN:               ('aten._native_batch_norm_legit_no_training.default', [('input', 'x'), ('weight', None), ('bias', None), ('running_mean', 'm'), \
// RUN:                ('running_var', 'v'), ('momentum', 0.1), ('eps', 0.001)], {'u': ('f32', ['s0', 4, 6, 6]), 'um': ('f32', [3]), 'ur': ('f32', [3])})], \
// RUN:     'outputs': ['y', 'ym', 'yr', 'z', 'zm', 'zr', 'u']}"
// RUN: magi-import %t/bn.pt2 -o %t/bn.mlir 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: FileCheck %s --input-file=%t/bn.mlir
// RUN: magi-opt --verify-roundtrip %t/bn.mlir > /dev/null

// WARN: warning: ops without a typed magi op, kept as magi.opaque: aten::_native_batch_norm_legit_no_training.default (1)

// CHECK-LABEL: func.func @main(
// CHECK:      %[[Y:.*]] = magi.batch_norm %arg0, %arg2, %arg3 weight %arg4 bias %arg5 {eps = 1.000000e-05 : f64} : (tensor<?x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x6x6xf32>
// CHECK-NEXT: %[[YM:.*]] = magi.constant dense<> : tensor<0xf32>
// CHECK-NEXT: %[[YR:.*]] = magi.constant dense<> : tensor<0xf32>
// CHECK:      %[[Z:.*]] = magi.batch_norm %arg1, %arg2, %arg3 {eps = 1.000000e-03 : f64} : (tensor<?x4x6x6xbf16>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x6x6xbf16>
// CHECK-NEXT: %[[EPS:.*]] = arith.constant 1.000000e-03 : f64
// CHECK-NEXT: %[[SUM:.*]] = magi.add %arg3, %[[EPS]] : (tensor<4xf32>, f64) -> tensor<4xf32>
// CHECK-NEXT: %[[ROOT:.*]] = magi.sqrt %[[SUM]]
// CHECK-NEXT: %[[ZR:.*]] = magi.reciprocal %[[ROOT]]
// CHECK:      %[[U:.*]]:3 = magi.opaque "aten::_native_batch_norm_legit_no_training.default"
// CHECK:      return %[[Y]], %[[YM]], %[[YR]], %[[Z]], %arg2, %[[ZR]], %[[U]]#0
