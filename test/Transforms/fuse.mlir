// magi-fuse runs the enabled fusions: all by default, `enable` names the
// ones to run, `disable` the ones to leave out; an unknown name is an error
// that lists the known ones.
// RUN: magi-opt %s -magi-fuse -canonicalize -magi-dce | FileCheck %s --check-prefix=ALL
// RUN: magi-opt %s -magi-fuse=disable=softmax -canonicalize -magi-dce | FileCheck %s --check-prefix=NOSOFTMAX
// RUN: magi-opt %s -magi-fuse=enable=softmax,gelu,rms-norm -canonicalize -magi-dce | FileCheck %s --check-prefix=ALL
// RUN: not magi-opt %s -magi-fuse=enable=bogus 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not magi-opt %s -magi-fuse=disable=gelu,nope 2>&1 | FileCheck %s --check-prefix=UNKNOWN2

// ALL-LABEL: func.func @two
// ALL-DAG: magi.softmax
// ALL-DAG: magi.gelu
// ALL-NOT: magi.amax
// ALL-NOT: magi.tanh
// NOSOFTMAX-LABEL: func.func @two
// NOSOFTMAX-DAG: magi.amax
// NOSOFTMAX-DAG: magi.gelu
// NOSOFTMAX-NOT: magi.softmax
// UNKNOWN: magi-fuse: unknown fusion 'bogus' (known: layer-norm, attention, rms-norm, silu-and-mul, gelu, rotary-embedding, softmax, attention-layout, causal-mask)
// UNKNOWN2: magi-fuse: unknown fusion 'nope'
func.func @two(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %m = magi.amax %x {dims = array<i64: -1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = magi.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = magi.exp %d : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = magi.sum %e {dims = array<i64: -1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %r = magi.div %e, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %half = arith.constant 0.5 : f64
  %one = arith.constant 1.0 : f64
  %c = arith.constant 0.044715 : f64
  %k = arith.constant 0.79788456080286541 : f64
  %three = arith.constant 3.0 : f64
  %h = magi.mul %x, %half : (tensor<4x8xf32>, f64) -> tensor<4x8xf32>
  %p = magi.pow %x, %three : (tensor<4x8xf32>, f64) -> tensor<4x8xf32>
  %q = magi.mul %p, %c : (tensor<4x8xf32>, f64) -> tensor<4x8xf32>
  %a = magi.add %x, %q : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = magi.mul %a, %k : (tensor<4x8xf32>, f64) -> tensor<4x8xf32>
  %t = magi.tanh %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u = magi.add %t, %one : (tensor<4x8xf32>, f64) -> tensor<4x8xf32>
  %g = magi.mul %h, %u : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r, %g : tensor<4x8xf32>, tensor<4x8xf32>
}
