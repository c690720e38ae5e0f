// silu(gate) * up in bf16 over a symbolic number of rows (for magi-compile:
// the approximate exponential and reciprocal in the PTX).
#rows = affine_map<()[s0] -> (s0, 8)>
func.func @main(%g: tensor<?x8xbf16>, %u: tensor<?x8xbf16>) -> tensor<?x8xbf16> {
  %s0 = magi.symbolic_int "s0" min 2 max 4096
  magi.bind_symbolic_shape %g, [%s0], #rows : tensor<?x8xbf16>
  magi.bind_symbolic_shape %u, [%s0], #rows : tensor<?x8xbf16>
  %0 = magi.silu_and_mul %g, %u : (tensor<?x8xbf16>, tensor<?x8xbf16>) -> tensor<?x8xbf16>
  return %0 : tensor<?x8xbf16>
}
