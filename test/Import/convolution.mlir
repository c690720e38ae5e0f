// aten.convolution imports as magi.convolution (stride, padding, dilation,
// groups; the bias when given), a transposed one with `transposed`. The archive
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
// RUN: magi-import %t/conv.pt2 -o %t/conv.mlir
// RUN: FileCheck %s --input-file=%t/conv.mlir
// RUN: magi-opt --verify-roundtrip %t/conv.mlir > /dev/null

// CHECK-LABEL: func.func @main(
// CHECK: magi.convolution %arg0, %arg1, %arg2 {dilation = array<i64: 1, 1>, groups = 2 : i64, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<?x4x16x16xbf16>, tensor<8x2x3x3xbf16>, tensor<8xbf16>) -> tensor<?x8x8x8xbf16>
// CHECK: magi.convolution %arg0, %arg1 {dilation = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<?x4x16x16xbf16>, tensor<8x2x3x3xbf16>) -> tensor<?x8x12x12xbf16>
// CHECK: magi.convolution %arg0, %arg3 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>, transposed} : (tensor<?x4x16x16xbf16>, tensor<4x4x2x2xbf16>) -> tensor<?x4x32x32xbf16>
// CHECK-NOT: magi.opaque

// A convolutional block as torch.export writes it for a CUDA model in eval
// mode (convolution, batch norm with running statistics, relu) imports
// without opaque ops and compiles.
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/block.pt2 \
// RUN:   "{'symbols': {'s0': (1, 64)}, \
// RUN:     'inputs': {'x': ('bf16', ['s0', 3, 32, 32]), 'w': ('bf16', [16, 3, 3, 3]), 'm': ('f32', [16]), 'v': ('f32', [16]), 'g': ('f32', [16]), 'b': ('f32', [16])}, \
// RUN:     'nodes': [('aten.convolution.default', [('input', 'x'), ('weight', 'w'), ('bias', None), ('stride', [2, 2]), ('padding', [1, 1]), \
// RUN:                ('dilation', [1, 1]), ('transposed', False), ('output_padding', [0, 0]), ('groups', 1)], {'c': ('bf16', ['s0', 16, 16, 16])}), \
// RUN:               ('aten._native_batch_norm_legit_no_training.default', [('input', 'c'), ('weight', 'g'), ('bias', 'b'), ('running_mean', 'm'), \
// RUN:                ('running_var', 'v'), ('momentum', 0.1), ('eps', 1e-05)], {'n': ('bf16', ['s0', 16, 16, 16]), 'nm': ('f32', [16]), 'nr': ('f32', [16])}), \
// RUN:               ('aten.relu.default', [('self', 'n')], {'r': ('bf16', ['s0', 16, 16, 16])})], \
// RUN:     'outputs': ['r']}"
// RUN: magi-import %t/block.pt2 -o %t/block.mlir 2>&1 | FileCheck %s --check-prefix=BLOCK --allow-empty
// RUN: magi-compile %t/block.pt2 -o %t/block --cache-mode=off --no-cubin | FileCheck %s --check-prefix=BLOCKC
// BLOCK-NOT: opaque
// BLOCKC: 1 pieces, {{[0-9]+}} kernels
