// Tensor creation, Python scalars and symbolic-integer arithmetic.

// RUN: magi-interp %s --function=create | FileCheck %s --check-prefix=CREATE
// RUN: magi-interp %s --function=symbols | FileCheck %s --check-prefix=SYM
// RUN: magi-interp %s --function=symbols --lowered-pieces | FileCheck %s --check-prefix=SYM
// RUN: magi-interp %s --function=sym_overflow | FileCheck %s --check-prefix=OVERFLOW
// The lowered code computes the same (it once gave 8 for INT64_MIN // -1, and
// -1 for a fill of `true` into int64 and float32):
// RUN: magi-interp %s --function=sym_overflow --lowered-pieces | FileCheck %s --check-prefix=OVERFLOW
// RUN: magi-interp %s --function=bool_fill | FileCheck %s --check-prefix=BOOLFILL
// RUN: magi-interp %s --function=bool_fill --lowered-pieces | FileCheck %s --check-prefix=BOOLFILL

// CREATE:      out0: tensor<2x3xbf16> = {{\[}}[0.1, 0.1, 0.1], [0.1, 0.1, 0.1]]
// CREATE-NEXT: out1: tensor<i1> = true
// CREATE-NEXT: out2: tensor<2xi64> = [-3, -3]
// CREATE-NEXT: out3: tensor<5xi64> = [2, 5, 8, 11, 14]
// CREATE-NEXT: out4: tensor<4xf32> = [1, 0.75, 0.5, 0.25]
// CREATE-NEXT: out5: tensor<0xi64> = []
// CREATE-NEXT: out6: tensor<f16> = 2.5
// CREATE-NEXT: out7: tensor<i64> = 3
// CREATE-NEXT: out8: tensor<2x2xi32> = {{\[}}[1, 2], [3, 4]]
// CREATE-NEXT: out9: tensor<3xf32> = [7, 7, 7]
func.func @create() -> (tensor<2x3xbf16>, tensor<i1>, tensor<2xi64>, tensor<5xi64>, tensor<4xf32>, tensor<0xi64>, tensor<f16>, tensor<i64>, tensor<2x2xi32>, tensor<3xf32>) {
  %c2 = arith.constant 2 : index
  // Sizes mix constants and symbolic values.
  %full = magi.full [%c2, 3] {fill_value = 1.000000e-01 : f64, dtype = bf16} : tensor<2x3xbf16>
  %true = magi.full [] {fill_value = true, dtype = i1} : tensor<i1>
  %like = magi.full_like %full {fill_value = -3 : i64, dtype = i64} : (tensor<2x3xbf16>) -> tensor<2x3xi64>
  %like1 = magi.slice %like, 1 [0, 1, 1] : tensor<2x3xi64> -> tensor<2x1xi64>
  %likev = magi.view %like1 [2] : tensor<2x1xi64> -> tensor<2xi64>
  // arange: ceil((end - start) / step) values, in int64 for integer dtypes.
  %s = arith.constant 2 : i64
  %e = arith.constant 15 : index
  %st = arith.constant 3 : i64
  %ar = magi.arange %s, %e, %st {dtype = i64} : (i64, index, i64) -> tensor<5xi64>
  %fs = arith.constant 1.0 : f64
  %fe = arith.constant 0.0 : f64
  %fstep = arith.constant -0.25 : f64
  %arf = magi.arange %fs, %fe, %fstep {dtype = f32} : (f64, f64, f64) -> tensor<4xf32>
  // An empty range.
  %empty0 = magi.arange %e, %s, %st {dtype = i64} : (index, i64, i64) -> tensor<0xi64>
  %x = arith.constant 2.5 : f64
  %st16 = magi.scalar_tensor %x {dtype = f16} : (f64) -> tensor<f16>
  %sti = magi.scalar_tensor %st {dtype = i64} : (i64) -> tensor<i64>
  %lit = magi.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %splat = arith.constant dense<7.0> : tensor<3xf32>
  return %full, %true, %likev, %ar, %arf, %empty0, %st16, %sti, %lit, %splat : tensor<2x3xbf16>, tensor<i1>, tensor<2xi64>, tensor<5xi64>, tensor<4xf32>, tensor<0xi64>, tensor<f16>, tensor<i64>, tensor<2x2xi32>, tensor<3xf32>
}

// Symbolic sizes: sym_size reads a size, the sym ops compute with Python's
// semantics (floor division and modulo round toward -inf), and the results
// size new tensors.
// SYM:      out0: tensor<7xi64> = [0, 1, 2, 3, 4, 5, 6]
// SYM-NEXT: out1: tensor<8xi64> = [4, -5, 2, -2, 4, 3, -3, -3]
func.func @symbols() -> (tensor<?xi64>, tensor<8xi64>) {
  %seed = magi.constant dense<0> : tensor<7x2xi64>
  %n = magi.sym_size %seed, 0 : tensor<7x2xi64>
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r = magi.arange %zero, %n, %one {dtype = i64} : (i64, index, i64) -> tensor<?xi64>
  %two = magi.sym_size %seed, 1 : tensor<7x2xi64>
  %m3 = arith.constant -3 : index
  %add = magi.sym_add %two, %two
  %sub = magi.sym_sub %two, %n
  %mul = magi.sym_mul %two, %two
  %mod = magi.sym_mod %n, %m3
  %fdiv = magi.sym_floordiv %n, %m3
  %min = magi.sym_min %n, %m3
  %max = magi.sym_max %m3, %n
  %fdiv2 = magi.sym_floordiv %n, %two
  // Collect the values: 2 + 2 (as a size), 2 - 7, 2, 7 mod -3, 2 * 2,
  // 7 // 2, 7 // -3, min(7, -3); max(-3, 7) is added times 0.
  %t0 = magi.full [%add] {fill_value = 0 : i64, dtype = i64} : tensor<?xi64>
  %l0 = magi.sym_size %t0, 0 : tensor<?xi64>
  %s0 = magi.scalar_tensor %l0 {dtype = i64} : (index) -> tensor<i64>
  %s1 = magi.scalar_tensor %sub {dtype = i64} : (index) -> tensor<i64>
  %s2 = magi.scalar_tensor %two {dtype = i64} : (index) -> tensor<i64>
  %s3 = magi.scalar_tensor %mod {dtype = i64} : (index) -> tensor<i64>
  %s4 = magi.scalar_tensor %mul {dtype = i64} : (index) -> tensor<i64>
  %s5 = magi.scalar_tensor %fdiv2 {dtype = i64} : (index) -> tensor<i64>
  %s6 = magi.scalar_tensor %fdiv {dtype = i64} : (index) -> tensor<i64>
  %s7 = magi.scalar_tensor %min {dtype = i64} : (index) -> tensor<i64>
  %u0 = magi.unsqueeze %s0 {dim = 0 : i64} : (tensor<i64>) -> tensor<1xi64>
  %u1 = magi.unsqueeze %s1 {dim = 0 : i64} : (tensor<i64>) -> tensor<1xi64>
  %u2 = magi.unsqueeze %s2 {dim = 0 : i64} : (tensor<i64>) -> tensor<1xi64>
  %u3 = magi.unsqueeze %s3 {dim = 0 : i64} : (tensor<i64>) -> tensor<1xi64>
  %u4 = magi.unsqueeze %s4 {dim = 0 : i64} : (tensor<i64>) -> tensor<1xi64>
  %u5 = magi.unsqueeze %s5 {dim = 0 : i64} : (tensor<i64>) -> tensor<1xi64>
  %u6 = magi.unsqueeze %s6 {dim = 0 : i64} : (tensor<i64>) -> tensor<1xi64>
  %u7 = magi.unsqueeze %s7 {dim = 0 : i64} : (tensor<i64>) -> tensor<1xi64>
  %all = magi.cat %u0, %u1, %u2, %u3, %u4, %u5, %u6, %u7 {dim = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<8xi64>
  %maxt = magi.scalar_tensor %max {dtype = i64} : (index) -> tensor<i64>
  %out = magi.add %all, %maxt {alpha = 0.0 : f64} : (tensor<8xi64>, tensor<i64>) -> tensor<8xi64>
  return %r, %out : tensor<?xi64>, tensor<8xi64>
}

// Constants held in resource blobs (the dtype's own bytes, after a 4-byte
// alignment header): bf16 [1.0, -2.0] and bool [true, false, true].
// RUN: magi-interp %s --function=resources | FileCheck %s --check-prefix=BLOB
// BLOB:      out0: tensor<2xbf16> = [1, -2]
// BLOB-NEXT: out1: tensor<3xi1> = [true, false, true]
func.func @resources() -> (tensor<2xbf16>, tensor<3xi1>) {
  %a = magi.constant dense_resource<bf16_blob> : tensor<2xbf16>
  %b = magi.constant dense_resource<bool_blob> : tensor<3xi1>
  return %a, %b : tensor<2xbf16>, tensor<3xi1>
}

{-#
  dialect_resources: {
    builtin: {
      bf16_blob: "0x02000000803F00C0",
      bool_blob: "0x01000000010001"
    }
  }
#-}

// INT64_MIN // -1 overflows (and used to raise SIGFPE); like PyTorch's int64
// it wraps to INT64_MIN, and INT64_MIN % -1 is 0.
// OVERFLOW:      out0: tensor<i64> = -9223372036854775808
// OVERFLOW-NEXT: out1: tensor<i64> = 0
// OVERFLOW-NEXT: out2: tensor<i64> = -9223372036854775807
// OVERFLOW-NEXT: out3: tensor<i64> = -1
func.func @sym_overflow() -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>) {
  %min = arith.constant -9223372036854775808 : index
  %max = arith.constant 9223372036854775807 : index
  %m1 = arith.constant -1 : index
  %fdiv = magi.sym_floordiv %min, %m1
  %mod = magi.sym_mod %min, %m1
  %fdiv2 = magi.sym_floordiv %max, %m1
  %mod2 = magi.sym_mod %max, %min
  %s0 = magi.scalar_tensor %fdiv {dtype = i64} : (index) -> tensor<i64>
  %s1 = magi.scalar_tensor %mod {dtype = i64} : (index) -> tensor<i64>
  %s2 = magi.scalar_tensor %fdiv2 {dtype = i64} : (index) -> tensor<i64>
  %s3 = magi.scalar_tensor %mod2 {dtype = i64} : (index) -> tensor<i64>
  return %s0, %s1, %s2, %s3 : tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>
}

// A fill value of `true` is 1 in every dtype.
// BOOLFILL:      out0: tensor<2xi64> = [1, 1]
// BOOLFILL-NEXT: out1: tensor<2xf32> = [1, 1]
// BOOLFILL-NEXT: out2: tensor<2xi64> = [0, 0]
func.func @bool_fill() -> (tensor<2xi64>, tensor<2xf32>, tensor<2xi64>) {
  %a = magi.full [2] {fill_value = true, dtype = i64} : tensor<2xi64>
  %b = magi.full [2] {fill_value = true, dtype = f32} : tensor<2xf32>
  %c = magi.full_like %a {fill_value = false, dtype = i64} : (tensor<2xi64>) -> tensor<2xi64>
  return %a, %b, %c : tensor<2xi64>, tensor<2xf32>, tensor<2xi64>
}
