// RUN: magi-opt %s -split-input-file --magi-lower-to-linalg=fail-on-unconverted | FileCheck %s
// RUN: magi-opt %S/Inputs/scatter-add.mlir --magi-lower-to-linalg | FileCheck %s --check-prefix=ADD
// RUN: magi-interp %s --function=main | FileCheck %s --check-prefix=VALUES
// RUN: magi-interp %s --function=main --lowered-pieces | FileCheck %s --check-prefix=VALUES
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t && tar -xzf %S/../Ops/Inputs/core-op-samples.tgz -C %t scatter-0
// RUN: magi-interp %t/scatter-0/model.pt2 --fixture %t/scatter-0/case0 --lowered-pieces | FileCheck %s --check-prefix=RUN-CPU
// RUN: magi-compile %t/scatter-0/model.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet

// scatter without a reduction is an scf.forall over index's shape that
// inserts src's element at the same position (or the scalar, converted to
// self's dtype) into `self` at the row index names along `dim` (negative
// rows counted from the end). With a reduction (scatter_add) it stays a
// magi op: that needs atomic updates. PyTorch's own sample (index 5 x 5
// into 10 x 5 along dim 0) matches when lowered and run on the CPU.

// CHECK-LABEL: func.func @rows
// CHECK-SAME: %[[SELF:arg0]]: tensor<10x5xf32>, %[[INDEX:arg1]]: tensor<3x5xi64>, %[[SRC:arg2]]: tensor<4x5xf32>
// CHECK: %[[LOOP:.*]] = scf.forall (%[[I:.*]], %[[J:.*]]) in (3, 5) shared_outs(%[[OUT:.*]] = %[[SELF]])
// CHECK: %[[ROW:.*]] = tensor.extract %[[INDEX]][%[[I]], %[[J]]]
// CHECK: %[[R:.*]] = arith.index_cast %[[ROW]]
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[R]]
// CHECK: %[[WRAP:.*]] = arith.addi %[[R]], %c10
// CHECK: %[[AT:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[R]]
// CHECK: %[[V:.*]] = tensor.extract %[[SRC]][%[[I]], %[[J]]]
// CHECK: %[[E:.*]] = tensor.from_elements %[[V]] : tensor<f32>
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %[[E]] into %[[OUT]][%[[AT]], %[[J]]] [1, 1] [1, 1] : tensor<f32> into tensor<10x5xf32>
// CHECK: return %[[LOOP]]
func.func @rows(%arg0: tensor<10x5xf32>, %arg1: tensor<3x5xi64>, %arg2: tensor<4x5xf32>) -> tensor<10x5xf32> {
  %0 = magi.scatter %arg0, %arg1, %arg2 {dim = 0 : i64} : (tensor<10x5xf32>, tensor<3x5xi64>, tensor<4x5xf32>) -> tensor<10x5xf32>
  return %0 : tensor<10x5xf32>
}

// -----

// A scalar src (aten.scatter.value) along the last dim (-1), converted to
// self's dtype.
// CHECK-LABEL: func.func @value
// CHECK: scf.forall (%[[I:.*]], %[[J:.*]]) in (2, 2)
// CHECK: %[[C:.*]] = arith.truncf %arg2 : f64 to bf16
// CHECK: tensor.from_elements %[[C]] : tensor<bf16>
// CHECK: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[I]], %{{.*}}] [1, 1] [1, 1] : tensor<bf16> into tensor<2x6xbf16>
func.func @value(%arg0: tensor<2x6xbf16>, %arg1: tensor<2x2xi64>, %arg2: f64) -> tensor<2x6xbf16> {
  %0 = magi.scatter %arg0, %arg1, %arg2 {dim = -1 : i64} : (tensor<2x6xbf16>, tensor<2x2xi64>, f64) -> tensor<2x6xbf16>
  return %0 : tensor<2x6xbf16>
}

// -----

// Negative rows and a scalar src, lowered and run on the CPU, as the
// interpreter computes them.
// VALUES:      out0: tensor<3x2xf32> = {{\[}}[0, 2], [0, 0], [1, 0]]
// VALUES-NEXT: out1: tensor<2x3xi64> = {{\[}}[0, 0, 7], [7, 0, 0]]
func.func @main() -> (tensor<3x2xf32>, tensor<2x3xi64>) {
  %x = magi.constant dense<0.0> : tensor<3x2xf32>
  %i = magi.constant dense<[[-1, 0]]> : tensor<1x2xi64>
  %s = magi.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %a = magi.scatter %x, %i, %s {dim = 0 : i64} : (tensor<3x2xf32>, tensor<1x2xi64>, tensor<1x2xf32>) -> tensor<3x2xf32>
  %y = magi.constant dense<0> : tensor<2x3xi64>
  %j = magi.constant dense<[[2], [0]]> : tensor<2x1xi64>
  %c = arith.constant 7.0 : f64
  %b = magi.scatter %y, %j, %c {dim = 1 : i64} : (tensor<2x3xi64>, tensor<2x1xi64>, f64) -> tensor<2x3xi64>
  return %a, %b : tensor<3x2xf32>, tensor<2x3xi64>
}

// RUN-CPU: out0: rel_err=0.000e+00 OK
// ADD: magi.scatter %arg0, %arg1, %arg2 {dim = 0 : i64, reduce = "add"}
