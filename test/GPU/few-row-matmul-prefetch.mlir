// magi-few-row-matmul-to-gpu{wait-for-previous-grid}: a product whose
// weight is a read-only argument (magi.read_only: a graph weight no step
// writes), or a view of one, prefetches its block's first weight lines into
// L2 and only then waits for the previous grid; any other product waits in
// magi-wait-for-previous-grid as every kernel does. Without the option
// nothing changes.
// RUN: magi-opt %s --split-input-file --magi-few-row-matmul-to-gpu="wait-for-previous-grid=true" | FileCheck %s
// RUN: magi-opt %s --split-input-file --magi-few-row-matmul-to-gpu | FileCheck %s --check-prefix=OFF

// The launch plan marks the kernel programmatic (its wait is not first),
// and magi-wait-for-previous-grid adds no second wait to it.
// RUN: magi-opt %s --split-input-file --magi-few-row-matmul-to-gpu="wait-for-previous-grid=true" --magi-outline-kernels --magi-wait-for-previous-grid | FileCheck %s --check-prefix=OUTLINED

#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
// 64 weight rows of 256 (512 bytes): 2 blocks of 32 rows (16 KiB each). The
// budget (24 MiB over 2 blocks) is more than a block's rows, so each block
// prefetches all of them, 128 lines, one a thread (128 threads), each
// below the weight's end.
// CHECK-LABEL: func @read_only
// CHECK-SAME: (%[[X:.*]]: memref<16x256xbf16>, %[[W:.*]]: memref<64x256xbf16> {magi.read_only}
// CHECK: gpu.launch
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
// CHECK: scf.if
// CHECK: %[[P:.*]] = llvm.inttoptr
// CHECK-NEXT: nvvm.prefetch level = L2, %[[P]] : !llvm.ptr<1>
// CHECK-NOT: nvvm.prefetch
// CHECK: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NOT: nvvm.griddepcontrol
// CHECK: nvgpu.device_async_copy %[[W]]
// OFF-LABEL: func @read_only
// OFF-NOT: nvvm.prefetch
// OFF-NOT: nvvm.griddepcontrol
// OUTLINED-LABEL: gpu.func @gemm0(
// OUTLINED-NOT: nvvm.griddepcontrol
// OUTLINED: nvvm.prefetch level = L2
// OUTLINED: nvvm.griddepcontrol wait
// OUTLINED-NEXT: nvvm.griddepcontrol launch_dependents
// OUTLINED-NOT: nvvm.griddepcontrol
// OUTLINED: gpu.return
func.func @read_only(%x: memref<16x256xbf16>, %w: memref<64x256xbf16> {magi.read_only},
                     %out: memref<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<16x64xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<16x256xbf16>, memref<64x256xbf16>) outs(%out : memref<16x64xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %o : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
// A view of a read-only argument (its rows collapsed) is read-only too.
// 4096 weight rows of 4096 (8 KiB), 128 blocks: the budget is 192 KiB a
// block (of its 256 KiB), 1536 lines, 12 a thread.
// CHECK-LABEL: func @view_of_read_only
// CHECK: gpu.launch
// CHECK-COUNT-12: nvvm.prefetch level = L2
// CHECK-NOT: nvvm.prefetch
// CHECK: nvvm.griddepcontrol wait
// OUTLINED-LABEL: gpu.func @gemm0(
// OUTLINED: nvvm.prefetch level = L2
// OUTLINED: nvvm.griddepcontrol wait
// OUTLINED-NOT: nvvm.griddepcontrol wait
// OUTLINED: gpu.return
func.func @view_of_read_only(%x: memref<16x4096xbf16>,
                             %w3: memref<2x2048x4096xbf16> {magi.read_only},
                             %out: memref<16x4096xf32>) {
  %w = memref.collapse_shape %w3 [[0, 1], [2]] : memref<2x2048x4096xbf16> into memref<4096x4096xbf16>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<16x4096xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<16x4096xbf16>, memref<4096x4096xbf16>) outs(%out : memref<16x4096xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %o : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
// A weight that is not marked read-only (a user input, another piece's
// result, a buffer the graph writes) is read only after the wait, which
// magi-wait-for-previous-grid puts first.
// CHECK-LABEL: func @written_weight
// CHECK: gpu.launch
// CHECK-NOT: nvvm.prefetch
// CHECK-NOT: nvvm.griddepcontrol
// CHECK: return
// OUTLINED-LABEL: gpu.func @gemm0(
// OUTLINED-NEXT: nvvm.griddepcontrol wait
// OUTLINED-NEXT: nvvm.griddepcontrol launch_dependents
// OUTLINED-NOT: nvvm.prefetch
// OUTLINED: gpu.return
func.func @written_weight(%x: memref<16x256xbf16>, %w: memref<64x256xbf16>,
                          %out: memref<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<16x64xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<16x256xbf16>, memref<64x256xbf16>) outs(%out : memref<16x64xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %o : f32
    linalg.yield %3 : f32
  }
  return
}

// The whole pipeline on the bundled layer at 16 tokens: its weights are
// graph parameters, marked read-only by the split, so every few-row product
// (q/k/v, o, gate/up, down) prefetches before its wait on sm_90, and its
// launch is programmatic; on sm_80 there is neither.
// RUN: rm -rf %t && magi-compile %magi_src_root/examples/llama_decoder_layer.mlir -o %t --no-weights --cache-mode=off --quiet --no-cubin --compile-sizes=16
// RUN: cat %t/pieces/*_s0_16.ptx | FileCheck %s --check-prefix=PTX
// RUN: FileCheck %s --check-prefix=PLAN --input-file=%t/manifest.json
// RUN: rm -rf %t.sm80 && magi-compile %magi_src_root/examples/llama_decoder_layer.mlir -o %t.sm80 --no-weights --cache-mode=off --quiet --no-cubin --compile-sizes=16 --target=sm_80
// RUN: cat %t.sm80/pieces/*_s0_16.ptx | FileCheck %s --check-prefix=SM80
// PTX-LABEL: .entry gemm0(
// PTX: prefetch.global.L2
// PTX: griddepcontrol.wait;
// PTX-NEXT: griddepcontrol.launch_dependents;
// PTX-LABEL: .entry gemm0(
// PTX: prefetch.global.L2
// PTX: griddepcontrol.wait;
// PTX-LABEL: .entry gemm1(
// PTX: prefetch.global.L2
// PTX: griddepcontrol.wait;
// PTX-LABEL: .entry gemm2(
// PTX: prefetch.global.L2
// PTX: griddepcontrol.wait;
// PLAN: "kernel": "gemm0",
// PLAN-NEXT: "op": "launch",
// PLAN-NEXT: "programmatic": true,
// --no-few-row-gemm-prefetch: the products wait first thing, as every kernel.
// RUN: rm -rf %t.off && magi-compile %magi_src_root/examples/llama_decoder_layer.mlir -o %t.off --no-weights --cache-mode=off --quiet --no-cubin --compile-sizes=16 --no-few-row-gemm-prefetch
// RUN: cat %t.off/pieces/*_s0_16.ptx | FileCheck %s --check-prefix=NOPREFETCH
// NOPREFETCH-LABEL: .entry gemm0(
// NOPREFETCH-NOT: prefetch.global.L2
// NOPREFETCH: griddepcontrol.wait;
// NOPREFETCH-NOT: prefetch.global.L2
// NOPREFETCH-LABEL: .entry gemm0(
// NOPREFETCH-NOT: prefetch.global.L2
// SM80-LABEL: .entry gemm0(
// SM80-NOT: prefetch.global.L2
// SM80-NOT: griddepcontrol
