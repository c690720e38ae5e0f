// RUN: magi-opt %s -split-input-file --magi-lower-to-linalg=fail-on-unconverted | FileCheck %s
// RUN: magi-opt %s -split-input-file --magi-lower-to-linalg=fail-on-unconverted --cse --magi-bufferize --canonicalize | FileCheck %s --check-prefix=BUF
// RUN: magi-interp %s --function=main | FileCheck %s --check-prefix=VALUES
// RUN: magi-interp %s --function=main --lowered-pieces | FileCheck %s --check-prefix=VALUES
// RUN: magi-interp %s --function=reductions | FileCheck %s --check-prefix=REDUCE
// RUN: magi-interp %s --function=reductions --lowered-pieces | FileCheck %s --check-prefix=REDUCE
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t && tar -xzf %S/../Ops/Inputs/core-op-samples.tgz -C %t scatter-0 scatter_add-0
// RUN: magi-interp %t/scatter-0/model.pt2 --fixture %t/scatter-0/case0 --lowered-pieces | FileCheck %s --check-prefix=RUN-CPU
// RUN: magi-compile %t/scatter-0/model.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
// RUN: magi-interp %t/scatter_add-0/model.pt2 --fixture %t/scatter_add-0/case0 --lowered-pieces | FileCheck %s --check-prefix=RUN-CPU
// RUN: magi-compile %t/scatter_add-0/model.pt2 -o %t/artifact-add --no-cubin --cache-mode=off --quiet

// scatter is a scf.parallel over index's shape that updates a copy of self
// (bufferization.alloc_tensor copy, then to_buffer, the loop, to_tensor):
// src's element at the same position (or the scalar), converted to self's
// dtype, goes to the row index names along `dim` (negative rows counted
// from the end). Without a reduction it is stored; with one it is combined
// atomically: add, max and min as atomic_rmw, a float product as a
// compare-and-swap on its bits, mean as a sum and a count divided at the
// end; include_self = false stores the identity in a loop before.
// PyTorch's own samples (scatter 5 x 5 and scatter_add into 10 x 5 along
// dim 0) match when lowered and run on the CPU. A constant scalar src
// compiles too (it used to be folded into a 0-d global tensor, which a
// launch plan cannot hold).
// RUN: magi-compile %S/Inputs/scatter-constant-value.mlir -o %t/constant --no-cubin --cache-mode=off --quiet

// CHECK-LABEL: func.func @rows
// CHECK-SAME: %[[SELF:arg0]]: tensor<10x5xf32>, %[[INDEX:arg1]]: tensor<3x5xi64>, %[[SRC:arg2]]: tensor<4x5xf32>
// CHECK: %[[COPY:.*]] = bufferization.alloc_tensor() copy(%[[SELF]]) : tensor<10x5xf32>
// CHECK: %[[BUFFER:.*]] = bufferization.to_buffer %[[COPY]] : tensor<10x5xf32> to memref<10x5xf32>
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%c0, %c0) to (%c3, %c5) step (%c1, %c1)
// CHECK: %[[ROW:.*]] = tensor.extract %[[INDEX]][%[[I]], %[[J]]]
// CHECK: %[[R:.*]] = arith.index_cast %[[ROW]]
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[R]]
// CHECK: %[[WRAP:.*]] = arith.addi %[[R]], %c10
// CHECK: %[[AT:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[R]]
// CHECK: %[[V:.*]] = tensor.extract %[[SRC]][%[[I]], %[[J]]]
// CHECK: memref.store %[[V]], %[[BUFFER]][%[[AT]], %[[J]]] : memref<10x5xf32>
// CHECK: %[[OUT:.*]] = bufferization.to_tensor %[[BUFFER]] restrict writable
// CHECK: return %[[OUT]]
func.func @rows(%arg0: tensor<10x5xf32>, %arg1: tensor<3x5xi64>, %arg2: tensor<4x5xf32>) -> tensor<10x5xf32> {
  %0 = magi.scatter %arg0, %arg1, %arg2 {dim = 0 : i64} : (tensor<10x5xf32>, tensor<3x5xi64>, tensor<4x5xf32>) -> tensor<10x5xf32>
  return %0 : tensor<10x5xf32>
}

// -----

// A scalar src (aten.scatter.value) along the last dim (-1), converted to
// self's dtype.
// CHECK-LABEL: func.func @value
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%c0, %c0) to (%c2, %c2)
// CHECK: %[[C:.*]] = arith.truncf %arg2 : f64 to bf16
// CHECK: memref.store %[[C]], %{{.*}}[%[[I]], %{{.*}}] : memref<2x6xbf16>
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

// -----

// scatter_add: a copy of self that a parallel loop adds into atomically.
// CHECK-LABEL: func.func @add
// CHECK-SAME: %[[SELF:arg0]]: tensor<10x5xf32>, %[[INDEX:arg1]]: tensor<3x5xi64>, %[[SRC:arg2]]: tensor<3x5xf32>
// CHECK: %[[COPY:.*]] = bufferization.alloc_tensor() copy(%[[SELF]]) : tensor<10x5xf32>
// CHECK: %[[BUFFER:.*]] = bufferization.to_buffer %[[COPY]] : tensor<10x5xf32> to memref<10x5xf32>
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%c0, %c0) to (%c3, %c5) step (%c1, %c1)
// CHECK: %[[ROW:.*]] = tensor.extract %[[INDEX]][%[[I]], %[[J]]]
// CHECK: %[[AT:.*]] = arith.select
// CHECK: %[[V:.*]] = tensor.extract %[[SRC]][%[[I]], %[[J]]]
// CHECK: memref.atomic_rmw addf %[[V]], %[[BUFFER]][%[[AT]], %[[J]]]
// CHECK: %[[OUT:.*]] = bufferization.to_tensor %[[BUFFER]] restrict writable
// CHECK: return %[[OUT]]
// Twice on one self, even after CSE: two buffers, each a copy of self, and
// no copy after.
// BUF-LABEL: func.func @add
// BUF: %[[A:.*]] = memref.alloc() {{.*}} : memref<10x5xf32>
// BUF: linalg.copy ins(%arg0 : memref<10x5xf32>) outs(%[[A]] : memref<10x5xf32>)
// BUF: memref.atomic_rmw addf {{.*}}, %[[A]]
// BUF: %[[B:.*]] = memref.alloc() {{.*}} : memref<10x5xf32>
// BUF: linalg.copy ins(%arg0 : memref<10x5xf32>) outs(%[[B]] : memref<10x5xf32>)
// BUF: memref.atomic_rmw addf {{.*}}, %[[B]]
// BUF-NOT: linalg.copy
// BUF: return %[[A]], %[[B]]
func.func @add(%arg0: tensor<10x5xf32>, %arg1: tensor<3x5xi64>, %arg2: tensor<3x5xf32>) -> (tensor<10x5xf32>, tensor<10x5xf32>) {
  %0 = magi.scatter %arg0, %arg1, %arg2 {dim = 0 : i64, reduce = "add"} : (tensor<10x5xf32>, tensor<3x5xi64>, tensor<3x5xf32>) -> tensor<10x5xf32>
  %1 = magi.scatter %arg0, %arg1, %arg2 {dim = 0 : i64, reduce = "add"} : (tensor<10x5xf32>, tensor<3x5xi64>, tensor<3x5xf32>) -> tensor<10x5xf32>
  return %0, %1 : tensor<10x5xf32>, tensor<10x5xf32>
}

// -----

// A bf16 product without self: in self's bits (i16, cast into a fresh
// tensor: no copy after), a first loop stores the identity (1) where index
// points, a second multiplies by compare-and-swap; the bits are cast back.
// CHECK-LABEL: func.func @product
// CHECK: %[[FRESH:.*]] = bufferization.alloc_tensor() : tensor<4x2xi16>
// CHECK: %[[BITS:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<4x2xbf16>) outs(%[[FRESH]] : tensor<4x2xi16>)
// CHECK: arith.bitcast %{{.*}} : bf16 to i16
// CHECK-NOT: copy(
// CHECK: %[[BUFFER:.*]] = bufferization.to_buffer %[[BITS]]
// CHECK: scf.parallel
// CHECK: %[[ONE_BITS:.*]] = arith.bitcast %{{.*}} : bf16 to i16
// CHECK: memref.store %[[ONE_BITS]], %[[BUFFER]]
// CHECK: scf.parallel
// CHECK: memref.generic_atomic_rmw %[[BUFFER]]
// CHECK-NEXT: ^bb0(%[[CUR:.*]]: i16):
// CHECK-NEXT: %[[F:.*]] = arith.bitcast %[[CUR]] : i16 to bf16
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[F]], %{{.*}} : bf16
// CHECK-NEXT: %[[PB:.*]] = arith.bitcast %[[P]] : bf16 to i16
// CHECK-NEXT: memref.atomic_yield %[[PB]] : i16
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[BUFFER]]
// CHECK: linalg.generic {{.*}} ins(%[[T]] : tensor<4x2xi16>) outs(%{{.*}} : tensor<4x2xbf16>)
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
func.func @product(%arg0: tensor<4x2xbf16>, %arg1: tensor<3x2xi64>, %arg2: tensor<3x2xbf16>) -> tensor<4x2xbf16> {
  %0 = magi.scatter %arg0, %arg1, %arg2 {dim = 0 : i64, reduce = "multiply", include_self = false} : (tensor<4x2xbf16>, tensor<3x2xi64>, tensor<3x2xbf16>) -> tensor<4x2xbf16>
  return %0 : tensor<4x2xbf16>
}

// -----

// amax and amin propagate NaN (maximumf, minimumf); integers compare signed.
// CHECK-LABEL: func.func @extremes
// CHECK: memref.atomic_rmw maximumf
// CHECK: memref.atomic_rmw mins
func.func @extremes(%arg0: tensor<4x2xf16>, %arg1: tensor<3x2xi64>, %arg2: tensor<3x2xf16>, %arg3: tensor<4x2xi32>, %arg4: tensor<3x2xi32>) -> (tensor<4x2xf16>, tensor<4x2xi32>) {
  %0 = magi.scatter %arg0, %arg1, %arg2 {dim = 0 : i64, reduce = "amax"} : (tensor<4x2xf16>, tensor<3x2xi64>, tensor<3x2xf16>) -> tensor<4x2xf16>
  %1 = magi.scatter %arg3, %arg1, %arg4 {dim = 0 : i64, reduce = "amin"} : (tensor<4x2xi32>, tensor<3x2xi64>, tensor<3x2xi32>) -> tensor<4x2xi32>
  return %0, %1 : tensor<4x2xf16>, tensor<4x2xi32>
}

// -----

// mean: the sum and a count (in self's dtype, starting at 1 for self)
// updated in one loop; where the count is zero the element is kept,
// integers divide with floor rounding.
// CHECK-LABEL: func.func @mean
// CHECK: %[[COUNT0:.*]] = linalg.fill ins(%c1_i64 : i64) outs(%{{.*}} : tensor<4x2xi64>)
// CHECK: %[[SUM:.*]] = bufferization.to_buffer
// CHECK: %[[COUNT:.*]] = bufferization.to_buffer %[[COUNT0]]
// CHECK: scf.parallel
// CHECK: memref.atomic_rmw addi %{{.*}}, %[[SUM]]
// CHECK: memref.atomic_rmw addi %c1_i64, %[[COUNT]]
// CHECK: %[[S:.*]] = bufferization.to_tensor %[[SUM]]
// CHECK: %[[C:.*]] = bufferization.to_tensor %[[COUNT]]
// CHECK: linalg.generic {{.*}} ins(%[[S]], %[[C]] : tensor<4x2xi64>, tensor<4x2xi64>)
// CHECK: arith.floordivsi
func.func @mean(%arg0: tensor<4x2xi64>, %arg1: tensor<3x2xi64>, %arg2: tensor<3x2xi64>) -> tensor<4x2xi64> {
  %0 = magi.scatter %arg0, %arg1, %arg2 {dim = 0 : i64, reduce = "mean"} : (tensor<4x2xi64>, tensor<3x2xi64>, tensor<3x2xi64>) -> tensor<4x2xi64>
  return %0 : tensor<4x2xi64>
}

// -----

// Every reduction, interpreted and lowered to run on the CPU, as PyTorch's
// scatter_reduce computes it (index column 0 names rows 0, 0, 2; column 1
// rows 2, 0, 0).
// REDUCE:      out0: tensor<3x2xf32> = {{\[}}[41, -36], [3, 4], [5.5, 26]]
// REDUCE-NEXT: out1: tensor<3x2xf32> = {{\[}}[300, -80], [3, 4], [0.5, 20]]
// REDUCE-NEXT: out2: tensor<3x2xf32> = {{\[}}[30, 2], [3, 4], [5, 20]]
// REDUCE-NEXT: out3: tensor<3x2xf32> = {{\[}}[10, -40], [3, 4], [0.5, 20]]
// REDUCE-NEXT: out4: tensor<3x2xf32> = {{\[}}[13.666667, -12], [3, 4], [2.75, 13]]
// REDUCE-NEXT: out5: tensor<3x2xbf16> = {{\[}}[300, -160], [3, 4], [2.5, 120]]
// REDUCE-NEXT: out6: tensor<3x2xi64> = {{\[}}[20, -20], [3, 4], [7, 20]]
// REDUCE-NEXT: out7: tensor<3x2xi64> = {{\[}}[300, -164], [3, 4], [35, -120]]
// REDUCE-NEXT: out8: tensor<3x2xf32> = {{\[}}[1, 4.5], [5.5, 4], [5, 6]]
// REDUCE-NEXT: out9: tensor<3x2xi32> = {{\[}}[30, 2], [3, 4], [7, 20]]
// REDUCE-NEXT: out10: tensor<3x2xf32> = {{\[}}[nan, 2], [3, 4], [5, 20]]
func.func @reductions() -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xbf16>, tensor<3x2xi64>, tensor<3x2xi64>, tensor<3x2xf32>, tensor<3x2xi32>, tensor<3x2xf32>) {
  %x = magi.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %i = magi.constant dense<[[0, 2], [0, 0], [-1, 0]]> : tensor<3x2xi64>
  %s = magi.constant dense<[[10.0, 20.0], [30.0, -40.0], [0.5, 2.0]]> : tensor<3x2xf32>
  %a = magi.scatter %x, %i, %s {dim = 0 : i64, reduce = "add"} : (tensor<3x2xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %b = magi.scatter %x, %i, %s {dim = 0 : i64, reduce = "multiply", include_self = false} : (tensor<3x2xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %c = magi.scatter %x, %i, %s {dim = 0 : i64, reduce = "amax"} : (tensor<3x2xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %d = magi.scatter %x, %i, %s {dim = 0 : i64, reduce = "amin", include_self = false} : (tensor<3x2xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %e = magi.scatter %x, %i, %s {dim = 0 : i64, reduce = "mean"} : (tensor<3x2xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %xb = magi.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xbf16>
  %sb = magi.constant dense<[[10.0, 20.0], [30.0, -40.0], [0.5, 2.0]]> : tensor<3x2xbf16>
  %f = magi.scatter %xb, %i, %sb {dim = 0 : i64, reduce = "multiply"} : (tensor<3x2xbf16>, tensor<3x2xi64>, tensor<3x2xbf16>) -> tensor<3x2xbf16>
  %xi = magi.constant dense<[[1, 2], [3, 4], [5, -6]]> : tensor<3x2xi64>
  %si = magi.constant dense<[[10, 20], [30, -41], [7, 2]]> : tensor<3x2xi64>
  %g = magi.scatter %xi, %i, %si {dim = 0 : i64, reduce = "mean", include_self = false} : (tensor<3x2xi64>, tensor<3x2xi64>, tensor<3x2xi64>) -> tensor<3x2xi64>
  %h = magi.scatter %xi, %i, %si {dim = 0 : i64, reduce = "multiply"} : (tensor<3x2xi64>, tensor<3x2xi64>, tensor<3x2xi64>) -> tensor<3x2xi64>
  %j1 = magi.constant dense<[[1], [0]]> : tensor<2x1xi64>
  %v = arith.constant 2.5 : f64
  %k = magi.scatter %x, %j1, %v {dim = 1 : i64, reduce = "add"} : (tensor<3x2xf32>, tensor<2x1xi64>, f64) -> tensor<3x2xf32>
  %xi32 = magi.constant dense<[[1, 2], [3, 4], [5, -6]]> : tensor<3x2xi32>
  %si32 = magi.constant dense<[[10, 20], [30, -41], [7, 2]]> : tensor<3x2xi32>
  %m = magi.scatter %xi32, %i, %si32 {dim = 0 : i64, reduce = "amax", include_self = false} : (tensor<3x2xi32>, tensor<3x2xi64>, tensor<3x2xi32>) -> tensor<3x2xi32>
  %sn = magi.constant dense<[[0x7FC00000, 20.0], [30.0, -40.0], [0.5, 2.0]]> : tensor<3x2xf32>
  %n = magi.scatter %x, %i, %sn {dim = 0 : i64, reduce = "amax"} : (tensor<3x2xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %a, %b, %c, %d, %e, %f, %g, %h, %k, %m, %n : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xbf16>, tensor<3x2xi64>, tensor<3x2xi64>, tensor<3x2xf32>, tensor<3x2xi32>, tensor<3x2xf32>
}
