// magi-opt's pipeline options (--magi-compile-to, --magi-dump-dir,
// --magi-split-dot, --magi-splitting-ops) and the registered magi-pipeline.

// Each phase on a small layer: RMSNorm, efficient attention, SwiGLU.
// RUN: magi-opt %s --magi-compile-to=import | FileCheck %s --check-prefix=IMPORT
// RUN: magi-opt %s --magi-compile-to=full-graph | FileCheck %s --check-prefix=FULL
// RUN: magi-opt %s --magi-compile-to=split | FileCheck %s --check-prefix=SPLIT
// RUN: magi-opt %s --magi-compile-to=post-grad | FileCheck %s --check-prefix=SPLIT
// --dump-pass-pipeline prints the phases' passes (after MlirOptMain's own
// dump of the command line's passes, here none).
// RUN: magi-opt %s --magi-compile-to=split --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// DUMP: magi-opt: the whole pipeline, with --magi-compile-to's phases:
// DUMP: magi-fuse{
// DUMP: magi-split
// import is where the pipeline starts: the IR is unchanged.
// RUN: magi-opt %s > %t.plain.mlir
// RUN: magi-opt %s --magi-compile-to=import > %t.import.mlir
// RUN: diff %t.plain.mlir %t.import.mlir

// Unknown phases and option values; the binary phase's options need it
// (test/Compile/binary-phase.mlir runs it).
// RUN: not magi-opt %s --magi-compile-to=bogus 2>&1 | FileCheck %s --check-prefix=BOGUS
// BOGUS: magi-opt: unknown phase 'bogus' (phases: import, full-graph, split, post-grad, lower, binary)
// RUN: not magi-opt %s --magi-compile-to=lower --magi-binary-options=chip=sm_80 2>&1 | FileCheck %s --check-prefix=BINOPTS
// BINOPTS: magi-opt: binary-options need compile-to=binary
// RUN: not magi-opt %s --magi-compile-to=lower --magi-tiled-attention=maybe 2>&1 | FileCheck %s --check-prefix=TILED
// TILED: magi-opt: tiled-attention must be auto, on or off, got 'maybe'
// RUN: not magi-opt %s --magi-compile-to=binary --magi-binary-options=bogus=1 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: magi-opt: cannot parse binary-options 'bogus=1'

// The options that configure the pipeline need it.
// RUN: not magi-opt %s --magi-dump-dir=%t/nodump 2>&1 | FileCheck %s --check-prefix=NEEDS
// RUN: not magi-opt %s --magi-split-dot=%t/nodot.dot 2>&1 | FileCheck %s --check-prefix=NEEDS
// RUN: not magi-opt %s --magi-splitting-ops=magi.mm 2>&1 | FileCheck %s --check-prefix=NEEDS
// RUN: not magi-opt %s --magi-binary-options=chip=sm_80 2>&1 | FileCheck %s --check-prefix=NEEDS
// RUN: not magi-opt %s --magi-tiled-attention=on 2>&1 | FileCheck %s --check-prefix=NEEDS
// RUN: not ls %t/nodump
// NEEDS: magi-opt: --magi-dump-dir, --magi-split-dot, --magi-splitting-ops, --magi-tiled-attention and --magi-binary-options need --magi-compile-to

// --magi-dump-dir writes the IR after every phase run, and every piece
// after split (the directory is created, nested too).
// RUN: rm -rf %t/dump %t/dump-full
// RUN: magi-opt %s --magi-compile-to=post-grad --magi-dump-dir=%t/dump/nested > %t.post.mlir
// RUN: ls %t/dump/nested | FileCheck %s --check-prefix=LS
// LS:      00-import.mlir
// LS-NEXT: 01-full-graph.mlir
// LS-NEXT: 02-split.main_piece_0.mlir
// LS-NEXT: 02-split.main_piece_1.mlir
// LS-NEXT: 02-split.main_piece_2.mlir
// LS-NEXT: 02-split.mlir
// LS-NEXT: 03-post-grad.main_piece_0.mlir
// LS-NEXT: 03-post-grad.main_piece_1.mlir
// LS-NEXT: 03-post-grad.main_piece_2.mlir
// LS-NEXT: 03-post-grad.mlir
// LS-NOT: {{.}}
// The dumps hold the IR of their phase; the last one is what is printed.
// RUN: FileCheck %s --check-prefix=IMPORT < %t/dump/nested/00-import.mlir
// RUN: FileCheck %s --check-prefix=FULL < %t/dump/nested/01-full-graph.mlir
// RUN: FileCheck %s --check-prefix=SPLIT < %t/dump/nested/02-split.mlir
// RUN: FileCheck %s --check-prefix=PIECE1 < %t/dump/nested/02-split.main_piece_1.mlir
// RUN: FileCheck %s --check-prefix=PIECE1 < %t/dump/nested/03-post-grad.main_piece_1.mlir
// RUN: diff %t/dump/nested/03-post-grad.mlir %t.post.mlir
// Up to full-graph: two files only.
// RUN: magi-opt %s --magi-compile-to=full-graph --magi-dump-dir=%t/dump-full > /dev/null
// RUN: ls %t/dump-full | FileCheck %s --check-prefix=LS-FULL
// LS-FULL:      00-import.mlir
// LS-FULL-NEXT: 01-full-graph.mlir
// LS-FULL-NOT: {{.}}

// A piece file holds the piece function alone.
// PIECE1:     func.func private @main_piece_1(
// PIECE1-SAME: magi.is_splitting = true
// PIECE1-NEXT: magi.attention
// PIECE1-NEXT: return
// PIECE1-NOT: func.func

// --magi-split-dot writes the split graph as Graphviz.
// RUN: magi-opt %s --magi-compile-to=split --magi-split-dot=%t.dot > /dev/null
// RUN: FileCheck %s --check-prefix=DOT < %t.dot
// DOT: digraph magi_split {
// DOT: subgraph cluster_main {
// DOT: "main_piece_0" [label="main_piece_0\ncompute, graph_index 0,
// DOT: "main_piece_1" [label="main_piece_1\nsplitting: magi.attention", style=filled, fillcolor=lightblue];
// DOT: "main_piece_2" [label="main_piece_2\ncompute, graph_index 1,
// DOT-DAG: "main_piece_0" -> "main_piece_1" [label="tensor<1x2x?x32xbf16>"];
// DOT-DAG: "main_piece_1" -> "main_piece_2" [label="tensor<1x2x?x32xbf16>"];
// DOT-DAG: "main_piece_0" -> "main_piece_2" [label="tensor<1x2x?x32xbf16>"];

// --magi-splitting-ops replaces the default (attention): split at the RMSNorm
// and the SwiGLU instead; a name that matches nothing is a warning.
// RUN: magi-opt %s --magi-compile-to=split --magi-splitting-ops=magi.rms_norm,magi.silu_and_mul | FileCheck %s --check-prefix=OPS
// RUN: magi-opt %s --magi-compile-to=split --magi-splitting-ops=magi.bogus 2>&1 >/dev/null | FileCheck %s --check-prefix=OPS-WARN
// The splitting piece of the RMSNorm gets its input's binding and the symbol.
// OPS-LABEL: func.func private @main_piece_0(
// OPS-SAME: %[[X:.*]]: tensor<1x?x64xbf16>, %[[W:.*]]: tensor<64xbf16>, %[[S:.*]]: index {magi.symbol = "s0"})
// OPS-SAME: magi.is_splitting = true
// OPS-NEXT: magi.bind_symbolic_shape %[[X]], [%[[S]]]
// OPS-NEXT: magi.rms_norm %[[X]] weight %[[W]]
// OPS-NEXT: return
// OPS-LABEL: func.func private @main_piece_1(
// OPS-SAME: magi.graph_index = 0 : i64, magi.is_splitting = false
// OPS: magi.attention
// OPS-LABEL: func.func private @main_piece_2(
// OPS-SAME: magi.is_splitting = true
// OPS-NEXT: magi.silu_and_mul
// OPS-NOT: @main_piece_3
// OPS-WARN: warning: splitting-op pattern 'magi.bogus' matched no op

// The registered pipeline, with its options.
// RUN: magi-opt %s -pass-pipeline='builtin.module(magi-pipeline{compile-to=split fusions=rms-norm})' | FileCheck %s --check-prefix=ONLY-RMS
// RUN: magi-opt %s -pass-pipeline='builtin.module(magi-pipeline{compile-to=full-graph fusions=none})' | FileCheck %s --check-prefix=NONE
// RUN: magi-opt %s -pass-pipeline='builtin.module(magi-pipeline{compile-to=full-graph fusions=attention,silu-and-mul})' | FileCheck %s --check-prefix=TWO
// RUN: magi-opt %s -pass-pipeline='builtin.module(magi-pipeline)' | FileCheck %s --check-prefix=SPLIT
// RUN: magi-opt %s -pass-pipeline='builtin.module(magi-pipeline{compile-to=split splitting-ops=magi.rms_norm,magi.silu_and_mul})' | FileCheck %s --check-prefix=OPS
// RUN: magi-opt %s -pass-pipeline='builtin.module(magi-pipeline{compile-to=full-graph replace-op=magi.silu=magi.gelu})' | FileCheck %s --check-prefix=REPLACE
// RUN: magi-opt %s -pass-pipeline='builtin.module(magi-pipeline{compile-to=full-graph full-graph-extra=magi-decompose-fused{ops=magi.rms_norm}})' | FileCheck %s --check-prefix=EXTRA
// RUN: magi-opt %s -pass-pipeline='builtin.module(magi-pipeline{post-grad-extra=magi-decompose-fused{ops=magi.silu_and_mul}})' | FileCheck %s --check-prefix=POST-EXTRA
// RUN: magi-opt %s -pass-pipeline='builtin.module(magi-pipeline{compile-to=full-graph disable-fusions=rms-norm})' | FileCheck %s --check-prefix=NO-RMS
// RUN: not magi-opt %s -pass-pipeline='builtin.module(magi-pipeline{fusions=bogus})' 2>&1 | FileCheck %s --check-prefix=BAD-FUSION
// RUN: not magi-opt %s -pass-pipeline='builtin.module(magi-pipeline{disable-fusions=bogus})' 2>&1 | FileCheck %s --check-prefix=BAD-FUSION
// RUN: not magi-opt %s -pass-pipeline='builtin.module(magi-pipeline{compile-to=nope})' 2>&1 | FileCheck %s --check-prefix=BAD-PHASE
// RUN: not magi-opt %s -pass-pipeline='builtin.module(magi-pipeline{replace-op=magi.silu})' 2>&1 | FileCheck %s --check-prefix=BAD-REPLACE
// RUN: not magi-opt %s -pass-pipeline='builtin.module(magi-pipeline{full-graph-extra=no-such-pass})' 2>&1 | FileCheck %s --check-prefix=BAD-EXTRA
// RUN: not magi-opt %s -pass-pipeline='builtin.module(magi-pipeline{post-grad-extra=no-such-pass})' 2>&1 | FileCheck %s --check-prefix=BAD-POST-EXTRA

// ONLY-RMS-LABEL: func.func private @main_piece_0(
// ONLY-RMS: magi.rms_norm
// ONLY-RMS-LABEL: func.func private @main_piece_1(
// ONLY-RMS-SAME: magi.is_splitting = true
// ONLY-RMS-NEXT: magi.scaled_dot_product_efficient_attention
// ONLY-RMS-LABEL: func.func private @main_piece_2(
// ONLY-RMS-NEXT: magi.silu
// ONLY-RMS-NEXT: magi.mul
// ONLY-RMS-NOT: magi.silu_and_mul

// NONE-LABEL: func.func @main(
// NONE-NOT: magi.rms_norm
// NONE: magi.rsqrt
// NONE: magi.scaled_dot_product_efficient_attention
// NONE: magi.silu
// NONE-NOT: magi.silu_and_mul

// TWO-LABEL: func.func @main(
// TWO-NOT: magi.rms_norm
// TWO: magi.rsqrt
// TWO: magi.attention
// TWO: magi.silu_and_mul

// Every fusion but the one left out.
// NO-RMS-LABEL: func.func @main(
// NO-RMS-NOT: magi.rms_norm
// NO-RMS: magi.rsqrt
// NO-RMS: magi.attention
// NO-RMS: magi.silu_and_mul

// replace-op runs before the fusions: with silu renamed to gelu there is no
// SwiGLU to form.
// REPLACE-LABEL: func.func @main(
// REPLACE: magi.rms_norm
// REPLACE: magi.attention
// REPLACE: %[[G:.*]] = magi.gelu
// REPLACE-NEXT: magi.mul %[[G]]
// REPLACE-NOT: magi.silu

// EXTRA-LABEL: func.func @main(
// EXTRA-NOT: magi.rms_norm
// EXTRA: magi.rsqrt
// EXTRA: magi.attention
// EXTRA: magi.silu_and_mul

// POST-EXTRA-LABEL: func.func private @main_piece_2(
// POST-EXTRA-NEXT: magi.silu %
// POST-EXTRA-NEXT: magi.mul
// POST-EXTRA-NOT: magi.silu_and_mul

// BAD-FUSION: error: unknown fusion 'bogus' (known: layer-norm, attention, rms-norm, silu-and-mul, gelu, rotary-embedding, softmax, attention-layout, causal-mask)
// BAD-PHASE: error: unknown phase 'nope' (phases: import, full-graph, split, post-grad, lower, binary)
// BAD-REPLACE: error: replace-op must be 'from=to', got 'magi.silu'
// BAD-EXTRA: error: cannot parse full-graph-extra 'no-such-pass'
// BAD-POST-EXTRA: error: cannot parse post-grad-extra 'no-such-pass'

// --mlir-timing reports the pipeline's passes, in order, after the passes
// given the usual way (which run first).
// RUN: magi-opt %s -canonicalize --magi-compile-to=post-grad --mlir-timing 2>&1 >/dev/null | FileCheck %s --check-prefix=TIMING
// TIMING: Execution time report
// TIMING: Canonicalizer
// TIMING: 'func.func' Pipeline
// TIMING: ItemToTensor
// TIMING: Fuse
// TIMING-NEXT: DeadCode
// TIMING: Split
// TIMING: 'func.func' Pipeline
// TIMING-NEXT: TopologicalSort
// TIMING: ExplicitPromotion
// TIMING: Total

// IMPORT-LABEL: func.func @main(
// IMPORT: magi.pow
// IMPORT: magi.scaled_dot_product_efficient_attention
// IMPORT-NOT: magi.rms_norm
// IMPORT-NOT: call

// FULL-LABEL: func.func @main(
// FULL-NEXT: magi.symbolic_int "s0"
// FULL-NEXT: magi.bind_symbolic_shape
// FULL-NEXT: magi.rms_norm
// FULL-NEXT: magi.view
// FULL-NEXT: magi.permute
// FULL-NEXT: magi.attention
// FULL-NEXT: magi.silu_and_mul
// FULL-NEXT: return
// FULL-NOT: @main_piece

// SPLIT-LABEL: func.func private @main_piece_0(
// SPLIT-SAME: magi.graph_index = 0 : i64, magi.is_splitting = false, magi.piece_index = 0 : i64
// SPLIT: magi.rms_norm
// SPLIT-LABEL: func.func private @main_piece_1(
// SPLIT-SAME: magi.is_splitting = true, magi.piece_index = 1 : i64
// SPLIT-NEXT: magi.attention
// SPLIT-LABEL: func.func private @main_piece_2(
// SPLIT-SAME: magi.graph_index = 1 : i64, magi.is_splitting = false, magi.piece_index = 2 : i64
// SPLIT-NEXT: magi.silu_and_mul
// SPLIT-LABEL: func.func @main(
// SPLIT: call @main_piece_0
// SPLIT-NEXT: call @main_piece_1
// SPLIT-NEXT: call @main_piece_2

func.func @main(%x: tensor<1x?x64xbf16>, %w: tensor<64xbf16>, %k: tensor<1x2x?x32xbf16>, %v: tensor<1x2x?x32xbf16>) -> tensor<1x2x?x32xbf16> {
  %s0 = magi.symbolic_int "s0" min 2 max 1024
  magi.bind_symbolic_shape %x, [%s0], affine_map<()[s0] -> (1, s0, 64)> : tensor<1x?x64xbf16>
  %two = arith.constant 2 : i64
  %eps = arith.constant 1.0e-06 : f64
  %x32 = magi.to_copy %x {dtype = f32} : (tensor<1x?x64xbf16>) -> tensor<1x?x64xf32>
  %sq = magi.pow %x32, %two : (tensor<1x?x64xf32>, i64) -> tensor<1x?x64xf32>
  %var = magi.mean %sq {dims = array<i64: -1>, keepdim = true} : (tensor<1x?x64xf32>) -> tensor<1x?x1xf32>
  %var_eps = magi.add %var, %eps : (tensor<1x?x1xf32>, f64) -> tensor<1x?x1xf32>
  %inv = magi.rsqrt %var_eps : (tensor<1x?x1xf32>) -> tensor<1x?x1xf32>
  %n32 = magi.mul %x32, %inv : (tensor<1x?x64xf32>, tensor<1x?x1xf32>) -> tensor<1x?x64xf32>
  %n = magi.to_copy %n32 {dtype = bf16} : (tensor<1x?x64xf32>) -> tensor<1x?x64xbf16>
  %h = magi.mul %w, %n : (tensor<64xbf16>, tensor<1x?x64xbf16>) -> tensor<1x?x64xbf16>
  %h4 = magi.view %h [1, %s0, 2, 32] : tensor<1x?x64xbf16> -> tensor<1x?x2x32xbf16>
  %q = magi.permute %h4 {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x?x2x32xbf16>) -> tensor<1x2x?x32xbf16>
  %r, %lse, %seed, %off = magi.scaled_dot_product_efficient_attention %q, %k, %v {is_causal = true} : (tensor<1x2x?x32xbf16>, tensor<1x2x?x32xbf16>, tensor<1x2x?x32xbf16>) -> (tensor<1x2x?x32xbf16>, tensor<1x2x0xf32>, tensor<i64>, tensor<i64>)
  %g = magi.silu %r : (tensor<1x2x?x32xbf16>) -> tensor<1x2x?x32xbf16>
  %y = magi.mul %g, %q : (tensor<1x2x?x32xbf16>, tensor<1x2x?x32xbf16>) -> tensor<1x2x?x32xbf16>
  return %y : tensor<1x2x?x32xbf16>
}
