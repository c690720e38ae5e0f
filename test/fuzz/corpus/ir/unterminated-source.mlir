func.func @rsqrt_of_integers_is_float(%a: tensor<4xi32>) {
  %0 = magi.rsqrt %a : (tensor<4xi32>) -> tensor<4xi32>
  rert_of_i