// acos, asin, atan, acosh, asinh, atanh, cosh, sinh, tan and log10 lower to
// the math dialect's functions (libm on the CPU, libdevice on the GPU),
// computing in f32 for bf16 and integer inputs as PyTorch does. The lowered
// code computes what the interpreter does, outside the domain too (NaN),
// to the last digit but for acosh, asinh and cosh, where f32 libm and the
// interpreter's double rounded to f32 may differ by one.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 2,4 -0.5,0.5,0.9,2,nan,inf,-inf,0
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/y.npy float32 2,4 1,1.5,10,0.5,nan,inf,-1,100
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/i.npy int64 3 1,10,1000
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" | FileCheck %s --check-prefix=IR
// RUN: magi-interp %s --input %t/x.npy --input %t/y.npy --input %t/i.npy | FileCheck %s
// RUN: magi-interp %s --lowered-pieces --input %t/x.npy --input %t/y.npy --input %t/i.npy | FileCheck %s
// RUN: magi-compile %S/Inputs/inverse-hyperbolic-graph.mlir -o %t/art --cache-mode=off --no-cubin | FileCheck %s --check-prefix=COMPILE
// RUN: cat %t/art/pieces/*.ptx | FileCheck %s --check-prefix=PTX

// IR-LABEL: func.func @main
// IR: math.acos
// IR: math.asin
// IR: math.atan
// IR: math.acosh
// IR: math.asinh
// IR: math.atanh
// IR: math.cosh
// IR: math.sinh
// IR: math.tan
// IR: math.log10
// IR: arith.sitofp
// IR: math.log10
// IR: arith.extf
// IR: math.sinh
// IR: arith.truncf
// IR-NOT: magi.

// CHECK:      out0: tensor<2x4xf32> = {{\[}}[2.0943952, 1.0471976, 0.45102686, nan], [nan, nan, nan, 1.5707964]]
// CHECK-NEXT: out1: tensor<2x4xf32> = {{\[}}[-0.5235988, 0.5235988, 1.1197695, nan], [nan, nan, nan, 0]]
// CHECK-NEXT: out2: tensor<2x4xf32> = {{\[}}[-0.4636476, 0.4636476, 0.7328151, 1.1071488], [nan, 1.5707964, -1.5707964, 0]]
// CHECK-NEXT: out3: tensor<2x4xf32> = {{\[}}[0, 0.962423{{6|7}}, 2.993223, nan], [nan, inf, nan, 5.298292]]
// CHECK-NEXT: out4: tensor<2x4xf32> = {{\[}}[-0.4812118{{4?}}, 0.4812118{{4?}}, 0.808866{{9|86}}, 1.4436355], [nan, inf, -inf, 0]]
// CHECK-NEXT: out5: tensor<2x4xf32> = {{\[}}[-0.54930615, 0.54930615, 1.4722193, nan], [nan, nan, nan, 0]]
// CHECK-NEXT: out6: tensor<2x4xf32> = {{\[}}[1.127626, 1.127626, 1.4330864, 3.762195{{6|8}}], [nan, inf, inf, 1]]
// CHECK-NEXT: out7: tensor<2x4xf32> = {{\[}}[-0.5210953, 0.5210953, 1.0265167, 3.6268604], [nan, inf, -inf, 0]]
// CHECK-NEXT: out8: tensor<2x4xf32> = {{\[}}[-0.5463025, 0.5463025, 1.2601582, -2.1850398], [nan, nan, nan, 0]]
// CHECK-NEXT: out9: tensor<2x4xf32> = {{\[}}[0, 0.17609125, 1, -0.30103], [nan, inf, nan, 2]]
// CHECK-NEXT: out10: tensor<3xf32> = [0, 1, 3]
// CHECK-NEXT: out11: tensor<2x4xbf16> = {{\[}}[-0.52, 0.52, 1.02, 3.62], [nan, inf, -inf, 0]]

// COMPILE: 1 pieces, {{[0-9]+}} kernels
// libdevice's functions are linked into the kernel: nothing external is
// left to call.
// PTX: .entry
// PTX-NOT: .extern

func.func @main(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>, %i: tensor<3xi64>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<3xf32>, tensor<2x4xbf16>) {
  %0 = magi.acos %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = magi.asin %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = magi.atan %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = magi.acosh %y : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %4 = magi.asinh %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %5 = magi.atanh %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = magi.cosh %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %7 = magi.sinh %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %8 = magi.tan %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %9 = magi.log10 %y : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %10 = magi.log10 %i : (tensor<3xi64>) -> tensor<3xf32>
  %xb = magi.to_copy %x {dtype = bf16} : (tensor<2x4xf32>) -> tensor<2x4xbf16>
  %11 = magi.sinh %xb : (tensor<2x4xbf16>) -> tensor<2x4xbf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<3xf32>, tensor<2x4xbf16>
}
