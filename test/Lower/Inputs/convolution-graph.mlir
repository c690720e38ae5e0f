// A 3x3 convolution with bias over a symbolic batch and image size (for
// magi-compile): padding 1 keeps the size.
#img = affine_map<()[s0, s1] -> (s0, 3, s1, s1)>
func.func @main(%x: tensor<?x3x?x?xbf16>, %w: tensor<8x3x3x3xbf16>, %b: tensor<8xbf16>) -> tensor<?x8x?x?xbf16> {
  %s0 = magi.symbolic_int "s0" min 1 max 64
  %s1 = magi.symbolic_int "s1" min 3 max 512
  magi.bind_symbolic_shape %x, [%s0, %s1], #img : tensor<?x3x?x?xbf16>
  %0 = magi.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<?x3x?x?xbf16>, tensor<8x3x3x3xbf16>, tensor<8xbf16>) -> tensor<?x8x?x?xbf16>
  return %0 : tensor<?x8x?x?xbf16>
}
