// torch.combinations (not a core op; torch.export keeps it when it does not
// decompose): a gather of the input at index rows enumerated at import,
// the static count cast to the exported unbacked size. Interpreted, lowered
// on the CPU and compiled.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/comb.pt2 @%S/Inputs/combinations.spec
// RUN: magi-import %t/comb.pt2 | FileCheck %s
// CHECK-LABEL: func.func @main
// CHECK:      %[[I:.*]] = magi.constant dense<{{\[}}[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]> : tensor<6x2xi64>
// CHECK:      %[[P:.*]] = magi.index %arg0[%[[I]]] {indexed_dims = array<i64: 0>} : (tensor<4xf32>, tensor<6x2xi64>) -> tensor<6x2xf32>
// CHECK:      tensor.cast %[[P]] : tensor<6x2xf32> to tensor<?x2xf32>
// CHECK:      magi.constant dense<{{\[}}[0, 0], [0, 1], [0, 2], [0, 3], [1, 1], [1, 2], [1, 3], [2, 2], [2, 3], [3, 3]]> : tensor<10x2xi64>
// CHECK-NOT:  magi.opaque

// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 4 10,20,30,40
// RUN: magi-interp %t/comb.pt2 --input %t/x.npy | FileCheck %s --check-prefix=OUT
// RUN: magi-interp %t/comb.pt2 --input %t/x.npy --lowered-pieces | FileCheck %s --check-prefix=OUT
// OUT:      out0: tensor<6x2xf32> = {{\[}}[10, 20], [10, 30], [10, 40], [20, 30], [20, 40], [30, 40]]
// OUT-NEXT: out1: tensor<10x2xf32> = {{\[}}[10, 10], [10, 20], [10, 30], [10, 40], [20, 20], [20, 30], [20, 40], [30, 30], [30, 40], [40, 40]]
// RUN: magi-compile %t/comb.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
