// magi-compile on a small split graph (an elementwise piece, a splitting
// matmul piece, a piece with a reduction): the artifact's manifest, its PTX
// (which ptxas accepts: magi-compile assembles a cubin with it) and the
// launch plans as expressions of the piece arguments.
// REQUIRES: ptxas
// RUN: rm -rf %t && magi-compile %S/Inputs/small-graph.mlir -o %t --splitting-ops=magi.mm | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --input-file=%t/manifest.json
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/pieces/piece_0.ptx
// RUN: ls %t/pieces | FileCheck %s --check-prefix=FILES

// SUMMARY: piece 0   main_piece_0     compute   graph 0    1 kernels
// SUMMARY: piece 1   main_piece_1     splitting graph -1   2 kernels
// SUMMARY: piece 2   main_piece_2     compute   graph 1    3 kernels
// SUMMARY: magi-compile: 3 pieces, 6 kernels, sm_90 -> {{.*}} in {{.*}} s

// FILES: piece_0.cubin
// FILES: piece_0.ptx
// FILES: piece_1.cubin
// FILES: piece_1.ptx
// FILES: piece_2.cubin
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
// Piece 0: one fused kernel over s0 x 64 elements.
// CHECK:      "pieces": [
// CHECK:        "cuda_graph": true,
// CHECK:        "kind": "compute",
// CHECK:        "name": "main_piece_0",
// CHECK:            "kernels": [
// CHECK:                "config": {
// CHECK-NEXT:             "block_size": 256,
// CHECK-NEXT:             "strategy": "elementwise"
// CHECK-NEXT:           },
// CHECK-NEXT:           "name": "k0"
// CHECK:            "plan": [
// CHECK-NEXT:         {
// CHECK-NEXT:           "buffer": "b0",
// CHECK-NEXT:           "bytes": "v0",
// CHECK-NEXT:           "op": "alloc"
// CHECK:                "block": [
// CHECK-NEXT:             256,
// CHECK:                "grid": [
// CHECK-NEXT:             "v2",
// CHECK:                "kernel": "k0",
// CHECK-NEXT:           "op": "launch",
// CHECK:            "results": [
// CHECK:                "tensor": {
// CHECK-NEXT:             "base": "b0",
// CHECK:            "values": [
// CHECK-NEXT:         "4 * arg0.d0 * 64",
// CHECK-NEXT:         "arg0.d0 * 64",
// CHECK-NEXT:         "v1 ceildiv 256"
// The matmul piece is a splitting piece: outside CUDA graphs.
// CHECK:        "cuda_graph": false,
// CHECK:        "kind": "splitting",
// CHECK:        "name": "main_piece_1",
// CHECK:                "strategy": "serial-reduction"
