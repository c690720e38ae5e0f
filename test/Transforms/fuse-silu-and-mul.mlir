// RUN: magi-opt %s -magi-fuse=enable=silu-and-mul -canonicalize -magi-dce | FileCheck %s

// magi-fuse's silu-and-mul fusion: mul(silu(gate), up) becomes magi.silu_and_mul,
// silu being magi.silu, x * sigmoid(x), or that computed in f32 and cast back.

// CHECK-LABEL: func.func @silu_op
// CHECK-SAME: (%[[G:.*]]: tensor<4x?x256xbf16>, %[[U:.*]]: tensor<4x?x256xbf16>)
// CHECK-NEXT: %[[R:.*]] = magi.silu_and_mul %[[G]], %[[U]] : (tensor<4x?x256xbf16>, tensor<4x?x256xbf16>) -> tensor<4x?x256xbf16>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: magi.silu
// CHECK-NOT: magi.mul
func.func @silu_op(%g: tensor<4x?x256xbf16>, %u: tensor<4x?x256xbf16>) -> tensor<4x?x256xbf16> {
  %s = magi.silu %g : (tensor<4x?x256xbf16>) -> tensor<4x?x256xbf16>
  %y = magi.mul %s, %u : (tensor<4x?x256xbf16>, tensor<4x?x256xbf16>) -> tensor<4x?x256xbf16>
  return %y : tensor<4x?x256xbf16>
}

// up on the left of the mul.
// CHECK-LABEL: func.func @silu_op_up_first
// CHECK-SAME: (%[[G:.*]]: tensor<8x256xf16>, %[[U:.*]]: tensor<8x256xf16>)
// CHECK-NEXT: magi.silu_and_mul %[[G]], %[[U]] : (tensor<8x256xf16>, tensor<8x256xf16>) -> tensor<8x256xf16>
func.func @silu_op_up_first(%g: tensor<8x256xf16>, %u: tensor<8x256xf16>) -> tensor<8x256xf16> {
  %s = magi.silu %g : (tensor<8x256xf16>) -> tensor<8x256xf16>
  %y = magi.mul %u, %s : (tensor<8x256xf16>, tensor<8x256xf16>) -> tensor<8x256xf16>
  return %y : tensor<8x256xf16>
}

// silu spelled x * sigmoid(x) (sigmoid first), up first.
// CHECK-LABEL: func.func @sigmoid_form
// CHECK-SAME: (%[[G:.*]]: tensor<8x256xf32>, %[[U:.*]]: tensor<8x256xf32>)
// CHECK-NEXT: %[[R:.*]] = magi.silu_and_mul %[[G]], %[[U]] : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: magi.sigmoid
func.func @sigmoid_form(%g: tensor<8x256xf32>, %u: tensor<8x256xf32>) -> tensor<8x256xf32> {
  %sg = magi.sigmoid %g : (tensor<8x256xf32>) -> tensor<8x256xf32>
  %s = magi.mul %sg, %g : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %y = magi.mul %u, %s : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  return %y : tensor<8x256xf32>
}

// silu computed in f32 and cast back to the gate's dtype.
// CHECK-LABEL: func.func @f32_round_trip
// CHECK-SAME: (%[[G:.*]]: tensor<?x256xbf16>, %[[U:.*]]: tensor<?x256xbf16>)
// CHECK-NEXT: %[[R:.*]] = magi.silu_and_mul %[[G]], %[[U]] : (tensor<?x256xbf16>, tensor<?x256xbf16>) -> tensor<?x256xbf16>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: magi.to_copy
// CHECK-NOT: magi.sigmoid
func.func @f32_round_trip(%g: tensor<?x256xbf16>, %u: tensor<?x256xbf16>) -> tensor<?x256xbf16> {
  %g32 = magi.to_copy %g {dtype = f32} : (tensor<?x256xbf16>) -> tensor<?x256xf32>
  %sg = magi.sigmoid %g32 : (tensor<?x256xf32>) -> tensor<?x256xf32>
  %s32 = magi.mul %g32, %sg : (tensor<?x256xf32>, tensor<?x256xf32>) -> tensor<?x256xf32>
  %s = magi.to_copy %s32 {dtype = bf16} : (tensor<?x256xf32>) -> tensor<?x256xbf16>
  %y = magi.mul %s, %u : (tensor<?x256xbf16>, tensor<?x256xbf16>) -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}

// up broadcasts and promotes, as for magi.mul.
// CHECK-LABEL: func.func @broadcast_promote
// CHECK-SAME: (%[[G:.*]]: tensor<2x8x256xbf16>, %[[U:.*]]: tensor<256xf32>)
// CHECK-NEXT: magi.silu_and_mul %[[G]], %[[U]] : (tensor<2x8x256xbf16>, tensor<256xf32>) -> tensor<2x8x256xf32>
func.func @broadcast_promote(%g: tensor<2x8x256xbf16>, %u: tensor<256xf32>) -> tensor<2x8x256xf32> {
  %s = magi.silu %g : (tensor<2x8x256xbf16>) -> tensor<2x8x256xbf16>
  %y = magi.mul %s, %u : (tensor<2x8x256xbf16>, tensor<256xf32>) -> tensor<2x8x256xf32>
  return %y : tensor<2x8x256xf32>
}

//===----------------------------------------------------------------------===//
// Negative cases.
//===----------------------------------------------------------------------===//

// sigmoid alone (no x * sigmoid(x)).
// CHECK-LABEL: func.func @sigmoid_only
// CHECK-NOT: magi.silu_and_mul
// CHECK: magi.sigmoid
// CHECK-NOT: magi.silu_and_mul
func.func @sigmoid_only(%g: tensor<8x256xf32>, %u: tensor<8x256xf32>) -> tensor<8x256xf32> {
  %sg = magi.sigmoid %g : (tensor<8x256xf32>) -> tensor<8x256xf32>
  %y = magi.mul %sg, %u : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  return %y : tensor<8x256xf32>
}

// x * sigmoid(z) with z != x.
// CHECK-LABEL: func.func @sigmoid_of_other
// CHECK-NOT: magi.silu_and_mul
// CHECK: magi.sigmoid
// CHECK-NOT: magi.silu_and_mul
func.func @sigmoid_of_other(%g: tensor<8x256xf32>, %z: tensor<8x256xf32>, %u: tensor<8x256xf32>) -> tensor<8x256xf32> {
  %sz = magi.sigmoid %z : (tensor<8x256xf32>) -> tensor<8x256xf32>
  %s = magi.mul %g, %sz : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %y = magi.mul %s, %u : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  return %y : tensor<8x256xf32>
}

// Computed in f32 and cast back to a dtype other than the gate's.
// CHECK-LABEL: func.func @cast_back_other_dtype
// CHECK-NOT: magi.silu_and_mul
// CHECK: magi.to_copy %{{.*}} {dtype = f16}
// CHECK-NOT: magi.silu_and_mul
func.func @cast_back_other_dtype(%g: tensor<8x256xbf16>, %u: tensor<8x256xf16>) -> tensor<8x256xf16> {
  %g32 = magi.to_copy %g {dtype = f32} : (tensor<8x256xbf16>) -> tensor<8x256xf32>
  %sg = magi.sigmoid %g32 : (tensor<8x256xf32>) -> tensor<8x256xf32>
  %s32 = magi.mul %g32, %sg : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %s = magi.to_copy %s32 {dtype = f16} : (tensor<8x256xf32>) -> tensor<8x256xf16>
  %y = magi.mul %s, %u : (tensor<8x256xf16>, tensor<8x256xf16>) -> tensor<8x256xf16>
  return %y : tensor<8x256xf16>
}

// A cast back from an f32 silu whose input was not an upcast: the gate would
// have to be f32.
// CHECK-LABEL: func.func @downcast_without_upcast
// CHECK-NOT: magi.silu_and_mul
// CHECK: magi.sigmoid
// CHECK-NOT: magi.silu_and_mul
func.func @downcast_without_upcast(%g: tensor<8x256xf32>, %u: tensor<8x256xbf16>) -> tensor<8x256xbf16> {
  %sg = magi.sigmoid %g : (tensor<8x256xf32>) -> tensor<8x256xf32>
  %s32 = magi.mul %g, %sg : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %s = magi.to_copy %s32 {dtype = bf16} : (tensor<8x256xf32>) -> tensor<8x256xbf16>
  %y = magi.mul %s, %u : (tensor<8x256xbf16>, tensor<8x256xbf16>) -> tensor<8x256xbf16>
  return %y : tensor<8x256xbf16>
}

// up is a Python scalar, not a tensor.
// CHECK-LABEL: func.func @scalar_up
// CHECK-NOT: magi.silu_and_mul
// CHECK: magi.silu
// CHECK-NOT: magi.silu_and_mul
func.func @scalar_up(%g: tensor<8x256xf32>) -> tensor<8x256xf32> {
  %c = arith.constant 2.0 : f64
  %s = magi.silu %g : (tensor<8x256xf32>) -> tensor<8x256xf32>
  %y = magi.mul %s, %c : (tensor<8x256xf32>, f64) -> tensor<8x256xf32>
  return %y : tensor<8x256xf32>
}

// silu(gate) + up: an add, not a mul.
// CHECK-LABEL: func.func @add_not_mul
// CHECK-NOT: magi.silu_and_mul
// CHECK: magi.silu
// CHECK-NOT: magi.silu_and_mul
func.func @add_not_mul(%g: tensor<8x256xf32>, %u: tensor<8x256xf32>) -> tensor<8x256xf32> {
  %s = magi.silu %g : (tensor<8x256xf32>) -> tensor<8x256xf32>
  %y = magi.add %s, %u : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  return %y : tensor<8x256xf32>
}

// gelu is not silu.
// CHECK-LABEL: func.func @gelu_not_silu
// CHECK-NOT: magi.silu_and_mul
// CHECK: magi.gelu
// CHECK-NOT: magi.silu_and_mul
func.func @gelu_not_silu(%g: tensor<8x256xf32>, %u: tensor<8x256xf32>) -> tensor<8x256xf32> {
  %s = magi.gelu %g : (tensor<8x256xf32>) -> tensor<8x256xf32>
  %y = magi.mul %s, %u : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  return %y : tensor<8x256xf32>
}
