//===- LowerConvolution.cpp - Convolutions and batch norm -----------------===//
//
// The ops of convolutional networks.
//
// magi.convolution as one generic over [N, G, O/G, *out] x [C/G, *kernel]:
// the input padded first (a magi.constant_pad_nd, lowered in turn) and its
// channels split into groups, the weight split likewise; products
// accumulate in opmath (f32 for half types) from the bias or zero, one
// elementwise generic rounds, and the groups collapse back into channels.
//
// magi.batch_norm as one elementwise generic reading the per-channel
// statistics, weight and bias through a map of dimension 1, in opmath.
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalgCommon.h"

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace magi;
using namespace magi::lower;

namespace {

class ConvolutionPattern : public OpRewritePattern<ConvolutionOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvolutionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value input = op.getInput(), weight = op.getWeight();
    auto inType = cast<RankedTensorType>(input.getType());
    auto weightType = cast<RankedTensorType>(weight.getType());
    auto resType = cast<RankedTensorType>(op.getType());
    int64_t rank = inType.getRank(), spatial = rank - 2;
    auto groups = static_cast<int64_t>(op.getGroups());
    // Channels and kernel sizes fix the loop structure: they must be known.
    for (int64_t d = 0; d < rank; ++d)
      if (weightType.isDynamicDim(d))
        return rewriter.notifyMatchFailure(op, "a symbolic weight size");
    if (inType.isDynamicDim(1))
      return rewriter.notifyMatchFailure(op, "a symbolic channel count");
    int64_t perGroup = weightType.getDimSize(1);
    int64_t outPerGroup = weightType.getDimSize(0) / groups;
    ArrayRef<int64_t> stride = op.getStride(), padding = op.getPadding(),
                      dilation = op.getDilation();
    Type el = resType.getElementType(), acc = opmath(el);

    // Padding: pairs from the last dimension, as constant_pad_nd takes them.
    if (llvm::any_of(padding, [](int64_t p) { return p != 0; })) {
      SmallVector<int64_t> pads;
      SmallVector<int64_t> paddedShape(inType.getShape());
      for (int64_t d = spatial - 1; d >= 0; --d) {
        pads.append({padding[d], padding[d]});
        if (!inType.isDynamicDim(2 + d))
          paddedShape[2 + d] += 2 * padding[d];
      }
      input = ConstantPadNdOp::create(
          rewriter, loc, RankedTensorType::get(paddedShape, el), input,
          ValueRange{}, rewriter.getDenseI64ArrayAttr(pads),
          rewriter.getF64FloatAttr(0.0));
    }

    auto expand = [&](Value src, ArrayRef<ReassociationIndices> groups,
                      ArrayRef<OpFoldResult> sizes) -> Value {
      SmallVector<int64_t> shape;
      for (OpFoldResult size : sizes)
        shape.push_back(
            getConstantIntValue(size).value_or(ShapedType::kDynamic));
      return tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(shape, el), src, groups, sizes);
    };

    // [N, C, *in] -> [N, G, C/G, *in]; [O, C/G, *k] -> [G, O/G, C/G, *k].
    SmallVector<OpFoldResult> inSizes =
        tensor::getMixedSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> groupedInSizes{inSizes[0],
                                             rewriter.getIndexAttr(groups),
                                             rewriter.getIndexAttr(perGroup)};
    groupedInSizes.append(inSizes.begin() + 2, inSizes.end());
    SmallVector<ReassociationIndices> splitChannels{{0}, {1, 2}};
    for (int64_t d = 0; d < spatial; ++d)
      splitChannels.push_back({3 + d});
    Value groupedIn = expand(input, splitChannels, groupedInSizes);
    SmallVector<OpFoldResult> groupedWeightSizes{
        rewriter.getIndexAttr(groups), rewriter.getIndexAttr(outPerGroup),
        rewriter.getIndexAttr(perGroup)};
    SmallVector<ReassociationIndices> splitOut{{0, 1}, {2}};
    for (int64_t d = 0; d < spatial; ++d) {
      groupedWeightSizes.push_back(
          rewriter.getIndexAttr(weightType.getDimSize(2 + d)));
      splitOut.push_back({3 + d});
    }
    Value groupedWeight = expand(weight, splitOut, groupedWeightSizes);

    // Output sizes: (padded - window) / stride + 1.
    SmallVector<OpFoldResult> outSizes{inSizes[0],
                                       rewriter.getIndexAttr(groups),
                                       rewriter.getIndexAttr(outPerGroup)};
    for (int64_t d = 0; d < spatial; ++d) {
      int64_t window = dilation[d] * (weightType.getDimSize(2 + d) - 1) + 1;
      if (!resType.isDynamicDim(2 + d)) {
        outSizes.push_back(rewriter.getIndexAttr(resType.getDimSize(2 + d)));
        continue;
      }
      Value padded = toIndexValue(rewriter, loc, inSizes[2 + d]);
      Value span = arith::SubIOp::create(
          rewriter, loc, padded,
          arith::ConstantIndexOp::create(rewriter, loc, window));
      Value steps = arith::DivSIOp::create(
          rewriter, loc, span,
          arith::ConstantIndexOp::create(rewriter, loc, stride[d]));
      outSizes.push_back(
          addIndex(rewriter, loc, steps, rewriter.getIndexAttr(1)));
    }

    // The accumulator starts from the bias (per output channel) or zero.
    Value init;
    int64_t outRank = 3 + spatial;
    if (Value bias = op.getBias()) {
      Value groupedBias = expand(
          bias, {{0, 1}},
          {rewriter.getIndexAttr(groups), rewriter.getIndexAttr(outPerGroup)});
      AffineMap biasMap = AffineMap::get(
          outRank, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx)},
          ctx);
      init = buildParallelGeneric(
          rewriter, loc, emptyOfSizes(rewriter, loc, outSizes, acc),
          groupedBias, biasMap, [&](OpBuilder &b, Location l, ValueRange a) {
            return convertScalar(b, l, a[0], acc);
          });
    } else {
      init = filledOfSizes(rewriter, loc, outSizes,
                           typedConst(rewriter, loc, acc, 0.0));
    }

    // Loops: n, g, o, out_d..., c, k_d...
    int64_t loops = outRank + 1 + spatial;
    auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    AffineExpr channel = dim(outRank);
    SmallVector<AffineExpr> inExprs{dim(0), dim(1), channel};
    SmallVector<AffineExpr> weightExprs{dim(1), dim(2), channel};
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < outRank; ++i)
      outExprs.push_back(dim(i));
    for (int64_t d = 0; d < spatial; ++d) {
      AffineExpr out = dim(3 + d), tap = dim(outRank + 1 + d);
      inExprs.push_back(out * stride[d] + tap * dilation[d]);
      weightExprs.push_back(tap);
    }
    SmallVector<AffineMap> maps{AffineMap::get(loops, 0, inExprs, ctx),
                                AffineMap::get(loops, 0, weightExprs, ctx),
                                AffineMap::get(loops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(outRank,
                                               utils::IteratorType::parallel);
    iterators.append(1 + spatial, utils::IteratorType::reduction);
    Value sum =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()},
            ValueRange{groupedIn, groupedWeight}, ValueRange{init}, maps,
            iterators,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value x = convertScalar(b, l, args[0], acc);
              Value w = convertScalar(b, l, args[1], acc);
              Value product = arith::MulFOp::create(b, l, x, w);
              linalg::YieldOp::create(
                  b, l, Value(arith::AddFOp::create(b, l, args[2], product)));
            })
            .getResult(0);

    // Round once, then [N, G, O/G, *out] -> [N, O, *out].
    Value result = convertElements(rewriter, loc, sum, el);
    SmallVector<ReassociationIndices> joinGroups{{0}, {1, 2}};
    for (int64_t d = 0; d < spatial; ++d)
      joinGroups.push_back({3 + d});
    result = tensor::CollapseShapeOp::create(rewriter, loc, result, joinGroups);
    return replaceWithType(rewriter, op, result, resType);
  }
};

class BatchNormPattern : public OpRewritePattern<BatchNormOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto resType = cast<RankedTensorType>(op.getType());
    int64_t rank = resType.getRank();
    Type el = resType.getElementType(), acc = opmath(el);
    SmallVector<Value> inputs{op.getInput(), op.getRunningMean(),
                              op.getRunningVar()};
    if (op.getWeight())
      inputs.push_back(op.getWeight());
    if (op.getBias())
      inputs.push_back(op.getBias());
    AffineMap channel = AffineMap::get(rank, 0, getAffineDimExpr(1, ctx), ctx);
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(rank)};
    maps.append(inputs.size() - 1, channel);
    FailureOr<Value> init = emptyLike(rewriter, loc, resType, op.getInput());
    if (failed(init))
      return failure();
    double eps = op.getEps().convertToDouble();
    bool hasWeight = static_cast<bool>(op.getWeight());
    Value result = buildParallelGeneric(
        rewriter, loc, *init, inputs, maps,
        [&](OpBuilder &b, Location l, ValueRange args) {
          auto get = [&](int64_t i) {
            return convertScalar(b, l, args[i], acc);
          };
          // invstd = 1 / sqrt(var + eps), as PyTorch's kernels compute it.
          Value var =
              arith::AddFOp::create(b, l, get(2), floatConst(b, l, acc, eps));
          Value invstd = arith::DivFOp::create(b, l, floatConst(b, l, acc, 1.0),
                                               math::SqrtOp::create(b, l, var));
          Value y = arith::MulFOp::create(
              b, l, arith::SubFOp::create(b, l, get(0), get(1)), invstd);
          int64_t next = 3;
          if (hasWeight)
            y = arith::MulFOp::create(b, l, y, get(next++));
          if (op.getBias())
            y = arith::AddFOp::create(b, l, y, get(next));
          return convertScalar(b, l, y, el);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void magi::lower::populateConvolutionPatterns(RewritePatternSet &patterns) {
  patterns.add<ConvolutionPattern, BatchNormPattern>(patterns.getContext());
}
