// unbind.int, split.Tensor and chunk (not core ATen: an export without
// run_decompositions() keeps them, as a vision transformer's
// `q, k, v = qkv.unbind(0)`) import as magi.select per index and as
// magi.split_with_sizes with the exported pieces' sizes.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/split.pt2 \
// RUN:   '{"inputs": {"x": ("f32", [3, 2, 2]), "y": ("f32", [5, 2]), "z": ("f32", [2, 6])}, "nodes": [("aten.unbind.int", [("self", "x"), ("dim", 0)], {"q": ("f32", [2, 2]), "k": ("f32", [2, 2]), "v": ("f32", [2, 2])}), ("aten.split.Tensor", [("self", "y"), ("split_size", 2), ("dim", 0)], {"y0": ("f32", [2, 2]), "y1": ("f32", [2, 2]), "y2": ("f32", [1, 2])}), ("aten.chunk.default", [("self", "z"), ("chunks", 3), ("dim", -1)], {"z0": ("f32", [2, 2]), "z1": ("f32", [2, 2]), "z2": ("f32", [2, 2])}), ("aten.sub.Tensor", [("self", "q"), ("other", "v")], {"d": ("f32", [2, 2])}), ("aten.mul.Tensor", [("self", "y1"), ("other", "z2")], {"m": ("f32", [2, 2])})], "outputs": ["d", "k", "m", "y2", "z0"]}'
// RUN: magi-import %t/split.pt2 -o %t/split.mlir
// RUN: FileCheck %s --input-file=%t/split.mlir
// RUN: magi-opt --verify-roundtrip %t/split.mlir > /dev/null
// CHECK-NOT: magi.opaque
// CHECK: magi.select %arg0, 0 [0] : tensor<3x2x2xf32> -> tensor<2x2xf32>
// CHECK: magi.select %arg0, 0 [1] : tensor<3x2x2xf32> -> tensor<2x2xf32>
// CHECK: magi.select %arg0, 0 [2] : tensor<3x2x2xf32> -> tensor<2x2xf32>
// CHECK: magi.split_with_sizes %arg1 [2, 2, 1] {dim = 0 : i64} : tensor<5x2xf32> -> tensor<2x2xf32>, tensor<2x2xf32>, tensor<1x2xf32>
// CHECK: magi.split_with_sizes %arg2 [2, 2, 2] {dim = 1 : i64} : tensor<2x6xf32> -> tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>

// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 3,2,2 1,2,3,4,5,6,7,8,9,10,11,12
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/y.npy float32 5,2 0,1,2,3,4,5,6,7,8,9
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/z.npy float32 2,6 0,1,2,3,4,5,6,7,8,9,10,11
// RUN: magi-interp %t/split.pt2 --input %t/x.npy --input %t/y.npy --input %t/z.npy | FileCheck %s --check-prefix=OUT
// RUN: magi-interp %t/split.pt2 --input %t/x.npy --input %t/y.npy --input %t/z.npy --lowered-pieces | FileCheck %s --check-prefix=OUT
// q - v, k, y[2:4] * z[:, 4:6], y[4:5], z[:, 0:2].
// OUT: out0: tensor<2x2xf32> = {{\[}}[-8, -8], [-8, -8]]
// OUT: out1: tensor<2x2xf32> = {{\[}}[5, 6], [7, 8]]
// OUT: out2: tensor<2x2xf32> = {{\[}}[16, 25], [60, 77]]
// OUT: out3: tensor<1x2xf32> = {{\[}}[8, 9]]
// OUT: out4: tensor<2x2xf32> = {{\[}}[0, 1], [6, 7]]
