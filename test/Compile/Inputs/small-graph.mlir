#map = affine_map<()[s0] -> (s0, 64)>
#map1 = affine_map<()[s0] -> (s0, 32)>
#map2 = affine_map<()[s0] -> (s0)>
func.func @main(%x: tensor<?x64xf32>, %w: tensor<64x32xf32>, %b: tensor<64xf32>) -> (tensor<?x32xf32>, tensor<?xf32>) {
  %s0 = magi.symbolic_int "s0" min 2
  magi.bind_symbolic_shape %x, [%s0], #map : tensor<?x64xf32>
  %0 = magi.mul %x, %b : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  %1 = magi.exp %0 : (tensor<?x64xf32>) -> tensor<?x64xf32>
  magi.bind_symbolic_shape %1, [%s0], #map : tensor<?x64xf32>
  %2 = magi.mm %1, %w : (tensor<?x64xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>
  magi.bind_symbolic_shape %2, [%s0], #map1 : tensor<?x32xf32>
  %3 = magi.relu %2 : (tensor<?x32xf32>) -> tensor<?x32xf32>
  magi.bind_symbolic_shape %3, [%s0], #map1 : tensor<?x32xf32>
  %4 = magi.sum %3 {dims = array<i64: -1>} : (tensor<?x32xf32>) -> tensor<?xf32>
  magi.bind_symbolic_shape %4, [%s0], #map2 : tensor<?xf32>
  return %3, %4 : tensor<?x32xf32>, tensor<?xf32>
}
