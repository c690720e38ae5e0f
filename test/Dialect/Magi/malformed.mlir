// RUN: not magi-opt %s -split-input-file 2>&1 | FileCheck %s

// Broken input gives an error located in this file, never a crash (`not`
// fails on a crash). Each case checks the "malformed.mlir:line:col: error:"
// prefix and the message.

func.func @syntax_error(%x: tensor<4xf32>) {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected ':'
  %0 = magi.neg %x (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @syntax_error_unbalanced(%x: tensor<4xf32>) {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected ')'
  %0 = magi.neg %x : (tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @syntax_error_bad_list(%x: tensor<2x3xf32>) {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected '[' in dynamic index list
  %0 = magi.view %x 6, 1 : tensor<2x3xf32> -> tensor<6x1xf32>
  return
}

// -----

func.func @unknown_op(%x: tensor<4xf32>) {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: custom op 'magi.nonexistent' is unknown
  %0 = magi.nonexistent %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @unknown_op_generic(%x: tensor<4xf32>) {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: unregistered operation 'magi.nonexistent' found in dialect ('magi') that does not allow unknown operations
  %0 = "magi.nonexistent"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @undefined_value() {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: use of undeclared SSA value name
  %0 = magi.neg %undefined : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @undefined_symbol(%x: tensor<?xf32>) {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: use of undeclared SSA value name
  magi.bind_symbolic_shape %x, [%s0], affine_map<()[s0] -> (s0)> : tensor<?xf32>
  return
}

// -----

func.func @non_pytorch_dtype(%x: tensor<4xi3>) {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: 'magi.neg' op operand #0 must be ranked tensor of PyTorch dtype values, but got 'tensor<4xi3>'
  %0 = magi.neg %x : (tensor<4xi3>) -> tensor<4xi3>
  return
}

// -----

func.func @non_pytorch_dtype_complex(%x: tensor<4xcomplex<f32>>) {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: 'magi.exp' op operand #0 must be ranked tensor of PyTorch dtype values, but got 'tensor<4xcomplex<f32>>'
  %0 = magi.exp %x : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return
}

// -----

func.func @too_many_operands(%x: tensor<4xf32>) {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: 'magi.neg' op requires a single operand
  %0 = magi.neg %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @too_few_operands(%x: tensor<4xf32>) {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: 'magi.add' op expected 2 operands, but found 1
  %0 = magi.add %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @operand_type_count_mismatch(%x: tensor<4xf32>) {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: custom op 'magi.add' number of operands and types do not match: got 2 operands and 1 types
  %0 = magi.add %x, %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @too_many_results(%x: tensor<4xf32>) {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: 'magi.neg' op requires one result
  %0:2 = magi.neg %x : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @generic_no_operands() {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: 'magi.sum' op requires a single operand
  %0 = "magi.sum"() : () -> tensor<f32>
  return
}

// -----

func.func @generic_missing_property(%x: tensor<4xf32>) {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: 'magi.view' op requires attribute 'static_sizes'
  %0 = "magi.view"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @generic_bad_segments(%x: tensor<4xf32>) {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: 'magi.layer_norm' op operand count (1) does not match with the total size (2) specified in attribute 'operandSegmentSizes'
  %0 = "magi.layer_norm"(%x) <{eps = 1.0 : f64, normalized_ndim = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @generic_wrong_property_type(%x: tensor<4xf32>) {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: invalid properties {dims = "all"} for op magi.sum: Invalid attribute `dims` in property conversion: "all"
  %0 = "magi.sum"(%x) <{dims = "all"}> : (tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @dynamic_size_sentinel(%x: tensor<10xf32>) {
  // INT64_MIN is the marker of a dynamic entry; written as a constant it
  // leaves the list one value short.
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected 1 dynamic values for sizes, got 0
  %0 = magi.full [-9223372036854775808] {dtype = f32, fill_value = 1 : i64} : tensor<?xf32>
  return
}

// -----

func.func @dtype_not_a_dtype(%f: f64) {
  // A dtype attribute that is not a PyTorch dtype.
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: custom op 'magi.scalar_tensor' 'magi.scalar_tensor' op attribute 'dtype' failed to satisfy constraint: type attribute of PyTorch dtype
  %0 = magi.scalar_tensor %f {dtype = tensor<2xf32>} : (f64) -> tensor<f32>
  return
}

// -----

func.func @bad_affine_map(%x: tensor<?xf32>) {
  %s = magi.symbolic_int "s0" min 1
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: use of undeclared identifier
  magi.bind_symbolic_shape %x, [%s], affine_map<()[s0] -> (s1)> : tensor<?xf32>
  return
}

// -----

func.func @symbolic_int_bad_range() {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected attribute value
  %s = magi.symbolic_int "s0" min two
  return
}

// -----

func.func @unterminated_function(%x: tensor<4xf32>) {
  %0 = magi.neg %x : (tensor<4xf32>) -> tensor<4xf32>
// The error is at the end of the file, i.e. on this last line.
// CHECK: malformed.mlir:[[@LINE]]:{{[0-9]+}}: error: expected operation name in quotes
