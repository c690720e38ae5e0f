// magi.convolution (aten.convolution): a 2-d one with groups, bias, stride,
// padding and dilation, and a 1-d bf16 one without bias, interpreted and
// lowered (one generic after the padding, accumulating in f32), both equal
// to a plain Python reference on integer-valued data (exact in f32 and
// bf16); a 2-d one over a symbolic batch and image size compiles to PTX.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 2,4,6,5 $(%python %S/Inputs/conv_reference.py data 240)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/w.npy float32 6,2,3,2 $(%python %S/Inputs/conv_reference.py data 72)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/b.npy float32 6 $(%python %S/Inputs/conv_reference.py data 6)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x1.npy float32 1,3,7 $(%python %S/Inputs/conv_reference.py data 21)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/w1.npy float32 4,3,3 $(%python %S/Inputs/conv_reference.py data 36)
// RUN: %python %S/Inputs/conv_reference.py conv 2,4,6,5 6,2,3,2 1 2,1 1,0 1,2 2 out0 f32 > %t/expected
// RUN: %python %S/Inputs/conv_reference.py conv 1,3,7 4,3,3 0 1 1 1 1 out1 bf16 >> %t/expected
// RUN: magi-interp %s --input %t/x.npy --input %t/w.npy --input %t/b.npy --input %t/x1.npy --input %t/w1.npy > %t/interp
// RUN: diff %t/expected %t/interp
// RUN: magi-interp %s --lowered-pieces --input %t/x.npy --input %t/w.npy --input %t/b.npy --input %t/x1.npy --input %t/w1.npy > %t/lowered
// RUN: diff %t/expected %t/lowered
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" | FileCheck %s --check-prefix=IR
// RUN: magi-compile %S/Inputs/convolution-graph.mlir -o %t/art --cache-mode=off --no-cubin | FileCheck %s --check-prefix=COMPILE

// The 2-d one: padded, channels split into 2 groups, one generic with the
// strided and dilated window, bias first, f32 throughout.
// IR-LABEL: func.func @main
// IR:       tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 2, 8, 5] : tensor<2x4x8x5xf32> into tensor<2x2x2x8x5xf32>
// IR:       tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 2] : tensor<6x2x3x2xf32> into tensor<2x3x2x3x2xf32>
// IR:       linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// IR:       arith.mulf
// IR-NEXT:  arith.addf
// IR:       tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x3x3x3xf32> into tensor<2x6x3x3xf32>
// IR-NOT:   magi.convolution

// COMPILE: 1 pieces, {{[0-9]+}} kernels

func.func @main(%x: tensor<2x4x6x5xf32>, %w: tensor<6x2x3x2xf32>, %b: tensor<6xf32>,
                %x1: tensor<1x3x7xf32>, %w1: tensor<4x3x3xf32>)
    -> (tensor<2x6x3x3xf32>, tensor<1x4x7xbf16>) {
  %0 = magi.convolution %x, %w, %b {stride = array<i64: 2, 1>, padding = array<i64: 1, 0>, dilation = array<i64: 1, 2>, groups = 2 : i64} : (tensor<2x4x6x5xf32>, tensor<6x2x3x2xf32>, tensor<6xf32>) -> tensor<2x6x3x3xf32>
  %hx = magi.to_copy %x1 {dtype = bf16} : (tensor<1x3x7xf32>) -> tensor<1x3x7xbf16>
  %hw = magi.to_copy %w1 {dtype = bf16} : (tensor<4x3x3xf32>) -> tensor<4x3x3xbf16>
  %1 = magi.convolution %hx, %hw {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>} : (tensor<1x3x7xbf16>, tensor<4x3x3xbf16>) -> tensor<1x4x7xbf16>
  return %0, %1 : tensor<2x6x3x3xf32>, tensor<1x4x7xbf16>
}
