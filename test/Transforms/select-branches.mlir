// RUN: magi-opt %s -split-input-file -magi-select-branches | FileCheck %s

// magi-select-branches: torch.cond on a bool tensor (scf.if on the one
// element of a tensor<i1>) whose branches cannot fault becomes both
// branches and a magi.where per result.

// CHECK-LABEL: func.func @cond_on_tensor
// CHECK-SAME: (%[[P:.*]]: tensor<i1>, %[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>)
// CHECK-NOT: scf.if
// CHECK-NOT: tensor.extract
// CHECK: %[[SIN:.*]] = magi.sin %[[X]]
// CHECK-NEXT: %[[MUL:.*]] = magi.mul %[[SIN]], %[[Y]]
// CHECK-NEXT: %[[COS:.*]] = magi.cos %[[X]]
// CHECK-NEXT: %[[W0:.*]] = magi.where %[[P]], %[[MUL]], %[[COS]] : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[W1:.*]] = magi.where %[[P]], %[[SIN]], %[[X]] : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: return %[[W0]], %[[W1]]
func.func @cond_on_tensor(%p: tensor<i1>, %x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %c = tensor.extract %p[] : tensor<i1>
  %r:2 = scf.if %c -> (tensor<3xf32>, tensor<3xf32>) {
    %s = magi.sin %x : (tensor<3xf32>) -> tensor<3xf32>
    %m = magi.mul %s, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    scf.yield %m, %s : tensor<3xf32>, tensor<3xf32>
  } else {
    %k = magi.cos %x : (tensor<3xf32>) -> tensor<3xf32>
    scf.yield %k, %x : tensor<3xf32>, tensor<3xf32>
  }
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// A predicate of rank 1 (one element) is viewed as 0-d; an inner cond is
// selected first, then the outer one.
// CHECK-LABEL: func.func @nested_rank1
// CHECK-NOT: scf.if
// CHECK-COUNT-2: magi.view %arg0 [] : tensor<1xi1> -> tensor<i1>
// CHECK-NEXT: %[[N:.*]] = magi.neg %arg1
// CHECK-NEXT: %[[IN:.*]] = magi.where %{{.*}}, %[[N]], %arg1
// CHECK-NEXT: %[[E:.*]] = magi.exp %[[IN]]
// CHECK-NEXT: %[[OUT:.*]] = magi.where %{{.*}}, %[[E]], %arg1
// CHECK-NEXT: return %[[OUT]]
func.func @nested_rank1(%p: tensor<1xi1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %i0 = arith.constant 0 : index
  %c = tensor.extract %p[%i0] : tensor<1xi1>
  %r = scf.if %c -> (tensor<3xf32>) {
    %inner = scf.if %c -> (tensor<3xf32>) {
      %n = magi.neg %x : (tensor<3xf32>) -> tensor<3xf32>
      scf.yield %n : tensor<3xf32>
    } else {
      scf.yield %x : tensor<3xf32>
    }
    %e = magi.exp %inner : (tensor<3xf32>) -> tensor<3xf32>
    scf.yield %e : tensor<3xf32>
  } else {
    scf.yield %x : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

// A branch that gathers stays a branch: its indices may be out of range
// when it is not taken.
// CHECK-LABEL: func.func @gather_in_branch
// CHECK: scf.if
// CHECK: magi.embedding
func.func @gather_in_branch(%p: tensor<i1>, %w: tensor<8x4xf32>, %ids: tensor<2xi64>, %z: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %c = tensor.extract %p[] : tensor<i1>
  %r = scf.if %c -> (tensor<2x4xf32>) {
    %e = magi.embedding %w, %ids : (tensor<8x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
    scf.yield %e : tensor<2x4xf32>
  } else {
    scf.yield %z : tensor<2x4xf32>
  }
  return %r : tensor<2x4xf32>
}

// -----

// A predicate on the sizes (an i1 that is no tensor's element) is left to
// specialization.
// CHECK-LABEL: func.func @size_predicate
// CHECK: scf.if
func.func @size_predicate(%b: i1, %x: tensor<3xf32>) -> tensor<3xf32> {
  %r = scf.if %b -> (tensor<3xf32>) {
    %n = magi.neg %x : (tensor<3xf32>) -> tensor<3xf32>
    scf.yield %n : tensor<3xf32>
  } else {
    scf.yield %x : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

// An element read at an index a value gives could be out of range on the
// other branch's values: the branch stays.
// CHECK-LABEL: func.func @extract_at_value
// CHECK: scf.if
func.func @extract_at_value(%p: tensor<i1>, %t: tensor<4xf32>, %i: index, %x: tensor<f32>) -> tensor<f32> {
  %c = tensor.extract %p[] : tensor<i1>
  %r = scf.if %c -> (tensor<f32>) {
    %e = tensor.extract %t[%i] : tensor<4xf32>
    %w = arith.extf %e : f32 to f64
    %s = magi.mul %x, %w : (tensor<f32>, f64) -> tensor<f32>
    scf.yield %s : tensor<f32>
  } else {
    scf.yield %x : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// A scalar integer division would trap on a zero divisor meant for the
// other branch: the branch stays.
// CHECK-LABEL: func.func @integer_division
// CHECK: scf.if
func.func @integer_division(%p: tensor<i1>, %a: index, %b: index, %x: tensor<3xf32>) -> tensor<3xf32> {
  %c = tensor.extract %p[] : tensor<i1>
  %r = scf.if %c -> (tensor<3xf32>) {
    %q = arith.divsi %a, %b : index
    %i = arith.index_cast %q : index to i64
    %s = magi.mul %x, %i : (tensor<3xf32>, i64) -> tensor<3xf32>
    scf.yield %s : tensor<3xf32>
  } else {
    scf.yield %x : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

// A cond whose branches only give values from above, which the
// canonicalizer folds into an arith.select of whole tensors on the element
// read (a host value): the same select as a magi.where on the device.
// CHECK-LABEL: func.func @folded_select
// CHECK-NOT: arith.select
// CHECK-NOT: tensor.extract
// CHECK: %[[FLAG:.*]] = magi.view %arg0
// CHECK: magi.where %[[FLAG]], %arg1, %arg2 : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
func.func @folded_select(%p: tensor<1xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.extract %p[%c0] : tensor<1xi1>
  %r = arith.select %b, %x, %y : tensor<4xf32>
  return %r : tensor<4xf32>
}
