// aten.convolution with transposed=True imports as magi.convolution with
// `transposed` (and `output_padding` when not zero); interpreted, lowered
// and run on the CPU, compiled for the GPU. Values from a plain Python
// transposed convolution (test/Lower/Inputs/conv_reference.py) on
// integer-valued data.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/conv.pt2 @%S/Inputs/conv-transposed.spec
// RUN: magi-import %t/conv.pt2 -o %t/conv.mlir
// RUN: FileCheck %s --input-file=%t/conv.mlir
// RUN: magi-opt --verify-roundtrip %t/conv.mlir > /dev/null
// CHECK: magi.convolution %{{.*}}, %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed} : (tensor<2x4x3x3xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<2x3x6x6xf32>
// CHECK: magi.convolution %{{.*}}, %{{.*}} {dilation = array<i64: 1>, groups = 2 : i64, padding = array<i64: 0>, stride = array<i64: 2>, transposed} : (tensor<1x4x5xbf16>, tensor<4x1x3xbf16>) -> tensor<1x2x11xbf16>

// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 2,4,3,3 $(%python %S/../Lower/Inputs/conv_reference.py data 72)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/w.npy float32 4,3,3,3 $(%python %S/../Lower/Inputs/conv_reference.py data 108)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/b.npy float32 3 $(%python %S/../Lower/Inputs/conv_reference.py data 3)
// RUN: %python %S/../Interp/Inputs/tensors.py bin %t/u bfloat16 1,4,5 $(%python %S/../Lower/Inputs/conv_reference.py data 20)
// RUN: %python %S/../Interp/Inputs/tensors.py bin %t/v bfloat16 4,1,3 $(%python %S/../Lower/Inputs/conv_reference.py data 12)
// RUN: %python %S/../Lower/Inputs/conv_reference.py tconv 2,4,3,3 4,3,3,3 1 2,2 1,1 1,1 1,1 1 out0 f32 > %t/expected
// RUN: %python %S/../Lower/Inputs/conv_reference.py tconv 1,4,5 4,1,3 0 2 0 1 0 2 out1 bf16 >> %t/expected
// RUN: magi-interp %t/conv.pt2 --print-limit=10000 --input %t/x.npy --input %t/w.npy --input %t/b.npy --input %t/u.bin --input %t/v.bin > %t/interp
// RUN: diff %t/expected %t/interp
// RUN: magi-interp %t/conv.pt2 --lowered-pieces --print-limit=10000 --input %t/x.npy --input %t/w.npy --input %t/b.npy --input %t/u.bin --input %t/v.bin > %t/lowered
// RUN: diff %t/expected %t/lowered
// RUN: magi-compile %t/conv.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
