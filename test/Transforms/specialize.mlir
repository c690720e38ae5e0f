// RUN: magi-opt %s -magi-specialize='symbol=s0 value=512' | FileCheck %s
// RUN: magi-opt %s -magi-specialize='symbol=s0 value=512' | magi-opt -verify-diagnostics > /dev/null
// RUN: magi-opt %s -magi-specialize='symbol=s0 value=512 replace=true' | FileCheck %s --check-prefix=REPLACE
// RUN: magi-opt %s -magi-specialize='symbol=s0 value=2' -magi-specialize='symbol=s0 value=1024' | FileCheck %s --check-prefix=TWICE
// RUN: magi-opt %s -magi-specialize='symbol=s1 value=3' | FileCheck %s --check-prefix=S1
// RUN: not magi-opt %s -magi-specialize='symbol=s0 value=1025' 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not magi-opt %s -magi-specialize='symbol=s0 value=1' 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not magi-opt %s -magi-specialize='symbol=s9 value=4' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not magi-opt %s -magi-specialize='value=4' 2>&1 | FileCheck %s --check-prefix=NOSYM

// magi-specialize: a clone of each public function that declares the symbol,
// with the symbol fixed: @<name>_<symbol>_<value>, marked magi.specialized,
// its symbolic_int a constant, bound dims static, shapes refolded.

// The original stays as it is.
// CHECK-LABEL: func.func @layer(
// CHECK-SAME: %{{.*}}: tensor<1x?x128xf32>, %{{.*}}: tensor<128x64xf32>) -> tensor<1x?x64xf32> {
// CHECK-NEXT: magi.symbolic_int "s0" min 2 max 1024
// CHECK-NOT: magi.specialized
// CHECK: return

// The clone, right after it: static arguments, results and intermediates
// (bound or inferred from static operands); sym_size folds to the constant.
// CHECK-LABEL: func.func @layer_s0_512(
// CHECK-SAME: %[[X:.*]]: tensor<1x512x128xf32>, %[[W:.*]]: tensor<128x64xf32>) -> tensor<1x512x64xf32>
// CHECK-SAME: attributes {magi.specialized = {s0 = 512 : i64}}
// CHECK-NOT: magi.symbolic_int
// CHECK-NOT: magi.sym_size
// CHECK-NOT: magi.bind_symbolic_shape
// CHECK: %[[C:.*]] = arith.constant 512 : index
// CHECK: %[[V:.*]] = magi.view %[[X]] [%[[C]], 128] : tensor<1x512x128xf32> -> tensor<512x128xf32>
// CHECK: %[[M:.*]] = magi.mm %[[V]], %[[W]] : (tensor<512x128xf32>, tensor<128x64xf32>) -> tensor<512x64xf32>
// CHECK: %[[R:.*]] = magi.view %[[M]] [1, %[[C]], 64] : tensor<512x64xf32> -> tensor<1x512x64xf32>
// CHECK: return %[[R]] : tensor<1x512x64xf32>
func.func @layer(%x: tensor<1x?x128xf32>, %w: tensor<128x64xf32>) -> tensor<1x?x64xf32> {
  %s0 = magi.symbolic_int "s0" min 2 max 1024
  magi.bind_symbolic_shape %x, [%s0], affine_map<()[s0] -> (1, s0, 128)> : tensor<1x?x128xf32>
  %n = magi.sym_size %x, 1 : tensor<1x?x128xf32>
  %v = magi.view %x [%n, 128] : tensor<1x?x128xf32> -> tensor<?x128xf32>
  magi.bind_symbolic_shape %v, [%s0], affine_map<()[s0] -> (s0, 128)> : tensor<?x128xf32>
  %m = magi.mm %v, %w : (tensor<?x128xf32>, tensor<128x64xf32>) -> tensor<?x64xf32>
  %r = magi.view %m [1, %n, 64] : tensor<?x64xf32> -> tensor<1x?x64xf32>
  magi.bind_symbolic_shape %r, [%s0], affine_map<()[s0] -> (1, s0, 64)> : tensor<1x?x64xf32>
  return %r : tensor<1x?x64xf32>
}

// Bound expressions fold (s0 + 1 = 513); shapes inferred from static operands
// follow (cat, exp).
// CHECK-LABEL: func.func @expr(
// CHECK-SAME: tensor<1x?x128xf32>
// CHECK-LABEL: func.func @expr_s0_512(
// CHECK-SAME: %[[X:.*]]: tensor<1x512x128xf32>) -> tensor<1x513x128xf32> attributes {magi.specialized = {s0 = 512 : i64}}
// CHECK: magi.cat %{{.*}}, %[[X]] {dim = 1 : i64} : (tensor<1x1x128xf32>, tensor<1x512x128xf32>) -> tensor<1x513x128xf32>
// CHECK: magi.exp %{{.*}} : (tensor<1x513x128xf32>) -> tensor<1x513x128xf32>
func.func @expr(%x: tensor<1x?x128xf32>) -> tensor<1x?x128xf32> {
  %s0 = magi.symbolic_int "s0" min 2 max 1024
  magi.bind_symbolic_shape %x, [%s0], affine_map<()[s0] -> (1, s0, 128)> : tensor<1x?x128xf32>
  %c = magi.constant dense<0.0> : tensor<1x1x128xf32>
  %y = magi.cat %c, %x {dim = 1 : i64} : (tensor<1x1x128xf32>, tensor<1x?x128xf32>) -> tensor<1x?x128xf32>
  magi.bind_symbolic_shape %y, [%s0], affine_map<()[s0] -> (1, s0 + 1, 128)> : tensor<1x?x128xf32>
  %z = magi.exp %y : (tensor<1x?x128xf32>) -> tensor<1x?x128xf32>
  return %z : tensor<1x?x128xf32>
}

// A function that declares another symbol is left alone.
// CHECK-LABEL: func.func @other(
// CHECK-SAME: tensor<?xf32>
// CHECK-NEXT: magi.symbolic_int "s1"
// CHECK-NOT: @other_s0_512
func.func @other(%x: tensor<?xf32>) -> tensor<?xf32> {
  %s1 = magi.symbolic_int "s1" min 2 max 64
  magi.bind_symbolic_shape %x, [%s1], affine_map<()[s0] -> (s0)> : tensor<?xf32>
  return %x : tensor<?xf32>
}

// replace=true: in place, under the same name.
// REPLACE-LABEL: func.func @layer(
// REPLACE-SAME: tensor<1x512x128xf32>, %{{.*}}: tensor<128x64xf32>) -> tensor<1x512x64xf32> attributes {magi.specialized = {s0 = 512 : i64}}
// REPLACE-NOT: magi.symbolic_int
// REPLACE-LABEL: func.func @expr(
// REPLACE-SAME: tensor<1x512x128xf32>) -> tensor<1x513x128xf32>
// REPLACE-NOT: _s0_512

// Specialized functions are not specialized again: a second value clones the
// original, and the clones sit right after it, newest first. The range is
// inclusive.
// TWICE-LABEL: func.func @layer(
// TWICE-LABEL: func.func @layer_s0_1024(
// TWICE-SAME: tensor<1x1024x128xf32>
// TWICE-SAME: {magi.specialized = {s0 = 1024 : i64}}
// TWICE-LABEL: func.func @layer_s0_2(
// TWICE-SAME: tensor<1x2x128xf32>
// TWICE-SAME: {magi.specialized = {s0 = 2 : i64}}
// TWICE-NOT: _s0_2_s0_1024

// Another symbol of the module.
// S1-LABEL: func.func @other_s1_3(
// S1-SAME: %{{.*}}: tensor<3xf32>) -> tensor<3xf32> attributes {magi.specialized = {s1 = 3 : i64}}
// S1-NOT: @layer_s1_3

// Errors. (The value in the range message is printed as a character today:
// see the report.)
// RANGE: error: cannot specialize 's0' to {{.*}}: outside its range [2, 1024]
// UNKNOWN: error: no function declares the symbol 's9'
// NOSYM: error: magi-specialize needs a symbol
