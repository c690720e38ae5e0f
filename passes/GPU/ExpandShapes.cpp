//===- ExpandShapes.cpp - expansions expand-strided-metadata cannot take --===//
//
// Upstream expand-strided-metadata derives an expanded group's sizes from
// the source size and the group's static sizes, so it takes at most one
// dynamic size a group; with two (a convolution's [N, O, H * W] result
// viewed as [N, O, H, W] over a symbolic image) it crashes. The op's own
// output_shape holds every size: the view is the source's base, offset and
// strides reinterpreted, as the upstream pass would write it.
//
//===----------------------------------------------------------------------===//

#include "magi/GPU/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace magi {
#define GEN_PASS_DEF_EXPANDSHAPESTOCASTS
#include "magi/GPU/Passes.h.inc"
} // namespace magi

using namespace mlir;

namespace {

bool hasSeveralDynamicSizesInAGroup(memref::ExpandShapeOp op) {
  MemRefType type = op.getResultType();
  return llvm::any_of(op.getReassociationIndices(), [&](const ReassociationIndices &group) {
    return llvm::count_if(group, [&](int64_t d) { return type.isDynamicDim(d); }) > 1;
  });
}

struct ExpandShapeAsCast : OpRewritePattern<memref::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::ExpandShapeOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasSeveralDynamicSizesInAGroup(op))
      return rewriter.notifyMatchFailure(op, "upstream expands it");
    Location loc = op.getLoc();
    auto source = memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getSrc());
    SmallVector<OpFoldResult> sourceStrides = source.getConstifiedMixedStrides();
    SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
    SmallVector<OpFoldResult> strides(sizes.size());
    AffineExpr s0, s1;
    bindSymbols(rewriter.getContext(), s0, s1);
    // Within a group, each dimension strides over the ones after it; the
    // last keeps the source dimension's stride.
    for (auto [sourceDim, group] : llvm::enumerate(op.getReassociationIndices())) {
      OpFoldResult stride = sourceStrides[sourceDim];
      for (int64_t i = static_cast<int64_t>(group.size()) - 1; i >= 0; --i) {
        strides[group[i]] = stride;
        if (i > 0)
          stride = affine::makeComposedFoldedAffineApply(rewriter, loc, s0 * s1,
                                                         {stride, sizes[group[i]]});
      }
    }
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, op.getResultType(), source.getBaseBuffer(), source.getConstifiedMixedOffset(),
        sizes, strides);
    return success();
  }
};

class ExpandShapesToCastsPass
    : public magi::impl::ExpandShapesToCastsBase<ExpandShapesToCastsPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandShapeAsCast>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
