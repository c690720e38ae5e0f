// An op Magi has no typed op for is kept whole as magi.opaque, with a warning
// that lists it; nothing is dropped.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/custom.pt2 custom-op
// RUN: magi-import %t/custom.pt2 -o %t/custom.mlir 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: FileCheck %s --input-file=%t/custom.mlir
// RUN: magi-opt --verify-roundtrip %t/custom.mlir > /dev/null

// WARN: warning: ops without a typed magi op, kept as magi.opaque: mylib::my_neg.default (4)

// CHECK-LABEL: func.func @main(
// CHECK: magi.opaque "mylib::my_neg.default"(%{{.*}}) {magi.operand_names = ["self"]} : (tensor<1x4x?x16xf32>) -> tensor<1x4x?x16xf32>
// CHECK-NOT: magi.neg
