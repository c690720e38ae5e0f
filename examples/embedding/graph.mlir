// A small attention block, as magi-import writes one: scaled queries,
// causal attention over a symbolic number of tokens s0, an activation after.
// Split at attention, it is three pieces: compute, splitting, compute.
#tokens = affine_map<()[s0] -> (1, 2, s0, 16)>
func.func @main(%q: tensor<1x2x?x16xf32>, %k: tensor<1x2x?x16xf32>,
                %v: tensor<1x2x?x16xf32>) -> tensor<1x2x?x16xf32> {
  %s0 = magi.symbolic_int "s0" min 1 max 4096
  magi.bind_symbolic_shape %q, [%s0], #tokens : tensor<1x2x?x16xf32>
  magi.bind_symbolic_shape %k, [%s0], #tokens : tensor<1x2x?x16xf32>
  magi.bind_symbolic_shape %v, [%s0], #tokens : tensor<1x2x?x16xf32>
  %c2 = arith.constant 2.0 : f64
  %two = magi.scalar_tensor %c2 {dtype = f32} : (f64) -> tensor<f32>
  %qs = magi.mul %q, %two : (tensor<1x2x?x16xf32>, tensor<f32>) -> tensor<1x2x?x16xf32>
  %o = magi.attention %qs, %k, %v {is_causal = true}
      : (tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>) -> tensor<1x2x?x16xf32>
  %r = magi.relu %o : (tensor<1x2x?x16xf32>) -> tensor<1x2x?x16xf32>
  return %r : tensor<1x2x?x16xf32>
}
