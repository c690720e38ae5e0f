// fuse -> decompose -> fuse on real graphs gives the same fused ops back.
// REQUIRES: fixtures

// LLaMA bf16: the full-graph phase fuses; decomposing everything leaves none
// of the fused ops; fusing again gives the same counts as before.
// RUN: magi-import %fixtures/llama-bf16/model.pt2 | magi-opt --magi-compile-to=full-graph > %t.llama.full.mlir
// RUN: magi-opt %t.llama.full.mlir -magi-decompose-fused > %t.llama.dec.mlir
// RUN: magi-opt %t.llama.dec.mlir -magi-fuse=enable=layer-norm,attention,rms-norm,silu-and-mul,gelu,rotary-embedding,softmax,attention-layout -canonicalize -magi-dce > %t.llama.refused.mlir
// RUN: FileCheck %s --check-prefix=DEC < %t.llama.dec.mlir
// RUN: FileCheck %s --check-prefix=RMS < %t.llama.full.mlir
// RUN: FileCheck %s --check-prefix=RMS < %t.llama.refused.mlir
// RUN: FileCheck %s --check-prefix=SILU < %t.llama.full.mlir
// RUN: FileCheck %s --check-prefix=SILU < %t.llama.refused.mlir
// RUN: FileCheck %s --check-prefix=ROPE < %t.llama.full.mlir
// RUN: FileCheck %s --check-prefix=ROPE < %t.llama.refused.mlir
// RUN: FileCheck %s --check-prefix=ATT < %t.llama.full.mlir
// RUN: FileCheck %s --check-prefix=ATT < %t.llama.refused.mlir
// The re-fused graph is the fused one.
// RUN: magi-opt %t.llama.full.mlir -canonicalize -cse > %t.llama.full.canon.mlir
// RUN: magi-opt %t.llama.refused.mlir -canonicalize -cse > %t.llama.refused.canon.mlir
// RUN: diff %t.llama.full.canon.mlir %t.llama.refused.canon.mlir

// LLaMA f32 (no casts around the RMSNorm), restricted with `ops`.
// RUN: magi-import %fixtures/llama-f32/model.pt2 | magi-opt --magi-compile-to=full-graph | magi-opt -magi-decompose-fused='ops=magi.rms_norm,magi.silu_and_mul,magi.rotary_embedding' > %t.llama32.dec.mlir
// RUN: FileCheck %s --check-prefix=DEC-SOME < %t.llama32.dec.mlir
// RUN: magi-opt %t.llama32.dec.mlir -magi-fuse=enable=rms-norm,silu-and-mul,rotary-embedding -canonicalize -magi-dce > %t.llama32.refused.mlir
// RUN: FileCheck %s --check-prefix=RMS < %t.llama32.refused.mlir
// RUN: FileCheck %s --check-prefix=SILU < %t.llama32.refused.mlir
// RUN: FileCheck %s --check-prefix=ROPE < %t.llama32.refused.mlir

// GPT-2 (layer norms, tanh GELUs) and BERT (layer norms, erf GELUs,
// attention).
// RUN: magi-import %fixtures/gpt2-f32/model.pt2 | magi-opt --magi-compile-to=full-graph | magi-opt -magi-decompose-fused > %t.gpt2.dec.mlir
// RUN: FileCheck %s --check-prefix=GPT2-DEC < %t.gpt2.dec.mlir
// RUN: magi-opt %t.gpt2.dec.mlir -magi-fuse=enable=layer-norm,attention,gelu -canonicalize -magi-dce > %t.gpt2.refused.mlir
// RUN: FileCheck %s --check-prefix=LN < %t.gpt2.refused.mlir
// RUN: FileCheck %s --check-prefix=ATT < %t.gpt2.refused.mlir
// RUN: FileCheck %s --check-prefix=GELU-TANH < %t.gpt2.refused.mlir
// RUN: magi-import %fixtures/bert-bf16/model.pt2 | magi-opt --magi-compile-to=full-graph | magi-opt -magi-decompose-fused > %t.bert.dec.mlir
// RUN: FileCheck %s --check-prefix=BERT-DEC < %t.bert.dec.mlir
// RUN: magi-opt %t.bert.dec.mlir -magi-fuse=enable=layer-norm,attention,gelu -canonicalize -magi-dce > %t.bert.refused.mlir
// RUN: FileCheck %s --check-prefix=LN < %t.bert.refused.mlir
// RUN: FileCheck %s --check-prefix=ATT < %t.bert.refused.mlir
// RUN: FileCheck %s --check-prefix=GELU-ERF < %t.bert.refused.mlir

// DEC-LABEL: func.func @main
// DEC-NOT: magi.rms_norm
// DEC-NOT: magi.silu_and_mul
// DEC-NOT: magi.rotary_embedding
// DEC-NOT: magi.attention
// DEC: magi.rsqrt
// DEC-NOT: magi.rms_norm
// DEC-NOT: magi.silu_and_mul
// DEC-NOT: magi.rotary_embedding
// DEC-NOT: magi.attention
// DEC: magi.scaled_dot_product_efficient_attention
// DEC-NOT: magi.rms_norm
// DEC-NOT: magi.silu_and_mul
// DEC-NOT: magi.rotary_embedding
// DEC-NOT: magi.attention
// DEC: return

// DEC-SOME-LABEL: func.func @main
// DEC-SOME-NOT: magi.rms_norm
// DEC-SOME-NOT: magi.silu_and_mul
// DEC-SOME-NOT: magi.rotary_embedding
// DEC-SOME: magi.attention
// DEC-SOME-NOT: magi.rms_norm
// DEC-SOME-NOT: magi.silu_and_mul
// DEC-SOME-NOT: magi.rotary_embedding
// DEC-SOME: return

// RMS-LABEL: func.func @main
// RMS-COUNT-5: magi.rms_norm
// RMS-NOT: magi.rms_norm

// SILU-LABEL: func.func @main
// SILU-COUNT-2: magi.silu_and_mul
// SILU-NOT: magi.silu_and_mul

// ROPE-LABEL: func.func @main
// ROPE-COUNT-4: magi.rotary_embedding
// ROPE-NOT: magi.rotary_embedding

// ATT-LABEL: func.func @main
// ATT-COUNT-2: magi.attention
// ATT-NOT: magi.attention

// GPT2-DEC-LABEL: func.func @main
// GPT2-DEC-NOT: magi.layer_norm
// GPT2-DEC-NOT: magi.gelu
// GPT2-DEC-COUNT-2: magi.tanh
// GPT2-DEC-NOT: magi.layer_norm
// GPT2-DEC-NOT: magi.gelu

// BERT-DEC-LABEL: func.func @main
// BERT-DEC-NOT: magi.layer_norm
// BERT-DEC-NOT: magi.gelu
// BERT-DEC-COUNT-2: magi.erf
// BERT-DEC-NOT: magi.layer_norm
// BERT-DEC-NOT: magi.gelu

// LN-LABEL: func.func @main
// LN-NOT: magi.native_layer_norm
// LN-COUNT-5: magi.layer_norm {{.*}}normalized_ndim = 1
// LN-NOT: magi.native_layer_norm

// GELU-TANH-LABEL: func.func @main
// GELU-TANH-COUNT-2: magi.gelu %{{.*}} {approximate = "tanh"}
// GELU-TANH-NOT: magi.tanh

// GELU-ERF-LABEL: func.func @main
// GELU-ERF-COUNT-2: magi.gelu %{{[0-9]+}} :
// GELU-ERF-NOT: magi.erf
