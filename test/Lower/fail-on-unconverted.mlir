// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" -verify-diagnostics -split-input-file
// RUN: magi-opt %s --magi-lower-to-linalg -split-input-file | FileCheck %s

// Without the option, what is not converted stays; bindings go (a piece's
// sizes are in its types and tensor.dim), and with them the unused symbol.
// CHECK-LABEL: func.func @partial
// CHECK-NOT: magi.symbolic_int
// CHECK-NOT: magi.bind_symbolic_shape
// CHECK: linalg.generic
// CHECK: magi.scatter
func.func @partial(%x: tensor<?x4xf32>, %i: tensor<?x4xi64>, %m: tensor<?x4xi1>) -> (tensor<?x4xf32>, tensor<?x4xi1>) {
  %s0 = magi.symbolic_int "s0" min 2 max 64
  magi.bind_symbolic_shape %x, [%s0], affine_map<()[s0] -> (s0, 4)> : tensor<?x4xf32>
  %0 = magi.exp %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // A bool scatter_add: bool elements have no atomic add.
  // expected-error @+1 {{'magi.scatter' in piece @partial was not lowered to linalg}}
  %1 = magi.scatter %m, %i, %m {dim = 1 : i64, reduce = "add"} : (tensor<?x4xi1>, tensor<?x4xi64>, tensor<?x4xi1>) -> tensor<?x4xi1>
  return %0, %1 : tensor<?x4xf32>, tensor<?x4xi1>
}
