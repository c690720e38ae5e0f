// RUN: magi-opt %s --magi-lower-to-linalg | FileCheck %s

// Broadcasting: the size-1 dimension of %b reads index 0, %c is right-aligned.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$B0:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0, d1) -> ()>

// CHECK-LABEL: func.func @add_broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x1xf32>, %[[C:.*]]: tensor<3xf32>)
// Constants made in bodies are hoisted to the function by the rewrite driver.
// CHECK: %[[TWO:.*]] = arith.constant 2.0{{.*}} : f32
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$B0]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<2x1xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[M:.*]] = arith.mulf %[[Y]], %[[TWO]] : f32
// CHECK:   %[[S:.*]] = arith.addf %[[X]], %[[M]] : f32
// CHECK:   linalg.yield %[[S]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]]
// CHECK:   arith.subf
// CHECK-NOT: magi.
func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %c: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = magi.add %a, %b {alpha = 2.0 : f64} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %1 = magi.sub %0, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// Dynamic dimensions: tensor.empty takes its size from tensor.dim of an
// operand that has the dimension.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[A:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D:.*]] = tensor.dim %[[A]], %[[C0]] : tensor<?x4xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x4xf32>
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<?x4xf32>, tensor<4xf32>) outs(%[[E]] : tensor<?x4xf32>)
// CHECK:   arith.mulf
func.func @dynamic(%a: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %0 = magi.mul %a, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// bf16 computes in f32 and truncates once (the sigmoid's exponential and
// division approximate: test/Lower/silu-approximate.mlir).
// CHECK-LABEL: func.func @bf16_silu
// CHECK: ^bb0(%[[X:.*]]: bf16, %{{.*}}: bf16):
// CHECK:   %[[F:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK:   %[[N:.*]] = arith.negf %[[F]] : f32
// CHECK:   math.exp %[[N]] fastmath<afn> : f32
// CHECK:   arith.divf
// CHECK:   %[[R:.*]] = arith.mulf %[[F]], %{{.*}} : f32
// CHECK:   %[[T:.*]] = arith.truncf %[[R]] : f32 to bf16
// CHECK:   linalg.yield %[[T]] : bf16
func.func @bf16_silu(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = magi.silu %a : (tensor<4xbf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// Python scalars are converted inside the generic's body (the host only
// does index arithmetic).
// CHECK-LABEL: func.func @scalars
// CHECK-SAME: (%[[A:.*]]: tensor<4xf16>, %[[S:.*]]: f64, %[[I:.*]]: i64)
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.*]]: f16, %{{.*}}: f16):
// CHECK:   %[[XF:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK:   %[[SF:.*]] = arith.truncf %[[S]] : f64 to f32
// CHECK:   %[[M:.*]] = arith.mulf %[[XF]], %[[SF]] : f32
// CHECK:   arith.truncf %[[M]] : f32 to f16
// CHECK: linalg.generic
// CHECK:   %[[IF:.*]] = arith.sitofp %[[I]] : i64 to f32
// CHECK:   math.powf %{{.*}}, %[[IF]] : f32
func.func @scalars(%a: tensor<4xf16>, %s: f64, %i: i64) -> tensor<4xf16> {
  %0 = magi.mul %a, %s : (tensor<4xf16>, f64) -> tensor<4xf16>
  %1 = magi.pow %0, %i : (tensor<4xf16>, i64) -> tensor<4xf16>
  return %1 : tensor<4xf16>
}

// Unary ops: one body op each (or their formula).
// CHECK-LABEL: func.func @unary
// CHECK: arith.negf
// CHECK: math.absf
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: math.log
// CHECK: math.sqrt
// CHECK: math.rsqrt
// CHECK: math.tanh
// CHECK: math.erf
// CHECK: math.cos
// CHECK: math.sin
// CHECK: arith.divf
// CHECK: math.erf
// CHECK: math.tanh
func.func @unary(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = magi.neg %a : (tensor<4xf32>) -> tensor<4xf32>
  %1 = magi.abs %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = magi.relu %1 : (tensor<4xf32>) -> tensor<4xf32>
  %3 = magi.exp %2 : (tensor<4xf32>) -> tensor<4xf32>
  %4 = magi.log %3 : (tensor<4xf32>) -> tensor<4xf32>
  %5 = magi.sqrt %4 : (tensor<4xf32>) -> tensor<4xf32>
  %6 = magi.rsqrt %5 : (tensor<4xf32>) -> tensor<4xf32>
  %7 = magi.tanh %6 : (tensor<4xf32>) -> tensor<4xf32>
  %8 = magi.erf %7 : (tensor<4xf32>) -> tensor<4xf32>
  %9 = magi.cos %8 : (tensor<4xf32>) -> tensor<4xf32>
  %10 = magi.sin %9 : (tensor<4xf32>) -> tensor<4xf32>
  %11 = magi.reciprocal %10 : (tensor<4xf32>) -> tensor<4xf32>
  %12 = magi.gelu %11 : (tensor<4xf32>) -> tensor<4xf32>
  %13 = magi.gelu %12 {approximate = "tanh"} : (tensor<4xf32>) -> tensor<4xf32>
  return %13 : tensor<4xf32>
}

// Integer ops keep integer arithmetic; div modes (an integer divisor of 0
// or -1 never reaches the division; trunc is floor above zero, ceil below).
// CHECK-LABEL: func.func @integers
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: arith.divf
// CHECK: %[[UNSAFE:.*]] = arith.ori
// CHECK: %[[D:.*]] = arith.select %[[UNSAFE]], %{{.*}}, %{{.*}} : i64
// CHECK: arith.floordivsi %{{.*}}, %[[D]]
// CHECK: arith.divf
// CHECK: math.floor
// CHECK: math.ceil
// CHECK: arith.select
// CHECK: arith.maxsi
// CHECK: arith.minsi
func.func @integers(%a: tensor<4xi64>, %b: tensor<4xi64>, %f: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi64>, tensor<4xf32>, tensor<4xi64>, tensor<4xi64>) {
  %0 = magi.div %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xf32>
  %1 = magi.div %a, %b {rounding_mode = "floor"} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %2 = magi.div %f, %f {rounding_mode = "trunc"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = magi.maximum %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %4 = magi.minimum %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xi64>, tensor<4xf32>, tensor<4xi64>, tensor<4xi64>
}

// Comparisons compute in the promoted operand dtype and yield i1; where
// selects in the result dtype.
// CHECK-LABEL: func.func @compare_where
// CHECK: %[[Z:.*]] = arith.constant 0.0{{.*}} : f64
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.*]]: i64, %[[Y:.*]]: f32, %{{.*}}: i1):
// CHECK:   %[[XF:.*]] = arith.sitofp %[[X]] : i64 to f32
// CHECK:   %[[C:.*]] = arith.cmpf olt, %[[XF]], %[[Y]] : f32
// CHECK:   linalg.yield %[[C]] : i1
// CHECK: linalg.generic
// CHECK: ^bb0(%[[P:.*]]: i1, %[[V:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[ZF:.*]] = arith.truncf %[[Z]] : f64 to f32
// CHECK:   %[[S:.*]] = arith.select %[[P]], %[[V]], %[[ZF]] : f32
// CHECK:   linalg.yield %[[S]] : f32
func.func @compare_where(%a: tensor<4xi64>, %f: tensor<4xf32>) -> tensor<4xf32> {
  %c = magi.lt %a, %f : (tensor<4xi64>, tensor<4xf32>) -> tensor<4xi1>
  %zero = arith.constant 0.0 : f64
  %w = magi.where %c, %f, %zero : (tensor<4xi1>, tensor<4xf32>, f64) -> tensor<4xf32>
  return %w : tensor<4xf32>
}

// Conversions: one cast op (bf16 <-> f16 through f32).
// CHECK-LABEL: func.func @conversions
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.fptosi %{{.*}} : f16 to i32
// CHECK: arith.cmpi ne
// CHECK: arith.uitofp %{{.*}} : i1 to f64
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:   linalg.yield %[[X]] : f64
func.func @conversions(%a: tensor<4xf32>) -> tensor<4xf64> {
  %0 = magi.to_copy %a {dtype = bf16} : (tensor<4xf32>) -> tensor<4xbf16>
  %1 = magi.to_copy %0 {dtype = f16} : (tensor<4xbf16>) -> tensor<4xf16>
  %2 = magi.to_copy %1 {dtype = i32} : (tensor<4xf16>) -> tensor<4xi32>
  %3 = magi.to_copy %2 {dtype = i1} : (tensor<4xi32>) -> tensor<4xi1>
  %4 = magi.to_copy %3 {dtype = f64} : (tensor<4xi1>) -> tensor<4xf64>
  %5 = magi.clone %4 : (tensor<4xf64>) -> tensor<4xf64>
  return %5 : tensor<4xf64>
}

// A 0-d tensor broadcasts through an empty map; bools compare unsigned and
// add as `or`.
// CHECK-LABEL: func.func @zero_d_and_bools
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$SCALAR]], #[[$ID]]]
// CHECK:   arith.addf
// CHECK: linalg.generic
// CHECK:   arith.cmpi ult, %{{.*}}, %{{.*}} : i1
// CHECK: linalg.generic
// CHECK:   arith.ori %{{.*}}, %{{.*}} : i1
func.func @zero_d_and_bools(%x: tensor<2x?xf32>, %z: tensor<f32>, %b: tensor<2x?xi1>, %c: tensor<2x?xi1>) -> (tensor<2x?xf32>, tensor<2x?xi1>, tensor<2x?xi1>) {
  %0 = magi.add %x, %z : (tensor<2x?xf32>, tensor<f32>) -> tensor<2x?xf32>
  %1 = magi.lt %b, %c : (tensor<2x?xi1>, tensor<2x?xi1>) -> tensor<2x?xi1>
  %2 = magi.add %b, %c : (tensor<2x?xi1>, tensor<2x?xi1>) -> tensor<2x?xi1>
  return %0, %1, %2 : tensor<2x?xf32>, tensor<2x?xi1>, tensor<2x?xi1>
}

// Python's remainder on integers: the divisor guarded (0 and -1 divide by
// 1), then the C remainder moved to the divisor's sign; isnan compares the
// float operand with itself; an integer clamp runs in f64.
// CHECK-LABEL: func.func @remainder_isnan_clamp
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.*]]: i64, %[[Y:.*]]: i64, %{{.*}}: i64):
// CHECK:   %[[ZERO:.*]] = arith.cmpi eq, %[[Y]], %c0_i64 : i64
// CHECK:   %[[MINUS:.*]] = arith.cmpi eq, %[[Y]], %c-1_i64 : i64
// CHECK:   %[[UNSAFE:.*]] = arith.ori %[[ZERO]], %[[MINUS]] : i1
// CHECK:   %[[D:.*]] = arith.select %[[UNSAFE]], %{{.*}}, %[[Y]] : i64
// CHECK:   %[[R:.*]] = arith.remsi %[[X]], %[[D]] : i64
// CHECK:   %[[SUM:.*]] = arith.addi %[[R]], %[[Y]] : i64
// CHECK:   %[[OUT:.*]] = arith.select %{{.*}}, %[[SUM]], %[[R]] : i64
// CHECK:   linalg.yield %[[OUT]] : i64
// CHECK: linalg.generic
// CHECK: ^bb0(%[[F:.*]]: f32, %{{.*}}: i1):
// CHECK:   %[[NAN:.*]] = arith.cmpf uno, %[[F]], %[[F]] : f32
// CHECK:   linalg.yield %[[NAN]] : i1
// CHECK: linalg.generic
// CHECK:   arith.sitofp %{{.*}} : i64 to f64
// CHECK:   arith.maximumf
// CHECK:   arith.minimumf
// CHECK:   arith.fptosi %{{.*}} : f64 to i64
func.func @remainder_isnan_clamp(%i: tensor<4xi64>, %j: tensor<4xi64>, %x: tensor<4xf32>) -> (tensor<4xi64>, tensor<4xi1>, tensor<4xi64>) {
  %0 = magi.remainder %i, %j : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %1 = magi.isnan %x : (tensor<4xf32>) -> tensor<4xi1>
  %2 = magi.clamp %i {min = -5.0 : f64, max = 5.0 : f64} : (tensor<4xi64>) -> tensor<4xi64>
  return %0, %1, %2 : tensor<4xi64>, tensor<4xi1>, tensor<4xi64>
}

// A declared type more precise than the operand's (full_like of a `?` that
// torch.export knew to be 2) or less precise than the bounds (an arange whose
// end folded to a constant after the type was written): the lowered value is
// cast to the declared type (issue #12), and the arange's length is static.
// CHECK-LABEL: func.func @creation_declared_types
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: %[[LIKE:.*]] = tensor.cast %[[FILL]] : tensor<?x4xf32> to tensor<2x4xf32>
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<7xf32>
// CHECK: %[[AR:.*]] = linalg.generic {{.*}} outs(%[[INIT]] : tensor<7xf32>)
// CHECK: %[[DYN:.*]] = tensor.cast %[[AR]] : tensor<7xf32> to tensor<?xf32>
// CHECK: return %[[LIKE]], %[[DYN]] : tensor<2x4xf32>, tensor<?xf32>
func.func @creation_declared_types(%x: tensor<?x4xf32>) -> (tensor<2x4xf32>, tensor<?xf32>) {
  %like = magi.full_like %x {fill_value = 1.5 : f64, dtype = f32} : (tensor<?x4xf32>) -> tensor<2x4xf32>
  %c0 = arith.constant 0.0 : f64
  %c7 = arith.constant 7 : index
  %c1 = arith.constant 1.0 : f64
  %ar = magi.arange %c0, %c7, %c1 {dtype = f32} : (f64, index, f64) -> tensor<?xf32>
  return %like, %ar : tensor<2x4xf32>, tensor<?xf32>
}
