// tril, flip and repeat over a user input with a symbolic size (for
// magi-compile).
#rows = affine_map<()[s0] -> (s0, 8)>
func.func @main(%x: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<2x?x16xf32>) {
  %s0 = magi.symbolic_int "s0" min 2 max 1024
  magi.bind_symbolic_shape %x, [%s0], #rows : tensor<?x8xf32>
  %l = magi.tril %x : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %f = magi.flip %x {dims = array<i64: 0, 1>} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %r = magi.repeat %x {repeats = array<i64: 2, 3, 2>} : (tensor<?x8xf32>) -> tensor<2x?x16xf32>
  return %l, %f, %r : tensor<?x8xf32>, tensor<?x8xf32>, tensor<2x?x16xf32>
}
