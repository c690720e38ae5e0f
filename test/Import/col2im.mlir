// col2im (fold) imports as an accumulating index_put of the columns into the
// padded image at a table of flat pixel positions from magi.arange, the
// padding sliced off (lib/Import/ConvertComposed.cpp); interpreted, lowered
// and run on the CPU, compiled for the GPU. Values by hand (each pixel the
// sum of the column entries that cover it).
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/fold.pt2 @%S/Inputs/col2im.spec
// RUN: magi-import %t/fold.pt2 -o %t/fold.mlir
// RUN: FileCheck %s --input-file=%t/fold.mlir
// RUN: magi-opt --verify-roundtrip %t/fold.mlir > /dev/null
// CHECK: %[[SUMS:.*]] = magi.index_put %{{.*}}[%{{.*}}], %{{.*}} {accumulate = true, indexed_dims = array<i64: 2>} : (tensor<1x1x9xf32>, tensor<16xi64>, tensor<1x1x16xf32>) -> tensor<1x1x9xf32>
// The bf16 one adds up in f32 and slices the padding off.
// CHECK: magi.index_put %{{.*}}[%{{.*}}], %{{.*}} {accumulate = true, indexed_dims = array<i64: 2>} : (tensor<1x2x16xf32>, tensor<16xi64>, tensor<1x2x16xf32>) -> tensor<1x2x16xf32>
// CHECK: magi.slice %{{.*}}, 2 [1, 3, 1] : tensor<1x2x4x4xf32> -> tensor<1x2x2x4xf32>
// CHECK: magi.slice %{{.*}}, 3 [1, 3, 1] : tensor<1x2x2x4xf32> -> tensor<1x2x2x2xf32>
// CHECK: magi.to_copy %{{.*}} {dtype = bf16}

// Entry (tap t, block l) holds 10 t + l.
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/c.npy float32 1,4,4 0,1,2,3,10,11,12,13,20,21,22,23,30,31,32,33
// RUN: %python %S/../Interp/Inputs/tensors.py bin %t/u bfloat16 8,4 0,1,2,3,10,11,12,13,20,21,22,23,30,31,32,33,40,41,42,43,50,51,52,53,60,61,62,63,70,71,72,73
// RUN: magi-interp %t/fold.pt2 --input %t/c.npy --input %t/u.bin | FileCheck %s --check-prefix=VALUES
// RUN: magi-interp %t/fold.pt2 --input %t/c.npy --input %t/u.bin --lowered-pieces | FileCheck %s --check-prefix=VALUES
// RUN: magi-compile %t/fold.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
// A 2 x 2 kernel sliding by 1 over 3 x 3: the center pixel sums four entries.
// VALUES:      out0: tensor<1x1x3x3xf32> = {{\[\[\[}}[0, 11, 11], [22, 66, 44], [22, 55, 33]]]]
// Stride 2 = the kernel, padding 1: each pixel one entry, the border dropped.
// VALUES-NEXT: out1: tensor<2x2x2xbf16> = {{\[\[}}[30, 21], [12, 3]], {{\[}}[70, 61], [52, 43]]]

// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/bad.pt2 \
// RUN:   "{'inputs': {'c': ('f32', [1, 4, 5])}, 'nodes': [('aten.col2im.default', [('self', 'c'), ('output_size', [3, 3]), ('kernel_size', [2, 2]), ('dilation', [1, 1]), ('padding', [0, 0]), ('stride', [1, 1])], {'f': ('f32', [1, 1, 3, 3])})], 'outputs': ['f']}"
// RUN: not magi-import %t/bad.pt2 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: node 'f (torch.ops.aten.col2im.default)': col2im of 4 x 5 columns does not fit the kernel 2 x 2 and 2 x 2 blocks
