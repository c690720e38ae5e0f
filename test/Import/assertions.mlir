// torch.export's runtime assertions (aten._assert_scalar on SymBools:
// _operator.eq/ne/lt/le/gt/ge, and_, or_, torch.sym_not) import as
// magi.sym_compare / sym_and / sym_or / sym_not and magi.assert_symbolic.
// magi-interp checks them where they stand; magi-split keeps them, with a
// copy of the arithmetic they read, in the split graph; the artifact lists
// them in graph.checks (format 6), which the runtime tests before a run
// (test/unit/RuntimeTest.cpp, RuntimeInputs.TestsTheGraphsChecks).
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/checks.pt2 @%S/Inputs/assertions.spec
// RUN: magi-import %t/checks.pt2 -o %t/checks.mlir
// RUN: FileCheck %s --input-file=%t/checks.mlir
// RUN: magi-opt --verify-roundtrip %t/checks.mlir > /dev/null
// CHECK:      %[[S:.*]] = magi.symbolic_int "s0" min 2 max 100
// CHECK:      %[[N:.*]] = magi.sym_size %arg0, 0
// CHECK:      %[[REM:.*]] = magi.sym_mod %[[N]], %{{.*}}
// CHECK:      %[[PAIRED:.*]] = magi.sym_compare "eq" %[[REM]], %{{.*}}
// CHECK-NEXT: magi.assert_symbolic %[[PAIRED]], "Runtime assertion failed for expression Eq(Mod(s0, 2), 0) on node 'eq'"
// CHECK:      %[[GE:.*]] = magi.sym_compare "ge" %[[N]], %{{.*}}
// CHECK-NEXT: %[[NOT:.*]] = magi.sym_not %[[GE]]
// CHECK-NEXT: %[[OR:.*]] = magi.sym_or %[[NOT]], %[[PAIRED]]
// CHECK-NEXT: magi.assert_symbolic %[[OR]]

// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x4.npy float32 4 1,2,3,4
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x5.npy float32 5 1,2,3,4,5
// RUN: magi-interp %t/checks.pt2 --input %t/x4.npy | FileCheck %s --check-prefix=EVEN
// RUN: magi-interp %t/checks.pt2 --input %t/x4.npy --lowered-pieces | FileCheck %s --check-prefix=EVEN
// EVEN: out0: tensor<4xf32> = [2, 4, 6, 8]
// RUN: not magi-interp %t/checks.pt2 --input %t/x5.npy 2>&1 | FileCheck %s --check-prefix=ODD
// RUN: not magi-interp %t/checks.pt2 --input %t/x5.npy --lowered-pieces 2>&1 | FileCheck %s --check-prefix=ODD
// ODD: error: runtime assertion failed: Runtime assertion failed for expression Eq(Mod(s0, 2), 0) on node 'eq'

// The split graph keeps both assertions and their arithmetic (over the
// symbol: sym_size folded), marked, before the piece call.
// RUN: magi-opt %t/checks.mlir --magi-compile-to=split | FileCheck %s --check-prefix=SPLIT
// SPLIT:      func.func @main(
// SPLIT:        %[[S:.*]] = magi.symbolic_int "s0"
// SPLIT:        %[[M:.*]] = magi.sym_mod %[[S]], %{{.*}} {magi.host_arithmetic}
// SPLIT-NEXT:   %[[E:.*]] = magi.sym_compare "eq" %[[M]], %{{.*}} {magi.host_arithmetic}
// SPLIT-NEXT:   magi.assert_symbolic %[[E]]
// SPLIT:        magi.assert_symbolic
// SPLIT-NEXT:   call @main_piece_0

// RUN: magi-compile %t/checks.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
// RUN: FileCheck %s --check-prefix=MANIFEST --input-file=%t/artifact/manifest.json
// MANIFEST:      "checks": [
// MANIFEST-NEXT:   {
// MANIFEST-NEXT:     "expr": "eq((s0 mod 2), 0)",
// MANIFEST-NEXT:     "message": "Runtime assertion failed for expression Eq(Mod(s0, 2), 0) on node 'eq'"
// MANIFEST:          "expr": "max(eq(ge(s0, 1), 0), eq((s0 mod 2), 0))",
// MANIFEST:      "version": 14

// An assertion on a size only a piece knows (the rows of a computed
// tensor without a binding) cannot be checked before the run: an error.
// RUN: not magi-opt %s --magi-compile-to=split 2>&1 | FileCheck %s --check-prefix=UNCHECKABLE
// UNCHECKABLE: error: the runtime assertion 'positive' reads 'magi.sym_size': only symbolic arithmetic on the graph's symbols can be checked before a run
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = magi.neg %x : (tensor<?xf32>) -> tensor<?xf32>
  %n = magi.sym_size %y, 0 : tensor<?xf32>
  %c1 = arith.constant 1 : index
  %ok = magi.sym_compare "ge" %n, %c1
  magi.assert_symbolic %ok, "positive"
  return %y : tensor<?xf32>
}
