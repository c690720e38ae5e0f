// magi-fuse's causal-mask: an attention whose mask is, element for element,
// 0 (or true) where key <= query and -inf or the dtype's lowest (or false)
// elsewhere, proved from how the mask is computed, attends with `is_causal`
// and no mask; whatever computed the mask is then dead.
// RUN: magi-opt %s -magi-fuse=enable=causal-mask -canonicalize -magi-dce | FileCheck %s
// RUN: magi-opt %s -magi-fuse=disable=causal-mask -canonicalize -magi-dce | FileCheck %s --check-prefix=OFF

// The mask as transformers 5 builds it for LLaMA and GPT-2: positions from
// an arange, their differences (cat of the first position - 1 and the
// positions, sliced) to find packed sequences, a cumsum of where they
// restart, gathered at each query and key position and compared; key <=
// query; where(allowed, 0, -inf); keys padded to a multiple of 8 and sliced
// back.
// CHECK-LABEL: func.func @transformers
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<1x?x4x32xbf16>, %[[K:[a-z0-9]+]]: tensor<1x?x2x32xbf16>, %[[V:[a-z0-9]+]]: tensor<1x?x2x32xbf16>)
// CHECK-NOT: magi.arange
// CHECK-NOT: magi.cumsum
// CHECK-NOT: magi.where
// CHECK: %[[A:.*]] = magi.attention %[[Q]], %[[K]], %[[V]] {is_causal = true, layout = "bshd", scale = 0.17677669529663689 : f64} : (tensor<1x?x4x32xbf16>, tensor<1x?x2x32xbf16>, tensor<1x?x2x32xbf16>) -> tensor<1x?x4x32xbf16>
// CHECK: return %[[A]]
// OFF-LABEL: func.func @transformers
// OFF: magi.cumsum
// OFF: magi.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {layout = "bshd"
func.func @transformers(%q: tensor<1x?x4x32xbf16>, %k: tensor<1x?x2x32xbf16>, %v: tensor<1x?x2x32xbf16>) -> tensor<1x?x4x32xbf16> {
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %zero = arith.constant 0.000000e+00 : f64
  %s0 = magi.symbolic_int "s0" min 2 max 4096
  magi.bind_symbolic_shape %q, [%s0], affine_map<()[s0] -> (1, s0, 4, 32)> : tensor<1x?x4x32xbf16>
  %0 = magi.arange %c0_i64, %s0, %c1_i64 {dtype = i64} : (i64, index, i64) -> tensor<?xi64>
  magi.bind_symbolic_shape %0, [%s0], affine_map<()[s0] -> (s0)> : tensor<?xi64>
  %1 = magi.add %0, %c0_i64 : (tensor<?xi64>, i64) -> tensor<?xi64>
  magi.bind_symbolic_shape %1, [%s0], affine_map<()[s0] -> (s0)> : tensor<?xi64>
  %pos = magi.unsqueeze %1 {dim = 0 : i64} : (tensor<?xi64>) -> tensor<1x?xi64>
  magi.bind_symbolic_shape %pos, [%s0], affine_map<()[s0] -> (1, s0)> : tensor<1x?xi64>
  %first = magi.slice %pos, 1 [0, 1, 1] : tensor<1x?xi64> -> tensor<1x1xi64>
  %before = magi.sub %first, %c1_i64 : (tensor<1x1xi64>, i64) -> tensor<1x1xi64>
  %cat = magi.cat %before, %pos {dim = -1 : i64} : (tensor<1x1xi64>, tensor<1x?xi64>) -> tensor<1x?xi64>
  magi.bind_symbolic_shape %cat, [%s0], affine_map<()[s0] -> (1, s0 + 1)> : tensor<1x?xi64>
  %s1 = magi.sym_add %s0, %c1
  %prev = magi.slice %cat, -1 [0, %s0, 1] : tensor<1x?xi64> -> tensor<1x?xi64>
  magi.bind_symbolic_shape %prev, [%s0], affine_map<()[s0] -> (1, s0)> : tensor<1x?xi64>
  %next = magi.slice %cat, -1 [1, %s1, 1] : tensor<1x?xi64> -> tensor<1x?xi64>
  magi.bind_symbolic_shape %next, [%s0], affine_map<()[s0] -> (1, s0)> : tensor<1x?xi64>
  %diff = magi.sub %next, %prev : (tensor<1x?xi64>, tensor<1x?xi64>) -> tensor<1x?xi64>
  magi.bind_symbolic_shape %diff, [%s0], affine_map<()[s0] -> (1, s0)> : tensor<1x?xi64>
  %restart = magi.ne %diff, %c1_i64 : (tensor<1x?xi64>, i64) -> tensor<1x?xi1>
  magi.bind_symbolic_shape %restart, [%s0], affine_map<()[s0] -> (1, s0)> : tensor<1x?xi1>
  %seq = magi.cumsum %restart {dim = -1 : i64} : (tensor<1x?xi1>) -> tensor<1x?xi64>
  magi.bind_symbolic_shape %seq, [%s0], affine_map<()[s0] -> (1, s0)> : tensor<1x?xi64>
  %b0 = magi.arange %c0_i64, %c1_i64, %c1_i64 {dtype = i64} : (i64, i64, i64) -> tensor<1xi64>
  %b1 = magi.unsqueeze %b0 {dim = 1 : i64} : (tensor<1xi64>) -> tensor<1x1xi64>
  %b2 = magi.unsqueeze %b1 {dim = 2 : i64} : (tensor<1x1xi64>) -> tensor<1x1x1xi64>
  %batch = magi.unsqueeze %b2 {dim = 3 : i64} : (tensor<1x1x1xi64>) -> tensor<1x1x1x1xi64>
  %p3 = magi.unsqueeze %pos {dim = 1 : i64} : (tensor<1x?xi64>) -> tensor<1x1x?xi64>
  magi.bind_symbolic_shape %p3, [%s0], affine_map<()[s0] -> (1, 1, s0)> : tensor<1x1x?xi64>
  %query = magi.unsqueeze %p3 {dim = 3 : i64} : (tensor<1x1x?xi64>) -> tensor<1x1x?x1xi64>
  magi.bind_symbolic_shape %query, [%s0], affine_map<()[s0] -> (1, 1, s0, 1)> : tensor<1x1x?x1xi64>
  %key = magi.unsqueeze %p3 {dim = 2 : i64} : (tensor<1x1x?xi64>) -> tensor<1x1x1x?xi64>
  magi.bind_symbolic_shape %key, [%s0], affine_map<()[s0] -> (1, 1, 1, s0)> : tensor<1x1x1x?xi64>
  %true = magi.full [] {dtype = i1, fill_value = 1.000000e+00 : f64} : tensor<i1>
  %le = magi.le %key, %query : (tensor<1x1x1x?xi64>, tensor<1x1x?x1xi64>) -> tensor<1x1x?x?xi1>
  magi.bind_symbolic_shape %le, [%s0], affine_map<()[s0] -> (1, 1, s0, s0)> : tensor<1x1x?x?xi1>
  %causal = magi.bitwise_and %true, %le : (tensor<i1>, tensor<1x1x?x?xi1>) -> tensor<1x1x?x?xi1>
  magi.bind_symbolic_shape %causal, [%s0], affine_map<()[s0] -> (1, 1, s0, s0)> : tensor<1x1x?x?xi1>
  %qseq = magi.index %seq[%batch, %query] {indexed_dims = array<i64: 0, 1>} : (tensor<1x?xi64>, tensor<1x1x1x1xi64>, tensor<1x1x?x1xi64>) -> tensor<1x1x?x1xi64>
  magi.bind_symbolic_shape %qseq, [%s0], affine_map<()[s0] -> (1, 1, s0, 1)> : tensor<1x1x?x1xi64>
  %kseq = magi.index %seq[%batch, %key] {indexed_dims = array<i64: 0, 1>} : (tensor<1x?xi64>, tensor<1x1x1x1xi64>, tensor<1x1x1x?xi64>) -> tensor<1x1x1x?xi64>
  magi.bind_symbolic_shape %kseq, [%s0], affine_map<()[s0] -> (1, 1, 1, s0)> : tensor<1x1x1x?xi64>
  %same = magi.eq %qseq, %kseq : (tensor<1x1x?x1xi64>, tensor<1x1x1x?xi64>) -> tensor<1x1x?x?xi1>
  magi.bind_symbolic_shape %same, [%s0], affine_map<()[s0] -> (1, 1, s0, s0)> : tensor<1x1x?x?xi1>
  %allowed = magi.bitwise_and %causal, %same : (tensor<1x1x?x?xi1>, tensor<1x1x?x?xi1>) -> tensor<1x1x?x?xi1>
  magi.bind_symbolic_shape %allowed, [%s0], affine_map<()[s0] -> (1, 1, s0, s0)> : tensor<1x1x?x?xi1>
  %expanded = magi.expand %allowed [1, -1, %s0, %s0] : tensor<1x1x?x?xi1> -> tensor<1x1x?x?xi1>
  magi.bind_symbolic_shape %expanded, [%s0], affine_map<()[s0] -> (1, 1, s0, s0)> : tensor<1x1x?x?xi1>
  %minf = magi.scalar_tensor %ninf {dtype = bf16} : (f64) -> tensor<bf16>
  %zeroes = magi.scalar_tensor %zero {dtype = bf16} : (f64) -> tensor<bf16>
  %mask = magi.where %expanded, %zeroes, %minf : (tensor<1x1x?x?xi1>, tensor<bf16>, tensor<bf16>) -> tensor<1x1x?x?xbf16>
  magi.bind_symbolic_shape %mask, [%s0], affine_map<()[s0] -> (1, 1, s0, s0)> : tensor<1x1x?x?xbf16>
  %rem = magi.sym_mod %s0, %c8
  %extra = magi.sym_sub %c8, %rem
  %padded = magi.constant_pad_nd %mask [0, %extra] : tensor<1x1x?x?xbf16> -> tensor<1x1x?x?xbf16>
  magi.bind_symbolic_shape %padded, [%s0], affine_map<()[s0] -> (1, 1, s0, s0 - s0 mod 8 + 8)> : tensor<1x1x?x?xbf16>
  %sliced = magi.slice %padded, -1 [0, %s0, 1] : tensor<1x1x?x?xbf16> -> tensor<1x1x?x?xbf16>
  magi.bind_symbolic_shape %sliced, [%s0], affine_map<()[s0] -> (1, 1, s0, s0)> : tensor<1x1x?x?xbf16>
  %a = magi.attention %q, %k, %v mask %sliced {layout = "bshd", scale = 0.17677669529663689 : f64} : (tensor<1x?x4x32xbf16>, tensor<1x?x2x32xbf16>, tensor<1x?x2x32xbf16>, tensor<1x1x?x?xbf16>) -> tensor<1x?x4x32xbf16>
  return %a : tensor<1x?x4x32xbf16>
}

// A boolean mask (true attends), static sizes, the lowest bf16 for -inf
// after a cast: both causal.
// CHECK-LABEL: func.func @boolean
// CHECK: magi.attention %{{.*}}, %{{.*}}, %{{.*}} {is_causal = true, scale = 1.250000e-01 : f64} : (tensor<1x2x8x64xf16>, tensor<1x2x8x64xf16>, tensor<1x2x8x64xf16>) -> tensor<1x2x8x64xf16>
func.func @boolean(%q: tensor<1x2x8x64xf16>, %k: tensor<1x2x8x64xf16>, %v: tensor<1x2x8x64xf16>) -> tensor<1x2x8x64xf16> {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c8 = arith.constant 8 : i64
  %i = magi.arange %c0, %c8, %c1 {dtype = i64} : (i64, i64, i64) -> tensor<8xi64>
  %rows = magi.view %i [8, 1] : tensor<8xi64> -> tensor<8x1xi64>
  %ge = magi.ge %rows, %i : (tensor<8x1xi64>, tensor<8xi64>) -> tensor<8x8xi1>
  %a = magi.attention %q, %k, %v mask %ge {scale = 1.250000e-01 : f64} : (tensor<1x2x8x64xf16>, tensor<1x2x8x64xf16>, tensor<1x2x8x64xf16>, tensor<8x8xi1>) -> tensor<1x2x8x64xf16>
  return %a : tensor<1x2x8x64xf16>
}

// masked_fill(~(key > query) ... ) as where(not gt, 0, lowest), the lowest
// bf16 given as the f64 that rounds to it.
// CHECK-LABEL: func.func @lowest
// CHECK: magi.attention %{{.*}}, %{{.*}}, %{{.*}} {is_causal = true, scale = 1.250000e-01 : f64}
func.func @lowest(%q: tensor<1x2x8x64xbf16>, %k: tensor<1x2x8x64xbf16>, %v: tensor<1x2x8x64xbf16>) -> tensor<1x2x8x64xbf16> {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c8 = arith.constant 8 : i64
  %lowest = arith.constant -3.3895313892515355E+38 : f64
  %zero = arith.constant 0.000000e+00 : f64
  %i = magi.arange %c0, %c8, %c1 {dtype = i64} : (i64, i64, i64) -> tensor<8xi64>
  %rows = magi.unsqueeze %i {dim = 1 : i64} : (tensor<8xi64>) -> tensor<8x1xi64>
  %gt = magi.gt %i, %rows : (tensor<8xi64>, tensor<8x1xi64>) -> tensor<8x8xi1>
  %allowed = magi.logical_not %gt : (tensor<8x8xi1>) -> tensor<8x8xi1>
  %zt = magi.scalar_tensor %zero {dtype = bf16} : (f64) -> tensor<bf16>
  %lt = magi.scalar_tensor %lowest {dtype = bf16} : (f64) -> tensor<bf16>
  %w = magi.where %allowed, %zt, %lt : (tensor<8x8xi1>, tensor<bf16>, tensor<bf16>) -> tensor<8x8xbf16>
  %a = magi.attention %q, %k, %v mask %w {scale = 1.250000e-01 : f64} : (tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<8x8xbf16>) -> tensor<1x2x8x64xbf16>
  return %a : tensor<1x2x8x64xbf16>
}

// Left as they are: masks that differ from causal somewhere, and one that
// is not known.
// CHECK-LABEL: func.func @not_causal
// CHECK-COUNT-6: magi.attention %{{.*}}, %{{.*}}, %{{.*}} mask
// CHECK-NOT: is_causal
// CHECK: return
func.func @not_causal(%q: tensor<1x2x8x64xbf16>, %k: tensor<1x2x8x64xbf16>, %v: tensor<1x2x8x64xbf16>, %user: tensor<8x8xbf16>)
    -> (tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c5 = arith.constant 5 : i64
  %c8 = arith.constant 8 : i64
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %finite = arith.constant -1.000000e+04 : f64
  %zero = arith.constant 0.000000e+00 : f64
  %zt = magi.scalar_tensor %zero {dtype = bf16} : (f64) -> tensor<bf16>
  %nt = magi.scalar_tensor %ninf {dtype = bf16} : (f64) -> tensor<bf16>
  %ft = magi.scalar_tensor %finite {dtype = bf16} : (f64) -> tensor<bf16>
  %i = magi.arange %c0, %c8, %c1 {dtype = i64} : (i64, i64, i64) -> tensor<8xi64>
  %rows = magi.unsqueeze %i {dim = 1 : i64} : (tensor<8xi64>) -> tensor<8x1xi64>
  // key < query: the diagonal hidden too.
  %lt = magi.lt %i, %rows : (tensor<8xi64>, tensor<8x1xi64>) -> tensor<8x8xi1>
  %m0 = magi.where %lt, %zt, %nt : (tensor<8x8xi1>, tensor<bf16>, tensor<bf16>) -> tensor<8x8xbf16>
  %a0 = magi.attention %q, %k, %v mask %m0 {scale = 1.250000e-01 : f64} : (tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<8x8xbf16>) -> tensor<1x2x8x64xbf16>
  // The values the other way round: the future attended, the past hidden.
  %le = magi.le %i, %rows : (tensor<8xi64>, tensor<8x1xi64>) -> tensor<8x8xi1>
  %m1 = magi.where %le, %nt, %zt : (tensor<8x8xi1>, tensor<bf16>, tensor<bf16>) -> tensor<8x8xbf16>
  %a1 = magi.attention %q, %k, %v mask %m1 {scale = 1.250000e-01 : f64} : (tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<8x8xbf16>) -> tensor<1x2x8x64xbf16>
  // A finite penalty hides nothing for certain.
  %m2 = magi.where %le, %zt, %ft : (tensor<8x8xi1>, tensor<bf16>, tensor<bf16>) -> tensor<8x8xbf16>
  %a2 = magi.attention %q, %k, %v mask %m2 {scale = 1.250000e-01 : f64} : (tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<8x8xbf16>) -> tensor<1x2x8x64xbf16>
  // Key positions that do not continue one another: [5, 0, 1, ..., 6].
  %five = magi.full [1] {dtype = i64, fill_value = 5 : i64} : tensor<1xi64>
  %head = magi.slice %i, 0 [0, 7, 1] : tensor<8xi64> -> tensor<7xi64>
  %keys = magi.cat %five, %head {dim = 0 : i64} : (tensor<1xi64>, tensor<7xi64>) -> tensor<8xi64>
  %shifted = magi.le %keys, %rows : (tensor<8xi64>, tensor<8x1xi64>) -> tensor<8x8xi1>
  %m3 = magi.where %shifted, %zt, %nt : (tensor<8x8xi1>, tensor<bf16>, tensor<bf16>) -> tensor<8x8xbf16>
  %a3 = magi.attention %q, %k, %v mask %m3 {scale = 1.250000e-01 : f64} : (tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<8x8xbf16>) -> tensor<1x2x8x64xbf16>
  // Padded on the right and sliced with one padded column kept.
  %p = magi.constant_pad_nd %m1 [0, 3] : tensor<8x8xbf16> -> tensor<8x11xbf16>
  %m4 = magi.slice %p, 1 [1, 9, 1] : tensor<8x11xbf16> -> tensor<8x8xbf16>
  %a4 = magi.attention %q, %k, %v mask %m4 {scale = 1.250000e-01 : f64} : (tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<8x8xbf16>) -> tensor<1x2x8x64xbf16>
  // A mask given by the user.
  %a5 = magi.attention %q, %k, %v mask %user {scale = 1.250000e-01 : f64} : (tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<8x8xbf16>) -> tensor<1x2x8x64xbf16>
  return %a0, %a1, %a2, %a3, %a4, %a5 : tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>
}
