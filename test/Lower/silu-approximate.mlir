// silu_and_mul rounds silu to the gate's dtype: for 16-bit gates its
// exponential and division are marked `afn` (libdevice's __nv_fast_expf and
// the reciprocal estimate on the GPU: a few ulp of f32, which the rounding
// to 16 bits hides), for f32 gates they stay exact; so do silu and sigmoid
// by their result's dtype. Values on the CPU run equal the interpreter's,
// which computes exactly.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/g.npy float32 2,4 -8,-2.5,-0.5,0,0.25,1,3,9
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/u.npy float32 2,4 1,-1,2,5,0.5,-3,1.5,0.125
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" | FileCheck %s --check-prefix=IR
// RUN: magi-interp %s --input %t/g.npy --input %t/u.npy | FileCheck %s
// RUN: magi-interp %s --lowered-pieces --input %t/g.npy --input %t/u.npy | FileCheck %s
// RUN: magi-compile %S/Inputs/silu-and-mul-graph.mlir -o %t/art --cache-mode=off --no-cubin | FileCheck %s --check-prefix=COMPILE
// RUN: cat %t/art/pieces/*.ptx | FileCheck %s --check-prefix=PTX

// IR-LABEL: func.func @main
// IR: linalg.generic
// IR: math.exp %{{.*}} fastmath<afn> : f32
// IR: arith.divf %{{.*}} fastmath<afn> : f32
// IR: arith.truncf %{{.*}} : f32 to bf16
// IR: linalg.generic
// IR: math.exp %{{.*}} : f32
// IR-NOT: fastmath
// IR: linalg.generic
// IR: math.exp %{{.*}} fastmath<afn> : f32
// IR: arith.divf %{{.*}} fastmath<afn> : f32
// IR: arith.truncf %{{.*}} : f32 to bf16
// IR: linalg.generic
// IR: math.exp %{{.*}} : f32
// IR-NOT: fastmath
// IR: return

// CHECK:      out0: tensor<2x4xf32> = {{\[}}[-0.0026855469, 0.18945312, -0.37695312, 0], [0.0703125, -2.1875, 4.28125, 1.125]]
// CHECK-NEXT: out1: tensor<2x4xf32> = {{\[}}[-0.002682801, 0.1896454{{4|5}}, -0.37754068, 0], [0.070272066, -2.1931758, 4.2865834, 1.1248612]]
// CHECK-NEXT: out2: tensor<2x4xf32> = {{\[}}[0.00033569336, 0.075683594, 0.37695312, 0.5], [0.5625, 0.73046875, 0.953125, 1]]
// CHECK-NEXT: out3: tensor<2x4xf32> = {{\[}}[-0.002682801, -0.1896454{{4|5}}, -0.18877034, 0], [0.14054413, 0.7310586, 2.8577223, 8.99889]]

// COMPILE: magi-compile: 1 pieces, 1 kernels

// PTX: .entry k0
// PTX: ex2.approx.f32
// PTX: rcp.approx.f32
// PTX-NOT: rcp.rn.f32

func.func @main(%g: tensor<2x4xf32>, %u: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %gb = magi.to_copy %g {dtype = bf16} : (tensor<2x4xf32>) -> tensor<2x4xbf16>
  %ub = magi.to_copy %u {dtype = bf16} : (tensor<2x4xf32>) -> tensor<2x4xbf16>
  %b = magi.silu_and_mul %gb, %ub : (tensor<2x4xbf16>, tensor<2x4xbf16>) -> tensor<2x4xbf16>
  %b32 = magi.to_copy %b {dtype = f32} : (tensor<2x4xbf16>) -> tensor<2x4xf32>
  %f = magi.silu_and_mul %g, %u : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %sb = magi.sigmoid %gb : (tensor<2x4xbf16>) -> tensor<2x4xbf16>
  %sb32 = magi.to_copy %sb {dtype = f32} : (tensor<2x4xbf16>) -> tensor<2x4xf32>
  %sf = magi.silu %g : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %b32, %f, %sb32, %sf : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}
