// The README's main job: magi-compile on the bundled example (no weights)
// splits it at attention into three pieces and compiles each; the matrix
// products are cuBLASLt calls (q, k, v; then o, gate, up, down).
// REQUIRES: ptxas
// RUN: rm -rf %t && magi-compile %magi_src_root/examples/llama_decoder_layer.mlir -o %t --no-weights --cache-mode=off | FileCheck %s
// CHECK:      piece 0 llama_decoder_layer_piece_0 compute graph 0 {{[0-9]+}} kernels 3 gemms 1 variants
// CHECK-NEXT: piece 1 llama_decoder_layer_piece_1 splitting graph -1 {{[0-9]+}} kernels 0 gemms 1 variants
// CHECK-NEXT: piece 2 llama_decoder_layer_piece_2 compute graph 1 {{[0-9]+}} kernels 4 gemms 1 variants
// CHECK-NEXT: magi-compile: 3 pieces, {{[0-9]+}} kernels, sm_90
// RUN: FileCheck %s --check-prefix=MANIFEST --input-file=%t/manifest.json
// MANIFEST:      "kind": "parameter",
// MANIFEST-NEXT: "name": "layers.0.input_layernorm.weight",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT:   128
// MANIFEST-NEXT: ]
// MANIFEST-NEXT: },
