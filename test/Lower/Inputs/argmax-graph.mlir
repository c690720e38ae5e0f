// argmax and max_dim over a user input with a symbolic size (for
// magi-compile).
#rows = affine_map<()[s0] -> (s0, 32000)>
func.func @main(%x: tensor<?x32000xbf16>) -> (tensor<?xi64>, tensor<?xbf16>, tensor<?xi64>) {
  %s0 = magi.symbolic_int "s0" min 2 max 4096
  magi.bind_symbolic_shape %x, [%s0], #rows : tensor<?x32000xbf16>
  %a = magi.argmax %x {dim = -1 : i64} : (tensor<?x32000xbf16>) -> tensor<?xi64>
  %v:2 = magi.max_dim %x {dim = 1 : i64} : (tensor<?x32000xbf16>) -> (tensor<?xbf16>, tensor<?xi64>)
  return %a, %v#0, %v#1 : tensor<?xi64>, tensor<?xbf16>, tensor<?xi64>
}
