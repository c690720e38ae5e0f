// A lowered elementwise function (bf16, broadcast, dynamic batch) through the
// upstream GPU pipeline of ../shared/notes/toolchain.md to PTX for sm_90,
// which ptxas must accept. Math functions (exp, erf...) become libdevice calls
// (__nv_expf) that this pipeline does not link, so only arith ops here.
// REQUIRES: ptxas
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" \
// RUN: | mlir-opt --pass-pipeline="builtin.module(one-shot-bufferize{bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map}, func.func(convert-linalg-to-parallel-loops, scf-parallel-loop-tiling{parallel-loop-tile-sizes=128 no-min-max-bounds=true}, gpu-map-parallel-loops, convert-parallel-loops-to-gpu), lower-affine, canonicalize, gpu-kernel-outlining, gpu-lower-to-nvvm-pipeline{cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa opt-level=3})" \
// RUN: | python3 %S/Inputs/extract-ptx.py %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas --gpu-name sm_90 %t.ptx -o %t.cubin

// CHECK: .target sm_90
// CHECK: .entry mul_relu_kernel

func.func @mul_relu(%x: tensor<?x64xbf16>, %w: tensor<64xbf16>) -> tensor<?x64xbf16> {
  %0 = magi.mul %x, %w : (tensor<?x64xbf16>, tensor<64xbf16>) -> tensor<?x64xbf16>
  %1 = magi.relu %0 : (tensor<?x64xbf16>) -> tensor<?x64xbf16>
  return %1 : tensor<?x64xbf16>
}
