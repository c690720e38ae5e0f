// Scalar arguments known only when the graph runs (a SymFloat from a float
// .item()) where a typed op takes a constant. Converters used to read such
// an argument as absent and put the default in its place (alpha 1, slope
// 0.01, min_val -1): a wrong result, silently. Now add's and sub's alpha
// multiply `other` first, hardtanh takes bounds as clamp does (ones times
// the value, magi.maximum), leaky_relu is where(x > 0, x, x * slope), elu
// where(x <= 0, expm1(x) * alpha, x) (its lowering's steps),
// constant_pad_nd x padded with 0 and the value where zeros padded with 1
// are not 0 (exact; padding x - v and adding v would round); any other
// such argument keeps its node opaque, the warning naming it (var's
// correction below).
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/args.pt2 @%S/Inputs/symbolic-scalar-args.spec
// RUN: magi-import %t/args.pt2 2>&1 | FileCheck %s
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/t.npy float32 1 0.5
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy float32 5 -3,-1,0,2.5,9
// RUN: magi-interp %t/args.pt2 --input %t/t.npy --input %t/x.npy | FileCheck %s --check-prefix=VALUES
// RUN: magi-interp %t/args.pt2 --input %t/t.npy --input %t/x.npy --lowered-pieces | FileCheck %s --check-prefix=VALUES
// RUN: magi-compile %t/args.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
// RUN: %python %S/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/var.pt2 \
// RUN:   '{"inputs": {"t": ("f32", [1]), "x": ("f32", [3])}, "nodes": [("aten._local_scalar_dense.default", [("self", "t")], {"s": ("symfloat", "Symbol(\"zuf0\")")}), \
// RUN:     ("aten.var.correction", [("self", "x"), ("dim", [0]), ("correction", "s")], {"v": ("f32", [])})], "outputs": ["v"]}'
// RUN: magi-import %t/var.pt2 2>&1 | FileCheck %s --check-prefix=VAR

// CHECK-NOT:  warning
// CHECK:      %[[S:.*]] = magi.item %arg0 : tensor<1xf32> -> f64
// CHECK-NEXT: %[[AX:.*]] = magi.mul %arg1, %[[S]] : (tensor<5xf32>, f64) -> tensor<5xf32>
// CHECK-NEXT: magi.add %arg1, %[[AX]] : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
// CHECK-NEXT: %[[BX:.*]] = magi.mul %arg1, %[[S]]
// CHECK-NEXT: magi.sub %arg1, %[[BX]]
// CHECK-NEXT: %[[ONES:.*]] = magi.full_like %arg1 {dtype = f32, fill_value = 1.000000e+00 : f64}
// CHECK-NEXT: %[[MIN:.*]] = magi.mul %[[ONES]], %[[S]]
// CHECK-NEXT: %[[LOW:.*]] = magi.maximum %arg1, %[[MIN]]
// CHECK-NEXT: magi.clamp %[[LOW]] {max = 4.000000e+00 : f64}
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: %[[POS:.*]] = magi.gt %arg1, %[[ZERO]] : (tensor<5xf32>, f64) -> tensor<5xi1>
// CHECK-NEXT: %[[SCALED:.*]] = magi.mul %arg1, %[[S]]
// CHECK-NEXT: magi.where %[[POS]], %arg1, %[[SCALED]]
// CHECK-NEXT: %[[EM1:.*]] = magi.expm1 %arg1
// CHECK-NEXT: %[[NEG:.*]] = magi.mul %[[EM1]], %[[S]]
// CHECK-NEXT: %[[ZERO2:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: %[[LE:.*]] = magi.le %arg1, %[[ZERO2]]
// CHECK-NEXT: magi.where %[[LE]], %[[NEG]], %arg1
// CHECK-NEXT: %[[ZEROS:.*]] = magi.full_like %arg1 {dtype = f32, fill_value = 0.000000e+00 : f64}
// CHECK-NEXT: %[[MASK:.*]] = magi.constant_pad_nd %[[ZEROS]] [1, 2] {value = 1.000000e+00 : f64}
// CHECK-NEXT: %[[ZERO3:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: %[[OUTSIDE:.*]] = magi.ne %[[MASK]], %[[ZERO3]] : (tensor<8xf32>, f64) -> tensor<8xi1>
// CHECK-NEXT: %[[PADDED:.*]] = magi.constant_pad_nd %arg1 [1, 2] : tensor<5xf32> -> tensor<8xf32>
// CHECK-NEXT: magi.where %[[OUTSIDE]], %[[S]], %[[PADDED]] : (tensor<8xi1>, f64, tensor<8xf32>) -> tensor<8xf32>
// CHECK-NOT:  magi.opaque

// VALUES:      out0: tensor<5xf32> = [-4.5, -1.5, 0, 3.75, 13.5]
// VALUES-NEXT: out1: tensor<5xf32> = [-1.5, -0.5, 0, 1.25, 4.5]
// VALUES-NEXT: out2: tensor<5xf32> = [0.5, 0.5, 0.5, 2.5, 4]
// VALUES-NEXT: out3: tensor<5xf32> = [-1.5, -0.5, 0, 2.5, 9]
// VALUES-NEXT: out4: tensor<5xf32> = [-0.47510648, -0.31606027, 0, 2.5, 9]
// VALUES-NEXT: out5: tensor<8xf32> = [0.5, -3, -1, 0, 2.5, 9, 0.5, 0.5]

// VAR:      warning: ops without a typed magi op, kept as magi.opaque: aten::var.correction (1); of those, with an argument the typed op takes as a constant but that is known only when the graph runs (a SymInt, a SymFloat, a tensor): aten::var.correction ('correction')
// VAR:      magi.opaque "aten::var.correction"(%arg1, %{{.*}}) {dim = array<i64: 0>, magi.operand_names = ["self", "correction"]}
