// A graph with one 320 MiB weight, for the weights tests (see weights.mlir).
func.func @main(%x: tensor<83886080xf32> {magi.input_kind = "user_input"},
                %w: tensor<83886080xf32> {magi.input_kind = "parameter", magi.name = "w",
                                        magi.weight = {entry = "big/data/weights/w", offset = 0 : i64, strides = array<i64: 1>}}) -> tensor<83886080xf32> {
  %0 = magi.add %x, %w : (tensor<83886080xf32>, tensor<83886080xf32>) -> tensor<83886080xf32>
  return %0 : tensor<83886080xf32>
}
