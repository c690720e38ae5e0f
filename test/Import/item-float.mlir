// A float .item() (aten._local_scalar_dense of a one-element float tensor)
// is a SymFloat in torch.export: its output kind `as_sym_float` imports as
// an f64 result, and an argument of that kind (here mul.Tensor's `other`)
// takes it as a scalar operand. magi-item-to-tensor then keeps it on the
// device (the tensor viewed as 0-d), so the graph compiles.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/item.pt2 \
// RUN:   '{"inputs": {"t": ("f32", [1]), "x": ("f32", [4])}, "nodes": [("aten._local_scalar_dense.default", [("self", "t")], {"s": ("symfloat", "Symbol(\"zuf0\")")}), ("aten.mul.Tensor", [("self", "x"), ("other", "s")], {"y": ("f32", [4])})], "outputs": ["y"]}'
// RUN: magi-import %t/item.pt2 -o %t/item.mlir
// RUN: FileCheck %s --input-file=%t/item.mlir
// RUN: magi-opt --verify-roundtrip %t/item.mlir > /dev/null
// CHECK: %[[S:.*]] = magi.item %arg0 : tensor<1xf32> -> f64
// CHECK: magi.mul %arg1, %[[S]] : (tensor<4xf32>, f64) -> tensor<4xf32>

// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/t.npy float32 1 2.5
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 4 1,2,3,4
// RUN: magi-interp %t/item.pt2 --input %t/t.npy --input %t/x.npy | FileCheck %s --check-prefix=OUT
// RUN: magi-interp %t/item.pt2 --input %t/t.npy --input %t/x.npy --lowered-pieces | FileCheck %s --check-prefix=OUT
// OUT: out0: tensor<4xf32> = [2.5, 5, 7.5, 10]

// The split graph has no item left: it stays a device tensor.
// RUN: magi-opt %t/item.mlir --magi-compile-to=split | FileCheck %s --check-prefix=SPLIT
// SPLIT-NOT: magi.item
// SPLIT: magi.mul %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
