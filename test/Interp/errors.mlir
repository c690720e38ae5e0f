// Errors name the op and its location, and make magi-interp exit nonzero.

// RUN: not magi-interp %s --function=opaque 2>&1 | FileCheck %s --check-prefix=OPAQUE
// OPAQUE: magi-interp: error: cannot interpret 'magi.opaque' ("aten::topk.default") at {{.*}}errors.mlir:[[@LINE+3]]:12
func.func @opaque() -> tensor<2x2xf32> {
  %x = magi.constant dense<1.0> : tensor<2x4xf32>
  %v, %i = magi.opaque "aten::topk.default"(%x) {k = 2 : i64} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
  return %v : tensor<2x2xf32>
}

// RUN: not magi-interp %s --function=other_dialect 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: magi-interp: error: cannot interpret 'tensor.empty' at {{.*}}errors.mlir:[[@LINE+2]]:8
func.func @other_dialect() -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  return %e : tensor<2xf32>
}

// RUN: not magi-interp %s --function=out_of_range 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: magi-interp: error: index 3 is out of range for a dimension of size 3 at {{.*}}errors.mlir:[[@LINE+4]]:8
func.func @out_of_range() -> tensor<2xf32> {
  %x = magi.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %i = magi.constant dense<[0, 3]> : tensor<2xi64>
  %y = magi.index %x[%i] {indexed_dims = array<i64: 0>} : (tensor<3xf32>, tensor<2xi64>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// RUN: not magi-interp %s --function=embedding_range 2>&1 | FileCheck %s --check-prefix=EMB
// EMB: magi-interp: error: embedding index -1 is out of range for 2 rows
func.func @embedding_range() -> tensor<1x2xf32> {
  %w = magi.constant dense<1.0> : tensor<2x2xf32>
  %i = magi.constant dense<[-1]> : tensor<1xi64>
  %y = magi.embedding %w, %i : (tensor<2x2xf32>, tensor<1xi64>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// RUN: not magi-interp %s --function=div_zero 2>&1 | FileCheck %s --check-prefix=DIV
// DIV: magi-interp: error: integer division by zero at {{.*}}errors.mlir:[[@LINE+4]]:8
func.func @div_zero() -> tensor<2xi64> {
  %x = magi.constant dense<[1, 2]> : tensor<2xi64>
  %z = magi.constant dense<[1, 0]> : tensor<2xi64>
  %y = magi.div %x, %z {rounding_mode = "floor"} : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %y : tensor<2xi64>
}

// A computed shape must agree with the static sizes the graph declares.
// RUN: not magi-interp %s --function=declared_shape 2>&1 | FileCheck %s --check-prefix=DECL
// DECL: magi-interp: error: computed a result of shape [3] and dtype 'f32' that contradicts the declared type 'tensor<2xf32>' at {{.*}}errors.mlir:[[@LINE+5]]:8
func.func @declared_shape() -> tensor<2xf32> {
  %x = magi.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %three = arith.constant 3 : index
  // Inference knows only `?`; the declared 2 is wrong at run time.
  %y = magi.slice %x, 0 [0, %three, 1] : tensor<4xf32> -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// RUN: not magi-interp %s --function=bad_view 2>&1 | FileCheck %s --check-prefix=VIEW
// VIEW: magi-interp: error: cannot view a tensor of shape [3] (3 elements) as [2, 2] (4 elements)
func.func @bad_view() -> tensor<2x2xf32> {
  %x = magi.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %three = arith.constant 3 : index
  %y = magi.slice %x, 0 [0, %three, 1] : tensor<4xf32> -> tensor<?xf32>
  %z = magi.view %y [2, 2] : tensor<?xf32> -> tensor<2x2xf32>
  return %z : tensor<2x2xf32>
}

// A symbol is unknown until a binding gives it a value.
// RUN: not magi-interp %s --function=unbound 2>&1 | FileCheck %s --check-prefix=UNBOUND
// UNBOUND: magi-interp: error: symbol 's3' has no value: no magi.bind_symbolic_shape before this op binds it to a size
func.func @unbound() -> tensor<?xf32> {
  %s3 = magi.symbolic_int "s3" min 0
  %y = magi.full [%s3] {fill_value = 1.0 : f64, dtype = f32} : tensor<?xf32>
  return %y : tensor<?xf32>
}

// RUN: not magi-interp %s --function=dropout 2>&1 | FileCheck %s --check-prefix=DROPOUT
// DROPOUT: magi-interp: error: attention with dropout (dropout_p = 5.000000e-01) is random; the interpreter supports dropout_p = 0 only
func.func @dropout() -> tensor<1x2x2xf32> {
  %q = magi.constant dense<1.0> : tensor<1x2x2xf32>
  %y = magi.attention %q, %q, %q {dropout_p = 0.5 : f64} : (tensor<1x2x2xf32>, tensor<1x2x2xf32>, tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
  return %y : tensor<1x2x2xf32>
}

// RUN: not magi-interp %s --function=nope 2>&1 | FileCheck %s --check-prefix=NOFUNC
// NOFUNC: magi-interp: error: '{{.*}}errors.mlir' has no function @nope
// RUN: not magi-interp %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: magi-interp: error: {{.*}}

// RUN: not magi-interp %s --function=grouped_mm_offsets 2>&1 | FileCheck %s --check-prefix=GROUPS
// GROUPS: magi-interp: error: offs must be nondecreasing and at most 4 (the rows of self), got 1 at group 1 after 3 at {{.*}}errors.mlir:[[@LINE+5]]:8
func.func @grouped_mm_offsets() -> tensor<4x2xf32> {
  %a = magi.constant dense<1.0> : tensor<4x3xf32>
  %b = magi.constant dense<1.0> : tensor<2x3x2xf32>
  %offs = magi.constant dense<[3, 1]> : tensor<2xi32>
  %y = magi.grouped_mm %a, %b, %offs : (tensor<4x3xf32>, tensor<2x3x2xf32>, tensor<2xi32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// A while_loop (scf.while) whose body reads out of range fails there, the
// error naming the op in the body.
// RUN: not magi-interp %s --function=loop_error 2>&1 | FileCheck %s --check-prefix=LOOP
// LOOP: magi-interp: error: index 3 is out of range for a dimension of size 3 at {{.*}}errors.mlir:[[@LINE+11]]:10
func.func @loop_error() -> tensor<i64> {
  %x = magi.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %i0 = magi.constant dense<0> : tensor<i64>
  %r = scf.while (%i = %i0) : (tensor<i64>) -> tensor<i64> {
    %c = arith.constant 5 : i64
    %lt = magi.lt %i, %c : (tensor<i64>, i64) -> tensor<i1>
    %go = tensor.extract %lt[] : tensor<i1>
    scf.condition(%go) %i : tensor<i64>
  } do {
  ^bb0(%j: tensor<i64>):
    %y = magi.index %x[%j] {indexed_dims = array<i64: 0>} : (tensor<3xf32>, tensor<i64>) -> tensor<f32>
    %c1 = arith.constant 1 : i64
    %n = magi.add %j, %c1 : (tensor<i64>, i64) -> tensor<i64>
    scf.yield %n : tensor<i64>
  }
  return %r : tensor<i64>
}

// A value read above its bound (nonzero's count above the element count,
// an .item() above its torch._check range) is an error, as on the GPU.
// RUN: not magi-interp %s --function=item_above_bound 2>&1 | FileCheck %s --check-prefix=ITEM
// ITEM: magi-interp: error: read 7, outside its range [0, 5] at {{.*}}errors.mlir:[[@LINE+4]]:8
func.func @item_above_bound() -> index {
  %x = magi.constant dense<7> : tensor<i64>
  %c5 = arith.constant 5 : index
  %s = magi.item %x bound %c5 : tensor<i64> -> index
  return %s : index
}
