// End to end on the CPU: lower a magi function (elementwise chain, reductions,
// mm) to linalg, then with upstream passes to LLVM, and run it.
// REQUIRES: mlir-runner
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" \
// RUN: | mlir-opt --pass-pipeline="builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}, buffer-deallocation-pipeline, convert-bufferization-to-memref, func.func(convert-linalg-to-loops), convert-scf-to-cf, expand-strided-metadata, lower-affine, convert-math-to-llvm, convert-math-to-libm, convert-to-llvm, reconcile-unrealized-casts)" \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s

// By hand: y = relu(x * 0.5 + b) = [[1, 0, 1.5], [0, 0, 3]];
// s = sum(y, -1, keepdim) = [[2.5], [3]]; m = y @ w = [[8.5, 11], [15, 18]];
// o = m + s = [[11, 13.5], [18, 21]]; o / mean(o, -1, keepdim) with means
// 12.25 and 19.5; amax(o / mean) = 1.10204 (row 0), 1.07692 (row 1).
// build/bin/magi-interp on the same function (inputs as magi.constant) gives
// [[0.8979592, 1.1020408], [0.9230769, 1.0769231]] and [[1.1020408], [1.0769231]].
// CHECK: sizes = [2, 2]
// CHECK-NEXT: [0.897959,   1.10204]
// CHECK-NEXT: [0.923077,   1.07692]
// CHECK: sizes = [2, 1]
// CHECK-NEXT: [1.10204]
// CHECK-NEXT: [1.07692]

func.func @compute(%x: tensor<2x3xf32>, %b: tensor<3xf32>, %w: tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<2x1xf32>) {
  %half = arith.constant 0.5 : f64
  %0 = magi.mul %x, %half : (tensor<2x3xf32>, f64) -> tensor<2x3xf32>
  %1 = magi.add %0, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %y = magi.relu %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = magi.sum %y {dims = array<i64: -1>, keepdim = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %m = magi.mm %y, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %o = magi.add %m, %s : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
  %mean = magi.mean %o {dims = array<i64: -1>, keepdim = true} : (tensor<2x2xf32>) -> tensor<2x1xf32>
  %r = magi.div %o, %mean : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
  %a = magi.amax %r {dims = array<i64: 1>, keepdim = true} : (tensor<2x2xf32>) -> tensor<2x1xf32>
  return %r, %a : tensor<2x2xf32>, tensor<2x1xf32>
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0], [-4.0, 0.0, 6.0]]> : tensor<2x3xf32>
  %b = arith.constant dense<[0.5, -1.0, 0.0]> : tensor<3xf32>
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %r, %a = call @compute(%x, %b, %w) : (tensor<2x3xf32>, tensor<3xf32>, tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<2x1xf32>)
  %rm = bufferization.to_buffer %r : tensor<2x2xf32> to memref<2x2xf32>
  %ru = memref.cast %rm : memref<2x2xf32> to memref<*xf32>
  call @printMemrefF32(%ru) : (memref<*xf32>) -> ()
  %am = bufferization.to_buffer %a : tensor<2x1xf32> to memref<2x1xf32>
  %au = memref.cast %am : memref<2x1xf32> to memref<*xf32>
  call @printMemrefF32(%au) : (memref<*xf32>) -> ()
  return
}
