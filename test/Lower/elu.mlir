// elu (PyTorch's ELU with alpha, scale and input_scale; SELU and CELU
// decompose to it): x <= 0 ? expm1(x * input_scale) * alpha * scale :
// x * scale, NaN staying NaN; interpreted and lowered to one generic that
// computes the same (f32 expm1 in libm may differ from the interpreter's
// double in the last digit).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 2,4 -2,-0.5,0,0.5,nan,inf,-inf,3
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" | FileCheck %s --check-prefix=IR
// RUN: magi-interp %s --input %t/x.npy | FileCheck %s
// RUN: magi-interp %s --lowered-pieces --input %t/x.npy | FileCheck %s
// RUN: magi-compile %S/Inputs/elu-graph.mlir -o %t/art --cache-mode=off --no-cubin | FileCheck %s --check-prefix=COMPILE

// IR-LABEL: func.func @main
// IR: math.expm1
// IR: arith.cmpf ole
// IR: arith.select
// IR-NOT: magi.elu

// COMPILE: 1 pieces, {{[0-9]+}} kernels

// CHECK:      out0: tensor<2x4xf32> = {{\[}}[-0.86466473, -0.39346933, 0, 0.5], [nan, inf, -1, 3]]
// CHECK-NEXT: out1: tensor<2x4xf32> = {{\[}}[-1.5201665, -0.6917582, 0, 0.5253505], [nan, inf, -1.7580993, 3.152103]]
// CHECK-NEXT: out2: tensor<2x4xbf16> = {{\[}}[-1.266, -0.443, 0, 0.5], [nan, inf, -2, 3]]

func.func @main(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xbf16>) {
  %0 = magi.elu %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // SELU's constants.
  %1 = magi.elu %x {alpha = 1.6732632423543772 : f64, scale = 1.0507009873554805 : f64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CELU with alpha 2: elu(x, alpha = 2, input_scale = 1 / 2).
  %h = magi.to_copy %x {dtype = bf16} : (tensor<2x4xf32>) -> tensor<2x4xbf16>
  %2 = magi.elu %h {alpha = 2.0 : f64, input_scale = 0.5 : f64} : (tensor<2x4xbf16>) -> tensor<2x4xbf16>
  return %0, %1, %2 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xbf16>
}
