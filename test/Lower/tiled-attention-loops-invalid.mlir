// magi-tiled-attention-to-loops needs buffers and a valid key-splits.
// RUN: magi-opt %s --split-input-file --verify-diagnostics --pass-pipeline="builtin.module(func.func(magi-tiled-attention-to-loops))"
// RUN: not magi-opt %s --pass-pipeline="builtin.module(func.func(magi-tiled-attention-to-loops{key-splits=-1}))" 2>&1 | FileCheck %s --check-prefix=SPLITS
// SPLITS: error: magi-tiled-attention-to-loops: key-splits must be between 0 and 1024, got -1

func.func @tensors(%q: tensor<1x2x8x64xbf16>) -> tensor<1x2x8x64xbf16> {
  %init = tensor.empty() : tensor<1x2x8x64xbf16>
  // expected-error @+1 {{must be bufferized before magi-tiled-attention-to-loops}}
  %o = magi.tiled_attention %q, %q, %q outs(%init) {scale = 0.125 : f64}
      : tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16> -> tensor<1x2x8x64xbf16>
  return %o : tensor<1x2x8x64xbf16>
}
