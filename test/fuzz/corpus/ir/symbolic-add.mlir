func.func @f(%x: tensor<?x8xf32>, %y: tensor<8xf32>) -> tensor<?x8xf32> {
  %0 = magi.add %x, %y : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
