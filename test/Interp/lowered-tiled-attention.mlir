// --lowered-pieces runs attention that fits the tiled kernel as the
// kernel's algorithm in loops (magi-tiled-attention-to-loops: 64-row query
// tiles, 64-key tiles, the online softmax in log2 units, P rounded before
// the product with V, the split over keys for few query rows), and the
// interpreter checks it: each case's reference is the interpreter's own
// output, compared within the fixtures' bars. The six-generic lowering
// (--no-tiled-attention) reproduces the interpreter exactly; the tiled
// algorithm rounds P against a running max, so it differs in the last bits.

// A boolean mask with a row it hides entirely, grouped-query heads (4 on
// 2), bf16, head dimension 64, 77 tokens (two query tiles, the second
// partial): mask tiles classified, the hidden row zeros.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/tensors.py random %t/m_in0 bfloat16 1,4,77,64 1
// RUN: %python %S/Inputs/tensors.py random %t/m_in1 bfloat16 1,2,77,64 2
// RUN: %python %S/Inputs/tensors.py random %t/m_in2 bfloat16 1,2,77,64 3
// RUN: %python %S/Inputs/tensors.py random %t/m_in3 bool 1,1,77,77 4
// RUN: magi-interp %s --function=masked --input %t/m_in0.bin --input %t/m_in1.bin --input %t/m_in2.bin --input %t/m_in3.bin --save-outputs %t/m
// RUN: cp %t/m/out0.bin %t/m_out0.bin && cp %t/m/out0.json %t/m_out0.json
// RUN: magi-interp %s --function=masked --lowered-pieces --fixture %t/m | FileCheck %s --check-prefix=TILED
// RUN: magi-interp %s --function=masked --lowered-pieces --no-tiled-attention --fixture %t/m | FileCheck %s --check-prefix=EXACT
// The same attention in layout bshd (q, k and v transposed to [1, 77, H,
// 64] around it, as magi-fuse's attention-layout leaves LLaMA's): the
// interpreter gives exactly the heads-first result, the tiled loops read
// and write through transposed views, the six-generic lowering transposes.
// RUN: magi-interp %s --function=masked_bshd --fixture %t/m | FileCheck %s --check-prefix=EXACT
// RUN: magi-interp %s --function=masked_bshd --lowered-pieces --fixture %t/m | FileCheck %s --check-prefix=TILED
// RUN: magi-interp %s --function=masked_bshd --lowered-pieces --no-tiled-attention --fixture %t/m | FileCheck %s --check-prefix=EXACT
// RUN: magi-opt %s --pass-pipeline="builtin.module(func.func(magi-lower-to-linalg{tiled-attention}))" | FileCheck %s --check-prefix=LAYOUT
// LAYOUT-LABEL: func.func @masked_bshd
// LAYOUT: magi.tiled_attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<1x1x?x?xi1>) outs(%{{.*}}) {layout = "bshd", scale = 1.250000e-01 : f64} : tensor<1x?x4x64xbf16>, tensor<1x?x2x64xbf16>, tensor<1x?x2x64xbf16>, tensor<1x?x4x64xbf16> -> tensor<1x?x4x64xbf16>
// Causal, f16, head dimension 128, 77 tokens: the second query tile visits
// both key tiles, the first only its own.
// RUN: %python %S/Inputs/tensors.py random %t/c_in0 float16 1,2,77,128 5
// RUN: %python %S/Inputs/tensors.py random %t/c_in1 float16 1,2,77,128 6
// RUN: %python %S/Inputs/tensors.py random %t/c_in2 float16 1,2,77,128 7
// RUN: magi-interp %s --function=causal --input %t/c_in0.bin --input %t/c_in1.bin --input %t/c_in2.bin --save-outputs %t/c
// RUN: cp %t/c/out0.bin %t/c_out0.bin && cp %t/c/out0.json %t/c_out0.json
// RUN: magi-interp %s --function=causal --lowered-pieces --fixture %t/c | FileCheck %s --check-prefix=TILED
// A decode step: one query against 200 keys, static sizes, 2 heads: split
// over the keys into 4 (one tile each, the last partial), then combined.
// RUN: %python %S/Inputs/tensors.py random %t/d_in0 bfloat16 1,2,1,64 8
// RUN: %python %S/Inputs/tensors.py random %t/d_in1 bfloat16 1,2,200,64 9
// RUN: %python %S/Inputs/tensors.py random %t/d_in2 bfloat16 1,2,200,64 10
// RUN: magi-interp %s --function=decode --input %t/d_in0.bin --input %t/d_in1.bin --input %t/d_in2.bin --save-outputs %t/d
// RUN: cp %t/d/out0.bin %t/d_out0.bin && cp %t/d/out0.json %t/d_out0.json
// RUN: magi-interp %s --function=decode --lowered-pieces --fixture %t/d | FileCheck %s --check-prefix=TILED
// TILED: out0: rel_err={{[1-9]}}.{{[0-9]+}}e-0{{[3-9]}} OK
// EXACT: out0: rel_err=0.000e+00 OK

func.func @masked(%q: tensor<1x4x?x64xbf16> {magi.input_kind = "user_input", magi.name = "q"}, %k: tensor<1x2x?x64xbf16> {magi.input_kind = "user_input", magi.name = "k"}, %v: tensor<1x2x?x64xbf16> {magi.input_kind = "user_input", magi.name = "v"}, %m: tensor<1x1x?x?xi1> {magi.input_kind = "user_input", magi.name = "mask"}) -> tensor<1x4x?x64xbf16> {
  %s0 = magi.symbolic_int "s0" min 2 max 1024
  magi.bind_symbolic_shape %q, [%s0], affine_map<()[s0] -> (1, 4, s0, 64)> : tensor<1x4x?x64xbf16>
  magi.bind_symbolic_shape %k, [%s0], affine_map<()[s0] -> (1, 2, s0, 64)> : tensor<1x2x?x64xbf16>
  magi.bind_symbolic_shape %v, [%s0], affine_map<()[s0] -> (1, 2, s0, 64)> : tensor<1x2x?x64xbf16>
  magi.bind_symbolic_shape %m, [%s0], affine_map<()[s0] -> (1, 1, s0, s0)> : tensor<1x1x?x?xi1>
  %o = magi.attention %q, %k, %v mask %m {scale = 0.125 : f64} : (tensor<1x4x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x1x?x?xi1>) -> tensor<1x4x?x64xbf16>
  return %o : tensor<1x4x?x64xbf16>
}
func.func @causal(%q: tensor<1x2x?x128xf16> {magi.input_kind = "user_input", magi.name = "q"}, %k: tensor<1x2x?x128xf16> {magi.input_kind = "user_input", magi.name = "k"}, %v: tensor<1x2x?x128xf16> {magi.input_kind = "user_input", magi.name = "v"}) -> tensor<1x2x?x128xf16> {
  %s0 = magi.symbolic_int "s0" min 2 max 1024
  magi.bind_symbolic_shape %q, [%s0], affine_map<()[s0] -> (1, 2, s0, 128)> : tensor<1x2x?x128xf16>
  magi.bind_symbolic_shape %k, [%s0], affine_map<()[s0] -> (1, 2, s0, 128)> : tensor<1x2x?x128xf16>
  magi.bind_symbolic_shape %v, [%s0], affine_map<()[s0] -> (1, 2, s0, 128)> : tensor<1x2x?x128xf16>
  %o = magi.attention %q, %k, %v {is_causal = true, scale = 0.08838834764831843 : f64} : (tensor<1x2x?x128xf16>, tensor<1x2x?x128xf16>, tensor<1x2x?x128xf16>) -> tensor<1x2x?x128xf16>
  return %o : tensor<1x2x?x128xf16>
}
func.func @decode(%q: tensor<1x2x1x64xbf16> {magi.input_kind = "user_input", magi.name = "q"}, %k: tensor<1x2x200x64xbf16> {magi.input_kind = "user_input", magi.name = "k"}, %v: tensor<1x2x200x64xbf16> {magi.input_kind = "user_input", magi.name = "v"}) -> tensor<1x2x1x64xbf16> {
  %o = magi.attention %q, %k, %v {scale = 0.125 : f64} : (tensor<1x2x1x64xbf16>, tensor<1x2x200x64xbf16>, tensor<1x2x200x64xbf16>) -> tensor<1x2x1x64xbf16>
  return %o : tensor<1x2x1x64xbf16>
}
func.func @masked_bshd(%q: tensor<1x4x?x64xbf16> {magi.input_kind = "user_input", magi.name = "q"}, %k: tensor<1x2x?x64xbf16> {magi.input_kind = "user_input", magi.name = "k"}, %v: tensor<1x2x?x64xbf16> {magi.input_kind = "user_input", magi.name = "v"}, %m: tensor<1x1x?x?xi1> {magi.input_kind = "user_input", magi.name = "mask"}) -> tensor<1x4x?x64xbf16> {
  %s0 = magi.symbolic_int "s0" min 2 max 1024
  magi.bind_symbolic_shape %q, [%s0], affine_map<()[s0] -> (1, 4, s0, 64)> : tensor<1x4x?x64xbf16>
  magi.bind_symbolic_shape %k, [%s0], affine_map<()[s0] -> (1, 2, s0, 64)> : tensor<1x2x?x64xbf16>
  magi.bind_symbolic_shape %v, [%s0], affine_map<()[s0] -> (1, 2, s0, 64)> : tensor<1x2x?x64xbf16>
  magi.bind_symbolic_shape %m, [%s0], affine_map<()[s0] -> (1, 1, s0, s0)> : tensor<1x1x?x?xi1>
  %qt = magi.permute %q {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x4x?x64xbf16>) -> tensor<1x?x4x64xbf16>
  magi.bind_symbolic_shape %qt, [%s0], affine_map<()[s0] -> (1, s0, 4, 64)> : tensor<1x?x4x64xbf16>
  %kt = magi.permute %k {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x2x?x64xbf16>) -> tensor<1x?x2x64xbf16>
  magi.bind_symbolic_shape %kt, [%s0], affine_map<()[s0] -> (1, s0, 2, 64)> : tensor<1x?x2x64xbf16>
  %vt = magi.permute %v {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x2x?x64xbf16>) -> tensor<1x?x2x64xbf16>
  magi.bind_symbolic_shape %vt, [%s0], affine_map<()[s0] -> (1, s0, 2, 64)> : tensor<1x?x2x64xbf16>
  %r = magi.attention %qt, %kt, %vt mask %m {layout = "bshd", scale = 0.125 : f64} : (tensor<1x?x4x64xbf16>, tensor<1x?x2x64xbf16>, tensor<1x?x2x64xbf16>, tensor<1x1x?x?xi1>) -> tensor<1x?x4x64xbf16>
  magi.bind_symbolic_shape %r, [%s0], affine_map<()[s0] -> (1, s0, 4, 64)> : tensor<1x?x4x64xbf16>
  %o = magi.permute %r {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x?x4x64xbf16>) -> tensor<1x4x?x64xbf16>
  return %o : tensor<1x4x?x64xbf16>
}
