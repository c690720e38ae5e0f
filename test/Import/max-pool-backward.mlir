// max_pool{2,3}d_with_indices_backward imports as a scatter-add of the
// output gradients along each flattened (batch, channel) plane, at the
// positions the forward's indices name, into zeros (f32 for bf16, as
// PyTorch accumulates); a symbolic shape stays opaque.
// PyTorch's own sample (kernel 3, stride 2: overlapping windows add up)
// matches interpreted and lowered, and compiles.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: tar -xzf %S/../Ops/Inputs/core-op-samples.tgz -C %t max_pool2d_with_indices_backward-0
// RUN: magi-import %t/max_pool2d_with_indices_backward-0/model.pt2 | FileCheck %s --check-prefix=SAMPLE
// RUN: magi-interp %t/max_pool2d_with_indices_backward-0/model.pt2 --fixture %t/max_pool2d_with_indices_backward-0/case0 | FileCheck %s --check-prefix=MATCH
// RUN: magi-interp %t/max_pool2d_with_indices_backward-0/model.pt2 --fixture %t/max_pool2d_with_indices_backward-0/case0 --lowered-pieces | FileCheck %s --check-prefix=MATCH
// RUN: magi-compile %t/max_pool2d_with_indices_backward-0/model.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/pool3d.pt2 \
// RUN:   "{'symbols': {'s0': (1, 64)}, 'inputs': {'x': ('bf16', [2, 3, 4, 6, 6]), 'g': ('bf16', [2, 3, 2, 3, 3]), 'y': ('f32', ['s0', 4, 4]), 'h': ('f32', ['s0', 2, 2])}, \
// RUN:     'nodes': [('aten.max_pool3d_with_indices.default', [('self', 'x'), ('kernel_size', [2, 2, 2]), ('stride', [2, 2, 2]), ('padding', [0, 0, 0]), \
// RUN:                ('dilation', [1, 1, 1]), ('ceil_mode', False)], {'m': ('bf16', [2, 3, 2, 3, 3]), 'mi': ('i64', [2, 3, 2, 3, 3])}), \
// RUN:               ('aten.max_pool3d_with_indices_backward.default', [('grad_output', 'g'), ('self', 'x'), ('kernel_size', [2, 2, 2]), ('stride', [2, 2, 2]), \
// RUN:                ('padding', [0, 0, 0]), ('dilation', [1, 1, 1]), ('ceil_mode', False), ('indices', 'mi')], {'dx': ('bf16', [2, 3, 4, 6, 6])}), \
// RUN:               ('aten.max_pool2d_with_indices.default', [('self', 'y'), ('kernel_size', [2, 2]), ('stride', [2, 2]), ('padding', [0, 0]), \
// RUN:                ('dilation', [1, 1]), ('ceil_mode', False)], {'n': ('f32', ['s0', 2, 2]), 'ni': ('i64', ['s0', 2, 2])}), \
// RUN:               ('aten.max_pool2d_with_indices_backward.default', [('grad_output', 'h'), ('self', 'y'), ('kernel_size', [2, 2]), ('stride', [2, 2]), \
// RUN:                ('padding', [0, 0]), ('dilation', [1, 1]), ('ceil_mode', False), ('indices', 'ni')], {'dy': ('f32', ['s0', 4, 4])})], \
// RUN:     'outputs': ['dx', 'dy']}"
// RUN: magi-import %t/pool3d.pt2 2>&1 | FileCheck %s --check-prefix=BF16

// SAMPLE:      %[[G:.*]] = magi.view %{{.*}} [2, 3] : tensor<1x2x1x3xf32> -> tensor<2x3xf32>
// SAMPLE-NEXT: %[[I:.*]] = magi.view %indices [2, 3] : tensor<1x2x1x3xi64> -> tensor<2x3xi64>
// SAMPLE-NEXT: %[[Z:.*]] = magi.full [2, 18] {dtype = f32, fill_value = 0.000000e+00 : f64} : tensor<2x18xf32>
// SAMPLE-NEXT: %[[S:.*]] = magi.scatter %[[Z]], %[[I]], %[[G]] {dim = 1 : i64, reduce = "add"}
// SAMPLE-NEXT: magi.view %[[S]] [1, 2, 3, 6] : tensor<2x18xf32> -> tensor<1x2x3x6xf32>
// SAMPLE-NOT:  magi.opaque

// MATCH: out0: rel_err={{.*}} OK

// BF16: warning: ops without a typed magi op, kept as magi.opaque: aten::max_pool2d_with_indices_backward.default (1)
// BF16:      magi.view %{{.*}} [6, 18] : tensor<2x3x2x3x3xbf16> -> tensor<6x18xbf16>
// BF16-NEXT: magi.to_copy %{{.*}} {dtype = f32} : (tensor<6x18xbf16>) -> tensor<6x18xf32>
// BF16-NEXT: magi.view %{{.*}} [6, 18] : tensor<2x3x2x3x3xi64> -> tensor<6x18xi64>
// BF16-NEXT: magi.full [6, 144] {dtype = f32, fill_value = 0.000000e+00 : f64} : tensor<6x144xf32>
// BF16-NEXT: magi.scatter {{.*}} {dim = 1 : i64, reduce = "add"} : (tensor<6x144xf32>, tensor<6x18xi64>, tensor<6x18xf32>) -> tensor<6x144xf32>
// BF16-NEXT: magi.to_copy %{{.*}} {dtype = bf16} : (tensor<6x144xf32>) -> tensor<6x144xbf16>
// BF16-NEXT: magi.view %{{.*}} [2, 3, 4, 6, 6] : tensor<6x144xbf16> -> tensor<2x3x4x6x6xbf16>
// BF16:      magi.opaque "aten::max_pool2d_with_indices_backward.default"
