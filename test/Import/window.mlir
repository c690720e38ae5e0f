// x[a.item():b.item()], both reads bounded by torch._check: the window's
// length grows with one read and shrinks with the other. It imports as two
// bounded magi.item and a slice, runs interpreted and lowered on the CPU,
// and compiles with two bounded reads, for which the runtime plans every
// combination of the values at their bounds and at 0 (docs/runtime.md,
// Limits; unit test PlansASizeThatGrowsWithOneReadAndShrinksWithAnother).
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/w.pt2 @%S/Inputs/window.spec
// RUN: magi-import %t/w.pt2 | FileCheck %s
// CHECK: %[[A:.*]] = magi.item %arg1 bound %{{.*}} {symbol = "u0"} : tensor<i64> -> index
// CHECK: %[[B:.*]] = magi.item %arg2 bound %{{.*}} {symbol = "u1"} : tensor<i64> -> index
// CHECK: magi.slice %arg0, 0 [%[[A]], %[[B]], 1] : tensor<8xf32> -> tensor<?xf32>
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 8 1,2,3,4,5,6,7,8
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/a.npy int64 "" 2
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/b.npy int64 "" 7
// RUN: magi-interp %t/w.pt2 --input %t/x.npy --input %t/a.npy --input %t/b.npy | FileCheck %s --check-prefix=VALUES
// RUN: magi-interp %t/w.pt2 --input %t/x.npy --input %t/a.npy --input %t/b.npy --lowered-pieces | FileCheck %s --check-prefix=VALUES
// VALUES: out0: tensor<5xf32> = [6, 8, 10, 12, 14]
// RUN: magi-compile %t/w.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
// The same graph with the names torch.export gives (an item's output named
// after its node, its SymInt in sym_int_values): the item takes the SymInt's
// name, and so its range (before, no bound: "a value read on the host that
// gives a size has no upper bound").
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/named.pt2 @%S/Inputs/window-export-names.spec
// RUN: magi-import %t/named.pt2 | FileCheck %s
// RUN: magi-interp %t/named.pt2 --input %t/x.npy --input %t/a.npy --input %t/b.npy --lowered-pieces | FileCheck %s --check-prefix=VALUES
// RUN: magi-compile %t/named.pt2 -o %t/named --no-cubin --cache-mode=off --quiet
// RUN: FileCheck %s --check-prefix=READS --input-file=%t/named/manifest.json
// RUN: FileCheck %s --check-prefix=READS --input-file=%t/artifact/manifest.json
// READS-COUNT-2: "bound": 8,
