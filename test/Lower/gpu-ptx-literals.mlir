// A tensor literal read by kernels only (here an interpolation's taps and
// weights) compiles for the GPU: magi-map-to-gpu sinks the constant
// global's address into each launch, outlining copies the global into the
// kernel module, and the PTX holds it as initialized device memory. The
// host keeps no global (a launch plan could not hold one).
// REQUIRES: ptxas
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" \
// RUN: | magi-opt --magi-gpu-pipeline="chip=sm_90 features=+ptx80" \
// RUN: | python3 %S/Inputs/extract-ptx.py %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas --gpu-name sm_90 %t.ptx -o %t.cubin
// RUN: rm -rf %t.artifact && magi-compile %s -o %t.artifact --no-cubin --cache-mode=off --quiet

// The weights [1, 0.5, 1] as f32 bytes, and a kernel reading them.
// CHECK-DAG: .global .align {{[0-9]+}} .b8 [[W:__constant_3xf32[_0-9]*]][12] = {0, 0, 128, 63, 0, 0, 0, 63, 0, 0, 128, 63};
// CHECK-DAG: .global .align {{[0-9]+}} .b8 {{__constant_3xi64[_0-9]*}}[24]
// CHECK: .entry
// CHECK: mov.b64 {{.*}}, [[W]];
func.func @main(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %taps = magi.constant dense<[0, 1, 3]> : tensor<3xi64>
  %g = magi.index_select %x, %taps {dim = 1 : i64} : (tensor<2x4xf32>, tensor<3xi64>) -> tensor<2x3xf32>
  %w = magi.constant dense<[1.0, 0.5, 1.0]> : tensor<3xf32>
  %y = magi.mul %g, %w : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
