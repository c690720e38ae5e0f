// A slice that starts at or past the end of a static dimension is empty;
// its extract_slice starts at 0 (tensor.extract_slice refuses an offset at
// the end of a dimension even for no elements).
// RUN: magi-opt %s --magi-lower-to-linalg | FileCheck %s --check-prefix=IR
// RUN: magi-interp %s | FileCheck %s
// RUN: magi-interp %s --lowered-pieces | FileCheck %s

// IR-LABEL: func.func @main
// IR: tensor.extract_slice %{{.*}}[0, 0] [0, 4] [1, 1] : tensor<1x4xf32> to tensor<0x4xf32>
// IR: tensor.extract_slice %{{.*}}[0, 0] [1, 0] [1, 1] : tensor<1x4xf32> to tensor<1x0xf32>
// IR: tensor.extract_slice %{{.*}}[0, 3] [1, 0] [1, 1] : tensor<1x4xf32> to tensor<1x0xf32>

// CHECK: out0: tensor<0x4xf32> = []
// CHECK: out1: tensor<1x0xf32> = {{\[\[\]\]}}
// CHECK: out2: tensor<1x0xf32> = {{\[\[\]\]}}
func.func @main() -> (tensor<0x4xf32>, tensor<1x0xf32>, tensor<1x0xf32>) {
  %x = magi.constant dense<1.0> : tensor<1x4xf32>
  %a = magi.slice %x, 0 [5, 10, 1] : tensor<1x4xf32> -> tensor<0x4xf32>
  %b = magi.slice %x, 1 [7, 9, 2] : tensor<1x4xf32> -> tensor<1x0xf32>
  %c = magi.slice %x, 1 [3, 1, 1] : tensor<1x4xf32> -> tensor<1x0xf32>
  return %a, %b, %c : tensor<0x4xf32>, tensor<1x0xf32>, tensor<1x0xf32>
}
