// _native_batch_norm_legit: .no_stats (always training) normalizes each
// channel by its batch statistics, a magi.native_layer_norm of the input
// permuted to [C, N, *] and viewed [C, N * prod(*)] (f32 for bf16), the
// saved mean and 1 / sqrt(var + eps) its statistics; .default not in
// training is the inference form (magi.batch_norm); .default in training
// would update the running statistics in place and stays opaque.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/bn.pt2 @%S/Inputs/batch-norm-training.spec
// RUN: magi-import %t/bn.pt2 | FileCheck %s
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 2,3,2,2 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/w.npy float32 3 1,2,3
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/b.npy float32 3 0,1,-1
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/rm.npy float32 3 0,1,2
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/rv.npy float32 3 1,4,9
// RUN: %python %S/../Interp/Inputs/tensors.py bin %t/h bfloat16 2,3,4 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23
// RUN: magi-interp %t/bn.pt2 --input %t/x.npy --input %t/w.npy --input %t/b.npy --input %t/rm.npy --input %t/rv.npy --input %t/h.bin | FileCheck %s --check-prefix=VALUES
// RUN: magi-interp %t/bn.pt2 --input %t/x.npy --input %t/w.npy --input %t/b.npy --input %t/rm.npy --input %t/rv.npy --input %t/h.bin --lowered-pieces | FileCheck %s --check-prefix=VALUES
// RUN: magi-compile %t/bn.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/train.pt2 \
// RUN:   "{'inputs': {'x': ('f32', [2, 3, 2, 2]), 'rm': ('f32', [3]), 'rv': ('f32', [3])}, \
// RUN:     'nodes': [('aten._native_batch_norm_legit.default', [('input', 'x'), ('weight', None), ('bias', None), ('running_mean', 'rm'), ('running_var', 'rv'), \
// RUN:                ('training', True), ('momentum', 0.1), ('eps', 1e-05)], {'t': ('f32', [2, 3, 2, 2]), 'tm': ('f32', [3]), 'tr': ('f32', [3])})], \
// RUN:     'outputs': ['t']}"
// RUN: magi-import %t/train.pt2 2>&1 | FileCheck %s --check-prefix=TRAIN

// CHECK:      %[[P:.*]] = magi.permute %arg0 {dims = array<i64: 1, 0, 2, 3>} : (tensor<2x3x2x2xf32>) -> tensor<3x2x2x2xf32>
// CHECK-NEXT: %[[V:.*]] = magi.view %[[P]] [3, 8] : tensor<3x2x2x2xf32> -> tensor<3x8xf32>
// CHECK-NEXT: %[[N:.*]], %[[MEAN:.*]], %[[RSTD:.*]] = magi.native_layer_norm %[[V]] {eps = 1.000000e-05 : f64, normalized_ndim = 1 : i64}
// CHECK:      magi.permute %{{.*}} {dims = array<i64: 1, 0, 2, 3>} : (tensor<3x2x2x2xf32>) -> tensor<2x3x2x2xf32>
// CHECK:      magi.mul
// CHECK:      magi.add
// CHECK:      magi.view %[[MEAN]] [3] : tensor<3x1xf32> -> tensor<3xf32>
// CHECK-NEXT: magi.view %[[RSTD]] [3] : tensor<3x1xf32> -> tensor<3xf32>
// CHECK:      magi.batch_norm %arg0, %arg3, %arg4 weight %arg1 bias %arg2
// CHECK:      magi.to_copy %arg5 {dtype = f32} : (tensor<2x3x4xbf16>) -> tensor<2x3x4xf32>
// CHECK:      magi.to_copy %{{.*}} {dtype = bf16} : (tensor<2x3x4xf32>) -> tensor<2x3x4xbf16>
// CHECK-NOT:  magi.opaque

// Channel c holds 4c .. 4c + 3 and 4c + 12 .. 4c + 15: mean 4c + 7.5,
// biased variance 37.25, 1 / sqrt(37.25 + 1e-5) = 0.16384636; weight
// [1, 2, 3], bias [0, 1, -1] (the first element of channel 0:
// -7.5 * 0.16384636 = -1.2288477).
// VALUES:      out0: tensor<2x3x2x2xf32> = {{\[\[\[\[}}-1.2288477, -1.0650014], [-0.901155, -0.7373086]], {{\[\[}}-1.4576955, -1.1300027], [-0.80231, -0.47461724]], {{\[\[}}-4.6865435, -4.195004], [-3.703465, -3.211926]]],
// VALUES-NEXT: out1: tensor<3xf32> = [7.5, 11.5, 15.5]
// VALUES-NEXT: out2: tensor<3xf32> = [0.16384636, 0.16384636, 0.16384636]
// VALUES-NEXT: out3: tensor<2x3x2x2xf32> = {{\[\[\[\[}}0, 0.999995], [1.99999, 2.999985]]
// VALUES-NEXT: out4: tensor<2x3x4xbf16> = {{\[\[\[}}-1.23, -1.06, -0.902, -0.74]
// VALUES-NEXT: out5: tensor<3xf32> = [7.5, 11.5, 15.5]
// VALUES-NEXT: out6: tensor<3xf32> = [0.16384636, 0.16384636, 0.16384636]

// TRAIN: warning: ops without a typed magi op, kept as magi.opaque: aten::_native_batch_norm_legit.default (1)
