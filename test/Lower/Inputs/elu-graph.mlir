// SELU over a symbolic number of rows (for magi-compile).
#rows = affine_map<()[s0] -> (s0, 8)>
func.func @main(%x: tensor<?x8xbf16>) -> tensor<?x8xbf16> {
  %s0 = magi.symbolic_int "s0" min 2 max 4096
  magi.bind_symbolic_shape %x, [%s0], #rows : tensor<?x8xbf16>
  %0 = magi.elu %x {alpha = 1.6732632423543772 : f64, scale = 1.0507009873554805 : f64} : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  return %0 : tensor<?x8xbf16>
}
