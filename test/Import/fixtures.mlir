// Every shared fixture imports, verifies, and round-trips through text and
// bytecode; graphs keep their inputs, symbols and outputs.
// REQUIRES: fixtures
// RUN: magi-import %fixtures/llama-f32/model.pt2 | magi-opt --verify-roundtrip | FileCheck %s --check-prefixes=COMMON,LLAMA,F32
// RUN: magi-import %fixtures/llama-bf16/model.pt2 | magi-opt --verify-roundtrip | FileCheck %s --check-prefixes=COMMON,LLAMA,BF16
// RUN: magi-import %fixtures/gpt2-f32/model.pt2 | magi-opt --verify-roundtrip | FileCheck %s --check-prefixes=COMMON,GPT2,F32
// RUN: magi-import %fixtures/gpt2-bf16/model.pt2 | magi-opt --verify-roundtrip | FileCheck %s --check-prefixes=COMMON,GPT2,BF16
// RUN: magi-import %fixtures/bert-f32/model.pt2 | magi-opt --verify-roundtrip | FileCheck %s --check-prefixes=COMMON,BERT,F32
// RUN: magi-import %fixtures/bert-bf16/model.pt2 | magi-opt --verify-roundtrip | FileCheck %s --check-prefixes=COMMON,BERT,BF16
// Bytecode output reads back to the same text.
// RUN: magi-import %fixtures/llama-bf16/model.pt2 --emit-bytecode -o %t.mlirbc
// RUN: magi-import %fixtures/llama-bf16/model.pt2 > %t.mlir
// RUN: magi-opt %t.mlirbc > %t.from-bc.mlir
// RUN: magi-opt %t.mlir > %t.from-text.mlir
// RUN: diff %t.from-bc.mlir %t.from-text.mlir
// Nothing becomes opaque in these graphs.
// RUN: magi-import %fixtures/bert-bf16/model.pt2 2>&1 | FileCheck %s --check-prefix=NOOPAQUE
// NOOPAQUE-NOT: magi.opaque
// NOOPAQUE-NOT: warning

// COMMON-LABEL: func.func @main(
// F32-SAME:       %arg0: tensor<512x128xf32> {magi.input_kind = "parameter", magi.name = "{{[a-z_.0-9]+}}", magi.weight = {entry = "model/data/weights/weight_0", offset = 0 : i64, strides = array<i64: 128, 1>}}
// BF16-SAME:      %arg0: tensor<512x128xbf16> {magi.input_kind = "parameter"
// LLAMA-SAME:     {magi.input_kind = "buffer", magi.name = "m.model.rotary_emb.inv_freq", magi.weight = {entry = "model/data/constants/tensor_0"
// COMMON-SAME:    tensor<1x?xi64> {magi.input_kind = "user_input", magi.name = "input_ids"})
// LLAMA-SAME:     -> (tensor<1x?x512x{{f32|bf16}}> {magi.output_kind = "user_output"})
// GPT2-SAME:      -> (tensor<1x?x512x{{f32|bf16}}> {magi.output_kind = "user_output"})
// BERT-SAME:      -> (tensor<1x?x128x{{f32|bf16}}> {magi.output_kind = "user_output"}, tensor<1x128x{{f32|bf16}}> {magi.output_kind = "user_output"})
// COMMON:         %[[S70:.*]] = magi.symbolic_int "s70" min 2
// COMMON:         magi.bind_symbolic_shape %arg{{[0-9]+}}, [%[[S70]]], #{{.*}} : tensor<1x?xi64>
// LLAMA:          magi.scaled_dot_product_efficient_attention
// LLAMA:          magi.scaled_dot_product_efficient_attention
// LLAMA-NOT:      magi.scaled_dot_product_efficient_attention
// GPT2:           magi.native_layer_norm
// GPT2:           magi.split_with_sizes
// GPT2:           magi.scaled_dot_product_efficient_attention
// BERT:           magi.native_layer_norm
// BERT:           magi.softmax
// BERT:           magi.gelu
// COMMON:         return
