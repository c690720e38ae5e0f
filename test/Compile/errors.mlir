// magi-compile refuses what it cannot compile, naming the op and the piece,
// and writes no artifact. (The artifact directory may exist; no manifest.)
// RUN: rm -rf %t
// RUN: not magi-compile %s -o %t --cache-mode=off 2>&1 | FileCheck %s
// RUN: not ls %t/manifest.json
// CHECK: error: 'magi.scatter' in piece @main_piece_0 was not lowered to linalg
// CHECK: error: piece @main_piece_0 failed in the lower phase

// A failed compile into a directory that held an artifact leaves no
// manifest there (nothing that would load stale pieces).
// RUN: rm -rf %t.reused && magi-compile %S/Inputs/weighted.mlir -o %t.reused --cache-mode=off --no-weights --no-cubin --quiet
// RUN: ls %t.reused/manifest.json
// RUN: not magi-compile %s -o %t.reused --cache-mode=off 2>/dev/null
// RUN: not ls %t.reused/manifest.json

// RUN: not magi-compile %s -o %t --cache-mode=bogus 2>&1 | FileCheck %s --check-prefix=MODE
// MODE: magi-compile: error: unknown --cache-mode 'bogus' (readwrite, readonly, must-hit, off)

// RUN: not magi-compile %s -o %t --cache-mode=off --disable-fusions=rms-norm,bogus 2>&1 | FileCheck %s --check-prefix=FUSION
// FUSION: magi-compile: error: unknown fusion 'bogus' (known: layer-norm, attention, rms-norm, silu-and-mul, gelu, rotary-embedding, softmax, attention-layout, causal-mask)

// Kernel pass options are checked before anything compiles.
// RUN: not magi-compile %S/Inputs/weighted.mlir -o %t/k --cache-mode=off --no-weights --kernel-pass-options='magi-map-to-gpu{lean=1}' 2>&1 | FileCheck %s --check-prefix=KOPT
// KOPT: magi-compile: error: kernel pass options of 'magi-map-to-gpu': <Pass-Options-Parser>: no such option lean
// RUN: not magi-compile %S/Inputs/weighted.mlir -o %t/k --cache-mode=off --no-weights --few-row-gemm-rows=0 --kernel-pass-options='magi-few-row-matmul-to-gpu{warps=8}' 2>&1 | FileCheck %s --check-prefix=KPASS
// KPASS: magi-compile: error: kernel pass options: 'magi-few-row-matmul-to-gpu' is not in the pipeline these options build (few-row-gemm-rows=0 leaves out the few-row products, no tiled attention the tiled attention)
// RUN: not ls %t/k/manifest.json
// The options reach the passes: one-wave elementwise kernels compile.
// RUN: magi-compile %S/Inputs/weighted.mlir -o %t/k1 --cache-mode=off --no-weights --no-cubin --quiet --kernel-pass-options='magi-choose-kernel-config{one-wave=true max-elements-per-thread=4}'
// RUN: ls %t/k1/manifest.json

// Parameters need their weights, unless --no-weights says to go without.
// RUN: not magi-compile %S/Inputs/weighted.mlir -o %t/w --cache-mode=off 2>&1 | FileCheck %s --check-prefix=WEIGHTS
// WEIGHTS: error: argument 1 is a weight, but no archive was given to read it from (--weights, or --no-weights to compile without them)
// RUN: magi-compile %S/Inputs/weighted.mlir -o %t/nw --cache-mode=off --no-weights --no-cubin | FileCheck %s --check-prefix=NOWEIGHTS
// NOWEIGHTS: magi-compile: 1 pieces, 1 kernels
// RUN: FileCheck %s --check-prefix=NOWEIGHT-MANIFEST --input-file=%t/nw/manifest.json
// NOWEIGHT-MANIFEST: "kind": "parameter",
// NOWEIGHT-MANIFEST-NOT: "weight":
// NOWEIGHT-MANIFEST: "pieces"

// (A bool scatter_add: bool elements have no atomic add.)
func.func @main(%x: tensor<8xi1>, %i: tensor<8xi64>) -> tensor<8xi1> {
  %y = magi.scatter %x, %i, %x {dim = 0 : i64, reduce = "add"} : (tensor<8xi1>, tensor<8xi64>, tensor<8xi1>) -> tensor<8xi1>
  return %y : tensor<8xi1>
}
