// scatter.value with a constant scalar, for test/Lower/scatter.mlir: it
// must compile for the GPU.
func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>) -> tensor<4x3xf32> {
  %c = arith.constant 7.0 : f64
  %0 = magi.scatter %x, %i, %c {dim = 0 : i64} : (tensor<4x3xf32>, tensor<2x3xi64>, f64) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
