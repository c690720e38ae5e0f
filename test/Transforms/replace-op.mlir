// RUN: magi-opt %s -magi-replace-op='from=magi.sigmoid to=magi.tanh' | FileCheck %s --check-prefix=M2M
// RUN: magi-opt %s -magi-replace-op='from=magi.softmax to=magi.log_softmax' | FileCheck %s --check-prefix=ATTRS
// RUN: magi-opt %s -magi-replace-op='from=mylib::fast_exp.default to=magi.exp' | FileCheck %s --check-prefix=O2M
// RUN: magi-opt %s -magi-replace-op='from=magi.softmax to=magi.opaque:mylib::softmax.default' | FileCheck %s --check-prefix=M2O
// RUN: magi-opt %s -magi-replace-op='from=mylib::fast_exp.default to=magi.opaque:mylib::exp2.default' | FileCheck %s --check-prefix=O2O
// RUN: magi-opt %s -pass-pipeline='builtin.module(func.func(magi-replace-op{from=magi.nothing to=magi.tanh}))' | FileCheck %s --check-prefix=NOMATCH
// RUN: not magi-opt %s -magi-replace-op='from=magi.softmax to=magi.bogus' 2>&1 | FileCheck %s --check-prefix=UNREG
// RUN: not magi-opt %s -magi-replace-op='from=magi.sigmoid to=magi.softmax' 2>&1 | FileCheck %s --check-prefix=INVALID
// RUN: not magi-opt %s -magi-replace-op='from=magi.scaled_dot_product_efficient_attention to=magi.attention' 2>&1 | FileCheck %s --check-prefix=RESULTS
// RUN: not magi-opt %s -magi-replace-op='from=magi.sigmoid' 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not magi-opt %s -magi-replace-op='to=magi.tanh' 2>&1 | FileCheck %s --check-prefix=MISSING

// magi-replace-op renames ops: same operands, attributes and result types.

// magi op to magi op, every occurrence, uses rewired.
// M2M-LABEL: func.func @f(
// M2M-SAME: %[[X:[^:]*]]: tensor<4x8xf32>
// M2M-NEXT: %[[A:.*]] = magi.tanh %[[X]] : (tensor<4x8xf32>) -> tensor<4x8xf32>
// M2M-NEXT: %[[B:.*]] = magi.softmax %[[A]] {dim = -1 : i64}
// M2M-NEXT: %[[C:.*]] = magi.opaque "mylib::fast_exp.default"(%[[B]])
// M2M-NEXT: %[[D:.*]] = magi.tanh %[[C]]
// M2M-NOT: magi.sigmoid
// M2M: return %[[B]], %[[D]]

// The attributes go with the op (softmax's dim to log_softmax's dim).
// ATTRS-LABEL: func.func @f(
// ATTRS: %[[B:.*]] = magi.log_softmax %{{.*}} {dim = -1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// ATTRS-NOT: magi.softmax
// ATTRS: return %[[B]]

// An opaque op by the name it carries, to a magi op; its other attributes stay.
// O2M-LABEL: func.func @f(
// O2M: %[[B:.*]] = magi.softmax
// O2M-NEXT: %[[C:.*]] = magi.exp %[[B]] {note = "x"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// O2M-NOT: magi.opaque
// O2M: return %[[B]], %{{.*}}

// A magi op to an opaque op (magi.opaque:<name>): its inherent attributes
// become the opaque op's attributes.
// M2O-LABEL: func.func @f(
// M2O: %[[B:.*]] = magi.opaque "mylib::softmax.default"(%{{.*}}) {dim = -1 : i64, half_to_float = false} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// M2O-NOT: magi.softmax
// M2O: magi.opaque "mylib::fast_exp.default"(%[[B]])

// Opaque to opaque: the name changes, the attributes stay.
// O2O-LABEL: func.func @f(
// O2O: magi.opaque "mylib::exp2.default"(%{{.*}}) {note = "x"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// O2O-NOT: fast_exp

// Nothing to replace: unchanged.
// NOMATCH-LABEL: func.func @f(
// NOMATCH-NEXT: magi.sigmoid
// NOMATCH-NEXT: magi.softmax
// NOMATCH-NOT: magi.tanh

// UNREG: error: magi-replace-op: 'magi.bogus' is not a registered op (for an opaque op, write 'magi.opaque:magi.bogus')

// The replacement must verify: softmax needs a dim that sigmoid does not have.
// INVALID: error: 'magi.softmax' op requires attribute 'dim'
// INVALID: error: magi-replace-op: replacing 'magi.sigmoid' by 'magi.softmax' gives an invalid op here

// Four results where attention has one.
// RESULTS: error: magi-replace-op: replacing 'magi.scaled_dot_product_efficient_attention' by 'magi.attention' gives an invalid op here

// MISSING: error: magi-replace-op needs both 'from' and 'to'

func.func @f(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = magi.sigmoid %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = magi.softmax %a {dim = -1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = magi.opaque "mylib::fast_exp.default"(%b) {note = "x"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = magi.sigmoid %c : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %b, %d : tensor<4x8xf32>, tensor<4x8xf32>
}

func.func @sdpa(%q: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  %r, %lse, %seed, %off = magi.scaled_dot_product_efficient_attention %q, %q, %q : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x0xf32>, tensor<i64>, tensor<i64>)
  return %r : tensor<2x4x8x16xf32>
}
