// A graph holding ops Magi does not know, for test/Transforms/op-library.mlir.
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>) {
  %y = magi.opaque "mylib::scaled_silu.default"(%x) {scale = 2.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s, %m = magi.opaque "mylib::row_stats.default"(%x) : (tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %y, %s, %m : tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>
}
