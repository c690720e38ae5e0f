// sym_numel, sym_stride, sym_storage_offset and var.dim, in an archive
// written by op_archive.py (PyTorch is not here to export one):
// - sym_numel is the product of the sizes, magi.sym_size for a symbolic dim;
// - a stride or storage offset the archive records as an integer holds for
//   every size and becomes an index constant;
// - var.dim is magi.var with correction 1 when unbiased (the default), else 0.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/ops.pt2 \
// RUN:   "{'symbols': {'s0': (2, None)}, 'inputs': {'x': ('f32', [3, 's0', 5]), 'y': ('f32', [2, 4])}, \
// RUN:     'nodes': [('aten.sym_numel.default', [('self', 'x')], {'n': ('index', 'Mul(Integer(15), s0)')}), \
// RUN:               ('aten.sym_numel.default', [('self', 'y')], {'m': ('index', 'Integer(8)')}), \
// RUN:               ('aten.sym_stride.int', [('self', 'x'), ('dim', -1)], {'st': ('index', 'Integer(1)')}), \
// RUN:               ('aten.sym_storage_offset.default', [('self', 'x')], {'off': ('index', 'Integer(0)')}), \
// RUN:               ('aten.var.dim', [('self', 'x'), ('dim', [1]), ('unbiased', False), ('keepdim', True)], {'v': ('f32', [3, 1, 5])}), \
// RUN:               ('aten.var.dim', [('self', 'y'), ('dim', None)], {'w': ('f32', [])})], \
// RUN:     'outputs': ['v', 'w', 'n', 'm', 'st', 'off']}"
// RUN: magi-import %t/ops.pt2 -o %t/ops.mlir 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: FileCheck %s --input-file=%t/ops.mlir
// RUN: magi-opt --verify-roundtrip %t/ops.mlir > /dev/null

// QUIET-NOT: opaque

// CHECK-LABEL: func.func @main(
// CHECK:      %[[S:.*]] = magi.sym_size %arg0, 1 : tensor<3x?x5xf32>
// CHECK-NEXT: %[[C15:.*]] = arith.constant 15 : index
// CHECK-NEXT: %[[N:.*]] = magi.sym_mul %[[S]], %[[C15]]
// CHECK-NEXT: %[[M:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[ST:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[OFF:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[V:.*]] = magi.var %arg0 {correction = 0.000000e+00 : f64, dims = array<i64: 1>, keepdim = true} : (tensor<3x?x5xf32>) -> tensor<3x1x5xf32>
// CHECK-NEXT: %[[W:.*]] = magi.var %arg1 : (tensor<2x4xf32>) -> tensor<f32>
// CHECK-NEXT: return %[[V]], %[[W]], %[[N]], %[[M]], %[[ST]], %[[OFF]]
