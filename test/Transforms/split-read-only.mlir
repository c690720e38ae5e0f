// RUN: magi-opt %s -magi-split='splitting-ops=magi.softmax' | FileCheck %s

// magi-split marks a piece argument magi.read_only when it is, at the
// piece's call, a graph weight (parameter), buffer or constant that no
// output of the graph writes back to: kernels may read it before the kernel
// ahead of them ends (magi-few-row-matmul-to-gpu). A user input, a buffer
// the graph mutates (a KV cache), an argument without a name and a value
// another piece computes are not marked.
// CHECK-LABEL: func.func private @main_piece_0
// CHECK-SAME: (%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8x8xf32> {magi.read_only}, %{{.*}}: tensor<8xf32> {magi.read_only}, %{{.*}}: tensor<8xf32> {magi.read_only}, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32>)
// CHECK-LABEL: func.func private @main_piece_1
// CHECK-SAME: (%{{.*}}: tensor<4x8xf32>)
// CHECK-LABEL: func.func private @main_piece_2
// CHECK-SAME: (%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8x8xf32> {magi.read_only}, %{{.*}}: tensor<8xf32> {magi.read_only})
func.func @main(%x: tensor<4x8xf32> {magi.input_kind = "user_input", magi.name = "x"},
                %w: tensor<8x8xf32> {magi.input_kind = "parameter", magi.name = "w"},
                %b: tensor<8xf32> {magi.input_kind = "buffer", magi.name = "b"},
                %c: tensor<8xf32> {magi.input_kind = "constant", magi.name = "c"},
                %cache: tensor<8xf32> {magi.input_kind = "buffer", magi.name = "cache"},
                %unnamed: tensor<8xf32> {magi.input_kind = "parameter"})
    -> (tensor<4x8xf32>, tensor<8xf32> {magi.mutates = "cache", magi.output_kind = "buffer_mutation"}) {
  %0 = magi.mm %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = magi.add %0, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = magi.add %1, %c : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %3 = magi.add %2, %cache : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %4 = magi.add %3, %unnamed : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %5 = magi.softmax %4 {dim = 1 : i64, half_to_float = false} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = magi.mm %5, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %7 = magi.add %b, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %6, %7 : tensor<4x8xf32>, tensor<8xf32>
}
