// magi.convolution with `transposed` (ConvTranspose): 2-d with stride 2,
// padding, output padding and bias (one ordinary convolution per output
// phase); 2-d in two groups with stride 1 (the input read as it is, padded
// by the ordinary convolution); 1-d bf16 with stride 3, dilation 2 and more
// padding than the kernel spans (the input spread by the stride, cropped);
// 3-d with stride 2 (eight phases); 1-d with a kernel of 1, stride 2 and
// output padding (the odd positions: no tap, the bias alone). Interpreted and lowered, all equal to
// a plain Python reference that scatters each input element (exact on
// integer-valued data); a 2-d one over a symbolic batch and image size
// compiles to PTX.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 2,4,3,3 $(%python %S/Inputs/conv_reference.py data 72)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/w.npy float32 4,3,3,3 $(%python %S/Inputs/conv_reference.py data 108)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/b.npy float32 3 $(%python %S/Inputs/conv_reference.py data 3)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/xg.npy float32 1,4,5,4 $(%python %S/Inputs/conv_reference.py data 80)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/wg.npy float32 4,2,2,3 $(%python %S/Inputs/conv_reference.py data 48)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x1.npy float32 1,2,6 $(%python %S/Inputs/conv_reference.py data 12)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/w1.npy float32 2,3,3 $(%python %S/Inputs/conv_reference.py data 18)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x3.npy float32 1,1,2,2,2 $(%python %S/Inputs/conv_reference.py data 8)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/w3.npy float32 1,2,2,2,2 $(%python %S/Inputs/conv_reference.py data 16)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x5.npy float32 1,2,3 $(%python %S/Inputs/conv_reference.py data 6)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/w5.npy float32 2,1,1 $(%python %S/Inputs/conv_reference.py data 2)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/b5.npy float32 1 $(%python %S/Inputs/conv_reference.py data 1)
// RUN: %python %S/Inputs/conv_reference.py tconv 2,4,3,3 4,3,3,3 1 2,2 1,1 1,1 1,1 1 out0 f32 > %t/expected
// RUN: %python %S/Inputs/conv_reference.py tconv 1,4,5,4 4,2,2,3 0 1,1 0,0 1,1 0,0 2 out1 f32 >> %t/expected
// RUN: %python %S/Inputs/conv_reference.py tconv 1,2,6 2,3,3 0 3 5 2 2 1 out2 bf16 >> %t/expected
// RUN: %python %S/Inputs/conv_reference.py tconv 1,1,2,2,2 1,2,2,2,2 0 2,2,2 0,0,0 1,1,1 0,0,0 1 out3 f32 >> %t/expected
// RUN: %python %S/Inputs/conv_reference.py tconv 1,2,3 2,1,1 1 2 0 1 1 1 out4 f32 >> %t/expected
// RUN: magi-interp %s --print-limit=10000 --input %t/x.npy --input %t/w.npy --input %t/b.npy --input %t/xg.npy --input %t/wg.npy --input %t/x1.npy --input %t/w1.npy --input %t/x3.npy --input %t/w3.npy --input %t/x5.npy --input %t/w5.npy --input %t/b5.npy > %t/interp
// RUN: diff %t/expected %t/interp
// RUN: magi-interp %s --lowered-pieces --print-limit=10000 --input %t/x.npy --input %t/w.npy --input %t/b.npy --input %t/xg.npy --input %t/wg.npy --input %t/x1.npy --input %t/w1.npy --input %t/x3.npy --input %t/w3.npy --input %t/x5.npy --input %t/w5.npy --input %t/b5.npy > %t/lowered
// RUN: diff %t/expected %t/lowered
// RUN: magi-opt %s --verify-roundtrip > /dev/null
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" | FileCheck %s --check-prefix=IR
// RUN: magi-compile %S/Inputs/convolution-transposed-graph.mlir -o %t/art --cache-mode=off --no-cubin | FileCheck %s --check-prefix=COMPILE

// IR-DAG:   #[[$PHASE00:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, (-d2 + 1) * 2, (-d3 + 1) * 2)>
// IR-DAG:   #[[$PHASE11:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2 * -2 + 1, d3 * -2 + 1)>
// IR-DAG:   #[[$GROUPED:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> ((d0 floordiv 2) * 2 + d1, d0 mod 2, -d2 + 1, -d3 + 2)>
// IR-DAG:   #[[$FLIPPED_1D:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d0, -d2 + 2)>

// Stride 2, dilation 1: one ordinary convolution per output phase. Phase
// (0, 0) takes taps 2 and 0 of each dimension (flipped) over the input with
// a zero after it ([2, 4, 4, 4]); its 3 x 3 outputs go to (1, 1) and every
// second position after. Phase (1, 1) is tap 1 alone over the input as it
// is, its outputs from (0, 0).
// IR-LABEL: func.func @main
// IR:       linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4x4x4xf32>)
// IR:       linalg.generic {indexing_maps = [#[[$PHASE00]], #{{.*}}]{{.*}} ins(%{{.*}} : tensor<4x3x3x3xf32>) outs(%{{.*}} : tensor<3x4x2x2xf32>)
// IR:       tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 1] [2, 3, 3, 3] [1, 1, 2, 2] : tensor<2x3x3x3xf32> into tensor<2x3x6x6xf32>
// IR:       tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 0] [2, 3, 3, 3] [1, 1, 2, 2]
// IR:       tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 1] [2, 3, 3, 3] [1, 1, 2, 2]
// IR-NOT:   outs(%{{.*}} : tensor<2x4x3x3xf32>)
// IR:       linalg.generic {indexing_maps = [#[[$PHASE11]], #{{.*}}]{{.*}} ins(%{{.*}} : tensor<4x3x3x3xf32>) outs(%{{.*}} : tensor<3x4x1x1xf32>)
// IR:       tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 0] [2, 3, 3, 3] [1, 1, 2, 2]

// Two groups, stride 1: no spread copy; the ordinary grouped convolution
// pads the input by the kernel less 1 (1 and 2).
// IR:       linalg.generic {indexing_maps = [#[[$GROUPED]], #{{.*}}]{{.*}} ins(%{{.*}} : tensor<4x2x2x3xf32>) outs(%{{.*}} : tensor<4x2x2x3xf32>)
// IR-NOT:   ins(%{{.*}} : tensor<1x4x5x4xf32>) outs(%{{.*}} : tensor<1x4x
// IR:       outs(%{{.*}} : tensor<1x4x7x8xf32>)

// 1-d, stride 3, dilation 2 (no phases: the taps of one output would not
// share a residue), padding 5 > dilation 2 x (3 - 1): the input spread by
// the stride, starting one element in (the position plus 1), 16 positions
// (15 and the output padding's 2, less the 1 cropped); the whole kernel
// flipped.
// IR:       linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x16xbf16>)
// IR:         arith.subi %{{.*}}, %c-1
// IR:         arith.remsi %{{.*}}, %c3
// IR:       linalg.generic {indexing_maps = [#[[$FLIPPED_1D]], #{{.*}}]{{.*}} ins(%{{.*}} : tensor<2x3x3xbf16>)

// 3-d, stride 2, kernel 2: eight phases of one tap each.
// IR-COUNT-8: tensor.insert_slice %{{.*}} into %{{.*}} [1, 2, 2, 2, 2] [1, 1, 2, 2, 2] : tensor<1x2x2x2x2xf32> into tensor<1x2x4x4x4xf32>
// Kernel 1, stride 2: the even positions one product each, the odd ones
// the bias.
// IR:       tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0] [1, 1, 3] [1, 1, 2] : tensor<1x1x3xf32> into tensor<1x1x6xf32>
// IR:       linalg.generic {{.*}} ins(%{{.*}} : tensor<1xf32>) outs(%{{.*}} : tensor<1x1x3xf32>)
// IR-NEXT:  ^bb0(%[[BIAS:.*]]: f32, %{{.*}}: f32):
// IR-NEXT:    linalg.yield %[[BIAS]] : f32
// IR:       tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1] [1, 1, 3] [1, 1, 2] : tensor<1x1x3xf32> into tensor<1x1x6xf32>
// IR-NOT:   magi.convolution

// The symbolic one: the spread input and the reordered weight (independent:
// one launch), the gather and bias kernels, the product as a cuBLASLt call.
// COMPILE: piece 0 {{.*}} 3 kernels  1 gemms
// COMPILE: 1 pieces, 3 kernels

func.func @main(%x: tensor<2x4x3x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>,
                %xg: tensor<1x4x5x4xf32>, %wg: tensor<4x2x2x3xf32>,
                %x1: tensor<1x2x6xf32>, %w1: tensor<2x3x3xf32>,
                %x3: tensor<1x1x2x2x2xf32>, %w3: tensor<1x2x2x2x2xf32>,
                %x5: tensor<1x2x3xf32>, %w5: tensor<2x1x1xf32>, %b5: tensor<1xf32>)
    -> (tensor<2x3x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x3x12xbf16>, tensor<1x2x4x4x4xf32>,
        tensor<1x1x6xf32>) {
  %0 = magi.convolution %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed, output_padding = array<i64: 1, 1>} : (tensor<2x4x3x3xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<2x3x6x6xf32>
  %1 = magi.convolution %xg, %wg {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 2 : i64, transposed} : (tensor<1x4x5x4xf32>, tensor<4x2x2x3xf32>) -> tensor<1x4x6x6xf32>
  %hx = magi.to_copy %x1 {dtype = bf16} : (tensor<1x2x6xf32>) -> tensor<1x2x6xbf16>
  %hw = magi.to_copy %w1 {dtype = bf16} : (tensor<2x3x3xf32>) -> tensor<2x3x3xbf16>
  %2 = magi.convolution %hx, %hw {stride = array<i64: 3>, padding = array<i64: 5>, dilation = array<i64: 2>, transposed, output_padding = array<i64: 2>} : (tensor<1x2x6xbf16>, tensor<2x3x3xbf16>) -> tensor<1x3x12xbf16>
  %3 = magi.convolution %x3, %w3 {stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, transposed} : (tensor<1x1x2x2x2xf32>, tensor<1x2x2x2x2xf32>) -> tensor<1x2x4x4x4xf32>
  %4 = magi.convolution %x5, %w5, %b5 {stride = array<i64: 2>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed, output_padding = array<i64: 1>} : (tensor<1x2x3xf32>, tensor<2x1x1xf32>, tensor<1xf32>) -> tensor<1x1x6xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x3x12xbf16>, tensor<1x2x4x4x4xf32>, tensor<1x1x6xf32>
}
