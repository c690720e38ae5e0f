// empty.memory_format, empty_strided and empty_permuted import as magi.full
// of zeros (PyTorch leaves their values unspecified), fill.Scalar as
// magi.full_like. Samples PyTorch exported from its OpInfo tests
// (scripts/gpu-ops-check.py; empty_permuted inside cosine_embedding_loss's
// decomposition), and an archive written by op_archive.py.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: tar -xzf %S/../Ops/Inputs/core-op-samples.tgz -C %t empty_strided-0 fill-1-none nn.functional.cosine_embedding_loss-0
// RUN: magi-import %t/empty_strided-0/model.pt2 | FileCheck %s --check-prefix=STRIDED
// RUN: magi-import %t/fill-1-none/model.pt2 | FileCheck %s --check-prefix=FILL
// RUN: magi-import %t/nn.functional.cosine_embedding_loss-0/model.pt2 2>&1 | FileCheck %s --check-prefix=PERMUTED
// RUN: magi-interp %t/nn.functional.cosine_embedding_loss-0/model.pt2 --fixture %t/nn.functional.cosine_embedding_loss-0/case0 | FileCheck %s --check-prefix=INTERP
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/create.pt2 \
// RUN:   "{'inputs': {'x': ('bf16', [2, 3])}, \
// RUN:     'nodes': [('aten.empty.memory_format', [('size', [3, 5]), ('dtype', None), ('layout', None), ('device', None), ('pin_memory', False), ('memory_format', None)], {'e': ('f32', [3, 5])}), \
// RUN:               ('aten.fill.Scalar', [('self', 'x'), ('value', 2.5)], {'f': ('bf16', [2, 3])})], \
// RUN:     'outputs': ['e', 'f']}"
// RUN: magi-import %t/create.pt2 -o %t/create.mlir
// RUN: FileCheck %s --check-prefix=CREATE --input-file=%t/create.mlir
// RUN: magi-opt --verify-roundtrip %t/create.mlir > /dev/null
// RUN: magi-compile %t/create.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet

// STRIDED: magi.full [] {dtype = f32, fill_value = 0.000000e+00 : f64} : tensor<f32>
// FILL: magi.full_like %arg0 {dtype = f32, fill_value = 1.000000e+00 : f64} : (tensor<1x0x3xf32>) -> tensor<1x0x3xf32>
// PERMUTED-NOT: warning
// PERMUTED: magi.full [5] {dtype = f32, fill_value = 0.000000e+00 : f64} : tensor<5xf32>
// PERMUTED-NOT: magi.opaque
// INTERP: out0: rel_err={{.*}} OK
// CREATE: magi.full [3, 5] {dtype = f32, fill_value = 0.000000e+00 : f64} : tensor<3x5xf32>
// CREATE: magi.full_like %arg0 {dtype = bf16, fill_value = 2.500000e+00 : f64} : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
