// magi-expand-op-library's errors: an op whose operands, attributes or
// results do not fit its definition.
// RUN: magi-opt %s -split-input-file --magi-expand-op-library=library=%S/Inputs/op-library.mlir -verify-diagnostics -o /dev/null

func.func @missing_attribute(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{the op library's 'mylib::scaled_silu.default' takes attribute 'scale' as 'f64', but the op has no such attribute}}
  %y = magi.opaque "mylib::scaled_silu.default"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

func.func @wrong_operand(%x: tensor<2x3xbf16>) -> tensor<2x3xbf16> {
  // expected-error @+1 {{operand 0 of type 'tensor<2x3xbf16>' does not fit argument 0 of the op library's 'mylib::scaled_silu.default', of type 'tensor<?x?xf32>'}}
  %y = magi.opaque "mylib::scaled_silu.default"(%x) {scale = 2.0 : f64} : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
  return %y : tensor<2x3xbf16>
}

// -----

func.func @extra_operand(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  // expected-error @+1 {{the op has 2 operands, the op library's 'mylib::row_stats.default' takes 1}}
  %s, %m = magi.opaque "mylib::row_stats.default"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %s, %m : tensor<2xf32>, tensor<2xf32>
}

// -----

func.func @wrong_results(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{the op has 1 results, the op library's 'mylib::row_stats.default' returns 2}}
  %s = magi.opaque "mylib::row_stats.default"(%x) : (tensor<2x3xf32>) -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

func.func @wrong_result_type(%x: tensor<2x3xf32>) -> (tensor<3xf32>, tensor<2xf32>) {
  // expected-error @+1 {{result 0 of type 'tensor<3xf32>' does not fit the op library's 'mylib::row_stats.default' result of type 'tensor<2xf32>'}}
  %s, %m = magi.opaque "mylib::row_stats.default"(%x) : (tensor<2x3xf32>) -> (tensor<3xf32>, tensor<2xf32>)
  return %s, %m : tensor<3xf32>, tensor<2xf32>
}
