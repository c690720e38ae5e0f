// max_pool2d_with_indices, avg_pool2d and _adaptive_avg_pool2d import as
// magi.max_pool / magi.avg_pool (an empty stride is the kernel; adaptive
// pooling to sizes that divide the input's is windows of in / out);
// adaptive pooling to uneven windows stays opaque. The archive is written
// by op_archive.py (PyTorch is not here to export one).
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/pool.pt2 \
// RUN:   "{'symbols': {'s0': (1, 64)}, 'inputs': {'x': ('bf16', ['s0', 8, 14, 14])}, \
// RUN:     'nodes': [('aten.max_pool2d_with_indices.default', [('self', 'x'), ('kernel_size', [3, 3]), ('stride', [2, 2]), ('padding', [1, 1]), \
// RUN:                ('dilation', [1, 1]), ('ceil_mode', False)], {'m': ('bf16', ['s0', 8, 7, 7]), 'mi': ('i64', ['s0', 8, 7, 7])}), \
// RUN:               ('aten.avg_pool2d.default', [('self', 'x'), ('kernel_size', [2, 2]), ('stride', []), ('padding', [0, 0]), ('ceil_mode', True), \
// RUN:                ('count_include_pad', False), ('divisor_override', None)], {'a': ('bf16', ['s0', 8, 7, 7])}), \
// RUN:               ('aten._adaptive_avg_pool2d.default', [('self', 'x'), ('output_size', [1, 1])], {'g': ('bf16', ['s0', 8, 1, 1])}), \
// RUN:               ('aten._adaptive_avg_pool2d.default', [('self', 'x'), ('output_size', [4, 4])], {'u': ('bf16', ['s0', 8, 4, 4])})], \
// RUN:     'outputs': ['m', 'mi', 'a', 'g', 'u']}"
// RUN: magi-import %t/pool.pt2 -o %t/pool.mlir 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: FileCheck %s --input-file=%t/pool.mlir
// RUN: magi-opt --verify-roundtrip %t/pool.mlir > /dev/null

// WARN: warning: ops without a typed magi op, kept as magi.opaque: aten::_adaptive_avg_pool2d.default (1)

// CHECK-LABEL: func.func @main(
// CHECK: magi.max_pool %arg0 {dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<?x8x14x14xbf16>) -> (tensor<?x8x7x7xbf16>, tensor<?x8x7x7xi64>)
// CHECK: magi.avg_pool %arg0 {ceil_mode, count_include_pad = false, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x8x14x14xbf16>) -> tensor<?x8x7x7xbf16>
// CHECK: magi.avg_pool %arg0 {kernel_size = array<i64: 14, 14>, padding = array<i64: 0, 0>, stride = array<i64: 14, 14>} : (tensor<?x8x14x14xbf16>) -> tensor<?x8x1x1xbf16>
// CHECK: magi.opaque "aten::_adaptive_avg_pool2d.default"
