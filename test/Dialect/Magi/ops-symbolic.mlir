// RUN: magi-opt %s | FileCheck %s
// RUN: magi-opt %s | magi-opt | FileCheck %s
// RUN: magi-opt %s -emit-bytecode | magi-opt | FileCheck %s
// RUN: magi-opt %s --verify-roundtrip | FileCheck %s
// RUN: magi-opt %s -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Positive tests for the symbolic-integer ops: magi.symbolic_int,
// magi.bind_symbolic_shape, magi.sym_size and the magi.sym_* arithmetic.

// CHECK-DAG: #[[$MAP2:.+]] = affine_map<()[s0, s1] -> (1, s0 + 1, s0 * s1)>
// CHECK-DAG: #[[$MAP1:.+]] = affine_map<()[s0] -> (1, s0)>
// CHECK-DAG: #[[$MAP0:.+]] = affine_map<() -> (2, 3)>

// CHECK-LABEL: func.func @symbolic_int
func.func @symbolic_int() -> (index, index, index) {
  // The result is named after the symbol.
  // CHECK: %[[S0:s0]] = magi.symbolic_int "s0" min 2 max 4096
  %s0 = magi.symbolic_int "s0" min 2 max 4096
  // An absent max means unbounded.
  // CHECK-NEXT: %[[S70:s70]] = magi.symbolic_int "s70" min 0{{$}}
  %s70 = magi.symbolic_int "s70" min 0
  // A one-point range and a negative bound are fine.
  // CHECK-NEXT: %[[S2:s2]] = magi.symbolic_int "s2" min -5 max -5
  %s2 = magi.symbolic_int "s2" min -5 max -5
  // CHECK-NEXT: return %[[S0]], %[[S70]], %[[S2]] : index, index, index
  return %s0, %s70, %s2 : index, index, index
}

// GENERIC-LABEL: sym_name = "symbolic_int"}>
// GENERIC: "magi.symbolic_int"() <{max_val = 4096 : i64, min_val = 2 : i64, name = "s0"}> : () -> index
// GENERIC: "magi.symbolic_int"() <{min_val = 0 : i64, name = "s70"}> : () -> index

// CHECK-LABEL: func.func @symbolic_int_same_name
func.func @symbolic_int_same_name() -> (index, index) {
  // Two declarations of one name get distinct SSA names.
  // CHECK: %[[A:s0]] = magi.symbolic_int "s0" min 1
  // CHECK-NEXT: %[[B:s0_[0-9]+]] = magi.symbolic_int "s0" min 1
  %a = magi.symbolic_int "s0" min 1
  %b = magi.symbolic_int "s0" min 1
  // CHECK-NEXT: return %[[A]], %[[B]]
  return %a, %b : index, index
}

// CHECK-LABEL: func.func @bind_symbolic_shape
// CHECK-SAME: (%[[X:.*]]: tensor<1x?xi64>, %[[Y:.*]]: tensor<1x?x?xf32>, %[[Z:.*]]: tensor<2x3xf16>, %[[ARG:.*]]: index)
func.func @bind_symbolic_shape(%x: tensor<1x?xi64>, %y: tensor<1x?x?xf32>,
                               %z: tensor<2x3xf16>, %arg: index) {
  // CHECK: %[[S0:.*]] = magi.symbolic_int "s0"
  %s0 = magi.symbolic_int "s0" min 2 max 4096
  // CHECK: %[[S1:.*]] = magi.symbolic_int "s1"
  %s1 = magi.symbolic_int "s1" min 1
  // CHECK: magi.bind_symbolic_shape %[[X]], [%[[S0]]], #[[$MAP1]] : tensor<1x?xi64>
  magi.bind_symbolic_shape %x, [%s0], affine_map<()[s0] -> (1, s0)> : tensor<1x?xi64>
  // Dynamic dimensions bound to expressions of several symbols.
  // CHECK: magi.bind_symbolic_shape %[[Y]], [%[[S0]], %[[S1]]], #[[$MAP2]] : tensor<1x?x?xf32>
  magi.bind_symbolic_shape %y, [%s0, %s1], affine_map<()[s0, s1] -> (1, s0 + 1, s0 * s1)> : tensor<1x?x?xf32>
  // A fully static tensor, with no symbols.
  // CHECK: magi.bind_symbolic_shape %[[Z]], [], #[[$MAP0]] : tensor<2x3xf16>
  magi.bind_symbolic_shape %z, [], affine_map<() -> (2, 3)> : tensor<2x3xf16>
  // A block argument of index type may stand for a symbol; extra attributes
  // are kept.
  // CHECK: magi.bind_symbolic_shape %[[X]], [%[[ARG]]], #[[$MAP1]] {note = "x"} : tensor<1x?xi64>
  magi.bind_symbolic_shape %x, [%arg], affine_map<()[s0] -> (1, s0)> {note = "x"} : tensor<1x?xi64>
  return
}

// CHECK-LABEL: func.func @sym_size
// CHECK-SAME: (%[[X:.*]]: tensor<1x?x8xf32>)
func.func @sym_size(%x: tensor<1x?x8xf32>) -> (index, index) {
  // CHECK: %[[D1:.*]] = magi.sym_size %[[X]], 1 : tensor<1x?x8xf32>
  %d1 = magi.sym_size %x, 1 : tensor<1x?x8xf32>
  // A static dimension is allowed too (it folds; see folds.mlir).
  // CHECK: %[[D2:.*]] = magi.sym_size %[[X]], 2 : tensor<1x?x8xf32>
  %d2 = magi.sym_size %x, 2 : tensor<1x?x8xf32>
  // CHECK: return %[[D1]], %[[D2]]
  return %d1, %d2 : index, index
}

// CHECK-LABEL: func.func @sym_arith
// CHECK-SAME: (%[[A:.*]]: index, %[[B:.*]]: index)
func.func @sym_arith(%a: index, %b: index) -> (index, index, index, index, index, index, index) {
  // CHECK: %[[ADD:.*]] = magi.sym_add %[[A]], %[[B]]{{$}}
  %add = magi.sym_add %a, %b
  // CHECK: %[[SUB:.*]] = magi.sym_sub %[[A]], %[[B]]{{$}}
  %sub = magi.sym_sub %a, %b
  // CHECK: %[[MUL:.*]] = magi.sym_mul %[[A]], %[[B]]{{$}}
  %mul = magi.sym_mul %a, %b
  // CHECK: %[[DIV:.*]] = magi.sym_floordiv %[[A]], %[[B]]{{$}}
  %div = magi.sym_floordiv %a, %b
  // CHECK: %[[MOD:.*]] = magi.sym_mod %[[A]], %[[B]]{{$}}
  %mod = magi.sym_mod %a, %b
  // CHECK: %[[MIN:.*]] = magi.sym_min %[[A]], %[[B]]{{$}}
  %min = magi.sym_min %a, %b
  // CHECK: %[[MAX:.*]] = magi.sym_max %[[A]], %[[B]] {tag}
  %max = magi.sym_max %a, %b {tag}
  // CHECK: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[MOD]], %[[MIN]], %[[MAX]]
  return %add, %sub, %mul, %div, %mod, %min, %max : index, index, index, index, index, index, index
}

// GENERIC-LABEL: sym_name = "sym_arith"
// GENERIC: "magi.sym_add"(%{{.*}}, %{{.*}}) : (index, index) -> index
// GENERIC: "magi.sym_floordiv"(%{{.*}}, %{{.*}}) : (index, index) -> index

// CHECK-LABEL: func.func @symbolic_chain
func.func @symbolic_chain(%x: tensor<1x?xi64>) -> index {
  // The shape of the IR that import produces: a symbol, its binding, and
  // arithmetic on sizes.
  // CHECK: %[[S:.*]] = magi.symbolic_int "s0" min 2 max 4096
  // CHECK: magi.bind_symbolic_shape %{{.*}}, [%[[S]]]
  // CHECK: %[[N:.*]] = magi.sym_size %{{.*}}, 1
  // CHECK: %[[R:.*]] = magi.sym_add %[[N]], %[[S]]
  // CHECK: return %[[R]] : index
  %s = magi.symbolic_int "s0" min 2 max 4096
  magi.bind_symbolic_shape %x, [%s], affine_map<()[s0] -> (1, s0)> : tensor<1x?xi64>
  %n = magi.sym_size %x, 1 : tensor<1x?xi64>
  %r = magi.sym_add %n, %s
  return %r : index
}

// CHECK-LABEL: func.func @sym_bools
func.func @sym_bools(%a: index, %b: index) {
  // SymBools and the runtime assertions on them (aten._assert_scalar).
  // CHECK: %[[E:.*]] = magi.sym_compare "eq" %{{.*}}, %{{.*}}
  // CHECK: %[[L:.*]] = magi.sym_compare "lt" %{{.*}}, %{{.*}}
  // CHECK: %[[N:.*]] = magi.sym_not %[[L]]
  // CHECK: %[[A:.*]] = magi.sym_and %[[E]], %[[N]]
  // CHECK: %[[O:.*]] = magi.sym_or %[[A]], %[[L]]
  // CHECK: magi.assert_symbolic %[[O]], "a == b and not a < b, or a < b"
  %e = magi.sym_compare "eq" %a, %b
  %l = magi.sym_compare "lt" %a, %b
  %n = magi.sym_not %l
  %x = magi.sym_and %e, %n
  %o = magi.sym_or %x, %l
  magi.assert_symbolic %o, "a == b and not a < b, or a < b"
  return
}

// magi.item: an integer (or bool) element as an index, bounded or not and
// named after its SymInt or not, clamped (any value, acting as its clamp
// to [0, bound]) or not; a float element as an f64.
// CHECK-LABEL: func.func @item
// CHECK: magi.item %{{.*}} bound %{{.*}} {symbol = "u0"} : tensor<i64> -> index
// CHECK: magi.item %{{.*}} bound %{{.*}} {clamped, symbol = "u1"} : tensor<i64> -> index
// CHECK: magi.item %{{.*}} : tensor<1x1xi1> -> index
// CHECK: magi.item %{{.*}} : tensor<?xbf16> -> f64
// GENERIC-LABEL: "func.func"() <{function_type = (tensor<i64>, tensor<1x1xi1>, tensor<?xbf16>, index)
// GENERIC: "magi.item"(%{{.*}}, %{{.*}}) <{symbol = "u0"}> : (tensor<i64>, index) -> index
// GENERIC: "magi.item"(%{{.*}}, %{{.*}}) <{clamped, symbol = "u1"}> : (tensor<i64>, index) -> index
func.func @item(%count: tensor<i64>, %flag: tensor<1x1xi1>, %scale: tensor<?xbf16>, %most: index) -> (index, index, index, f64) {
  %n = magi.item %count bound %most {symbol = "u0"} : tensor<i64> -> index
  %i = magi.item %count bound %most {clamped, symbol = "u1"} : tensor<i64> -> index
  %b = magi.item %flag : tensor<1x1xi1> -> index
  %s = magi.item %scale : tensor<?xbf16> -> f64
  return %n, %i, %b, %s : index, index, index, f64
}
