// Core ops imported as PyTorch's compositions of ops Magi has
// (lib/Import/ConvertComposed.cpp): _cdist_forward and _pdist_forward as
// norms of differences, masked_scatter as cumsum + gather + where,
// as_strided as a gather at computed offsets, upsample_bilinear2d as two
// weighted index_selects per axis, adaptive_avg_pool with uneven windows
// as window-weight matrices multiplied in and summed, grid_sampler_2d as
// corners gathered with magi.index and weighted. Index tables and weights come from
// magi.arange arithmetic, never tensor literals (a launch plan cannot hold
// one), so each compiles for the GPU (magi-compile --no-cubin).
// PyTorch's own samples (scripts/gpu-ops-check.py) match interpreted and
// lowered; the values below are by hand.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: tar -xzf %S/../Ops/Inputs/core-op-samples.tgz -C %t cdist-1 nn.functional.pdist-0 masked_scatter-2 as_strided-0 nn.functional.interpolate.bilinear-0 nn.functional.adaptive_avg_pool2d-0 nn.functional.grid_sample-0
// RUN: for s in cdist-1 nn.functional.pdist-0 masked_scatter-2 as_strided-0 nn.functional.interpolate.bilinear-0 nn.functional.adaptive_avg_pool2d-0 nn.functional.grid_sample-0; do \
// RUN:   magi-interp %t/$s/model.pt2 --fixture %t/$s/case0 && \
// RUN:   magi-interp %t/$s/model.pt2 --fixture %t/$s/case0 --lowered-pieces && \
// RUN:   magi-compile %t/$s/model.pt2 -o %t/$s/artifact --no-cubin --cache-mode=off --quiet || exit 1; \
// RUN: done | FileCheck %s --check-prefix=SAMPLES
// SAMPLES-COUNT-14: out0: rel_err={{.*}} OK

// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/composed.pt2 \
// RUN:   "{'inputs': {'x': ('f32', [4, 2]), 'y': ('f32', [3, 4]), 'h': ('bf16', [1, 1, 2, 2]), 'a': ('f32', [2, 2]), 'b': ('f32', [1, 2]), 'w': ('bf16', [1, 1, 1, 5]), 'gi': ('f32', [1, 1, 2, 2]), 'gn': ('f32', [1, 1, 3, 2]), 'gb': ('f32', [1, 1, 3, 2])}, \
// RUN:     'nodes': [('aten._pdist_forward.default', [('self', 'x')], {'p2': ('f32', [6])}), \
// RUN:               ('aten._pdist_forward.default', [('self', 'x'), ('p', 1.0)], {'p1': ('f32', [6])}), \
// RUN:               ('aten.as_strided.default', [('self', 'y'), ('size', [2, 3]), ('stride', [1, 4]), ('storage_offset', 1)], {'strided': ('f32', [2, 3])}), \
// RUN:               ('aten.upsample_bilinear2d.vec', [('input', 'h'), ('output_size', [3, 3]), ('align_corners', True), ('scale_factors', None)], {'up': ('bf16', [1, 1, 3, 3])}), \
// RUN:               ('aten._cdist_forward.default', [('x1', 'a'), ('x2', 'b'), ('p', 2.0), ('compute_mode', None)], {'cd': ('f32', [2, 1])}), \
// RUN:               ('aten._adaptive_avg_pool2d.default', [('self', 'w'), ('output_size', [1, 3])], {'pool': ('bf16', [1, 1, 1, 3])}), \
// RUN:               ('aten.grid_sampler_2d.default', [('input', 'gi'), ('grid', 'gn'), ('interpolation_mode', 1), ('padding_mode', 1), ('align_corners', True)], {'nearest': ('f32', [1, 1, 1, 3])}), \
// RUN:               ('aten.grid_sampler_2d.default', [('input', 'gi'), ('grid', 'gb'), ('interpolation_mode', 0), ('padding_mode', 0), ('align_corners', False)], {'bilinear': ('f32', [1, 1, 1, 3])})], \
// RUN:     'outputs': ['p2', 'p1', 'strided', 'up', 'cd', 'pool', 'nearest', 'bilinear']}"
// RUN: magi-import %t/composed.pt2 -o %t/composed.mlir
// RUN: FileCheck %s --input-file=%t/composed.mlir
// RUN: magi-opt --verify-roundtrip %t/composed.mlir > /dev/null
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 4,2 0,0,3,4,1,1,0,2
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/y.npy float32 3,4 0,1,2,3,4,5,6,7,8,9,10,11
// RUN: %python %S/../Interp/Inputs/tensors.py bin %t/h bfloat16 1,1,2,2 0,1,2,3
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/a.npy float32 2,2 0,0,1,1
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/b.npy float32 1,2 3,4
// RUN: %python %S/../Interp/Inputs/tensors.py bin %t/w bfloat16 1,1,1,5 0,1,2,3,4
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/gi.npy float32 1,1,2,2 0,1,2,3
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/gn.npy float32 1,1,3,2 -1,-1,0,0,1.5,0
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/gb.npy float32 1,1,3,2 -1,-1,0,0,1,0
// RUN: magi-interp %t/composed.pt2 --input %t/x.npy --input %t/y.npy --input %t/h.bin --input %t/a.npy --input %t/b.npy --input %t/w.bin --input %t/gi.npy --input %t/gn.npy --input %t/gb.npy | FileCheck %s --check-prefix=VALUES
// RUN: magi-interp %t/composed.pt2 --input %t/x.npy --input %t/y.npy --input %t/h.bin --input %t/a.npy --input %t/b.npy --input %t/w.bin --input %t/gi.npy --input %t/gn.npy --input %t/gb.npy --lowered-pieces | FileCheck %s --check-prefix=VALUES
// RUN: magi-compile %t/composed.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
// as_strided's sizes and strides are the archive's: reading past self, or
// a reach that overflows 64 bits, is an error, not a wrapped offset.
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/past.pt2 \
// RUN:   "{'inputs': {'y': ('f32', [3, 4])}, 'nodes': [('aten.as_strided.default', [('self', 'y'), ('size', [2, 3]), ('stride', [1, 5]), ('storage_offset', 2)], {'s': ('f32', [2, 3])})], 'outputs': ['s']}"
// RUN: not magi-import %t/past.pt2 2>&1 | FileCheck %s --check-prefix=PAST
// PAST: as_strided reads elements 2 to 13 of a tensor of 12
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/overflow.pt2 \
// RUN:   "{'inputs': {'y': ('f32', [3, 4])}, 'nodes': [('aten.as_strided.default', [('self', 'y'), ('size', [3, 3]), ('stride', [4611686018427387904, 1]), ('storage_offset', 0)], {'s': ('f32', [3, 3])})], 'outputs': ['s']}"
// RUN: not magi-import %t/overflow.pt2 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: as_strided sizes and strides overflow 64 bits

// Pairs (0,1) (0,2) (0,3) (1,2) (1,3) (2,3) of [0,0] [3,4] [1,1] [0,2].
// VALUES:      out0: tensor<6xf32> = [5, 1.4142135, 2, 3.6055512, 3.6055512, 1.4142135]
// VALUES-NEXT: out1: tensor<6xf32> = [7, 2, 2, 5, 5, 2]
// Offsets 1 + i + 4j of 0..11.
// VALUES-NEXT: out2: tensor<2x3xf32> = {{\[}}[1, 5, 9], [2, 6, 10]]
// [[0, 1], [2, 3]] to 3 x 3 with the corners aligned: sources 0, 0.5, 1.
// VALUES-NEXT: out3: tensor<1x1x3x3xbf16> = {{\[\[\[}}[0, 0.5, 1], [1, 1.5, 2], [2, 2.5, 3]]]]
// VALUES-NEXT: out4: tensor<2x1xf32> = {{\[}}[5], [3.6055512]]
// Windows {0, 1}, {1, 2, 3}, {3, 4} of 0..4.
// VALUES-NEXT: out5: tensor<1x1x1x3xbf16> = {{\[\[\[}}[0.5, 2, 3.5]]]]
// [[0, 1], [2, 3]] sampled at (-1, -1), (0, 0), (1.5, 0): nearest with the
// corners aligned and border padding (pixels (0, 0), (0.5, 0.5) rounded to
// even, (1.25 clamped to 1, 0.5)); bilinear at (-1, -1), (0, 0), (1, 0)
// with zeros outside (pixel centers: -0.5 sees one corner, 0.5 all four,
// 1.5 the right column).
// VALUES-NEXT: out6: tensor<1x1x1x3xf32> = {{\[\[\[}}[0, 0, 1]]]]
// VALUES-NEXT: out7: tensor<1x1x1x3xf32> = {{\[\[\[}}[0, 1.5, 1]]]]

// The pairs' rows from arange arithmetic, then index_select and the norm.
// CHECK: %[[K:.*]] = magi.arange {{.*}} : (i64, i64, i64) -> tensor<6xi64>
// CHECK: magi.sqrt %{{.*}} : (tensor<6xf64>) -> tensor<6xf64>
// CHECK: magi.floor
// CHECK: %[[ROWS:.*]] = magi.to_copy %{{.*}} {dtype = i64} : (tensor<6xf64>) -> tensor<6xi64>
// CHECK: magi.div %{{.*}}, %{{.*}} {rounding_mode = "floor"}
// CHECK: magi.index_select %arg0, %[[ROWS]] {dim = 0 : i64} : (tensor<4x2xf32>, tensor<6xi64>) -> tensor<6x2xf32>
// CHECK: magi.sqrt %{{.*}} : (tensor<6xf32>) -> tensor<6xf32>
// CHECK: magi.abs
// CHECK: magi.sum %{{.*}} {dims = array<i64: 1>} : (tensor<6x2xf32>) -> tensor<6xf32>
// as_strided: offsets 1 + 1 * i + 4 * j, then a gather from the flattened self.
// CHECK: %[[START:.*]] = magi.full {{.*}}fill_value = 1 : i64{{.*}} : tensor<2x3xi64>
// CHECK: %[[FLAT:.*]] = magi.view %arg1 [12] : tensor<3x4xf32> -> tensor<12xf32>
// CHECK: magi.index %[[FLAT]][%{{.*}}] {indexed_dims = array<i64: 0>} : (tensor<12xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
// upsample: in f32, W then H, rounded once.
// CHECK: magi.to_copy %arg2 {dtype = f32} : (tensor<1x1x2x2xbf16>) -> tensor<1x1x2x2xf32>
// CHECK: magi.index_select %{{.*}} {dim = 3 : i64} : (tensor<1x1x2x2xf32>, tensor<3xi64>) -> tensor<1x1x2x3xf32>
// CHECK: magi.index_select %{{.*}} {dim = 2 : i64} : (tensor<1x1x2x3xf32>, tensor<3xi64>) -> tensor<1x1x3x3xf32>
// CHECK: magi.to_copy %{{.*}} {dtype = bf16} : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xbf16>
// cdist: x1 [2, 1, 2] - x2 [1, 1, 2], normed over the last dim.
// CHECK: magi.unsqueeze %arg3 {dim = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x1x2xf32>
// CHECK: magi.unsqueeze %arg4 {dim = 0 : i64} : (tensor<1x2xf32>) -> tensor<1x1x2xf32>
// CHECK: magi.sub %{{.*}}, %{{.*}} : (tensor<2x1x2xf32>, tensor<1x1x2xf32>) -> tensor<2x1x2xf32>
// CHECK: magi.sum %{{.*}} {dims = array<i64: 2>} : (tensor<2x1x2xf32>) -> tensor<2x1xf32>
// adaptive_avg_pool2d, uneven along W: per pooled dim a [out, in] weight
// matrix multiplied in and summed over `in`, in f32.
// CHECK: magi.to_copy %arg5 {dtype = f32} : (tensor<1x1x1x5xbf16>) -> tensor<1x1x1x5xf32>
// CHECK: magi.logical_and %{{.*}}, %{{.*}} : (tensor<1x1xi1>, tensor<1x1xi1>) -> tensor<1x1xi1>
// CHECK: magi.logical_and %{{.*}}, %{{.*}} : (tensor<3x5xi1>, tensor<3x5xi1>) -> tensor<3x5xi1>
// CHECK: magi.div %{{.*}}, %{{.*}} : (tensor<3x5xf32>, tensor<3x1xf32>) -> tensor<3x5xf32>
// CHECK: magi.mul %{{.*}}, %{{.*}} : (tensor<1x1x1x1x5xf32>, tensor<3x5xf32>) -> tensor<1x1x1x3x5xf32>
// CHECK: magi.sum %{{.*}} {dims = array<i64: 4>} : (tensor<1x1x1x3x5xf32>) -> tensor<1x1x1x3xf32>
// CHECK: magi.to_copy %{{.*}} {dtype = bf16} : (tensor<1x1x1x3xf32>) -> tensor<1x1x1x3xbf16>
// grid_sampler_2d: the corners gathered from [N, C, H, W] at (batch, y, x)
// into [N, Ho, Wo, C], then permuted.
// CHECK: magi.round
// CHECK: magi.index %arg6[%{{.*}}, %{{.*}}, %{{.*}}] {indexed_dims = array<i64: 0, 2, 3>} : (tensor<1x1x2x2xf32>, tensor<1x1x1xi64>, tensor<1x1x3xi64>, tensor<1x1x3xi64>) -> tensor<1x1x3x1xf32>
// CHECK: magi.permute %{{.*}} {dims = array<i64: 0, 3, 1, 2>} : (tensor<1x1x3x1xf32>) -> tensor<1x1x1x3xf32>
// CHECK: magi.floor
// CHECK-COUNT-4: magi.index %arg6
// CHECK: magi.permute
