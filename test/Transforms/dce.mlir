// RUN: magi-opt %s -split-input-file -magi-dce | FileCheck %s
// The canonicalizer drops a lone binding of an op it uses alone (and then the
// op), but keeps a chain whose ops are also bound, and an op bound twice.
// RUN: magi-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefix=CANON

// magi-dce: an op without side effects whose results are used by nothing but
// magi.bind_symbolic_shape is erased with its bindings.
// (Every function keeps its symbol alive with a real use, a view: see the
// report for what happens to a symbol used only by bindings.)

// An op used only by its binding goes, with the binding; a chain of such ops
// goes entirely; what is returned, its binding and the argument's binding stay.
// CHECK-LABEL: func.func @bound_only
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
// CHECK-NEXT: %[[S:.*]] = magi.symbolic_int "s0"
// CHECK-NEXT: magi.bind_symbolic_shape %[[X]], [%[[S]]]
// CHECK-NEXT: %[[V:.*]] = magi.view %[[X]] [%[[S]], 8]
// CHECK-NEXT: magi.bind_symbolic_shape %[[V]], [%[[S]]]
// CHECK-NEXT: return %[[V]]
// CHECK-NOT: magi.neg
// CHECK-NOT: magi.exp
// CANON-LABEL: func.func @bound_only
// CANON-NOT: magi.neg
// CANON: magi.exp
// CANON: magi.sin
func.func @bound_only(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %s0 = magi.symbolic_int "s0" min 2 max 64
  magi.bind_symbolic_shape %x, [%s0], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %v = magi.view %x [%s0, 8] : tensor<?x8xf32> -> tensor<?x8xf32>
  magi.bind_symbolic_shape %v, [%s0], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %dead = magi.neg %v : (tensor<?x8xf32>) -> tensor<?x8xf32>
  magi.bind_symbolic_shape %dead, [%s0], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %a = magi.exp %v : (tensor<?x8xf32>) -> tensor<?x8xf32>
  magi.bind_symbolic_shape %a, [%s0], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %b = magi.sin %a : (tensor<?x8xf32>) -> tensor<?x8xf32>
  magi.bind_symbolic_shape %b, [%s0], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  magi.bind_symbolic_shape %b, [%s0], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  return %v : tensor<?x8xf32>
}

// -----

// An op with a real use stays (with its binding), so does what it uses.
// CHECK-LABEL: func.func @real_use
// CHECK: %[[A:.*]] = magi.exp
// CHECK-NEXT: magi.bind_symbolic_shape %[[A]]
// CHECK-NEXT: %[[B:.*]] = magi.sin %[[A]]
// CHECK-NEXT: return %[[B]]
func.func @real_use(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %s0 = magi.symbolic_int "s0" min 2 max 64
  %v = magi.view %x [%s0, 8] : tensor<?x8xf32> -> tensor<?x8xf32>
  %a = magi.exp %v : (tensor<?x8xf32>) -> tensor<?x8xf32>
  magi.bind_symbolic_shape %a, [%s0], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %b = magi.sin %a : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %b : tensor<?x8xf32>
}

// -----

// Ops with side effects stay even when only bound (or not used at all): the
// opaque op, an assertion.
// CHECK-LABEL: func.func @side_effects
// CHECK: %[[O:.*]] = magi.opaque "mylib::op"
// CHECK-NEXT: magi.bind_symbolic_shape %[[O]]
// CHECK-NEXT: magi.opaque "mylib::unused"
// CHECK-NEXT: magi.assert_tensor_metadata
// CHECK-NEXT: return
func.func @side_effects(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %s0 = magi.symbolic_int "s0" min 2 max 64
  %v = magi.view %x [%s0, 8] : tensor<?x8xf32> -> tensor<?x8xf32>
  %o = magi.opaque "mylib::op"(%v) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  magi.bind_symbolic_shape %o, [%s0], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %u = magi.opaque "mylib::unused"(%v) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  magi.assert_tensor_metadata %v {dtype = f32} : tensor<?x8xf32>
  return %v : tensor<?x8xf32>
}

// -----

// Unused pure ops and constants go too (no binding needed); multi-result ops
// go when no result is really used.
// CHECK-LABEL: func.func @unused
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @unused(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = arith.constant 2.0 : f64
  %a = magi.mul %x, %c : (tensor<4x8xf32>, f64) -> tensor<4x8xf32>
  %r, %m, %s = magi.native_layer_norm %x {eps = 1.0e-05 : f64, normalized_ndim = 1 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %x : tensor<4x8xf32>
}

// -----

// A multi-result op with one result used stays whole.
// CHECK-LABEL: func.func @one_result_used
// CHECK-NEXT: %[[R:.*]], %{{.*}}, %{{.*}} = magi.native_layer_norm
// CHECK-NEXT: return %[[R]]
func.func @one_result_used(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r, %m, %s = magi.native_layer_norm %x {eps = 1.0e-05 : f64, normalized_ndim = 1 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %r : tensor<4x8xf32>
}
