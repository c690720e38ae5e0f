// A lowered elementwise function (bf16, broadcast, dynamic batch) through
// Magi's own GPU half, the registered magi-gpu-pipeline that magi-compile
// runs (magi-bufferize, loops, kernel configuration and mapping, outlining,
// NVVM, PTX), to PTX for sm_90, which ptxas must accept. Without a CUDA
// path no libdevice is linked, so only arith ops here.
// REQUIRES: ptxas
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" \
// RUN: | magi-opt --magi-gpu-pipeline="chip=sm_90 features=+ptx80" \
// RUN: | python3 %S/Inputs/extract-ptx.py %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas --gpu-name sm_90 %t.ptx -o %t.cubin
// The pipeline as it runs, from the first pass to the binary.
// RUN: magi-opt %s --magi-lower-to-linalg \
// RUN: | magi-opt --magi-gpu-pipeline="chip=sm_90" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: magi-bufferize
// PIPELINE: magi-matmul-to-library-call
// PIPELINE: convert-linalg-to-parallel-loops
// PIPELINE: magi-choose-kernel-config
// PIPELINE: magi-map-to-gpu
// PIPELINE: magi-tiled-attention-to-gpu
// PIPELINE: magi-outline-kernels
// PIPELINE: magi-extract-launch-plan
// PIPELINE: convert-nvgpu-to-nvvm
// PIPELINE: convert-gpu-to-nvvm
// PIPELINE: nvvm-attach-target{{.*}}chip=sm_90
// PIPELINE: gpu-module-to-binary

// CHECK: .target sm_90
// CHECK: .entry k0

func.func @mul_relu(%x: tensor<?x64xbf16>, %w: tensor<64xbf16>) -> tensor<?x64xbf16> {
  %0 = magi.mul %x, %w : (tensor<?x64xbf16>, tensor<64xbf16>) -> tensor<?x64xbf16>
  %1 = magi.relu %0 : (tensor<?x64xbf16>) -> tensor<?x64xbf16>
  return %1 : tensor<?x64xbf16>
}
