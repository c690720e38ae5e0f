// full, full_like and fill.Scalar with a fill value known only when the
// graph runs (a SymFloat from a float .item(), a SymInt) import as ones
// times the value, an elementwise product: the float .item() stays on the
// device, the SymInt is a kernel argument. A SymFloat filling an integer
// tensor (ones times it would be a float) stays opaque.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/fill.pt2 @%S/Inputs/symbolic-fill.spec
// RUN: magi-import %t/fill.pt2 | FileCheck %s
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/t.npy float32 1 -2.5
// RUN: %python %S/../Interp/Inputs/tensors.py bin %t/x bfloat16 5,3 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/n.npy int64 5 0,0,0,0,0
// RUN: magi-interp %t/fill.pt2 --input %t/t.npy --input %t/x.bin --input %t/n.npy | FileCheck %s --check-prefix=VALUES
// RUN: magi-interp %t/fill.pt2 --input %t/t.npy --input %t/x.bin --input %t/n.npy --lowered-pieces | FileCheck %s --check-prefix=VALUES
// RUN: magi-compile %t/fill.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/int.pt2 \
// RUN:   '{"inputs": {"t": ("f32", [1])}, "nodes": [("aten._local_scalar_dense.default", [("self", "t")], {"s": ("symfloat", "Symbol(\"zuf0\")")}), \
// RUN:     ("aten.full.default", [("size", [2]), ("fill_value", "s"), ("dtype", ("dtype", "i64"))], {"f": ("i64", [2])})], "outputs": ["f"]}'
// RUN: magi-import %t/int.pt2 2>&1 | FileCheck %s --check-prefix=INT

// CHECK:      %[[S:.*]] = magi.item %arg0 : tensor<1xf32> -> f64
// CHECK-NEXT: %[[ONES:.*]] = magi.full [4] {dtype = f32, fill_value = 1.000000e+00 : f64} : tensor<4xf32>
// CHECK-NEXT: magi.mul %[[ONES]], %[[S]] : (tensor<4xf32>, f64) -> tensor<4xf32>
// CHECK:      %[[K:.*]] = magi.sym_size %arg1, 0
// CHECK-NEXT: %[[LIKE:.*]] = magi.full_like %arg1 {dtype = bf16, fill_value = 1.000000e+00 : f64}
// CHECK-NEXT: magi.mul %[[LIKE]], %[[K]] : (tensor<?x3xbf16>, index) -> tensor<?x3xbf16>
// CHECK:      %[[INTS:.*]] = magi.full_like %arg2 {dtype = i64, fill_value = 1.000000e+00 : f64}
// CHECK-NEXT: magi.mul %[[INTS]], %[[K]] : (tensor<?xi64>, index) -> tensor<?xi64>
// CHECK-NOT:  magi.opaque

// VALUES:      out0: tensor<4xf32> = [-2.5, -2.5, -2.5, -2.5]
// VALUES-NEXT: out1: tensor<5x3xbf16> = {{\[\[}}5, 5, 5], [5, 5, 5], [5, 5, 5], [5, 5, 5], [5, 5, 5]]
// VALUES-NEXT: out2: tensor<5xi64> = [5, 5, 5, 5, 5]

// INT: warning: ops without a typed magi op, kept as magi.opaque: aten::full.default (1)
// INT: magi.opaque "aten::full.default"
