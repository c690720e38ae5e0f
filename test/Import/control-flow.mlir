// torch.cond and torch.while_loop (torch.ops.higher_order.cond and
// .while_loop) import as scf.if and scf.while whose regions hold the
// subgraphs (lib/Import/ControlFlow.cpp); magi-interp runs them, also
// lowered to linalg and run on the CPU (--lowered-pieces); magi-compile
// makes a cond a select of both branches or else a branch of the runtime
// (graph.branches), a while_loop a loop of the runtime (graph.loops), at
// any depth (format 13), and refuses the rest by name.
// The archives are written as torch.export serializes these ops
// (Inputs/control-flow/*.spec).
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: for s in cond-while cond-select cond-branch cond-pass nested-cond nested-size-cond loop-cond cond-nonzero cond-nonzero-out loop-nonzero item-bool item-int item-int-above symbolic size-predicate wrong-inputs float-predicate other-hop while nested-while; do \
// RUN:   %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/$s.pt2 @%S/Inputs/control-flow/$s.spec || exit 1; \
// RUN: done
// RUN: magi-import %t/cond-while.pt2 -o %t/cond-while.mlir
// RUN: FileCheck %s --input-file=%t/cond-while.mlir
// RUN: magi-opt --verify-roundtrip %t/cond-while.mlir > /dev/null

// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %[[P:[a-z0-9]+]]: tensor<i1> {{.*}}"p"}, %[[X:[a-z0-9]+]]: tensor<3xf32> {{.*}}"x"}, %[[I:[a-z0-9]+]]: tensor<i64>
// CHECK:         %[[C:.*]] = tensor.extract %[[P]][] : tensor<i1>
// CHECK:         %[[IF:.*]] = scf.if %[[C]] -> (tensor<3xf32>) {
// CHECK-NEXT:      %[[SIN:.*]] = magi.sin %[[X]]
// CHECK-NEXT:      scf.yield %[[SIN]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[COS:.*]] = magi.cos %[[X]]
// CHECK-NEXT:      scf.yield %[[COS]]
// CHECK-NEXT:    }
// The loop carries the counter and cond's result; x comes in from above.
// CHECK:         %[[W:.*]]:2 = scf.while (%[[CI:.*]] = %[[I]], %[[CX:.*]] = %[[IF]]) : (tensor<i64>, tensor<3xf32>) -> (tensor<i64>, tensor<3xf32>) {
// CHECK:           %[[LT:.*]] = magi.lt %[[CI]]
// CHECK:           %[[GO:.*]] = tensor.extract %[[LT]][] : tensor<i1>
// CHECK-NEXT:      scf.condition(%[[GO]]) %[[CI]], %[[CX]]
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^bb0(%[[BI:.*]]: tensor<i64>, %[[BX:.*]]: tensor<3xf32>):
// CHECK:           %[[ADD:.*]] = magi.add %[[BI]]
// CHECK-NEXT:      %[[MUL:.*]] = magi.mul %[[BX]], %[[X]]
// CHECK-NEXT:      scf.yield %[[ADD]], %[[MUL]]
// CHECK:         return %[[IF]], %[[W]]#0, %[[W]]#1

// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/true.npy bool "" 1
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/false.npy bool "" 0
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 3 0,1,2
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/i.npy int64 "" 0
// RUN: magi-interp %t/cond-while.pt2 --input %t/true.npy --input %t/x.npy --input %t/i.npy | FileCheck %s --check-prefix=TRUE
// RUN: magi-interp %t/cond-while.pt2 --input %t/true.npy --input %t/x.npy --input %t/i.npy --lowered-pieces | FileCheck %s --check-prefix=TRUE
// RUN: magi-interp %t/cond-while.pt2 --input %t/false.npy --input %t/x.npy --input %t/i.npy | FileCheck %s --check-prefix=FALSE
// RUN: magi-interp %t/cond-while.pt2 --input %t/false.npy --input %t/x.npy --input %t/i.npy --lowered-pieces | FileCheck %s --check-prefix=FALSE
// sin(x), then three iterations of multiplying by x: sin(x) * x^3.
// TRUE:      out0: tensor<3xf32> = [0, 0.84147096, 0.9092974]
// TRUE-NEXT: out1: tensor<i64> = 3
// TRUE-NEXT: out2: tensor<3xf32> = [0, 0.84147096, 7.2743793]
// FALSE:      out0: tensor<3xf32> = [1, 0.5403023, -0.41614684]
// FALSE-NEXT: out1: tensor<i64> = 3
// FALSE-NEXT: out2: tensor<3xf32> = [0, 0.5403023, -3.3291748]

// The cond becomes a select (magi-select-branches); the while_loop stays
// on the top level, each region split into pieces, the condition a value
// read on the host (magi.item bound 1) compared with 0.
// RUN: magi-import %t/cond-while.pt2 | magi-opt --magi-compile-to=split | FileCheck %s --check-prefix=SPLIT
// SPLIT-LABEL: func.func private @main_piece_2(%{{.*}}: tensor<i1>) -> index
// SPLIT-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// SPLIT-NEXT:    %[[ITEM:.*]] = magi.item %{{.*}} bound %[[ONE]] : tensor<i1> -> index
// SPLIT-NEXT:    return %[[ITEM]]
// SPLIT-LABEL: func.func @main(
// SPLIT:         %[[SEL:.*]] = call @main_piece_0(
// SPLIT:         %[[W:.*]]:2 = scf.while (%[[CI:.*]] = %{{.*}}, %[[CX:.*]] = %[[SEL]])
// SPLIT-NEXT:      %[[LT:.*]] = func.call @main_piece_1(%[[CI]])
// SPLIT:           %[[READ:.*]] = func.call @main_piece_2(%[[LT]])
// SPLIT-NEXT:      %[[GO:.*]] = magi.sym_compare "ne" %[[READ]], %{{.*}} {magi.loop_condition}
// SPLIT-NEXT:      scf.condition(%[[GO]]) %[[CI]], %[[CX]]
// SPLIT:         } do {
// SPLIT-NEXT:    ^bb0(%[[BI:.*]]: tensor<i64>, %[[BX:.*]]: tensor<3xf32>):
// SPLIT-NEXT:      %[[NEXT:.*]]:2 = func.call @main_piece_3(%[[BI]], %[[BX]], %arg1)
// SPLIT-NEXT:      scf.yield %[[NEXT]]#0, %[[NEXT]]#1
// SPLIT:         return %[[SEL]], %[[W]]#0, %[[W]]#1

// It compiles for the GPU: the artifact's loop repeats steps 2 and 3 (the
// condition's compare, then its read) and step 4 (the body).
// RUN: magi-compile %t/cond-while.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
// RUN: FileCheck %s --check-prefix=LOOP --input-file=%t/artifact/manifest.json
// LOOP:      "loops": [
// LOOP-NEXT:   {
// LOOP-NEXT:     "body_steps": 1,
// LOOP-NEXT:     "carried": [
// LOOP-NEXT:       {
// LOOP-NEXT:         "input": 2
// LOOP-NEXT:       },
// LOOP-NEXT:       {
// LOOP-NEXT:         "result": 0,
// LOOP-NEXT:         "step": 0
// LOOP-NEXT:       }
// LOOP-NEXT:     ],
// LOOP-NEXT:     "cond_steps": 2,
// LOOP-NEXT:     "condition": {
// LOOP-NEXT:       "result": 0,
// LOOP-NEXT:       "step": 2
// LOOP-NEXT:     },
// LOOP-NEXT:     "first": 1,
// LOOP-NEXT:     "next": [
// LOOP-NEXT:       {
// LOOP-NEXT:         "result": 0,
// LOOP-NEXT:         "step": 3
// LOOP-NEXT:       },
// LOOP-NEXT:       {
// LOOP-NEXT:         "result": 1,
// LOOP-NEXT:         "step": 3
// LOOP-NEXT:       }
// LOOP-NEXT:     ]
// LOOP-NEXT:   }
// LOOP-NEXT: ],
// LOOP:      "outputs": [
// LOOP-NEXT:   {
// LOOP-NEXT:     "result": 0,
// LOOP-NEXT:     "step": 0
// LOOP-NEXT:   },
// LOOP-NEXT:   {
// LOOP-NEXT:     "loop": 0,
// LOOP-NEXT:     "result": 0
// LOOP-NEXT:   },
// LOOP-NEXT:   {
// LOOP-NEXT:     "loop": 0,
// LOOP-NEXT:     "result": 1
// LOOP-NEXT:   }
// LOOP-NEXT: ],
// LOOP:      "name": "main_piece_2"
// LOOP:      "variants": [
// LOOP:        "results": [
// LOOP-NEXT:     {
// LOOP-NEXT:       "bound": 1,
// LOOP-NEXT:       "dtype": "i1",
// LOOP-NEXT:       "read": {
// LOOP-NEXT:         "base": "arg0",

// A loop whose end depends on the data (x doubled plus y while its sum is
// below 100): interpreted, run lowered on the CPU through the split pieces
// (the loop on the top level), and compiled.
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x4.npy float32 4 1,2,3,4
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/y4.npy float32 4 0,0,0,1
// RUN: magi-interp %t/while.pt2 --input %t/x4.npy --input %t/y4.npy --input %t/i.npy | FileCheck %s --check-prefix=DATA
// RUN: magi-interp %t/while.pt2 --input %t/x4.npy --input %t/y4.npy --input %t/i.npy --lowered-pieces | FileCheck %s --check-prefix=DATA
// Sums 10, 21, 43, 87, then 175: four iterations.
// DATA:      out0: tensor<i64> = 4
// DATA-NEXT: out1: tensor<4xf32> = [16, 32, 48, 79]
// RUN: magi-compile %t/while.pt2 -o %t/while --no-cubin --cache-mode=off --quiet
// RUN: FileCheck %s --check-prefix=WHILE --input-file=%t/while/manifest.json
// WHILE: "loops": [
// WHILE:   "cond_steps": 2,

// A loop inside a loop's body: both are loops of the runtime, the inner
// one's regions split into pieces like the outer one's; run lowered on the
// CPU through the split pieces, and compiled (artifact format 13: the inner
// loop names the part that holds it).
// RUN: magi-import %t/nested-while.pt2 | magi-opt --magi-compile-to=split | FileCheck %s --check-prefix=NESTSPLIT
// NESTSPLIT-LABEL: func.func @main(
// NESTSPLIT:         scf.while
// NESTSPLIT:         } do {
// NESTSPLIT:           func.call @main_piece_2(
// NESTSPLIT-NEXT:      scf.while
// NESTSPLIT-NEXT:        func.call @main_piece_3(
// NESTSPLIT:             func.call @main_piece_4(
// NESTSPLIT-NEXT:        magi.sym_compare "ne" {{.*}} {magi.loop_condition}
// NESTSPLIT:           } do {
// NESTSPLIT:             func.call @main_piece_5(
// RUN: magi-interp %t/nested-while.pt2 --input %t/i.npy --input %t/i.npy --lowered-pieces | FileCheck %s --check-prefix=NESTCPU
// Two outer iterations; the inner loop counts j to 3 in the first.
// NESTCPU:      out0: tensor<i64> = 2
// NESTCPU-NEXT: out1: tensor<i64> = 3
// A second compile with the cache reads the manifest back with the
// runtime's reader (which checks the nesting).
// RUN: magi-compile %t/nested-while.pt2 -o %t/nested --no-cubin --cache-dir=%t/nest-cache --quiet
// RUN: magi-compile %t/nested-while.pt2 -o %t/nested-warm --no-cubin --cache-dir=%t/nest-cache --stats | FileCheck %s --check-prefix=NESTWARM
// NESTWARM: main_piece_5 {{.*}} hit
// RUN: %python -c "import json, sys; print(json.dumps(json.load(open(sys.argv[1]))['graph']['loops'], sort_keys=True))" %t/nested/manifest.json | FileCheck %s --check-prefix=NESTED
// NESTED: [{"body_steps": 4, "carried": [{"input": 0}, {"input": 1}], "cond_steps": 2, "condition": {"result": 0, "step": 1}, "first": 0, "next": [{"result": 0, "step": 2}, {"loop": 1, "result": 0}]}, {"body_steps": 1, "carried": [{"carried": 1}], "cond_steps": 2, "condition": {"result": 0, "step": 4}, "first": 3, "in": {"loop": 0, "part": "body"}, "next": [{"result": 0, "step": 5}]}]

// A cond alone compiles for the GPU as both branches and a select, and
// runs as the branch the predicate picks.
// RUN: magi-import %t/cond-select.pt2 | magi-opt --magi-compile-to=full-graph | FileCheck %s --check-prefix=SELECT
// SELECT-NOT: scf.if
// SELECT: magi.where %arg0,
// RUN: magi-compile %t/cond-select.pt2 -o %t/cond-select --no-cubin --cache-mode=off --quiet
// RUN: ls %t/cond-select/manifest.json
// RUN: magi-interp %t/cond-select.pt2 --input %t/true.npy --input %t/x.npy --input %t/x.npy --lowered-pieces | FileCheck %s --check-prefix=SELTRUE
// RUN: magi-interp %t/cond-select.pt2 --input %t/false.npy --input %t/x.npy --input %t/x.npy --lowered-pieces | FileCheck %s --check-prefix=SELFALSE
// sin(x) * x, and cos(x).
// SELTRUE:  out0: tensor<3xf32> = [0, 0.84147096, 1.8185948]
// SELFALSE: out0: tensor<3xf32> = [1, 0.5403023, -0.41614684]

// A cond whose branches give their inputs unchanged folds into an
// arith.select of whole tensors: a magi.where too, so it compiles.
// RUN: magi-import %t/cond-pass.pt2 | magi-opt --magi-compile-to=full-graph | FileCheck %s --check-prefix=PASS
// PASS-NOT: arith.select
// PASS: magi.where %arg0, %arg1, %arg2
// RUN: magi-compile %t/cond-pass.pt2 -o %t/cond-pass --no-cubin --cache-mode=off --quiet
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/y4p.npy float32 4 10,20,30,40
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x4p.npy float32 4 1,2,3,4
// RUN: magi-interp %t/cond-pass.pt2 --input %t/true.npy --input %t/x4p.npy --input %t/y4p.npy --lowered-pieces | FileCheck %s --check-prefix=PASSTRUE
// RUN: magi-interp %t/cond-pass.pt2 --input %t/false.npy --input %t/x4p.npy --input %t/y4p.npy --lowered-pieces | FileCheck %s --check-prefix=PASSFALSE
// PASSTRUE:  out0: tensor<4xf32> = [2, 4, 6, 8]
// PASSFALSE: out0: tensor<4xf32> = [20, 40, 60, 80]

// A cond whose true branch gathers (index_select) is no select: it stays on
// the top level, each branch split into pieces, the predicate read on the
// host (magi.item named cond0, bound 1) and compared with 0 there.
// RUN: magi-import %t/cond-branch.pt2 | magi-opt --magi-compile-to=split | FileCheck %s --check-prefix=BRANCH
// BRANCH-LABEL: func.func private @main_piece_0(%{{.*}}: tensor<i1>) -> index
// BRANCH-SAME:    magi.is_splitting = true
// BRANCH:         magi.item %{{.*}} bound %{{.*}} {symbol = "cond0"} : tensor<i1> -> index
// BRANCH-LABEL: func.func @main(
// BRANCH:         %[[READ:.*]] = call @main_piece_0(%arg0)
// BRANCH-NEXT:    %[[GO:.*]] = magi.sym_compare "ne" %[[READ]], %{{.*}} {magi.host_arithmetic}
// BRANCH-NEXT:    %[[R:.*]] = scf.if %[[GO]] -> (tensor<4xf32>) {
// BRANCH-NEXT:      %[[T:.*]] = func.call @main_piece_1(%arg1, %arg2)
// BRANCH-NEXT:      scf.yield %[[T]]
// BRANCH-NEXT:    } else {
// BRANCH-NEXT:      %[[E:.*]] = func.call @main_piece_2(%arg1)
// BRANCH-NEXT:      scf.yield %[[E]]
// BRANCH-NEXT:    }
// BRANCH-NEXT:    call @main_piece_3(%[[R]], %arg1)
// The artifact's branch: step 1 is the then part, step 2 the else part;
// step 3 takes the result of the part taken.
// RUN: magi-compile %t/cond-branch.pt2 -o %t/cond-branch --no-cubin --cache-mode=off --quiet
// RUN: FileCheck %s --check-prefix=BRMANIFEST --input-file=%t/cond-branch/manifest.json
// BRMANIFEST:      "branches": [
// BRMANIFEST-NEXT:   {
// BRMANIFEST-NEXT:     "condition": "ne(cond0, 0)",
// BRMANIFEST-NEXT:     "else": [
// BRMANIFEST-NEXT:       {
// BRMANIFEST-NEXT:         "result": 0,
// BRMANIFEST-NEXT:         "step": 2
// BRMANIFEST-NEXT:       }
// BRMANIFEST-NEXT:     ],
// BRMANIFEST-NEXT:     "else_steps": 1,
// BRMANIFEST-NEXT:     "first": 1,
// BRMANIFEST-NEXT:     "then": [
// BRMANIFEST-NEXT:       {
// BRMANIFEST-NEXT:         "result": 0,
// BRMANIFEST-NEXT:         "step": 1
// BRMANIFEST-NEXT:       }
// BRMANIFEST-NEXT:     ],
// BRMANIFEST-NEXT:     "then_steps": 1
// BRMANIFEST-NEXT:   }
// BRMANIFEST-NEXT: ],
// BRMANIFEST:      "branch": 0,
// BRMANIFEST-NEXT: "result": 0
// BRMANIFEST:      "symbols": [
// BRMANIFEST-NEXT:   {
// BRMANIFEST-NEXT:     "max": 1,
// BRMANIFEST-NEXT:     "min": 0,
// BRMANIFEST-NEXT:     "name": "cond0",
// BRMANIFEST-NEXT:     "result": 0,
// BRMANIFEST-NEXT:     "step": 0
// BRMANIFEST-NEXT:   }
// BRMANIFEST-NEXT: ]
// Interpreted and run lowered on the CPU through the split pieces:
// x[idx] + x, and 2x + x.
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x4b.npy float32 4 1,2,3,4
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/idx.npy int64 4 3,0,0,1
// RUN: magi-interp %t/cond-branch.pt2 --input %t/true.npy --input %t/x4b.npy --input %t/idx.npy | FileCheck %s --check-prefix=BRTRUE
// RUN: magi-interp %t/cond-branch.pt2 --input %t/true.npy --input %t/x4b.npy --input %t/idx.npy --lowered-pieces | FileCheck %s --check-prefix=BRTRUE
// RUN: magi-interp %t/cond-branch.pt2 --input %t/false.npy --input %t/x4b.npy --input %t/idx.npy --lowered-pieces | FileCheck %s --check-prefix=BRFALSE
// BRTRUE:  out0: tensor<4xf32> = [5, 3, 4, 6]
// BRFALSE: out0: tensor<4xf32> = [3, 6, 9, 12]

// A cond inside a while loop's body (no select): a branch of the runtime
// inside the loop, its predicate cond0 read on the host every iteration
// (a symbol defined inside the loop's body); run lowered on the CPU
// (x * 2, then x[idx]) and compiled.
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/i0.npy int64 "" 0
// RUN: magi-interp %t/loop-cond.pt2 --input %t/x4b.npy --input %t/idx.npy --input %t/i0.npy --lowered-pieces | FileCheck %s --check-prefix=LOOPCOND
// LOOPCOND: out0: tensor<4xf32> = [8, 2, 2, 4]
// RUN: magi-import %t/loop-cond.pt2 | magi-opt --magi-compile-to=split | FileCheck %s --check-prefix=LOOPCONDSPLIT
// LOOPCONDSPLIT:      magi.item %{{.*}} bound %{{.*}} {symbol = "cond0"} : tensor<i1> -> index
// LOOPCONDSPLIT-LABEL: func.func @main(
// LOOPCONDSPLIT:       } do {
// LOOPCONDSPLIT:         %[[READ:.*]] = func.call @main_piece_3(
// LOOPCONDSPLIT-NEXT:    %[[P:.*]] = magi.sym_compare "ne" %[[READ]], %{{.*}} {magi.host_arithmetic}
// LOOPCONDSPLIT-NEXT:    scf.if %[[P]]
// RUN: magi-compile %t/loop-cond.pt2 -o %t/loop-cond --no-cubin --cache-dir=%t/loop-cond-cache --quiet
// RUN: magi-compile %t/loop-cond.pt2 -o %t/loop-cond-warm --no-cubin --cache-dir=%t/loop-cond-cache --stats | FileCheck %s --check-prefix=LOOPCONDWARM
// LOOPCONDWARM: main_piece_5 {{.*}} hit
// RUN: %python -c "import json, sys; g = json.load(open(sys.argv[1]))['graph']; print(json.dumps([g['symbols'], g['branches']], sort_keys=True))" %t/loop-cond/manifest.json | FileCheck %s --check-prefix=LOOPCONDGPU
// LOOPCONDGPU: [{{\[}}{"max": 1, "min": 0, "name": "cond0", "result": 0, "step": 3}], [{"condition": "ne(cond0, 0)", "else": [{"result": 0, "step": 5}], "else_steps": 1, "first": 4, "in": {"loop": 0, "part": "body"}, "then": [{"result": 0, "step": 4}], "then_steps": 1}]]

// Sizes of the data inside a cond's branch and a loop's body: the mask's
// count is read on the host inside the then part (cond-nonzero) and every
// iteration of the body (loop-nonzero: 2, then 4 and 4 elements > 2),
// planned at 4 and at 0. Interpreted (a size computed in a loop is new
// each iteration), run lowered on the CPU, and compiled.
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/xm.npy float32 4 1,-2,3,-4
// RUN: magi-interp %t/cond-nonzero.pt2 --input %t/true.npy --input %t/xm.npy --lowered-pieces | FileCheck %s --check-prefix=CNZTRUE
// RUN: magi-interp %t/cond-nonzero.pt2 --input %t/false.npy --input %t/xm.npy --lowered-pieces | FileCheck %s --check-prefix=CNZFALSE
// CNZTRUE: out0: tensor<f32> = 4
// CNZFALSE: out0: tensor<f32> = -4
// RUN: magi-import %t/cond-nonzero.pt2 | magi-opt --magi-compile-to=split | FileCheck %s --check-prefix=CNZSPLIT
// CNZSPLIT-LABEL: func.func @main(
// CNZSPLIT:         scf.if
// CNZSPLIT-NEXT:      %[[MASK:.*]]:2 = func.call @main_piece_1(
// CNZSPLIT-NEXT:      %[[COUNT:.*]] = func.call @main_piece_2(%[[MASK]]#0) : (tensor<i64>) -> index
// CNZSPLIT-NEXT:      func.call @main_piece_3(%[[COUNT]], %[[MASK]]#1,
// RUN: magi-compile %t/cond-nonzero.pt2 -o %t/cond-nonzero --no-cubin --cache-dir=%t/cnz-cache --quiet
// RUN: magi-compile %t/cond-nonzero.pt2 -o %t/cond-nonzero-warm --no-cubin --cache-dir=%t/cnz-cache --stats | FileCheck %s --check-prefix=CNZWARM
// CNZWARM: main_piece_2 {{.*}} hit
// RUN: FileCheck %s --check-prefix=CNZREAD --input-file=%t/cond-nonzero/manifest.json
// CNZREAD:      "name": "main_piece_2"
// CNZREAD:        "variants": [
// CNZREAD:            "results": [
// CNZREAD-NEXT:         {
// CNZREAD-NEXT:           "bound": 4,
// RUN: magi-interp %t/loop-nonzero.pt2 --input %t/x4.npy --input %t/i.npy | FileCheck %s --check-prefix=LNZ
// RUN: magi-interp %t/loop-nonzero.pt2 --input %t/x4.npy --input %t/i.npy --lowered-pieces | FileCheck %s --check-prefix=LNZ
// LNZ: out0: tensor<4xf32> = [236, 237, 238, 239]
// RUN: magi-compile %t/loop-nonzero.pt2 -o %t/loop-nonzero --no-cubin --cache-dir=%t/lnz-cache --quiet
// RUN: magi-compile %t/loop-nonzero.pt2 -o %t/loop-nonzero-warm --no-cubin --cache-dir=%t/lnz-cache --stats | FileCheck %s --check-prefix=LNZWARM
// LNZWARM: main_piece_3 {{.*}} hit
// RUN: %python -c "import json, sys; print(json.dumps(json.load(open(sys.argv[1]))['graph']['loops'], sort_keys=True))" %t/loop-nonzero/manifest.json | FileCheck %s --check-prefix=LNZLOOP
// LNZLOOP: [{"body_steps": 3, "carried": [{"input": 1}, {"input": 0}], "cond_steps": 2, "condition": {"result": 0, "step": 1}, "first": 0, "next": [{"result": 0, "step": 2}, {"result": 0, "step": 4}]}]

// A size of the data a cond's branch computes and the graph uses after it
// (its result's size): no branch of the runtime (the size is known only
// inside), so the cond stays in a piece; the CPU runs it, the GPU path
// refuses it, saying why.
// RUN: magi-interp %t/cond-nonzero-out.pt2 --input %t/true.npy --input %t/xm.npy | FileCheck %s --check-prefix=CNZOUT
// CNZOUT: out0: tensor<2xf32> = [1, 3]
// RUN: not magi-compile %t/cond-nonzero-out.pt2 -o %t/cond-nonzero-out --no-cubin --cache-mode=off --quiet 2>&1 | FileCheck %s --check-prefix=CNZOUTGPU
// CNZOUTGPU: error: 'scf.if' (control flow: torch.cond or while_loop) is not compiled for the GPU: {{.*}}; a cond runs as a branch of the runtime, but not this one: a size of the data it computes (u0) is used outside it, where it is not known

// A bool .item() (a SymBool) imports as the element read on the host,
// compared with 0; as a cond's predicate, the branch's condition is that
// read, named cond0 for the runtime.
// RUN: magi-import %t/item-bool.pt2 | FileCheck %s --check-prefix=ITEMBOOL
// ITEMBOOL:      %[[READ:.*]] = magi.item %arg0 bound %{{.*}} : tensor<1xi1> -> index
// ITEMBOOL:      %[[TRUTH:.*]] = magi.sym_compare "ne" %[[READ]], %{{.*}}
// ITEMBOOL-NEXT: scf.if %[[TRUTH]] -> (tensor<4xf32>)
// RUN: magi-import %t/item-bool.pt2 | magi-opt --magi-compile-to=split | FileCheck %s --check-prefix=ITEMSPLIT
// ITEMSPLIT: magi.item %{{.*}} bound %{{.*}} {symbol = "cond0"} : tensor<1xi1> -> index
// ITEMSPLIT: magi.sym_compare "ne" %{{.*}}, %{{.*}} {magi.host_arithmetic}
// RUN: magi-compile %t/item-bool.pt2 -o %t/item-bool --no-cubin --cache-mode=off --quiet
// RUN: FileCheck %s --check-prefix=ITEMCOND --input-file=%t/item-bool/manifest.json
// ITEMCOND: "condition": "ne(cond0, 0)",
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/p1b.npy bool 1 1
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/p0b.npy bool 1 0
// RUN: magi-interp %t/item-bool.pt2 --input %t/p1b.npy --input %t/x4b.npy --input %t/idx.npy --lowered-pieces | FileCheck %s --check-prefix=ITEMTRUE
// RUN: magi-interp %t/item-bool.pt2 --input %t/p0b.npy --input %t/x4b.npy --input %t/idx.npy --lowered-pieces | FileCheck %s --check-prefix=ITEMFALSE
// ITEMTRUE:  out0: tensor<4xf32> = [4, 1, 1, 2]
// ITEMFALSE: out0: tensor<4xf32> = [2, 4, 6, 8]

// An integer .item() with no bound (no torch._check gave one) as a cond's
// predicate (u0 > 0) and in an assertion (u0 != 7): it gives no size, so
// magi-split marks it to be read whatever it is, and the artifact's read
// has no bound and its symbol no range. Negative values run the else part.
// RUN: magi-import %t/item-int.pt2 | magi-opt --magi-compile-to=split | FileCheck %s --check-prefix=ANYSPLIT
// ANYSPLIT: magi.item %{{.*}} {magi.read_any_value, symbol = "u0"} : tensor<1xi64> -> index
// RUN: magi-compile %t/item-int.pt2 -o %t/item-int --no-cubin --cache-mode=off --quiet
// RUN: FileCheck %s --check-prefix=ANYMANIFEST --input-file=%t/item-int/manifest.json
// ANYMANIFEST:      "condition": "gt(u0, 0)",
// ANYMANIFEST:      "checks": [
// ANYMANIFEST-NEXT:   {
// ANYMANIFEST-NEXT:     "expr": "ne(u0, 7)",
// ANYMANIFEST:      "symbols": [
// ANYMANIFEST-NEXT:   {
// ANYMANIFEST-NEXT:     "max": null,
// ANYMANIFEST-NEXT:     "min": null,
// ANYMANIFEST-NEXT:     "name": "u0",
// ANYMANIFEST:      "plan": [],
// ANYMANIFEST-NEXT: "results": [
// ANYMANIFEST-NEXT:   {
// ANYMANIFEST-NEXT:     "dtype": "i64",
// ANYMANIFEST-NEXT:     "read": {
// ANYMANIFEST-NOT:  "bound"
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/kneg.npy int64 1 -3
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/kpos.npy int64 1 5
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/k7.npy int64 1 7
// RUN: magi-interp %t/item-int.pt2 --input %t/kneg.npy --input %t/x4b.npy --input %t/idx.npy --lowered-pieces | FileCheck %s --check-prefix=ITEMFALSE
// RUN: magi-interp %t/item-int.pt2 --input %t/kpos.npy --input %t/x4b.npy --input %t/idx.npy --lowered-pieces | FileCheck %s --check-prefix=ITEMTRUE
// RUN: not magi-interp %t/item-int.pt2 --input %t/k7.npy --input %t/x4b.npy --input %t/idx.npy --lowered-pieces 2>&1 | FileCheck %s --check-prefix=ANYCHECK
// ANYCHECK: error: runtime assertion failed: Runtime assertion failed for expression Ne(u0, 7) on node 'ne'

// torch._check(k.item() <= 10) alone: the export's range is [-inf, 10], so
// the read has no bound (a bound means [0, bound]; before, -3 was refused
// as "outside its range [0, 10]"), and the export's assertion checks the
// top of the range.
// RUN: magi-import %t/item-int-above.pt2 | FileCheck %s --check-prefix=ABOVE
// ABOVE: magi.item %arg0 {symbol = "u0"} : tensor<1xi64> -> index
// RUN: magi-interp %t/item-int-above.pt2 --input %t/kneg.npy --input %t/x4b.npy --input %t/idx.npy | FileCheck %s --check-prefix=ITEMFALSE
// RUN: magi-interp %t/item-int-above.pt2 --input %t/kneg.npy --input %t/x4b.npy --input %t/idx.npy --lowered-pieces | FileCheck %s --check-prefix=ITEMFALSE
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/k11.npy int64 1 11
// RUN: not magi-interp %t/item-int-above.pt2 --input %t/k11.npy --input %t/x4b.npy --input %t/idx.npy 2>&1 | FileCheck %s --check-prefix=ABOVECHECK
// ABOVECHECK: error: runtime assertion failed: Runtime assertion failed for expression u0 <= 10 on node 'le'
// RUN: magi-compile %t/item-int-above.pt2 -o %t/item-int-above --no-cubin --cache-mode=off --quiet
// RUN: %python -c "import json, sys; g = json.load(open(sys.argv[1]))['graph']; print(json.dumps([g['symbols'], [c['expr'] for c in g['checks']]], sort_keys=True))" %t/item-int-above/manifest.json | FileCheck %s --check-prefix=ABOVEMANIFEST
// ABOVEMANIFEST: [{{\[}}{"max": null, "min": null, "name": "u0", "result": 0, "step": 0}], ["ne(u0, 7)", "le(u0, 10)"]]

// A cond inside a cond's branch (neither a select): branches of the
// runtime, the inner one inside the outer one's then part; its predicate
// cond1 is read there, only when that part runs.
// RUN: magi-interp %t/nested-cond.pt2 --input %t/true.npy --input %t/false.npy --input %t/x4b.npy --input %t/idx.npy --lowered-pieces | FileCheck %s --check-prefix=NESTCOND
// NESTCOND: out0: tensor<4xf32> = [-1, -2, -3, -4]
// RUN: magi-compile %t/nested-cond.pt2 -o %t/nested-cond --no-cubin --cache-mode=off --quiet
// RUN: %python -c "import json, sys; g = json.load(open(sys.argv[1]))['graph']; print(json.dumps([g['symbols'], g['branches']], sort_keys=True))" %t/nested-cond/manifest.json | FileCheck %s --check-prefix=NESTCONDGPU
// NESTCONDGPU: [{{\[}}{"max": 1, "min": 0, "name": "cond0", "result": 0, "step": 0}, {"max": 1, "min": 0, "name": "cond1", "result": 0, "step": 1}], [{"condition": "ne(cond0, 0)", "else": [{"result": 0, "step": 4}], "else_steps": 1, "first": 1, "then": [{"branch": 1, "result": 0}], "then_steps": 3}, {"condition": "ne(cond1, 0)", "else": [{"result": 0, "step": 3}], "else_steps": 1, "first": 2, "in": {"branch": 0, "part": "then"}, "then": [{"result": 0, "step": 2}], "then_steps": 1}]]

// Symbolic sizes: the predicate has one element in rank 1; the false branch
// returns its input. Specializing s0 gives every joined value one static type.
// RUN: magi-import %t/symbolic.pt2 -o %t/symbolic.mlir
// RUN: magi-opt %t/symbolic.mlir --pass-pipeline='builtin.module(magi-specialize{symbol=s0 value=4 replace=true})' | FileCheck %s --check-prefix=SPEC
// SPEC: tensor.extract %{{.*}}[%{{.*}}] : tensor<1xi1>
// SPEC: scf.if %{{.*}} -> (tensor<4xf32>)
// SPEC: scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>)
// SPEC: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<4xf32>):
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/p1.npy bool 1 1
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/p0.npy bool 1 0
// RUN: magi-interp %t/symbolic.pt2 --input %t/p1.npy --input %t/x.npy --input %t/i.npy --lowered-pieces | FileCheck %s --check-prefix=NEG
// RUN: magi-interp %t/symbolic.pt2 --input %t/p0.npy --input %t/x.npy --input %t/i.npy --lowered-pieces | FileCheck %s --check-prefix=SAME
// -x, then x added twice; x, then x added twice.
// NEG:  out0: tensor<3xf32> = [0, 1, 2]
// SAME: out0: tensor<3xf32> = [0, 3, 6]

// A predicate on the sizes (a SymBool): the branch follows the length, in
// the interpreter and lowered (magi.sym_compare becomes arith.cmpi).
// RUN: magi-import %t/size-predicate.pt2 | FileCheck %s --check-prefix=SIZE
// SIZE: %[[N:.*]] = magi.sym_size %arg0, 0
// SIZE: %[[GT:.*]] = magi.sym_compare "gt" %[[N]], %{{.*}}
// SIZE: scf.if %[[GT]] -> (tensor<?xf32>)
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x4.npy float32 4 1,2,3,4
// RUN: magi-interp %t/size-predicate.pt2 --input %t/x4.npy --lowered-pieces | FileCheck %s --check-prefix=LONG
// RUN: magi-interp %t/size-predicate.pt2 --input %t/x.npy --lowered-pieces | FileCheck %s --check-prefix=SHORT
// LONG:  out0: tensor<4xf32> = [-1, -2, -3, -4]
// SHORT: out0: tensor<3xf32> = [0, 10, 20]
// At the top level, the cond on the sizes is a branch of the runtime whose
// condition is the predicate itself: each part a piece with a variant for
// any size (and one per compile size).
// RUN: magi-compile %t/size-predicate.pt2 -o %t/unsized --no-cubin --cache-mode=off --quiet
// RUN: FileCheck %s --check-prefix=UNSIZED --input-file=%t/unsized/manifest.json
// UNSIZED:      "branches": [
// UNSIZED-NEXT:   {
// UNSIZED-NEXT:     "condition": "gt(s0, 3)",
// UNSIZED:          "first": 0,
// UNSIZED:      "outputs": [
// UNSIZED-NEXT:   {
// UNSIZED-NEXT:     "branch": 0,
// UNSIZED-NEXT:     "result": 0
// UNSIZED-NEXT:   }
// RUN: magi-compile %t/size-predicate.pt2 -o %t/sized --no-cubin --cache-mode=off --quiet --compile-sizes=3,4 2>&1 | FileCheck %s --check-prefix=SIZED --allow-empty
// SIZED-NOT: warning
// RUN: FileCheck %s --check-prefix=VARIANTS --input-file=%t/sized/manifest.json
// VARIANTS:     "symbols": {
// VARIANTS-NEXT:  "s0": 3
// VARIANTS:     "symbols": {
// VARIANTS-NEXT:  "s0": 4
// VARIANTS:     "symbols": {}

// A cond on the sizes inside a cond on the sizes: two branches of the
// runtime, the inner one in the outer one's then part (its predicate's
// size is the symbol s0 there too), for any size; with compile sizes, each
// part's piece also has a variant for each.
// RUN: magi-compile %t/nested-size-cond.pt2 -o %t/nested-unsized --no-cubin --cache-mode=off --quiet
// RUN: %python -c "import json, sys; print(json.dumps(json.load(open(sys.argv[1]))['graph']['branches'], sort_keys=True))" %t/nested-unsized/manifest.json | FileCheck %s --check-prefix=NESTUNSIZED
// NESTUNSIZED: [{"condition": "gt(s0, 3)", "else": [{"result": 0, "step": 2}], "else_steps": 1, "first": 0, "then": [{"branch": 1, "result": 0}], "then_steps": 2}, {"condition": "gt(s0, 5)", "else": [{"result": 0, "step": 1}], "else_steps": 1, "first": 0, "in": {"branch": 0, "part": "then"}, "then": [{"result": 0, "step": 0}], "then_steps": 1}]
// RUN: magi-compile %t/nested-size-cond.pt2 -o %t/nested-sized --no-cubin --cache-mode=off --quiet --compile-sizes=3,6 2>&1 | FileCheck %s --check-prefix=NESTSIZED --allow-empty
// NESTSIZED-NOT: warning
// RUN: FileCheck %s --check-prefix=NESTVARIANTS --input-file=%t/nested-sized/manifest.json
// NESTVARIANTS:     "symbols": {
// NESTVARIANTS-NEXT:  "s0": 3
// NESTVARIANTS:     "symbols": {
// NESTVARIANTS-NEXT:  "s0": 6
// NESTVARIANTS:     "symbols": {}
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x6.npy float32 6 1,2,3,4,5,6
// RUN: magi-interp %t/nested-size-cond.pt2 --input %t/x6.npy --lowered-pieces | FileCheck %s --check-prefix=NESTSIX
// RUN: magi-interp %t/nested-size-cond.pt2 --input %t/x4.npy --lowered-pieces | FileCheck %s --check-prefix=NESTFOUR
// RUN: magi-interp %t/nested-size-cond.pt2 --input %t/x.npy --lowered-pieces | FileCheck %s --check-prefix=NESTTHREE
// NESTSIX:   out0: tensor<6xf32> = [-1, -2, -3, -4, -5, -6]
// NESTFOUR:  out0: tensor<4xf32> = [3, 6, 9, 12]
// NESTTHREE: out0: tensor<3xf32> = [0, 10, 20]

// RUN: not magi-import %t/wrong-inputs.pt2 2>&1 | FileCheck %s --check-prefix=INPUTS
// INPUTS: error: node 'getitem (torch.ops.higher_order.cond)': subgraph 'true_graph_0' takes 2 inputs, but is given 1
// RUN: not magi-import %t/float-predicate.pt2 2>&1 | FileCheck %s --check-prefix=PRED
// PRED: error: node 'getitem (torch.ops.higher_order.cond)': the predicate of cond must be a bool tensor of one element, got 'tensor<f32>'

// Other higher-order ops stay opaque; their unnamed positional arguments are
// named by position (they once overwrote each other under the name ""), so
// the printed graph parses back.
// RUN: magi-import %t/other-hop.pt2 -o %t/other-hop.mlir 2>&1 | FileCheck %s --check-prefix=WARN
// WARN: warning: ops without a typed magi op, kept as magi.opaque: higher_order::my_hop (1)
// RUN: magi-opt --verify-roundtrip %t/other-hop.mlir | FileCheck %s --check-prefix=HOP
// HOP: magi.opaque "higher_order::my_hop"(%{{.*}}) {arg1 = 2 : i64, arg2 = "{\22as_graph\22:{{.*}}, magi.operand_names = ["arg0"]}
