// The six shared fixtures lower completely: after --magi-compile-to=lower no
// magi op is left in any piece (only the split graph @main, which calls the
// pieces, keeps magi ops), and after one-shot-bufferize the pieces' top level
// holds only linalg ops, allocations, copies, views, dims and index
// arithmetic (Inputs/check-host-ops.py).
// REQUIRES: fixtures
// RUN: magi-import %fixtures/llama-f32/model.pt2 -o %t.llama-f32.mlir
// RUN: magi-opt %t.llama-f32.mlir --magi-compile-to=lower -o %t.llama-f32.lower.mlir
// RUN: FileCheck %s < %t.llama-f32.lower.mlir
// RUN: magi-opt %t.llama-f32.lower.mlir --pass-pipeline="builtin.module(one-shot-bufferize{allow-unknown-ops bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map})" \
// RUN: | %python %S/Inputs/check-host-ops.py | FileCheck %s --check-prefix=HOST
// RUN: magi-import %fixtures/llama-bf16/model.pt2 -o %t.llama-bf16.mlir
// RUN: magi-opt %t.llama-bf16.mlir --magi-compile-to=lower -o %t.llama-bf16.lower.mlir
// RUN: FileCheck %s < %t.llama-bf16.lower.mlir
// RUN: magi-opt %t.llama-bf16.lower.mlir --pass-pipeline="builtin.module(one-shot-bufferize{allow-unknown-ops bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map})" \
// RUN: | %python %S/Inputs/check-host-ops.py | FileCheck %s --check-prefix=HOST
// RUN: magi-import %fixtures/gpt2-f32/model.pt2 -o %t.gpt2-f32.mlir
// RUN: magi-opt %t.gpt2-f32.mlir --magi-compile-to=lower -o %t.gpt2-f32.lower.mlir
// RUN: FileCheck %s < %t.gpt2-f32.lower.mlir
// RUN: magi-opt %t.gpt2-f32.lower.mlir --pass-pipeline="builtin.module(one-shot-bufferize{allow-unknown-ops bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map})" \
// RUN: | %python %S/Inputs/check-host-ops.py | FileCheck %s --check-prefix=HOST
// RUN: magi-import %fixtures/gpt2-bf16/model.pt2 -o %t.gpt2-bf16.mlir
// RUN: magi-opt %t.gpt2-bf16.mlir --magi-compile-to=lower -o %t.gpt2-bf16.lower.mlir
// RUN: FileCheck %s < %t.gpt2-bf16.lower.mlir
// RUN: magi-opt %t.gpt2-bf16.lower.mlir --pass-pipeline="builtin.module(one-shot-bufferize{allow-unknown-ops bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map})" \
// RUN: | %python %S/Inputs/check-host-ops.py | FileCheck %s --check-prefix=HOST
// RUN: magi-import %fixtures/bert-f32/model.pt2 -o %t.bert-f32.mlir
// RUN: magi-opt %t.bert-f32.mlir --magi-compile-to=lower -o %t.bert-f32.lower.mlir
// RUN: FileCheck %s < %t.bert-f32.lower.mlir
// RUN: magi-opt %t.bert-f32.lower.mlir --pass-pipeline="builtin.module(one-shot-bufferize{allow-unknown-ops bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map})" \
// RUN: | %python %S/Inputs/check-host-ops.py | FileCheck %s --check-prefix=HOST
// RUN: magi-import %fixtures/bert-bf16/model.pt2 -o %t.bert-bf16.mlir
// RUN: magi-opt %t.bert-bf16.mlir --magi-compile-to=lower -o %t.bert-bf16.lower.mlir
// RUN: FileCheck %s < %t.bert-bf16.lower.mlir
// RUN: magi-opt %t.bert-bf16.lower.mlir --pass-pipeline="builtin.module(one-shot-bufferize{allow-unknown-ops bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map})" \
// RUN: | %python %S/Inputs/check-host-ops.py | FileCheck %s --check-prefix=HOST

// The pieces come first, the split graph last.
// CHECK: func.func private @main_piece_0(
// CHECK-NOT: = magi.
// CHECK-NOT: magi.bind_symbolic_shape
// CHECK-NOT: magi.symbolic_int
// CHECK: func.func @main(
// CHECK-SAME: attributes {magi.split}
// CHECK-NOT: func.func

// HOST-NOT: host op
// HOST: checked {{[0-9]+}} pieces
