//===- LowerToLinalg.cpp - magi ops to linalg on tensors ------------------===//
//
// The first step of the lower phase: every magi op of a piece becomes linalg
// ops on tensors (value semantics), with tensor, arith and math ops; symbolic
// integers become arith on `index`. The patterns live in one file per op
// family (LowerElementwise, LowerReductions, LowerMatmul, LowerAttention,
// LowerShapes, LowerIndexing); this file gathers them and runs them as a
// dialect conversion.
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalgCommon.h"

#include "magi/Conversion/Passes.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace magi {
#define GEN_PASS_DEF_LOWERTOLINALG
#include "magi/Conversion/Passes.h.inc"
} // namespace magi

using namespace mlir;
using namespace magi;

void magi::populateMagiToLinalgPatterns(RewritePatternSet &patterns,
                                        const MagiToLinalgPatternOptions &options) {
  lower::populateElementwisePatterns(patterns);
  lower::populateReductionPatterns(patterns);
  lower::populateMatmulPatterns(patterns);
  lower::populateConvolutionPatterns(patterns);
  lower::populateAttentionPatterns(patterns, options.tiledAttention);
  lower::populateShapePatterns(patterns);
  lower::populateIndexingPatterns(patterns);
}

void magi::configureMagiToLinalgTarget(ConversionTarget &target, bool magiIllegal) {
  if (magiIllegal)
    target.addIllegalDialect<MagiDialect>();
  // The kernel-level op the lowering itself forms.
  target.addLegalOp<TiledAttentionOp>();
  target.markUnknownOpDynamicallyLegal([](Operation *op) -> std::optional<bool> {
    if (isa_and_nonnull<MagiDialect>(op->getDialect()))
      return std::nullopt; // attempted, may stay
    return true;
  });
}

namespace {

class LowerToLinalgPass
    : public magi::impl::LowerToLinalgBase<LowerToLinalgPass> {
public:
  using LowerToLinalgBase::LowerToLinalgBase;

  LogicalResult initialize(MLIRContext *ctx) override {
    RewritePatternSet set(ctx);
    MagiToLinalgPatternOptions options;
    options.tiledAttention = tiledAttention;
    populateMagiToLinalgPatterns(set, options);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // The split graph only calls the pieces; it stays in the magi dialect
    // (its calls are what the runtime's plan follows).
    if (func->hasAttr("magi.split"))
      return;
    // Unsigned tensors (torch.uint8) have no lowering yet: arith takes
    // signless integers only, and the patterns do not yet choose unsigned
    // comparisons, divisions and extensions. Named at the first op, before
    // any rewrite produces invalid arith.
    WalkResult unsignedFound = func.walk([&](Operation *op) {
      if (!isa_and_nonnull<MagiDialect>(op->getDialect()))
        return WalkResult::advance();
      for (Type type : llvm::concat<Type>(op->getOperandTypes(),
                                          op->getResultTypes()))
        if (auto tensor = dyn_cast<RankedTensorType>(type))
          if (tensor.getElementType().isUnsignedInteger()) {
            op->emitOpError() << "has an unsigned integer tensor (" << tensor
                              << "): the lowering does not support unsigned "
                                 "dtypes (torch.uint8) yet";
            return WalkResult::interrupt();
          }
      return WalkResult::advance();
    });
    if (unsignedFound.wasInterrupted())
      return signalPassFailure();
    // The piece arguments an in-place mutation writes into are the only
    // writable ones (magi-bufferize makes the others read-only).
    func.walk([&](Operation *op) {
      Value self;
      if (auto put = dyn_cast<IndexPutOp>(op); put && put.getInPlace())
        self = put.getSelf();
      else if (auto copy = dyn_cast<CopyOp>(op); copy && copy.getInPlace())
        self = copy.getSelf();
      auto arg = dyn_cast_or_null<BlockArgument>(self);
      if (arg && arg.getOwner()->getParentOp() == func)
        func.setArgAttr(arg.getArgNumber(),
                        bufferization::BufferizationDialect::kWritableAttrName,
                        BoolAttr::get(&getContext(), true));
    });
    // magi ops of unknown legality: the conversion attempts each and lets
    // the ones no pattern lowers stay, so that they can all be named below
    // (with the magi dialect illegal, it would stop at the first).
    ConversionTarget target(getContext());
    configureMagiToLinalgTarget(target, /*magiIllegal=*/false);
    // Only rewrite, no folding of the magi ops: the IR after the pass is the
    // input with the converted ops replaced.
    ConversionConfig config;
    config.foldingMode = DialectConversionFoldingMode::Never;
    if (failed(applyPartialConversion(func, target, patterns, config)))
      return signalPassFailure();
    // What the conversion left dead (a symbol whose bindings went) goes, and
    // the constants the patterns made are hoisted and shared, as after a
    // greedy rewrite; still no folding.
    GreedyRewriteConfig cleanup;
    cleanup.enableFolding(false);
    cleanup.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(func, FrozenRewritePatternSet(), cleanup)))
      return signalPassFailure();
    if (!failOnUnconverted)
      return;
    bool failedAny = false;
    func.walk([&](Operation *op) {
      if (!isa_and_nonnull<MagiDialect>(op->getDialect()) ||
          isa<TiledAttentionOp>(op))
        return;
      op->emitError() << "'" << op->getName() << "' in piece @"
                      << func.getSymName() << " was not lowered to linalg";
      failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }

private:
  FrozenRewritePatternSet patterns;
};

} // namespace

void magi::addLowerToLinalgPasses(OpPassManager &pm, bool tiledAttention) {
  OpPassManager &lower = pm.nest<func::FuncOp>();
  LowerToLinalgOptions toLinalg;
  toLinalg.failOnUnconverted = true;
  toLinalg.tiledAttention = tiledAttention;
  lower.addPass(createLowerToLinalg(toLinalg));
  lower.addPass(createCanonicalizerPass());
  lower.addPass(createCSEPass());
  lower.addPass(createFuseElementwise());
  lower.addPass(createCanonicalizerPass());
}
