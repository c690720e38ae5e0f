// magi-compile on a small split graph (an elementwise piece, a splitting
// matmul piece, a piece with a reduction): the artifact's manifest, its PTX
// (which ptxas accepts: magi-compile assembles a cubin with it) and the
// launch plans as expressions of the piece arguments.
// REQUIRES: ptxas
// RUN: rm -rf %t && magi-compile %S/Inputs/small-graph.mlir -o %t --splitting-ops=magi.mm | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --input-file=%t/manifest.json
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/pieces/piece_0.ptx
// RUN: ls %t/pieces | FileCheck %s --check-prefix=FILES

// SUMMARY: piece 0 main_piece_0 compute graph 0 1 kernels 0 gemms 1 variants
// SUMMARY: piece 1 main_piece_1 splitting graph -1 0 kernels 1 gemms 1 variants
// SUMMARY: piece 2 main_piece_2 compute graph 1 2 kernels 0 gemms 1 variants
// SUMMARY: magi-compile: 3 pieces, 3 kernels, sm_90a -> {{.*}} in {{.*}} s

// The matmul piece is one cuBLASLt call: no kernels, no module.
// FILES: piece_0.cubin
// FILES-NEXT: piece_0.ptx
// FILES-NEXT: piece_2.cubin
// FILES: piece_2.ptx

// mul and exp fused into one kernel; exp is libdevice's, linked in.
// PTX: .target sm_90
// PTX: .entry k0(
// PTX-NOT: .extern .func __nv_expf

// CHECK: "format": "magi-artifact",
// The graph: inputs with symbolic shapes, the symbol's source, the calls.
// CHECK:      "inputs": [
// CHECK:          "dtype": "f32",
// CHECK-NEXT:     "kind": "user_input",
// CHECK-NEXT:     "name": "arg0",
// CHECK-NEXT:     "shape": [
// CHECK-NEXT:       "s0",
// CHECK-NEXT:       64
// CHECK:      "steps": [
// CHECK:          "args": [
// CHECK-NEXT:       {
// CHECK-NEXT:         "input": 0
// CHECK-NEXT:       },
// CHECK-NEXT:       {
// CHECK-NEXT:         "input": 2
// CHECK-NEXT:       },
// CHECK-NEXT:       {
// CHECK-NEXT:         "symbol": "s0"
// CHECK-NEXT:       }
// CHECK-NEXT:     ],
// CHECK-NEXT:     "piece": 0
// CHECK:      "symbols": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "dim": 0,
// CHECK-NEXT:     "input": 0,
// CHECK-NEXT:     "max": null,
// CHECK-NEXT:     "min": 2,
// CHECK-NEXT:     "name": "s0"
// Piece 0: one fused kernel over s0 x 64 elements as s0 x 16 vectors of
// four (f32, 16 bytes), four vectors a thread (a symbolic size):
// ceildiv(s0 * 16, 256 * 4) blocks.
// CHECK:      "pieces": [
// CHECK:        "cuda_graph": true,
// CHECK:        "kind": "compute",
// CHECK:        "name": "main_piece_0",
// CHECK:            "kernels": [
// CHECK:                "config": {
// CHECK-NEXT:             "block_size": 256,
// CHECK-NEXT:             "elements_per_thread": 4,
// CHECK-NEXT:             "strategy": "elementwise",
// CHECK-NEXT:             "vector_width": 4
// CHECK-NEXT:           },
// CHECK-NEXT:           "name": "k0"
// CHECK:            "plan": [
// CHECK-NEXT:         {
// CHECK-NEXT:           "buffer": "b0",
// CHECK-NEXT:           "bytes": "v1",
// CHECK-NEXT:           "op": "alloc"
// CHECK:                "block": [
// CHECK-NEXT:             256,
// CHECK:                "grid": [
// CHECK-NEXT:             "v3",
// CHECK:                "kernel": "k0",
// CHECK-NEXT:           "op": "launch",
// CHECK:            "results": [
// CHECK:                "tensor": {
// CHECK-NEXT:             "base": "b0",
// CHECK:            "values": [
// CHECK-NEXT:         "4 * arg0.d0",
// CHECK-NEXT:         "v0 * 64",
// CHECK-NEXT:         "arg0.d0 * 16",
// CHECK-NEXT:         "v2 ceildiv 1024"
// The matmul piece is a splitting piece (outside CUDA graphs) whose plan is
// one gemm over [batch, m, k] x [batch, k, n] views, a unit batch added.
// CHECK:        "cuda_graph": false,
// CHECK:        "kind": "splitting",
// CHECK:        "name": "main_piece_1",
// CHECK:            "kernels": [],
// CHECK:            "plan": [
// CHECK:                "a": {
// CHECK-NEXT:             "base": "arg0",
// CHECK-NEXT:             "offset": 0,
// CHECK-NEXT:             "sizes": [
// CHECK-NEXT:               1,
// CHECK-NEXT:               "arg0.d0",
// CHECK-NEXT:               64
// CHECK:                "b": {
// CHECK-NEXT:             "base": "arg1",
// CHECK:                "dtype": "f32",
// CHECK-NEXT:           "op": "gemm"
// CHECK:        "name": "main_piece_2",
// CHECK:                "strategy": "serial-reduction"

// --compile-sizes: a variant specialized for s0 = 8 before the one for any
// size; its plan holds numbers only.
// RUN: rm -rf %t.sized && magi-compile %S/Inputs/small-graph.mlir -o %t.sized --splitting-ops=magi.mm --cache-mode=off --compile-sizes=8 | FileCheck %s --check-prefix=SIZED-SUMMARY
// SIZED-SUMMARY: piece 0 main_piece_0 compute graph 0 1 kernels 0 gemms 2 variants
// RUN: ls %t.sized/pieces | FileCheck %s --check-prefix=SIZED-FILES
// SIZED-FILES: piece_0.ptx
// SIZED-FILES: piece_0_s0_8.cubin
// SIZED-FILES: piece_0_s0_8.ptx
// RUN: FileCheck %s --check-prefix=SIZED --input-file=%t.sized/manifest.json
// SIZED:      "variants": [
// SIZED:          "bytes": 2048,
// 8 x 64 f32 elements are 128 vectors of four: one block of 128 threads.
// SIZED:          "block": [
// SIZED-NEXT:       128,
// SIZED:          "grid": [
// SIZED-NEXT:       1,
// SIZED:        "ptx": "pieces/piece_0_s0_8.ptx",
// SIZED:        "symbols": {
// SIZED-NEXT:     "s0": 8
// SIZED-NEXT:   },
// SIZED-NEXT:   "values": []
// SIZED:        "ptx": "pieces/piece_0.ptx",
// SIZED:        "symbols": {},
// Sizes outside the symbol's range, and graphs without a symbol, are refused.
// RUN: not magi-compile %S/Inputs/small-graph.mlir -o %t.bad --splitting-ops=magi.mm --cache-mode=off --compile-sizes=1 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: error: compile size 1 is outside s0's range [2, inf]
// RUN: not magi-compile %S/Inputs/weighted.mlir -o %t.bad --cache-mode=off --no-weights --compile-sizes=4 2>&1 | FileCheck %s --check-prefix=NOSYMBOL
// NOSYMBOL: error: --compile-sizes needs a graph with a symbolic size; this one has none
