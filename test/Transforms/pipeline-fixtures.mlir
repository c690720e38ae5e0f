// The phased pipeline on every fixture: what full-graph fuses, how split cuts
// the graph, what post-grad leaves.
// REQUIRES: fixtures

//===----------------------------------------------------------------------===//
// full-graph
//===----------------------------------------------------------------------===//

// RUN: magi-import %fixtures/llama-f32/model.pt2 > %t.llama-f32.in
// RUN: magi-import %fixtures/llama-bf16/model.pt2 > %t.llama-bf16.in
// RUN: magi-import %fixtures/gpt2-f32/model.pt2 > %t.gpt2-f32.in
// RUN: magi-import %fixtures/gpt2-bf16/model.pt2 > %t.gpt2-bf16.in
// RUN: magi-import %fixtures/bert-f32/model.pt2 > %t.bert-f32.in
// RUN: magi-import %fixtures/bert-bf16/model.pt2 > %t.bert-bf16.in
// RUN: magi-opt %t.llama-f32.in --magi-compile-to=full-graph > %t.llama-f32.full
// RUN: magi-opt %t.llama-bf16.in --magi-compile-to=full-graph > %t.llama-bf16.full
// RUN: magi-opt %t.gpt2-f32.in --magi-compile-to=full-graph > %t.gpt2-f32.full
// RUN: magi-opt %t.gpt2-bf16.in --magi-compile-to=full-graph > %t.gpt2-bf16.full
// RUN: magi-opt %t.bert-f32.in --magi-compile-to=full-graph > %t.bert-f32.full
// RUN: magi-opt %t.bert-bf16.in --magi-compile-to=full-graph > %t.bert-bf16.full

// LLaMA: 5 RMSNorms (2 layers x 2 + final), 2 SwiGLUs, 4 rotary embeddings
// (q and k of each layer), 2 attentions; nothing of the patterns is left.
// RUN: FileCheck %s --check-prefix=RMS5 < %t.llama-f32.full
// RUN: FileCheck %s --check-prefix=RMS5 < %t.llama-bf16.full
// RUN: FileCheck %s --check-prefix=SILU2 < %t.llama-f32.full
// RUN: FileCheck %s --check-prefix=SILU2 < %t.llama-bf16.full
// RUN: FileCheck %s --check-prefix=ROPE4 < %t.llama-f32.full
// RUN: FileCheck %s --check-prefix=ROPE4 < %t.llama-bf16.full
// RUN: FileCheck %s --check-prefix=ATT2 < %t.llama-f32.full
// RUN: FileCheck %s --check-prefix=ATT2 < %t.llama-bf16.full
// RUN: FileCheck %s --check-prefix=LLAMA-LEFT < %t.llama-f32.full
// RUN: FileCheck %s --check-prefix=LLAMA-LEFT < %t.llama-bf16.full
// RUN: FileCheck %s --check-prefix=LLAMA-GQA < %t.llama-bf16.full

// GPT-2: 5 layer norms, 2 tanh GELUs, 2 attentions, no tanh left.
// RUN: FileCheck %s --check-prefix=LN5 < %t.gpt2-f32.full
// RUN: FileCheck %s --check-prefix=LN5 < %t.gpt2-bf16.full
// RUN: FileCheck %s --check-prefix=GELU-TANH2 < %t.gpt2-f32.full
// RUN: FileCheck %s --check-prefix=GELU-TANH2 < %t.gpt2-bf16.full
// RUN: FileCheck %s --check-prefix=ATT2 < %t.gpt2-f32.full
// RUN: FileCheck %s --check-prefix=ATT2 < %t.gpt2-bf16.full
// RUN: FileCheck %s --check-prefix=GPT2-LEFT < %t.gpt2-f32.full
// RUN: FileCheck %s --check-prefix=GPT2-LEFT < %t.gpt2-bf16.full

// BERT: 5 layer norms, 2 GELUs (erf, as imported), 2 attentions formed from
// the math SDPA; no bmm, softmax or native layer norm left.
// RUN: FileCheck %s --check-prefix=LN5 < %t.bert-f32.full
// RUN: FileCheck %s --check-prefix=LN5 < %t.bert-bf16.full
// RUN: FileCheck %s --check-prefix=GELU2 < %t.bert-f32.full
// RUN: FileCheck %s --check-prefix=GELU2 < %t.bert-bf16.full
// RUN: FileCheck %s --check-prefix=ATT2 < %t.bert-f32.full
// RUN: FileCheck %s --check-prefix=ATT2 < %t.bert-bf16.full
// RUN: FileCheck %s --check-prefix=BERT-LEFT < %t.bert-f32.full
// RUN: FileCheck %s --check-prefix=BERT-LEFT < %t.bert-bf16.full
// RUN: FileCheck %s --check-prefix=BERT-ATT < %t.bert-f32.full

// RMS5-LABEL: func.func @main(
// RMS5-COUNT-5: magi.rms_norm %{{.*}} weight %arg{{[0-9]+}} {eps = 9.9999999999999995E-7 : f64}
// RMS5-NOT: magi.rms_norm

// SILU2-LABEL: func.func @main(
// SILU2-COUNT-2: magi.silu_and_mul
// SILU2-NOT: magi.silu_and_mul

// ROPE4-LABEL: func.func @main(
// ROPE4-COUNT-4: magi.rotary_embedding
// ROPE4-NOT: magi.rotary_embedding

// ATT2-LABEL: func.func @main(
// ATT2-COUNT-2: magi.attention
// ATT2-NOT: magi.attention

// LLAMA-LEFT-LABEL: func.func @main(
// LLAMA-LEFT-NOT: magi.scaled_dot_product_efficient_attention
// LLAMA-LEFT-NOT: magi.pow
// LLAMA-LEFT-NOT: magi.rsqrt
// LLAMA-LEFT-NOT: magi.mean
// LLAMA-LEFT-NOT: magi.sigmoid
// LLAMA-LEFT-NOT: magi.silu {{.*}}
// LLAMA-LEFT-NOT: magi.neg
// LLAMA-LEFT: return

// The GQA attention takes the unrepeated K and V (2 heads for 4 query heads)
// in the projections' layout [B, S, H, D] (attention-layout), and no mask:
// the one transformers builds is proved causal (causal-mask), so nothing of
// it is left.
// LLAMA-GQA-LABEL: func.func @main(
// LLAMA-GQA-NOT: magi.clone
// LLAMA-GQA-NOT: magi.cumsum
// LLAMA-GQA: magi.attention %{{.*}}, %{{.*}}, %{{.*}} {is_causal = true, layout = "bshd", scale = 0.17677669529663689 : f64} : (tensor<1x?x4x32xbf16>, tensor<1x?x2x32xbf16>, tensor<1x?x2x32xbf16>) -> tensor<1x?x4x32xbf16>
// LLAMA-GQA-NOT: magi.where

// LN5-LABEL: func.func @main(
// LN5-NOT: magi.native_layer_norm
// LN5-COUNT-5: magi.layer_norm %{{.*}} weight %{{.*}} bias %{{.*}} {eps = {{.*}}, normalized_ndim = 1 : i64}
// LN5-NOT: magi.layer_norm
// LN5-NOT: magi.native_layer_norm

// GELU-TANH2-LABEL: func.func @main(
// GELU-TANH2-COUNT-2: magi.gelu %{{.*}} {approximate = "tanh"}
// GELU-TANH2-NOT: magi.gelu

// GELU2-LABEL: func.func @main(
// GELU2-COUNT-2: magi.gelu %{{[0-9]+}} :
// GELU2-NOT: magi.gelu

// GPT2-LEFT-LABEL: func.func @main(
// GPT2-LEFT-NOT: magi.tanh
// GPT2-LEFT-NOT: magi.pow
// GPT2-LEFT-NOT: magi.scaled_dot_product_efficient_attention
// GPT2-LEFT-NOT: magi.native_layer_norm
// GPT2-LEFT: return

// BERT-LEFT-LABEL: func.func @main(
// BERT-LEFT-NOT: magi.bmm
// BERT-LEFT-NOT: magi.softmax
// BERT-LEFT-NOT: magi.native_layer_norm
// BERT-LEFT-NOT: magi.full_like
// BERT-LEFT: return

// BERT-ATT-LABEL: func.func @main(
// BERT-ATT: magi.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {layout = "bshd", scale = 0.17677669529663692 : f64} : (tensor<1x?x4x32xf32>, tensor<1x?x4x32xf32>, tensor<1x?x4x32xf32>, tensor<1x1x?x?xf32>) -> tensor<1x?x4x32xf32>

//===----------------------------------------------------------------------===//
// split
//===----------------------------------------------------------------------===//

// Exactly 5 pieces: compute 0, 2, 4 (graph indices 0, 1, 2) and splitting 1,
// 3, each holding only its attention, in layout bshd where its q, k and v
// were transposed projections ([1, S, 4, 32]; BERT's bf16 math SDPA, computed
// in f32 through casts, stays [1, 4, S, 32]). The attention pieces take q, k and v
// from the pieces before them. LLaMA's and GPT-2's masks are proved causal
// (causal-mask): their attentions are `is_causal`, with no mask. BERT's mask,
// made from its input ids, is made once, in piece 0, and passed to both
// attention pieces. ($A is the attention's dtype: BERT's math SDPA computes in
// f32 for a bf16 model, with the bf16 mask.)
// RUN: magi-opt %t.llama-f32.in --magi-compile-to=split | FileCheck %s --check-prefixes=SPLIT,SPLIT-LLAMA,SPLIT-CAUSAL -D'$T=f32' -D'$A=f32'
// RUN: magi-opt %t.llama-bf16.in --magi-compile-to=split | FileCheck %s --check-prefixes=SPLIT,SPLIT-LLAMA,SPLIT-CAUSAL -D'$T=bf16' -D'$A=bf16'
// RUN: magi-opt %t.gpt2-f32.in --magi-compile-to=split | FileCheck %s --check-prefixes=SPLIT,SPLIT-GPT2,SPLIT-CAUSAL -D'$T=f32' -D'$A=f32'
// RUN: magi-opt %t.gpt2-bf16.in --magi-compile-to=split | FileCheck %s --check-prefixes=SPLIT,SPLIT-GPT2,SPLIT-CAUSAL -D'$T=bf16' -D'$A=bf16'
// RUN: magi-opt %t.bert-f32.in --magi-compile-to=split | FileCheck %s --check-prefixes=SPLIT,SPLIT-BERT,SPLIT-MASK -D'$T=f32' -D'$A=f32'
// RUN: magi-opt %t.bert-bf16.in --magi-compile-to=split | FileCheck %s --check-prefixes=SPLIT,SPLIT-BERT,SPLIT-MASK -D'$T=bf16' -D'$A=f32'

// SPLIT-LABEL: func.func private @main_piece_0(
// SPLIT-SAME: attributes {magi.graph_index = 0 : i64, magi.is_splitting = false, magi.piece_index = 0 : i64}
// SPLIT-NOT: magi.attention
// SPLIT-LLAMA: magi.rms_norm
// SPLIT-LLAMA: magi.rotary_embedding
// SPLIT-GPT2: magi.layer_norm
// SPLIT-BERT: magi.layer_norm
// SPLIT-NOT: magi.attention

// SPLIT-LABEL: func.func private @main_piece_1(
// SPLIT-LLAMA-SAME: %arg0: tensor<1x?x4x32x[[$T]]>, %arg1: tensor<1x?x2x32x[[$T]]>, %arg2: tensor<1x?x2x32x[[$T]]>, %arg3: index {magi.symbol = "s70"}) -> tensor<1x?x4x32x[[$T]]>
// SPLIT-GPT2-SAME: %arg0: tensor<1x?x4x32x[[$T]]>, %arg1: tensor<1x?x4x32x[[$T]]>, %arg2: tensor<1x?x4x32x[[$T]]>, %arg3: index {magi.symbol = "s70"}) -> tensor<1x?x4x32x[[$T]]>
// SPLIT-BERT-SAME: %arg0: tensor<1x[[$L:4x\?|\?x4]]x32x[[$A]]>, %arg1: tensor<1x[[$L]]x32x[[$A]]>, %arg2: tensor<1x[[$L]]x32x[[$A]]>, %arg3: tensor<1x1x?x?x[[$T]]>, %arg4: index {magi.symbol = "s70"}) -> tensor<1x[[$L]]x32x[[$A]]>
// SPLIT-SAME: attributes {magi.is_splitting = true, magi.piece_index = 1 : i64} {
// SPLIT-NEXT: magi.bind_symbolic_shape %arg0, [%arg[[$S:[34]]]]
// SPLIT-NEXT: magi.bind_symbolic_shape %arg1, [%arg[[$S]]]
// SPLIT-NEXT: magi.bind_symbolic_shape %arg2, [%arg[[$S]]]
// SPLIT-MASK-NEXT: magi.bind_symbolic_shape %arg3, [%arg[[$S]]]
// SPLIT-MASK-NEXT: %[[A:.*]] = magi.attention %arg0, %arg1, %arg2 mask %arg3
// SPLIT-CAUSAL-NEXT: %[[A:.*]] = magi.attention %arg0, %arg1, %arg2 {is_causal = true
// SPLIT-NEXT: magi.bind_symbolic_shape %[[A]], [%arg[[$S]]]
// SPLIT-NEXT: return %[[A]]
// SPLIT-NEXT: }

// SPLIT-LABEL: func.func private @main_piece_2(
// SPLIT-SAME: %arg{{[01]}}: tensor<1x{{4x\?|\?x4}}x32x[[$A]]>
// SPLIT-SAME: attributes {magi.graph_index = 1 : i64, magi.is_splitting = false, magi.piece_index = 2 : i64}
// SPLIT-NOT: magi.attention
// SPLIT: return
// SPLIT-NEXT: }

// SPLIT-LABEL: func.func private @main_piece_3(
// SPLIT-SAME: attributes {magi.is_splitting = true, magi.piece_index = 3 : i64} {
// SPLIT-MASK-COUNT-4: magi.bind_symbolic_shape %arg{{[0-3]}}, [%arg4]
// SPLIT-MASK-NEXT: %[[A:.*]] = magi.attention %arg0, %arg1, %arg2 mask %arg3
// SPLIT-CAUSAL-COUNT-3: magi.bind_symbolic_shape %arg{{[0-2]}}, [%arg3]
// SPLIT-CAUSAL-NEXT: %[[A:.*]] = magi.attention %arg0, %arg1, %arg2 {is_causal = true
// SPLIT-NEXT: magi.bind_symbolic_shape %[[A]], [%arg[[$S]]]
// SPLIT-NEXT: return %[[A]]
// SPLIT-NEXT: }

// SPLIT-LABEL: func.func private @main_piece_4(
// SPLIT-SAME: %arg{{[01]}}: tensor<1x{{4x\?|\?x4}}x32x[[$A]]>
// SPLIT-SAME: attributes {magi.graph_index = 2 : i64, magi.is_splitting = false, magi.piece_index = 4 : i64}
// SPLIT-NOT: magi.attention
// SPLIT: return
// SPLIT-NEXT: }

// SPLIT-NOT: @main_piece_5
// SPLIT-LABEL: func.func @main(
// SPLIT: %[[S:.*]] = magi.symbolic_int "s70" min 2
// SPLIT: %[[P0:[0-9]+]]:{{[0-9]+}} = call @main_piece_0(
// SPLIT-MASK: %[[P1:[0-9]+]] = call @main_piece_1(%[[P0]]#{{[0-9]+}}, %[[P0]]#{{[0-9]+}}, %[[P0]]#{{[0-9]+}}, %[[P0]]#[[MASK:[0-9]+]], %[[S]])
// SPLIT-CAUSAL: %[[P1:[0-9]+]] = call @main_piece_1(%[[P0]]#{{[0-9]+}}, %[[P0]]#{{[0-9]+}}, %[[P0]]#{{[0-9]+}}, %[[S]])
// SPLIT: %[[P2:[0-9]+]]:{{[0-9]+}} = call @main_piece_2({{(%arg[0-9]+, )?}}%[[P1]],
// SPLIT-MASK: %[[P3:[0-9]+]] = call @main_piece_3(%[[P2]]#{{[0-9]+}}, %[[P2]]#{{[0-9]+}}, %[[P2]]#{{[0-9]+}}, %[[P0]]#[[MASK]], %[[S]])
// SPLIT-CAUSAL: %[[P3:[0-9]+]] = call @main_piece_3(%[[P2]]#{{[0-9]+}}, %[[P2]]#{{[0-9]+}}, %[[P2]]#{{[0-9]+}}, %[[S]])
// SPLIT: %[[P4:[0-9]+]]{{(:2)?}} = call @main_piece_4({{(%arg[0-9]+, )?}}%[[P3]],
// SPLIT: return %[[P4]]

//===----------------------------------------------------------------------===//
// post-grad
//===----------------------------------------------------------------------===//

// The same 5 pieces, per-piece clean-ups: transposed weights are read in
// place (magi-fold-transposes), so no permute feeds an mm any more.
// RUN: magi-opt %t.llama-bf16.in --magi-compile-to=post-grad | FileCheck %s --check-prefixes=POST,POST-LLAMA
// RUN: magi-opt %t.llama-f32.in --magi-compile-to=post-grad | FileCheck %s --check-prefixes=POST,POST-LLAMA
// RUN: magi-opt %t.gpt2-f32.in --magi-compile-to=post-grad | FileCheck %s --check-prefix=POST
// RUN: magi-opt %t.gpt2-bf16.in --magi-compile-to=post-grad | FileCheck %s --check-prefix=POST
// RUN: magi-opt %t.bert-f32.in --magi-compile-to=post-grad | FileCheck %s --check-prefixes=POST,POST-BERT
// RUN: magi-opt %t.bert-bf16.in --magi-compile-to=post-grad | FileCheck %s --check-prefixes=POST,POST-BERT

// POST-LABEL: func.func private @main_piece_0(
// POST-SAME: magi.graph_index = 0 : i64, magi.is_splitting = false, magi.piece_index = 0 : i64
// POST-LLAMA: magi.mm %{{.*}}, %arg{{[0-9]+}} {transpose_mat2}
// POST-BERT: magi.addmm %{{.*}}, %{{.*}}, %arg{{[0-9]+}} {transpose_mat2}
// POST-LABEL: func.func private @main_piece_1(
// POST-SAME: magi.is_splitting = true, magi.piece_index = 1 : i64
// POST: magi.attention
// POST: return
// POST-LABEL: func.func private @main_piece_2(
// POST-SAME: magi.graph_index = 1 : i64
// POST-LABEL: func.func private @main_piece_3(
// POST-SAME: magi.is_splitting = true, magi.piece_index = 3 : i64
// POST: magi.attention
// POST: return
// POST-LABEL: func.func private @main_piece_4(
// POST-SAME: magi.graph_index = 2 : i64
// POST-LABEL: func.func @main(
// POST-COUNT-5: call @main_piece_
// POST: return

// Nothing in the LLaMA pieces multiplies by a transposed weight any more.
// RUN: magi-opt %t.llama-bf16.in --magi-compile-to=post-grad | FileCheck %s --check-prefix=NOPERM
// NOPERM-NOT: magi.permute %arg{{[0-9]+}} {dims = array<i64: 1, 0>}
// NOPERM: func.func @main(
