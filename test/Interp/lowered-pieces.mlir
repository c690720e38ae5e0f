// --lowered-pieces: the split graph is interpreted, every piece it calls is
// lowered to linalg, compiled for the CPU and run through MLIR's
// ExecutionEngine. A small split graph (elementwise ops, reductions, mm;
// f32, bf16, i64 and i1 tensors, a 0-d one, dynamic sizes, index scalars in
// and out) gives the same outputs both ways. The inputs are exact in every
// dtype and so are the results, so both runs print the same values.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/tensors.py npy %t/x.npy float32 2,3 1,2,3,-4,0,6
// RUN: %python %S/Inputs/tensors.py npy %t/w.npy float32 3,2 1,2,3,4,5,6
// RUN: %python %S/Inputs/tensors.py npy %t/ids.npy int64 2 3,-1
// RUN: magi-interp %s --input %t/x.npy --input %t/w.npy --input %t/ids.npy | FileCheck %s
// RUN: magi-interp %s --lowered-pieces --input %t/x.npy --input %t/w.npy --input %t/ids.npy | FileCheck %s

// By hand: y = relu(x * 0.5 + 0.5) = [[1, 1.5, 2], [0, 0.5, 3.5]];
// m = y @ w = [[15.5, 20], [19, 23]]; s = sum(y, -1) = [[4.5], [4]];
// o = m + s = [[20, 24.5], [23, 27]]; amax(o, 1) = [[24.5], [27]];
// mean(o, 1) = [[22.25], [25]]; o * o in bf16: 400, 600.25, 529, 729 round
// to 400, 600, 528, 728; ids > 0 = [true, false]; ids * ids = [9, 1];
// sum(ids) = 2; s0 + 1 = 3, then * 2 = 6.
// CHECK:      out0: tensor<2x2xf32> = {{\[}}[20, 24.5], [23, 27]]
// CHECK-NEXT: out1: tensor<2x1xf32> = {{\[}}[24.5], [27]]
// CHECK-NEXT: out2: tensor<2x1xf32> = {{\[}}[22.25], [25]]
// CHECK-NEXT: out3: tensor<2x2xbf16> = {{\[}}[400, 600], [528, 728]]
// CHECK-NEXT: out4: tensor<2xi1> = [true, false]
// CHECK-NEXT: out5: tensor<2xi64> = [9, 1]
// CHECK-NEXT: out6: tensor<i64> = 2
// CHECK-NEXT: out7: tensor<i64> = 6

func.func @main(%x: tensor<?x3xf32>, %w: tensor<3x2xf32>, %ids: tensor<?xi64>)
    -> (tensor<?x2xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x2xbf16>,
        tensor<?xi1>, tensor<?xi64>, tensor<i64>, tensor<i64>)
    attributes {magi.split} {
  %s0 = magi.symbolic_int "s0" min 1 max 16
  magi.bind_symbolic_shape %x, [%s0], affine_map<()[s0] -> (s0, 3)> : tensor<?x3xf32>
  magi.bind_symbolic_shape %ids, [%s0], affine_map<()[s0] -> (s0)> : tensor<?xi64>
  %y, %n = call @main_piece_0(%x, %s0) : (tensor<?x3xf32>, index) -> (tensor<?x3xf32>, index)
  %o, %a, %mean = call @main_piece_1(%y, %w, %s0) : (tensor<?x3xf32>, tensor<3x2xf32>, index) -> (tensor<?x2xf32>, tensor<?x1xf32>, tensor<?x1xf32>)
  %sq, %pos, %ids2, %total, %n2 = call @main_piece_2(%o, %ids, %n) : (tensor<?x2xf32>, tensor<?xi64>, index) -> (tensor<?x2xbf16>, tensor<?xi1>, tensor<?xi64>, tensor<i64>, index)
  %t = magi.scalar_tensor %n2 {dtype = i64} : (index) -> tensor<i64>
  return %o, %a, %mean, %sq, %pos, %ids2, %total, %t : tensor<?x2xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x2xbf16>, tensor<?xi1>, tensor<?xi64>, tensor<i64>, tensor<i64>
}

// Elementwise, and symbolic arithmetic returned as an index.
func.func private @main_piece_0(%x: tensor<?x3xf32>, %s0: index {magi.symbol = "s0"})
    -> (tensor<?x3xf32>, index)
    attributes {magi.graph_index = 0 : i64, magi.is_splitting = false, magi.piece_index = 0 : i64} {
  %half = arith.constant 0.5 : f64
  %0 = magi.mul %x, %half : (tensor<?x3xf32>, f64) -> tensor<?x3xf32>
  %1 = magi.add %0, %half : (tensor<?x3xf32>, f64) -> tensor<?x3xf32>
  %y = magi.relu %1 : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %one = arith.constant 1 : index
  %n = magi.sym_add %s0, %one
  return %y, %n : tensor<?x3xf32>, index
}

// Reductions and a matrix product.
func.func private @main_piece_1(%y: tensor<?x3xf32>, %w: tensor<3x2xf32>, %s0: index {magi.symbol = "s0"})
    -> (tensor<?x2xf32>, tensor<?x1xf32>, tensor<?x1xf32>)
    attributes {magi.graph_index = 1 : i64, magi.is_splitting = false, magi.piece_index = 1 : i64} {
  %s = magi.sum %y {dims = array<i64: -1>, keepdim = true} : (tensor<?x3xf32>) -> tensor<?x1xf32>
  %m = magi.mm %y, %w : (tensor<?x3xf32>, tensor<3x2xf32>) -> tensor<?x2xf32>
  %o = magi.add %m, %s : (tensor<?x2xf32>, tensor<?x1xf32>) -> tensor<?x2xf32>
  %a = magi.amax %o {dims = array<i64: 1>, keepdim = true} : (tensor<?x2xf32>) -> tensor<?x1xf32>
  %mean = magi.mean %o {dims = array<i64: -1>, keepdim = true} : (tensor<?x2xf32>) -> tensor<?x1xf32>
  return %o, %a, %mean : tensor<?x2xf32>, tensor<?x1xf32>, tensor<?x1xf32>
}

// Other dtypes: bf16 (rounded once), i1, i64 and a 0-d sum.
func.func private @main_piece_2(%o: tensor<?x2xf32>, %ids: tensor<?xi64>, %n: index)
    -> (tensor<?x2xbf16>, tensor<?xi1>, tensor<?xi64>, tensor<i64>, index)
    attributes {magi.graph_index = 2 : i64, magi.is_splitting = false, magi.piece_index = 2 : i64} {
  %h = magi.to_copy %o {dtype = bf16} : (tensor<?x2xf32>) -> tensor<?x2xbf16>
  %sq = magi.mul %h, %h : (tensor<?x2xbf16>, tensor<?x2xbf16>) -> tensor<?x2xbf16>
  %zero = arith.constant 0 : i64
  %pos = magi.gt %ids, %zero : (tensor<?xi64>, i64) -> tensor<?xi1>
  %ids2 = magi.mul %ids, %ids : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  %total = magi.sum %ids {dims = array<i64: 0>} : (tensor<?xi64>) -> tensor<i64>
  %two = arith.constant 2 : index
  %n2 = magi.sym_mul %n, %two
  return %sq, %pos, %ids2, %total, %n2 : tensor<?x2xbf16>, tensor<?xi1>, tensor<?xi64>, tensor<i64>, index
}

// A piece that does not lower names the op and the piece.
// RUN: not magi-interp %s --lowered-pieces --function=unlowered --input %t/x.npy 2>&1 | FileCheck %s --check-prefix=UNLOWERED
// UNLOWERED:      magi-interp: error: 'magi.scatter' in piece @unlowered_piece_0 was not lowered to linalg at {{.*}}lowered-pieces.mlir:{{[0-9]+}}:
// UNLOWERED-NEXT: magi-interp: error: piece @unlowered_piece_0 failed to lower to linalg for the CPU run at {{.*}}lowered-pieces.mlir:
// UNLOWERED-NEXT: magi-interp: error: in this call of @unlowered_piece_0 at {{.*}}lowered-pieces.mlir:
func.func @unlowered(%x: tensor<2x3xf32>) -> tensor<2x3xi1> attributes {magi.split} {
  %y = call @unlowered_piece_0(%x) : (tensor<2x3xf32>) -> tensor<2x3xi1>
  return %y : tensor<2x3xi1>
}
// A bool scatter_add: bool elements have no atomic add.
func.func private @unlowered_piece_0(%x: tensor<2x3xf32>) -> tensor<2x3xi1>
    attributes {magi.graph_index = 0 : i64, magi.is_splitting = false, magi.piece_index = 0 : i64} {
  %idx = magi.constant dense<[[0, 2, 1], [1, 0, 2]]> : tensor<2x3xi64>
  %m = magi.constant dense<true> : tensor<2x3xi1>
  %y = magi.scatter %m, %idx, %m {dim = 1 : i64, reduce = "add"} : (tensor<2x3xi1>, tensor<2x3xi64>, tensor<2x3xi1>) -> tensor<2x3xi1>
  return %y : tensor<2x3xi1>
}

// A piece may return its argument, and one value twice: the caller's tensor
// is never freed, nor a buffer twice.
// RUN: magi-interp %s --lowered-pieces --function=aliases --input %t/x.npy | FileCheck %s --check-prefix=ALIASES
// ALIASES:      out0: tensor<2x3xf32> = {{\[}}[1, 2, 3], [-4, 0, 6]]
// ALIASES-NEXT: out1: tensor<2x3xf32> = {{\[}}[-1, -2, -3], [4, -0, -6]]
// ALIASES-NEXT: out2: tensor<2x3xf32> = {{\[}}[-1, -2, -3], [4, -0, -6]]
func.func @aliases(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) attributes {magi.split} {
  %a, %b, %c = call @aliases_piece_0(%x) : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  return %a, %b, %c : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
func.func private @aliases_piece_0(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
    attributes {magi.graph_index = 0 : i64, magi.is_splitting = false, magi.piece_index = 0 : i64} {
  %n = magi.neg %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %x, %n, %n : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// The other dtypes at the piece boundary: f16, f64, i32, i16, i8 (x * 1/3
// rounds once; exp of f16 computes in f32 and rounds once).
// RUN: magi-interp %s --function=dtypes --input %t/x.npy | FileCheck %s --check-prefix=DTYPES
// RUN: magi-interp %s --lowered-pieces --function=dtypes --input %t/x.npy | FileCheck %s --check-prefix=DTYPES
// DTYPES:      out0: tensor<2x3xf16> = {{\[}}[0.3333, 0.6665, 1], [-1.333, 0, 2]]
// DTYPES-NEXT: out1: tensor<2x3xf64> = {{\[}}[0.3333333333333333, 0.6666666666666666, 1], [-1.3333333333333333, 0, 2]]
// DTYPES-NEXT: out2: tensor<2x3xi32> = {{\[}}[1, 4, 9], [16, 0, 36]]
// DTYPES-NEXT: out3: tensor<2x3xi16> = {{\[}}[1, 4, 9], [16, 0, 36]]
// DTYPES-NEXT: out4: tensor<2x3xi8> = {{\[}}[1, 4, 9], [16, 0, 36]]
// DTYPES-NEXT: out5: tensor<2x3xf32> = {{\[}}[2.71875, 7.390625, 20.078125], [0.018310547, 1, 403.5]]
func.func @dtypes(%x: tensor<2x3xf32>) -> (tensor<2x3xf16>, tensor<2x3xf64>, tensor<2x3xi32>, tensor<2x3xi16>, tensor<2x3xi8>, tensor<2x3xf32>) attributes {magi.split} {
  %h = magi.to_copy %x {dtype = f16} : (tensor<2x3xf32>) -> tensor<2x3xf16>
  %d = magi.to_copy %x {dtype = f64} : (tensor<2x3xf32>) -> tensor<2x3xf64>
  %i = magi.to_copy %x {dtype = i32} : (tensor<2x3xf32>) -> tensor<2x3xi32>
  %a, %b, %c, %e, %f, %g = call @dtypes_piece_0(%h, %d, %i) : (tensor<2x3xf16>, tensor<2x3xf64>, tensor<2x3xi32>) -> (tensor<2x3xf16>, tensor<2x3xf64>, tensor<2x3xi32>, tensor<2x3xi16>, tensor<2x3xi8>, tensor<2x3xf32>)
  return %a, %b, %c, %e, %f, %g : tensor<2x3xf16>, tensor<2x3xf64>, tensor<2x3xi32>, tensor<2x3xi16>, tensor<2x3xi8>, tensor<2x3xf32>
}
func.func private @dtypes_piece_0(%h: tensor<2x3xf16>, %d: tensor<2x3xf64>, %i: tensor<2x3xi32>) -> (tensor<2x3xf16>, tensor<2x3xf64>, tensor<2x3xi32>, tensor<2x3xi16>, tensor<2x3xi8>, tensor<2x3xf32>)
    attributes {magi.graph_index = 0 : i64, magi.is_splitting = false, magi.piece_index = 0 : i64} {
  %third = arith.constant 0.3333333333333333 : f64
  %h2 = magi.mul %h, %third : (tensor<2x3xf16>, f64) -> tensor<2x3xf16>
  %d2 = magi.mul %d, %third : (tensor<2x3xf64>, f64) -> tensor<2x3xf64>
  %i2 = magi.mul %i, %i : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %s = magi.to_copy %i2 {dtype = i16} : (tensor<2x3xi32>) -> tensor<2x3xi16>
  %b = magi.to_copy %i2 {dtype = i8} : (tensor<2x3xi32>) -> tensor<2x3xi8>
  %e = magi.exp %h : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %f = magi.to_copy %e {dtype = f32} : (tensor<2x3xf16>) -> tensor<2x3xf32>
  return %h2, %d2, %i2, %s, %b, %f : tensor<2x3xf16>, tensor<2x3xf64>, tensor<2x3xi32>, tensor<2x3xi16>, tensor<2x3xi8>, tensor<2x3xf32>
}
