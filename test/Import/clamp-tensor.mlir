// clamp.Tensor (tensor bounds) imports as PyTorch defines it:
// minimum(maximum(self, min), max), each op broadcasting and promoting (the
// maximum's type inferred, the last op's the node's); maximum alone when
// there is no max, minimum alone when there is no min. PyTorch's own sample
// (clamp_max with a tensor, scripts/gpu-ops-check.py) matches interpreted
// and lowered; archives written by op_archive.py cover both bounds.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: tar -xzf %S/../Ops/Inputs/core-op-samples.tgz -C %t clamp_max-0
// RUN: magi-import %t/clamp_max-0/model.pt2 | FileCheck %s --check-prefix=SAMPLE
// RUN: magi-interp %t/clamp_max-0/model.pt2 --fixture %t/clamp_max-0/case0 | FileCheck %s --check-prefix=INTERP
// RUN: magi-interp %t/clamp_max-0/model.pt2 --fixture %t/clamp_max-0/case0 --lowered-pieces | FileCheck %s --check-prefix=INTERP
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/clamp.pt2 \
// RUN:   "{'inputs': {'x': ('bf16', [2, 3]), 'lo': ('bf16', [3]), 'hi': ('f32', [2, 1])}, \
// RUN:     'nodes': [('aten.clamp.Tensor', [('self', 'x'), ('min', 'lo'), ('max', 'hi')], {'both': ('f32', [2, 3])}), \
// RUN:               ('aten.clamp.Tensor', [('self', 'x'), ('min', 'lo'), ('max', None)], {'low': ('bf16', [2, 3])})], \
// RUN:     'outputs': ['both', 'low']}"
// RUN: magi-import %t/clamp.pt2 -o %t/clamp.mlir
// RUN: FileCheck %s --input-file=%t/clamp.mlir
// RUN: magi-opt --verify-roundtrip %t/clamp.mlir > /dev/null
// RUN: magi-compile %t/clamp.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet

// SAMPLE: magi.minimum %arg0, %arg1
// SAMPLE-NOT: magi.opaque
// INTERP: out0: rel_err={{.*}} OK

// CHECK-LABEL: func.func @main(
// CHECK: %[[LOW:.*]] = magi.maximum %arg0, %arg1 : (tensor<2x3xbf16>, tensor<3xbf16>) -> tensor<2x3xbf16>
// CHECK: magi.minimum %[[LOW]], %arg2 : (tensor<2x3xbf16>, tensor<2x1xf32>) -> tensor<2x3xf32>
// CHECK: magi.maximum %arg0, %arg1 : (tensor<2x3xbf16>, tensor<3xbf16>) -> tensor<2x3xbf16>
// CHECK-NOT: magi.opaque
