//===- TiledAttentionMath.h - Arithmetic of tiled attention -----*- C++ -*-===//
//
// The scalar arithmetic both lowerings of magi.tiled_attention build (the GPU
// kernel, magi-tiled-attention-to-gpu, and its CPU loops,
// magi-tiled-attention-to-loops), written once so that the CPU run checks the
// same numerics the kernel computes: what a mask term does to a score, the
// online softmax's step, and the weight of a split over keys. Scores are f32
// in log2 units (scale x log2(e) folded in).
//
//===----------------------------------------------------------------------===//

#ifndef MAGI_DIALECT_MAGI_IR_TILEDATTENTIONMATH_H
#define MAGI_DIALECT_MAGI_IR_TILEDATTENTIONMATH_H

#include "magi/Dialect/Magi/IR/AttentionLayout.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

#include <cmath>

namespace magi::tiled_attention {

/// A [B, S, H, E] buffer (magi.tiled_attention's layout bshd) as the
/// [B, H, S, E] view both lowerings index: dimensions 1 and 2 swapped by
/// memref.transpose, no copy.
inline mlir::Value headsFirstView(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v) {
  mlir::MLIRContext *ctx = b.getContext();
  auto swap = mlir::AffineMap::getPermutationMap(headsSequenceSwap(), ctx);
  return mlir::memref::TransposeOp::create(b, loc, v, mlir::AffineMapAttr::get(swap));
}

inline mlir::Value f32Constant(mlir::OpBuilder &b, mlir::Location loc, double v) {
  return mlir::arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

/// A mask term (i1, or f16/bf16/f32 additive) as f32 when additive.
inline mlir::Value widenMaskTerm(mlir::OpBuilder &b, mlir::Location loc, mlir::Value m) {
  if (m.getType().isInteger(1) || m.getType().isF32())
    return m;
  return mlir::arith::ExtFOp::create(b, loc, b.getF32Type(), m);
}

/// What mask term `m` does to its score, for classifying mask tiles:
/// whether the score stays visible (true, or not -inf) and whether it
/// changes (false, or not 0).
struct MaskTermEffect {
  mlir::Value visible, changed;
};
inline MaskTermEffect maskTermEffect(mlir::OpBuilder &b, mlir::Location loc, mlir::Value m) {
  using namespace mlir;
  if (m.getType().isInteger(1))
    return {m, arith::XOrIOp::create(b, loc, m, arith::ConstantIntOp::create(b, loc, 1, 1))};
  Value wide = widenMaskTerm(b, loc, m);
  return {arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, wide,
                                f32Constant(b, loc, -INFINITY)),
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, wide,
                                f32Constant(b, loc, 0.0))};
}

/// Score `s` (log2 units) with mask term `m` applied: a boolean hides it
/// (-inf), an additive term is added in log2 units.
inline mlir::Value applyMaskTerm(mlir::OpBuilder &b, mlir::Location loc, mlir::Value m,
                                 mlir::Value s) {
  using namespace mlir;
  if (m.getType().isInteger(1))
    return arith::SelectOp::create(b, loc, m, s, f32Constant(b, loc, -INFINITY));
  return math::FmaOp::create(b, loc, widenMaskTerm(b, loc, m), f32Constant(b, loc, M_LOG2E),
                             s);
}

/// One key tile's step of a row's online softmax, from the running max and
/// the tile's max (both scaled): the new max, the shift the probabilities
/// take (0 while the row has seen only -inf: exp2(-inf) = 0, no NaN), its
/// negation, and alpha = exp2(old max - shift), which rescales the running
/// sum and output.
struct OnlineStep {
  mlir::Value max, shift, negShift, alpha;
};
inline OnlineStep onlineStep(mlir::OpBuilder &b, mlir::Location loc, mlir::Value oldMax,
                             mlir::Value tileMax) {
  using namespace mlir;
  OnlineStep step;
  step.max = arith::MaximumFOp::create(b, loc, oldMax, tileMax);
  Value seenNothing = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, step.max,
                                            f32Constant(b, loc, -INFINITY));
  step.shift = arith::SelectOp::create(b, loc, seenNothing, f32Constant(b, loc, 0.0), step.max);
  step.negShift = arith::NegFOp::create(b, loc, step.shift);
  step.alpha = math::Exp2Op::create(b, loc, arith::SubFOp::create(b, loc, oldMax, step.shift));
  return step;
}

/// The probability of score `s`: exp2(s * scale - shift) for a raw score
/// (`scale` given: one fma), exp2(s - shift) for one already scaled.
inline mlir::Value probability(mlir::OpBuilder &b, mlir::Location loc, mlir::Value s,
                               const OnlineStep &step, mlir::Value scale) {
  using namespace mlir;
  Value exponent = scale ? Value(math::FmaOp::create(b, loc, s, scale, step.negShift))
                         : Value(arith::SubFOp::create(b, loc, s, step.shift));
  return math::Exp2Op::create(b, loc, exponent);
}

/// The weight of a split over keys whose max is `splitMax` when the splits
/// are combined at the largest max `max`: exp2(splitMax - max), 0 for a
/// split that saw no key of the row (also when none did, where
/// max - max would be NaN).
inline mlir::Value splitWeight(mlir::OpBuilder &b, mlir::Location loc, mlir::Value splitMax,
                               mlir::Value max) {
  using namespace mlir;
  Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, splitMax,
                                      f32Constant(b, loc, -INFINITY));
  return arith::SelectOp::create(
      b, loc, empty, f32Constant(b, loc, 0.0),
      math::Exp2Op::create(b, loc, arith::SubFOp::create(b, loc, splitMax, max)));
}

} // namespace magi::tiled_attention

#endif // MAGI_DIALECT_MAGI_IR_TILEDATTENTIONMATH_H
