//===- LowerToLinalg.cpp - magi ops to linalg on tensors ------------------===//
//
// The first step of the lower phase: every magi op of a piece becomes linalg
// ops on tensors (value semantics), with tensor, arith and math ops; symbolic
// integers become arith on `index`. The patterns live in one file per op
// family (LowerElementwise, LowerReductions, LowerMatmul, LowerAttention,
// LowerShapes, LowerIndexing); this file runs them.
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalgCommon.h"

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace magi {
#define GEN_PASS_DEF_LOWERTOLINALG
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;
using namespace magi;

namespace {

class LowerToLinalgPass
    : public magi::impl::LowerToLinalgBase<LowerToLinalgPass> {
public:
  using LowerToLinalgBase::LowerToLinalgBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // The split graph only calls the pieces; it stays in the magi dialect
    // (its calls are what the runtime's plan follows).
    if (func->hasAttr("magi.split"))
      return;
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    lower::populateElementwisePatterns(patterns);
    lower::populateReductionPatterns(patterns);
    lower::populateMatmulPatterns(patterns);
    lower::populateAttentionPatterns(patterns);
    lower::populateShapePatterns(patterns);
    lower::populateIndexingPatterns(patterns);
    // Only rewrite, no folding of the magi ops left: the IR after the pass
    // is the input with the converted ops replaced.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(func, std::move(patterns), config)))
      return signalPassFailure();

    if (!failOnUnconverted)
      return;
    bool failedAny = false;
    func.walk([&](Operation *op) {
      if (!isa_and_nonnull<MagiDialect>(op->getDialect()))
        return;
      op->emitError() << "'" << op->getName() << "' in piece @"
                      << func.getSymName() << " was not lowered to linalg";
      failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
