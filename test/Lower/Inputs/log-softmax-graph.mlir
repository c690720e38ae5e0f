// log_softmax over the last dimension of a user input (for magi-compile).
#rows = affine_map<()[s0] -> (s0, 1000)>
func.func @main(%x: tensor<?x1000xbf16>) -> tensor<?x1000xbf16> {
  %s0 = magi.symbolic_int "s0" min 2 max 4096
  magi.bind_symbolic_shape %x, [%s0], #rows : tensor<?x1000xbf16>
  %y = magi.log_softmax %x {dim = -1 : i64} : (tensor<?x1000xbf16>) -> tensor<?x1000xbf16>
  return %y : tensor<?x1000xbf16>
}
