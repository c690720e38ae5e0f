// magi-compile describes a top-level while loop only as magi-split leaves
// it (its condition a value read on the host, compared with 0): a split
// graph holding another loop is refused by name.
// RUN: rm -rf %t
// RUN: not magi-compile %s -o %t --cache-mode=off --no-cubin 2>&1 | FileCheck %s
// CHECK: error: a while loop of the split graph has no condition read on the host (magi.loop_condition): run magi-split on it
// RUN: not ls %t/manifest.json
module {
  func.func private @main_piece_0(%arg0: tensor<i1>) -> tensor<i1> attributes {magi.graph_index = 0 : i64, magi.is_splitting = false, magi.piece_index = 0 : i64} {
    return %arg0 : tensor<i1>
  }
  func.func @main(%arg0: tensor<i1> {magi.input_kind = "user_input", magi.name = "p"}) -> (tensor<i1> {magi.output_kind = "user_output"}) attributes {magi.split} {
    %0 = scf.while (%a = %arg0) : (tensor<i1>) -> tensor<i1> {
      %c = tensor.extract %a[] : tensor<i1>
      scf.condition(%c) %a : tensor<i1>
    } do {
    ^bb0(%b: tensor<i1>):
      %n = func.call @main_piece_0(%b) : (tensor<i1>) -> tensor<i1>
      scf.yield %n : tensor<i1>
    }
    return %0 : tensor<i1>
  }
}
