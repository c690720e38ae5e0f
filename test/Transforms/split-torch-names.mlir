// A torch name without an overload stands for every overload, one with an
// overload for that one: aten::add.Tensor names magi.add (declared as
// aten::add), aten::topk names the opaque aten::topk.default, and
// aten::neg.out names nothing (magi.neg stands for aten::neg.default).
// RUN: magi-opt %s -magi-split='splitting-ops=aten::add.Tensor,aten::topk,aten::neg.out' 2>&1 | FileCheck %s --check-prefix=OVERLOAD
// OVERLOAD: warning: splitting-op pattern 'aten::neg.out' matched no op
// OVERLOAD-LABEL: func.func private @overloads_piece_0
// OVERLOAD-SAME: magi.is_splitting = false
// OVERLOAD-NEXT: magi.neg
// OVERLOAD-LABEL: func.func private @overloads_piece_1
// OVERLOAD-SAME: magi.is_splitting = true
// OVERLOAD-NEXT: magi.add
// OVERLOAD-LABEL: func.func private @overloads_piece_2
// OVERLOAD-SAME: magi.is_splitting = true
// OVERLOAD-NEXT: magi.opaque "aten::topk.default"
func.func @overloads(%x: tensor<4x8xf32>) -> tensor<4x2xf32> {
  %n = magi.neg %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %a = magi.add %n, %n : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %v, %i = magi.opaque "aten::topk.default"(%a) {k = 2 : i64, magi.operand_names = ["self"]} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  return %v : tensor<4x2xf32>
}
