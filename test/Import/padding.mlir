// Reflection and replication padding (reflection_pad1d/2d/3d,
// replication_pad1d/2d/3d) and nearest upsampling (upsample_nearest1d/2d/3d)
// import as index_selects at tables of source positions built from
// magi.arange (lib/Import/ConvertComposed.cpp): interpreted, lowered and run
// on the CPU, compiled for the GPU (the reflection tables take integer abs,
// which the GPU path once failed to lower); the values are by hand.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/pad.pt2 @%S/Inputs/padding.spec
// RUN: magi-import %t/pad.pt2 -o %t/pad.mlir
// RUN: FileCheck %s --input-file=%t/pad.mlir
// RUN: magi-opt --verify-roundtrip %t/pad.mlir > /dev/null

// reflection_pad1d (2, 1) of 3 columns: j = i - 2, read at 2 - |2 - |j||.
// CHECK:      %[[AR:.*]] = magi.arange {{.*}} -> tensor<6xi64>
// CHECK:      %[[J:.*]] = magi.sub %[[AR]], %{{.*}} : (tensor<6xi64>, i64) -> tensor<6xi64>
// CHECK:      %[[A:.*]] = magi.abs %[[J]]
// CHECK:      %[[E:.*]] = magi.sub %[[A]], %{{.*}} : (tensor<6xi64>, i64) -> tensor<6xi64>
// CHECK:      %[[O:.*]] = magi.abs %[[E]]
// CHECK:      %[[N:.*]] = magi.sub %[[O]], %{{.*}}
// CHECK:      %[[IDX:.*]] = magi.mul %[[N]], %{{.*}}
// CHECK:      magi.index_select %arg0, %[[IDX]] {dim = 2 : i64} : (tensor<1x2x3xf32>, tensor<6xi64>) -> tensor<1x2x6xf32>
// replication_pad2d: clamps, the last dim first.
// CHECK:      magi.clamp %{{.*}} {max = 2.000000e+00 : f64, min = 0.000000e+00 : f64} : (tensor<4xi64>) -> tensor<4xi64>
// CHECK:      magi.index_select %arg1, %{{.*}} {dim = 3 : i64} : (tensor<1x1x2x3xf32>, tensor<4xi64>) -> tensor<1x1x2x4xf32>
// CHECK:      magi.index_select %{{.*}}, %{{.*}} {dim = 2 : i64} : (tensor<1x1x2x4xf32>, tensor<4xi64>) -> tensor<1x1x4x4xf32>

// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 1,2,3 0,1,2,3,4,5
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/y.npy float32 1,1,2,3 0,1,2,3,4,5
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/v.npy float32 1,1,2,2,2 0,1,2,3,4,5,6,7
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/k.npy int64 1,1,2,3 0,1,2,3,4,5
// RUN: magi-interp %t/pad.pt2 --input %t/x.npy --input %t/y.npy --input %t/v.npy --input %t/k.npy | FileCheck %s --check-prefix=VALUES
// RUN: magi-interp %t/pad.pt2 --input %t/x.npy --input %t/y.npy --input %t/v.npy --input %t/k.npy --lowered-pieces | FileCheck %s --check-prefix=VALUES
// RUN: magi-compile %t/pad.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
// Columns read at 2, 1, 0, 1, 2, 1.
// VALUES:      out0: tensor<1x2x6xf32> = {{\[\[}}[2, 1, 0, 1, 2, 1], [5, 4, 3, 4, 5, 4]]]
// One column before, two rows after, edges repeated.
// VALUES-NEXT: out1: tensor<1x1x4x4xf32> = {{\[\[\[}}[0, 0, 1, 2], [3, 3, 4, 5], [3, 3, 4, 5], [3, 3, 4, 5]]]]
// reflection_pad3d, one before the last dim only: pairs (a, b) become (b, a, b).
// VALUES-NEXT: out2: tensor<1x1x2x2x3xf32> = {{\[\[\[\[}}[1, 0, 1], [3, 2, 3]], {{\[}}[5, 4, 5], [7, 6, 7]]]]]
// 2 x 3 to 3 x 5: rows at floor(i * 2/3) = 0, 0, 1; columns at floor(i * 0.6) = 0, 0, 1, 1, 2.
// VALUES-NEXT: out3: tensor<1x1x3x5xf32> = {{\[\[\[}}[0, 0, 1, 1, 2], [0, 0, 1, 1, 2], [3, 3, 4, 4, 5]]]]
// Scale factor 2: each column twice.
// VALUES-NEXT: out4: tensor<1x2x6xf32> = {{\[\[}}[0, 0, 1, 1, 2, 2], [3, 3, 4, 4, 5, 5]]]
// Integers: one column after, one row before.
// VALUES-NEXT: out5: tensor<1x1x3x4xi64> = {{\[\[\[}}[0, 1, 2, 2], [0, 1, 2, 2], [3, 4, 5, 5]]]]

// A reflection must stay inside the input: a pad of 3 on 3 columns is an
// error, as in PyTorch.
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/wide.pt2 \
// RUN:   "{'inputs': {'x': ('f32', [1, 2, 3])}, 'nodes': [('aten.reflection_pad1d.default', [('self', 'x'), ('padding', [3, 0])], {'r': ('f32', [1, 2, 6])})], 'outputs': ['r']}"
// RUN: not magi-import %t/wide.pt2 2>&1 | FileCheck %s --check-prefix=WIDE
// WIDE: error: node 'r (torch.ops.aten.reflection_pad1d.default)': reflection padding (3, 0) must be below the size 3 of dim 2
