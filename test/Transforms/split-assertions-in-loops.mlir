// RUN: magi-opt %s -split-input-file -magi-split | FileCheck %s
// A runtime assertion inside a while loop's body is a graph check the
// runtime tests when a symbol it reads is bound, so the loop is a loop of
// the runtime only when every such assertion reads a value computed inside
// it and nothing but symbolic arithmetic. Otherwise the loop stays in a
// piece (printed before the function), why in magi.not_a_runtime_loop.

// The assertion reads the body's .item(): a loop of the runtime, the
// assertion and its copied arithmetic left in the body beside the calls.
// CHECK-LABEL: func.func @reads_inside
// CHECK:       scf.while
// CHECK:       } do {
// CHECK:         %[[READ:.*]] = func.call @reads_inside_piece_{{[0-9]+}}(
// CHECK:         %[[LE:.*]] = magi.sym_compare "le" %[[READ]], %{{.*}} {magi.host_arithmetic}
// CHECK-NEXT:    magi.assert_symbolic %[[LE]], "k <= 3"
// CHECK-NOT:   magi.not_a_runtime_loop
func.func @reads_inside(%n: tensor<i64>) -> tensor<i64> {
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : i64
  %0 = scf.while (%a = %n) : (tensor<i64>) -> tensor<i64> {
    %z = arith.constant 0 : i64
    %gt = magi.gt %a, %z : (tensor<i64>, i64) -> tensor<i1>
    %c = tensor.extract %gt[] : tensor<i1>
    scf.condition(%c) %a : tensor<i64>
  } do {
  ^bb0(%b: tensor<i64>):
    %k = magi.item %b {symbol = "k"} : tensor<i64> -> index
    %le = magi.sym_compare "le" %k, %c3
    magi.assert_symbolic %le, "k <= 3"
    %next = magi.sub %b, %c1 : (tensor<i64>, i64) -> tensor<i64>
    scf.yield %next : tensor<i64>
  }
  return %0 : tensor<i64>
}

// -----

// The assertion reads only a symbol of the inputs: checked before the run,
// it would fail even when the body never runs.
// CHECK-LABEL: func.func private @reads_outside_piece_0
// CHECK: scf.while
// CHECK: magi.not_a_runtime_loop = "it holds a runtime assertion ('s0 <= 3') that reads no value computed inside it: the artifact would check it before the run, whether its part runs or not"
func.func @reads_outside(%n: tensor<i64>, %x: tensor<?xf32>) -> tensor<i64> {
  %s0 = magi.symbolic_int "s0" min 1 max 8
  magi.bind_symbolic_shape %x, [%s0], affine_map<()[s0] -> (s0)> : tensor<?xf32>
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : i64
  %0 = scf.while (%a = %n) : (tensor<i64>) -> tensor<i64> {
    %z = arith.constant 0 : i64
    %gt = magi.gt %a, %z : (tensor<i64>, i64) -> tensor<i1>
    %c = tensor.extract %gt[] : tensor<i1>
    scf.condition(%c) %a : tensor<i64>
  } do {
  ^bb0(%b: tensor<i64>):
    %le = magi.sym_compare "le" %s0, %c3
    magi.assert_symbolic %le, "s0 <= 3"
    %next = magi.sub %b, %c1 : (tensor<i64>, i64) -> tensor<i64>
    scf.yield %next : tensor<i64>
  }
  return %0 : tensor<i64>
}

// -----

// The assertion reads the size of a tensor no symbol names: not symbolic
// arithmetic the artifact can check.
// CHECK-LABEL: func.func private @reads_a_size_piece_0
// CHECK: scf.while
// CHECK: magi.not_a_runtime_loop = "it holds a runtime assertion ('n <= 3') that reads 'magi.sym_size', which the artifact cannot check"
func.func @reads_a_size(%n: tensor<i64>, %x: tensor<?xf32>) -> tensor<i64> {
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : i64
  %0 = scf.while (%a = %n) : (tensor<i64>) -> tensor<i64> {
    %z = arith.constant 0 : i64
    %gt = magi.gt %a, %z : (tensor<i64>, i64) -> tensor<i1>
    %c = tensor.extract %gt[] : tensor<i1>
    scf.condition(%c) %a : tensor<i64>
  } do {
  ^bb0(%b: tensor<i64>):
    %size = magi.sym_size %x, 0 : tensor<?xf32>
    %le = magi.sym_compare "le" %size, %c3
    magi.assert_symbolic %le, "n <= 3"
    %next = magi.sub %b, %c1 : (tensor<i64>, i64) -> tensor<i64>
    scf.yield %next : tensor<i64>
  }
  return %0 : tensor<i64>
}
