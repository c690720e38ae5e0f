// Numerics are preserved by every phase: the IR after import, full-graph,
// split and post-grad gives the same outputs under magi-interp (f32 graphs:
// within 1e-6 of the imported graph; bf16 graphs: within the fixture bar of
// PyTorch's reference).
// REQUIRES: fixtures
// RUN: bash %S/Inputs/check-phases.sh magi-import magi-opt magi-interp %fixtures/llama-f32 %t/llama-f32 1e-6 | FileCheck %s --check-prefix=ONE
// RUN: bash %S/Inputs/check-phases.sh magi-import magi-opt magi-interp %fixtures/gpt2-f32 %t/gpt2-f32 1e-6 | FileCheck %s --check-prefix=ONE
// RUN: bash %S/Inputs/check-phases.sh magi-import magi-opt magi-interp %fixtures/bert-f32 %t/bert-f32 1e-6 | FileCheck %s --check-prefix=TWO
// RUN: bash %S/Inputs/check-phases.sh magi-import magi-opt magi-interp %fixtures/llama-bf16 %t/llama-bf16 1e-6 | FileCheck %s --check-prefix=ONE
// RUN: bash %S/Inputs/check-phases.sh magi-import magi-opt magi-interp %fixtures/gpt2-bf16 %t/gpt2-bf16 1e-6 | FileCheck %s --check-prefix=ONE
// RUN: bash %S/Inputs/check-phases.sh magi-import magi-opt magi-interp %fixtures/bert-bf16 %t/bert-bf16 1e-6 | FileCheck %s --check-prefix=TWO

// ONE:      import: out0: rel_err={{.*}} OK
// ONE-NEXT: full-graph: out0: rel_err={{.*}} OK
// ONE-NEXT: split: out0: rel_err={{.*}} OK
// ONE-NEXT: post-grad: out0: rel_err={{.*}} OK
// ONE-NOT:  FAIL

// TWO:      import: out0: rel_err={{.*}} OK
// TWO-NEXT: import: out1: rel_err={{.*}} OK
// TWO-NEXT: full-graph: out0: rel_err={{.*}} OK
// TWO-NEXT: full-graph: out1: rel_err={{.*}} OK
// TWO-NEXT: split: out0: rel_err={{.*}} OK
// TWO-NEXT: split: out1: rel_err={{.*}} OK
// TWO-NEXT: post-grad: out0: rel_err={{.*}} OK
// TWO-NEXT: post-grad: out1: rel_err={{.*}} OK
