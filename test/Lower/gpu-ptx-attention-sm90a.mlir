// Causal GQA attention (bf16, 32 query and 8 key/value heads of 128)
// through the whole GPU half for sm_90a: one tiled kernel whose products
// are warpgroup products (wgmma), PTX that ptxas accepts for sm_90a.
// REQUIRES: ptxas
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted tiled-attention" \
// RUN: | magi-opt --magi-gpu-pipeline="chip=sm_90a features=+ptx80 cuda-path=%cuda_path" \
// RUN: | python3 %S/Inputs/extract-ptx.py %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas --gpu-name sm_90a %t.ptx -o %t.cubin
// CHECK: .target sm_90a
// CHECK: .entry attention0(
// CHECK: fence.proxy.async.shared::cta;
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: mma.sync.aligned.m16n8k16
func.func @attention(%q: tensor<1x32x?x128xbf16> {magi.input_kind = "user_input", magi.name = "q"}, %k: tensor<1x8x?x128xbf16> {magi.input_kind = "user_input", magi.name = "k"}, %v: tensor<1x8x?x128xbf16> {magi.input_kind = "user_input", magi.name = "v"}) -> tensor<1x32x?x128xbf16> {
  %s0 = magi.symbolic_int "s0" min 1 max 16384
  magi.bind_symbolic_shape %q, [%s0], affine_map<()[s0] -> (1, 32, s0, 128)> : tensor<1x32x?x128xbf16>
  magi.bind_symbolic_shape %k, [%s0], affine_map<()[s0] -> (1, 8, s0, 128)> : tensor<1x8x?x128xbf16>
  magi.bind_symbolic_shape %v, [%s0], affine_map<()[s0] -> (1, 8, s0, 128)> : tensor<1x8x?x128xbf16>
  %o = magi.attention %q, %k, %v {is_causal = true, scale = 0.08838834764831843 : f64} : (tensor<1x32x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x8x?x128xbf16>) -> tensor<1x32x?x128xbf16>
  return %o : tensor<1x32x?x128xbf16>
}
