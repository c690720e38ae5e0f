// aten.convolution imports as magi.convolution (stride, padding, dilation,
// groups; the bias when given); a transposed one stays opaque. The archive
// is written by op_archive.py (PyTorch is not here to export one).
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/conv.pt2 \
// RUN:   "{'symbols': {'s0': (1, 64)}, \
// RUN:     'inputs': {'x': ('bf16', ['s0', 4, 16, 16]), 'w': ('bf16', [8, 2, 3, 3]), 'b': ('bf16', [8]), 'wt': ('bf16', [4, 4, 2, 2])}, \
// RUN:     'nodes': [('aten.convolution.default', [('input', 'x'), ('weight', 'w'), ('bias', 'b'), ('stride', [2, 2]), ('padding', [1, 1]), \
// RUN:                ('dilation', [1, 1]), ('transposed', False), ('output_padding', [0, 0]), ('groups', 2)], {'y': ('bf16', ['s0', 8, 8, 8])}), \
// RUN:               ('aten.convolution.default', [('input', 'x'), ('weight', 'w'), ('bias', None), ('stride', [1, 1]), ('padding', [0, 0]), \
// RUN:                ('dilation', [2, 2]), ('transposed', False), ('output_padding', [0, 0]), ('groups', 2)], {'u': ('bf16', ['s0', 8, 12, 12])}), \
// RUN:               ('aten.convolution.default', [('input', 'x'), ('weight', 'wt'), ('bias', None), ('stride', [2, 2]), ('padding', [0, 0]), \
// RUN:                ('dilation', [1, 1]), ('transposed', True), ('output_padding', [0, 0]), ('groups', 1)], {'z': ('bf16', ['s0', 4, 32, 32])})], \
// RUN:     'outputs': ['y', 'u', 'z']}"
// RUN: magi-import %t/conv.pt2 -o %t/conv.mlir 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: FileCheck %s --input-file=%t/conv.mlir
// RUN: magi-opt --verify-roundtrip %t/conv.mlir > /dev/null

// WARN: warning: ops without a typed magi op, kept as magi.opaque: aten::convolution.default (1)

// CHECK-LABEL: func.func @main(
// CHECK: magi.convolution %arg0, %arg1, %arg2 {dilation = array<i64: 1, 1>, groups = 2 : i64, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<?x4x16x16xbf16>, tensor<8x2x3x3xbf16>, tensor<8xbf16>) -> tensor<?x8x8x8xbf16>
// CHECK: magi.convolution %arg0, %arg1 {dilation = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<?x4x16x16xbf16>, tensor<8x2x3x3xbf16>) -> tensor<?x8x12x12xbf16>
// CHECK: magi.opaque "aten::convolution.default"(%arg0, %arg3) {{.*}}transposed = true
