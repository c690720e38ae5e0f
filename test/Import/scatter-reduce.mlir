// scatter_reduce.two imports as magi.scatter with scatter.reduce's names
// for its sum and prod ("add", "multiply"), its mean, amax and amin as
// they are, and include_self = false only where the node says so.
// PyTorch's own sample (an amin without self, scripts/gpu-ops-check.py)
// matches interpreted and lowered.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: tar -xzf %S/../Ops/Inputs/core-op-samples.tgz -C %t scatter_reduce.amin-0
// RUN: magi-interp %t/scatter_reduce.amin-0/model.pt2 --fixture %t/scatter_reduce.amin-0/case0 | FileCheck %s --check-prefix=INTERP
// RUN: magi-interp %t/scatter_reduce.amin-0/model.pt2 --fixture %t/scatter_reduce.amin-0/case0 --lowered-pieces | FileCheck %s --check-prefix=INTERP
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/reduce.pt2 \
// RUN:   "{'inputs': {'x': ('f32', [4, 3]), 'i': ('i64', [2, 3]), 's': ('f32', [2, 3])}, \
// RUN:     'nodes': [('aten.scatter_reduce.two', [('self', 'x'), ('dim', 0), ('index', 'i'), ('src', 's'), ('reduce', ('str', 'sum'))], {'sum': ('f32', [4, 3])}), \
// RUN:               ('aten.scatter_reduce.two', [('self', 'x'), ('dim', 0), ('index', 'i'), ('src', 's'), ('reduce', ('str', 'prod')), ('include_self', False)], {'prod': ('f32', [4, 3])}), \
// RUN:               ('aten.scatter_reduce.two', [('self', 'x'), ('dim', 1), ('index', 'i'), ('src', 's'), ('reduce', ('str', 'mean')), ('include_self', True)], {'mean': ('f32', [4, 3])}), \
// RUN:               ('aten.scatter_reduce.two', [('self', 'x'), ('dim', -1), ('index', 'i'), ('src', 's'), ('reduce', ('str', 'amax'))], {'amax': ('f32', [4, 3])}), \
// RUN:               ('aten.scatter_reduce.two', [('self', 'x'), ('dim', 0), ('index', 'i'), ('src', 's'), ('reduce', ('str', 'amin')), ('include_self', False)], {'amin': ('f32', [4, 3])})], \
// RUN:     'outputs': ['sum', 'prod', 'mean', 'amax', 'amin']}"
// RUN: magi-import %t/reduce.pt2 -o %t/reduce.mlir
// RUN: FileCheck %s --input-file=%t/reduce.mlir
// RUN: magi-opt --verify-roundtrip %t/reduce.mlir > /dev/null
// RUN: magi-compile %t/reduce.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet

// INTERP: out0: rel_err={{.*}} OK

// CHECK: magi.scatter %arg0, %arg1, %arg2 {dim = 0 : i64, reduce = "add"}
// CHECK: magi.scatter %arg0, %arg1, %arg2 {dim = 0 : i64, include_self = false, reduce = "multiply"}
// CHECK: magi.scatter %arg0, %arg1, %arg2 {dim = 1 : i64, reduce = "mean"}
// CHECK: magi.scatter %arg0, %arg1, %arg2 {dim = -1 : i64, reduce = "amax"}
// CHECK: magi.scatter %arg0, %arg1, %arg2 {dim = 0 : i64, include_self = false, reduce = "amin"}
