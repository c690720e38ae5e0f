// magi-split then magi-inline-pieces gives the graph back, on every fixture.
// REQUIRES: fixtures
//
// Imported graphs (BERT's imported attention is the math SDPA, with no
// attention op to split at by default: it is split at its softmax instead).
// `magi-inline-pieces` also drops duplicate shape bindings
// anywhere in the module (CSE leaves some in the imported graphs), and the
// canonicalizer then drops dead ops such a duplicate kept alive; the
// reference graph gets the same treatment (inline-pieces on a graph without
// pieces only does that), so the comparison is exact otherwise.
//
// RUN: magi-import %fixtures/llama-f32/model.pt2 | magi-opt -canonicalize -cse > %t.llama-f32.in
// RUN: magi-import %fixtures/llama-bf16/model.pt2 | magi-opt -canonicalize -cse > %t.llama-bf16.in
// RUN: magi-import %fixtures/gpt2-f32/model.pt2 | magi-opt -canonicalize -cse > %t.gpt2-f32.in
// RUN: magi-import %fixtures/gpt2-bf16/model.pt2 | magi-opt -canonicalize -cse > %t.gpt2-bf16.in
// RUN: magi-import %fixtures/bert-f32/model.pt2 | magi-opt -canonicalize -cse > %t.bert-f32.in
// RUN: magi-import %fixtures/bert-bf16/model.pt2 | magi-opt -canonicalize -cse > %t.bert-bf16.in
// RUN: magi-opt %t.llama-f32.in -magi-inline-pieces -canonicalize -cse > %t.llama-f32.a
// RUN: magi-opt %t.llama-f32.in -magi-split -magi-inline-pieces -canonicalize -cse > %t.llama-f32.b
// RUN: diff %t.llama-f32.a %t.llama-f32.b
// RUN: magi-opt %t.llama-bf16.in -magi-inline-pieces -canonicalize -cse > %t.llama-bf16.a
// RUN: magi-opt %t.llama-bf16.in -magi-split -magi-inline-pieces -canonicalize -cse > %t.llama-bf16.b
// RUN: diff %t.llama-bf16.a %t.llama-bf16.b
// RUN: magi-opt %t.gpt2-f32.in -magi-inline-pieces -canonicalize -cse > %t.gpt2-f32.a
// RUN: magi-opt %t.gpt2-f32.in -magi-split -magi-inline-pieces -canonicalize -cse > %t.gpt2-f32.b
// RUN: diff %t.gpt2-f32.a %t.gpt2-f32.b
// RUN: magi-opt %t.gpt2-bf16.in -magi-inline-pieces -canonicalize -cse > %t.gpt2-bf16.a
// RUN: magi-opt %t.gpt2-bf16.in -magi-split -magi-inline-pieces -canonicalize -cse > %t.gpt2-bf16.b
// RUN: diff %t.gpt2-bf16.a %t.gpt2-bf16.b
// RUN: magi-opt %t.bert-f32.in -magi-inline-pieces -canonicalize -cse > %t.bert-f32.a
// RUN: magi-opt %t.bert-f32.in -magi-split='splitting-ops=magi.softmax' -magi-inline-pieces -canonicalize -cse > %t.bert-f32.b
// RUN: diff %t.bert-f32.a %t.bert-f32.b
// RUN: magi-opt %t.bert-bf16.in -magi-inline-pieces -canonicalize -cse > %t.bert-bf16.a
// RUN: magi-opt %t.bert-bf16.in -magi-split='splitting-ops=magi.softmax' -magi-inline-pieces -canonicalize -cse > %t.bert-bf16.b
// RUN: diff %t.bert-bf16.a %t.bert-bf16.b
//
// The split really splits them (into 5 pieces: 2 layers), and no piece is
// left after inlining.
// RUN: magi-opt %t.llama-bf16.in -magi-split | FileCheck %s --check-prefix=SPLIT
// RUN: magi-opt %t.gpt2-f32.in -magi-split | FileCheck %s --check-prefix=SPLIT
// RUN: magi-opt %t.bert-bf16.in -magi-split='splitting-ops=magi.softmax' | FileCheck %s --check-prefix=SPLIT
// RUN: FileCheck %s --check-prefix=INLINED < %t.llama-bf16.b
// RUN: FileCheck %s --check-prefix=INLINED < %t.gpt2-f32.b
// RUN: FileCheck %s --check-prefix=INLINED < %t.bert-bf16.b
//
// After the fusions (the full-graph phase's output). The split clones
// constants into the pieces and the canonicalizer hoists them back in
// another order, so the printed names of the constants differ:
// normalize-constants.py replaces every constant by its value first.
//
// RUN: magi-opt %t.llama-f32.in --magi-compile-to=full-graph > %t.llama-f32.full
// RUN: magi-opt %t.llama-f32.full -canonicalize -cse | %python %S/Inputs/normalize-constants.py > %t.llama-f32.full.a
// RUN: magi-opt %t.llama-f32.full -canonicalize -cse -magi-split -magi-inline-pieces -canonicalize -cse | %python %S/Inputs/normalize-constants.py > %t.llama-f32.full.b
// RUN: diff %t.llama-f32.full.a %t.llama-f32.full.b
// RUN: magi-opt %t.llama-bf16.in --magi-compile-to=full-graph > %t.llama-bf16.full
// RUN: magi-opt %t.llama-bf16.full -canonicalize -cse | %python %S/Inputs/normalize-constants.py > %t.llama-bf16.full.a
// RUN: magi-opt %t.llama-bf16.full -canonicalize -cse -magi-split -magi-inline-pieces -canonicalize -cse | %python %S/Inputs/normalize-constants.py > %t.llama-bf16.full.b
// RUN: diff %t.llama-bf16.full.a %t.llama-bf16.full.b
// RUN: magi-opt %t.gpt2-f32.in --magi-compile-to=full-graph > %t.gpt2-f32.full
// RUN: magi-opt %t.gpt2-f32.full -canonicalize -cse | %python %S/Inputs/normalize-constants.py > %t.gpt2-f32.full.a
// RUN: magi-opt %t.gpt2-f32.full -canonicalize -cse -magi-split -magi-inline-pieces -canonicalize -cse | %python %S/Inputs/normalize-constants.py > %t.gpt2-f32.full.b
// RUN: diff %t.gpt2-f32.full.a %t.gpt2-f32.full.b
// RUN: magi-opt %t.gpt2-bf16.in --magi-compile-to=full-graph > %t.gpt2-bf16.full
// RUN: magi-opt %t.gpt2-bf16.full -canonicalize -cse | %python %S/Inputs/normalize-constants.py > %t.gpt2-bf16.full.a
// RUN: magi-opt %t.gpt2-bf16.full -canonicalize -cse -magi-split -magi-inline-pieces -canonicalize -cse | %python %S/Inputs/normalize-constants.py > %t.gpt2-bf16.full.b
// RUN: diff %t.gpt2-bf16.full.a %t.gpt2-bf16.full.b
// RUN: magi-opt %t.bert-f32.in --magi-compile-to=full-graph > %t.bert-f32.full
// RUN: magi-opt %t.bert-f32.full -canonicalize -cse | %python %S/Inputs/normalize-constants.py > %t.bert-f32.full.a
// RUN: magi-opt %t.bert-f32.full -canonicalize -cse -magi-split -magi-inline-pieces -canonicalize -cse | %python %S/Inputs/normalize-constants.py > %t.bert-f32.full.b
// RUN: diff %t.bert-f32.full.a %t.bert-f32.full.b
// RUN: magi-opt %t.bert-bf16.in --magi-compile-to=full-graph > %t.bert-bf16.full
// RUN: magi-opt %t.bert-bf16.full -canonicalize -cse | %python %S/Inputs/normalize-constants.py > %t.bert-bf16.full.a
// RUN: magi-opt %t.bert-bf16.full -canonicalize -cse -magi-split -magi-inline-pieces -canonicalize -cse | %python %S/Inputs/normalize-constants.py > %t.bert-bf16.full.b
// RUN: diff %t.bert-bf16.full.a %t.bert-bf16.full.b
// RUN: magi-opt %t.bert-f32.full -magi-split | FileCheck %s --check-prefix=SPLIT
// The normalized files still hold the constants and the fused ops.
// RUN: FileCheck %s --check-prefix=NORM < %t.llama-bf16.full.b

// SPLIT-COUNT-5: func.func private @main_piece_{{[0-4]}}(
// SPLIT-NOT: func.func private @main_piece_
// SPLIT: func.func @main(

// INLINED-NOT: call
// INLINED-NOT: magi.piece_index
// INLINED: func.func @main(
// INLINED-NOT: call

// NORM: func.func @main(
// NORM: // constant: arith.constant 1.000000e+00 : f64
// NORM: magi.mul %{{.*}}, <arith.constant 1.000000e+00 : f64>
// NORM: magi.rms_norm
// NORM: magi.attention
