// RUN: magi-opt %s -magi-fuse=enable=rotary-embedding -canonicalize -magi-dce | FileCheck %s

// magi-fuse's rotary-embedding fusion: x * cos + rotate_half(x) * sin, with
// rotate_half(x) = cat(neg(x[..., d/2:]), x[..., :d/2], -1).

// As HF LLaMA captures it (bf16, a dynamic sequence length, dim given as 3,
// the high half's end as INT64_MAX).
// CHECK-LABEL: func.func @llama
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x?x32xbf16>, %[[COS:.*]]: tensor<1x1x?x32xbf16>, %[[SIN:.*]]: tensor<1x1x?x32xbf16>)
// CHECK-NEXT: %[[R:.*]] = magi.rotary_embedding %[[Q]], %[[COS]], %[[SIN]] : (tensor<1x4x?x32xbf16>, tensor<1x1x?x32xbf16>, tensor<1x1x?x32xbf16>) -> tensor<1x4x?x32xbf16>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: magi.slice
// CHECK-NOT: magi.neg
// CHECK-NOT: magi.cat
// CHECK-NOT: magi.mul
// CHECK-NOT: magi.add
func.func @llama(%q: tensor<1x4x?x32xbf16>, %cos: tensor<1x1x?x32xbf16>, %sin: tensor<1x1x?x32xbf16>) -> tensor<1x4x?x32xbf16> {
  %q_cos = magi.mul %q, %cos : (tensor<1x4x?x32xbf16>, tensor<1x1x?x32xbf16>) -> tensor<1x4x?x32xbf16>
  %q_lo = magi.slice %q, 3 [0, 16, 1] : tensor<1x4x?x32xbf16> -> tensor<1x4x?x16xbf16>
  %q_hi = magi.slice %q, 3 [16, 9223372036854775807, 1] : tensor<1x4x?x32xbf16> -> tensor<1x4x?x16xbf16>
  %q_hi_neg = magi.neg %q_hi : (tensor<1x4x?x16xbf16>) -> tensor<1x4x?x16xbf16>
  %q_rot = magi.cat %q_hi_neg, %q_lo {dim = -1 : i64} : (tensor<1x4x?x16xbf16>, tensor<1x4x?x16xbf16>) -> tensor<1x4x?x32xbf16>
  %q_sin = magi.mul %q_rot, %sin : (tensor<1x4x?x32xbf16>, tensor<1x1x?x32xbf16>) -> tensor<1x4x?x32xbf16>
  %q_emb = magi.add %q_cos, %q_sin : (tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>) -> tensor<1x4x?x32xbf16>
  return %q_emb : tensor<1x4x?x32xbf16>
}

// Every commutative operand order flipped: sin * rot, cos * x, the sin term
// first in the add; dim given as -1 on the slices and 2 on the cat; the high
// half ends exactly at d.
// CHECK-LABEL: func.func @commuted
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x64xf32>, %[[COS:.*]]: tensor<8x64xf32>, %[[SIN:.*]]: tensor<8x64xf32>)
// CHECK-NEXT: %[[R:.*]] = magi.rotary_embedding %[[X]], %[[COS]], %[[SIN]] : (tensor<2x8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
// CHECK-NEXT: return %[[R]]
func.func @commuted(%x: tensor<2x8x64xf32>, %cos: tensor<8x64xf32>, %sin: tensor<8x64xf32>) -> tensor<2x8x64xf32> {
  %hi = magi.slice %x, -1 [32, 64, 1] : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
  %lo = magi.slice %x, -1 [0, 32, 1] : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
  %nhi = magi.neg %hi : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %rot = magi.cat %nhi, %lo {dim = 2 : i64} : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x64xf32>
  %s = magi.mul %sin, %rot : (tensor<8x64xf32>, tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  %c = magi.mul %cos, %x : (tensor<8x64xf32>, tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  %r = magi.add %s, %c : (tensor<2x8x64xf32>, tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  return %r : tensor<2x8x64xf32>
}

// q and k of one layer share cos and sin: two fused ops.
// CHECK-LABEL: func.func @q_and_k
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x?x32xbf16>, %[[K:.*]]: tensor<1x2x?x32xbf16>, %[[COS:.*]]: tensor<1x1x?x32xbf16>, %[[SIN:.*]]: tensor<1x1x?x32xbf16>)
// CHECK-NEXT: %[[RQ:.*]] = magi.rotary_embedding %[[Q]], %[[COS]], %[[SIN]]
// CHECK-NEXT: %[[RK:.*]] = magi.rotary_embedding %[[K]], %[[COS]], %[[SIN]]
// CHECK-NEXT: return %[[RQ]], %[[RK]]
func.func @q_and_k(%q: tensor<1x4x?x32xbf16>, %k: tensor<1x2x?x32xbf16>, %cos: tensor<1x1x?x32xbf16>, %sin: tensor<1x1x?x32xbf16>) -> (tensor<1x4x?x32xbf16>, tensor<1x2x?x32xbf16>) {
  %q_cos = magi.mul %q, %cos : (tensor<1x4x?x32xbf16>, tensor<1x1x?x32xbf16>) -> tensor<1x4x?x32xbf16>
  %q_lo = magi.slice %q, 3 [0, 16, 1] : tensor<1x4x?x32xbf16> -> tensor<1x4x?x16xbf16>
  %q_hi = magi.slice %q, 3 [16, 9223372036854775807, 1] : tensor<1x4x?x32xbf16> -> tensor<1x4x?x16xbf16>
  %q_hi_neg = magi.neg %q_hi : (tensor<1x4x?x16xbf16>) -> tensor<1x4x?x16xbf16>
  %q_rot = magi.cat %q_hi_neg, %q_lo {dim = -1 : i64} : (tensor<1x4x?x16xbf16>, tensor<1x4x?x16xbf16>) -> tensor<1x4x?x32xbf16>
  %q_sin = magi.mul %q_rot, %sin : (tensor<1x4x?x32xbf16>, tensor<1x1x?x32xbf16>) -> tensor<1x4x?x32xbf16>
  %q_emb = magi.add %q_cos, %q_sin : (tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>) -> tensor<1x4x?x32xbf16>
  %k_cos = magi.mul %k, %cos : (tensor<1x2x?x32xbf16>, tensor<1x1x?x32xbf16>) -> tensor<1x2x?x32xbf16>
  %k_lo = magi.slice %k, 3 [0, 16, 1] : tensor<1x2x?x32xbf16> -> tensor<1x2x?x16xbf16>
  %k_hi = magi.slice %k, 3 [16, 9223372036854775807, 1] : tensor<1x2x?x32xbf16> -> tensor<1x2x?x16xbf16>
  %k_hi_neg = magi.neg %k_hi : (tensor<1x2x?x16xbf16>) -> tensor<1x2x?x16xbf16>
  %k_rot = magi.cat %k_hi_neg, %k_lo {dim = -1 : i64} : (tensor<1x2x?x16xbf16>, tensor<1x2x?x16xbf16>) -> tensor<1x2x?x32xbf16>
  %k_sin = magi.mul %k_rot, %sin : (tensor<1x2x?x32xbf16>, tensor<1x1x?x32xbf16>) -> tensor<1x2x?x32xbf16>
  %k_emb = magi.add %k_cos, %k_sin : (tensor<1x2x?x32xbf16>, tensor<1x2x?x32xbf16>) -> tensor<1x2x?x32xbf16>
  return %q_emb, %k_emb : tensor<1x4x?x32xbf16>, tensor<1x2x?x32xbf16>
}

//===----------------------------------------------------------------------===//
// Negative cases.
//===----------------------------------------------------------------------===//

// The halves swapped: cat(neg(x[..., :d/2]), x[..., d/2:]).
// CHECK-LABEL: func.func @halves_swapped
// CHECK-NOT: magi.rotary_embedding
// CHECK: magi.cat
// CHECK-NOT: magi.rotary_embedding
func.func @halves_swapped(%x: tensor<2x8x64xf32>, %cos: tensor<8x64xf32>, %sin: tensor<8x64xf32>) -> tensor<2x8x64xf32> {
  %lo = magi.slice %x, -1 [0, 32, 1] : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
  %hi = magi.slice %x, -1 [32, 64, 1] : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
  %nlo = magi.neg %lo : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %rot = magi.cat %nlo, %hi {dim = -1 : i64} : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x64xf32>
  %s = magi.mul %rot, %sin : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %c = magi.mul %x, %cos : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %r = magi.add %c, %s : (tensor<2x8x64xf32>, tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  return %r : tensor<2x8x64xf32>
}

// The negation on the second half of the cat: cat(x[..., d/2:], neg(x[..., :d/2])).
// CHECK-LABEL: func.func @neg_second
// CHECK-NOT: magi.rotary_embedding
// CHECK: magi.cat
// CHECK-NOT: magi.rotary_embedding
func.func @neg_second(%x: tensor<2x8x64xf32>, %cos: tensor<8x64xf32>, %sin: tensor<8x64xf32>) -> tensor<2x8x64xf32> {
  %lo = magi.slice %x, -1 [0, 32, 1] : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
  %hi = magi.slice %x, -1 [32, 64, 1] : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
  %nlo = magi.neg %lo : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %rot = magi.cat %hi, %nlo {dim = -1 : i64} : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x64xf32>
  %s = magi.mul %rot, %sin : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %c = magi.mul %x, %cos : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %r = magi.add %c, %s : (tensor<2x8x64xf32>, tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  return %r : tensor<2x8x64xf32>
}

// The rotated halves come from another tensor than the one times cos.
// CHECK-LABEL: func.func @rotate_other_tensor
// CHECK-NOT: magi.rotary_embedding
// CHECK: magi.cat
// CHECK-NOT: magi.rotary_embedding
func.func @rotate_other_tensor(%x: tensor<2x8x64xf32>, %y: tensor<2x8x64xf32>, %cos: tensor<8x64xf32>, %sin: tensor<8x64xf32>) -> tensor<2x8x64xf32> {
  %lo = magi.slice %y, -1 [0, 32, 1] : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
  %hi = magi.slice %y, -1 [32, 64, 1] : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
  %nhi = magi.neg %hi : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %rot = magi.cat %nhi, %lo {dim = -1 : i64} : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x64xf32>
  %s = magi.mul %rot, %sin : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %c = magi.mul %x, %cos : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %r = magi.add %c, %s : (tensor<2x8x64xf32>, tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  return %r : tensor<2x8x64xf32>
}

// The halves from two different tensors.
// CHECK-LABEL: func.func @halves_of_two_tensors
// CHECK-NOT: magi.rotary_embedding
// CHECK: magi.cat
// CHECK-NOT: magi.rotary_embedding
func.func @halves_of_two_tensors(%x: tensor<2x8x64xf32>, %y: tensor<2x8x64xf32>, %cos: tensor<8x64xf32>, %sin: tensor<8x64xf32>) -> tensor<2x8x64xf32> {
  %lo = magi.slice %x, -1 [0, 32, 1] : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
  %hi = magi.slice %y, -1 [32, 64, 1] : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
  %nhi = magi.neg %hi : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %rot = magi.cat %nhi, %lo {dim = -1 : i64} : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x64xf32>
  %s = magi.mul %rot, %sin : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %c = magi.mul %x, %cos : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %r = magi.add %c, %s : (tensor<2x8x64xf32>, tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  return %r : tensor<2x8x64xf32>
}

// Halves split at 16 of 64 (not d/2).
// CHECK-LABEL: func.func @uneven_split
// CHECK-NOT: magi.rotary_embedding
// CHECK: magi.cat
// CHECK-NOT: magi.rotary_embedding
func.func @uneven_split(%x: tensor<2x8x64xf32>, %cos: tensor<8x64xf32>, %sin: tensor<8x64xf32>) -> tensor<2x8x64xf32> {
  %lo = magi.slice %x, -1 [0, 16, 1] : tensor<2x8x64xf32> -> tensor<2x8x16xf32>
  %hi = magi.slice %x, -1 [16, 64, 1] : tensor<2x8x64xf32> -> tensor<2x8x48xf32>
  %nhi = magi.neg %hi : (tensor<2x8x48xf32>) -> tensor<2x8x48xf32>
  %rot = magi.cat %nhi, %lo {dim = -1 : i64} : (tensor<2x8x48xf32>, tensor<2x8x16xf32>) -> tensor<2x8x64xf32>
  %s = magi.mul %rot, %sin : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %c = magi.mul %x, %cos : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %r = magi.add %c, %s : (tensor<2x8x64xf32>, tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  return %r : tensor<2x8x64xf32>
}

// Slices with step 2 (interleaved halves, GPT-J style).
// CHECK-LABEL: func.func @strided_halves
// CHECK-NOT: magi.rotary_embedding
// CHECK: magi.cat
// CHECK-NOT: magi.rotary_embedding
func.func @strided_halves(%x: tensor<2x8x64xf32>, %cos: tensor<8x64xf32>, %sin: tensor<8x64xf32>) -> tensor<2x8x64xf32> {
  %lo = magi.slice %x, -1 [0, 64, 2] : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
  %hi = magi.slice %x, -1 [1, 64, 2] : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
  %nhi = magi.neg %hi : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %rot = magi.cat %nhi, %lo {dim = -1 : i64} : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x64xf32>
  %s = magi.mul %rot, %sin : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %c = magi.mul %x, %cos : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %r = magi.add %c, %s : (tensor<2x8x64xf32>, tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  return %r : tensor<2x8x64xf32>
}

// Halves along a dimension other than the last.
// CHECK-LABEL: func.func @not_last_dim
// CHECK-NOT: magi.rotary_embedding
// CHECK: magi.cat
// CHECK-NOT: magi.rotary_embedding
func.func @not_last_dim(%x: tensor<2x8x8xf32>, %cos: tensor<8x8xf32>, %sin: tensor<8x8xf32>) -> tensor<2x8x8xf32> {
  %lo = magi.slice %x, 1 [0, 4, 1] : tensor<2x8x8xf32> -> tensor<2x4x8xf32>
  %hi = magi.slice %x, 1 [4, 8, 1] : tensor<2x8x8xf32> -> tensor<2x4x8xf32>
  %nhi = magi.neg %hi : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %rot = magi.cat %nhi, %lo {dim = 1 : i64} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
  %s = magi.mul %rot, %sin : (tensor<2x8x8xf32>, tensor<8x8xf32>) -> tensor<2x8x8xf32>
  %c = magi.mul %x, %cos : (tensor<2x8x8xf32>, tensor<8x8xf32>) -> tensor<2x8x8xf32>
  %r = magi.add %c, %s : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  return %r : tensor<2x8x8xf32>
}

// x * cos - rotate_half(x) * sin: a sub, not an add.
// CHECK-LABEL: func.func @sub_not_add
// CHECK-NOT: magi.rotary_embedding
// CHECK: magi.sub
// CHECK-NOT: magi.rotary_embedding
func.func @sub_not_add(%x: tensor<2x8x64xf32>, %cos: tensor<8x64xf32>, %sin: tensor<8x64xf32>) -> tensor<2x8x64xf32> {
  %lo = magi.slice %x, -1 [0, 32, 1] : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
  %hi = magi.slice %x, -1 [32, 64, 1] : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
  %nhi = magi.neg %hi : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %rot = magi.cat %nhi, %lo {dim = -1 : i64} : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x64xf32>
  %s = magi.mul %rot, %sin : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %c = magi.mul %x, %cos : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %r = magi.sub %c, %s : (tensor<2x8x64xf32>, tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  return %r : tensor<2x8x64xf32>
}

// The add has an alpha.
// CHECK-LABEL: func.func @add_alpha
// CHECK-NOT: magi.rotary_embedding
// CHECK: magi.add
// CHECK-NOT: magi.rotary_embedding
func.func @add_alpha(%x: tensor<2x8x64xf32>, %cos: tensor<8x64xf32>, %sin: tensor<8x64xf32>) -> tensor<2x8x64xf32> {
  %lo = magi.slice %x, -1 [0, 32, 1] : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
  %hi = magi.slice %x, -1 [32, 64, 1] : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
  %nhi = magi.neg %hi : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %rot = magi.cat %nhi, %lo {dim = -1 : i64} : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x64xf32>
  %s = magi.mul %rot, %sin : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %c = magi.mul %x, %cos : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %r = magi.add %c, %s {alpha = 2.0} : (tensor<2x8x64xf32>, tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  return %r : tensor<2x8x64xf32>
}

// cos is a Python scalar.
// CHECK-LABEL: func.func @scalar_cos
// CHECK-NOT: magi.rotary_embedding
// CHECK: magi.cat
// CHECK-NOT: magi.rotary_embedding
func.func @scalar_cos(%x: tensor<2x8x64xf32>, %cos: f64, %sin: tensor<8x64xf32>) -> tensor<2x8x64xf32> {
  %lo = magi.slice %x, -1 [0, 32, 1] : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
  %hi = magi.slice %x, -1 [32, 64, 1] : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
  %nhi = magi.neg %hi : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %rot = magi.cat %nhi, %lo {dim = -1 : i64} : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x64xf32>
  %s = magi.mul %rot, %sin : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %c = magi.mul %x, %cos : (tensor<2x8x64xf32>, f64) -> tensor<2x8x64xf32>
  %r = magi.add %c, %s : (tensor<2x8x64xf32>, tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  return %r : tensor<2x8x64xf32>
}
