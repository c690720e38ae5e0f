// magi.diagonal lowers to one generic over the result that reads the source
// at (a + i) in dim1 and (b + i) in dim2 (a = max(0, -offset), b =
// max(0, offset)), i the last index; a dynamic length is min(size1 - a,
// size2 - b) clamped at 0. The lowered code computes what the interpreter
// does, and PyTorch's own sample (scripts/gpu-ops-check.py) matches both.
// RUN: magi-opt %s --magi-lower-to-linalg=fail-on-unconverted | FileCheck %s --check-prefix=IR
// RUN: magi-interp %s --function=main | FileCheck %s
// RUN: magi-interp %s --function=main --lowered-pieces | FileCheck %s
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t && tar -xzf %S/../Ops/Inputs/core-op-samples.tgz -C %t diagonal-1
// RUN: magi-interp %t/diagonal-1/model.pt2 --fixture %t/diagonal-1/case0 --lowered-pieces | FileCheck %s --check-prefix=SAMPLE
// RUN: magi-compile %t/diagonal-1/model.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet

// IR-LABEL: func.func @dynamic
// IR: %[[N:.*]] = tensor.dim %arg0, %c0
// IR: %[[REST:.*]] = arith.subi %[[N]], %c1
// IR: %[[LEN:.*]] = arith.minsi %[[REST]], %c3
// IR: %[[CLAMPED:.*]] = arith.maxsi %[[LEN]], %c0
// IR: tensor.empty(%[[CLAMPED]]) : tensor<?xf32>
// IR: linalg.generic
// IR: %[[I:.*]] = linalg.index 0 : index
// IR: %[[ROW:.*]] = arith.addi %[[I]], %c1
// IR: tensor.extract %arg0[%[[ROW]], %[[I]]] : tensor<?x3xf32>
func.func @dynamic(%x: tensor<?x3xf32>) -> tensor<?xf32> {
  %d = magi.diagonal %x {offset = -1 : i64, dim1 = 0 : i64, dim2 = 1 : i64} : (tensor<?x3xf32>) -> tensor<?xf32>
  return %d : tensor<?xf32>
}

// CHECK:      out0: tensor<2x3xf32> = {{\[}}[1, 6, 11], [13, 18, 23]]
// CHECK-NEXT: out1: tensor<3x1xf32> = {{\[}}[12], [16], [20]]
// CHECK-NEXT: out2: tensor<2x0xf32> = {{\[}}[], []]
func.func @main() -> (tensor<2x3xf32>, tensor<3x1xf32>, tensor<2x0xf32>) {
  // x[b, i, j] = 12 b + 4 i + j
  %v = magi.constant dense<[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], [[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]]> : tensor<2x3x4xf32>
  // dims 1 and 2, offset 1: x[b, i, i + 1] for i < 3.
  %a = magi.diagonal %v {offset = 1 : i64, dim1 = 1 : i64, dim2 = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  // dims 0 and 2 (as -1), offset -1: x[i + 1, j, i] for i < 1.
  %b = magi.diagonal %v {offset = -1 : i64, dim1 = 0 : i64, dim2 = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<3x1xf32>
  // An offset past the end: empty.
  %c = magi.diagonal %v {offset = 5 : i64, dim1 = 1 : i64, dim2 = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x0xf32>
  return %a, %b, %c : tensor<2x3xf32>, tensor<3x1xf32>, tensor<2x0xf32>
}

// SAMPLE: out0: rel_err=0.000e+00 OK
