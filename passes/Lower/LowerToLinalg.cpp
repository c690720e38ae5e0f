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
#include "mlir/IR/IRMapping.h"
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

bool isUnsignedTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isUnsignedInteger();
}

// Every magi op but `to_copy` that reads or makes a uint8 tensor computes
// in i16 instead: its uint8 operands converted up, its uint8 results
// converted back down (and a uint8 dtype attribute made i16). Exact: 0..255
// fit in i16 as non-negative values, so comparisons, division and shifts
// keep their unsigned meaning, and a uint8 result that wraps is the low
// byte of the i16 one. Afterwards uint8 tensors are only the function's
// arguments and results and what `to_copy` converts from or to.
LogicalResult computeUnsignedInWiderIntegers(func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (!isa_and_nonnull<MagiDialect>(op->getDialect()) || isa<ToCopyOp>(op) ||
        op->getNumResults() == 0)
      return;
    if (llvm::any_of(op->getOperandTypes(), isUnsignedTensor) ||
        llvm::any_of(op->getResultTypes(), isUnsignedTensor))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    if (op->getNumRegions() != 0)
      return op->emitOpError()
             << "has a uint8 tensor and regions: the lowering computes uint8 "
                "in i16 for ops without regions only";
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto converted = [&](Value v, Type element) -> Value {
      auto type = cast<RankedTensorType>(v.getType()).clone(element);
      return ToCopyOp::create(b, loc, type, v, TypeAttr::get(element));
    };
    Type i16 = b.getIntegerType(16);
    IRMapping widened;
    for (Value operand : op->getOperands())
      if (isUnsignedTensor(operand.getType()))
        widened.map(operand, converted(operand, i16));
    Operation *wide = b.clone(*op, widened);
    // An in-place write lands in the i16 copy: the result is written back
    // as any other mutated input's.
    wide->removeAttr("in_place");
    for (NamedAttribute attr : op->getAttrs())
      if (auto type = dyn_cast<TypeAttr>(attr.getValue());
          type && type.getValue().isUnsignedInteger())
        wide->setAttr(attr.getName(), TypeAttr::get(i16));
    SmallVector<Value> results;
    for (auto [narrow, result] :
         llvm::zip(op->getResults(), wide->getResults())) {
      auto type = cast<RankedTensorType>(narrow.getType());
      if (!type.getElementType().isUnsignedInteger()) {
        results.push_back(result);
        continue;
      }
      result.setType(type.clone(i16));
      results.push_back(converted(result, type.getElementType()));
    }
    op->replaceAllUsesWith(results);
    op->erase();
  }
  return success();
}

// Every uint8 tensor becomes an i8 one (the same bytes), in the function's
// signature too. A `to_copy` from uint8 is marked first, so that its
// lowering zero-extends; one to uint8 still names uint8 in its dtype.
void retypeUnsignedAsSignless(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  auto signless = [&](Type type) -> Type {
    if (!isUnsignedTensor(type))
      return type;
    auto tensor = cast<RankedTensorType>(type);
    return tensor.clone(IntegerType::get(
        ctx, tensor.getElementType().getIntOrFloatBitWidth()));
  };
  func.walk([&](ToCopyOp copy) {
    if (isUnsignedTensor(copy.getSelf().getType()))
      copy->setAttr(lower::kUnsignedSourceAttrName, UnitAttr::get(ctx));
  });
  func.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(signless(arg.getType()));
    for (OpResult result : op->getResults())
      result.setType(signless(result.getType()));
  });
  FunctionType type = func.getFunctionType();
  func.setType(FunctionType::get(
      ctx, llvm::map_to_vector(type.getInputs(), signless),
      llvm::map_to_vector(type.getResults(), signless)));
}

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
    // Unsigned tensors (torch.uint8): arith takes signless integers only.
    if (failed(computeUnsignedInWiderIntegers(func)))
      return signalPassFailure();
    retypeUnsignedAsSignless(func);
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
