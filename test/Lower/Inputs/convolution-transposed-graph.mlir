// A 4x4 transposed convolution of stride 2 and padding 1 (a decoder's
// upsampling: the image doubles) with bias, over a symbolic batch and
// image size (for magi-compile).
#img = affine_map<()[s0, s1] -> (s0, 8, s1, s1)>
func.func @main(%x: tensor<?x8x?x?xbf16>, %w: tensor<8x4x4x4xbf16>, %b: tensor<4xbf16>) -> tensor<?x4x?x?xbf16> {
  %s0 = magi.symbolic_int "s0" min 1 max 64
  %s1 = magi.symbolic_int "s1" min 2 max 512
  magi.bind_symbolic_shape %x, [%s0, %s1], #img : tensor<?x8x?x?xbf16>
  %0 = magi.convolution %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed} : (tensor<?x8x?x?xbf16>, tensor<8x4x4x4xbf16>, tensor<4xbf16>) -> tensor<?x4x?x?xbf16>
  return %0 : tensor<?x4x?x?xbf16>
}
