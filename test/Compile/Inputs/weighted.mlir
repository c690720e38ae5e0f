func.func @main(%x: tensor<8xf32> {magi.input_kind = "user_input"},
                %w: tensor<8xf32> {magi.input_kind = "parameter", magi.name = "w"}) -> tensor<8xf32> {
  %0 = magi.mul %x, %w : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
