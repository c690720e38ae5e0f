// aten._scaled_dot_product_cudnn_attention, as torch.export records SDPA
// where PyTorch picks cuDNN (f16/bf16 with a mask on Hopper): six outputs
// (the cumulative sequence lengths and the debug mask are None), the
// sequence lengths as SymInts. It imports to
// magi.scaled_dot_product_cudnn_attention, is interpreted (log-sum-exp
// [B, H, L, 1]), and magi-fuse makes it magi.attention when only its
// output is read. By hand, one head, L = S = 2, E = 1, scale 1, a zero
// mask: q = [1, 0], k = [0, 1], v = [1, 3]; row 0 weighs v by softmax(0, 1)
// = [0.26894142, 0.7310586] (2.4621172, log-sum-exp log(1 + e) =
// 1.3132616), row 1 by [0.5, 0.5] (2, log 2).
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/cudnn.pt2 \
// RUN:   "{'inputs': {'q': ('f32', [1, 1, 2, 1]), 'k': ('f32', [1, 1, 2, 1]), 'v': ('f32', [1, 1, 2, 1]), 'm': ('f32', [1, 1, 2, 2])}, \
// RUN:     'nodes': [('aten._scaled_dot_product_cudnn_attention.default', \
// RUN:                [('query', 'q'), ('key', 'k'), ('value', 'v'), ('attn_bias', 'm'), ('compute_log_sumexp', True), ('scale', 1.0)], \
// RUN:                {'out': ('f32', [1, 1, 2, 1]), 'lse': ('f32', [1, 1, 2, 1]), 'max_q': ('index', '2'), 'max_k': ('index', '2'), \
// RUN:                 'seed': ('i64', []), 'offset': ('i64', [])})], \
// RUN:     'outputs': ['out', 'lse']}"
// RUN: magi-import %t/cudnn.pt2 -o %t/cudnn.mlir
// RUN: FileCheck %s --input-file=%t/cudnn.mlir
// RUN: magi-opt --verify-roundtrip %t/cudnn.mlir > /dev/null
// CHECK: %result, %log_sumexp, %max_q, %max_k, %philox_seed, %philox_offset = magi.scaled_dot_product_cudnn_attention %arg0, %arg1, %arg2 bias %arg3 {compute_log_sumexp = true, scale = 1.000000e+00 : f64} : (tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x2xf32>) -> (tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, index, index, tensor<i64>, tensor<i64>)

// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/q.npy float32 1,1,2,1 1,0
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/k.npy float32 1,1,2,1 0,1
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/v.npy float32 1,1,2,1 1,3
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/m.npy float32 1,1,2,2 0,0,0,0
// RUN: magi-interp %t/cudnn.pt2 --input %t/q.npy --input %t/k.npy --input %t/v.npy --input %t/m.npy | FileCheck %s --check-prefix=VALUES
// VALUES:      out0: tensor<1x1x2x1xf32> = {{\[}}{{\[}}{{\[}}[2.4621172], [2]]]]
// VALUES-NEXT: out1: tensor<1x1x2x1xf32> = {{\[}}{{\[}}{{\[}}[1.3132616], [0.6931472]]]]

// Only the output read: magi.attention, which compiles for the GPU (the log-
// sum-exp read keeps the op, which has no lowering).
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/out-only.pt2 \
// RUN:   "{'inputs': {'q': ('bf16', [1, 2, 8, 16]), 'k': ('bf16', [1, 2, 8, 16]), 'v': ('bf16', [1, 2, 8, 16]), 'm': ('bf16', [1, 1, 8, 8])}, \
// RUN:     'nodes': [('aten._scaled_dot_product_cudnn_attention.default', \
// RUN:                [('query', 'q'), ('key', 'k'), ('value', 'v'), ('attn_bias', 'm'), ('compute_log_sumexp', False), ('scale', 0.25)], \
// RUN:                {'out': ('bf16', [1, 2, 8, 16]), 'lse': ('f32', [1, 2, 8, 1]), 'max_q': ('index', '8'), 'max_k': ('index', '8'), \
// RUN:                 'seed': ('i64', []), 'offset': ('i64', [])})], \
// RUN:     'outputs': ['out']}"
// RUN: magi-import %t/out-only.pt2 -o %t/out-only.mlir
// RUN: magi-opt %t/out-only.mlir --magi-compile-to=full-graph | FileCheck %s --check-prefix=FUSED
// FUSED-NOT: cudnn
// FUSED: magi.attention %arg0, %arg1, %arg2 mask %arg3 {scale = 2.500000e-01 : f64} : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x1x8x8xbf16>) -> tensor<1x2x8x16xbf16>
// RUN: magi-compile %t/out-only.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
