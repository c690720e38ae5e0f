//===- Passes.h - Magi conversions ------------------------------*- C++ -*-===//
//
// magi to linalg on tensors as a dialect conversion: the pass, and its
// patterns and target for other compilers that embed the lowering in their
// own conversions.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_CONVERSION_PASSES_H
#define MAGI_CONVERSION_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace magi {

#define GEN_PASS_DECL
#include "magi/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "magi/Conversion/Passes.h.inc"

struct MagiToLinalgPatternOptions {
  /// Attention that fits one tiled kernel (rank 4, f16 or bf16, head
  /// dimension 64 or 128, a mask broadcast only over batch and heads) becomes magi.tiled_attention rather than
  /// generics that materialize the scores (the GPU path sets this).
  bool tiledAttention = false;
};

/// The patterns that lower every magi op of a piece to linalg on tensors
/// (with tensor, arith and math; symbolic integers become arith on
/// `index`; shape bindings and symbol declarations go). One file per op
/// family in passes/Lower/.
void populateMagiToLinalgPatterns(mlir::RewritePatternSet &patterns,
                                  const MagiToLinalgPatternOptions &options = {});

/// What the lowering leaves: every op outside the magi dialect is legal, and
/// magi.tiled_attention; other magi ops are illegal when `magiIllegal`, else
/// of unknown legality (a
/// partial conversion attempts them and lets them stay).
void configureMagiToLinalgTarget(mlir::ConversionTarget &target, bool magiIllegal);

/// The lower phase on a split module: every piece function becomes linalg,
/// tensor, arith and math on tensors (no magi op left; an op that cannot be
/// lowered is an error naming it), then elementwise producers fuse into
/// consumers that read each of their elements once (magi-fuse-elementwise).
/// The split graph itself stays as it is. `tiledAttention` (the GPU path):
/// attention that fits one tiled kernel becomes magi.tiled_attention.
void addLowerToLinalgPasses(mlir::OpPassManager &pm, bool tiledAttention = false);

} // namespace magi

#endif // MAGI_CONVERSION_PASSES_H
