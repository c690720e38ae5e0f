// amin, prod and all over user inputs (for magi-compile).
func.func @main(%x: tensor<64x300xf32>, %i: tensor<64x300xi64>) -> (tensor<64xf32>, tensor<300xf32>, tensor<64xi64>, tensor<64xi1>) {
  %a0 = magi.amin %x {dims = array<i64: 1>} : (tensor<64x300xf32>) -> tensor<64xf32>
  %p0 = magi.prod %x {dims = array<i64: 0>} : (tensor<64x300xf32>) -> tensor<300xf32>
  %p1 = magi.prod %i {dims = array<i64: 1>} : (tensor<64x300xi64>) -> tensor<64xi64>
  %a1 = magi.all %i {dims = array<i64: 1>} : (tensor<64x300xi64>) -> tensor<64xi1>
  return %a0, %p0, %p1, %a1 : tensor<64xf32>, tensor<300xf32>, tensor<64xi64>, tensor<64xi1>
}
