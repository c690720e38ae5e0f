// RUN: magi-opt %s -magi-fuse=enable=rms-norm -canonicalize -magi-dce | FileCheck %s
// RUN: magi-opt %s -pass-pipeline='builtin.module(func.func(magi-fuse{enable=rms-norm},canonicalize,magi-dce))' | FileCheck %s

// magi-fuse's rms-norm fusion: the LLaMA RMSNorm as captured becomes magi.rms_norm.

// LLaMA in bf16: upcast to f32, square, mean over the last dim, + eps, rsqrt,
// times the upcast input, cast back, weight on the left.
// CHECK-LABEL: func.func @bf16_upcast
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x64xbf16>, %[[W:.*]]: tensor<64xbf16>)
// CHECK-NEXT: %[[R:.*]] = magi.rms_norm %[[X]] weight %[[W]] {eps = 9.9999999999999995E-7 : f64} : (tensor<2x?x64xbf16>, tensor<64xbf16>) -> tensor<2x?x64xbf16>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: magi.to_copy
// CHECK-NOT: magi.pow
// CHECK-NOT: magi.mean
// CHECK-NOT: magi.rsqrt
// CHECK-NOT: magi.mul
func.func @bf16_upcast(%x: tensor<2x?x64xbf16>, %w: tensor<64xbf16>) -> tensor<2x?x64xbf16> {
  %two = arith.constant 2 : i64
  %eps = arith.constant 1.0e-06 : f64
  %x32 = magi.to_copy %x {dtype = f32} : (tensor<2x?x64xbf16>) -> tensor<2x?x64xf32>
  %sq = magi.pow %x32, %two : (tensor<2x?x64xf32>, i64) -> tensor<2x?x64xf32>
  %var = magi.mean %sq {dims = array<i64: -1>, keepdim = true} : (tensor<2x?x64xf32>) -> tensor<2x?x1xf32>
  %var_eps = magi.add %var, %eps : (tensor<2x?x1xf32>, f64) -> tensor<2x?x1xf32>
  %inv = magi.rsqrt %var_eps : (tensor<2x?x1xf32>) -> tensor<2x?x1xf32>
  %n32 = magi.mul %x32, %inv : (tensor<2x?x64xf32>, tensor<2x?x1xf32>) -> tensor<2x?x64xf32>
  %n = magi.to_copy %n32 {dtype = bf16} : (tensor<2x?x64xf32>) -> tensor<2x?x64xbf16>
  %y = magi.mul %w, %n : (tensor<64xbf16>, tensor<2x?x64xbf16>) -> tensor<2x?x64xbf16>
  return %y : tensor<2x?x64xbf16>
}

// f32: no casts; the last dim named by its positive index, a float exponent,
// the operands of both muls commuted (weight on the right).
// CHECK-LABEL: func.func @f32_no_casts
// CHECK-SAME: (%[[X:.*]]: tensor<4x64xf32>, %[[W:.*]]: tensor<64xf32>)
// CHECK-NEXT: %[[R:.*]] = magi.rms_norm %[[X]] weight %[[W]] {eps = 1.000000e-05 : f64} : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: magi.pow
// CHECK-NOT: magi.rsqrt
func.func @f32_no_casts(%x: tensor<4x64xf32>, %w: tensor<64xf32>) -> tensor<4x64xf32> {
  %two = arith.constant 2.0 : f64
  %eps = arith.constant 1.0e-05 : f64
  %sq = magi.pow %x, %two : (tensor<4x64xf32>, f64) -> tensor<4x64xf32>
  %var = magi.mean %sq {dims = array<i64: 1>, keepdim = true} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %var_eps = magi.add %var, %eps : (tensor<4x1xf32>, f64) -> tensor<4x1xf32>
  %inv = magi.rsqrt %var_eps : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = magi.mul %inv, %x : (tensor<4x1xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %y = magi.mul %n, %w : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// An f16 input with an f32 weight: the result promotes to f32, as rms_norm's
// does.
// CHECK-LABEL: func.func @f16_f32_weight
// CHECK-SAME: (%[[X:.*]]: tensor<8x32xf16>, %[[W:.*]]: tensor<32xf32>)
// CHECK-NEXT: magi.rms_norm %[[X]] weight %[[W]] {eps = 1.000000e-05 : f64} : (tensor<8x32xf16>, tensor<32xf32>) -> tensor<8x32xf32>
func.func @f16_f32_weight(%x: tensor<8x32xf16>, %w: tensor<32xf32>) -> tensor<8x32xf32> {
  %two = arith.constant 2 : i64
  %eps = arith.constant 1.0e-05 : f64
  %x32 = magi.to_copy %x {dtype = f32} : (tensor<8x32xf16>) -> tensor<8x32xf32>
  %sq = magi.pow %x32, %two : (tensor<8x32xf32>, i64) -> tensor<8x32xf32>
  %var = magi.mean %sq {dims = array<i64: -1>, keepdim = true} : (tensor<8x32xf32>) -> tensor<8x1xf32>
  %var_eps = magi.add %var, %eps : (tensor<8x1xf32>, f64) -> tensor<8x1xf32>
  %inv = magi.rsqrt %var_eps : (tensor<8x1xf32>) -> tensor<8x1xf32>
  %n32 = magi.mul %x32, %inv : (tensor<8x32xf32>, tensor<8x1xf32>) -> tensor<8x32xf32>
  %n = magi.to_copy %n32 {dtype = f16} : (tensor<8x32xf32>) -> tensor<8x32xf16>
  %y = magi.mul %n, %w : (tensor<8x32xf16>, tensor<32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// Computed in f64 rather than f32: the compute dtype is recorded.
// CHECK-LABEL: func.func @f64_compute
// CHECK-SAME: (%[[X:.*]]: tensor<8x32xbf16>, %[[W:.*]]: tensor<32xbf16>)
// CHECK-NEXT: magi.rms_norm %[[X]] weight %[[W]] {compute_dtype = f64, eps = 1.000000e-05 : f64} : (tensor<8x32xbf16>, tensor<32xbf16>) -> tensor<8x32xbf16>
// CHECK-NOT: magi.rsqrt
func.func @f64_compute(%x: tensor<8x32xbf16>, %w: tensor<32xbf16>) -> tensor<8x32xbf16> {
  %two = arith.constant 2 : i64
  %eps = arith.constant 1.0e-05 : f64
  %x64 = magi.to_copy %x {dtype = f64} : (tensor<8x32xbf16>) -> tensor<8x32xf64>
  %sq = magi.pow %x64, %two : (tensor<8x32xf64>, i64) -> tensor<8x32xf64>
  %var = magi.mean %sq {dims = array<i64: -1>, keepdim = true} : (tensor<8x32xf64>) -> tensor<8x1xf64>
  %var_eps = magi.add %var, %eps : (tensor<8x1xf64>, f64) -> tensor<8x1xf64>
  %inv = magi.rsqrt %var_eps : (tensor<8x1xf64>) -> tensor<8x1xf64>
  %n64 = magi.mul %x64, %inv : (tensor<8x32xf64>, tensor<8x1xf64>) -> tensor<8x32xf64>
  %n = magi.to_copy %n64 {dtype = bf16} : (tensor<8x32xf64>) -> tensor<8x32xbf16>
  %y = magi.mul %w, %n : (tensor<32xbf16>, tensor<8x32xbf16>) -> tensor<8x32xbf16>
  return %y : tensor<8x32xbf16>
}

// The intermediate values keep other uses: the rms_norm replaces the root
// only, and what is still used stays.
// CHECK-LABEL: func.func @intermediate_used
// CHECK: magi.rsqrt
// CHECK: %[[R:.*]] = magi.rms_norm
// CHECK: return %[[R]], %{{.*}}
func.func @intermediate_used(%x: tensor<4x64xf32>, %w: tensor<64xf32>) -> (tensor<4x64xf32>, tensor<4x1xf32>) {
  %two = arith.constant 2 : i64
  %eps = arith.constant 1.0e-05 : f64
  %sq = magi.pow %x, %two : (tensor<4x64xf32>, i64) -> tensor<4x64xf32>
  %var = magi.mean %sq {dims = array<i64: -1>, keepdim = true} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %var_eps = magi.add %var, %eps : (tensor<4x1xf32>, f64) -> tensor<4x1xf32>
  %inv = magi.rsqrt %var_eps : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = magi.mul %x, %inv : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %y = magi.mul %n, %w : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  return %y, %inv : tensor<4x64xf32>, tensor<4x1xf32>
}

//===----------------------------------------------------------------------===//
// Negative cases: the fusion must not fire.
//===----------------------------------------------------------------------===//

// eps added after the rsqrt instead of before it.
// CHECK-LABEL: func.func @eps_after_rsqrt
// CHECK-NOT: magi.rms_norm
// CHECK: magi.rsqrt
// CHECK-NOT: magi.rms_norm
func.func @eps_after_rsqrt(%x: tensor<4x64xf32>, %w: tensor<64xf32>) -> tensor<4x64xf32> {
  %two = arith.constant 2 : i64
  %eps = arith.constant 1.0e-05 : f64
  %sq = magi.pow %x, %two : (tensor<4x64xf32>, i64) -> tensor<4x64xf32>
  %var = magi.mean %sq {dims = array<i64: -1>, keepdim = true} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %inv = magi.rsqrt %var : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %inv_eps = magi.add %inv, %eps : (tensor<4x1xf32>, f64) -> tensor<4x1xf32>
  %n = magi.mul %x, %inv_eps : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %y = magi.mul %n, %w : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// eps added to the squares before the mean.
// CHECK-LABEL: func.func @eps_before_mean
// CHECK-NOT: magi.rms_norm
// CHECK: magi.mean
// CHECK-NOT: magi.rms_norm
func.func @eps_before_mean(%x: tensor<4x64xf32>, %w: tensor<64xf32>) -> tensor<4x64xf32> {
  %two = arith.constant 2 : i64
  %eps = arith.constant 1.0e-05 : f64
  %sq = magi.pow %x, %two : (tensor<4x64xf32>, i64) -> tensor<4x64xf32>
  %sq_eps = magi.add %sq, %eps : (tensor<4x64xf32>, f64) -> tensor<4x64xf32>
  %var = magi.mean %sq_eps {dims = array<i64: -1>, keepdim = true} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %inv = magi.rsqrt %var : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = magi.mul %x, %inv : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %y = magi.mul %n, %w : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// eps is not a constant.
// CHECK-LABEL: func.func @eps_not_constant
// CHECK-NOT: magi.rms_norm
// CHECK: magi.rsqrt
// CHECK-NOT: magi.rms_norm
func.func @eps_not_constant(%x: tensor<4x64xf32>, %w: tensor<64xf32>, %eps: f64) -> tensor<4x64xf32> {
  %two = arith.constant 2 : i64
  %sq = magi.pow %x, %two : (tensor<4x64xf32>, i64) -> tensor<4x64xf32>
  %var = magi.mean %sq {dims = array<i64: -1>, keepdim = true} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %var_eps = magi.add %var, %eps : (tensor<4x1xf32>, f64) -> tensor<4x1xf32>
  %inv = magi.rsqrt %var_eps : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = magi.mul %x, %inv : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %y = magi.mul %n, %w : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// The eps add has an alpha: mean + alpha * eps is not what the pattern says.
// CHECK-LABEL: func.func @eps_add_alpha
// CHECK-NOT: magi.rms_norm
// CHECK: magi.rsqrt
// CHECK-NOT: magi.rms_norm
func.func @eps_add_alpha(%x: tensor<4x64xf32>, %w: tensor<64xf32>, %e: tensor<4x1xf32>) -> tensor<4x64xf32> {
  %two = arith.constant 2 : i64
  %sq = magi.pow %x, %two : (tensor<4x64xf32>, i64) -> tensor<4x64xf32>
  %var = magi.mean %sq {dims = array<i64: -1>, keepdim = true} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %var_eps = magi.add %var, %e {alpha = 2.0} : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %inv = magi.rsqrt %var_eps : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = magi.mul %x, %inv : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %y = magi.mul %n, %w : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// The mean is over a dimension other than the last.
// CHECK-LABEL: func.func @mean_not_last_dim
// CHECK-NOT: magi.rms_norm
// CHECK: magi.mean %{{.*}} {dims = array<i64: 1>, keepdim = true}
// CHECK-NOT: magi.rms_norm
func.func @mean_not_last_dim(%x: tensor<2x8x64xf32>, %w: tensor<64xf32>) -> tensor<2x8x64xf32> {
  %two = arith.constant 2 : i64
  %eps = arith.constant 1.0e-05 : f64
  %sq = magi.pow %x, %two : (tensor<2x8x64xf32>, i64) -> tensor<2x8x64xf32>
  %var = magi.mean %sq {dims = array<i64: 1>, keepdim = true} : (tensor<2x8x64xf32>) -> tensor<2x1x64xf32>
  %var_eps = magi.add %var, %eps : (tensor<2x1x64xf32>, f64) -> tensor<2x1x64xf32>
  %inv = magi.rsqrt %var_eps : (tensor<2x1x64xf32>) -> tensor<2x1x64xf32>
  %n = magi.mul %x, %inv : (tensor<2x8x64xf32>, tensor<2x1x64xf32>) -> tensor<2x8x64xf32>
  %y = magi.mul %n, %w : (tensor<2x8x64xf32>, tensor<64xf32>) -> tensor<2x8x64xf32>
  return %y : tensor<2x8x64xf32>
}

// The mean drops the reduced dimension (keepdim false): with a square input
// it still broadcasts, but along the wrong axis.
// CHECK-LABEL: func.func @mean_no_keepdim
// CHECK-NOT: magi.rms_norm
// CHECK: magi.mean
// CHECK-NOT: magi.rms_norm
func.func @mean_no_keepdim(%x: tensor<4x4xf32>, %w: tensor<4xf32>) -> tensor<4x4xf32> {
  %two = arith.constant 2 : i64
  %eps = arith.constant 1.0e-05 : f64
  %sq = magi.pow %x, %two : (tensor<4x4xf32>, i64) -> tensor<4x4xf32>
  %var = magi.mean %sq {dims = array<i64: -1>} : (tensor<4x4xf32>) -> tensor<4xf32>
  %var_eps = magi.add %var, %eps : (tensor<4xf32>, f64) -> tensor<4xf32>
  %inv = magi.rsqrt %var_eps : (tensor<4xf32>) -> tensor<4xf32>
  %n = magi.mul %x, %inv : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %y = magi.mul %n, %w : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// The mean has an explicit dtype.
// CHECK-LABEL: func.func @mean_with_dtype
// CHECK-NOT: magi.rms_norm
// CHECK: magi.mean
// CHECK-NOT: magi.rms_norm
func.func @mean_with_dtype(%x: tensor<4x64xf32>, %w: tensor<64xf32>) -> tensor<4x64xf32> {
  %two = arith.constant 2 : i64
  %eps = arith.constant 1.0e-05 : f64
  %sq = magi.pow %x, %two : (tensor<4x64xf32>, i64) -> tensor<4x64xf32>
  %var = magi.mean %sq {dims = array<i64: -1>, keepdim = true, dtype = f32} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %var_eps = magi.add %var, %eps : (tensor<4x1xf32>, f64) -> tensor<4x1xf32>
  %inv = magi.rsqrt %var_eps : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = magi.mul %x, %inv : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %y = magi.mul %n, %w : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// pow with exponent 3.
// CHECK-LABEL: func.func @pow_three
// CHECK-NOT: magi.rms_norm
// CHECK: magi.pow
// CHECK-NOT: magi.rms_norm
func.func @pow_three(%x: tensor<4x64xf32>, %w: tensor<64xf32>) -> tensor<4x64xf32> {
  %three = arith.constant 3 : i64
  %eps = arith.constant 1.0e-05 : f64
  %sq = magi.pow %x, %three : (tensor<4x64xf32>, i64) -> tensor<4x64xf32>
  %var = magi.mean %sq {dims = array<i64: -1>, keepdim = true} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %var_eps = magi.add %var, %eps : (tensor<4x1xf32>, f64) -> tensor<4x1xf32>
  %inv = magi.rsqrt %var_eps : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = magi.mul %x, %inv : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %y = magi.mul %n, %w : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// The squared tensor is not the one normalized.
// CHECK-LABEL: func.func @pow_of_other_tensor
// CHECK-NOT: magi.rms_norm
// CHECK: magi.pow
// CHECK-NOT: magi.rms_norm
func.func @pow_of_other_tensor(%x: tensor<4x64xf32>, %z: tensor<4x64xf32>, %w: tensor<64xf32>) -> tensor<4x64xf32> {
  %two = arith.constant 2 : i64
  %eps = arith.constant 1.0e-05 : f64
  %sq = magi.pow %z, %two : (tensor<4x64xf32>, i64) -> tensor<4x64xf32>
  %var = magi.mean %sq {dims = array<i64: -1>, keepdim = true} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %var_eps = magi.add %var, %eps : (tensor<4x1xf32>, f64) -> tensor<4x1xf32>
  %inv = magi.rsqrt %var_eps : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = magi.mul %x, %inv : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %y = magi.mul %n, %w : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// A weight of rank 2 is no RMSNorm weight: the norm fuses without it and the
// product stays.
// CHECK-LABEL: func.func @weight_rank_two
// CHECK: %[[N:.*]] = magi.rms_norm %{{.*}} {eps = 1.000000e-05 : f64} : (tensor<4x64xf32>) -> tensor<4x64xf32>
// CHECK: magi.mul %[[N]], %{{.*}} : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
// CHECK-NOT: magi.rsqrt
func.func @weight_rank_two(%x: tensor<4x64xf32>, %w: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %two = arith.constant 2 : i64
  %eps = arith.constant 1.0e-05 : f64
  %sq = magi.pow %x, %two : (tensor<4x64xf32>, i64) -> tensor<4x64xf32>
  %var = magi.mean %sq {dims = array<i64: -1>, keepdim = true} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %var_eps = magi.add %var, %eps : (tensor<4x1xf32>, f64) -> tensor<4x1xf32>
  %inv = magi.rsqrt %var_eps : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = magi.mul %x, %inv : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %y = magi.mul %n, %w : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// Cast back to a dtype other than the input's (bf16 in, f16 out).
// CHECK-LABEL: func.func @cast_back_other_dtype
// CHECK-NOT: magi.rms_norm
// CHECK: magi.to_copy %{{.*}} {dtype = f16}
// CHECK-NOT: magi.rms_norm
func.func @cast_back_other_dtype(%x: tensor<4x64xbf16>, %w: tensor<64xf16>) -> tensor<4x64xf16> {
  %two = arith.constant 2 : i64
  %eps = arith.constant 1.0e-05 : f64
  %x32 = magi.to_copy %x {dtype = f32} : (tensor<4x64xbf16>) -> tensor<4x64xf32>
  %sq = magi.pow %x32, %two : (tensor<4x64xf32>, i64) -> tensor<4x64xf32>
  %var = magi.mean %sq {dims = array<i64: -1>, keepdim = true} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %var_eps = magi.add %var, %eps : (tensor<4x1xf32>, f64) -> tensor<4x1xf32>
  %inv = magi.rsqrt %var_eps : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n32 = magi.mul %x32, %inv : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %n = magi.to_copy %n32 {dtype = f16} : (tensor<4x64xf32>) -> tensor<4x64xf16>
  %y = magi.mul %w, %n : (tensor<64xf16>, tensor<4x64xf16>) -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}

// Upcast but never cast back: the weight multiplies the f32 value.
// CHECK-LABEL: func.func @no_cast_back
// CHECK-NOT: magi.rms_norm
// CHECK: magi.rsqrt
// CHECK-NOT: magi.rms_norm
func.func @no_cast_back(%x: tensor<4x64xbf16>, %w: tensor<64xf32>) -> tensor<4x64xf32> {
  %two = arith.constant 2 : i64
  %eps = arith.constant 1.0e-05 : f64
  %x32 = magi.to_copy %x {dtype = f32} : (tensor<4x64xbf16>) -> tensor<4x64xf32>
  %sq = magi.pow %x32, %two : (tensor<4x64xf32>, i64) -> tensor<4x64xf32>
  %var = magi.mean %sq {dims = array<i64: -1>, keepdim = true} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %var_eps = magi.add %var, %eps : (tensor<4x1xf32>, f64) -> tensor<4x1xf32>
  %inv = magi.rsqrt %var_eps : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n32 = magi.mul %x32, %inv : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %y = magi.mul %w, %n32 : (tensor<64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// sqrt and a division instead of rsqrt.
// CHECK-LABEL: func.func @sqrt_div
// CHECK-NOT: magi.rms_norm
// CHECK: magi.sqrt
// CHECK-NOT: magi.rms_norm
func.func @sqrt_div(%x: tensor<4x64xf32>, %w: tensor<64xf32>) -> tensor<4x64xf32> {
  %two = arith.constant 2 : i64
  %eps = arith.constant 1.0e-05 : f64
  %sq = magi.pow %x, %two : (tensor<4x64xf32>, i64) -> tensor<4x64xf32>
  %var = magi.mean %sq {dims = array<i64: -1>, keepdim = true} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %var_eps = magi.add %var, %eps : (tensor<4x1xf32>, f64) -> tensor<4x1xf32>
  %rt = magi.sqrt %var_eps : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = magi.div %x, %rt : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %y = magi.mul %n, %w : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}
