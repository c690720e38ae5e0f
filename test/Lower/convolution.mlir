// magi.convolution (aten.convolution): 2-d ones with groups, bias, stride,
// padding and dilation (two groups: one generic after the padding; one
// group of few positions: the windows of both images gathered side by side
// and one product), a 1 x 1 one (the input is its own columns), one of 1024
// positions (one product per image), one of two groups deep enough for a
// product each (one product batched over the groups), and a 1-d bf16 one
// without bias (and the grouped one over a symbolic batch),
// interpreted and lowered (accumulating in f32), all equal to a plain
// Python reference on integer-valued data (exact in f32 and bf16); a 2-d
// one over a symbolic batch and image size compiles to PTX.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 2,4,6,5 $(%python %S/Inputs/conv_reference.py data 240)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/w.npy float32 6,2,3,2 $(%python %S/Inputs/conv_reference.py data 72)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/b.npy float32 6 $(%python %S/Inputs/conv_reference.py data 6)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x1.npy float32 1,3,7 $(%python %S/Inputs/conv_reference.py data 21)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/w1.npy float32 4,3,3 $(%python %S/Inputs/conv_reference.py data 36)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/w2.npy float32 6,4,3,2 $(%python %S/Inputs/conv_reference.py data 144)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/w3.npy float32 3,4,1,1 $(%python %S/Inputs/conv_reference.py data 12)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x4.npy float32 2,2,32,33 $(%python %S/Inputs/conv_reference.py data 4224)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/w4.npy float32 3,2,1,2 $(%python %S/Inputs/conv_reference.py data 12)
// RUN: %python %S/Inputs/conv_reference.py conv 2,4,6,5 6,2,3,2 1 2,1 1,0 1,2 2 out0 f32 > %t/expected
// RUN: %python %S/Inputs/conv_reference.py conv 1,3,7 4,3,3 0 1 1 1 1 out1 bf16 >> %t/expected
// RUN: %python %S/Inputs/conv_reference.py conv 2,4,6,5 6,4,3,2 1 2,1 1,0 1,2 1 out2 f32 >> %t/expected
// RUN: %python %S/Inputs/conv_reference.py conv 2,4,6,5 3,4,1,1 0 1,1 0,0 1,1 1 out3 f32 >> %t/expected
// RUN: %python %S/Inputs/conv_reference.py conv 2,2,32,33 3,2,1,2 0 1,1 0,0 1,1 1 out4 f32 >> %t/expected
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x5.npy float32 2,16,5,5 $(%python %S/Inputs/conv_reference.py data 800)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/w5.npy float32 16,8,3,3 $(%python %S/Inputs/conv_reference.py data 1152)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/b5.npy float32 16 $(%python %S/Inputs/conv_reference.py data 16)
// RUN: %python %S/Inputs/conv_reference.py conv 2,16,5,5 16,8,3,3 1 1,1 1,1 1,1 2 out5 f32 >> %t/expected
// RUN: magi-interp %s --print-limit=10000 --input %t/x.npy --input %t/w.npy --input %t/b.npy --input %t/x1.npy --input %t/w1.npy --input %t/w2.npy --input %t/w3.npy --input %t/x4.npy --input %t/w4.npy --input %t/x5.npy --input %t/w5.npy --input %t/b5.npy > %t/interp
// RUN: diff %t/expected %t/interp
// RUN: magi-interp %s --lowered-pieces --print-limit=10000 --input %t/x.npy --input %t/w.npy --input %t/b.npy --input %t/x1.npy --input %t/w1.npy --input %t/w2.npy --input %t/w3.npy --input %t/x4.npy --input %t/w4.npy --input %t/x5.npy --input %t/w5.npy --input %t/b5.npy > %t/lowered
// RUN: diff %t/expected %t/lowered
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" | FileCheck %s --check-prefix=IR
// RUN: magi-compile %S/Inputs/convolution-graph.mlir -o %t/art --cache-mode=off --no-cubin | FileCheck %s --check-prefix=COMPILE
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/gx.npy float32 3,16,5,5 $(%python %S/Inputs/conv_reference.py data 1200)
// RUN: %python %S/Inputs/conv_reference.py conv 3,16,5,5 16,8,3,3 0 1,1 1,1 1,1 2 out0 f32 > %t/grouped-expected
// RUN: magi-interp %S/Inputs/grouped-convolution-graph.mlir --lowered-pieces --print-limit=10000 --input %t/gx.npy --input %t/w5.npy > %t/grouped-lowered
// RUN: diff %t/grouped-expected %t/grouped-lowered
// RUN: magi-compile %S/Inputs/grouped-convolution-graph.mlir -o %t/grouped --cache-mode=off --no-cubin | FileCheck %s --check-prefix=GROUPED

// IR-DAG:   #[[$WEIGHT:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// IR-DAG:   #[[$COLUMNS:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// IR-DAG:   #[[$PRODUCT:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// IR-DAG:   #[[$GROUP_WEIGHT:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// IR-DAG:   #[[$IMAGE:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d3 floordiv 9)>
// IR-DAG:   #[[$ROW:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (((d3 mod 9) floordiv 3) * 2 + d1 - 1)>
// IR-DAG:   #[[$COLUMN:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d3 mod 3 + d2 * 2)>
// IR-DAG:   #[[$TAP_1D:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d2 + d3 - 1)>
// IR-DAG:   #[[$WINDOWS:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>
// IR-DAG:   #[[$IMAGE_BY_IMAGE:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// IR-DAG:   #[[$BIAS:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1)>

// The 2-d one of two groups: padded, channels split into 2 groups, one
// generic with the strided and dilated window, bias first, f32 throughout.
// IR-LABEL: func.func @main
// IR:       tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 2, 8, 5] : tensor<2x4x8x5xf32> into tensor<2x2x2x8x5xf32>
// IR:       tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 2] : tensor<6x2x3x2xf32> into tensor<2x3x2x3x2xf32>
// IR:       linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// IR:       arith.mulf
// IR-NEXT:  arith.addf
// IR:       tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x3x3x3xf32> into tensor<2x6x3x3xf32>

// The 1-d bf16 one: the input's windows gathered into [1, 3, 3, 7]
// (channel, tap, position) at tap + position - 1, zero outside the input
// (no padded copy), the weight [4, 9] times the image's columns [9, 7]
// into f32, one rounding; no reshape of a 1-d result.
// IR-NOT:   tensor<1x3x9xbf16>
// IR:       linalg.generic {{.*}} outs(%{{.*}} : tensor<1x3x3x7xbf16>)
// IR:         %[[POS:.*]] = affine.apply #[[$TAP_1D]](
// IR-DAG:     %[[LOW:.*]] = arith.cmpi sge, %[[POS]], %c0
// IR-DAG:     %[[HIGH:.*]] = arith.cmpi slt, %[[POS]], %c7
// IR:         %[[IN:.*]] = arith.andi
// IR:         %[[CLAMPED:.*]] = arith.maxsi
// IR:         %[[X:.*]] = tensor.extract %{{.*}}[%{{.*}}, %{{.*}}, %[[CLAMPED]]] : tensor<1x3x7xbf16>
// IR:         arith.select %[[IN]], %[[X]], %{{.*}} : bf16
// IR:       tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3]] : tensor<1x3x3x7xbf16> into tensor<1x9x7xbf16>
// IR:       tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<4x3x3xbf16> into tensor<4x9xbf16>
// IR:       linalg.fill
// IR:       linalg.generic {indexing_maps = [#[[$WEIGHT]], #[[$COLUMNS]], #[[$PRODUCT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<4x9xbf16>, tensor<1x9x7xbf16>) outs(%{{.*}} : tensor<1x4x7xf32>)
// IR:       arith.truncf %{{.*}} : f32 to bf16
// IR-NOT:   tensor.expand_shape

// The 2-d one of one group, 9 positions an image: the windows gathered at
// out * stride + tap * dilation - padding with the images side by side
// ([C, *kernel, N * out], one column index decomposed into image and
// position), zero outside the input (the row; no padding of the column),
// one product [6, 24] x [24, 2 * 9], then each image's columns read back
// with the bias added.
// IR:       linalg.generic {{.*}} outs(%{{.*}} : tensor<4x3x2x18xf32>)
// IR:         %[[N:.*]] = affine.apply #[[$IMAGE]](
// IR:         %[[R:.*]] = affine.apply #[[$ROW]](
// IR:         %[[C:.*]] = affine.apply #[[$COLUMN]](
// IR:         tensor.extract %{{.*}}[%[[N]], %{{.*}}, %{{.*}}, %[[C]]] : tensor<2x4x6x5xf32>
// IR:       tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : tensor<4x3x2x18xf32> into tensor<24x18xf32>
// IR:       tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<6x4x3x2xf32> into tensor<6x24xf32>
// IR:       linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<6x24xf32>, tensor<24x18xf32>) outs(%{{.*}} : tensor<6x18xf32>)
// IR:       tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [6, 2, 9] : tensor<6x18xf32> into tensor<6x2x9xf32>
// IR:       linalg.generic {indexing_maps = [#[[$IMAGE_BY_IMAGE]], #[[$BIAS]], #{{.*}}]{{.*}} ins(%{{.*}}, %{{.*}} : tensor<6x2x9xf32>, tensor<6xf32>) outs(%{{.*}} : tensor<2x6x9xf32>)
// IR-NEXT:  ^bb0(%[[SUM:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// IR-NEXT:    arith.addf %[[SUM]], %[[B]] : f32
// IR:       tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] output_shape [2, 6, 3, 3] : tensor<2x6x9xf32> into tensor<2x6x3x3xf32>

// The 1 x 1 one: the input is its own columns, no gather.
// IR-NEXT:  tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<2x4x6x5xf32> into tensor<2x4x30xf32>
// IR-NEXT:  tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<3x4x1x1xf32> into tensor<3x4xf32>
// IR:       linalg.generic {indexing_maps = [#[[$WEIGHT]], #[[$COLUMNS]], #[[$PRODUCT]]], {{.*}} ins(%{{.*}}, %{{.*}} : tensor<3x4xf32>, tensor<2x4x30xf32>) outs(%{{.*}} : tensor<2x3x30xf32>)
// IR:       tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] output_shape [2, 3, 6, 5] : tensor<2x3x30xf32> into tensor<2x3x6x5xf32>

// A 1 x 2 one of 1024 positions an image: the windows gathered image by
// image (rows of 32 f32, whole 16-byte vectors, kept as rows), one product
// per image over the shared weight [3, 4].
// IR:       linalg.generic {indexing_maps = [#[[$WINDOWS]], #{{.*}}]{{.*}} ins(%{{.*}} : tensor<2x2x32x33xf32>) outs(%{{.*}} : tensor<2x2x1x2x32x32xf32>)
// IR:       tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3], [4, 5]] : tensor<2x2x1x2x32x32xf32> into tensor<2x4x1024xf32>
// IR:       linalg.generic {indexing_maps = [#[[$WEIGHT]], #[[$COLUMNS]], #[[$PRODUCT]]], {{.*}} ins(%{{.*}}, %{{.*}} : tensor<3x4xf32>, tensor<2x4x1024xf32>) outs(%{{.*}} : tensor<2x3x1024xf32>)
// IR-NEXT:  ^bb0
// IR-NEXT:    arith.mulf
// IR-NEXT:    arith.addf
// IR-NEXT:    linalg.yield
// IR-NEXT:  } -> tensor<2x3x1024xf32>
// IR-NEXT:  tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] output_shape [2, 3, 32, 32] : tensor<2x3x1024xf32> into tensor<2x3x32x32xf32>

// Two groups of 8 channels x 9 taps (72 >= 64) and 8 output channels: the
// windows of all 16 channels gathered with the images side by side, split
// into the groups' columns [2, 72, 2 * 25], the weight into [2, 8, 72],
// one product batched over the groups, joined back into [16, 50].
// IR:       linalg.generic {{.*}} outs(%{{.*}} : tensor<16x3x3x50xf32>)
// IR:       tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : tensor<16x3x3x50xf32> into tensor<144x50xf32>
// IR:       tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<16x8x3x3xf32> into tensor<16x72xf32>
// IR:       tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [2, 72, 50] : tensor<144x50xf32> into tensor<2x72x50xf32>
// IR:       tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [2, 8, 72] : tensor<16x72xf32> into tensor<2x8x72xf32>
// IR:       linalg.generic {indexing_maps = [#[[$GROUP_WEIGHT]], #[[$COLUMNS]], #[[$PRODUCT]]], {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x8x72xf32>, tensor<2x72x50xf32>) outs(%{{.*}} : tensor<2x8x50xf32>)
// IR:       tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<2x8x50xf32> into tensor<16x50xf32>
// IR:       tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [16, 2, 25] : tensor<16x50xf32> into tensor<16x2x25xf32>
// IR-NOT:   magi.convolution

// The symbolic one on the GPU: the gather (zeros at the edges) and bias
// kernels, and the product as a cuBLASLt call (its [N, 8, H * W] result
// viewed as [N, 8, H, W] by magi-expand-shapes-to-casts).
// COMPILE: piece 0 {{.*}} 2 kernels  1 gemms
// COMPILE: 1 pieces, 2 kernels

// The grouped one over a symbolic batch (three images above): the gather
// and rounding kernels, the product batched over the groups one cuBLASLt
// call.
// GROUPED: piece 0 {{.*}} 2 kernels  1 gemms

func.func @main(%x: tensor<2x4x6x5xf32>, %w: tensor<6x2x3x2xf32>, %b: tensor<6xf32>,
                %x1: tensor<1x3x7xf32>, %w1: tensor<4x3x3xf32>,
                %w2: tensor<6x4x3x2xf32>, %w3: tensor<3x4x1x1xf32>,
                %x4: tensor<2x2x32x33xf32>, %w4: tensor<3x2x1x2xf32>,
                %x5: tensor<2x16x5x5xf32>, %w5: tensor<16x8x3x3xf32>, %b5: tensor<16xf32>)
    -> (tensor<2x6x3x3xf32>, tensor<1x4x7xbf16>, tensor<2x6x3x3xf32>, tensor<2x3x6x5xf32>,
        tensor<2x3x32x32xf32>, tensor<2x16x5x5xf32>) {
  %0 = magi.convolution %x, %w, %b {stride = array<i64: 2, 1>, padding = array<i64: 1, 0>, dilation = array<i64: 1, 2>, groups = 2 : i64} : (tensor<2x4x6x5xf32>, tensor<6x2x3x2xf32>, tensor<6xf32>) -> tensor<2x6x3x3xf32>
  %hx = magi.to_copy %x1 {dtype = bf16} : (tensor<1x3x7xf32>) -> tensor<1x3x7xbf16>
  %hw = magi.to_copy %w1 {dtype = bf16} : (tensor<4x3x3xf32>) -> tensor<4x3x3xbf16>
  %1 = magi.convolution %hx, %hw {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>} : (tensor<1x3x7xbf16>, tensor<4x3x3xbf16>) -> tensor<1x4x7xbf16>
  %2 = magi.convolution %x, %w2, %b {stride = array<i64: 2, 1>, padding = array<i64: 1, 0>, dilation = array<i64: 1, 2>} : (tensor<2x4x6x5xf32>, tensor<6x4x3x2xf32>, tensor<6xf32>) -> tensor<2x6x3x3xf32>
  %3 = magi.convolution %x, %w3 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<2x4x6x5xf32>, tensor<3x4x1x1xf32>) -> tensor<2x3x6x5xf32>
  %4 = magi.convolution %x4, %w4 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<2x2x32x33xf32>, tensor<3x2x1x2xf32>) -> tensor<2x3x32x32xf32>
  %5 = magi.convolution %x5, %w5, %b5 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64} : (tensor<2x16x5x5xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<2x16x5x5xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x6x3x3xf32>, tensor<1x4x7xbf16>, tensor<2x6x3x3xf32>, tensor<2x3x6x5xf32>, tensor<2x3x32x32xf32>, tensor<2x16x5x5xf32>
}
