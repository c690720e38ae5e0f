// magi-compile on every shared fixture: five pieces each (three compute
// pieces, two attention pieces, the second identical to the first: compiled
// once, its files written once and named by both), every PTX assembled by
// ptxas into a cubin, and a manifest
// whose graph references each weight in the archive (entry, range, CRC-32,
// view), with the archive's path relative to the artifact, and describes
// the merged projections' weights as concatenations of those.
// REQUIRES: fixtures, ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: magi-compile %fixtures/llama-f32/model.pt2 -o %t/llama-f32 --cache-mode=off | FileCheck %s
// RUN: magi-compile %fixtures/llama-bf16/model.pt2 -o %t/llama-bf16 --cache-mode=off | FileCheck %s
// RUN: magi-compile %fixtures/gpt2-f32/model.pt2 -o %t/gpt2-f32 --cache-mode=off | FileCheck %s
// RUN: magi-compile %fixtures/gpt2-bf16/model.pt2 -o %t/gpt2-bf16 --cache-mode=off | FileCheck %s
// RUN: magi-compile %fixtures/bert-f32/model.pt2 -o %t/bert-f32 --cache-mode=off | FileCheck %s
// RUN: magi-compile %fixtures/bert-bf16/model.pt2 -o %t/bert-bf16 --cache-mode=off | FileCheck %s
// RUN: ls %t/llama-bf16/pieces | FileCheck %s --check-prefix=FILES
// RUN: FileCheck %s --check-prefix=SHARED --input-file=%t/llama-bf16/manifest.json
// RUN: FileCheck %s --check-prefix=MANIFEST --input-file=%t/llama-f32/manifest.json

// CHECK:      piece 0   main_piece_0 compute   graph 0  {{.*}} compiled
// CHECK-NEXT: piece 1   main_piece_1 splitting graph -1 {{.*}} compiled
// CHECK-NEXT: piece 2   main_piece_2 compute   graph 1  {{.*}} compiled
// CHECK-NEXT: piece 3   main_piece_3 splitting graph -1 {{.*}} reused
// CHECK-NEXT: piece 4   main_piece_4 compute   graph 2  {{.*}} compiled
// CHECK-NEXT: magi-compile: 5 pieces, {{[0-9]+}} kernels, sm_90

// FILES:      piece_0.cubin
// FILES-NEXT: piece_0.ptx
// FILES-NEXT: piece_1.cubin
// FILES-NEXT: piece_1.ptx
// FILES-NEXT: piece_2.cubin
// FILES-NEXT: piece_2.ptx
// FILES-NEXT: piece_4.cubin
// FILES-NEXT: piece_4.ptx
// FILES-NOT:  piece_3

// SHARED:     "name": "main_piece_3",
// SHARED:     "cubin": "pieces/piece_1.cubin",
// SHARED:     "ptx": "pieces/piece_1.ptx",

// MANIFEST:      "kind": "parameter",
// MANIFEST-NEXT: "name": "m.model.embed_tokens.weight",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT:   512,
// MANIFEST-NEXT:   128
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "weight": {
// MANIFEST-NEXT:   "bytes": 262144,
// MANIFEST-NEXT:   "crc32": {{[0-9]+}},
// MANIFEST-NEXT:   "entry": "model/data/weights/{{.*}}",
// MANIFEST-NEXT:   "file": 0,
// MANIFEST-NEXT:   "method": "stored",
// MANIFEST-NEXT:   "offset": {{[0-9]+}},
// MANIFEST-NEXT:   "storage_offset": 0,
// MANIFEST-NEXT:   "stored_bytes": 262144,
// MANIFEST-NEXT:   "strides": [
// MANIFEST-NEXT:     128,
// MANIFEST-NEXT:     1
// The merged Q/K/V weight (magi-merge-projections) names its parts.
// MANIFEST:      "concat_of": [
// MANIFEST-NEXT:   1,
// MANIFEST-NEXT:   2,
// MANIFEST-NEXT:   3
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "dtype": "f32",
// MANIFEST-NEXT: "kind": "parameter",
// MANIFEST-NEXT: "name": "m.model.layers.0.self_attn.q_proj.weight+m.model.layers.0.self_attn.k_proj.weight+m.model.layers.0.self_attn.v_proj.weight",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT:   256,
// MANIFEST-NEXT:   128
// MANIFEST-NEXT: ]
// MANIFEST-NEXT: },
// MANIFEST:      "kind": "user_input",
// MANIFEST-NEXT: "name": "input_ids",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT:   1,
// MANIFEST-NEXT:   "s70"
// MANIFEST:      "symbols": [
// MANIFEST-NEXT:   {
// MANIFEST-NEXT:     "dim": 1,
// MANIFEST-NEXT:     "input": 27,
