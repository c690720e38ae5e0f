// A whole mixture-of-experts causal LM: transformers' Qwen2-MoE (2 layers,
// 4 experts, 2 a token, random bf16 weights) with its experts computed the
// grouped_mm way (histc on int32 expert ids, argsort, _grouped_mm,
// index_add), exported by torch.export on an H100 at 24 tokens
// (scripts/gpu-release-check.py --moe, 2026-12-06), with PyTorch eager's
// logits on that GPU as case0_out0. Attention was exported as the cuDNN SDPA
// kernel (bf16 with a mask on Hopper), and the mask holds float16's lowest
// in bf16. Everything imports to typed ops, the interpreter and the pieces
// lowered and run on the CPU match PyTorch's logits, and the graph compiles
// for the GPU.
// RUN: rm -rf %t && mkdir -p %t && tar -C %t -xzf %S/Inputs/qwen2-moe.tgz
// RUN: magi-import %t/model.pt2 -o %t/model.mlir 2>&1 | FileCheck %s --check-prefix=IMPORT --allow-empty
// IMPORT-NOT: opaque
// RUN: FileCheck %s --input-file=%t/model.mlir
// CHECK-COUNT-2: magi.scaled_dot_product_cudnn_attention
// CHECK-NOT: magi.opaque
// RUN: magi-interp %t/model.pt2 --fixture %t/case0 | FileCheck %s --check-prefix=MATCH
// RUN: magi-interp %t/model.pt2 --fixture %t/case0 --lowered-pieces | FileCheck %s --check-prefix=MATCH
// MATCH: out0: rel_err={{.*}} OK
// RUN: magi-compile %t/model.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
// RUN: test -f %t/artifact/manifest.json
