// The inverse trigonometric and hyperbolic functions and log10 over a
// symbolic number of rows (for magi-compile: libdevice's __nv_acosf and
// its kin in the PTX).
#rows = affine_map<()[s0] -> (s0, 8)>
func.func @main(%x: tensor<?x8xbf16>) -> tensor<?x8xbf16> {
  %s0 = magi.symbolic_int "s0" min 2 max 4096
  magi.bind_symbolic_shape %x, [%s0], #rows : tensor<?x8xbf16>
  %0 = magi.acos %x : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  %1 = magi.asinh %0 : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  %2 = magi.tan %1 : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  %3 = magi.log10 %2 : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  return %3 : tensor<?x8xbf16>
}
