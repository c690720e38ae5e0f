// RUN: magi-opt %s -split-input-file -magi-split | FileCheck %s
// RUN: magi-opt %s -split-input-file -magi-split='splitting-ops=magi.softmax' | FileCheck %s --check-prefix=MLIRNAME
// RUN: magi-opt %s -split-input-file -magi-split='splitting-ops=magi.*attention*' | FileCheck %s --check-prefix=GLOB
// RUN: magi-opt %s -split-input-file -magi-split='splitting-ops=aten::_softmax.default' | FileCheck %s --check-prefix=ATEN
// RUN: magi-opt %s -split-input-file -magi-split='splitting-ops=aten::scaled_dot_product_attention' | FileCheck %s --check-prefix=ATEN-SDPA
// RUN: magi-opt %s -split-input-file -magi-split='splitting-ops=mylib::my_op.default' | FileCheck %s --check-prefix=OPAQUE
// RUN: magi-opt %s -split-input-file -magi-split='splitting-ops=arith.muli' | FileCheck %s --check-prefix=ARITH
// The remaining runs take the whole file as one module (the split markers
// are only comments then).
// RUN: magi-opt %s -magi-split='splitting-ops=magi.softmax,magi.nothing*' 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN
// RUN: magi-opt %s -magi-split='function=helper' | FileCheck %s --check-prefix=FUNC
// RUN: not magi-opt %s -magi-split='function=nope' 2>&1 | FileCheck %s --check-prefix=NOFUNC
// RUN: not magi-opt %s -magi-split='splitting-ops=[abc' 2>&1 | FileCheck %s --check-prefix=BADGLOB
// RUN: magi-opt %s -magi-split='splitting-ops=arith.muli dot-file=%t.dot' > /dev/null
// RUN: FileCheck %s --check-prefix=DOT < %t.dot

// magi-split: splitting ops alone in splitting pieces, the ops between them in
// compute pieces, nothing reordered; the top-level function becomes the calls.

// Compute, attention, compute. Values crossing pieces become results and
// arguments; the symbol stays on top and is passed as an argument marked
// magi.symbol; the constant is cloned into each piece that uses it (and
// leaves the top level); bindings of incoming arguments are repeated in the
// pieces, bindings of piece results are repeated on top.
// CHECK-LABEL: func.func private @main_piece_0
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x?x32xf32>, %[[S:.*]]: index {magi.symbol = "s0"})
// CHECK-SAME: -> (tensor<1x4x?x32xf32>, tensor<1x4x?x32xf32>)
// CHECK-SAME: attributes {magi.graph_index = 0 : i64, magi.is_splitting = false, magi.piece_index = 0 : i64}
// CHECK-NEXT: %[[C:.*]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT: magi.bind_symbolic_shape %[[X]], [%[[S]]], #[[MAP:.*]] : tensor<1x4x?x32xf32>
// CHECK-NEXT: %[[Q:.*]] = magi.mul %[[X]], %[[C]]
// CHECK-NEXT: magi.bind_symbolic_shape %[[Q]], [%[[S]]], #[[MAP]]
// CHECK-NEXT: %[[K:.*]] = magi.sin %[[X]]
// CHECK-NEXT: magi.bind_symbolic_shape %[[K]], [%[[S]]], #[[MAP]]
// CHECK-NEXT: return %[[Q]], %[[K]] : tensor<1x4x?x32xf32>, tensor<1x4x?x32xf32>
// CHECK-NEXT: }
// CHECK-LABEL: func.func private @main_piece_1
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x?x32xf32>, %[[K:.*]]: tensor<1x4x?x32xf32>, %[[V:.*]]: tensor<1x4x?x32xf32>, %[[S:.*]]: index {magi.symbol = "s0"})
// CHECK-SAME: -> tensor<1x4x?x32xf32>
// CHECK-SAME: attributes {magi.is_splitting = true, magi.piece_index = 1 : i64}
// CHECK-NOT: magi.graph_index
// CHECK-NEXT: magi.bind_symbolic_shape %[[Q]], [%[[S]]]
// CHECK-NEXT: magi.bind_symbolic_shape %[[K]], [%[[S]]]
// CHECK-NEXT: magi.bind_symbolic_shape %[[V]], [%[[S]]]
// CHECK-NEXT: %[[A:.*]] = magi.attention %[[Q]], %[[K]], %[[V]] {is_causal = true}
// CHECK-NEXT: magi.bind_symbolic_shape %[[A]], [%[[S]]]
// CHECK-NEXT: return %[[A]]
// CHECK-NEXT: }
// CHECK-LABEL: func.func private @main_piece_2
// CHECK-SAME: (%[[A:.*]]: tensor<1x4x?x32xf32>, %[[Q:.*]]: tensor<1x4x?x32xf32>, %[[S:.*]]: index {magi.symbol = "s0"}) -> tensor<1x4x?x32xf32>
// CHECK-SAME: attributes {magi.graph_index = 1 : i64, magi.is_splitting = false, magi.piece_index = 2 : i64}
// CHECK-NEXT: %[[C:.*]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT: magi.bind_symbolic_shape %[[A]], [%[[S]]]
// CHECK-NEXT: magi.bind_symbolic_shape %[[Q]], [%[[S]]]
// CHECK-NEXT: %[[O:.*]] = magi.mul %[[A]], %[[C]]
// CHECK-NEXT: %[[R:.*]] = magi.add %[[O]], %[[Q]]
// CHECK-NEXT: return %[[R]]
// CHECK-NEXT: }
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x?x32xf32>, %{{.*}}: tensor<32x32xf32>) -> tensor<1x4x?x32xf32> attributes {magi.split} {
// CHECK-NEXT: %[[S:.*]] = magi.symbolic_int "s0" min 2 max 1024
// CHECK-NEXT: magi.bind_symbolic_shape %[[X]], [%[[S]]]
// CHECK-NEXT: %[[P0:.*]]:2 = call @main_piece_0(%[[X]], %[[S]]) : (tensor<1x4x?x32xf32>, index) -> (tensor<1x4x?x32xf32>, tensor<1x4x?x32xf32>)
// CHECK-NEXT: magi.bind_symbolic_shape %[[P0]]#0, [%[[S]]]
// CHECK-NEXT: magi.bind_symbolic_shape %[[P0]]#1, [%[[S]]]
// CHECK-NEXT: %[[P1:.*]] = call @main_piece_1(%[[P0]]#0, %[[P0]]#1, %[[X]], %[[S]])
// CHECK-NEXT: magi.bind_symbolic_shape %[[P1]], [%[[S]]]
// CHECK-NEXT: %[[P2:.*]] = call @main_piece_2(%[[P1]], %[[P0]]#0, %[[S]])
// CHECK-NEXT: return %[[P2]]
// CHECK-NEXT: }
// With other splitting ops, the attention is just a compute op.
// MLIRNAME-LABEL: func.func private @main_piece_0
// MLIRNAME-SAME: magi.is_splitting = false
// MLIRNAME: magi.attention
// MLIRNAME-LABEL: func.func @main
// MLIRNAME-NOT: @main_piece_1
// GLOB-LABEL: func.func private @main_piece_1
// GLOB-SAME: magi.is_splitting = true
// GLOB-NEXT: magi.bind_symbolic_shape
// GLOB: magi.attention
// GLOB-LABEL: func.func @main
// GLOB-COUNT-3: call @main_piece_
func.func @main(%x: tensor<1x4x?x32xf32>, %w: tensor<32x32xf32>) -> tensor<1x4x?x32xf32> {
  %s0 = magi.symbolic_int "s0" min 2 max 1024
  magi.bind_symbolic_shape %x, [%s0], affine_map<()[s0] -> (1, 4, s0, 32)> : tensor<1x4x?x32xf32>
  %c = arith.constant 2.0 : f64
  %q = magi.mul %x, %c : (tensor<1x4x?x32xf32>, f64) -> tensor<1x4x?x32xf32>
  magi.bind_symbolic_shape %q, [%s0], affine_map<()[s0] -> (1, 4, s0, 32)> : tensor<1x4x?x32xf32>
  %k = magi.sin %x : (tensor<1x4x?x32xf32>) -> tensor<1x4x?x32xf32>
  magi.bind_symbolic_shape %k, [%s0], affine_map<()[s0] -> (1, 4, s0, 32)> : tensor<1x4x?x32xf32>
  %a = magi.attention %q, %k, %x {is_causal = true} : (tensor<1x4x?x32xf32>, tensor<1x4x?x32xf32>, tensor<1x4x?x32xf32>) -> tensor<1x4x?x32xf32>
  magi.bind_symbolic_shape %a, [%s0], affine_map<()[s0] -> (1, 4, s0, 32)> : tensor<1x4x?x32xf32>
  %o = magi.mul %a, %c : (tensor<1x4x?x32xf32>, f64) -> tensor<1x4x?x32xf32>
  %r = magi.add %o, %q : (tensor<1x4x?x32xf32>, tensor<1x4x?x32xf32>) -> tensor<1x4x?x32xf32>
  return %r : tensor<1x4x?x32xf32>
}

// -----

// Two splitting ops in a row: no empty compute piece between them; graph
// indices are dense over the compute pieces (0, 1) while piece indices count
// every piece (0..3).
// CHECK-LABEL: func.func private @two_piece_0
// CHECK-SAME: attributes {magi.graph_index = 0 : i64, magi.is_splitting = false, magi.piece_index = 0 : i64}
// CHECK-NEXT: magi.neg
// CHECK-LABEL: func.func private @two_piece_1
// CHECK-SAME: attributes {magi.is_splitting = true, magi.piece_index = 1 : i64}
// CHECK-NEXT: magi.attention
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @two_piece_2
// CHECK-SAME: (%[[B:.*]]: tensor<4x8xf32>, %[[A:.*]]: tensor<4x8xf32>, %[[X:.*]]: tensor<4x8xf32>)
// CHECK-SAME: attributes {magi.is_splitting = true, magi.piece_index = 2 : i64}
// CHECK-NEXT: magi.attention %[[B]], %[[A]], %[[X]]
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @two_piece_3
// CHECK-SAME: attributes {magi.graph_index = 1 : i64, magi.is_splitting = false, magi.piece_index = 3 : i64}
// CHECK-NEXT: magi.exp
// CHECK-NOT: @two_piece_4
// CHECK-LABEL: func.func @two
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[P0:.*]] = call @two_piece_0(%[[X]])
// CHECK-NEXT: %[[P1:.*]] = call @two_piece_1(%[[P0]])
// CHECK-NEXT: %[[P2:.*]] = call @two_piece_2(%[[P1]], %[[P0]], %[[X]])
// CHECK-NEXT: %[[P3:.*]] = call @two_piece_3(%[[P2]])
// CHECK-NEXT: return %[[P3]]
func.func @two(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = magi.neg %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = magi.attention %a, %a, %a : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = magi.attention %b, %a, %x : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = magi.exp %c : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// A splitting op first: piece 0 is splitting, the first compute piece is
// piece 1 with graph index 0. The efficient-attention op splits by default
// too; its unused results are not piece results.
// CHECK-LABEL: func.func private @first_piece_0
// CHECK-SAME: -> tensor<2x4x8x16xf32> attributes {magi.is_splitting = true, magi.piece_index = 0 : i64}
// CHECK-NEXT: %[[R:.*]], %{{.*}}, %{{.*}}, %{{.*}} = magi.scaled_dot_product_efficient_attention
// CHECK-NEXT: return %[[R]] : tensor<2x4x8x16xf32>
// CHECK-LABEL: func.func private @first_piece_1
// CHECK-SAME: attributes {magi.graph_index = 0 : i64, magi.is_splitting = false, magi.piece_index = 1 : i64}
// CHECK-LABEL: func.func @first
// CHECK-NEXT: call @first_piece_0
// CHECK-NEXT: call @first_piece_1
// CHECK-NEXT: return
func.func @first(%q: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  %r, %lse, %seed, %off = magi.scaled_dot_product_efficient_attention %q, %q, %q : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x0xf32>, tensor<i64>, tensor<i64>)
  %d = magi.exp %r : (tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  return %d : tensor<2x4x8x16xf32>
}

// -----

// No splitting op: one compute piece with everything; a tensor constant is
// cloned into it; a symbol used by an op (not only by a binding) is passed.
// CHECK-LABEL: func.func private @none_piece_0
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>, %[[S:.*]]: index {magi.symbol = "s0"}) -> tensor<?x8xf32>
// CHECK-SAME: attributes {magi.graph_index = 0 : i64, magi.is_splitting = false, magi.piece_index = 0 : i64}
// CHECK-NEXT: %[[C:.*]] = magi.constant dense<1.000000e+00> : tensor<8xf32>
// CHECK-NEXT: %[[V:.*]] = magi.view %[[X]] [%[[S]], 8]
// CHECK-NEXT: %[[E:.*]] = magi.add %[[V]], %[[C]]
// CHECK-NEXT: return %[[E]]
// CHECK-NOT: @none_piece_1
// CHECK-LABEL: func.func @none
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
// CHECK-NEXT: %[[S:.*]] = magi.symbolic_int "s0"
// CHECK-NEXT: %[[R:.*]] = call @none_piece_0(%[[X]], %[[S]])
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: magi.constant
func.func @none(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %s0 = magi.symbolic_int "s0" min 2 max 64
  %c = magi.constant dense<1.0> : tensor<8xf32>
  %v = magi.view %x [%s0, 8] : tensor<?x8xf32> -> tensor<?x8xf32>
  %e = magi.add %v, %c : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  return %e : tensor<?x8xf32>
}

// -----

// A private function is not split by default; `function` names it.
// CHECK-LABEL: func.func private @helper
// CHECK-NEXT: magi.attention
// CHECK-NOT: @helper_piece
// FUNC-LABEL: func.func private @helper_piece_0
// FUNC-SAME: magi.is_splitting = true
// FUNC-LABEL: func.func private @helper
// FUNC-NEXT: call @helper_piece_0
func.func private @helper(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %b = magi.attention %x, %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

// Splitting-op names: the MLIR name (magi.softmax), the ATen name as
// imported with its overload (aten::_softmax.default), and the marker
// attribute magi.splitting on any op.
// CHECK-LABEL: func.func private @names_piece_0
// CHECK-NEXT: magi.softmax
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @names_piece_1
// CHECK-SAME: magi.is_splitting = true
// CHECK-NEXT: magi.exp {{.*}}{magi.splitting}
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @names_piece_2
// CHECK-SAME: magi.is_splitting = false
// CHECK-NEXT: magi.neg
// CHECK-NEXT: return
// CHECK-LABEL: func.func @names
// CHECK-COUNT-3: call @names_piece_
// MLIRNAME-LABEL: func.func private @names_piece_0
// MLIRNAME-SAME: {magi.is_splitting = true, magi.piece_index = 0 : i64}
// MLIRNAME-NEXT: magi.softmax
// MLIRNAME-NEXT: return
// MLIRNAME-LABEL: func.func private @names_piece_1
// MLIRNAME-SAME: {magi.is_splitting = true, magi.piece_index = 1 : i64}
// MLIRNAME-NEXT: magi.exp
// MLIRNAME-LABEL: func.func private @names_piece_2
// MLIRNAME-SAME: {magi.graph_index = 0 : i64, magi.is_splitting = false, magi.piece_index = 2 : i64}
// ATEN-LABEL: func.func private @names_piece_0
// ATEN-SAME: {magi.is_splitting = true, magi.piece_index = 0 : i64}
// ATEN-NEXT: magi.softmax
// ATEN-NEXT: return
// ATEN-LABEL: func.func private @names_piece_1
// ATEN-SAME: magi.is_splitting = true
// ATEN-NEXT: magi.exp
func.func @names(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = magi.softmax %x {dim = -1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = magi.exp %a {magi.splitting} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = magi.neg %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// magi.attention answers to aten::scaled_dot_product_attention; the glob
// magi.*attention* matches both attention ops.
// ATEN-SDPA-LABEL: func.func private @sdpa_piece_0
// ATEN-SDPA-SAME: magi.is_splitting = false
// ATEN-SDPA-LABEL: func.func private @sdpa_piece_1
// ATEN-SDPA-SAME: magi.is_splitting = true
// ATEN-SDPA-NEXT: magi.attention
// ATEN-SDPA-LABEL: func.func private @sdpa_piece_2
// ATEN-SDPA-SAME: magi.is_splitting = false
// ATEN-SDPA-NEXT: magi.scaled_dot_product_efficient_attention
// GLOB-LABEL: func.func private @sdpa_piece_1
// GLOB-SAME: magi.is_splitting = true
// GLOB-NEXT: magi.attention
// GLOB-LABEL: func.func private @sdpa_piece_2
// GLOB-SAME: magi.is_splitting = true
// GLOB-NEXT: magi.scaled_dot_product_efficient_attention
// GLOB-LABEL: func.func @sdpa
func.func @sdpa(%q: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  %n = magi.neg %q : (tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  %a = magi.attention %n, %n, %n : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  %r, %lse, %seed, %off = magi.scaled_dot_product_efficient_attention %a, %a, %a : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x0xf32>, tensor<i64>, tensor<i64>)
  return %r : tensor<2x4x8x16xf32>
}

// -----

// An opaque op by the name it carries.
// OPAQUE-LABEL: func.func private @opaque_piece_0
// OPAQUE-SAME: magi.is_splitting = false
// OPAQUE-NEXT: magi.neg
// OPAQUE-LABEL: func.func private @opaque_piece_1
// OPAQUE-SAME: magi.is_splitting = true
// OPAQUE-NEXT: magi.opaque "mylib::my_op.default"
// OPAQUE-NEXT: return
// OPAQUE-LABEL: func.func private @opaque_piece_2
// OPAQUE-SAME: magi.graph_index = 1 : i64, magi.is_splitting = false
// OPAQUE-NEXT: magi.opaque "mylib::other_op.default"
// OPAQUE-LABEL: func.func @opaque
// OPAQUE-COUNT-3: call @opaque_piece_
func.func @opaque(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = magi.neg %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = magi.opaque "mylib::my_op.default"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = magi.opaque "mylib::other_op.default"(%b) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// Any ops, not only magi's: split at arith.muli. The constant is cloned.
// ARITH-LABEL: func.func private @ints_piece_0
// ARITH-SAME: (%[[A:.*]]: i64, %[[B:.*]]: i64) -> i64
// ARITH-SAME: magi.graph_index = 0 : i64, magi.is_splitting = false, magi.piece_index = 0 : i64
// ARITH-NEXT: %[[C:.*]] = arith.constant 3 : i64
// ARITH-NEXT: %[[S:.*]] = arith.addi %[[A]], %[[B]]
// ARITH-NEXT: %[[T:.*]] = arith.addi %[[S]], %[[C]]
// ARITH-NEXT: return %[[T]] : i64
// ARITH-LABEL: func.func private @ints_piece_1
// ARITH-SAME: (%[[T:.*]]: i64, %[[B:.*]]: i64) -> i64
// ARITH-SAME: magi.is_splitting = true, magi.piece_index = 1 : i64
// ARITH-NEXT: %[[M:.*]] = arith.muli %[[T]], %[[B]]
// ARITH-NEXT: return %[[M]]
// ARITH-LABEL: func.func private @ints_piece_2
// ARITH-SAME: (%[[M:.*]]: i64) -> i64
// ARITH-SAME: magi.graph_index = 1 : i64, magi.is_splitting = false, magi.piece_index = 2 : i64
// ARITH-NEXT: %[[C:.*]] = arith.constant 3 : i64
// ARITH-NEXT: %[[R:.*]] = arith.subi %[[M]], %[[C]]
// ARITH-NEXT: return %[[R]]
// ARITH-LABEL: func.func @ints
// ARITH-SAME: (%[[A:.*]]: i64, %[[B:.*]]: i64) -> i64
// ARITH-NEXT: %[[P0:.*]] = call @ints_piece_0(%[[A]], %[[B]]) : (i64, i64) -> i64
// ARITH-NEXT: %[[P1:.*]] = call @ints_piece_1(%[[P0]], %[[B]]) : (i64, i64) -> i64
// ARITH-NEXT: %[[P2:.*]] = call @ints_piece_2(%[[P1]]) : (i64) -> i64
// ARITH-NEXT: return %[[P2]] : i64
func.func @ints(%a: i64, %b: i64) -> i64 {
  %c3 = arith.constant 3 : i64
  %s = arith.addi %a, %b : i64
  %t = arith.addi %s, %c3 : i64
  %m = arith.muli %t, %b : i64
  %r = arith.subi %m, %c3 : i64
  return %r : i64
}

// A pattern that matches no op is a warning (once per pattern that matches
// nothing in a module); one that matches does not warn.
// WARN: warning: splitting-op pattern 'magi.nothing*' matched no op
// WARN-NOT: pattern 'magi.softmax' matched no op
// WARN-NOT: error

// NOFUNC: error: no function named 'nope' to split

// BADGLOB: error: invalid splitting-op pattern '[abc': invalid glob pattern, unmatched '['

// The Graphviz file: one cluster per split function, a node per piece
// (splitting ones filled), an edge per value passed between pieces.
// DOT: digraph magi_split {
// DOT: subgraph cluster_ints {
// DOT-NEXT: label="@ints";
// DOT-NEXT: "ints_piece_0" [label="ints_piece_0\ncompute, graph_index 0, 2 ops"];
// DOT-NEXT: "ints_piece_1" [label="ints_piece_1\nsplitting: arith.muli", style=filled, fillcolor=lightblue];
// DOT-NEXT: "ints_piece_2" [label="ints_piece_2\ncompute, graph_index 1, 1 ops"];
// DOT-NEXT: "ints_piece_0" -> "ints_piece_1" [label="i64"];
// DOT-NEXT: "ints_piece_1" -> "ints_piece_2" [label="i64"];
// DOT-NEXT: }
// DOT-NEXT: }
