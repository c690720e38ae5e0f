// log_softmax lowers as softmax does (row max and sum of exp(x - max), two
// reductions in f32), then (x - max) - log(sum) rounded to the result dtype.
// The lowered code computes in f32 what the interpreter computes in f64:
// the checks stop at five digits.
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" | FileCheck %s --check-prefix=IR
// RUN: magi-interp %s | FileCheck %s
// RUN: magi-interp %s --lowered-pieces | FileCheck %s
// RUN: magi-compile %S/Inputs/log-softmax-graph.mlir -o %t --cache-mode=off --no-cubin | FileCheck %s --check-prefix=COMPILE
// COMPILE: 1 pieces, {{[0-9]+}} kernels

// IR-LABEL: func.func @main
// IR: arith.maximumf
// IR: math.exp
// IR: math.log
// IR-NOT: magi.log_softmax

// CHECK:      out0: tensor<2x3xf32> = {{\[}}[-1.7069{{[0-9]*}}, -5.2069{{[0-9]*}}, -0.20690{{[0-9]*}}], [-3.5362{{[0-9]*}}, -0.036269{{[0-9]*}}, -5.0362{{[0-9]*}}]]
// CHECK-NEXT: out1: tensor<2x3xf32> = {{\[}}[-0.31326{{[0-9]*}}, -6.0024{{[0-9]*}}, -0.018149{{[0-9]*}}], [-1.3132{{[0-9]*}}, -0.0024756{{[0-9]*}}, -4.0181{{[0-9]*}}]]
// CHECK-NEXT: out2: tensor<2x3xbf16> = {{\[}}[-1.7, -5.22, -0.207], [-3.53, -0.0364, -5.03]]
func.func @main() -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xbf16>) {
  %x = magi.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]]> : tensor<2x3xf32>
  %h = magi.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]]> : tensor<2x3xbf16>
  %a = magi.log_softmax %x {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = magi.log_softmax %x {dim = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = magi.log_softmax %h {dim = -1 : i64} : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
  return %a, %b, %c : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xbf16>
}
