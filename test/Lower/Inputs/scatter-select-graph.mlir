// slice_scatter, select_scatter and index_select over user inputs with a
// symbolic size (for magi-compile).
#rows = affine_map<()[s0] -> (s0, 64)>
#half = affine_map<()[s0] -> (s0, 32)>
func.func @main(%x: tensor<?x64xf32>, %s: tensor<?x32xf32>, %r: tensor<64xf32>, %i: tensor<5xi64>) -> (tensor<?x64xf32>, tensor<?x64xf32>, tensor<5x64xf32>) {
  %s0 = magi.symbolic_int "s0" min 2 max 4096
  magi.bind_symbolic_shape %x, [%s0], #rows : tensor<?x64xf32>
  magi.bind_symbolic_shape %s, [%s0], #half : tensor<?x32xf32>
  %a = magi.slice_scatter %x, %s, 1 [0, 64, 2] : (tensor<?x64xf32>, tensor<?x32xf32>) -> tensor<?x64xf32>
  %b = magi.select_scatter %x, %r, 0 [1] : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  %c = magi.index_select %x, %i {dim = 0 : i64} : (tensor<?x64xf32>, tensor<5xi64>) -> tensor<5x64xf32>
  return %a, %b, %c : tensor<?x64xf32>, tensor<?x64xf32>, tensor<5x64xf32>
}
