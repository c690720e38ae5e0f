// Two groups of 8 channels x 9 taps over a symbolic batch (magi-compile and
// the lowered interpretation in test/Lower/convolution.mlir).
#img = affine_map<()[s0] -> (s0, 16, 5, 5)>
func.func @main(%x: tensor<?x16x5x5xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<?x16x5x5xf32> {
  %s0 = magi.symbolic_int "s0" min 1 max 64
  magi.bind_symbolic_shape %x, [%s0], #img : tensor<?x16x5x5xf32>
  %0 = magi.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64} : (tensor<?x16x5x5xf32>, tensor<16x8x3x3xf32>) -> tensor<?x16x5x5xf32>
  return %0 : tensor<?x16x5x5xf32>
}
