// End to end on the CPU: index_put with two indexed dims, a negative index
// and broadcast values, and a KV-cache-style update of one position along
// dim 1 (the loop that writes in place on the GPU path), then copy.
// REQUIRES: mlir-runner
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" \
// RUN: | mlir-opt --pass-pipeline="builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}, buffer-deallocation-pipeline, convert-bufferization-to-memref, func.func(scf-forall-to-parallel, convert-linalg-to-loops), convert-scf-to-cf, expand-strided-metadata, lower-affine, convert-math-to-llvm, convert-math-to-libm, convert-to-llvm, reconcile-unrealized-casts)" \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s

// The expected values follow PyTorch's index_put and copy (by hand).
// CHECK: {{\[\[}}0,   7.5,   2,   3],
// CHECK-NEXT:  [4,   5,   6,   7],
// CHECK-NEXT:  [8,   9,   10,   7.5{{\]\]}}
// CHECK: {{\[\[}}[0,   0],
// CHECK-NEXT:   [0,   0],
// CHECK-NEXT:   [1,   2{{\]\]}}]
// CHECK: {{\[\[}}-3,   -3],
// CHECK-NEXT:  [-3,   -3{{\]\]}}

func.func @compute(%self: tensor<3x4xf32>, %rows: tensor<2xi64>, %cols: tensor<2xi64>,
                   %v: tensor<1xf32>, %cache: tensor<1x3x2xf32>, %pos: tensor<1xi64>,
                   %kv: tensor<1x1x2xf32>, %dst: tensor<2x2xf32>, %src: tensor<2xi64>)
    -> (tensor<3x4xf32>, tensor<1x3x2xf32>, tensor<2x2xf32>) {
  %0 = magi.index_put %self[%rows, %cols], %v {indexed_dims = array<i64: 0, 1>} : (tensor<3x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<1xf32>) -> tensor<3x4xf32>
  %1 = magi.index_put %cache[%pos], %kv {in_place, indexed_dims = array<i64: 1>} : (tensor<1x3x2xf32>, tensor<1xi64>, tensor<1x1x2xf32>) -> tensor<1x3x2xf32>
  %2 = magi.copy %dst, %src : (tensor<2x2xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  return %0, %1, %2 : tensor<3x4xf32>, tensor<1x3x2xf32>, tensor<2x2xf32>
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %self = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]> : tensor<3x4xf32>
  %rows = arith.constant dense<[0, -1]> : tensor<2xi64>
  %cols = arith.constant dense<[1, 3]> : tensor<2xi64>
  %v = arith.constant dense<[7.5]> : tensor<1xf32>
  %cache = arith.constant dense<0.0> : tensor<1x3x2xf32>
  %pos = arith.constant dense<[-1]> : tensor<1xi64>
  %kv = arith.constant dense<[[[1.0, 2.0]]]> : tensor<1x1x2xf32>
  %dst = arith.constant dense<0.0> : tensor<2x2xf32>
  %src = arith.constant dense<[-3, -3]> : tensor<2xi64>
  %a, %b, %c = call @compute(%self, %rows, %cols, %v, %cache, %pos, %kv, %dst, %src) : (tensor<3x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<1xf32>, tensor<1x3x2xf32>, tensor<1xi64>, tensor<1x1x2xf32>, tensor<2x2xf32>, tensor<2xi64>) -> (tensor<3x4xf32>, tensor<1x3x2xf32>, tensor<2x2xf32>)
  %ma = bufferization.to_buffer %a : tensor<3x4xf32> to memref<3x4xf32>
  %mb = bufferization.to_buffer %b : tensor<1x3x2xf32> to memref<1x3x2xf32>
  %mc = bufferization.to_buffer %c : tensor<2x2xf32> to memref<2x2xf32>
  %ua = memref.cast %ma : memref<3x4xf32> to memref<*xf32>
  %ub = memref.cast %mb : memref<1x3x2xf32> to memref<*xf32>
  %uc = memref.cast %mc : memref<2x2xf32> to memref<*xf32>
  call @printMemrefF32(%ua) : (memref<*xf32>) -> ()
  call @printMemrefF32(%ub) : (memref<*xf32>) -> ()
  call @printMemrefF32(%uc) : (memref<*xf32>) -> ()
  return
}
