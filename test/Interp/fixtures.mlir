// REQUIRES: fixtures
// The real graphs: every fixture case imported from its archive, run, and
// compared with PyTorch's outputs (rel_err <= 1e-4 for f32, 3e-2 for bf16;
// magi-interp exits nonzero on any FAIL).

// RUN: magi-interp %fixtures/llama-f32/model.pt2 --fixture %fixtures/llama-f32/case0 | FileCheck %s --check-prefix=ONE
// RUN: magi-interp %fixtures/llama-f32/model.pt2 --fixture %fixtures/llama-f32/case1 | FileCheck %s --check-prefix=ONE
// RUN: magi-interp %fixtures/llama-bf16/model.pt2 --fixture %fixtures/llama-bf16/case0 | FileCheck %s --check-prefix=ONE
// RUN: magi-interp %fixtures/llama-bf16/model.pt2 --fixture %fixtures/llama-bf16/case1 | FileCheck %s --check-prefix=ONE
// RUN: magi-interp %fixtures/gpt2-f32/model.pt2 --fixture %fixtures/gpt2-f32/case0 | FileCheck %s --check-prefix=ONE
// RUN: magi-interp %fixtures/gpt2-f32/model.pt2 --fixture %fixtures/gpt2-f32/case1 | FileCheck %s --check-prefix=ONE
// RUN: magi-interp %fixtures/gpt2-bf16/model.pt2 --fixture %fixtures/gpt2-bf16/case0 | FileCheck %s --check-prefix=ONE
// RUN: magi-interp %fixtures/gpt2-bf16/model.pt2 --fixture %fixtures/gpt2-bf16/case1 | FileCheck %s --check-prefix=ONE
// RUN: magi-interp %fixtures/bert-f32/model.pt2 --fixture %fixtures/bert-f32/case0 | FileCheck %s --check-prefix=TWO
// RUN: magi-interp %fixtures/bert-f32/model.pt2 --fixture %fixtures/bert-f32/case1 | FileCheck %s --check-prefix=TWO
// RUN: magi-interp %fixtures/bert-bf16/model.pt2 --fixture %fixtures/bert-bf16/case0 | FileCheck %s --check-prefix=TWO
// RUN: magi-interp %fixtures/bert-bf16/model.pt2 --fixture %fixtures/bert-bf16/case1 | FileCheck %s --check-prefix=TWO

// ONE:      out0: rel_err={{[0-9.]+e[-+][0-9]+}} OK
// ONE-NOT:  out1

// TWO:      out0: rel_err={{[0-9.]+e[-+][0-9]+}} OK
// TWO-NEXT: out1: rel_err={{[0-9.]+e[-+][0-9]+}} OK

// The imported graph also runs as a .mlir file with the archive for weights.
// RUN: magi-import %fixtures/llama-bf16/model.pt2 -o %t.mlir
// RUN: magi-interp %t.mlir --weights %fixtures/llama-bf16/model.pt2 --fixture %fixtures/llama-bf16/case1 | FileCheck %s --check-prefix=ONE

// Saving outputs writes the fixtures' format, which reads back as a fixture.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: magi-interp %fixtures/bert-bf16/model.pt2 --fixture %fixtures/bert-bf16/case1 --save-outputs %t.dir/saved --save-outputs-npy %t.dir/npy 2>&1 | FileCheck %s --check-prefix=SAVE
// RUN: cp %fixtures/bert-bf16/case1_in0.bin %t.dir/saved/c_in0.bin
// RUN: cp %fixtures/bert-bf16/case1_in0.json %t.dir/saved/c_in0.json
// RUN: mv %t.dir/saved/out0.bin %t.dir/saved/c_out0.bin
// RUN: mv %t.dir/saved/out0.json %t.dir/saved/c_out0.json
// RUN: mv %t.dir/saved/out1.bin %t.dir/saved/c_out1.bin
// RUN: mv %t.dir/saved/out1.json %t.dir/saved/c_out1.json
// RUN: magi-interp %fixtures/bert-bf16/model.pt2 --fixture %t.dir/saved/c | FileCheck %s --check-prefix=EXACT
// RUN: cat %t.dir/saved/c_out1.json | FileCheck %s --check-prefix=JSON
// RUN: %python %S/Inputs/tensors.py show %t.dir/npy/out1.npy | FileCheck %s --check-prefix=NPY

// SAVE-DAG: out0: rel_err={{.*}} OK
// SAVE-DAG: out1: rel_err={{.*}} OK
// SAVE-DAG: note: out0 is bfloat16, which NumPy lacks; '{{.*}}out0.npy' holds it as float32
// EXACT:      out0: rel_err=0.000e+00 OK
// EXACT-NEXT: out1: rel_err=0.000e+00 OK
// JSON: {"shape": [1, 128], "dtype": "bfloat16"}
// NPY: npy v1 <f4 [1, 128]
