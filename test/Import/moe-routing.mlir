// Mixture-of-experts routing and expert products as transformers' grouped_mm
// experts export them (Inputs/moe-routing.spec): histc counts the tokens
// per expert (a scatter add of ones), _grouped_mm multiplies each expert's
// rows by its weight (magi.grouped_mm, the weight's transpose folded into
// it) and index_add adds the results back into their tokens (an
// accumulating index_put). Interpreted, lowered and run on the CPU, and
// compiled for the GPU (PTX); the values are by hand.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/moe.pt2 @%S/Inputs/moe-routing.spec
// RUN: magi-import %t/moe.pt2 -o %t/moe.mlir
// RUN: FileCheck %s --input-file=%t/moe.mlir
// RUN: magi-opt --verify-roundtrip %t/moe.mlir > /dev/null

// CHECK-LABEL: func.func @main(
// The tokens per expert: ids binned into 3 bins over [0, 2].
// CHECK:         %[[IDS:.*]] = magi.to_copy %arg0 {dtype = f32}
// CHECK:         magi.ge
// CHECK:         magi.le
// CHECK:         %[[BIN:.*]] = magi.clamp %{{.*}} {max = 2.000000e+00 : f64, min = 0.000000e+00 : f64} : (tensor<6xi64>) -> tensor<6xi64>
// CHECK:         %[[ZEROS:.*]] = magi.full [3] {dtype = f32, fill_value = 0.000000e+00 : f64}
// CHECK:         %[[COUNTS:.*]] = magi.scatter %[[ZEROS]], %[[BIN]], %{{.*}} {dim = 0 : i64, reduce = "add"} : (tensor<3xf32>, tensor<6xi64>, tensor<6xf32>) -> tensor<3xf32>
// CHECK:         %[[OFFS:.*]] = magi.cumsum %[[COUNTS]] {dim = 0 : i64, dtype = i32}
// CHECK:         %[[WT:.*]] = magi.permute %arg2 {dims = array<i64: 0, 2, 1>}
// CHECK:         %[[OUT:.*]] = magi.grouped_mm %arg1, %[[WT]], %[[OFFS]] : (tensor<6x2xf32>, tensor<3x2x4xf32>, tensor<3xi32>) -> tensor<6x4xf32>
// CHECK:         %[[SCALED:.*]] = magi.mul %[[OUT]], %{{.*}} : (tensor<6x4xf32>, i64)
// CHECK:         magi.index_put %arg4[%arg3], %[[SCALED]] {accumulate = true, indexed_dims = array<i64: 0>}
// histc with min == max: the data's range, widened where it is one value.
// CHECK:         %[[LEAST:.*]] = magi.amin
// CHECK:         %[[MOST:.*]] = magi.amax
// CHECK:         magi.eq %[[LEAST]], %[[MOST]]
// Integer ids bin in int64: trunc(x * 4 / 3) by integer division.
// CHECK:         magi.mul %{{.*}}, %{{.*}} : (tensor<6xi64>, i64) -> tensor<6xi64>
// CHECK:         magi.div %{{.*}}, %{{.*}} {rounding_mode = "trunc"} : (tensor<6xi64>, i64) -> tensor<6xi64>
// CHECK:         magi.full [4] {dtype = i64, fill_value = 0 : i64}

// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/ids.npy int64 6 0,0,1,2,2,2
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/h.npy float32 6,2 1,0,0,1,1,1,2,0,0,2,1,-1
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/w.npy float32 3,4,2 1,0,0,1,1,1,1,-1,2,0,0,2,0,0,1,1,0,1,1,0,3,0,0,3
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/tok.npy int64 6 0,1,0,3,3,2
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/base.npy float32 4,4 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 5 1,2,2,3,5
// RUN: magi-interp %t/moe.pt2 --input %t/ids.npy --input %t/h.npy --input %t/w.npy --input %t/tok.npy --input %t/base.npy --input %t/x.npy | FileCheck %s --check-prefix=VALUES
// RUN: magi-interp %t/moe.pt2 --input %t/ids.npy --input %t/h.npy --input %t/w.npy --input %t/tok.npy --input %t/base.npy --input %t/x.npy --lowered-pieces | FileCheck %s --check-prefix=VALUES
// Experts 0, 0, 1, 2, 2, 2: two tokens, one, three; ends 2, 3, 6.
// VALUES:      out0: tensor<3xf32> = [2, 1, 3]
// VALUES-NEXT: out1: tensor<3xi32> = [2, 3, 6]
// Rows 0-1 times w[0]^T, row 2 times w[1]^T, rows 3-5 times w[2]^T.
// VALUES-NEXT: out2: tensor<6x4xf32> = {{\[}}[1, 0, 1, 1], [0, 1, 1, -1], [2, 2, 0, 2], [0, 2, 6, 0], [2, 0, 0, 6], [-1, 1, 3, -3]]
// Twice the rows, added into tokens 0, 1, 0, 3, 3, 2.
// VALUES-NEXT: out3: tensor<4x4xf32> = {{\[}}[6, 4, 2, 6], [0, 2, 2, -2], [-2, 2, 6, -6], [4, 4, 12, 12]]
// 1, 2, 2, 3, 5 over [1, 5] in 4 bins (5 in the last); over [2, 3] in 2.
// VALUES-NEXT: out4: tensor<4xf32> = [1, 2, 1, 1]
// VALUES-NEXT: out5: tensor<2xf32> = [2, 1]
// Ids 0, 0, 1, 2, 2, 2 in 4 bins over [0, 3].
// VALUES-NEXT: out6: tensor<4xi64> = [2, 1, 3, 0]

// The weight's transpose folds into grouped_mm, and the graph compiles for
// the GPU.
// RUN: magi-opt %t/moe.mlir --magi-compile-to=post-grad | FileCheck %s --check-prefix=FOLD
// FOLD: magi.grouped_mm %{{.*}}, %{{.*}}, %{{.*}} {transpose_mat2} : (tensor<6x2xf32>, tensor<3x4x2xf32>, tensor<3xi32>) -> tensor<6x4xf32>
// RUN: magi-compile %t/moe.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet

// _grouped_mm's other forms: two 3-d operands without offsets are a bmm;
// offsets along K (2-d by 2-d) stay opaque.
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/forms.pt2 \
// RUN:   "{'inputs': {'a': ('bf16', [2, 3, 4]), 'b': ('bf16', [2, 4, 5]), 'c': ('bf16', [3, 8]), 'd': ('bf16', [8, 5]), 'o': ('i32', [2])}, \
// RUN:     'nodes': [('aten._grouped_mm.default', [('self', 'a'), ('mat2', 'b')], {'r': ('bf16', [2, 3, 5])}), \
// RUN:               ('aten._grouped_mm.default', [('self', 'c'), ('mat2', 'd'), ('offs', 'o')], {'s': ('bf16', [2, 3, 5])})], \
// RUN:     'outputs': ['r', 's']}"
// RUN: magi-import %t/forms.pt2 2>&1 | FileCheck %s --check-prefix=FORMS
// FORMS: warning: ops without a typed magi op, kept as magi.opaque: aten::_grouped_mm.default (1)
// FORMS: magi.bmm %arg0, %arg1 : (tensor<2x3x4xbf16>, tensor<2x4x5xbf16>) -> tensor<2x3x5xbf16>
// FORMS: magi.opaque "aten::_grouped_mm.default"
