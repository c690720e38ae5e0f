// REQUIRES: fixtures
// Every fixture case with --lowered-pieces: the graph split by the pipeline,
// each piece lowered to linalg, compiled for the CPU and run through MLIR's
// ExecutionEngine, compared with PyTorch's outputs (the bars of
// fixtures.mlir).
// About 1 s per case (every piece compiled once).

// RUN: magi-interp %fixtures/llama-f32/model.pt2 --lowered-pieces --fixture %fixtures/llama-f32/case0 | FileCheck %s --check-prefix=ONE
// RUN: magi-interp %fixtures/llama-f32/model.pt2 --lowered-pieces --fixture %fixtures/llama-f32/case1 | FileCheck %s --check-prefix=ONE
// RUN: magi-interp %fixtures/llama-bf16/model.pt2 --lowered-pieces --fixture %fixtures/llama-bf16/case0 | FileCheck %s --check-prefix=ONE
// RUN: magi-interp %fixtures/llama-bf16/model.pt2 --lowered-pieces --fixture %fixtures/llama-bf16/case1 | FileCheck %s --check-prefix=ONE
// RUN: magi-interp %fixtures/gpt2-f32/model.pt2 --lowered-pieces --fixture %fixtures/gpt2-f32/case0 | FileCheck %s --check-prefix=ONE
// RUN: magi-interp %fixtures/gpt2-f32/model.pt2 --lowered-pieces --fixture %fixtures/gpt2-f32/case1 | FileCheck %s --check-prefix=ONE
// RUN: magi-interp %fixtures/gpt2-bf16/model.pt2 --lowered-pieces --fixture %fixtures/gpt2-bf16/case0 | FileCheck %s --check-prefix=ONE
// RUN: magi-interp %fixtures/gpt2-bf16/model.pt2 --lowered-pieces --fixture %fixtures/gpt2-bf16/case1 | FileCheck %s --check-prefix=ONE
// RUN: magi-interp %fixtures/bert-f32/model.pt2 --lowered-pieces --fixture %fixtures/bert-f32/case0 | FileCheck %s --check-prefix=TWO
// RUN: magi-interp %fixtures/bert-f32/model.pt2 --lowered-pieces --fixture %fixtures/bert-f32/case1 | FileCheck %s --check-prefix=TWO
// RUN: magi-interp %fixtures/bert-bf16/model.pt2 --lowered-pieces --fixture %fixtures/bert-bf16/case0 | FileCheck %s --check-prefix=TWO
// RUN: magi-interp %fixtures/bert-bf16/model.pt2 --lowered-pieces --fixture %fixtures/bert-bf16/case1 | FileCheck %s --check-prefix=TWO

// ONE:      out0: rel_err={{[0-9.]+e[-+][0-9]+}} OK
// ONE-NOT:  out1

// TWO:      out0: rel_err={{[0-9.]+e[-+][0-9]+}} OK
// TWO-NEXT: out1: rel_err={{[0-9.]+e[-+][0-9]+}} OK
