//===- LowerReductions.cpp - Reductions, scans, softmax, normalization ----===//
//
// Reductions become a linalg.generic with reduction iterators over a filled
// init; half types accumulate in f32 and round once. The fused
// normalizations are a reduction or two (row statistics) and one elementwise
// generic; softmax is two reductions (max, sum) and one elementwise generic.
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalgCommon.h"

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Dialect/Magi/IR/TypeInference.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace magi;
using namespace magi::lower;

namespace {

class ReductionPattern : public RewritePattern {
public:
  ReductionPattern(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<SumOp, MeanOp, AmaxOp, AminOp, AnyOp, AllOp, ProdOp>(op))
      return failure();
    Value input = op->getOperand(0);
    auto inType = dyn_cast<RankedTensorType>(input.getType());
    auto resType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!inType || !resType)
      return failure();
    Location loc = op->getLoc();
    MLIRContext *ctx = op->getContext();
    int64_t rank = inType.getRank();
    auto dimsAttr = op->getAttrOfType<DenseI64ArrayAttr>("dims");
    auto keepAttr = op->getAttrOfType<BoolAttr>("keepdim");
    bool keepdim = keepAttr && keepAttr.getValue();

    SmallVector<bool> reduced(rank, !dimsAttr || dimsAttr.empty());
    if (dimsAttr)
      for (int64_t d : dimsAttr.asArrayRef()) {
        FailureOr<int64_t> nd = normalizedDim(rewriter, op, d, rank);
        if (failed(nd))
          return failure();
        if (rank > 0)
          reduced[*nd] = true;
      }

    Type resEl = resType.getElementType();
    Type acc = opmath(resEl);
    bool isFloat = isa<FloatType>(acc);

    // The reduced shape without the kept unit dimensions.
    SmallVector<int64_t> outShape;
    SmallVector<Value> dynSizes;
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iters;
    for (int64_t d = 0; d < rank; ++d) {
      iters.push_back(reduced[d] ? utils::IteratorType::reduction
                                 : utils::IteratorType::parallel);
      if (reduced[d])
        continue;
      outShape.push_back(inType.getDimSize(d));
      outExprs.push_back(getAffineDimExpr(d, ctx));
      if (inType.isDynamicDim(d))
        dynSizes.push_back(tensor::DimOp::create(rewriter, loc, input, d));
    }
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, outShape, acc, dynSizes);
    // amax starts from -inf (the smallest integer; false for bools, which
    // reduce with `or`), amin from +inf (the largest integer; true for
    // bools, which reduce with `and`), sums from 0, products from 1; `any`
    // is `or` and `all` is `and` of the values as bools.
    bool isMax = isa<AmaxOp>(op), isMin = isa<AminOp>(op);
    bool isProd = isa<ProdOp>(op);
    bool isBool = acc.isInteger(1);
    bool isAnd = isBool && (isMin || isa<AllOp>(op) || isProd);
    Value initScalar;
    unsigned width = acc.getIntOrFloatBitWidth();
    if (isFloat)
      initScalar = floatConst(rewriter, loc, acc,
                              isMax    ? -INFINITY
                              : isMin  ? INFINITY
                              : isProd ? 1.0
                                       : 0.0);
    else if (isBool)
      initScalar = intConst(rewriter, loc, acc, isAnd ? 1 : 0);
    else
      initScalar = intConst(rewriter, loc, acc,
                            isMax    ? llvm::minIntN(width)
                            : isMin  ? llvm::maxIntN(width)
                            : isProd ? 1
                                     : 0);
    Value init =
        linalg::FillOp::create(rewriter, loc, initScalar, empty).getResult(0);

    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank),
                                   AffineMap::get(rank, 0, outExprs, ctx)};
    auto outType = RankedTensorType::get(outShape, acc);
    auto reduce = linalg::GenericOp::create(
        rewriter, loc, TypeRange{outType}, ValueRange{input}, ValueRange{init},
        maps, iters, [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = convertScalar(b, l, args[0], acc);
          Value r;
          if (isBool)
            r = isAnd ? Value(arith::AndIOp::create(b, l, x, args[1]))
                      : Value(arith::OrIOp::create(b, l, x, args[1]));
          else if (isMax)
            r = isFloat ? Value(arith::MaximumFOp::create(b, l, x, args[1]))
                        : Value(arith::MaxSIOp::create(b, l, x, args[1]));
          else if (isMin)
            r = isFloat ? Value(arith::MinimumFOp::create(b, l, x, args[1]))
                        : Value(arith::MinSIOp::create(b, l, x, args[1]));
          else if (isProd)
            r = isFloat ? Value(arith::MulFOp::create(b, l, x, args[1]))
                        : Value(arith::MulIOp::create(b, l, x, args[1]));
          else
            r = isFloat ? Value(arith::AddFOp::create(b, l, x, args[1]))
                        : Value(arith::AddIOp::create(b, l, x, args[1]));
          linalg::YieldOp::create(b, l, r);
        });
    Value result = reduce.getResult(0);

    // mean divides by the number of elements reduced; half types truncate
    // once, after.
    bool isMean = isa<MeanOp>(op);
    if (isMean || acc != resEl) {
      Value count;
      if (isMean) {
        Value n = arith::ConstantIndexOp::create(rewriter, loc, 1);
        for (int64_t d = 0; d < rank; ++d)
          if (reduced[d])
            n = arith::MulIOp::create(
                rewriter, loc, n, tensor::DimOp::create(rewriter, loc, input, d));
        count = n;
      }
      int64_t outRank = outShape.size();
      auto finalType = RankedTensorType::get(outShape, resEl);
      Value finalEmpty =
          tensor::EmptyOp::create(rewriter, loc, outShape, resEl, dynSizes);
      AffineMap id = rewriter.getMultiDimIdentityMap(outRank);
      result = linalg::GenericOp::create(
                   rewriter, loc, TypeRange{finalType}, ValueRange{result},
                   ValueRange{finalEmpty}, ArrayRef<AffineMap>{id, id},
                   SmallVector<utils::IteratorType>(
                       outRank, utils::IteratorType::parallel),
                   [&](OpBuilder &b, Location l, ValueRange args) {
                     Value v = args[0];
                     if (count)
                       v = arith::DivFOp::create(b, l, v,
                                               convertScalar(b, l, count, acc));
                     linalg::YieldOp::create(b, l,
                                             convertScalar(b, l, v, resEl));
                   })
                   .getResult(0);
    }

    if (keepdim && rank > 0) {
      SmallVector<bool> isUnit(reduced.begin(), reduced.end());
      result = tensor::ExpandShapeOp::create(rewriter, loc, resType, result,
                                             unitDimGroups(isUnit));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};


//===----------------------------------------------------------------------===//
// Row statistics
//===----------------------------------------------------------------------===//

// Reductions over the trailing `numReduced` dimensions of `input` (the
// "rows" of a normalization or a softmax along the last dimension), or over
// one dimension `dim` when given.
struct RowReduction {
  Value input;
  int64_t rank;
  SmallVector<bool> reduced;
  // The sizes of the statistics (input sizes without the reduced dims).
  SmallVector<OpFoldResult> statSizes;

  RowReduction(OpBuilder &b, Location loc, Value input,
               ArrayRef<bool> reducedDims)
      : input(input), reduced(reducedDims) {
    rank = cast<RankedTensorType>(input.getType()).getRank();
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d])
        statSizes.push_back(sizes[d]);
  }

  // The map from the input's loops to a statistic.
  AffineMap statMap(MLIRContext *ctx) const {
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d])
        exprs.push_back(getAffineDimExpr(d, ctx));
    return AffineMap::get(rank, 0, exprs, ctx);
  }

  SmallVector<utils::IteratorType> iterators() const {
    SmallVector<utils::IteratorType> iters;
    for (bool r : reduced)
      iters.push_back(r ? utils::IteratorType::reduction
                        : utils::IteratorType::parallel);
    return iters;
  }

  // One reduction generic over the input (and `extra` statistics, read per
  // row) into accumulators starting at `inits`; `combine(args)` gets the
  // input element, the extra statistics and the accumulators, and returns
  // the new accumulators.
  SmallVector<Value>
  reduce(OpBuilder &b, Location loc, ValueRange extra, ArrayRef<Value> inits,
         function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
             combine) const {
    MLIRContext *ctx = b.getContext();
    SmallVector<Value> outs;
    SmallVector<Type> types;
    for (Value init : inits) {
      outs.push_back(filledOfSizes(b, loc, statSizes, init));
      types.push_back(outs.back().getType());
    }
    SmallVector<Value> ins = {input};
    ins.append(extra.begin(), extra.end());
    SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
    maps.append(extra.size() + inits.size(), statMap(ctx));
    auto generic = linalg::GenericOp::create(
        b, loc, types, ins, outs, maps, iterators(),
        [&](OpBuilder &nb, Location l, ValueRange args) {
          linalg::YieldOp::create(nb, l, combine(nb, l, args));
        });
    return SmallVector<Value>(generic.getResults());
  }

  // The number of elements in a row, as an index.
  Value rowSize(OpBuilder &b, Location loc) const {
    OpFoldResult n = b.getIndexAttr(1);
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
    for (int64_t d = 0; d < rank; ++d)
      if (reduced[d])
        n = mulIndex(b, loc, n, sizes[d]);
    return toIndexValue(b, loc, n);
  }

  // Each row's sum and its sum of squares centered on the mean (sum /
  // `count`), in `ct`: two reductions, as the interpreter's two passes.
  std::pair<Value, Value> sumAndCenteredSquares(OpBuilder &b, Location loc,
                                                Type ct, Value count) const {
    Value zero = floatConst(b, loc, ct, 0.0);
    Value sum = reduce(b, loc, {}, {zero},
                       [&](OpBuilder &nb, Location l, ValueRange a) {
                         Value x = convertScalar(nb, l, a[0], ct);
                         return SmallVector<Value>{
                             arith::AddFOp::create(nb, l, x, a[1])};
                       })
                    .front();
    Value squares =
        reduce(b, loc, {sum}, {zero},
               [&](OpBuilder &nb, Location l, ValueRange a) {
                 Value mean = arith::DivFOp::create(
                     nb, l, a[1], convertScalar(nb, l, count, ct));
                 Value c = arith::SubFOp::create(
                     nb, l, convertScalar(nb, l, a[0], ct), mean);
                 Value sq = arith::MulFOp::create(nb, l, c, c);
                 return SmallVector<Value>{
                     arith::AddFOp::create(nb, l, sq, a[2])};
               })
            .front();
    return {sum, squares};
  }
};

SmallVector<bool> trailingDims(int64_t rank, int64_t count) {
  SmallVector<bool> reduced(rank, false);
  for (int64_t d = rank - count; d < rank; ++d)
    reduced[d] = true;
  return reduced;
}

// The map that reads a normalization weight (the trailing `ndim` dims).
AffineMap trailingMap(int64_t rank, int64_t ndim, MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = rank - ndim; d < rank; ++d)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

// rms_norm: y = round(x * rsqrt(mean(x^2) + eps), input dtype), then y *
// weight in the result's opmath: one reduction (sum of squares in the
// compute dtype) and one elementwise generic.
class RmsNormPattern : public OpRewritePattern<RmsNormOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(RmsNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    auto resType = cast<RankedTensorType>(op.getType());
    int64_t rank = inType.getRank();
    if (rank == 0)
      return rewriter.notifyMatchFailure(op, "0-d input");
    Type inEl = inType.getElementType(), resEl = resType.getElementType();
    Type ct = op.getComputeDtype().value_or(rewriter.getF32Type());
    double eps = op.getEps().convertToDouble();
    RowReduction rows(rewriter, loc, input, trailingDims(rank, 1));
    Value squares =
        rows.reduce(rewriter, loc, {}, {floatConst(rewriter, loc, ct, 0.0)},
                    [&](OpBuilder &b, Location l, ValueRange a) {
                      Value x = convertScalar(b, l, a[0], ct);
                      Value sq = arith::MulFOp::create(b, l, x, x);
                      return SmallVector<Value>{
                          arith::AddFOp::create(b, l, sq, a[1])};
                    })
            .front();
    Value width = rows.rowSize(rewriter, loc);

    Value weight = op.getWeight();
    SmallVector<Value> ins = {input, squares};
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank),
                                   rows.statMap(op.getContext())};
    if (weight) {
      ins.push_back(weight);
      maps.push_back(trailingMap(rank, 1, op.getContext()));
    }
    Value init = emptyOfSizes(rewriter, loc,
                              tensor::getMixedSizes(rewriter, loc, input), resEl);
    Type resCt = opmath(resEl);
    Value result = buildParallelGeneric(
        rewriter, loc, init, ins, maps,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = convertScalar(b, l, a[0], ct);
          Value meanSq = arith::DivFOp::create(b, l, a[1],
                                               convertScalar(b, l, width, ct));
          Value inv = arith::DivFOp::create(
              b, l, floatConst(b, l, ct, 1.0),
              math::SqrtOp::create(b, l,
                                   arith::AddFOp::create(
                                       b, l, meanSq, floatConst(b, l, ct, eps))));
          Value y = convertScalar(b, l, arith::MulFOp::create(b, l, x, inv), inEl);
          if (!weight)
            return convertScalar(b, l, y, resEl);
          Value p = arith::MulFOp::create(b, l, convertScalar(b, l, y, resCt),
                                          convertScalar(b, l, a[2], resCt));
          return convertScalar(b, l, p, resEl);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

// layer_norm: the mean and the centered sum of squares (two reductions, in
// f32 for half types, as the interpreter's two passes), then one elementwise
// generic (x - mean) * rsqrt(var + eps) * weight + bias rounded once;
// native_layer_norm also gives the mean and 1 / sqrt(var + eps) per row
// (one generic over the statistics, the normalized dimensions kept as 1).
template <typename LayerNormOpT, bool withStats>
class LayerNormPattern : public OpRewritePattern<LayerNormOpT> {
public:
  using OpRewritePattern<LayerNormOpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(LayerNormOpT op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    auto resType = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t rank = inType.getRank();
    auto ndim = static_cast<int64_t>(op.getNormalizedNdim());
    if (ndim < 1 || ndim > rank)
      return rewriter.notifyMatchFailure(op, "normalized_ndim out of range");
    Type resEl = resType.getElementType();
    Type ct = opmath(inType.getElementType());
    double eps = op.getEps().convertToDouble();
    MLIRContext *ctx = op.getContext();
    RowReduction rows(rewriter, loc, input, trailingDims(rank, ndim));
    Value width = rows.rowSize(rewriter, loc);
    auto mean = [&](OpBuilder &b, Location l, Value sum) {
      return arith::DivFOp::create(b, l, sum, convertScalar(b, l, width, ct));
    };
    auto [sum, squares] = rows.sumAndCenteredSquares(rewriter, loc, ct, width);

    SmallVector<Value> ins = {input, sum, squares};
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank),
                                   rows.statMap(ctx), rows.statMap(ctx)};
    int weightAt = -1, biasAt = -1;
    for (auto [param, at] : {std::pair{op.getWeight(), &weightAt},
                             std::pair{op.getBias(), &biasAt}}) {
      if (!param)
        continue;
      *at = ins.size();
      ins.push_back(param);
      maps.push_back(trailingMap(rank, ndim, ctx));
    }
    Value init = emptyOfSizes(rewriter, loc,
                              tensor::getMixedSizes(rewriter, loc, input), resEl);
    Value result = buildParallelGeneric(
        rewriter, loc, init, ins, maps,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value variance = mean(b, l, a[2]);
          Value inv = arith::DivFOp::create(
              b, l, floatConst(b, l, ct, 1.0),
              math::SqrtOp::create(
                  b, l,
                  arith::AddFOp::create(b, l, variance,
                                        floatConst(b, l, ct, eps))));
          Value y = arith::MulFOp::create(
              b, l,
              arith::SubFOp::create(b, l, convertScalar(b, l, a[0], ct),
                                    mean(b, l, a[1])),
              inv);
          if (weightAt >= 0)
            y = arith::MulFOp::create(b, l, y,
                                      convertScalar(b, l, a[weightAt], ct));
          if (biasAt >= 0)
            y = arith::AddFOp::create(b, l, y,
                                      convertScalar(b, l, a[biasAt], ct));
          return convertScalar(b, l, y, resEl);
        });
    if (!withStats) {
      rewriter.replaceOp(op, result);
      return success();
    }
    // The statistics, reshaped to the input's rank with unit dimensions.
    auto statType = cast<RankedTensorType>(sum.getType());
    AffineMap id = rewriter.getMultiDimIdentityMap(statType.getRank());
    SmallVector<Value> stats = {result};
    for (int which = 1; which <= 2; ++which) {
      auto type = cast<RankedTensorType>(op->getResult(which).getType());
      Value init = emptyOfSizes(rewriter, loc, rows.statSizes,
                                type.getElementType());
      Value stat = buildParallelGeneric(
          rewriter, loc, init, {sum, squares}, {id, id},
          [&](OpBuilder &b, Location l, ValueRange a) {
            Value v = mean(b, l, a[0]);
            if (which == 2)
              v = arith::DivFOp::create(
                  b, l, floatConst(b, l, ct, 1.0),
                  math::SqrtOp::create(
                      b, l,
                      arith::AddFOp::create(b, l, mean(b, l, a[1]),
                                            floatConst(b, l, ct, eps))));
            return convertScalar(b, l, v, type.getElementType());
          });
      stats.push_back(tensor::ExpandShapeOp::create(
          rewriter, loc, type, stat, unitDimGroups(trailingDims(rank, ndim))));
    }
    rewriter.replaceOp(op, stats);
    return success();
  }
};

// var: the mean and the centered sum of squares over the reduced
// dimensions (two reductions, in f32 for half types, as the interpreter's
// two passes), divided by max(N - correction, 0) and rounded once;
// expand_shape for keepdim.
class VarPattern : public OpRewritePattern<VarOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(VarOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getSelf();
    auto inType = cast<RankedTensorType>(input.getType());
    auto resType = cast<RankedTensorType>(op.getType());
    int64_t rank = inType.getRank();
    std::optional<ArrayRef<int64_t>> dims;
    if (auto attr = op.getDimsAttr())
      dims = attr.asArrayRef();
    SmallVector<bool> reduced(rank, !dims || dims->empty());
    if (dims)
      for (int64_t d : *dims) {
        FailureOr<int64_t> nd = normalizedDim(rewriter, op, d, rank);
        if (failed(nd))
          return failure();
        if (rank > 0)
          reduced[*nd] = true;
      }
    Type resEl = resType.getElementType();
    Type ct = opmath(inType.getElementType());
    if (!isa<FloatType>(ct))
      return rewriter.notifyMatchFailure(op, "var of a non-float tensor");
    RowReduction rows(rewriter, loc, input, reduced);
    Value count = rows.rowSize(rewriter, loc);
    auto countAs = [&](OpBuilder &b, Location l) {
      return convertScalar(b, l, count, ct);
    };
    Value squares = rows.sumAndCenteredSquares(rewriter, loc, ct, count).second;
    double correction = op.getCorrection().convertToDouble();
    auto statType = cast<RankedTensorType>(squares.getType());
    Value init = emptyOfSizes(rewriter, loc, rows.statSizes, resEl);
    Value result = buildParallelGeneric(
        rewriter, loc, init, squares,
        rewriter.getMultiDimIdentityMap(statType.getRank()),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value divisor = arith::MaximumFOp::create(
              b, l,
              arith::SubFOp::create(b, l, countAs(b, l),
                                    floatConst(b, l, ct, correction)),
              floatConst(b, l, ct, 0.0));
          return convertScalar(b, l, arith::DivFOp::create(b, l, a[0], divisor),
                               resEl);
        });
    if (op.getKeepdim() && rank > 0)
      result = tensor::ExpandShapeOp::create(rewriter, loc, resType, result,
                                             unitDimGroups(reduced));
    rewriter.replaceOp(op, result);
    return success();
  }
};

// The extreme along `dim` of `input` and its index, as the interpreter
// finds them: one reduction generic in index order whose accumulators are
// the best value so far (in the input's dtype) and its index; an element
// replaces them when strictly better, or when it is the first NaN (a NaN
// stays). Ties keep the first index.
static std::pair<Value, Value> reduceExtreme(PatternRewriter &rewriter,
                                             Location loc, Value input,
                                             int64_t dim, bool largest,
                                             Type indexType) {
  auto type = cast<RankedTensorType>(input.getType());
  Type el = type.getElementType();
  Type ct = opmath(el);
  bool isFloat = isa<FloatType>(ct);
  bool isBool = el.isInteger(1);
  SmallVector<bool> reduced(type.getRank(), false);
  reduced[dim] = true;
  RowReduction rows(rewriter, loc, input, reduced);
  Value worst;
  if (isFloat)
    worst = convertScalar(
        rewriter, loc,
        floatConst(rewriter, loc, rewriter.getF64Type(),
                   largest ? -INFINITY : INFINITY),
        el);
  else if (isBool)
    worst = intConst(rewriter, loc, el, largest ? 0 : 1);
  else
    worst = intConst(rewriter, loc, el,
                     largest ? llvm::minIntN(el.getIntOrFloatBitWidth())
                             : llvm::maxIntN(el.getIntOrFloatBitWidth()));
  SmallVector<Value> results = rows.reduce(
      rewriter, loc, {}, {worst, intConst(rewriter, loc, indexType, 0)},
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value x = a[0], best = a[1], at = a[2];
        Value better;
        if (isFloat) {
          Value xc = convertScalar(b, l, x, ct), bc = convertScalar(b, l, best, ct);
          better = arith::CmpFOp::create(
              b, l, largest ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
              xc, bc);
          Value xNaN =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, xc, xc);
          Value bestNumber =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::ORD, bc, bc);
          better = arith::OrIOp::create(
              b, l, better, arith::AndIOp::create(b, l, xNaN, bestNumber));
        } else {
          using P = arith::CmpIPredicate;
          P p = isBool ? (largest ? P::ugt : P::ult) : (largest ? P::sgt : P::slt);
          better = arith::CmpIOp::create(b, l, p, x, best);
        }
        Value j = convertScalar(b, l, linalg::IndexOp::create(b, l, dim), indexType);
        return SmallVector<Value>{arith::SelectOp::create(b, l, better, x, best),
                                  arith::SelectOp::create(b, l, better, j, at)};
      });
  return {results[0], results[1]};
}

// The dimension an op of a tensor of `rank` works along (its `dim`,
// normalized); a match failure for a 0-d input or a dim out of range.
template <typename OpT>
static FailureOr<int64_t> dimOfNonScalar(PatternRewriter &rewriter, OpT op,
                                         int64_t rank) {
  if (rank == 0)
    return rewriter.notifyMatchFailure(op, "a 0-d input");
  return normalizedDim(rewriter, op, static_cast<int64_t>(op.getDim()), rank);
}

// max_dim / min_dim: values and indices along `dim`.
template <typename OpT, bool largest>
class ExtremeDimPattern : public OpRewritePattern<OpT> {
public:
  using OpRewritePattern<OpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    Value input = op.getSelf();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    FailureOr<int64_t> dim = dimOfNonScalar(rewriter, op, rank);
    if (failed(dim))
      return failure();
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    auto [values, indices] = reduceExtreme(rewriter, op.getLoc(), input, *dim,
                                           largest, indicesType.getElementType());
    if (op.getKeepdim()) {
      SmallVector<bool> unit(rank, false);
      unit[*dim] = true;
      values = tensor::ExpandShapeOp::create(rewriter, op.getLoc(),
                                             op.getValues().getType(), values,
                                             unitDimGroups(unit));
      indices = tensor::ExpandShapeOp::create(rewriter, op.getLoc(), indicesType,
                                              indices, unitDimGroups(unit));
    }
    rewriter.replaceOp(op, ValueRange{values, indices});
    return success();
  }
};

// argmax / argmin: the index along `dim`, or in the flattened tensor (a
// collapse_shape to one dimension first).
template <typename OpT, bool largest>
class ArgExtremePattern : public OpRewritePattern<OpT> {
public:
  using OpRewritePattern<OpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getSelf();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    auto resType = cast<RankedTensorType>(op.getType());
    int64_t dim = 0;
    if (std::optional<uint64_t> given = op.getDim()) {
      if (rank == 0)
        return rewriter.notifyMatchFailure(op, "a 0-d input with a dim");
      FailureOr<int64_t> nd =
          normalizedDim(rewriter, op, static_cast<int64_t>(*given), rank);
      if (failed(nd))
        return failure();
      dim = *nd;
    } else if (rank == 0) {
      // The only element: index 0.
      Value zero = intConst(rewriter, loc, resType.getElementType(), 0);
      rewriter.replaceOp(op, filledOfSizes(rewriter, loc, {}, zero));
      return success();
    } else if (rank != 1) {
      ReassociationIndices all;
      for (int64_t d = 0; d < rank; ++d)
        all.push_back(d);
      input = tensor::CollapseShapeOp::create(
          rewriter, loc, input, SmallVector<ReassociationIndices>{all});
    }
    Value indices = reduceExtreme(rewriter, loc, input, dim, largest,
                                  resType.getElementType())
                        .second;
    if (cast<RankedTensorType>(indices.getType()) != resType) {
      // keepdim (a unit dimension for each reduced one), or a 0-d result.
      SmallVector<bool> unit(resType.getRank(), !op.getDim().has_value());
      if (op.getDim() && resType.getRank() > 0)
        unit[dim] = true;
      indices = tensor::ExpandShapeOp::create(rewriter, loc, resType, indices,
                                              unitDimGroups(unit));
    }
    rewriter.replaceOp(op, indices);
    return success();
  }
};

// sort / topk along `dim`, as the interpreter's stable sort orders (NaN
// above every number): two generics, quadratic in the sorted size. The
// first counts, for each element j, the elements k that precede it (k comes
// first when strictly before j, or equal and at a smaller index): its
// position. The second fills each of the first `keep` positions p with the
// element whose position is p, and its index.
static std::pair<Value, Value>
sortAlong(PatternRewriter &rewriter, Location loc, Value input, int64_t dim,
          bool descending, RankedTensorType valuesType,
          RankedTensorType indicesType) {
  MLIRContext *ctx = rewriter.getContext();
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  Type el = type.getElementType();
  Type ct = opmath(el);
  bool isFloat = isa<FloatType>(ct);
  Type i64 = rewriter.getI64Type();
  // a strictly before b in the order.
  auto before = [&](OpBuilder &b, Location l, Value x, Value y) -> Value {
    if (descending)
      std::swap(x, y);
    if (!isFloat) {
      auto p = el.isInteger(1) ? arith::CmpIPredicate::ult
                               : arith::CmpIPredicate::slt;
      return arith::CmpIOp::create(b, l, p, x, y);
    }
    x = convertScalar(b, l, x, ct);
    y = convertScalar(b, l, y, ct);
    // x < y with NaN above every number: x is a number, and y is NaN or
    // larger.
    Value xNumber = arith::CmpFOp::create(b, l, arith::CmpFPredicate::ORD, x, x);
    Value yNaN = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, y, y);
    Value less = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, x, y);
    return arith::AndIOp::create(b, l, xNumber,
                                 arith::OrIOp::create(b, l, yNaN, less));
  };
  SmallVector<AffineExpr> at, atK;
  for (int64_t d = 0; d < rank; ++d) {
    at.push_back(getAffineDimExpr(d, ctx));
    atK.push_back(getAffineDimExpr(d == dim ? rank : d, ctx));
  }
  AffineMap byJ = AffineMap::get(rank + 1, 0, at, ctx);
  AffineMap byK = AffineMap::get(rank + 1, 0, atK, ctx);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);

  // Each element's position.
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, input);
  Value zeros = filledOfSizes(rewriter, loc, sizes, intConst(rewriter, loc, i64, 0));
  Value positions =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{zeros.getType()}, ValueRange{input, input},
          ValueRange{zeros}, ArrayRef<AffineMap>{byJ, byK, byJ}, iters,
          [&](OpBuilder &b, Location l, ValueRange a) {
            Value x = a[0], y = a[1];
            Value j = linalg::IndexOp::create(b, l, dim);
            Value k = linalg::IndexOp::create(b, l, rank);
            Value earlier =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, k, j);
            Value notAfter = arith::XOrIOp::create(
                b, l, before(b, l, x, y), intConst(b, l, b.getI1Type(), 1));
            Value precedes = arith::OrIOp::create(
                b, l, before(b, l, y, x),
                arith::AndIOp::create(b, l, notAfter, earlier));
            Value one = convertScalar(b, l, precedes, i64);
            linalg::YieldOp::create(b, l,
                                    arith::AddIOp::create(b, l, a[2], one).getResult());
          })
          .getResult(0);

  // The first `keep` positions: the element at each, and its index.
  SmallVector<OpFoldResult> outSizes = sizes;
  outSizes[dim] = rewriter.getIndexAttr(valuesType.getDimSize(dim));
  if (valuesType.isDynamicDim(dim))
    outSizes[dim] = sizes[dim];
  Value values = filledOfSizes(rewriter, loc, outSizes,
                               convertScalar(rewriter, loc,
                                             intConst(rewriter, loc, i64, 0), el));
  Value indices = filledOfSizes(
      rewriter, loc, outSizes,
      intConst(rewriter, loc, indicesType.getElementType(), 0));
  auto filled = linalg::GenericOp::create(
      rewriter, loc, TypeRange{values.getType(), indices.getType()},
      ValueRange{input, positions}, ValueRange{values, indices},
      ArrayRef<AffineMap>{byK, byK, byJ, byJ}, iters,
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value p = convertScalar(b, l, linalg::IndexOp::create(b, l, dim), i64);
        Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, a[1], p);
        Value j = convertScalar(b, l, linalg::IndexOp::create(b, l, rank),
                                indicesType.getElementType());
        linalg::YieldOp::create(
            b, l,
            ValueRange{arith::SelectOp::create(b, l, hit, a[0], a[2]),
                       arith::SelectOp::create(b, l, hit, j, a[3])});
      });
  return {filled.getResult(0), filled.getResult(1)};
}

template <typename OpT, bool isTopk>
class SortPattern : public OpRewritePattern<OpT> {
public:
  using OpRewritePattern<OpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    Value input = op.getSelf();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    FailureOr<int64_t> dim = dimOfNonScalar(rewriter, op, rank);
    if (failed(dim))
      return failure();
    bool descending;
    if constexpr (isTopk)
      descending = op.getLargest();
    else
      descending = op.getDescending();
    auto valuesType = cast<RankedTensorType>(op.getValues().getType());
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    auto [values, indices] = sortAlong(rewriter, op.getLoc(), input, *dim,
                                       descending, valuesType, indicesType);
    rewriter.replaceOp(
        op, ValueRange{tensor::CastOp::create(rewriter, op.getLoc(), valuesType, values),
                       tensor::CastOp::create(rewriter, op.getLoc(), indicesType,
                                              indices)});
    return success();
  }
};

// softmax along `dim`: the row max, the sum of exp(x - max) (two
// reductions), then exp(x - max) / sum rounded to the result dtype;
// log_softmax: (x - max) - log(sum) instead.
template <typename SoftmaxOpT, bool logarithm>
class SoftmaxPattern : public OpRewritePattern<SoftmaxOpT> {
public:
  using OpRewritePattern<SoftmaxOpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(SoftmaxOpT op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getSelf();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    if (rank == 0)
      return rewriter.notifyMatchFailure(op, "0-d softmax");
    FailureOr<int64_t> dim =
        normalizedDim(rewriter, op, static_cast<int64_t>(op.getDim()), rank);
    if (failed(dim))
      return failure();
    Type resEl = op.getType().getElementType();
    Type ct = opmath(inType.getElementType());
    SmallVector<bool> reduced(rank, false);
    reduced[*dim] = true;
    RowReduction rows(rewriter, loc, input, reduced);
    Value max =
        rows.reduce(rewriter, loc, {}, {floatConst(rewriter, loc, ct, -INFINITY)},
                    [&](OpBuilder &b, Location l, ValueRange a) {
                      Value x = convertScalar(b, l, a[0], ct);
                      return SmallVector<Value>{
                          arith::MaximumFOp::create(b, l, x, a[1])};
                    })
            .front();
    auto shifted = [&](OpBuilder &b, Location l, Value x, Value m) {
      return math::ExpOp::create(
          b, l, arith::SubFOp::create(b, l, convertScalar(b, l, x, ct), m));
    };
    Value sum = rows.reduce(rewriter, loc, {max},
                            {floatConst(rewriter, loc, ct, 0.0)},
                            [&](OpBuilder &b, Location l, ValueRange a) {
                              return SmallVector<Value>{arith::AddFOp::create(
                                  b, l, shifted(b, l, a[0], a[1]), a[2])};
                            })
                    .front();
    MLIRContext *ctx = op.getContext();
    Value init = emptyOfSizes(rewriter, loc,
                              tensor::getMixedSizes(rewriter, loc, input), resEl);
    Value result = buildParallelGeneric(
        rewriter, loc, init, {input, max, sum},
        {rewriter.getMultiDimIdentityMap(rank), rows.statMap(ctx),
         rows.statMap(ctx)},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          if (logarithm) {
            Value x = arith::SubFOp::create(
                b, l, convertScalar(b, l, a[0], ct), a[1]);
            return convertScalar(
                b, l,
                arith::SubFOp::create(b, l, x, math::LogOp::create(b, l, a[2])),
                resEl);
          }
          Value e = shifted(b, l, a[0], a[1]);
          return convertScalar(b, l, arith::DivFOp::create(b, l, e, a[2]),
                               resEl);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

// cumsum along `dim`: one generic with a second loop k over `dim` that adds
// x[..., k, ...] where k <= j, else 0 (quadratic in the scanned size, but
// one kernel and no loop on the host). The select feeds the add rather than
// choosing between acc + x and acc, so the accumulation is a plain sum: one
// dependent add an iteration, and a row reduction that blocks can share.
// Half types accumulate in f32.
class CumsumPattern : public OpRewritePattern<CumsumOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CumsumOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getSelf();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    if (rank == 0)
      return rewriter.notifyMatchFailure(op, "0-d cumsum");
    FailureOr<int64_t> dim =
        normalizedDim(rewriter, op, static_cast<int64_t>(op.getDim()), rank);
    if (failed(dim))
      return failure();
    Type resEl = op.getType().getElementType();
    Type acc = opmath(resEl);
    // A count of booleans along a dim of static length below 2^31 fits in
    // i32: summed in i32 (which blocks can share; i64 they cannot) and
    // widened at the end. (A mask's cumsum, as transformers builds it.)
    if (inType.getElementType().isInteger(1) && resEl.isInteger() &&
        resEl.getIntOrFloatBitWidth() > 32 && !inType.isDynamicDim(*dim) &&
        inType.getDimSize(*dim) < (int64_t(1) << 31))
      acc = rewriter.getI32Type();
    MLIRContext *ctx = op.getContext();
    // Loops: the result's dims, then k.
    SmallVector<AffineExpr> inExprs, outExprs;
    for (int64_t d = 0; d < rank; ++d) {
      outExprs.push_back(getAffineDimExpr(d, ctx));
      inExprs.push_back(getAffineDimExpr(d == *dim ? rank : d, ctx));
    }
    SmallVector<AffineMap> maps = {AffineMap::get(rank + 1, 0, inExprs, ctx),
                                   AffineMap::get(rank + 1, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iters = parallelIterators(rank);
    iters.push_back(utils::IteratorType::reduction);
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, input);
    Value init =
        filledOfSizes(rewriter, loc, sizes, typedConst(rewriter, loc, acc, 0.0));
    bool isFloat = isa<FloatType>(acc);
    Value sum =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()}, ValueRange{input},
            ValueRange{init}, maps, iters,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value j = linalg::IndexOp::create(b, l, *dim);
              Value k = linalg::IndexOp::create(b, l, rank);
              Value x = convertScalar(b, l, a[0], acc);
              Value inPrefix = arith::CmpIOp::create(
                  b, l, arith::CmpIPredicate::ule, k, j);
              Value term = arith::SelectOp::create(
                  b, l, inPrefix, x, typedConst(b, l, acc, 0.0));
              Value added = isFloat ? Value(arith::AddFOp::create(b, l, a[1], term))
                                    : Value(arith::AddIOp::create(b, l, a[1], term));
              linalg::YieldOp::create(b, l, added);
            })
            .getResult(0);
    rewriter.replaceOp(op, convertElements(rewriter, loc, sum, resEl));
    return success();
  }
};

} // namespace

void magi::lower::populateReductionPatterns(RewritePatternSet &patterns) {
  patterns.add<ReductionPattern, RmsNormPattern,
               LayerNormPattern<LayerNormOp, false>,
               LayerNormPattern<NativeLayerNormOp, true>,
               SoftmaxPattern<SoftmaxOp, false>,
               SoftmaxPattern<LogSoftmaxOp, true>, CumsumPattern, VarPattern,
               ExtremeDimPattern<MaxDimOp, true>,
               ExtremeDimPattern<MinDimOp, false>,
               ArgExtremePattern<ArgmaxOp, true>,
               ArgExtremePattern<ArgminOp, false>,
               SortPattern<SortOp, false>, SortPattern<TopkOp, true>>(
      patterns.getContext());
}
