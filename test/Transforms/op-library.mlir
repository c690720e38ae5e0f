// magi-expand-op-library: opaque ops that an op library defines become the
// definition's body, with types inferred again from the operands; the rest
// stay opaque. The graph then interprets, lowers and compiles as any other.
// RUN: magi-opt %s -split-input-file --magi-expand-op-library=library=%S/Inputs/op-library.mlir | FileCheck %s
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t.x.npy float32 2,3 1,-2,3,0,4,-1
// RUN: magi-interp %S/Inputs/op-library-graph.mlir --op-library %S/Inputs/op-library.mlir --input %t.x.npy | FileCheck %s --check-prefix=VALUES
// RUN: magi-interp %S/Inputs/op-library-graph.mlir --op-library %S/Inputs/op-library.mlir --input %t.x.npy --lowered-pieces | FileCheck %s --check-prefix=VALUES
// RUN: rm -rf %t && magi-compile %S/Inputs/op-library-graph.mlir --op-library %S/Inputs/op-library.mlir -o %t --no-cubin --cache-mode=off --quiet
// RUN: not magi-interp %S/Inputs/op-library-graph.mlir --input %t.x.npy 2>&1 | FileCheck %s --check-prefix=WITHOUT
// RUN: not magi-compile %S/Inputs/op-library-graph.mlir --op-library %t.missing.mlir -o %t.2 --cache-mode=off 2>&1 | FileCheck %s --check-prefix=MISSING

// silu(x) * 2 and the rows' sums and maxima of [[1, -2, 3], [0, 4, -1]].
// VALUES:      out0: tensor<2x3xf32> = {{\[}}[1.4621172, -0.47681168, 5.7154446], [0, 7.85611, -0.53788286]]
// VALUES-NEXT: out1: tensor<2xf32> = [2, 3]
// VALUES-NEXT: out2: tensor<2xf32> = [3, 4]
// WITHOUT: cannot interpret 'magi.opaque' ("mylib::scaled_silu.default")
// MISSING: cannot read the op library

// CHECK-LABEL: func.func @defined
// CHECK: %[[C:.*]] = arith.constant 2.000000e+00 : f64
// CHECK: %[[S:.*]] = magi.silu %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[Y:.*]] = magi.mul %[[S]], %[[C]] : (tensor<2x3xf32>, f64) -> tensor<2x3xf32>
// CHECK: %[[SUM:.*]] = magi.sum %[[Y]] {dims = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
// CHECK: %[[MAX:.*]] = magi.amax %[[Y]] {dims = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
// CHECK: magi.opaque "mylib::unknown.default"
// CHECK: return %[[Y]], %[[SUM]], %[[MAX]]
func.func @defined(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x3xf32>) {
  %y = magi.opaque "mylib::scaled_silu.default"(%x) {scale = 2.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s, %m = magi.opaque "mylib::row_stats.default"(%y) : (tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %u = magi.opaque "mylib::unknown.default"(%y) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y, %s, %m, %u : tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x3xf32>
}

// -----

// A symbolic size stays symbolic; an operand returned as it is.
// CHECK-LABEL: func.func @dynamic
// CHECK: magi.silu %arg0 : (tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK: return %{{.*}}, %arg1
func.func @dynamic(%x: tensor<?x8xf32>, %v: tensor<4xf32>) -> (tensor<?x8xf32>, tensor<4xf32>) {
  %y = magi.opaque "mylib::scaled_silu.default"(%x) {scale = 0.5 : f64} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %w = magi.opaque "mylib::identity.default"(%v) : (tensor<4xf32>) -> tensor<4xf32>
  return %y, %w : tensor<?x8xf32>, tensor<4xf32>
}

