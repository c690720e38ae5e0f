// A runtime assertion over a size of the data whose tensor stays inside a
// piece (x[x > 2].sum(), then torch._check(u0 <= 3)): magi-split gives the
// tensor out of its piece (its size defines u0), the binding of that call
// result stays (it alone gives a symbol the assertion reads), and the
// artifact checks u0 when the step binds it. Inside a loop's body, the
// same assertion is checked every iteration (loop-nonzero-check).
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/check.pt2 @%S/Inputs/mask-check.spec
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/loop.pt2 @%S/Inputs/control-flow/loop-nonzero-check.spec
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 4 1,2,3,4
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/all.npy float32 4 3,4,5,6
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/i.npy int64 "" 0
// RUN: magi-import %t/check.pt2 | magi-opt --magi-compile-to=post-grad | FileCheck %s --check-prefix=SPLIT
// SPLIT-LABEL: func.func @main(
// SPLIT:         %[[S:.*]] = magi.symbolic_int "u0"
// SPLIT:         %[[OUT:.*]]:2 = call @main_piece_2(
// SPLIT-SAME:      -> (tensor<?xf32>, tensor<f32>)
// SPLIT-NEXT:    magi.bind_symbolic_shape %[[OUT]]#0, [%[[S]]]
// SPLIT-NEXT:    %[[LE:.*]] = magi.sym_compare "le" %[[S]], %{{.*}} {magi.host_arithmetic}
// SPLIT-NEXT:    magi.assert_symbolic %[[LE]]
// RUN: magi-interp %t/check.pt2 --input %t/x.npy --lowered-pieces | FileCheck %s --check-prefix=SUM
// SUM: out0: tensor<f32> = 7
// RUN: not magi-interp %t/check.pt2 --input %t/all.npy --lowered-pieces 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL: error: runtime assertion failed: Runtime assertion failed for expression u0 <= 3 on node 'le'
// RUN: magi-compile %t/check.pt2 -o %t/check --no-cubin --cache-mode=off --quiet
// RUN: %python -c "import json, sys; g = json.load(open(sys.argv[1]))['graph']; print(json.dumps([g['symbols'], [c['expr'] for c in g['checks']]], sort_keys=True))" %t/check/manifest.json | FileCheck %s --check-prefix=MANIFEST
// MANIFEST: [{{\[}}{"dim": 0, "max": 4, "min": 0, "name": "u0", "result": 0, "step": 2}], ["le(u0, 3)"]]

// In a loop's body: 2 elements > 2 in the first iteration, 4 in the second.
// RUN: not magi-interp %t/loop.pt2 --input %t/x.npy --input %t/i.npy --lowered-pieces 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: magi-compile %t/loop.pt2 -o %t/loop --no-cubin --cache-mode=off --quiet
// RUN: %python -c "import json, sys; g = json.load(open(sys.argv[1]))['graph']; print(json.dumps([g['symbols'], [c['expr'] for c in g['checks']], g['loops'][0]['first'], g['loops'][0]['cond_steps'], g['loops'][0]['body_steps']], sort_keys=True))" %t/loop/manifest.json | FileCheck %s --check-prefix=LOOP
// LOOP: [{{\[}}{"dim": 0, "max": 4, "min": 0, "name": "u0", "result": 0, "step": 4}], ["le(u0, 3)"], 0, 2, 3]
