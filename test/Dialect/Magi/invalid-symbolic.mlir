// RUN: magi-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the symbolic-integer ops.

func.func @symbolic_int_empty_range() {
  // expected-error @+1 {{'magi.symbolic_int' op range is empty: min 10 > max 4}}
  %s = magi.symbolic_int "s0" min 10 max 4
  return
}

// -----

func.func @symbolic_int_empty_range_negative() {
  // expected-error @+1 {{'magi.symbolic_int' op range is empty: min -1 > max -2}}
  %s = magi.symbolic_int "s0" min -1 max -2
  return
}

// -----

func.func @symbolic_int_empty_name() {
  // expected-error @+1 {{'magi.symbolic_int' op symbol name must not be empty}}
  %s = magi.symbolic_int "" min 1
  return
}

// -----

func.func @symbolic_int_missing_min() {
  // expected-error @+1 {{expected 'min'}}
  %s = magi.symbolic_int "s0" max 4
  return
}

// -----

func.func @bind_static_dim_wrong_constant(%x: tensor<1x?xi64>) {
  %s = magi.symbolic_int "s0" min 2 max 4096
  // expected-error @+1 {{'magi.bind_symbolic_shape' op dimension 0 has static size 1 but is bound to 2}}
  magi.bind_symbolic_shape %x, [%s], affine_map<()[s0] -> (2, s0)> : tensor<1x?xi64>
  return
}

// -----

func.func @bind_static_dim_to_symbol(%x: tensor<4x?xi64>) {
  %s = magi.symbolic_int "s0" min 2 max 4096
  // expected-error @+1 {{'magi.bind_symbolic_shape' op dimension 0 has static size 4 but is bound to s0}}
  magi.bind_symbolic_shape %x, [%s], affine_map<()[s0] -> (s0, s0)> : tensor<4x?xi64>
  return
}

// -----

func.func @bind_dynamic_dim_to_constant(%x: tensor<1x?xi64>) {
  %s = magi.symbolic_int "s0" min 2 max 4096
  // expected-error @+1 {{'magi.bind_symbolic_shape' op dimension 1 is dynamic but is bound to the constant 8}}
  magi.bind_symbolic_shape %x, [%s], affine_map<()[s0] -> (1, 8)> : tensor<1x?xi64>
  return
}

// -----

func.func @bind_too_few_symbols(%x: tensor<?x?xf32>) {
  %s = magi.symbolic_int "s0" min 2
  // expected-error @+1 {{'magi.bind_symbolic_shape' op shape expressions use 2 symbol(s) but 1 were bound}}
  magi.bind_symbolic_shape %x, [%s], affine_map<()[s0, s1] -> (s0, s1)> : tensor<?x?xf32>
  return
}

// -----

func.func @bind_too_many_symbols(%x: tensor<?xf32>) {
  %s = magi.symbolic_int "s0" min 2
  %t = magi.symbolic_int "s1" min 2
  // expected-error @+1 {{'magi.bind_symbolic_shape' op shape expressions use 1 symbol(s) but 2 were bound}}
  magi.bind_symbolic_shape %x, [%s, %t], affine_map<()[s0] -> (s0)> : tensor<?xf32>
  return
}

// -----

func.func @bind_wrong_rank(%x: tensor<1x?xi64>) {
  %s = magi.symbolic_int "s0" min 2
  // expected-error @+1 {{'magi.bind_symbolic_shape' op expected 2 shape expressions for a tensor of rank 2, got 3}}
  magi.bind_symbolic_shape %x, [%s], affine_map<()[s0] -> (1, s0, 1)> : tensor<1x?xi64>
  return
}

// -----

func.func @bind_uses_dims(%x: tensor<?xi64>) {
  %s = magi.symbolic_int "s0" min 2
  // expected-error @+1 {{'magi.bind_symbolic_shape' op shape expressions must use symbols only, found 1 dimension(s)}}
  magi.bind_symbolic_shape %x, [%s], affine_map<(d0)[s0] -> (s0)> : tensor<?xi64>
  return
}

// -----

func.func @bind_non_symbol(%x: tensor<?xi64>) {
  %c = arith.constant 4 : index
  // expected-error @+1 {{'magi.bind_symbolic_shape' op bound value is not a symbol: it is defined by 'arith.constant', not 'magi.symbolic_int'}}
  magi.bind_symbolic_shape %x, [%c], affine_map<()[s0] -> (s0)> : tensor<?xi64>
  return
}

// -----

func.func @bind_sym_arith_result(%x: tensor<?xi64>) {
  %s = magi.symbolic_int "s0" min 2
  %t = magi.sym_add %s, %s
  // expected-error @+1 {{'magi.bind_symbolic_shape' op bound value is not a symbol: it is defined by 'magi.sym_add', not 'magi.symbolic_int'}}
  magi.bind_symbolic_shape %x, [%t], affine_map<()[s0] -> (s0)> : tensor<?xi64>
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @bind_non_index(%x: tensor<?xi64>, %n: i64) {
  // expected-error @+1 {{use of value '%n' expects different type than prior uses: 'index' vs 'i64'}}
  magi.bind_symbolic_shape %x, [%n], affine_map<()[s0] -> (s0)> : tensor<?xi64>
  return
}

// -----

func.func @bind_bad_dtype(%x: tensor<?xi3>, %n: index) {
  // expected-error @+1 {{'magi.bind_symbolic_shape' op operand #0 must be ranked tensor of PyTorch dtype values, but got 'tensor<?xi3>'}}
  magi.bind_symbolic_shape %x, [%n], affine_map<()[s0] -> (s0)> : tensor<?xi3>
  return
}

// -----

func.func @sym_size_out_of_range(%x: tensor<1x?xi64>) {
  // expected-error @+1 {{'magi.sym_size' op dimension 2 is out of range for a tensor of rank 2}}
  %n = magi.sym_size %x, 2 : tensor<1x?xi64>
  return
}

// -----

func.func @sym_size_0d(%x: tensor<f32>) {
  // expected-error @+1 {{'magi.sym_size' op dimension 0 is out of range for a tensor of rank 0}}
  %n = magi.sym_size %x, 0 : tensor<f32>
  return
}

// -----

func.func @sym_add_non_index(%a: i64, %b: index) {
  // expected-error @+1 {{'magi.sym_add' op operand #0 must be index, but got 'i64'}}
  %0 = "magi.sym_add"(%a, %b) : (i64, index) -> index
  return
}

// -----

func.func @sym_mul_result_not_index(%a: index, %b: index) {
  // expected-error @+1 {{'magi.sym_mul' op result #0 must be index, but got 'i64'}}
  %0 = "magi.sym_mul"(%a, %b) : (index, index) -> i64
  return
}

// -----

func.func @sym_sub_non_index(%a: index, %b: i64) {
  // expected-error @+1 {{'magi.sym_sub' op operand #1 must be index, but got 'i64'}}
  %0 = "magi.sym_sub"(%a, %b) : (index, i64) -> index
  return
}

// -----

func.func @sym_floordiv_non_index(%a: index, %b: i64) {
  // expected-error @+1 {{'magi.sym_floordiv' op operand #1 must be index, but got 'i64'}}
  %0 = "magi.sym_floordiv"(%a, %b) : (index, i64) -> index
  return
}

// -----

func.func @sym_mod_non_index(%a: index, %b: i64) {
  // expected-error @+1 {{'magi.sym_mod' op operand #1 must be index, but got 'i64'}}
  %0 = "magi.sym_mod"(%a, %b) : (index, i64) -> index
  return
}

// -----

func.func @sym_min_non_index(%a: index, %b: i64) {
  // expected-error @+1 {{'magi.sym_min' op operand #1 must be index, but got 'i64'}}
  %0 = "magi.sym_min"(%a, %b) : (index, i64) -> index
  return
}

// -----

func.func @sym_max_non_index(%a: index, %b: i64) {
  // expected-error @+1 {{'magi.sym_max' op operand #1 must be index, but got 'i64'}}
  %0 = "magi.sym_max"(%a, %b) : (index, i64) -> index
  return
}

// -----

func.func @sym_compare_predicate(%a: index, %b: index) {
  // expected-error @+1 {{'magi.sym_compare' op predicate must be eq, ne, lt, le, gt or ge, got 'cmp'}}
  %0 = magi.sym_compare "cmp" %a, %b
  return
}

// -----

func.func @sym_and_non_bool(%a: i1, %b: index) {
  // expected-error @+1 {{'magi.sym_and' op operand #1 must be 1-bit signless integer, but got 'index'}}
  %0 = "magi.sym_and"(%a, %b) : (i1, index) -> i1
  return
}

// -----

func.func @assert_non_bool(%a: index) {
  // expected-error @+1 {{'magi.assert_symbolic' op operand #0 must be 1-bit signless integer, but got 'index'}}
  "magi.assert_symbolic"(%a) {message = "m"} : (index) -> ()
  return
}

// -----

func.func @item_of_many(%x: tensor<3xf32>) -> f64 {
  // expected-error @+1 {{'magi.item' op needs a tensor of one element, got 3}}
  %s = magi.item %x : tensor<3xf32> -> f64
  return %s : f64
}

// -----

func.func @item_float_as_index(%x: tensor<f32>) -> index {
  // expected-error @+1 {{'magi.item' op gives an f64 for a floating-point tensor, not 'index'}}
  %s = magi.item %x : tensor<f32> -> index
  return %s : index
}

// -----

func.func @item_int_as_f64(%x: tensor<1xi64>) -> f64 {
  // expected-error @+1 {{'magi.item' op gives an index for an integer or bool tensor, not 'f64'}}
  %s = magi.item %x : tensor<1xi64> -> f64
  return %s : f64
}

// -----

func.func @item_float_bound(%x: tensor<f32>, %n: index) -> f64 {
  // expected-error @+1 {{'magi.item' op bounds an integer element only}}
  %s = magi.item %x bound %n : tensor<f32> -> f64
  return %s : f64
}

// -----

func.func @item_clamped_without_bound(%x: tensor<i64>) -> index {
  // expected-error @+1 {{'magi.item' op is clamped only with a bound, and for an integer (not bool) element}}
  %s = magi.item %x {clamped} : tensor<i64> -> index
  return %s : index
}

// -----

func.func @item_clamped_bool(%x: tensor<i1>, %n: index) -> index {
  // expected-error @+1 {{'magi.item' op is clamped only with a bound, and for an integer (not bool) element}}
  %s = magi.item %x bound %n {clamped} : tensor<i1> -> index
  return %s : index
}
