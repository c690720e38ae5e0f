// magi-specialize on real graphs after the fusions: the clone for one
// sequence length is fully static and verifies.
// REQUIRES: fixtures
//
// The full-graph phase's passes, without its final magi-dce: magi-dce erases
// magi.symbolic_int and every shape binding (see the report), after which
// there is no symbol left to specialize.
// RUN: magi-import %fixtures/llama-bf16/model.pt2 | magi-opt -canonicalize -cse -magi-item-to-tensor -canonicalize -magi-fuse=enable=layer-norm,attention,rms-norm,silu-and-mul,gelu,rotary-embedding,softmax -canonicalize -cse > %t.llama.fused.mlir
// RUN: magi-opt %t.llama.fused.mlir -magi-specialize='symbol=s70 value=16' > %t.llama.s16.mlir
// RUN: magi-opt %t.llama.s16.mlir -verify-diagnostics | FileCheck %s --check-prefix=LLAMA
// RUN: magi-opt %t.llama.s16.mlir -magi-specialize='symbol=s70 value=300' | magi-opt | FileCheck %s --check-prefix=LLAMA300
// RUN: magi-import %fixtures/gpt2-f32/model.pt2 | magi-opt -canonicalize -cse -magi-fuse=enable=layer-norm,attention,gelu -canonicalize -cse | magi-opt -magi-specialize='symbol=s70 value=7 replace=true' | magi-opt | FileCheck %s --check-prefix=GPT2

// LLAMA-LABEL: func.func @main(
// LLAMA-SAME: tensor<1x?xi64> {magi.input_kind = "user_input", magi.name = "input_ids"}
// LLAMA: magi.symbolic_int "s70"
// LLAMA-LABEL: func.func @main_s70_16(
// LLAMA-SAME: tensor<1x16xi64> {magi.input_kind = "user_input", magi.name = "input_ids"}) -> (tensor<1x16x512xbf16> {magi.output_kind = "user_output"})
// LLAMA-SAME: attributes {magi.specialized = {s70 = 16 : i64}}
// LLAMA-NOT: {{\?}}
// LLAMA-NOT: magi.symbolic_int
// LLAMA: magi.rms_norm {{.*}} -> tensor<1x16x128xbf16>
// LLAMA: magi.attention {{.*}} : (tensor<1x4x16x32xbf16>, tensor<1x2x16x32xbf16>, tensor<1x2x16x32xbf16>, tensor<1x1x16x16xbf16>) -> tensor<1x4x16x32xbf16>
// LLAMA-COUNT-2: magi.rms_norm {{.*}} -> tensor<1x16x128xbf16>
// LLAMA: magi.attention {{.*}} -> tensor<1x4x16x32xbf16>
// LLAMA-COUNT-2: magi.rms_norm {{.*}} -> tensor<1x16x128xbf16>
// LLAMA-NOT: {{\?}}
// LLAMA: return {{.*}} : tensor<1x16x512xbf16>

// LLAMA300-LABEL: func.func @main(
// LLAMA300-LABEL: func.func @main_s70_300(
// LLAMA300-SAME: tensor<1x300xi64>
// LLAMA300-LABEL: func.func @main_s70_16(

// GPT2-LABEL: func.func @main(
// GPT2-SAME: tensor<1x7xi64> {magi.input_kind = "user_input", magi.name = "input_ids"}) -> (tensor<1x7x512xf32>
// GPT2-SAME: attributes {magi.specialized = {s70 = 7 : i64}}
// GPT2-NOT: {{\?}}
// GPT2-COUNT-2: magi.gelu {{.*}}approximate = "tanh"{{.*}} -> tensor<1x7x512xf32>
// GPT2-NOT: {{\?}}
// GPT2-NOT: func.func @main_s70
