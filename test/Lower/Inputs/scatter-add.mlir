// scatter_add (reduce = "add") for test/Lower/scatter.mlir: not lowered.
func.func @add(%arg0: tensor<10x5xf32>, %arg1: tensor<3x5xi64>, %arg2: tensor<3x5xf32>) -> tensor<10x5xf32> {
  %0 = magi.scatter %arg0, %arg1, %arg2 {dim = 0 : i64, reduce = "add"} : (tensor<10x5xf32>, tensor<3x5xi64>, tensor<3x5xf32>) -> tensor<10x5xf32>
  return %0 : tensor<10x5xf32>
}
