//===- FuseElementwise.cpp - fusion that never recomputes -----------------===//

#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace magi {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;

namespace {

class FuseElementwisePass
    : public magi::impl::FuseElementwiseBase<FuseElementwisePass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fused) {
          auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
          Operation *producer = fused->get().getDefiningOp();
          return consumer && producer && producer->hasOneUse() &&
                 consumer.getMatchingIndexingMap(fused).isPermutation();
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
