// aten.sym_constrain_range_for_size and aten.sym_constrain_range (older
// exports check an unbacked size with them) import as runtime assertions
// over the symbol: min <= u0 <= max of the ends given (0 at least for a
// size). They were opaque, which stopped the interpreter and the compile.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/c.pt2 @%S/Inputs/constrain-range.spec
// RUN: magi-import %t/c.pt2 2>&1 | FileCheck %s
// CHECK-NOT: warning
// CHECK:      %[[U:.*]] = magi.symbolic_int "u0" min 0 max 4
// CHECK:      %[[GE:.*]] = magi.sym_compare "ge" %[[N:.*]], %{{.*}}
// CHECK-NEXT: magi.assert_symbolic %[[GE]], "sym_constrain_range_for_size: the value must be in [0, inf]"
// CHECK:      %[[LE:.*]] = magi.sym_compare "le" %[[N]], %{{.*}}
// CHECK-NEXT: magi.assert_symbolic %[[LE]], "sym_constrain_range: the value must be in [-inf, 3]"
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 4 1,2,3,4
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/all.npy float32 4 3,4,5,6
// RUN: magi-interp %t/c.pt2 --input %t/x.npy | FileCheck %s --check-prefix=OUT
// OUT: out0: tensor<2x1xi64> = {{\[\[}}4], [6]]
// RUN: not magi-interp %t/c.pt2 --input %t/all.npy 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL: error: runtime assertion failed: sym_constrain_range: the value must be in [-inf, 3]
// RUN: magi-compile %t/c.pt2 -o %t/c --no-cubin --cache-mode=off --quiet
// RUN: %python -c "import json, sys; print([c['expr'] for c in json.load(open(sys.argv[1]))['graph']['checks']])" %t/c/manifest.json | FileCheck %s --check-prefix=CHECKS
// CHECKS: ['ge(u0, 0)', 'le(u0, 3)']
