// Elementwise ops: broadcasting, PyTorch type promotion, integer semantics,
// and rounding to the result dtype.

// RUN: magi-interp %s --function=arith_f32 | FileCheck %s --check-prefix=ARITH
// RUN: magi-interp %s --function=integers | FileCheck %s --check-prefix=INT
// RUN: magi-interp %s --function=compare | FileCheck %s --check-prefix=CMP
// RUN: magi-interp %s --function=rounding | FileCheck %s --check-prefix=ROUND
// RUN: magi-interp %s --function=unary | FileCheck %s --check-prefix=UNARY
// RUN: magi-interp %s --function=conversions | FileCheck %s --check-prefix=CONV
// RUN: magi-interp %s --function=int_min | FileCheck %s --check-prefix=INTMIN

// ARITH:      out0: tensor<2x3xf32> = {{\[}}[5.5, 2, 7], [-6.5, -10, -5]]
// ARITH-NEXT: out1: tensor<3xf32> = [-2.5, -2.5, 5]
// ARITH-NEXT: out2: tensor<3xf32> = [0.75, -1, 1.5]
// ARITH-NEXT: out3: tensor<3xf32> = [0.375, -4, -1.5]
// ARITH-NEXT: out4: tensor<3xf32> = [2.25, 4, 9]
// ARITH-NEXT: out5: tensor<3xf32> = [4, 0.5, 3]
// ARITH-NEXT: out6: tensor<3xf32> = [1.5, -0, -1]
// ARITH-NEXT: out7: tensor<3xf32> = [0.1, nan, -inf]
func.func @arith_f32() -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %a = magi.constant dense<[1.5, -2.0, 3.0]> : tensor<3xf32>
  %b = magi.constant dense<[[2.0], [-4.0]]> : tensor<2x1xf32>
  %c = magi.constant dense<[4.0, 0.5, -2.0]> : tensor<3xf32>
  %half = arith.constant 0.5 : f64
  %two = arith.constant 2 : i64
  // self + alpha * other, broadcast to [2, 3].
  %add = magi.add %a, %b {alpha = 2.0 : f64} : (tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %sub = magi.sub %a, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %mul = magi.mul %a, %half : (tensor<3xf32>, f64) -> tensor<3xf32>
  %div = magi.div %a, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %pow = magi.pow %a, %two : (tensor<3xf32>, i64) -> tensor<3xf32>
  %max = magi.maximum %a, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // The remainder takes the sign of the divisor (-0 where it divides).
  %rem = magi.remainder %a, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // 0.1 rounds to f32 once; 0 / 0 and -1 / 0 follow IEEE; NaN propagates.
  %num = magi.constant dense<[1.0, 0.0, -1.0]> : tensor<3xf32>
  %den = magi.constant dense<[10.0, 0.0, 0.0]> : tensor<3xf32>
  %q = magi.div %num, %den : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %qmin = magi.minimum %q, %q : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %add, %sub, %mul, %div, %pow, %max, %rem, %qmin : tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// INT:      out0: tensor<4xf32> = [3.5, -3.5, -3.5, 3.5]
// INT-NEXT: out1: tensor<4xi64> = [3, -3, -3, 3]
// INT-NEXT: out2: tensor<4xi64> = [3, -4, -4, 3]
// INT-NEXT: out3: tensor<4xi64> = [1, 1, -1, -1]
// INT-NEXT: out4: tensor<4xi64> = [1, 2, -2, -1]
// INT-NEXT: out5: tensor<4xi64> = [343, -343, 343, -343]
// INT-NEXT: out6: tensor<4xi64> = [2, 0, 6, -8]
// INT-NEXT: out7: tensor<4xi64> = [7, -5, -1, -1]
// INT-NEXT: out8: tensor<4xi64> = [5, -5, -7, 7]
// INT-NEXT: out9: tensor<4xf32> = [8.5, -5.5, 8.5, -5.5]
// INT-NEXT: out10: tensor<4xi32> = [-2147483648, -2147483648, 2, 7]
func.func @integers() -> (tensor<4xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xf32>, tensor<4xi32>) {
  %a = magi.constant dense<[7, -7, 7, -7]> : tensor<4xi64>
  %b = magi.constant dense<[2, 2, -2, -2]> : tensor<4xi64>
  %c = magi.constant dense<[3, 3, -3, -3]> : tensor<4xi64>
  %three = arith.constant 3 : i64
  %flt = arith.constant 1.5 : f64
  // True division promotes integers to f32; trunc and floor keep int64.
  %div = magi.div %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xf32>
  %trunc = magi.div %a, %b {rounding_mode = "trunc"} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %floor = magi.div %a, %b {rounding_mode = "floor"} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %rem2 = magi.remainder %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  // Python's modulo: the sign of the divisor.
  %rem3 = magi.remainder %a, %c : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %pow = magi.pow %a, %three : (tensor<4xi64>, i64) -> tensor<4xi64>
  %and = magi.bitwise_and %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %or = magi.bitwise_or %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %xor = magi.bitwise_xor %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  // A Python float promotes an integer tensor to f32.
  %addf = magi.add %a, %flt : (tensor<4xi64>, f64) -> tensor<4xf32>
  // Narrow integers wrap around.
  %big = magi.constant dense<[2147483647, -2147483648, 1, 5]> : tensor<4xi32>
  %one = magi.constant dense<[1, 0, 1, 2]> : tensor<4xi32>
  %wrap = magi.add %big, %one : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %div, %trunc, %floor, %rem2, %rem3, %pow, %and, %or, %xor, %addf, %wrap : tensor<4xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xf32>, tensor<4xi32>
}

// CMP:      out0: tensor<3xi1> = [false, true, false]
// CMP-NEXT: out1: tensor<3xi1> = [true, false, true]
// CMP-NEXT: out2: tensor<3xi1> = [false, true, false]
// CMP-NEXT: out3: tensor<3xi1> = [true, false, true]
// CMP-NEXT: out4: tensor<3xi1> = [false, true, true]
// CMP-NEXT: out5: tensor<3xi1> = [true, false, true]
// CMP-NEXT: out6: tensor<3xi1> = [false, false, true]
// CMP-NEXT: out7: tensor<3xi1> = [true, false, false]
// CMP-NEXT: out8: tensor<2x3xbf16> = {{\[}}[1, -inf, 3], [-inf, 2, -inf]]
// CMP-NEXT: out9: tensor<3xi1> = [false, true, false]
// CMP-NEXT: out10: tensor<3xi1> = [false, true, false]
func.func @compare() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2x3xbf16>, tensor<3xi1>, tensor<3xi1>) {
  %i = magi.constant dense<[1, 2, 1]> : tensor<3xi64>
  %f = arith.constant 1.5 : f64
  %one = arith.constant 1 : i64
  // An int64 tensor against a Python float compares in f32.
  %gt = magi.gt %i, %f : (tensor<3xi64>, f64) -> tensor<3xi1>
  %lt = magi.lt %i, %f : (tensor<3xi64>, f64) -> tensor<3xi1>
  %x = magi.constant dense<[0.0, 1.0, 2.0]> : tensor<3xf32>
  %n = magi.constant dense<[0x7FC00000, 1.0, 2.5]> : tensor<3xf32>
  // NaN compares unequal to everything.
  %eq = magi.eq %x, %n : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %ne = magi.ne %x, %n : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %le = magi.le %x, %n : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %eqi = magi.eq %i, %one : (tensor<3xi64>, i64) -> tensor<3xi1>
  %land = magi.logical_and %eqi, %x : (tensor<3xi1>, tensor<3xf32>) -> tensor<3xi1>
  %lor = magi.logical_or %eqi, %x : (tensor<3xi1>, tensor<3xf32>) -> tensor<3xi1>
  %lnot = magi.logical_not %x : (tensor<3xf32>) -> tensor<3xi1>
  // where: a bool mask broadcast against bf16 values and a Python float.
  %mask = magi.constant dense<[[true, false, true], [false, true, false]]> : tensor<2x3xi1>
  %v = magi.constant dense<[1.0, 2.0, 3.0]> : tensor<3xbf16>
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %w = magi.where %mask, %v, %ninf : (tensor<2x3xi1>, tensor<3xbf16>, f64) -> tensor<2x3xbf16>
  %bnot = magi.bitwise_not %eqi : (tensor<3xi1>) -> tensor<3xi1>
  %two = arith.constant 2 : i64
  %ge = magi.ge %i, %two : (tensor<3xi64>, i64) -> tensor<3xi1>
  return %gt, %lt, %eq, %ne, %le, %eqi, %land, %lnot, %w, %bnot, %ge : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2x3xbf16>, tensor<3xi1>, tensor<3xi1>
}

// ROUND:      out0: tensor<4xbf16> = [1, 1.016, 1.016, -0.996]
// ROUND-NEXT: out1: tensor<5xf16> = [65504, inf, inf, 1e-07, 0]
// ROUND-NEXT: out2: tensor<3xbf16> = [1, 1.01, 3.39e+38]
// ROUND-NEXT: out3: tensor<2xf32> = [0.1, 16777216]
func.func @rounding() -> (tensor<4xbf16>, tensor<5xf16>, tensor<3xbf16>, tensor<2xf32>) {
  // Ties go to even: 1 + 2^-8 is halfway between 1 and 1 + 2^-7, and
  // 1.015625 + 2^-8 halfway between 1.015625 (even) and 1.0234375.
  %x = magi.constant dense<[1.0, 1.0078125, 1.015625, -1.0]> : tensor<4xbf16>
  %tie = arith.constant 0.00390625 : f64
  %sum = magi.add %x, %tie : (tensor<4xbf16>, f64) -> tensor<4xbf16>
  // f16: largest finite, overflow (65520 is a tie that rounds up to 2^16),
  // subnormals, underflow to zero.
  %h = magi.constant dense<[65519.0, 65520.0, 1.0e6, 1.0e-7, 1.0e-8]> : tensor<5xf32>
  %hc = magi.to_copy %h {dtype = f16} : (tensor<5xf32>) -> tensor<5xf16>
  // f32 to bf16: a tie goes to even, just above it rounds up; 3.389e38 stays
  // below the overflow threshold.
  %f = magi.constant dense<[1.00390625, 1.0039064, 3.389e38]> : tensor<3xf32>
  %fc = magi.to_copy %f {dtype = bf16} : (tensor<3xf32>) -> tensor<3xbf16>
  // Python floats enter f32 ops as f32; int64 to f32 rounds.
  %tenth = arith.constant 0.1 : f64
  %z = magi.constant dense<[0.0, 0.0]> : tensor<2xf32>
  %zt = magi.add %z, %tenth : (tensor<2xf32>, f64) -> tensor<2xf32>
  %big = magi.constant dense<[0, 16777217]> : tensor<2xi64>
  %bigf = magi.to_copy %big {dtype = f32} : (tensor<2xi64>) -> tensor<2xf32>
  %r = magi.maximum %zt, %bigf : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %sum, %hc, %fc, %r : tensor<4xbf16>, tensor<5xf16>, tensor<3xbf16>, tensor<2xf32>
}

// UNARY:      out0: tensor<9xf32> = [1, 0, 2, 0.5, 0.25, 0.5, 0, 0, 1]
// UNARY-NEXT: out1: tensor<3xf32> = [-0.15880801, 0, 0.841192]
// UNARY-NEXT: out2: tensor<3xf32> = [-0.15865526, 0, 0.8413448]
// UNARY-NEXT: out3: tensor<3xf32> = [-0.26894143, 0, 0.7310586]
// UNARY-NEXT: out4: tensor<3xf32> = [1, -0, -1]
// UNARY-NEXT: out5: tensor<3xf32> = [1, 0, 1]
// UNARY-NEXT: out6: tensor<3xf32> = [0, 0, 1]
// UNARY-NEXT: out7: tensor<3xf32> = [-0.5, 0, 0.5]
// UNARY-NEXT: out8: tensor<3xi64> = [-2, 0, 2]
// UNARY-NEXT: out9: tensor<3xf32> = [0.36787945, 1, 2.7182817]
// UNARY-NEXT: out10: tensor<3xf32> = [-0.7615942, 0, 0.7615942]
// UNARY-NEXT: out11: tensor<3xf32> = [-0.8427008, 0, 0.8427008]
func.func @unary() -> (tensor<9xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi64>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %zero = magi.constant dense<0.0> : tensor<1xf32>
  %one = magi.constant dense<1.0> : tensor<1xf32>
  %four = magi.constant dense<4.0> : tensor<1xf32>
  %e0 = magi.exp %zero : (tensor<1xf32>) -> tensor<1xf32>
  %l1 = magi.log %one : (tensor<1xf32>) -> tensor<1xf32>
  %s4 = magi.sqrt %four : (tensor<1xf32>) -> tensor<1xf32>
  %r4 = magi.rsqrt %four : (tensor<1xf32>) -> tensor<1xf32>
  %i4 = magi.reciprocal %four : (tensor<1xf32>) -> tensor<1xf32>
  %g0 = magi.sigmoid %zero : (tensor<1xf32>) -> tensor<1xf32>
  %t0 = magi.tanh %zero : (tensor<1xf32>) -> tensor<1xf32>
  %sn0 = magi.sin %zero : (tensor<1xf32>) -> tensor<1xf32>
  %cs0 = magi.cos %zero : (tensor<1xf32>) -> tensor<1xf32>
  %all = magi.cat %e0, %l1, %s4, %r4, %i4, %g0, %t0, %sn0, %cs0 {dim = 0 : i64} : (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<9xf32>
  %x = magi.constant dense<[-1.0, 0.0, 1.0]> : tensor<3xf32>
  %gt = magi.gelu %x {approximate = "tanh"} : (tensor<3xf32>) -> tensor<3xf32>
  %ge = magi.gelu %x : (tensor<3xf32>) -> tensor<3xf32>
  %silu = magi.silu %x : (tensor<3xf32>) -> tensor<3xf32>
  %neg = magi.neg %x : (tensor<3xf32>) -> tensor<3xf32>
  %abs = magi.abs %x : (tensor<3xf32>) -> tensor<3xf32>
  %relu = magi.relu %x : (tensor<3xf32>) -> tensor<3xf32>
  %clamp = magi.clamp %x {min = -0.5 : f64, max = 0.5 : f64} : (tensor<3xf32>) -> tensor<3xf32>
  %xi = magi.constant dense<[-5, 0, 5]> : tensor<3xi64>
  %ci = magi.clamp %xi {min = -2.0 : f64, max = 2.0 : f64} : (tensor<3xi64>) -> tensor<3xi64>
  // Integer inputs of float ops promote to f32.
  %ei = magi.constant dense<[-1, 0, 1]> : tensor<3xi64>
  %exp = magi.exp %ei : (tensor<3xi64>) -> tensor<3xf32>
  %tanh = magi.tanh %x : (tensor<3xf32>) -> tensor<3xf32>
  %erf = magi.erf %x : (tensor<3xf32>) -> tensor<3xf32>
  return %all, %gt, %ge, %silu, %neg, %abs, %relu, %clamp, %ci, %exp, %tanh, %erf : tensor<9xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi64>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// CONV:      out0: tensor<4xi32> = [-2, 2, 0, 300]
// CONV-NEXT: out1: tensor<4xi1> = [true, true, false, true]
// CONV-NEXT: out2: tensor<4xui8> = [254, 2, 0, 44]
// CONV-NEXT: out3: tensor<3xf64> = [1, 0, 1]
// CONV-NEXT: out4: tensor<2x3xbf16> = {{\[}}[1.5, 1.5, 1.5], [2.5, 2.5, 2.5]]
func.func @conversions() -> (tensor<4xi32>, tensor<4xi1>, tensor<4xui8>, tensor<3xf64>, tensor<2x3xbf16>) {
  %f = magi.constant dense<[-2.7, 2.7, 0.0, 300.5]> : tensor<4xf32>
  // Float to integer truncates toward zero; to bool tests for nonzero.
  %i = magi.to_copy %f {dtype = i32} : (tensor<4xf32>) -> tensor<4xi32>
  %b = magi.to_copy %f {dtype = i1} : (tensor<4xf32>) -> tensor<4xi1>
  // Integers wrap into uint8.
  %u = magi.to_copy %i {dtype = ui8} : (tensor<4xi32>) -> tensor<4xui8>
  %bits = magi.constant dense<[true, false, true]> : tensor<3xi1>
  %d = magi.to_copy %bits {dtype = f64} : (tensor<3xi1>) -> tensor<3xf64>
  // copy: broadcast and convert into the destination's shape and dtype.
  %dst = magi.constant dense<0.0> : tensor<2x3xbf16>
  %src = magi.constant dense<[[1.5], [2.5]]> : tensor<2x1xf32>
  %c0 = magi.copy %dst, %src : (tensor<2x3xbf16>, tensor<2x1xf32>) -> tensor<2x3xbf16>
  %c = magi.clone %c0 : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
  return %i, %b, %u, %d, %c : tensor<4xi32>, tensor<4xi1>, tensor<4xui8>, tensor<3xf64>, tensor<2x3xbf16>
}

// RUN: magi-interp %s --function=rounding_ops | FileCheck %s --check-prefix=RND
// RND:      out0: tensor<6xf32> = [-2, -1, 0, 1, 2, 3]
// RND-NEXT: out1: tensor<6xf32> = [-1, -0, 1, 2, 3, 3]
// RND-NEXT: out2: tensor<6xf32> = [-2, -0, 0, 2, 2, 3]
// RND-NEXT: out3: tensor<6xf32> = [-1, -0, 0, 1, 2, 3]
// RND-NEXT: out4: tensor<6xf32> = [-1, -1, 1, 1, 1, 1]
// RND-NEXT: out5: tensor<3xi64> = [-1, 0, 1]
// RND-NEXT: out6: tensor<3xi64> = [-7, 0, 7]
// RND-NEXT: out7: tensor<4xi1> = [false, true, false, false]
// RND-NEXT: out8: tensor<4xi1> = [false, false, true, true]
// RND-NEXT: out9: tensor<4xf32> = [1, 0, 1, -1]
// RND-NEXT: out10: tensor<4xf32> = [-1, 8, 0.5, 0]
// RND-NEXT: out11: tensor<4xf32> = [nan, 3, -1, -inf]
// RND-NEXT: out12: tensor<2xf32> = [0, 1]
// RND-NEXT: out13: tensor<2xf32> = [0, 0.6931472]
func.func @rounding_ops() -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<3xi64>, tensor<3xi64>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xf32>, tensor<2xf32>) {
  %x = magi.constant dense<[-1.5, -0.5, 0.5, 1.5, 2.5, 3.0]> : tensor<6xf32>
  %floor = magi.floor %x : (tensor<6xf32>) -> tensor<6xf32>
  %ceil = magi.ceil %x : (tensor<6xf32>) -> tensor<6xf32>
  // Halves round to even.
  %round = magi.round %x : (tensor<6xf32>) -> tensor<6xf32>
  %trunc = magi.trunc %x : (tensor<6xf32>) -> tensor<6xf32>
  %sign = magi.sign %x : (tensor<6xf32>) -> tensor<6xf32>
  %i = magi.constant dense<[-7, 0, 7]> : tensor<3xi64>
  %signi = magi.sign %i : (tensor<3xi64>) -> tensor<3xi64>
  %floori = magi.floor %i : (tensor<3xi64>) -> tensor<3xi64>
  %s = magi.constant dense<[1.0, 0x7FC00000, 0x7F800000, 0xFF800000]> : tensor<4xf32>
  %nan = magi.isnan %s : (tensor<4xf32>) -> tensor<4xi1>
  %inf = magi.isinf %s : (tensor<4xf32>) -> tensor<4xi1>
  // sign(NaN) is 0.
  %z = magi.sign %s : (tensor<4xf32>) -> tensor<4xf32>
  %v = magi.constant dense<[-2.0, 8.0, 0.5, 0.0]> : tensor<4xf32>
  %lr = magi.leaky_relu %v {negative_slope = 0.5 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  %lg = magi.log2 %v : (tensor<4xf32>) -> tensor<4xf32>
  %ln2 = magi.constant dense<[0.0, 0.6931471805599453]> : tensor<2xf32>
  %em = magi.expm1 %ln2 : (tensor<2xf32>) -> tensor<2xf32>
  %lp = magi.log1p %em : (tensor<2xf32>) -> tensor<2xf32>
  return %floor, %ceil, %round, %trunc, %sign, %signi, %floori, %nan, %inf, %z, %lr, %lg, %em, %lp : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<3xi64>, tensor<3xi64>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xf32>, tensor<2xf32>
}

// RUN: magi-interp %s --function=more_binary | FileCheck %s --check-prefix=MORE
// MORE:      out0: tensor<4xf32> = [1, -1, 1, -1]
// MORE-NEXT: out1: tensor<4xi64> = [1, -1, 1, -1]
// MORE-NEXT: out2: tensor<4xf32> = [0.7853982, 2.3561945, -0.7853982, -2.3561945]
// MORE-NEXT: out3: tensor<3xi1> = [false, true, true]
func.func @more_binary() -> (tensor<4xf32>, tensor<4xi64>, tensor<4xf32>, tensor<3xi1>) {
  %a = magi.constant dense<[7.0, -7.0, 7.0, -7.0]> : tensor<4xf32>
  %b = magi.constant dense<[2.0, 2.0, -2.0, -2.0]> : tensor<4xf32>
  // fmod keeps the sign of the dividend (remainder: of the divisor).
  %fmod = magi.fmod %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %ai = magi.to_copy %a {dtype = i64} : (tensor<4xf32>) -> tensor<4xi64>
  %bi = magi.to_copy %b {dtype = i64} : (tensor<4xf32>) -> tensor<4xi64>
  %fmodi = magi.fmod %ai, %bi : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  // atan2 promotes integers to f32.
  %y = magi.constant dense<[1, 1, -1, -1]> : tensor<4xi64>
  %x = magi.constant dense<[1, -1, 1, -1]> : tensor<4xi64>
  %at = magi.atan2 %y, %x : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xf32>
  %p = magi.constant dense<[true, true, false]> : tensor<3xi1>
  %q = magi.constant dense<[1.0, 0.0, 2.0]> : tensor<3xf32>
  %xor = magi.logical_xor %p, %q : (tensor<3xi1>, tensor<3xf32>) -> tensor<3xi1>
  return %fmod, %fmodi, %at, %xor : tensor<4xf32>, tensor<4xi64>, tensor<4xf32>, tensor<3xi1>
}

// INT64_MIN divided by -1 wraps as in PyTorch (x86 would trap): the floor
// and trunc quotients are INT64_MIN, remainder and fmod 0.
// INTMIN:      out0: tensor<3xi64> = [-9223372036854775808, 9223372036854775807, -4]
// INTMIN-NEXT: out1: tensor<3xi64> = [-9223372036854775808, 9223372036854775807, -3]
// INTMIN-NEXT: out2: tensor<3xi64> = [0, 0, -1]
// INTMIN-NEXT: out3: tensor<3xi64> = [0, 0, 1]
func.func @int_min() -> (tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) {
  %a = magi.constant dense<[-9223372036854775808, -9223372036854775807, 7]> : tensor<3xi64>
  %b = magi.constant dense<[-1, -1, -2]> : tensor<3xi64>
  %floor = magi.div %a, %b {rounding_mode = "floor"} : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %trunc = magi.div %a, %b {rounding_mode = "trunc"} : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %rem = magi.remainder %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %fmod = magi.fmod %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %floor, %trunc, %rem, %fmod : tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>
}

// .item() (magi.item, aten._local_scalar_dense): the one element, as the
// result type's scalar.
// RUN: magi-interp %s --function=items | FileCheck %s --check-prefix=ITEMS
// ITEMS: out0: tensor<2xf32> = [3.5, 4.5]
// ITEMS: out1: tensor<2xi64> = [7, 8]
func.func @items() -> (tensor<2xf32>, tensor<2xi64>) {
  %f = magi.constant dense<[2.5]> : tensor<1xf32>
  %i = magi.constant dense<7> : tensor<1x1xi64>
  %x = magi.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %n = magi.constant dense<[0, 1]> : tensor<2xi64>
  %sf = magi.item %f : tensor<1xf32> -> f64
  %si = magi.item %i : tensor<1x1xi64> -> index
  %a = magi.add %x, %sf : (tensor<2xf32>, f64) -> tensor<2xf32>
  %b = magi.add %n, %si : (tensor<2xi64>, index) -> tensor<2xi64>
  return %a, %b : tensor<2xf32>, tensor<2xi64>
}
