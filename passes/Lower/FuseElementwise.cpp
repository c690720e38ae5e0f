//===- FuseElementwise.cpp - fusion that never recomputes -----------------===//

#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace magi {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;

namespace {

// A generic whose body only yields its inputs' elements (a transpose, a
// broadcast, a copy): fusing it costs a load, never arithmetic.
bool movesDataOnly(linalg::GenericOp op) {
  Block *body = op.getBlock();
  if (body->getOperations().size() != 1)
    return false;
  return llvm::all_of(body->getTerminator()->getOperands(), [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == body &&
           arg.getArgNumber() < op.getNumDpsInputs();
  });
}

// `truncf` of a matrix product's result, element by element: kept apart so
// that the library call can write the rounded result itself
// (magi-matmul-to-library-call).
bool roundsAProduct(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1)
    return false;
  Block *body = op.getBlock();
  if (body->getOperations().size() != 2 || !isa<arith::TruncFOp>(body->front()))
    return false;
  auto product = op.getDpsInputOperand(0)->get().getDefiningOp<linalg::LinalgOp>();
  return product && linalg::isaContractionOpInterface(product);
}

bool shouldFuse(OpOperand *fused) {
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  auto producer = fused->get().getDefiningOp<linalg::GenericOp>();
  if (!consumer || !producer || roundsAProduct(producer))
    return false;
  // Data movement may be read at any position and several times by one
  // consumer (RoPE reads its input at d and at d ± half).
  if (movesDataOnly(producer))
    return llvm::all_of(producer->getUsers(), [&](Operation *user) {
      return user == consumer.getOperation();
    });
  return producer->hasOneUse() &&
         consumer.getMatchingIndexingMap(fused).isPermutation();
}

class FuseElementwisePass
    : public magi::impl::FuseElementwiseBase<FuseElementwisePass> {
public:
  void runOnOperation() override {
    // A transpose fuses only as a generic; one that no generic reads stays
    // as it is.
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::TransposeOp> transposes;
    getOperation().walk([&](linalg::TransposeOp op) {
      if (!op->use_empty() &&
          llvm::all_of(op->getUsers(), [](Operation *user) {
            return isa<linalg::GenericOp>(user);
          }))
        transposes.push_back(op);
    });
    for (linalg::TransposeOp op : transposes) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, cast<linalg::LinalgOp>(*op));
    }

    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, shouldFuse);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
