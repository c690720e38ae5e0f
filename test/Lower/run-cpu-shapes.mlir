// End to end on the CPU: views (collapse/expand_shape around a transpose),
// slices with negative and open bounds and a step, select, unsqueeze +
// expand, cat, constant_pad_nd with a symbolic pad (sym_mod/sym_sub),
// embedding, advanced indexing and gather with negative indices,
// split_with_sizes and a dynamic arange, on a tensor with a dynamic dimension.
// REQUIRES: mlir-runner
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" \
// RUN: | mlir-opt --pass-pipeline="builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}, buffer-deallocation-pipeline, convert-bufferization-to-memref, func.func(convert-linalg-to-loops), convert-scf-to-cf, expand-strided-metadata, lower-affine, convert-math-to-llvm, convert-math-to-libm, convert-to-llvm, reconcile-unrealized-casts)" \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s

// The expected values are magi-interp's on @compute with the same inputs
// (given as .npy files): `magi-interp compute.mlir --input=... --print-outputs`.
// CHECK: {{\[\[}}1,   4,   2],
// CHECK-NEXT:  [5,   3,   6],
// CHECK-NEXT:  [-1,   -4,   -2],
// CHECK-NEXT:  [-5,   -3,   -6{{\]\]}}
// CHECK: {{\[\[}}2,   4,   6,   -1,   -2,   -3,   -4,   -5,   -6],
// CHECK-NEXT:  [-2,   -4,   -6,   -1,   -2,   -3,   -4,   -5,   -6{{\]\]}}
// CHECK: {{\[\[}}-1,   1,   2,   3,   4,   5,   6,   -1,   -1],
// CHECK-NEXT:  [-1,   -1,   -2,   -3,   -4,   -5,   -6,   -1,   -1{{\]\]}}
// CHECK: {{\[\[}}[4,    4.25,    4.5,    4.75],
// CHECK-NEXT:   [0,    0.25,    0.5,    0.75],
// CHECK-NEXT:   [2,    2.25,    2.5,    2.75{{\]\]}}]
// CHECK: {{\[\[}}[6,    4,    1{{\]\]}},
// CHECK-NEXT:  {{\[\[}}-6,    -4,    -1{{\]\]}}]
// CHECK: {{\[\[}}3,   4,   5,   6],
// CHECK-NEXT:  [-3,   -4,   -5,   -6{{\]\]}}
// CHECK: {{\[\[}}17,   13,   10{{\]\]}}
// CHECK: [0,  2,  4]

func.func @compute(%x: tensor<2x?xf32>, %ids: tensor<1x?xi64>, %ids2: tensor<1x?xi64>, %w: tensor<5x4xf32>, %t: tensor<1x8xi64>) -> (tensor<4x?xf32>, tensor<2x?xf32>, tensor<2x?xf32>, tensor<1x?x4xf32>, tensor<2x1x?xf32>, tensor<2x4xf32>, tensor<1x?xi64>, tensor<?xi64>) {
  %c0_i64 = arith.constant 0 : i64
  %c2_i64 = arith.constant 2 : i64
  %c4 = arith.constant 4 : index
  %n = magi.sym_size %x, 1 : tensor<2x?xf32>
  %v = magi.view %x [2, 2, -1] : tensor<2x?xf32> -> tensor<2x2x?xf32>
  %p = magi.permute %v {dims = array<i64: 0, 2, 1>} : (tensor<2x2x?xf32>) -> tensor<2x?x2xf32>
  %f = magi.view %p [4, -1] : tensor<2x?x2xf32> -> tensor<4x?xf32>
  %sl = magi.slice %x, 1 [-5, 9223372036854775807, 2] : tensor<2x?xf32> -> tensor<2x?xf32>
  %se = magi.select %x, 0 [-1] : tensor<2x?xf32> -> tensor<?xf32>
  %u = magi.unsqueeze %se {dim = 0 : i64} : (tensor<?xf32>) -> tensor<1x?xf32>
  %e = magi.expand %u [2, -1] : tensor<1x?xf32> -> tensor<2x?xf32>
  %ct = magi.cat %sl, %e {dim = 1 : i64} : (tensor<2x?xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
  %m = magi.sym_mod %n, %c4
  %pr = magi.sym_sub %c4, %m
  %pd = magi.constant_pad_nd %x [1, %pr] {value = -1.000000e+00 : f64} : tensor<2x?xf32> -> tensor<2x?xf32>
  %emb = magi.embedding %w, %ids : (tensor<5x4xf32>, tensor<1x?xi64>) -> tensor<1x?x4xf32>
  %ix = magi.index %x[%ids2] {indexed_dims = array<i64: 1>} : (tensor<2x?xf32>, tensor<1x?xi64>) -> tensor<2x1x?xf32>
  %sp:2 = magi.split_with_sizes %x [2, 4] {dim = 1 : i64} : tensor<2x?xf32> -> tensor<2x2xf32>, tensor<2x4xf32>
  %g = magi.gather %t, %ids2 {dim = 1 : i64} : (tensor<1x8xi64>, tensor<1x?xi64>) -> tensor<1x?xi64>
  %ar = magi.arange %c0_i64, %n, %c2_i64 {dtype = i64} : (i64, index, i64) -> tensor<?xi64>
  return %f, %ct, %pd, %emb, %ix, %sp#1, %g, %ar : tensor<4x?xf32>, tensor<2x?xf32>, tensor<2x?xf32>, tensor<1x?x4xf32>, tensor<2x1x?xf32>, tensor<2x4xf32>, tensor<1x?xi64>, tensor<?xi64>
}

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI64(memref<*xi64>)

func.func @main() {
  %x0 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [-1.0, -2.0, -3.0, -4.0, -5.0, -6.0]]> : tensor<2x6xf32>
  %ids0 = arith.constant dense<[[4, 0, 2]]> : tensor<1x3xi64>
  %ids20 = arith.constant dense<[[-1, 3, 0]]> : tensor<1x3xi64>
  %w = arith.constant dense<[[0.0, 0.25, 0.5, 0.75], [1.0, 1.25, 1.5, 1.75], [2.0, 2.25, 2.5, 2.75], [3.0, 3.25, 3.5, 3.75], [4.0, 4.25, 4.5, 4.75]]> : tensor<5x4xf32>
  %t = arith.constant dense<[[10, 11, 12, 13, 14, 15, 16, 17]]> : tensor<1x8xi64>
  %x = tensor.cast %x0 : tensor<2x6xf32> to tensor<2x?xf32>
  %ids = tensor.cast %ids0 : tensor<1x3xi64> to tensor<1x?xi64>
  %ids2 = tensor.cast %ids20 : tensor<1x3xi64> to tensor<1x?xi64>
  %f, %ct, %pd, %emb, %ix, %sp, %g, %ar = call @compute(%x, %ids, %ids2, %w, %t) : (tensor<2x?xf32>, tensor<1x?xi64>, tensor<1x?xi64>, tensor<5x4xf32>, tensor<1x8xi64>) -> (tensor<4x?xf32>, tensor<2x?xf32>, tensor<2x?xf32>, tensor<1x?x4xf32>, tensor<2x1x?xf32>, tensor<2x4xf32>, tensor<1x?xi64>, tensor<?xi64>)
  %u0 = tensor.cast %f : tensor<4x?xf32> to tensor<*xf32>
  %u1 = tensor.cast %ct : tensor<2x?xf32> to tensor<*xf32>
  %u2 = tensor.cast %pd : tensor<2x?xf32> to tensor<*xf32>
  %u3 = tensor.cast %emb : tensor<1x?x4xf32> to tensor<*xf32>
  %u4 = tensor.cast %ix : tensor<2x1x?xf32> to tensor<*xf32>
  %u5 = tensor.cast %sp : tensor<2x4xf32> to tensor<*xf32>
  %u6 = tensor.cast %g : tensor<1x?xi64> to tensor<*xi64>
  %u7 = tensor.cast %ar : tensor<?xi64> to tensor<*xi64>
  call @printF32(%u0) : (tensor<*xf32>) -> ()
  call @printF32(%u1) : (tensor<*xf32>) -> ()
  call @printF32(%u2) : (tensor<*xf32>) -> ()
  call @printF32(%u3) : (tensor<*xf32>) -> ()
  call @printF32(%u4) : (tensor<*xf32>) -> ()
  call @printF32(%u5) : (tensor<*xf32>) -> ()
  call @printI64(%u6) : (tensor<*xi64>) -> ()
  call @printI64(%u7) : (tensor<*xi64>) -> ()
  return
}

func.func @printF32(%t: tensor<*xf32>) {
  %m = bufferization.to_buffer %t : tensor<*xf32> to memref<*xf32>
  call @printMemrefF32(%m) : (memref<*xf32>) -> ()
  return
}

func.func @printI64(%t: tensor<*xi64>) {
  %m = bufferization.to_buffer %t : tensor<*xi64> to memref<*xi64>
  call @printMemrefI64(%m) : (memref<*xi64>) -> ()
  return
}
