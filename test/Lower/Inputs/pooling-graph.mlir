// ResNet's stem pooling and head (max pool 3x3 stride 2 padding 1, then a
// global average) over a symbolic batch and image size (for magi-compile).
#img = affine_map<()[s0, s1] -> (s0, 8, s1, s1)>
func.func @main(%x: tensor<?x8x?x?xbf16>) -> (tensor<?x8x?x?xbf16>, tensor<?x8x1x1xbf16>) {
  %s0 = magi.symbolic_int "s0" min 1 max 64
  %s1 = magi.symbolic_int "s1" min 3 max 512
  magi.bind_symbolic_shape %x, [%s0, %s1], #img : tensor<?x8x?x?xbf16>
  %v, %i = magi.max_pool %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<?x8x?x?xbf16>) -> (tensor<?x8x?x?xbf16>, tensor<?x8x?x?xi64>)
  %g = magi.avg_pool %x {kernel_size = array<i64: 7, 7>, stride = array<i64: 7, 7>, padding = array<i64: 0, 0>} : (tensor<?x8x?x?xbf16>) -> tensor<?x8x1x1xbf16>
  return %v, %g : tensor<?x8x?x?xbf16>, tensor<?x8x1x1xbf16>
}
