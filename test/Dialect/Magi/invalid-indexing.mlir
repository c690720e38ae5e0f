// RUN: magi-opt %s -split-input-file -verify-diagnostics

// Inference errors of the indexing ops.

func.func @embedding_weight_not_2d(%w: tensor<4x8x16xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{embedding weight must be 2-d, got rank 3}}
  // expected-error @+1 {{'magi.embedding' op failed to infer returned types}}
  %0 = magi.embedding %w, %i : (tensor<4x8x16xf32>, tensor<3xi64>) -> tensor<3x16xf32>
  return
}

// -----

func.func @embedding_float_indices(%w: tensor<4x8xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{'magi.embedding' op operand #1 must be ranked tensor of 64-bit signless integer or 32-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = magi.embedding %w, %i : (tensor<4x8xf32>, tensor<3xf32>) -> tensor<3x8xf32>
  return
}

// -----

func.func @embedding_wrong_result(%w: tensor<4x8xbf16>, %i: tensor<3xi64>) {
  // expected-error @+2 {{'magi.embedding' op inferred type(s) 'tensor<3x8xbf16>' are incompatible with return type(s) of operation 'tensor<3x4xbf16>'}}
  // expected-error @+1 {{'magi.embedding' op failed to infer returned types}}
  %0 = magi.embedding %w, %i : (tensor<4x8xbf16>, tensor<3xi64>) -> tensor<3x4xbf16>
  return
}

// -----

func.func @index_count_mismatch(%x: tensor<2x3xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{got 2 index tensors for 1 indexed dimensions}}
  // expected-error @+1 {{'magi.index' op failed to infer returned types}}
  %0 = magi.index %x [%i, %i] {indexed_dims = array<i64: 0>} : (tensor<2x3xf32>, tensor<4xi64>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @index_no_indices(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{needs at least one index tensor}}
  // expected-error @+1 {{'magi.index' op failed to infer returned types}}
  %0 = magi.index %x [] {indexed_dims = array<i64>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @index_bool_mask(%x: tensor<2x3xf32>, %m: tensor<2xi1>) {
  // expected-error @+2 {{index tensor 0 must have an integer dtype, got 'i1'}}
  // expected-error @+1 {{'magi.index' op failed to infer returned types}}
  %0 = magi.index %x [%m] {indexed_dims = array<i64: 0>} : (tensor<2x3xf32>, tensor<2xi1>) -> tensor<?x3xf32>
  return
}

// -----

func.func @index_float(%x: tensor<2x3xf32>, %i: tensor<4xi64>, %f: tensor<4xf32>) {
  // expected-error @+2 {{index tensor 1 must have an integer dtype, got 'f32'}}
  // expected-error @+1 {{'magi.index' op failed to infer returned types}}
  %0 = magi.index %x [%i, %f] {indexed_dims = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @index_dims_out_of_range(%x: tensor<2x3xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{indexed_dims must be increasing dimensions of self (rank 2)}}
  // expected-error @+1 {{'magi.index' op failed to infer returned types}}
  %0 = magi.index %x [%i] {indexed_dims = array<i64: 2>} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @index_dims_not_increasing(%x: tensor<2x3xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{indexed_dims must be increasing dimensions of self (rank 2)}}
  // expected-error @+1 {{'magi.index' op failed to infer returned types}}
  %0 = magi.index %x [%i, %i] {indexed_dims = array<i64: 1, 0>} : (tensor<2x3xf32>, tensor<4xi64>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @index_dims_negative(%x: tensor<2x3xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{indexed_dims must be increasing dimensions of self (rank 2)}}
  // expected-error @+1 {{'magi.index' op failed to infer returned types}}
  %0 = magi.index %x [%i] {indexed_dims = array<i64: -1>} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<2x4xf32>
  return
}

// -----

func.func @index_broadcast_mismatch(%x: tensor<2x3xf32>, %i: tensor<4xi64>, %j: tensor<5xi64>) {
  // expected-error @+2 {{shapes are not broadcast-compatible: size 4 vs 5 in dimension 0 of the broadcast shape}}
  // expected-error @+1 {{'magi.index' op failed to infer returned types}}
  %0 = magi.index %x [%i, %j] {indexed_dims = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<4xi64>, tensor<5xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @index_wrong_result(%x: tensor<2x3x4xf32>, %i: tensor<5xi64>) {
  // Non-adjacent dimensions: the index shape comes first.
  // expected-error @+2 {{'magi.index' op inferred type(s) 'tensor<5x3xf32>' are incompatible with return type(s) of operation 'tensor<3x5xf32>'}}
  // expected-error @+1 {{'magi.index' op failed to infer returned types}}
  %0 = magi.index %x [%i, %i] {indexed_dims = array<i64: 0, 2>} : (tensor<2x3x4xf32>, tensor<5xi64>, tensor<5xi64>) -> tensor<3x5xf32>
  return
}

// -----

func.func @index_select_2d_index(%x: tensor<4x6xf32>, %i: tensor<2x2xi64>) {
  // expected-error @+2 {{index must be 0-d or 1-d, got rank 2}}
  // expected-error @+1 {{'magi.index_select' op failed to infer returned types}}
  %0 = magi.index_select %x, %i {dim = 0 : i64} : (tensor<4x6xf32>, tensor<2x2xi64>) -> tensor<4x6xf32>
  return
}

// -----

func.func @index_select_dim_out_of_range(%x: tensor<4x6xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{dimension 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.index_select' op failed to infer returned types}}
  %0 = magi.index_select %x, %i {dim = 2 : i64} : (tensor<4x6xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  return
}

// -----

func.func @index_select_float_index(%x: tensor<4x6xf32>, %i: tensor<2xf32>) {
  // expected-error @+1 {{'magi.index_select' op operand #1 must be ranked tensor of 64-bit signless integer or 32-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = magi.index_select %x, %i {dim = 0 : i64} : (tensor<4x6xf32>, tensor<2xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @gather_rank_mismatch(%x: tensor<4x6xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{index has rank 1 but self has rank 2}}
  // expected-error @+1 {{'magi.gather' op failed to infer returned types}}
  %0 = magi.gather %x, %i {dim = 1 : i64} : (tensor<4x6xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @gather_dim_out_of_range(%x: tensor<4x6xf32>, %i: tensor<4x2xi64>) {
  // expected-error @+2 {{dimension -3 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.gather' op failed to infer returned types}}
  %0 = magi.gather %x, %i {dim = -3 : i64} : (tensor<4x6xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @gather_wrong_dtype(%x: tensor<4x6xf32>, %i: tensor<4x2xi64>) {
  // expected-error @+2 {{'magi.gather' op inferred type(s) 'tensor<4x2xf32>' are incompatible with return type(s) of operation 'tensor<4x2xi64>'}}
  // expected-error @+1 {{'magi.gather' op failed to infer returned types}}
  %0 = magi.gather %x, %i {dim = 1 : i64} : (tensor<4x6xf32>, tensor<4x2xi64>) -> tensor<4x2xi64>
  return
}
