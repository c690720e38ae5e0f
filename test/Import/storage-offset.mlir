// A symbolic storage offset (aten.sym_storage_offset of x[k.item():], the
// form tensor_split at a tensor's indices exports) is computed as PyTorch
// does: the start, wrapped and clamped as Python does, times the stride of
// the sliced dimension (lib/Import/ConvertSymbolic.cpp). The offset comes
// out as the length of an arange. Interpreted and run lowered on the CPU
// for starts inside, past and before the tensor; the GPU path refuses the
// read without a bound, which gives a size.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/so.pt2 @%S/Inputs/storage-offset.spec
// RUN: magi-import %t/so.pt2 | FileCheck %s
// RUN: magi-import %t/so.pt2 | magi-opt --verify-roundtrip > /dev/null
// CHECK-NOT: magi.opaque
// CHECK:      %[[K:.*]] = magi.item %{{.*}} {symbol = "u0"} : tensor<i64> -> index
// CHECK:      %[[LOW:.*]] = magi.sym_min %[[K]], %{{.*}}
// CHECK-NEXT: %{{.*}} = arith.constant -5 : index
// CHECK-NEXT: %[[S:.*]] = magi.sym_max %[[LOW]], %{{.*}}
// CHECK:      %[[Q:.*]] = magi.sym_floordiv %[[S]], %{{.*}}
// CHECK:      %[[R:.*]] = magi.sym_mod %[[S]], %{{.*}}
// CHECK:      %[[START:.*]] = magi.sym_add %[[R]], %{{.*}}
// CHECK-NEXT: %[[THREE:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[OFF:.*]] = magi.sym_mul %[[START]], %[[THREE]]
// CHECK:      magi.arange %{{.*}}, %[[OFF]], %{{.*}}

// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 5,3 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/k-2.npy int64 "" -2
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/k1.npy int64 "" 1
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/k7.npy int64 "" 7
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/k-9.npy int64 "" -9
// RUN: magi-interp %t/so.pt2 --input %t/x.npy --input %t/k-2.npy | FileCheck %s --check-prefix=BACK2
// RUN: magi-interp %t/so.pt2 --input %t/x.npy --input %t/k-2.npy --lowered-pieces | FileCheck %s --check-prefix=BACK2
// RUN: magi-interp %t/so.pt2 --input %t/x.npy --input %t/k1.npy --lowered-pieces | FileCheck %s --check-prefix=ONE
// RUN: magi-interp %t/so.pt2 --input %t/x.npy --input %t/k7.npy --lowered-pieces | FileCheck %s --check-prefix=PAST
// RUN: magi-interp %t/so.pt2 --input %t/x.npy --input %t/k-9.npy --lowered-pieces | FileCheck %s --check-prefix=BEFORE
// -2 is row 3: offset 9.
// BACK2:      out0: tensor<9xi64>
// BACK2-NEXT: out1: tensor<2x3xf32> = {{\[\[}}18, 20, 22], [24, 26, 28]]
// ONE:        out0: tensor<3xi64>
// ONE-NEXT:   out1: tensor<4x3xf32>
// 7 is clamped to the end (offset 15), -9 to the start (offset 0).
// PAST:       out0: tensor<15xi64>
// PAST-NEXT:  out1: tensor<0x3xf32> = []
// BEFORE:     out0: tensor<0xi64> = []
// BEFORE-NEXT: out1: tensor<5x3xf32>

// RUN: not magi-compile %t/so.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: error: a value read on the host that gives a size has no upper bound, so the memory for that size cannot be planned
