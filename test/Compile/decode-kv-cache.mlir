// A decode step against a static KV cache: the 7B-shaped one-layer causal LM
// that bench/decode/export.py exports with transformers' static cache (T = 1,
// 4096 cached positions, weights and cache zeroed). torch.export lists the
// key and value caches and the cache's length counter as buffers the step
// mutates; the importer marks those outputs with the buffer they write back
// to, the caches' index_put writes in place (its piece returns the cache
// argument itself), the counter is copied into its buffer in place, and
// the manifest lists the three mutations.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: magi-import %magi_src_root/examples/llama7b-decode/llama7b-decode-1l-zero.pt2 | FileCheck %s --check-prefix=IMPORT
// RUN: magi-compile %magi_src_root/examples/llama7b-decode/llama7b-decode-1l-zero.pt2 -o %t/decode --cache-mode=off | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --input-file=%t/decode/manifest.json
// The same said by an artifact restored from the cache.
// RUN: magi-compile %magi_src_root/examples/llama7b-decode/llama7b-decode-1l-zero.pt2 -o %t/cold --cache-dir=%t/cache | FileCheck %s --check-prefix=SUMMARY
// RUN: magi-compile %magi_src_root/examples/llama7b-decode/llama7b-decode-1l-zero.pt2 -o %t/warm --cache-dir=%t/cache | FileCheck %s --check-prefix=SUMMARY

// The summary says which mutated inputs are written in place: all three
// (the counter's new value, computed from the step's position, is copied
// into it in place at the end of the step).
// SUMMARY: magi-compile: 3 mutated input(s): key_cache_0, value_cache_0, cumulative_length_0 written in place

// IMPORT: func.func @main(
// IMPORT-SAME: %arg12: tensor<1x32x4096x128xbf16> {magi.input_kind = "buffer", magi.name = "key_cache_0"
// IMPORT-SAME: -> (tensor<1x32x4096x128xbf16> {magi.mutates = "key_cache_0", magi.output_kind = "buffer_mutation"},
// IMPORT-SAME: tensor<1x32x4096x128xbf16> {magi.mutates = "value_cache_0", magi.output_kind = "buffer_mutation"},
// IMPORT-SAME: tensor<i64> {magi.mutates = "cumulative_length_0", magi.output_kind = "buffer_mutation"},
// IMPORT-SAME: tensor<1x1x32000xbf16> {magi.output_kind = "user_output"})
// IMPORT: magi.index_put %arg12[%{{.*}}], %{{.*}} {indexed_dims = array<i64: 2>}

// The graph's mutations, by output.
// CHECK:      "mutations": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "input": 14,
// CHECK-NEXT:     "output": 0
// CHECK-NEXT:   },
// CHECK-NEXT:   {
// CHECK-NEXT:     "input": 15,
// CHECK-NEXT:     "output": 1
// CHECK-NEXT:   },
// CHECK-NEXT:   {
// CHECK-NEXT:     "input": 16,
// CHECK-NEXT:     "output": 2
// CHECK-NEXT:   }
// CHECK-NEXT: ],
// The first piece's results 3 and 4 (the new caches) are its cache
// arguments: written in place, no copy of the 32 MiB caches.
// CHECK: "name": "main_piece_0",
// CHECK: "results": [
// CHECK: "base": "arg7",
// CHECK-NEXT: "offset": 0,
// CHECK-NEXT: "sizes": [
// CHECK-NEXT: 1,
// CHECK-NEXT: 32,
// CHECK-NEXT: 4096,
// CHECK: "base": "arg8",
// CHECK: "version": 14,
