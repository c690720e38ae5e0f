// RUN: magi-opt %s -split-input-file -magi-mark-in-place-mutations | FileCheck %s

// magi-mark-in-place-mutations: the op computing a mutated input's new value
// may write into the input when it is an index_put or copy of that input
// and nothing else reads it.

// A static KV cache updated at the step's positions, and a counter copied:
// both in place.
// CHECK-LABEL: func.func @kv_cache
// CHECK: magi.index_put %arg0[%arg3], %arg2 {in_place, indexed_dims = array<i64: 2>}
// CHECK: magi.copy %arg1, %arg4 {in_place}
func.func @kv_cache(%arg0: tensor<1x2x8x4xbf16> {magi.input_kind = "buffer", magi.name = "key_cache_0"},
                    %arg1: tensor<i64> {magi.input_kind = "buffer", magi.name = "length"},
                    %arg2: tensor<1x2x1x4xbf16> {magi.input_kind = "user_input", magi.name = "k"},
                    %arg3: tensor<1xi64> {magi.input_kind = "user_input", magi.name = "pos"},
                    %arg4: tensor<i64> {magi.input_kind = "user_input", magi.name = "p"})
    -> (tensor<1x2x8x4xbf16> {magi.mutates = "key_cache_0", magi.output_kind = "buffer_mutation"},
        tensor<i64> {magi.mutates = "length", magi.output_kind = "buffer_mutation"},
        tensor<1x2x8x4xbf16> {magi.output_kind = "user_output"}) {
  %0 = magi.index_put %arg0[%arg3], %arg2 {indexed_dims = array<i64: 2>} : (tensor<1x2x8x4xbf16>, tensor<1xi64>, tensor<1x2x1x4xbf16>) -> tensor<1x2x8x4xbf16>
  %1 = magi.copy %arg1, %arg4 : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %2 = magi.neg %0 : (tensor<1x2x8x4xbf16>) -> tensor<1x2x8x4xbf16>
  return %0, %1, %2 : tensor<1x2x8x4xbf16>, tensor<i64>, tensor<1x2x8x4xbf16>
}

// -----

// A new value computed from something else, for an input that only a copy
// into its shape reads (a counter set from the step's position): copied
// into the input in place at the end, the result returned.
// CHECK-LABEL: func.func @counter
// CHECK: %[[SET:.*]] = magi.copy %arg0, %arg1 :
// CHECK: %[[NEXT:.*]] = magi.add %[[SET]], %[[SET]]
// CHECK: %[[BACK:.*]] = magi.copy %arg0, %[[NEXT]] {in_place}
// CHECK: return %[[BACK]]
func.func @counter(%arg0: tensor<i64> {magi.input_kind = "buffer", magi.name = "length"},
                   %arg1: tensor<i64> {magi.input_kind = "user_input", magi.name = "pos"})
    -> (tensor<i64> {magi.mutates = "length", magi.output_kind = "buffer_mutation"}) {
  %0 = magi.copy %arg0, %arg1 : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %1 = magi.add %0, %0 : (tensor<i64>, tensor<i64>) -> tensor<i64>
  return %1 : tensor<i64>
}

// -----

// The old value of a is read elsewhere: the runtime copies it back. An
// accumulating update of b is in place (its atomic adds go into b's
// buffer). The new value of c is not computed from c, which nothing reads:
// copied into c in place at the end.
// CHECK-LABEL: func.func @not_in_place
// CHECK-NOT: in_place
// CHECK: magi.index_put %arg1[%arg3], %arg4 {accumulate = true, in_place,
// CHECK-NOT: in_place
// CHECK: %[[C:.*]] = magi.copy %arg2, %{{.*}} {in_place}
// CHECK-NEXT: return %{{.*}}, %{{.*}}, %[[C]], %{{.*}} :
func.func @not_in_place(%arg0: tensor<8xf32> {magi.input_kind = "buffer", magi.name = "a"},
                        %arg1: tensor<8xf32> {magi.input_kind = "buffer", magi.name = "b"},
                        %arg2: tensor<8xf32> {magi.input_kind = "buffer", magi.name = "c"},
                        %arg3: tensor<2xi64> {magi.input_kind = "user_input", magi.name = "i"},
                        %arg4: tensor<2xf32> {magi.input_kind = "user_input", magi.name = "v"})
    -> (tensor<8xf32> {magi.mutates = "a", magi.output_kind = "buffer_mutation"},
        tensor<8xf32> {magi.mutates = "b", magi.output_kind = "buffer_mutation"},
        tensor<8xf32> {magi.mutates = "c", magi.output_kind = "buffer_mutation"},
        tensor<8xf32> {magi.output_kind = "user_output"}) {
  %0 = magi.index_put %arg0[%arg3], %arg4 {indexed_dims = array<i64: 0>} : (tensor<8xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<8xf32>
  %1 = magi.neg %arg0 : (tensor<8xf32>) -> tensor<8xf32>
  %2 = magi.index_put %arg1[%arg3], %arg4 {accumulate = true, indexed_dims = array<i64: 0>} : (tensor<8xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<8xf32>
  %3 = magi.index_put %arg0[%arg3], %arg4 {indexed_dims = array<i64: 0>} : (tensor<8xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<8xf32>
  return %0, %2, %3, %1 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
