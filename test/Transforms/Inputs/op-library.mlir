// Op definitions for test/Transforms/op-library.mlir, as a user writes
// them: one func.func per op, named after it, in magi ops.

// y = silu(x) * scale; `scale` is the op's attribute.
func.func @"mylib::scaled_silu.default"(%x: tensor<?x?xf32>, %scale: f64 {magi.attr = "scale"}) -> tensor<?x?xf32> {
  %s = magi.silu %x : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = magi.mul %s, %scale : (tensor<?x?xf32>, f64) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// Two results: each row's sum and max.
func.func @"mylib::row_stats.default"(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %s = magi.sum %x {dims = array<i64: 1>} : (tensor<?x?xf32>) -> tensor<?xf32>
  %m = magi.amax %x {dims = array<i64: 1>} : (tensor<?x?xf32>) -> tensor<?xf32>
  return %s, %m : tensor<?xf32>, tensor<?xf32>
}

// Returns its operand as it is.
func.func @"mylib::identity.default"(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
