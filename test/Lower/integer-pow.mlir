// Integer pow lowers to squaring over the exponent's bits (no LLVM or GPU
// lowering exists for math.ipowi), and computes what the interpreter does,
// wrapping on overflow as PyTorch's int64 pow does.
// RUN: magi-opt %s --magi-lower-to-linalg | FileCheck %s --check-prefix=IR
// RUN: magi-interp %s | FileCheck %s
// RUN: magi-interp %s --lowered-pieces | FileCheck %s
// RUN: magi-compile %S/Inputs/integer-pow-graph.mlir -o %t --cache-mode=off --no-cubin | FileCheck %s --check-prefix=COMPILE
// COMPILE: 1 pieces, 1 kernels

// IR-LABEL: func.func @main
// IR: linalg.generic
// IR: scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args
// IR: arith.shrui
// IR-NOT: math.ipowi

// CHECK: out0: tensor<7xi64> = [1024, 27, 25, 1, -8, 16, 5076944270305263616]
// CHECK: out1: tensor<3xi32> = [81, -27, 1]
func.func @main() -> (tensor<7xi64>, tensor<3xi32>) {
  %b = magi.constant dense<[2, 3, 5, 0, -2, -2, 10]> : tensor<7xi64>
  %e = magi.constant dense<[10, 3, 2, 0, 3, 4, 30]> : tensor<7xi64>
  %p = magi.pow %b, %e : (tensor<7xi64>, tensor<7xi64>) -> tensor<7xi64>
  %b32 = magi.constant dense<[3, -3, 7]> : tensor<3xi32>
  %e32 = magi.constant dense<[4, 3, 0]> : tensor<3xi32>
  %p32 = magi.pow %b32, %e32 : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %p, %p32 : tensor<7xi64>, tensor<3xi32>
}
