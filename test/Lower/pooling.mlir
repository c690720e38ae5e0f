// magi.max_pool and magi.avg_pool: padding, ceil_mode, dilation, a NaN
// and -inf in the window, count_include_pad both ways, divisor_override,
// a 1-d pool over unbatched input; interpreted, and lowered to one
// reduction generic each (plus the divisor's generic), both giving the same
// values. Checked by hand: the NaN wins with its index (6), ties keep the
// first index (15), a window clipped by the padding divides by 6 or by its
// 2 elements inside, 14 / 3 in bf16 is 4.66.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 1,2,4,5 1,5,2,8,3,-1,nan,4,0,2,7,6,-inf,9,1,3,3,3,2,0,-2,-4,-1,-3,-5,-6,-7,-8,-9,-10,1,1,1,1,1,2,2,2,2,2
// RUN: magi-interp %s --input %t/x.npy | FileCheck %s
// RUN: magi-interp %s --lowered-pieces --input %t/x.npy | FileCheck %s
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" | FileCheck %s --check-prefix=IR
// RUN: magi-compile %S/Inputs/pooling-graph.mlir -o %t/art --cache-mode=off --no-cubin | FileCheck %s --check-prefix=COMPILE

// IR-LABEL: func.func @main
// IR: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// IR: tensor.extract
// IR-NOT: magi.max_pool
// IR-NOT: magi.avg_pool

// COMPILE: 1 pieces, {{[0-9]+}} kernels

// CHECK:      out0: tensor<1x2x3x3xf32> = {{\[\[\[\[}}nan, nan, 8], {{\[}}nan, nan, 9], {{\[}}3, 3, 2]], {{\[\[}}-2, -1, -3], {{\[}}2, 2, 2], {{\[}}2, 2, 2]]]]
// CHECK-NEXT: out1: tensor<1x2x3x3xi64> = {{\[\[\[\[}}6, 6, 3], {{\[}}6, 6, 13], {{\[}}15, 16, 18]], {{\[\[}}0, 2, 3], {{\[}}15, 16, 18], {{\[}}15, 16, 18]]]]
// CHECK-NEXT: out2: tensor<1x2x3x3xf32> = {{\[\[\[\[}}nan, nan, 1.4444444], {{\[}}nan, nan, 1.5555556], {{\[}}1, 1.3333334, 0.33333334]], {{\[\[}}-2.1111112, -3.5555556, -3], {{\[}}-0.7777778, -1.6666666, -1.4444444], {{\[}}0.6666667, 1, 0.6666667]]]]
// CHECK-NEXT: out3: tensor<1x2x3x3xf32> = {{\[\[\[\[}}nan, nan, 3.25], {{\[}}nan, nan, 2.3333333], {{\[}}3, 2.6666667, 1]], {{\[\[}}-4.75, -5.3333335, -6.75], {{\[}}-1.1666666, -1.6666666, -2.1666667], {{\[}}2, 2, 2]]]]
// CHECK-NEXT: out4: tensor<1x2x2x2xbf16> = {{\[\[\[\[}}nan, 4.66], {{\[}}6.34, -inf]], {{\[\[}}-6.34, -7], {{\[}}2, 2]]]]
// CHECK-NEXT: out5: tensor<2x4x2xf32> = {{\[\[\[}}2, 3], {{\[}}4, 4], {{\[}}7, 1], {{\[}}3, 3]], {{\[\[}}-1, -1], {{\[}}-6, -8], {{\[}}1, 1], {{\[}}2, 2]]]

func.func @main(%x: tensor<1x2x4x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x2x2xbf16>, tensor<2x4x2xf32>) {
  %v, %i = magi.max_pool %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode} : (tensor<1x2x4x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
  %a = magi.avg_pool %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode} : (tensor<1x2x4x5xf32>) -> tensor<1x2x3x3xf32>
  %b = magi.avg_pool %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode, count_include_pad = false} : (tensor<1x2x4x5xf32>) -> tensor<1x2x3x3xf32>
  %h = magi.to_copy %x {dtype = bf16} : (tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xbf16>
  %c = magi.avg_pool %h {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, divisor_override = 3 : i64} : (tensor<1x2x4x5xbf16>) -> tensor<1x2x2x2xbf16>
  %r = magi.view %x [2, 4, 5] : tensor<1x2x4x5xf32> -> tensor<2x4x5xf32>
  %d, %j = magi.max_pool %r {kernel_size = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 0>, dilation = array<i64: 2>} : (tensor<2x4x5xf32>) -> (tensor<2x4x2xf32>, tensor<2x4x2xi64>)
  return %v, %i, %a, %b, %c, %d : tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x2x2xbf16>, tensor<2x4x2xf32>
}
