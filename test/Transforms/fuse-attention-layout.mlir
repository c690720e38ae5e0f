// magi-fuse's attention-layout: an attention whose q, k and v are
// [B, S, H, D] tensors transposed (q and k through a rotary embedding) and
// whose only use transposes the result back runs in layout bshd on the
// untransposed tensors; the rotary embeddings take transposed cos and sin.
// RUN: magi-opt %s -magi-fuse=enable=attention-layout -canonicalize -cse -magi-dce | FileCheck %s
// RUN: magi-opt %s -magi-fuse=disable=attention-layout -canonicalize -magi-dce | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @llama_like
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<1x?x4x32xbf16>, %[[K:[a-z0-9]+]]: tensor<1x?x2x32xbf16>, %[[V:[a-z0-9]+]]: tensor<1x?x2x32xbf16>, %[[COS:[a-z0-9]+]]: tensor<1x1x?x32xbf16>, %[[SIN:[a-z0-9]+]]: tensor<1x1x?x32xbf16>, %[[M:[a-z0-9]+]]: tensor<1x1x?x?xbf16>)
// CHECK-DAG: %[[COST:.*]] = magi.permute %[[COS]] {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x1x?x32xbf16>) -> tensor<1x?x1x32xbf16>
// CHECK-DAG: %[[SINT:.*]] = magi.permute %[[SIN]] {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x1x?x32xbf16>) -> tensor<1x?x1x32xbf16>
// CHECK-DAG: magi.bind_symbolic_shape %[[COST]], [%{{.*}}], #{{.*}} : tensor<1x?x1x32xbf16>
// CHECK: %[[RQ:.*]] = magi.rotary_embedding %[[Q]], %[[COST]], %[[SINT]] : (tensor<1x?x4x32xbf16>, tensor<1x?x1x32xbf16>, tensor<1x?x1x32xbf16>) -> tensor<1x?x4x32xbf16>
// CHECK: magi.bind_symbolic_shape %[[RQ]], [%{{.*}}], #{{.*}} : tensor<1x?x4x32xbf16>
// CHECK: %[[RK:.*]] = magi.rotary_embedding %[[K]], %[[COST]], %[[SINT]]
// CHECK: %[[A:.*]] = magi.attention %[[RQ]], %[[RK]], %[[V]] mask %[[M]] {layout = "bshd", scale = 0.17677669529663689 : f64} : (tensor<1x?x4x32xbf16>, tensor<1x?x2x32xbf16>, tensor<1x?x2x32xbf16>, tensor<1x1x?x?xbf16>) -> tensor<1x?x4x32xbf16>
// CHECK-NOT: magi.permute
// CHECK: return %[[A]]
// OFF-LABEL: func.func @llama_like
// OFF: magi.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {scale = 0.17677669529663689 : f64} : (tensor<1x4x?x32xbf16>, tensor<1x2x?x32xbf16>, tensor<1x2x?x32xbf16>, tensor<1x1x?x?xbf16>) -> tensor<1x4x?x32xbf16>
func.func @llama_like(%q: tensor<1x?x4x32xbf16>, %k: tensor<1x?x2x32xbf16>, %v: tensor<1x?x2x32xbf16>,
                      %cos: tensor<1x1x?x32xbf16>, %sin: tensor<1x1x?x32xbf16>, %m: tensor<1x1x?x?xbf16>) -> tensor<1x?x4x32xbf16> {
  %s0 = magi.symbolic_int "s0" min 2 max 1024
  magi.bind_symbolic_shape %q, [%s0], affine_map<()[s0] -> (1, s0, 4, 32)> : tensor<1x?x4x32xbf16>
  magi.bind_symbolic_shape %k, [%s0], affine_map<()[s0] -> (1, s0, 2, 32)> : tensor<1x?x2x32xbf16>
  magi.bind_symbolic_shape %cos, [%s0], affine_map<()[s0] -> (1, 1, s0, 32)> : tensor<1x1x?x32xbf16>
  magi.bind_symbolic_shape %sin, [%s0], affine_map<()[s0] -> (1, 1, s0, 32)> : tensor<1x1x?x32xbf16>
  %qt = magi.permute %q {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x?x4x32xbf16>) -> tensor<1x4x?x32xbf16>
  %kt = magi.permute %k {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x?x2x32xbf16>) -> tensor<1x2x?x32xbf16>
  %vt = magi.permute %v {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x?x2x32xbf16>) -> tensor<1x2x?x32xbf16>
  %rq = magi.rotary_embedding %qt, %cos, %sin : (tensor<1x4x?x32xbf16>, tensor<1x1x?x32xbf16>, tensor<1x1x?x32xbf16>) -> tensor<1x4x?x32xbf16>
  %rk = magi.rotary_embedding %kt, %cos, %sin : (tensor<1x2x?x32xbf16>, tensor<1x1x?x32xbf16>, tensor<1x1x?x32xbf16>) -> tensor<1x2x?x32xbf16>
  %a = magi.attention %rq, %rk, %vt mask %m {scale = 0.17677669529663689 : f64} : (tensor<1x4x?x32xbf16>, tensor<1x2x?x32xbf16>, tensor<1x2x?x32xbf16>, tensor<1x1x?x?xbf16>) -> tensor<1x4x?x32xbf16>
  magi.bind_symbolic_shape %a, [%s0], affine_map<()[s0] -> (1, 4, s0, 32)> : tensor<1x4x?x32xbf16>
  %o = magi.permute %a {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x4x?x32xbf16>) -> tensor<1x?x4x32xbf16>
  return %o : tensor<1x?x4x32xbf16>
}

// Left as they are: a result read before it is transposed back, a value
// that is not a transpose, and a rotary embedding read by another op too
// (it would be computed twice).
// CHECK-LABEL: func.func @kept
// CHECK-NOT: layout
// CHECK: return
func.func @kept(%q: tensor<1x?x4x32xbf16>, %k: tensor<1x?x4x32xbf16>, %v: tensor<1x4x?x32xbf16>,
                %cos: tensor<1x1x?x32xbf16>, %sin: tensor<1x1x?x32xbf16>)
    -> (tensor<1x?x4x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x?x4x32xbf16>, tensor<1x?x4x32xbf16>, tensor<1x4x?x32xbf16>) {
  %qt = magi.permute %q {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x?x4x32xbf16>) -> tensor<1x4x?x32xbf16>
  %kt = magi.permute %k {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x?x4x32xbf16>) -> tensor<1x4x?x32xbf16>
  %a = magi.attention %qt, %kt, %kt : (tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>) -> tensor<1x4x?x32xbf16>
  %o = magi.permute %a {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x4x?x32xbf16>) -> tensor<1x?x4x32xbf16>
  %b = magi.attention %qt, %kt, %v : (tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>) -> tensor<1x4x?x32xbf16>
  %ob = magi.permute %b {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x4x?x32xbf16>) -> tensor<1x?x4x32xbf16>
  %rq = magi.rotary_embedding %qt, %cos, %sin : (tensor<1x4x?x32xbf16>, tensor<1x1x?x32xbf16>, tensor<1x1x?x32xbf16>) -> tensor<1x4x?x32xbf16>
  %c = magi.attention %rq, %kt, %kt : (tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>) -> tensor<1x4x?x32xbf16>
  %oc = magi.permute %c {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x4x?x32xbf16>) -> tensor<1x?x4x32xbf16>
  return %o, %a, %ob, %oc, %rq : tensor<1x?x4x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x?x4x32xbf16>, tensor<1x?x4x32xbf16>, tensor<1x4x?x32xbf16>
}
