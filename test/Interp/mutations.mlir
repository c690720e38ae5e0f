// A mutated input's new value (magi.mutates, as the importer marks
// torch.export's buffer and user input mutations) is no output: magi-interp
// says so and prints, compares and saves only the others, as magi-run does.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import json, struct; open('%t/cache.bin', 'wb').write(struct.pack('<4f', 1, 0, 0, 0)); json.dump({'shape': [4], 'dtype': 'float32'}, open('%t/cache.json', 'w')); open('%t/pos.bin', 'wb').write(struct.pack('<q', 2)); json.dump({'shape': [1], 'dtype': 'int64'}, open('%t/pos.json', 'w'))"
// RUN: magi-interp %s --input %t/cache.bin --input %t/pos.bin 2>&1 | FileCheck %s

// CHECK: magi-interp: result 0 is the new value of input 'cache' (a mutation), not an output
// CHECK-NEXT: out0: tensor<4xf32> = [-1, -0, -5, -0]
// CHECK-NOT: out1
func.func @step(%cache: tensor<4xf32> {magi.input_kind = "user_input", magi.name = "cache"},
                %pos: tensor<1xi64> {magi.input_kind = "user_input", magi.name = "pos"})
    -> (tensor<4xf32> {magi.mutates = "cache", magi.output_kind = "user_input_mutation"},
        tensor<4xf32> {magi.output_kind = "user_output"}) {
  %v = magi.constant dense<[5.0]> : tensor<1xf32>
  %new = magi.index_put %cache[%pos], %v {indexed_dims = array<i64: 0>} : (tensor<4xf32>, tensor<1xi64>, tensor<1xf32>) -> tensor<4xf32>
  %neg = magi.neg %new : (tensor<4xf32>) -> tensor<4xf32>
  return %new, %neg : tensor<4xf32>, tensor<4xf32>
}
