// RUN: magi-opt %s -magi-fuse=enable=gelu -canonicalize -magi-dce | FileCheck %s

// magi-fuse's gelu fusion: GPT-2's gelu_new (tanh approximation) and the erf form.

// As GPT-2 captures it: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
// CHECK-LABEL: func.func @tanh_form
// CHECK-SAME: (%[[X:.*]]: tensor<1x?x512xf32>)
// CHECK-NEXT: %[[R:.*]] = magi.gelu %[[X]] {approximate = "tanh"} : (tensor<1x?x512xf32>) -> tensor<1x?x512xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: magi.tanh
// CHECK-NOT: magi.pow
// CHECK-NOT: magi.mul
// CHECK-NOT: magi.add
func.func @tanh_form(%x: tensor<1x?x512xf32>) -> tensor<1x?x512xf32> {
  %half = arith.constant 5.000000e-01 : f64
  %three = arith.constant 3.000000e+00 : f64
  %c = arith.constant 4.471500e-02 : f64
  %k = arith.constant 0.79788456080286541 : f64
  %one = arith.constant 1.000000e+00 : f64
  %0 = magi.mul %x, %half : (tensor<1x?x512xf32>, f64) -> tensor<1x?x512xf32>
  %1 = magi.pow %x, %three : (tensor<1x?x512xf32>, f64) -> tensor<1x?x512xf32>
  %2 = magi.mul %1, %c : (tensor<1x?x512xf32>, f64) -> tensor<1x?x512xf32>
  %3 = magi.add %x, %2 : (tensor<1x?x512xf32>, tensor<1x?x512xf32>) -> tensor<1x?x512xf32>
  %4 = magi.mul %3, %k : (tensor<1x?x512xf32>, f64) -> tensor<1x?x512xf32>
  %5 = magi.tanh %4 : (tensor<1x?x512xf32>) -> tensor<1x?x512xf32>
  %6 = magi.add %5, %one : (tensor<1x?x512xf32>, f64) -> tensor<1x?x512xf32>
  %7 = magi.mul %0, %6 : (tensor<1x?x512xf32>, tensor<1x?x512xf32>) -> tensor<1x?x512xf32>
  return %7 : tensor<1x?x512xf32>
}

// bf16, every commutative operand order flipped, integer exponent.
// CHECK-LABEL: func.func @tanh_form_commuted
// CHECK-SAME: (%[[X:.*]]: tensor<4x64xbf16>)
// CHECK-NEXT: %[[R:.*]] = magi.gelu %[[X]] {approximate = "tanh"} : (tensor<4x64xbf16>) -> tensor<4x64xbf16>
// CHECK-NEXT: return %[[R]]
func.func @tanh_form_commuted(%x: tensor<4x64xbf16>) -> tensor<4x64xbf16> {
  %half = arith.constant 5.000000e-01 : f64
  %three = arith.constant 3 : i64
  %c = arith.constant 4.471500e-02 : f64
  %k = arith.constant 0.79788456080286541 : f64
  %one = arith.constant 1.000000e+00 : f64
  %0 = magi.mul %half, %x : (f64, tensor<4x64xbf16>) -> tensor<4x64xbf16>
  %1 = magi.pow %x, %three : (tensor<4x64xbf16>, i64) -> tensor<4x64xbf16>
  %2 = magi.mul %c, %1 : (f64, tensor<4x64xbf16>) -> tensor<4x64xbf16>
  %3 = magi.add %2, %x : (tensor<4x64xbf16>, tensor<4x64xbf16>) -> tensor<4x64xbf16>
  %4 = magi.mul %k, %3 : (f64, tensor<4x64xbf16>) -> tensor<4x64xbf16>
  %5 = magi.tanh %4 : (tensor<4x64xbf16>) -> tensor<4x64xbf16>
  %6 = magi.add %one, %5 : (f64, tensor<4x64xbf16>) -> tensor<4x64xbf16>
  %7 = magi.mul %6, %0 : (tensor<4x64xbf16>, tensor<4x64xbf16>) -> tensor<4x64xbf16>
  return %7 : tensor<4x64xbf16>
}

// The erf form with x * (1/sqrt(2)): approximate "none" (not printed).
// CHECK-LABEL: func.func @erf_form_mul
// CHECK-SAME: (%[[X:.*]]: tensor<8x?xf32>)
// CHECK-NEXT: %[[R:.*]] = magi.gelu %[[X]] : (tensor<8x?xf32>) -> tensor<8x?xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: magi.erf
func.func @erf_form_mul(%x: tensor<8x?xf32>) -> tensor<8x?xf32> {
  %half = arith.constant 5.000000e-01 : f64
  %r = arith.constant 0.70710678118654757 : f64
  %one = arith.constant 1.0 : f64
  %0 = magi.mul %x, %half : (tensor<8x?xf32>, f64) -> tensor<8x?xf32>
  %1 = magi.mul %x, %r : (tensor<8x?xf32>, f64) -> tensor<8x?xf32>
  %2 = magi.erf %1 : (tensor<8x?xf32>) -> tensor<8x?xf32>
  %3 = magi.add %2, %one : (tensor<8x?xf32>, f64) -> tensor<8x?xf32>
  %4 = magi.mul %0, %3 : (tensor<8x?xf32>, tensor<8x?xf32>) -> tensor<8x?xf32>
  return %4 : tensor<8x?xf32>
}

// The erf form with x / sqrt(2).
// CHECK-LABEL: func.func @erf_form_div
// CHECK-SAME: (%[[X:.*]]: tensor<8xf16>)
// CHECK-NEXT: %[[R:.*]] = magi.gelu %[[X]] : (tensor<8xf16>) -> tensor<8xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: magi.erf
// CHECK-NOT: magi.div
func.func @erf_form_div(%x: tensor<8xf16>) -> tensor<8xf16> {
  %half = arith.constant 5.000000e-01 : f64
  %r = arith.constant 1.4142135623730951 : f64
  %one = arith.constant 1.0 : f64
  %0 = magi.mul %x, %half : (tensor<8xf16>, f64) -> tensor<8xf16>
  %1 = magi.div %x, %r : (tensor<8xf16>, f64) -> tensor<8xf16>
  %2 = magi.erf %1 : (tensor<8xf16>) -> tensor<8xf16>
  %3 = magi.add %2, %one : (tensor<8xf16>, f64) -> tensor<8xf16>
  %4 = magi.mul %0, %3 : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
  return %4 : tensor<8xf16>
}

//===----------------------------------------------------------------------===//
// Negative cases.
//===----------------------------------------------------------------------===//

// 0.25 instead of 0.5.
// CHECK-LABEL: func.func @wrong_half
// CHECK-NOT: magi.gelu
// CHECK: magi.erf
// CHECK-NOT: magi.gelu
func.func @wrong_half(%x: tensor<8xf32>) -> tensor<8xf32> {
  %q = arith.constant 2.500000e-01 : f64
  %r = arith.constant 0.70710678118654757 : f64
  %one = arith.constant 1.0 : f64
  %0 = magi.mul %x, %q : (tensor<8xf32>, f64) -> tensor<8xf32>
  %1 = magi.mul %x, %r : (tensor<8xf32>, f64) -> tensor<8xf32>
  %2 = magi.erf %1 : (tensor<8xf32>) -> tensor<8xf32>
  %3 = magi.add %2, %one : (tensor<8xf32>, f64) -> tensor<8xf32>
  %4 = magi.mul %0, %3 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %4 : tensor<8xf32>
}

// erf(x / 2) rather than erf(x / sqrt(2)).
// CHECK-LABEL: func.func @erf_wrong_scale
// CHECK-NOT: magi.gelu
// CHECK: magi.erf
// CHECK-NOT: magi.gelu
func.func @erf_wrong_scale(%x: tensor<8xf32>) -> tensor<8xf32> {
  %half = arith.constant 5.000000e-01 : f64
  %two = arith.constant 2.0 : f64
  %one = arith.constant 1.0 : f64
  %0 = magi.mul %x, %half : (tensor<8xf32>, f64) -> tensor<8xf32>
  %1 = magi.div %x, %two : (tensor<8xf32>, f64) -> tensor<8xf32>
  %2 = magi.erf %1 : (tensor<8xf32>) -> tensor<8xf32>
  %3 = magi.add %2, %one : (tensor<8xf32>, f64) -> tensor<8xf32>
  %4 = magi.mul %0, %3 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %4 : tensor<8xf32>
}

// The erf of another tensor than the one halved.
// CHECK-LABEL: func.func @erf_of_other
// CHECK-NOT: magi.gelu
// CHECK: magi.erf
// CHECK-NOT: magi.gelu
func.func @erf_of_other(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %half = arith.constant 5.000000e-01 : f64
  %r = arith.constant 0.70710678118654757 : f64
  %one = arith.constant 1.0 : f64
  %0 = magi.mul %x, %half : (tensor<8xf32>, f64) -> tensor<8xf32>
  %1 = magi.mul %y, %r : (tensor<8xf32>, f64) -> tensor<8xf32>
  %2 = magi.erf %1 : (tensor<8xf32>) -> tensor<8xf32>
  %3 = magi.add %2, %one : (tensor<8xf32>, f64) -> tensor<8xf32>
  %4 = magi.mul %0, %3 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %4 : tensor<8xf32>
}

// The cubic term with x^2.
// CHECK-LABEL: func.func @tanh_pow_two
// CHECK-NOT: magi.gelu
// CHECK: magi.tanh
// CHECK-NOT: magi.gelu
func.func @tanh_pow_two(%x: tensor<8xf32>) -> tensor<8xf32> {
  %half = arith.constant 5.000000e-01 : f64
  %two = arith.constant 2.000000e+00 : f64
  %c = arith.constant 4.471500e-02 : f64
  %k = arith.constant 0.79788456080286541 : f64
  %one = arith.constant 1.000000e+00 : f64
  %0 = magi.mul %x, %half : (tensor<8xf32>, f64) -> tensor<8xf32>
  %1 = magi.pow %x, %two : (tensor<8xf32>, f64) -> tensor<8xf32>
  %2 = magi.mul %1, %c : (tensor<8xf32>, f64) -> tensor<8xf32>
  %3 = magi.add %x, %2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = magi.mul %3, %k : (tensor<8xf32>, f64) -> tensor<8xf32>
  %5 = magi.tanh %4 : (tensor<8xf32>) -> tensor<8xf32>
  %6 = magi.add %5, %one : (tensor<8xf32>, f64) -> tensor<8xf32>
  %7 = magi.mul %0, %6 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %7 : tensor<8xf32>
}

// A wrong cubic coefficient (0.05).
// CHECK-LABEL: func.func @tanh_wrong_coefficient
// CHECK-NOT: magi.gelu
// CHECK: magi.tanh
// CHECK-NOT: magi.gelu
func.func @tanh_wrong_coefficient(%x: tensor<8xf32>) -> tensor<8xf32> {
  %half = arith.constant 5.000000e-01 : f64
  %three = arith.constant 3.000000e+00 : f64
  %c = arith.constant 5.000000e-02 : f64
  %k = arith.constant 0.79788456080286541 : f64
  %one = arith.constant 1.000000e+00 : f64
  %0 = magi.mul %x, %half : (tensor<8xf32>, f64) -> tensor<8xf32>
  %1 = magi.pow %x, %three : (tensor<8xf32>, f64) -> tensor<8xf32>
  %2 = magi.mul %1, %c : (tensor<8xf32>, f64) -> tensor<8xf32>
  %3 = magi.add %x, %2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = magi.mul %3, %k : (tensor<8xf32>, f64) -> tensor<8xf32>
  %5 = magi.tanh %4 : (tensor<8xf32>) -> tensor<8xf32>
  %6 = magi.add %5, %one : (tensor<8xf32>, f64) -> tensor<8xf32>
  %7 = magi.mul %0, %6 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %7 : tensor<8xf32>
}

// The factor sqrt(2/pi) inside the tanh is missing.
// CHECK-LABEL: func.func @tanh_no_sqrt_2_over_pi
// CHECK-NOT: magi.gelu
// CHECK: magi.tanh
// CHECK-NOT: magi.gelu
func.func @tanh_no_sqrt_2_over_pi(%x: tensor<8xf32>) -> tensor<8xf32> {
  %half = arith.constant 5.000000e-01 : f64
  %three = arith.constant 3.000000e+00 : f64
  %c = arith.constant 4.471500e-02 : f64
  %one = arith.constant 1.000000e+00 : f64
  %0 = magi.mul %x, %half : (tensor<8xf32>, f64) -> tensor<8xf32>
  %1 = magi.pow %x, %three : (tensor<8xf32>, f64) -> tensor<8xf32>
  %2 = magi.mul %1, %c : (tensor<8xf32>, f64) -> tensor<8xf32>
  %3 = magi.add %x, %2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %5 = magi.tanh %3 : (tensor<8xf32>) -> tensor<8xf32>
  %6 = magi.add %5, %one : (tensor<8xf32>, f64) -> tensor<8xf32>
  %7 = magi.mul %0, %6 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %7 : tensor<8xf32>
}

// The cubic term's add has an alpha.
// CHECK-LABEL: func.func @tanh_cubic_alpha
// CHECK-NOT: magi.gelu
// CHECK: magi.tanh
// CHECK-NOT: magi.gelu
func.func @tanh_cubic_alpha(%x: tensor<8xf32>) -> tensor<8xf32> {
  %half = arith.constant 5.000000e-01 : f64
  %three = arith.constant 3.000000e+00 : f64
  %c = arith.constant 4.471500e-02 : f64
  %k = arith.constant 0.79788456080286541 : f64
  %one = arith.constant 1.000000e+00 : f64
  %0 = magi.mul %x, %half : (tensor<8xf32>, f64) -> tensor<8xf32>
  %1 = magi.pow %x, %three : (tensor<8xf32>, f64) -> tensor<8xf32>
  %2 = magi.mul %1, %c : (tensor<8xf32>, f64) -> tensor<8xf32>
  %3 = magi.add %x, %2 {alpha = 2.0} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = magi.mul %3, %k : (tensor<8xf32>, f64) -> tensor<8xf32>
  %5 = magi.tanh %4 : (tensor<8xf32>) -> tensor<8xf32>
  %6 = magi.add %5, %one : (tensor<8xf32>, f64) -> tensor<8xf32>
  %7 = magi.mul %0, %6 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %7 : tensor<8xf32>
}

// tanh(...) - 1 instead of 1 + tanh(...).
// CHECK-LABEL: func.func @one_minus_tanh
// CHECK-NOT: magi.gelu
// CHECK: magi.tanh
// CHECK-NOT: magi.gelu
func.func @one_minus_tanh(%x: tensor<8xf32>) -> tensor<8xf32> {
  %half = arith.constant 5.000000e-01 : f64
  %three = arith.constant 3.000000e+00 : f64
  %c = arith.constant 4.471500e-02 : f64
  %k = arith.constant 0.79788456080286541 : f64
  %one = arith.constant 1.000000e+00 : f64
  %0 = magi.mul %x, %half : (tensor<8xf32>, f64) -> tensor<8xf32>
  %1 = magi.pow %x, %three : (tensor<8xf32>, f64) -> tensor<8xf32>
  %2 = magi.mul %1, %c : (tensor<8xf32>, f64) -> tensor<8xf32>
  %3 = magi.add %x, %2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = magi.mul %3, %k : (tensor<8xf32>, f64) -> tensor<8xf32>
  %5 = magi.tanh %4 : (tensor<8xf32>) -> tensor<8xf32>
  %6 = magi.sub %5, %one : (tensor<8xf32>, f64) -> tensor<8xf32>
  %7 = magi.mul %0, %6 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %7 : tensor<8xf32>
}
