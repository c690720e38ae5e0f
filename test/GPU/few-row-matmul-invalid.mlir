// magi-few-row-matmul-to-gpu refuses a tiling whose rings and partial sums do
// not fit 227 KiB of shared memory, a block of more than 1024 threads, fewer
// than 2 stages and negative options.
// RUN: magi-opt %s --split-input-file --verify-diagnostics --magi-few-row-matmul-to-gpu="column-tiles=8 warps=16"
// RUN: not magi-opt %s --magi-few-row-matmul-to-gpu="column-tiles=1 warps=33" 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not magi-opt %s --magi-few-row-matmul-to-gpu="stages=1" 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not magi-opt %s --magi-few-row-matmul-to-gpu="warps=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// THREADS: 33 warps of 1 x 1 tiles and 2 stages need 1056 threads
// STAGES: 4 warps of 1 x 4 tiles and 1 stages need 128 threads and 32768 bytes of shared memory (at most 1024 and 232448, and at least 2 stages)
// NEGATIVE: column-tiles, warps, stages and prefetch-columns must not be negative

#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @too_much_shared(%x: memref<16x64xbf16>, %w: memref<64x64xbf16>, %o: memref<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%o : memref<16x64xf32>)
  // expected-error @+1 {{magi-few-row-matmul-to-gpu: 16 warps of 1 x 8 tiles and 2 stages need 512 threads and 393216 bytes of shared memory (at most 1024 and 232448, and at least 2 stages)}}
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<16x64xbf16>, memref<64x64xbf16>) outs(%o : memref<16x64xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %acc : f32
    linalg.yield %3 : f32
  }
  return
}
