// Data-dependent sizes (docs/import.md, "Sizes of the data"): nonzero (and
// x[mask], through it) is imported as its composition, its count read on the host (magi.item,
// bounded by the element count); an .item() of an integer tensor is a
// magi.item named after its SymInt and bounded by its range. Interpreted,
// lowered on the CPU, and compiled: each read is a splitting piece of its
// own whose result the launch plan reads ("read"), and the symbols of the
// data are defined by the steps that give them.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/nz.pt2 @%S/Inputs/nonzero.spec
// RUN: magi-import %t/nz.pt2 -o %t/nz.mlir
// RUN: FileCheck %s --input-file=%t/nz.mlir
// RUN: magi-opt --verify-roundtrip %t/nz.mlir > /dev/null

// The count, every coordinate at the bound, each nonzero's row its
// running count and a zero's the spare row 0, then the read and rows 1 to n.
// CHECK-LABEL: func.func @main
// CHECK: %[[FLAT:.*]] = magi.view %arg0 [12] : tensor<3x4xf32> -> tensor<12xf32>
// CHECK: %[[MASK:.*]] = magi.ne %[[FLAT]], %{{.*}} : (tensor<12xf32>, f64) -> tensor<12xi1>
// CHECK: %[[ONES:.*]] = magi.to_copy %[[MASK]] {dtype = i64}
// CHECK: %[[COUNT:.*]] = magi.sum %[[ONES]] : (tensor<12xi64>) -> tensor<i64>
// CHECK: %[[RANK:.*]] = magi.cumsum %[[ONES]] {dim = 0 : i64}
// CHECK: %[[ROWS:.*]] = magi.mul %[[RANK]], %[[ONES]] : (tensor<12xi64>, tensor<12xi64>) -> tensor<12xi64>
// CHECK: %[[COORDS:.*]] = magi.cat %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<12x1xi64>, tensor<12x1xi64>) -> tensor<12x2xi64>
// CHECK: %[[SPARE:.*]] = magi.full [13, 2]
// CHECK: %[[PUT:.*]] = magi.index_put %[[SPARE]][%[[ROWS]]], %[[COORDS]] {indexed_dims = array<i64: 0>}
// CHECK: %[[N:.*]] = magi.item %[[COUNT]] bound %c12 : tensor<i64> -> index
// CHECK: %[[END:.*]] = magi.sym_add %[[N]], %{{.*}}
// CHECK: %[[NZ:.*]] = magi.slice %[[PUT]], 0 [1, %[[END]], 1] : tensor<13x2xi64> -> tensor<?x2xi64>
// CHECK: magi.bind_symbolic_shape %[[NZ]], [%u0]
// CHECK: magi.item %{{.*}} bound %{{.*}} : tensor<i64> -> index
// CHECK: %[[K:.*]] = magi.item %arg2 bound %{{.*}} {symbol = "u1"} : tensor<i64> -> index
// CHECK: magi.slice %arg3, 0 [0, %[[K]], 1] : tensor<8xf32> -> tensor<?xf32>
// A symbolic first size: the count of elements is s0 * 3, the bound too.
// CHECK: %[[S0:.*]] = magi.sym_size %arg4, 0 : tensor<?x3xi1>
// CHECK: %[[ALL:.*]] = magi.sym_mul %[[S0]], %{{.*}}
// CHECK: magi.view %arg4 [%[[ALL]]] : tensor<?x3xi1> -> tensor<?xi1>
// CHECK: magi.arange %{{.*}}, %[[ALL]], %{{.*}} {dtype = i64} : (i64, index, i64) -> tensor<?xi64>
// CHECK: magi.item %{{.*}} bound %[[ALL]] : tensor<i64> -> index
// A boolean mask: its nonzero coordinates, one index column a dimension.
// CHECK: %[[MASK2:.*]] = magi.gt %arg0, %{{.*}} : (tensor<3x4xf32>, f64) -> tensor<3x4xi1>
// CHECK: magi.view %[[MASK2]] [12] : tensor<3x4xi1> -> tensor<12xi1>
// CHECK: %[[ROWS2:.*]] = magi.squeeze %{{.*}} {dims = array<i64: 1>} : (tensor<?x1xi64>) -> tensor<?xi64>
// CHECK: %[[COLS2:.*]] = magi.squeeze %{{.*}} {dims = array<i64: 1>} : (tensor<?x1xi64>) -> tensor<?xi64>
// CHECK: magi.index %arg0[%[[ROWS2]], %[[COLS2]]] {indexed_dims = array<i64: 0, 1>} : (tensor<3x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xf32>
// A symbolic last size: the element count 2 * s1, the first coordinate
// the position floor-divided by s1, the second the position modulo s1.
// CHECK: %[[S1:.*]] = magi.sym_size %arg5, 1 : tensor<2x?xi1>
// CHECK: %[[QALL:.*]] = magi.sym_mul %[[S1]], %{{.*}}
// CHECK: magi.view %arg5 [%[[QALL]]] : tensor<2x?xi1> -> tensor<?xi1>
// CHECK: %[[STRIDE:.*]] = magi.sym_mul %{{.*}}, %{{.*}}
// CHECK: magi.div %{{.*}}, %[[STRIDE]] {rounding_mode = "floor"} : (tensor<?xi64>, index) -> tensor<?xi64>
// CHECK: magi.remainder %{{.*}}, %{{.*}} : (tensor<?xi64>, index) -> tensor<?xi64>
// CHECK: magi.item %{{.*}} bound %[[QALL]] : tensor<i64> -> index
// CHECK-NOT: magi.opaque

// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 3,4 0,1,0,2,0,0,0,0,3,0,4,5
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/m.npy int32 2,2,2 1,0,0,7,0,0,-2,0
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/k.npy int64 "" 5
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/v.npy float32 8 1,2,3,4,5,6,7,8
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/t.npy bool 5,3 0,1,0,1,1,0,0,0,0,0,0,1,1,0,0
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/q.npy bool 2,3 0,1,1,1,0,0
// RUN: magi-interp %t/nz.pt2 --input %t/x.npy --input %t/m.npy --input %t/k.npy --input %t/v.npy --input %t/t.npy --input %t/q.npy | FileCheck %s --check-prefix=OUT
// RUN: magi-interp %t/nz.pt2 --input %t/x.npy --input %t/m.npy --input %t/k.npy --input %t/v.npy --input %t/t.npy --input %t/q.npy --lowered-pieces | FileCheck %s --check-prefix=OUT
// OUT: out0: tensor<5x2xi64> = {{\[}}[0, 10], [0, 30], [20, 0], [20, 20], [20, 30]]
// OUT: out1: tensor<3x3xi64> = {{\[}}[0, 0, 0], [0, 1, 1], [1, 1, 0]]
// OUT: out2: tensor<5xf32> = [1, 2, 3, 4, 5]
// OUT: out3: tensor<5x2xi64> = {{\[}}[0, 1], [1, 0], [1, 1], [3, 2], [4, 0]]
// OUT: out4: tensor<4xf32> = [2, 3, 4, 5]
// OUT: out5: tensor<5xi64> = [0, 1, 2, 3, 4]
// OUT: out6: tensor<3x2xi64> = {{\[}}[0, 1], [0, 2], [1, 0]]

// No nonzero element: no rows; every element nonzero: every row.
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/zeros.npy float32 3,4 0,0,0,0,0,0,0,0,0,0,0,0
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/all.npy bool 2,3 1,1,1,1,1,1
// RUN: magi-interp %t/nz.pt2 --input %t/zeros.npy --input %t/m.npy --input %t/k.npy --input %t/v.npy --input %t/all.npy --input %t/all.npy --lowered-pieces | FileCheck %s --check-prefix=EDGES
// EDGES: out0: tensor<0x2xi64> = []
// EDGES: out3: tensor<6x2xi64> = {{\[}}[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
// EDGES: out4: tensor<0xf32> = []
// EDGES: out5: tensor<0xi64> = []
// EDGES: out6: tensor<6x2xi64> = {{\[}}[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]

// Each read ends a piece: the split gives it a splitting piece of its own.
// RUN: magi-opt %t/nz.mlir --magi-compile-to=split | FileCheck %s --check-prefix=SPLIT
// SPLIT: func.func private @main_piece_1(%arg0: tensor<i64>) -> index attributes {magi.is_splitting = true
// SPLIT-NEXT: %[[B:.*]] = arith.constant 12 : index
// SPLIT-NEXT: %[[R:.*]] = magi.item %arg0 bound %[[B]] : tensor<i64> -> index
// SPLIT-NEXT: return %[[R]] : index
// SPLIT-LABEL: func.func @main(
// SPLIT: %[[P0:.*]]:{{[0-9]+}} = call @main_piece_0(%arg0)
// SPLIT-NEXT: %[[N:.*]] = call @main_piece_1(%[[P0]]#0) : (tensor<i64>) -> index
// SPLIT-NEXT: %[[P2:.*]]:{{[0-9]+}} = call @main_piece_2(%[[N]], %[[P0]]#
// SPLIT-NEXT: magi.bind_symbolic_shape %[[P2]]#0, [%u0]
// The arange as long as the count reads it from the coordinates (a
// magi.sym_size in the piece that computes them), not from u0, which the
// runtime binds only after that piece's step.
// RUN: magi-opt %t/nz.mlir --magi-compile-to=split | FileCheck %s --check-prefix=PIECE2
// PIECE2-LABEL: func.func private @main_piece_2(
// PIECE2-NOT: magi.symbol = "u0"
// PIECE2: %[[NZ:.*]] = magi.slice
// PIECE2: %[[COUNT:.*]] = magi.sym_size %[[NZ]], 0 : tensor<?x2xi64>
// PIECE2: magi.arange %{{.*}}, %[[COUNT]], %{{.*}}

// The artifact (format 9): the read results with their bounds, the symbols
// of the data defined by the steps that give them.
// RUN: magi-compile %t/nz.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
// RUN: FileCheck %s --check-prefix=ART --input-file=%t/artifact/manifest.json
// RUN: FileCheck %s --check-prefix=VERSION --input-file=%t/artifact/manifest.json
// VERSION: "version": 14
// ART: "output_shapes": [
// ART-NEXT: [
// ART-NEXT: "u0",
// ART-NEXT: 2
// ART: "symbols": [
// ART: "max": 12,
// ART-NEXT: "min": 0,
// ART-NEXT: "name": "u0",
// ART-NEXT: "result": 0,
// ART-NEXT: "step": 2
// ART: "name": "u1",
// ART-NEXT: "result": 0,
// ART-NEXT: "step": 5
// ART: "name": "main_piece_1",
// ART: "bound": 12,
// ART-NEXT: "dtype": "i64",
// ART-NEXT: "read": {
// ART-NEXT: "base": "arg0",
// ART-NEXT: "offset": 0,
// ART-NEXT: "sizes": [],
// ART-NEXT: "strides": []
// The count of a symbolic input is bounded by its element count, a piece
// argument.
// RUN: FileCheck %s --check-prefix=SYMBOLIC --input-file=%t/artifact/manifest.json
// SYMBOLIC: "name": "u3",
// SYMBOLIC-NEXT: "result": 0,
// SYMBOLIC-NEXT: "step": 8
// SYMBOLIC: "bound": "arg1",
// SYMBOLIC-NEXT: "dtype": "i64",
