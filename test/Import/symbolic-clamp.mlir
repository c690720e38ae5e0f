// clamp with a bound known only when the graph runs (a SymFloat from a
// float .item(), a SymInt): that bound becomes ones times it and the clamp
// PyTorch's min(max(self, min), max), magi.maximum / magi.minimum for it,
// magi.clamp for a constant one. A SymFloat bounding an integer tensor
// (the result would be a float) stays opaque.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/clamp.pt2 @%S/Inputs/symbolic-clamp.spec
// RUN: magi-import %t/clamp.pt2 | FileCheck %s
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/t.npy float32 1 2.5
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 5 -3,-1,0,2.5,9
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/y.npy int64 5 0,3,5,9,12
// RUN: magi-interp %t/clamp.pt2 --input %t/t.npy --input %t/x.npy --input %t/y.npy | FileCheck %s --check-prefix=VALUES
// RUN: magi-interp %t/clamp.pt2 --input %t/t.npy --input %t/x.npy --input %t/y.npy --lowered-pieces | FileCheck %s --check-prefix=VALUES
// RUN: magi-compile %t/clamp.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/int.pt2 \
// RUN:   '{"inputs": {"t": ("f32", [1]), "y": ("i64", [3])}, "nodes": [("aten._local_scalar_dense.default", [("self", "t")], {"s": ("symfloat", "Symbol(\"zuf0\")")}), \
// RUN:     ("aten.clamp.default", [("self", "y"), ("max", "s")], {"d": ("f32", [3])})], "outputs": ["d"]}'
// RUN: magi-import %t/int.pt2 2>&1 | FileCheck %s --check-prefix=INT

// CHECK:      %[[S:.*]] = magi.item %arg0 : tensor<1xf32> -> f64
// CHECK-NEXT: %[[ONES:.*]] = magi.full_like %arg1 {dtype = f32, fill_value = 1.000000e+00 : f64}
// CHECK-NEXT: %[[MIN:.*]] = magi.mul %[[ONES]], %[[S]] : (tensor<5xf32>, f64) -> tensor<5xf32>
// CHECK-NEXT: magi.maximum %arg1, %[[MIN]] : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
// CHECK-NEXT: %[[LOW:.*]] = magi.clamp %arg1 {min = -1.000000e+00 : f64}
// CHECK:      %[[MAX:.*]] = magi.mul %{{.*}}, %[[S]]
// CHECK-NEXT: magi.minimum %[[LOW]], %[[MAX]]
// CHECK:      %[[K:.*]] = magi.sym_size %arg2, 0
// CHECK:      %[[KS:.*]] = magi.mul %{{.*}}, %[[K]] : (tensor<?xi64>, index) -> tensor<?xi64>
// CHECK-NEXT: %[[ATLEAST:.*]] = magi.maximum %arg2, %[[KS]]
// CHECK-NEXT: magi.clamp %[[ATLEAST]] {max = 7.000000e+00 : f64}
// CHECK-NOT:  magi.opaque

// VALUES:      out0: tensor<5xf32> = [2.5, 2.5, 2.5, 2.5, 9]
// VALUES-NEXT: out1: tensor<5xf32> = [-1, -1, 0, 2.5, 2.5]
// VALUES-NEXT: out2: tensor<5xi64> = [5, 5, 5, 7, 7]

// INT: warning: ops without a typed magi op, kept as magi.opaque: aten::clamp.default (1)
