// End to end on the CPU: the fused ops (attention with grouped-query heads, a
// boolean mask with a fully masked row, causal bf16 attention, bf16 rms_norm,
// layer_norm, softmax, silu_and_mul, rotary_embedding, addmm, cumsum) lowered
// to linalg, then with upstream passes to LLVM, and run.
// REQUIRES: mlir-runner
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" \
// RUN: | mlir-opt --pass-pipeline="builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}, buffer-deallocation-pipeline, convert-bufferization-to-memref, func.func(convert-linalg-to-loops), convert-scf-to-cf, expand-strided-metadata, lower-affine, convert-math-to-llvm, convert-math-to-libm, convert-to-llvm, reconcile-unrealized-casts)" \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s

// The expected values are magi-interp's on @compute with the same inputs
// (given as .npy files): `magi-interp compute.mlir --input=... --print-outputs`.
// They agree to the printed digits (the lowering computes in f32, the
// interpreter in double); the bf16 results match exactly.
// CHECK: {{\[\[}}{{\[\[}}0.08,     -0.57,     -0.37,     -0.49],
// CHECK-NEXT:    [0.195804,     -0.229023,     -0.614474,     -0.206924],
// CHECK-NEXT:    [0,     0,     0,     0{{\]\]}},
// CHECK-NEXT:   {{\[\[}}0.08,     -0.57,     -0.37,     -0.49],
// CHECK-NEXT:    [0.212153,     -0.180883,     -0.648989,     -0.16696],
// CHECK-NEXT:    [0,     0,     0,     0{{\]\]}},
// CHECK-NEXT:   {{\[\[}}-0.03,     0.02,     0.33,     -0.95],
// CHECK-NEXT:    [-0.166532,     -0.12067,     0.0900342,     -0.751408],
// CHECK-NEXT:    [0,     0,     0,     0{{\]\]}},
// CHECK-NEXT:   {{\[\[}}-0.03,     0.02,     0.33,     -0.95],
// CHECK-NEXT:    [-0.188292,     -0.143089,     0.0517893,     -0.719757],
// CHECK-NEXT:    [0,     0,     0,     0{{\]\]}}{{\]\]}}
// CHECK: {{\[\[}}{{\[\[}}0.0800781,     -0.570312,     -0.369141,     -0.490234],
// CHECK-NEXT:    [0.195312,     -0.229492,     -0.613281,     -0.207031],
// CHECK-NEXT:    [0.223633,     -0.12793,     -0.375,     -0.251953{{\]\]}},
// CHECK-NEXT:   {{\[\[}}0.0800781,     -0.570312,     -0.369141,     -0.490234],
// CHECK-NEXT:    [0.211914,     -0.180664,     -0.648438,     -0.166992],
// CHECK-NEXT:    [0.279297,     0.0437012,     -0.410156,     -0.145508{{\]\]}},
// CHECK-NEXT:   {{\[\[}}-0.0300293,     0.0200195,     0.330078,     -0.949219],
// CHECK-NEXT:    [-0.166992,     -0.121094,     0.0898438,     -0.75],
// CHECK-NEXT:    [-0.300781,     0.166992,     0.013916,     -0.496094{{\]\]}},
// CHECK-NEXT:   {{\[\[}}-0.0300293,     0.0200195,     0.330078,     -0.949219],
// CHECK-NEXT:    [-0.1875,     -0.143555,     0.0517578,     -0.71875],
// CHECK-NEXT:    [-0.300781,     0.186523,     0.020874,     -0.492188{{\]\]}}{{\]\]}}
// CHECK: {{\[\[}}-0.188477,   -0.345703,   0.189453,   -1.10938],
// CHECK-NEXT:  [-0.0147705,   0.617188,   0.198242,   -1.35156{{\]\]}}
// CHECK: {{\[\[}}-0.961356,   -0.21301,   -0.357972,   -0.0273536],
// CHECK-NEXT:  [-0.6372,   0.951866,   -0.521832,   -0.366258{{\]\]}}
// CHECK: {{\[\[}}0.0488332,   0.748754,   0.140951,   0.0614615],
// CHECK-NEXT:  [0.479761,   0.126886,   0.285228,   0.108125{{\]\]}}
// CHECK: {{\[\[}}0.246933,   -0.145925,   0.0843821,   0.00742332],
// CHECK-NEXT:  [0.0359409,   -0.262241,   0.115303,   0.0982331{{\]\]}}
// CHECK: {{\[\[}}-0.8998,   0.612,   0.8322,   -0.494],
// CHECK-NEXT:  [-0.522,   1.6104,   0.2572,   -0.7568{{\]\]}}
// CHECK: {{\[\[}}-0.5996,   0.5803,   -2.5686],
// CHECK-NEXT:  [0.5686,   1.5877,   -0.5276{{\]\]}}
// CHECK: {{\[\[}}-1.78,   -0.83,   -1.55,   -3.1],
// CHECK-NEXT:  [-0.12,   -1.57,   -2.21,   -3.82{{\]\]}}

func.func @compute(%q: tensor<1x4x3x4xf32>, %k: tensor<1x2x3x4xf32>, %v: tensor<1x2x3x4xf32>, %m: tensor<1x1x3x3xi1>, %x: tensor<2x4xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<1x4xf32>, %s: tensor<1x4xf32>, %wm: tensor<3x4xf32>, %bm: tensor<3xf32>) -> (tensor<1x4x3x4xf32>, tensor<1x4x3x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x3xf32>, tensor<2x4xf32>) {
  %a = magi.attention %q, %k, %v mask %m {scale = 5.000000e-01 : f64} : (tensor<1x4x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x1x3x3xi1>) -> tensor<1x4x3x4xf32>
  %qb = magi.to_copy %q {dtype = bf16} : (tensor<1x4x3x4xf32>) -> tensor<1x4x3x4xbf16>
  %kb = magi.to_copy %k {dtype = bf16} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xbf16>
  %vb = magi.to_copy %v {dtype = bf16} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xbf16>
  %ab = magi.attention %qb, %kb, %vb {is_causal = true} : (tensor<1x4x3x4xbf16>, tensor<1x2x3x4xbf16>, tensor<1x2x3x4xbf16>) -> tensor<1x4x3x4xbf16>
  %ab32 = magi.to_copy %ab {dtype = f32} : (tensor<1x4x3x4xbf16>) -> tensor<1x4x3x4xf32>
  %xb = magi.to_copy %x {dtype = bf16} : (tensor<2x4xf32>) -> tensor<2x4xbf16>
  %wb = magi.to_copy %w {dtype = bf16} : (tensor<4xf32>) -> tensor<4xbf16>
  %rb = magi.rms_norm %xb weight %wb {eps = 1.0E-6 : f64} : (tensor<2x4xbf16>, tensor<4xbf16>) -> tensor<2x4xbf16>
  %r = magi.to_copy %rb {dtype = f32} : (tensor<2x4xbf16>) -> tensor<2x4xf32>
  %ln = magi.layer_norm %x weight %w bias %b {eps = 1.0E-5 : f64, normalized_ndim = 1 : i64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %sm = magi.softmax %x {dim = -1 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %sam = magi.silu_and_mul %x, %ln : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %rot = magi.rotary_embedding %x, %c, %s : (tensor<2x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  %am = magi.addmm %bm, %x, %wm {transpose_mat2, beta = 5.000000e-01 : f64} : (tensor<3xf32>, tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %cs = magi.cumsum %x {dim = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %a, %ab32, %r, %ln, %sm, %sam, %rot, %am, %cs : tensor<1x4x3x4xf32>, tensor<1x4x3x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x3xf32>, tensor<2x4xf32>
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @print4(%t: tensor<1x4x3x4xf32>) {
  %m = bufferization.to_buffer %t : tensor<1x4x3x4xf32> to memref<1x4x3x4xf32>
  %u = memref.cast %m : memref<1x4x3x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @print2(%t: tensor<2x4xf32>) {
  %m = bufferization.to_buffer %t : tensor<2x4xf32> to memref<2x4xf32>
  %u = memref.cast %m : memref<2x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @print23(%t: tensor<2x3xf32>) {
  %m = bufferization.to_buffer %t : tensor<2x3xf32> to memref<2x3xf32>
  %u = memref.cast %m : memref<2x3xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %q = arith.constant dense<[[[[0.03, -0.65, -0.38, 0.07], [0.9, -0.66, 0.4, -0.55], [-0.01, -0.75, -0.83, -0.22]], [[-0.45, -0.26, 0.97, 0.07], [0.53, 0.29, 0.53, 0.56], [0.65, -0.7, 0.25, -0.37]], [[-0.31, 0.83, 0.04, -0.2], [0.21, 0.57, 0.86, 0.74], [0.73, 0.35, 0.52, 0.16]], [[-0.22, -0.29, -0.6, 0.65], [-0.17, -0.07, 0.96, -0.75], [-0.57, 0.92, 0.47, -0.18]]]]> : tensor<1x4x3x4xf32>
  %k = arith.constant dense<[[[[-0.94, 0.39, -0.38, -0.21], [0.58, 0.65, 0.83, 0.7], [0.24, 0.99, 0.59, 0.91]], [[-0.24, -0.12, -0.35, -0.44], [0.09, -0.02, -0.86, -0.96], [-0.96, -0.89, 0.09, 0.83]]]]> : tensor<1x2x3x4xf32>
  %v = arith.constant dense<[[[[0.08, -0.57, -0.37, -0.49], [0.26, -0.04, -0.75, -0.05], [0.49, 0.72, 0.01, 0.04]], [[-0.03, 0.02, 0.33, -0.95], [-0.36, -0.32, -0.25, -0.47], [-0.56, 0.91, -0.06, 0.02]]]]> : tensor<1x2x3x4xf32>
  %m = arith.constant dense<[[[[true, false, false], [true, true, false], [false, false, false]]]]> : tensor<1x1x3x3xi1>
  %x = arith.constant dense<[[-1.78, 0.95, -0.72, -1.55], [-0.12, -1.45, -0.64, -1.61]]> : tensor<2x4xf32>
  %w = arith.constant dense<[0.14, -0.48, -0.35, 0.95]> : tensor<4xf32>
  %b = arith.constant dense<[-0.83, 0.56, -0.34, 0.66]> : tensor<4xf32>
  %c = arith.constant dense<[[0.19, -0.4, -0.34, 0.38]]> : tensor<1x4xf32>
  %s = arith.constant dense<[[-0.78, 0.64, -0.33, 0.1]]> : tensor<1x4xf32>
  %wm = arith.constant dense<[[0.25, -0.32, -0.32, -0.18], [0.35, -0.17, -0.19, -0.56], [-0.01, -0.86, 0.52, 0.8]]> : tensor<3x4xf32>
  %bm = arith.constant dense<[-0.72, 0.72, -0.31]> : tensor<3xf32>
  %a, %ab, %r, %ln, %sm, %sam, %rot, %am, %cs = call @compute(%q, %k, %v, %m, %x, %w, %b, %c, %s, %wm, %bm) : (tensor<1x4x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x1x3x3xi1>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> (tensor<1x4x3x4xf32>, tensor<1x4x3x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x3xf32>, tensor<2x4xf32>)
  call @print4(%a) : (tensor<1x4x3x4xf32>) -> ()
  call @print4(%ab) : (tensor<1x4x3x4xf32>) -> ()
  call @print2(%r) : (tensor<2x4xf32>) -> ()
  call @print2(%ln) : (tensor<2x4xf32>) -> ()
  call @print2(%sm) : (tensor<2x4xf32>) -> ()
  call @print2(%sam) : (tensor<2x4xf32>) -> ()
  call @print2(%rot) : (tensor<2x4xf32>) -> ()
  call @print23(%am) : (tensor<2x3xf32>) -> ()
  call @print2(%cs) : (tensor<2x4xf32>) -> ()
  return
}
