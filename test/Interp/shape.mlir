// Shape, view and indexing ops, materialized as values.

// Every function also lowered and run on the CPU, with the same values
// (the writes include scatter_add and index_put with accumulate: atomic
// updates).

// RUN: magi-interp %s --function=views | FileCheck %s --check-prefix=VIEW
// RUN: magi-interp %s --function=views --lowered-pieces | FileCheck %s --check-prefix=VIEW
// RUN: magi-interp %s --function=indexing | FileCheck %s --check-prefix=INDEX
// RUN: magi-interp %s --function=indexing --lowered-pieces | FileCheck %s --check-prefix=INDEX

// VIEW:      out0: tensor<3x2xf32> = {{\[}}[0, 1], [2, 3], [4, 5]]
// VIEW-NEXT: out1: tensor<2x2x3xf32> = {{\[}}{{\[}}[0, 1, 2], [3, 4, 5]], {{\[}}[0, 1, 2], [3, 4, 5]]]
// VIEW-NEXT: out2: tensor<3x2xf32> = {{\[}}[0, 3], [1, 4], [2, 5]]
// VIEW-NEXT: out3: tensor<2x1x3xf32> = {{\[}}{{\[}}[0, 1, 2]], {{\[}}[3, 4, 5]]]
// VIEW-NEXT: out4: tensor<2x3xf32> = {{\[}}[0, 1, 2], [3, 4, 5]]
// VIEW-NEXT: out5: tensor<2x1xf32> = {{\[}}[2], [5]]
// VIEW-NEXT: out6: tensor<2x2xf32> = {{\[}}[0, 2], [3, 5]]
// VIEW-NEXT: out7: tensor<2xf32> = [2, 5]
// VIEW-NEXT: out8: tensor<4x3xf32> = {{\[}}[0, 1, 2], [3, 4, 5], [1, 1, 1], [2, 2, 2]]
// VIEW-NEXT: out9: tensor<2x1xf32> = {{\[}}[0], [3]]
// VIEW-NEXT: out10: tensor<2x2xf32> = {{\[}}[1, 2], [4, 5]]
// VIEW-NEXT: out11: tensor<3x4xf32> = {{\[}}[9, 0, 1, 2], [9, 3, 4, 5], [9, 9, 9, 9]]
// VIEW-NEXT: out12: tensor<2x1xf32> = {{\[}}[1], [4]]
func.func @views() -> (tensor<3x2xf32>, tensor<2x2x3xf32>, tensor<3x2xf32>, tensor<2x1x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<4x3xf32>, tensor<2x1xf32>, tensor<2x2xf32>, tensor<3x4xf32>, tensor<2x1xf32>) {
  %x = magi.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]> : tensor<2x3xf32>
  %view = magi.view %x [-1, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  %x1 = magi.unsqueeze %x {dim = 0 : i64} : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
  %exp = magi.expand %x1 [2, -1, 3] : tensor<1x2x3xf32> -> tensor<2x2x3xf32>
  %perm = magi.permute %x {dims = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %unsq = magi.unsqueeze %x {dim = -2 : i64} : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
  %sq = magi.squeeze %unsq {dims = array<i64: 1, 2>} : (tensor<2x1x3xf32>) -> tensor<2x3xf32>
  // Python slicing: negative bounds count from the end, ends clamp.
  %tail = magi.slice %x, 1 [-1, 9223372036854775807, 1] : tensor<2x3xf32> -> tensor<2x1xf32>
  %step = magi.slice %x, 1 [0, 100, 2] : tensor<2x3xf32> -> tensor<2x2xf32>
  %sel = magi.select %x, 1 [-1] : tensor<2x3xf32> -> tensor<2xf32>
  // cat promotes to the common dtype.
  %ints = magi.constant dense<[[1, 1, 1], [2, 2, 2]]> : tensor<2x3xi64>
  %cat = magi.cat %x, %ints {dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<4x3xf32>
  %parts:2 = magi.split_with_sizes %x [1, 2] {dim = 1 : i64} : tensor<2x3xf32> -> tensor<2x1xf32>, tensor<2x2xf32>
  // Padding pairs start from the last dimension; negative amounts crop.
  %pad = magi.constant_pad_nd %x [1, 0, 0, 1] {value = 9.0 : f64} : tensor<2x3xf32> -> tensor<3x4xf32>
  %crop = magi.constant_pad_nd %x [-1, -1] : tensor<2x3xf32> -> tensor<2x1xf32>
  return %view, %exp, %perm, %unsq, %sq, %tail, %step, %sel, %cat, %parts#0, %parts#1, %pad, %crop : tensor<3x2xf32>, tensor<2x2x3xf32>, tensor<3x2xf32>, tensor<2x1x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<4x3xf32>, tensor<2x1xf32>, tensor<2x2xf32>, tensor<3x4xf32>, tensor<2x1xf32>
}

// INDEX:      out0: tensor<2x2x2xbf16> = {{\[}}{{\[}}[4, 5], [0, 1]], {{\[}}[2, 3], [4, 5]]]
// INDEX-NEXT: out1: tensor<2x3xf32> = {{\[}}[5, 3, 4], [2, 0, 1]]
// INDEX-NEXT: out2: tensor<2x4xf32> = {{\[}}[100, 103, 106, 109], [113, 116, 119, 122]]
// INDEX-NEXT: out3: tensor<2x2x2xf32> = {{\[}}{{\[}}[101, 102], [110, 111]], {{\[}}[113, 114], [122, 123]]]
// INDEX-NEXT: out4: tensor<3x3xf32> = {{\[}}[3, 4, 5], [0, 1, 2], [3, 4, 5]]
// INDEX-NEXT: out5: tensor<2x2xf32> = {{\[}}[2, 0], [3, 3]]
func.func @indexing() -> (tensor<2x2x2xbf16>, tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x2x2xf32>, tensor<3x3xf32>, tensor<2x2xf32>) {
  %table = magi.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]> : tensor<3x2xbf16>
  %ids = magi.constant dense<[[2, 0], [1, 2]]> : tensor<2x2xi64>
  %emb = magi.embedding %table, %ids : (tensor<3x2xbf16>, tensor<2x2xi64>) -> tensor<2x2x2xbf16>
  %x = magi.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]> : tensor<2x3xf32>
  // Negative indices count from the end; index tensors broadcast together.
  %rows = magi.constant dense<[[1], [-2]]> : tensor<2x1xi64>
  %cols = magi.constant dense<[-1, 0, 1]> : tensor<3xi64>
  %idx = magi.index %x[%rows, %cols] {indexed_dims = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xf32>
  // t[i][j][k] = 100 + 12 i + 3 j + k over [2, 4, 3].
  %base = magi.constant dense<100.0> : tensor<f32>
  %zero = arith.constant 0 : i64
  %n = arith.constant 24 : i64
  %one = arith.constant 1 : i64
  %r = magi.arange %zero, %n, %one {dtype = f32} : (i64, i64, i64) -> tensor<24xf32>
  %r3 = magi.view %r [2, 4, 3] : tensor<24xf32> -> tensor<2x4x3xf32>
  %t = magi.add %r3, %base : (tensor<2x4x3xf32>, tensor<f32>) -> tensor<2x4x3xf32>
  // Non-adjacent indexed dims 0 and 2: the broadcast index shape [2] comes
  // first, then dim 1: out[b][j] = t[i0[b]][j][i2[b]].
  %i0 = magi.constant dense<[0, 1]> : tensor<2xi64>
  %i2 = magi.constant dense<[0, 1]> : tensor<2xi64>
  %nonadj = magi.index %t[%i0, %i2] {indexed_dims = array<i64: 0, 2>} : (tensor<2x4x3xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x4xf32>
  // Adjacent indexed dims 1 and 2 with a [2, 1] x [2] broadcast replace them
  // in place: out[i][a][b] = t[i][j1[a]][j2[b]].
  %j1 = magi.constant dense<[[0], [3]]> : tensor<2x1xi64>
  %j2 = magi.constant dense<[1, 2]> : tensor<2xi64>
  %adj = magi.index %t[%j1, %j2] {indexed_dims = array<i64: 1, 2>} : (tensor<2x4x3xf32>, tensor<2x1xi64>, tensor<2xi64>) -> tensor<2x2x2xf32>
  %pick = magi.constant dense<[1, 0, -1]> : tensor<3xi64>
  %sel = magi.index_select %x, %pick {dim = 0 : i64} : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<3x3xf32>
  %g = magi.constant dense<[[2, 0], [0, 0]]> : tensor<2x2xi64>
  %gather = magi.gather %x, %g {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return %emb, %idx, %nonadj, %adj, %sel, %gather : tensor<2x2x2xbf16>, tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x2x2xf32>, tensor<3x3xf32>, tensor<2x2xf32>
}

// RUN: magi-interp %s --function=writes | FileCheck %s --check-prefix=WRITE
// RUN: magi-interp %s --function=writes --lowered-pieces | FileCheck %s --check-prefix=WRITE
// WRITE:      out0: tensor<2x3xf32> = {{\[}}[0, 0, 3], [4, 0, 0]]
// WRITE-NEXT: out1: tensor<2x3xf32> = {{\[}}[0, 0, 4], [2, 4, 0]]
// WRITE-NEXT: out2: tensor<2x3xf32> = {{\[}}[7, 0, 7], [0, 0, 0]]
// WRITE-NEXT: out3: tensor<2x3xf32> = {{\[}}[0, 9, 0], [0, 0, 9]]
// WRITE-NEXT: out4: tensor<2x3xf32> = {{\[}}[0, 18, 0], [0, 0, 9]]
// WRITE-NEXT: out5: tensor<2x3xf32> = {{\[}}[1, 0, 3], [2, 0, 4]]
// WRITE-NEXT: out6: tensor<2x3xf32> = {{\[}}[0, 0, 0], [5, 6, 7]]
func.func @writes() -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %zeros = magi.constant dense<0.0> : tensor<2x3xf32>
  %src = magi.constant dense<[[1.0, 3.0], [2.0, 4.0]]> : tensor<2x2xf32>
  // dim 1: out[i][index[i][j]] = src[i][j]; a repeated index: the last wins,
  // or values add up with reduce = "add".
  %idx = magi.constant dense<[[2, 2], [0, 0]]> : tensor<2x2xi64>
  %sc = magi.scatter %zeros, %idx, %src {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
  %idx1 = magi.constant dense<[[2, 2], [0, 1]]> : tensor<2x2xi64>
  %sa = magi.scatter %zeros, %idx1, %src {dim = 1 : i64, reduce = "add"} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
  // A Python scalar as src.
  %seven = arith.constant 7.0 : f64
  %idx2 = magi.constant dense<[[0, 2]]> : tensor<1x2xi64>
  %ss = magi.scatter %zeros, %idx2, %seven {dim = 1 : i64} : (tensor<2x3xf32>, tensor<1x2xi64>, f64) -> tensor<2x3xf32>
  // index_put: self[rows, cols] = values, values broadcast; accumulate adds.
  %rows = magi.constant dense<[0, 1, 0]> : tensor<3xi64>
  %cols = magi.constant dense<[1, 2, 1]> : tensor<3xi64>
  %nine = magi.constant dense<9.0> : tensor<1xf32>
  %put = magi.index_put %zeros[%rows, %cols], %nine {indexed_dims = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<3xi64>, tensor<3xi64>, tensor<1xf32>) -> tensor<2x3xf32>
  %acc = magi.index_put %zeros[%rows, %cols], %nine {indexed_dims = array<i64: 0, 1>, accumulate = true} : (tensor<2x3xf32>, tensor<3xi64>, tensor<3xi64>, tensor<1xf32>) -> tensor<2x3xf32>
  // slice_scatter writes columns 0 and 2; select_scatter row 1.
  %sls = magi.slice_scatter %zeros, %src, 1 [0, 3, 2] : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x3xf32>
  %row = magi.constant dense<[5.0, 6.0, 7.0]> : tensor<3xf32>
  %sel = magi.select_scatter %zeros, %row, 0 [-1] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %sc, %sa, %ss, %put, %acc, %sls, %sel : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// RUN: magi-interp %s --function=arrange | FileCheck %s --check-prefix=ARRANGE
// RUN: magi-interp %s --function=arrange --lowered-pieces | FileCheck %s --check-prefix=ARRANGE
// ARRANGE:      out0: tensor<2x3xi64> = {{\[}}[5, 4, 3], [2, 1, 0]]
// ARRANGE-NEXT: out1: tensor<2x2x3xi64> = {{\[}}{{\[}}[0, 1, 2], [0, 1, 2]], {{\[}}[3, 4, 5], [3, 4, 5]]]
// ARRANGE-NEXT: out2: tensor<2x3xi64> = {{\[}}[0, 1, 0], [3, 4, 5]]
// ARRANGE-NEXT: out3: tensor<2x3xi64> = {{\[}}[0, 0, 2], [0, 0, 0]]
func.func @arrange() -> (tensor<2x3xi64>, tensor<2x2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>) {
  %x = magi.constant dense<[[0, 1, 2], [3, 4, 5]]> : tensor<2x3xi64>
  %flip = magi.flip %x {dims = array<i64: 0, -1>} : (tensor<2x3xi64>) -> tensor<2x3xi64>
  // repeat adds a leading dimension: [2, 1, 1] tiles of a [1, 2, 3] view.
  %x2 = magi.view %x [2, 1, 3] : tensor<2x3xi64> -> tensor<2x1x3xi64>
  %rep = magi.repeat %x2 {repeats = array<i64: 1, 2, 1>} : (tensor<2x1x3xi64>) -> tensor<2x2x3xi64>
  %tril = magi.tril %x {diagonal = 1 : i64} : (tensor<2x3xi64>) -> tensor<2x3xi64>
  %triu = magi.triu %x {diagonal = 2 : i64} : (tensor<2x3xi64>) -> tensor<2x3xi64>
  return %flip, %rep, %tril, %triu : tensor<2x3xi64>, tensor<2x2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>
}
