// x[mask] = v (aten.index_put with one bool mask, lib/Import/ConvertIndexing.cpp):
// one value, not accumulated, is a magi.where under the mask (no read on the
// host); rows of values, or an accumulating put, go to the mask's nonzero
// coordinates, whose count is read on the host. Interpreted, lowered on the
// CPU, and compiled.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/put.pt2 @%S/Inputs/mask-put.spec
// RUN: magi-import %t/put.pt2 -o %t/put.mlir
// RUN: FileCheck %s --input-file=%t/put.mlir
// RUN: magi-opt --verify-roundtrip %t/put.mlir > /dev/null

// CHECK-LABEL: func.func @main
// CHECK:      %[[A:.*]] = magi.where %arg1, %arg4, %arg0 : (tensor<3x4xi1>, tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xf32>
// The row mask: its count read, then the rows at its coordinates.
// CHECK:      magi.item %{{.*}} bound %{{.*}} : tensor<i64> -> index
// CHECK:      %[[R:.*]] = magi.squeeze %{{.*}} {dims = array<i64: 1>} : (tensor<?x1xi64>) -> tensor<?xi64>
// CHECK:      %[[B:.*]] = magi.index_put %arg0[%[[R]]], %arg3 {indexed_dims = array<i64: 0>} : (tensor<3x4xf32>, tensor<?xi64>, tensor<?x4xf32>) -> tensor<3x4xf32>
// Accumulated: through the coordinates too.
// CHECK:      magi.item %{{.*}} bound %{{.*}} : tensor<i64> -> index
// CHECK:      magi.index_put %arg0[%{{.*}}, %{{.*}}], %arg4 {accumulate = true, indexed_dims = array<i64: 0, 1>}
// CHECK-NOT:  magi.opaque

// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 3,4 0,1,2,3,4,5,6,7,8,9,10,11
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/mask.npy bool 3,4 1,0,0,1,0,0,0,0,0,1,1,0
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/rows.npy bool 3 1,0,1
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/r.npy float32 2,4 100,101,102,103,200,201,202,203
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/v.npy float32 "" -1
// RUN: magi-interp %t/put.pt2 --input %t/x.npy --input %t/mask.npy --input %t/rows.npy --input %t/r.npy --input %t/v.npy | FileCheck %s --check-prefix=OUT
// RUN: magi-interp %t/put.pt2 --input %t/x.npy --input %t/mask.npy --input %t/rows.npy --input %t/r.npy --input %t/v.npy --lowered-pieces | FileCheck %s --check-prefix=OUT
// OUT:      out0: tensor<3x4xf32> = {{\[}}[-1, 1, 2, -1], [4, 5, 6, 7], [8, -1, -1, 11]]
// OUT-NEXT: out1: tensor<3x4xf32> = {{\[}}[100, 101, 102, 103], [4, 5, 6, 7], [200, 201, 202, 203]]
// OUT-NEXT: out2: tensor<3x4xf32> = {{\[}}[-1, 1, 2, 2], [4, 5, 6, 7], [8, 8, 9, 11]]

// RUN: magi-compile %t/put.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
// RUN: FileCheck %s --check-prefix=READS --input-file=%t/artifact/manifest.json
// READS: "read": {
// READS: "read": {
