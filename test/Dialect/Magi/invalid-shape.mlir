// RUN: magi-opt %s -split-input-file -verify-diagnostics

// Inference errors of the shape ops.

func.func @view_numel_mismatch(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{cannot view 24 elements as 20 elements}}
  // expected-error @+1 {{'magi.view' op failed to infer returned types}}
  %0 = magi.view %x [5, 4] : tensor<2x3x4xf32> -> tensor<5x4xf32>
  return
}

// -----

func.func @view_inferred_size_not_divisible(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{cannot view 24 elements with a size of -1 next to 5 elements}}
  // expected-error @+1 {{'magi.view' op failed to infer returned types}}
  %0 = magi.view %x [-1, 5] : tensor<2x3x4xf32> -> tensor<?x5xf32>
  return
}

// -----

func.func @view_inferred_size_next_to_zero(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{cannot view 24 elements with a size of -1 next to 0 elements}}
  // expected-error @+1 {{'magi.view' op failed to infer returned types}}
  %0 = magi.view %x [-1, 0] : tensor<2x3x4xf32> -> tensor<?x0xf32>
  return
}

// -----

func.func @view_two_inferred_sizes(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{only one size may be -1}}
  // expected-error @+1 {{'magi.view' op failed to infer returned types}}
  %0 = magi.view %x [-1, -1] : tensor<2x3x4xf32> -> tensor<?x?xf32>
  return
}

// -----

func.func @view_negative_size(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{size -4 is negative}}
  // expected-error @+1 {{'magi.view' op failed to infer returned types}}
  %0 = magi.view %x [-4, -6] : tensor<2x3x4xf32> -> tensor<4x6xf32>
  return
}

// -----

func.func @view_wrong_result(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'magi.view' op inferred type(s) 'tensor<6x4xf32>' are incompatible with return type(s) of operation 'tensor<4x6xf32>'}}
  // expected-error @+1 {{'magi.view' op failed to infer returned types}}
  %0 = magi.view %x [6, 4] : tensor<2x3x4xf32> -> tensor<4x6xf32>
  return
}

// -----

func.func @view_dynamic_count_mismatch(%x: tensor<2x3x4xf32>, %s: index) {
  // expected-error @+2 {{expected 0 dynamic values for sizes, got 1}}
  // expected-error @+1 {{'magi.view' op failed to infer returned types}}
  %0 = "magi.view"(%x, %s) <{static_sizes = array<i64: 6, 4>}> : (tensor<2x3x4xf32>, index) -> tensor<6x4xf32>
  return
}

// -----

func.func @view_non_index_size(%x: tensor<2x3x4xf32>, %s: i64) {
  // expected-error @+1 {{'magi.view' op operand #1 must be variadic of index, but got 'i64'}}
  %0 = "magi.view"(%x, %s) <{static_sizes = array<i64: -9223372036854775808>}> : (tensor<2x3x4xf32>, i64) -> tensor<?xf32>
  return
}

// -----

func.func @expand_fewer_sizes(%x: tensor<2x1x4xf32>) {
  // expected-error @+2 {{cannot expand a tensor of rank 3 to 2 sizes}}
  // expected-error @+1 {{'magi.expand' op failed to infer returned types}}
  %0 = magi.expand %x [3, 4] : tensor<2x1x4xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @expand_size_mismatch(%x: tensor<2x1x4xf32>) {
  // expected-error @+2 {{cannot expand size 2 of dimension 0 to 3}}
  // expected-error @+1 {{'magi.expand' op failed to infer returned types}}
  %0 = magi.expand %x [3, 5, 4] : tensor<2x1x4xf32> -> tensor<3x5x4xf32>
  return
}

// -----

func.func @expand_size_mismatch_new_dims(%x: tensor<2x1x4xf32>) {
  // Dimensions are numbered in the result.
  // expected-error @+2 {{cannot expand size 4 of dimension 3 to 8}}
  // expected-error @+1 {{'magi.expand' op failed to infer returned types}}
  %0 = magi.expand %x [7, 2, 5, 8] : tensor<2x1x4xf32> -> tensor<7x2x5x8xf32>
  return
}

// -----

func.func @expand_minus_one_new_dim(%x: tensor<2x1x4xf32>) {
  // expected-error @+2 {{size -1 is not allowed for the new leading dimension 0}}
  // expected-error @+1 {{'magi.expand' op failed to infer returned types}}
  %0 = magi.expand %x [-1, 2, 1, 4] : tensor<2x1x4xf32> -> tensor<1x2x1x4xf32>
  return
}

// -----

func.func @expand_negative_size(%x: tensor<2x1x4xf32>) {
  // expected-error @+2 {{size -3 is negative}}
  // expected-error @+1 {{'magi.expand' op failed to infer returned types}}
  %0 = magi.expand %x [2, -3, 4] : tensor<2x1x4xf32> -> tensor<2x3x4xf32>
  return
}

// -----

func.func @permute_wrong_length(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{expected 3 permutation entries, got 2}}
  // expected-error @+1 {{'magi.permute' op failed to infer returned types}}
  %0 = magi.permute %x {dims = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @permute_repeated(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{dims is not a permutation: 0 appears twice}}
  // expected-error @+1 {{'magi.permute' op failed to infer returned types}}
  %0 = magi.permute %x {dims = array<i64: 0, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<2x4x2xf32>
  return
}

// -----

func.func @permute_repeated_negative(%x: tensor<2x3x4xf32>) {
  // -1 is dimension 2.
  // expected-error @+2 {{dims is not a permutation: -1 appears twice}}
  // expected-error @+1 {{'magi.permute' op failed to infer returned types}}
  %0 = magi.permute %x {dims = array<i64: 2, 0, -1>} : (tensor<2x3x4xf32>) -> tensor<4x2x4xf32>
  return
}

// -----

func.func @permute_out_of_range(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{dimension 3 is out of range for a tensor of rank 3}}
  // expected-error @+1 {{'magi.permute' op failed to infer returned types}}
  %0 = magi.permute %x {dims = array<i64: 0, 1, 3>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @permute_wrong_result(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'magi.permute' op inferred type(s) 'tensor<4x2x3xf32>' are incompatible with return type(s) of operation 'tensor<4x3x2xf32>'}}
  // expected-error @+1 {{'magi.permute' op failed to infer returned types}}
  %0 = magi.permute %x {dims = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  return
}

// -----

func.func @unsqueeze_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dimension 3 is out of range to unsqueeze a tensor of rank 2}}
  // expected-error @+1 {{'magi.unsqueeze' op failed to infer returned types}}
  %0 = magi.unsqueeze %x {dim = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  return
}

// -----

func.func @unsqueeze_out_of_range_negative(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dimension -4 is out of range to unsqueeze a tensor of rank 2}}
  // expected-error @+1 {{'magi.unsqueeze' op failed to infer returned types}}
  %0 = magi.unsqueeze %x {dim = -4 : i64} : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
  return
}

// -----

func.func @squeeze_out_of_range(%x: tensor<2x1xf32>) {
  // expected-error @+2 {{dimension 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.squeeze' op failed to infer returned types}}
  %0 = magi.squeeze %x {dims = array<i64: 2>} : (tensor<2x1xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @squeeze_size_not_one(%x: tensor<2x1xf32>) {
  // A dimension of size 2 is not removed.
  // expected-error @+2 {{'magi.squeeze' op inferred type(s) 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<1xf32>'}}
  // expected-error @+1 {{'magi.squeeze' op failed to infer returned types}}
  %0 = magi.squeeze %x {dims = array<i64: 0>} : (tensor<2x1xf32>) -> tensor<1xf32>
  return
}

// -----

func.func @slice_zero_step(%x: tensor<4x10xf32>) {
  // expected-error @+2 {{slice step must be positive, got 0}}
  // expected-error @+1 {{'magi.slice' op failed to infer returned types}}
  %0 = magi.slice %x, 1 [0, 10, 0] : tensor<4x10xf32> -> tensor<4x10xf32>
  return
}

// -----

func.func @slice_negative_step(%x: tensor<4x10xf32>) {
  // expected-error @+2 {{slice step must be positive, got -1}}
  // expected-error @+1 {{'magi.slice' op failed to infer returned types}}
  %0 = magi.slice %x, 1 [10, 0, -1] : tensor<4x10xf32> -> tensor<4x10xf32>
  return
}

// -----

func.func @slice_two_bounds(%x: tensor<4x10xf32>) {
  // expected-error @+2 {{expected [start, end, step], got 2 bounds}}
  // expected-error @+1 {{'magi.slice' op failed to infer returned types}}
  %0 = magi.slice %x, 1 [0, 10] : tensor<4x10xf32> -> tensor<4x10xf32>
  return
}

// -----

func.func @slice_0d(%x: tensor<f32>) {
  // expected-error @+2 {{cannot slice a 0-d tensor}}
  // expected-error @+1 {{'magi.slice' op failed to infer returned types}}
  %0 = magi.slice %x, 0 [0, 1, 1] : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @slice_dim_out_of_range(%x: tensor<4x10xf32>) {
  // expected-error @+2 {{dimension 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.slice' op failed to infer returned types}}
  %0 = magi.slice %x, 2 [0, 1, 1] : tensor<4x10xf32> -> tensor<4x10xf32>
  return
}

// -----

func.func @slice_wrong_length(%x: tensor<4x10xf32>) {
  // expected-error @+2 {{'magi.slice' op inferred type(s) 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<4x4xf32>'}}
  // expected-error @+1 {{'magi.slice' op failed to infer returned types}}
  %0 = magi.slice %x, 1 [0, 9, 3] : tensor<4x10xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @select_index_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{index 3 is out of range for a dimension of size 3}}
  // expected-error @+1 {{'magi.select' op failed to infer returned types}}
  %0 = magi.select %x, 1 [3] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @select_index_out_of_range_negative(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{index -3 is out of range for a dimension of size 2}}
  // expected-error @+1 {{'magi.select' op failed to infer returned types}}
  %0 = magi.select %x, 0 [-3] : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @select_two_indices(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{expected one index, got 2}}
  // expected-error @+1 {{'magi.select' op failed to infer returned types}}
  %0 = magi.select %x, 0 [0, 1] : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @select_0d(%x: tensor<f32>) {
  // expected-error @+2 {{cannot select from a 0-d tensor}}
  // expected-error @+1 {{'magi.select' op failed to infer returned types}}
  %0 = magi.select %x, 0 [0] : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @select_dim_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dimension -3 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.select' op failed to infer returned types}}
  %0 = magi.select %x, -3 [0] : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @cat_no_tensors() {
  // expected-error @+2 {{needs at least one tensor}}
  // expected-error @+1 {{'magi.cat' op failed to infer returned types}}
  %0 = magi.cat {dim = 0 : i64} : () -> tensor<0xf32>
  return
}

// -----

func.func @cat_rank_mismatch(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{tensor 1 has rank 1, expected 2}}
  // expected-error @+1 {{'magi.cat' op failed to infer returned types}}
  %0 = magi.cat %a, %b {dim = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @cat_size_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x4xf32>) {
  // expected-error @+2 {{tensor 2 has size 4 in dimension 1, expected 3}}
  // expected-error @+1 {{'magi.cat' op failed to infer returned types}}
  %0 = magi.cat %a, %b, %c {dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<6x3xf32>
  return
}

// -----

func.func @cat_dim_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{dimension 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.cat' op failed to infer returned types}}
  %0 = magi.cat %a, %a {dim = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @cat_wrong_dtype(%a: tensor<2x3xf16>, %b: tensor<2x3xbf16>) {
  // f16 and bf16 promote to f32.
  // expected-error @+2 {{'magi.cat' op inferred type(s) 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<4x3xf16>'}}
  // expected-error @+1 {{'magi.cat' op failed to infer returned types}}
  %0 = magi.cat %a, %b {dim = 0 : i64} : (tensor<2x3xf16>, tensor<2x3xbf16>) -> tensor<4x3xf16>
  return
}

// -----

func.func @split_sizes_do_not_add_up(%x: tensor<2x6xf32>) {
  // expected-error @+2 {{split sizes add up to 5 but dimension 1 has size 6}}
  // expected-error @+1 {{'magi.split_with_sizes' op failed to infer returned types}}
  %0:2 = magi.split_with_sizes %x [2, 3] {dim = 1 : i64} : tensor<2x6xf32> -> tensor<2x2xf32>, tensor<2x3xf32>
  return
}

// -----

func.func @split_negative_size(%x: tensor<2x6xf32>) {
  // expected-error @+2 {{split size -1 is negative}}
  // expected-error @+1 {{'magi.split_with_sizes' op failed to infer returned types}}
  %0:2 = magi.split_with_sizes %x [7, -1] {dim = 1 : i64} : tensor<2x6xf32> -> tensor<2x7xf32>, tensor<2x1xf32>
  return
}

// -----

func.func @split_dim_out_of_range(%x: tensor<2x6xf32>) {
  // expected-error @+2 {{dimension 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'magi.split_with_sizes' op failed to infer returned types}}
  %0 = magi.split_with_sizes %x [6] {dim = 2 : i64} : tensor<2x6xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @split_wrong_result_count(%x: tensor<2x6xf32>) {
  // expected-error @+2 {{'magi.split_with_sizes' op inferred type(s) 'tensor<2x2xf32>', 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<2x6xf32>'}}
  // expected-error @+1 {{'magi.split_with_sizes' op failed to infer returned types}}
  %0 = magi.split_with_sizes %x [2, 4] {dim = 1 : i64} : tensor<2x6xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @pad_odd_entries(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{pad must hold an even number of entries, at most twice the rank (2), got 3}}
  // expected-error @+1 {{'magi.constant_pad_nd' op failed to infer returned types}}
  %0 = magi.constant_pad_nd %x [1, 1, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @pad_too_many_entries(%x: tensor<3xf32>) {
  // expected-error @+2 {{pad must hold an even number of entries, at most twice the rank (1), got 4}}
  // expected-error @+1 {{'magi.constant_pad_nd' op failed to infer returned types}}
  %0 = magi.constant_pad_nd %x [1, 1, 1, 1] : tensor<3xf32> -> tensor<5xf32>
  return
}

// -----

func.func @pad_crops_too_much(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{padding makes dimension 1 negative}}
  // expected-error @+1 {{'magi.constant_pad_nd' op failed to infer returned types}}
  %0 = magi.constant_pad_nd %x [-2, -2] : tensor<2x3xf32> -> tensor<2x0xf32>
  return
}

// -----

func.func @pad_dynamic_count_mismatch(%x: tensor<2x3xf32>, %n: index) {
  // expected-error @+2 {{expected 0 dynamic values for pad, got 1}}
  // expected-error @+1 {{'magi.constant_pad_nd' op failed to infer returned types}}
  %0 = "magi.constant_pad_nd"(%x, %n) <{static_pad = array<i64: 1, 1>, value = 0.0 : f64}> : (tensor<2x3xf32>, index) -> tensor<2x5xf32>
  return
}

// -----

func.func @expand_dynamic_count_mismatch(%x: tensor<2x1xf32>, %s: index) {
  // expected-error @+2 {{expected 1 dynamic values for sizes, got 0}}
  // expected-error @+1 {{'magi.expand' op failed to infer returned types}}
  %0 = "magi.expand"(%x) <{static_sizes = array<i64: 2, -9223372036854775808>}> : (tensor<2x1xf32>) -> tensor<2x?xf32>
  return
}

// -----

func.func @slice_dynamic_count_mismatch(%x: tensor<4x10xf32>, %s: index) {
  // expected-error @+2 {{expected 0 dynamic values for bounds, got 2}}
  // expected-error @+1 {{'magi.slice' op failed to infer returned types}}
  %0 = "magi.slice"(%x, %s, %s) <{dim = 1 : i64, static_bounds = array<i64: 0, 10, 1>}> : (tensor<4x10xf32>, index, index) -> tensor<4x10xf32>
  return
}

// -----

func.func @select_dynamic_count_mismatch(%x: tensor<4x10xf32>) {
  // expected-error @+2 {{expected 1 dynamic values for index, got 0}}
  // expected-error @+1 {{'magi.select' op failed to infer returned types}}
  %0 = "magi.select"(%x) <{dim = 1 : i64, static_index = array<i64: -9223372036854775808>}> : (tensor<4x10xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @split_dynamic_count_mismatch(%x: tensor<4x10xf32>, %s: index) {
  // expected-error @+2 {{expected 0 dynamic values for split sizes, got 1}}
  // expected-error @+1 {{'magi.split_with_sizes' op failed to infer returned types}}
  %0 = "magi.split_with_sizes"(%x, %s) <{dim = 1 : i64, static_split_sizes = array<i64: 10>}> : (tensor<4x10xf32>, index) -> tensor<4x10xf32>
  return
}

// -----

func.func @unsqueeze_wrong_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'magi.unsqueeze' op inferred type(s) 'tensor<2x1x3xf32>' are incompatible with return type(s) of operation 'tensor<1x2x3xf32>'}}
  // expected-error @+1 {{'magi.unsqueeze' op failed to infer returned types}}
  %0 = magi.unsqueeze %x {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
  return
}

// -----

func.func @expand_wrong_result(%x: tensor<2x1xf32>) {
  // expected-error @+2 {{'magi.expand' op inferred type(s) 'tensor<2x5xf32>' are incompatible with return type(s) of operation 'tensor<2x1xf32>'}}
  // expected-error @+1 {{'magi.expand' op failed to infer returned types}}
  %0 = magi.expand %x [2, 5] : tensor<2x1xf32> -> tensor<2x1xf32>
  return
}

// -----

func.func @pad_wrong_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'magi.constant_pad_nd' op inferred type(s) 'tensor<2x6xf32>' are incompatible with return type(s) of operation 'tensor<5x3xf32>'}}
  // expected-error @+1 {{'magi.constant_pad_nd' op failed to infer returned types}}
  %0 = magi.constant_pad_nd %x [1, 2] : tensor<2x3xf32> -> tensor<5x3xf32>
  return
}

// -----

// Sizes that overflow int64 are refused, not wrapped.
func.func @cat_overflow(%a: tensor<4611686018427387904xf32>) {
  // expected-error @+2 {{the concatenated size of dimension 0 overflows int64}}
  // expected-error @+1 {{'magi.cat' op failed to infer returned types}}
  %0 = magi.cat %a, %a, %a {dim = 0 : i64} : (tensor<4611686018427387904xf32>, tensor<4611686018427387904xf32>, tensor<4611686018427387904xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @split_sizes_overflow(%a: tensor<8xf32>) {
  // expected-error @+2 {{split sizes add up past int64}}
  // expected-error @+1 {{'magi.split_with_sizes' op failed to infer returned types}}
  %0:2 = magi.split_with_sizes %a [9223372036854775807, 9223372036854775807] {dim = 0 : i64} : tensor<8xf32> -> tensor<?xf32>, tensor<?xf32>
  return
}

// -----

func.func @view_count_overflow(%a: tensor<8xf32>) {
  // expected-error @+2 {{the view has more than 2^63 elements}}
  // expected-error @+1 {{'magi.view' op failed to infer returned types}}
  %0 = magi.view %a [9223372036854775807, 4] : tensor<8xf32> -> tensor<?x4xf32>
  return
}

// -----

func.func @pad_overflow(%a: tensor<8xf32>) {
  // expected-error @+2 {{padding dimension 0 overflows int64}}
  // expected-error @+1 {{'magi.constant_pad_nd' op failed to infer returned types}}
  %0 = magi.constant_pad_nd %a [9223372036854775807, 1] {value = 0.0 : f64} : tensor<8xf32> -> tensor<?xf32>
  return
}

// -----

func.func @repeat_overflow(%a: tensor<8xf32>) {
  // expected-error @+2 {{repeating dimension 0 2305843009213693952 times overflows int64}}
  // expected-error @+1 {{'magi.repeat' op failed to infer returned types}}
  %0 = magi.repeat %a {repeats = array<i64: 2305843009213693952>} : (tensor<8xf32>) -> tensor<?xf32>
  return
}
