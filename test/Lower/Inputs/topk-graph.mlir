// A mixture-of-experts router's top-2 over 8 experts and a sort, for a
// symbolic number of tokens (for magi-compile).
#rows = affine_map<()[s0] -> (s0, 8)>
func.func @main(%x: tensor<?x8xbf16>) -> (tensor<?x2xbf16>, tensor<?x2xi64>, tensor<?x8xi64>) {
  %s0 = magi.symbolic_int "s0" min 2 max 4096
  magi.bind_symbolic_shape %x, [%s0], #rows : tensor<?x8xbf16>
  %t:2 = magi.topk %x {k = 2 : i64} : (tensor<?x8xbf16>) -> (tensor<?x2xbf16>, tensor<?x2xi64>)
  %s:2 = magi.sort %x {descending = true} : (tensor<?x8xbf16>) -> (tensor<?x8xbf16>, tensor<?x8xi64>)
  return %t#0, %t#1, %s#1 : tensor<?x2xbf16>, tensor<?x2xi64>, tensor<?x8xi64>
}
