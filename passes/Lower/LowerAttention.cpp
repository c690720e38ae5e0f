//===- LowerAttention.cpp - Scaled dot-product attention ------------------===//
//
// magi.attention becomes six generics, each one GPU kernel or library call
// later:
//   1. scores = q @ k^T (f32 accumulation), [..., Hq, L, S]: a plain
//      (batched) matrix product, which the GPU path hands to cuBLASLt;
//   2. per query row, the max m of s', where s' is the score scaled, masked
//      and causally masked;
//   3. per query row, the sum l of exp(s' - m) (rows of one block each on
//      the GPU, as 2 is);
//   4. p = round(exp(s' - m)), the probabilities rounded to the input dtype
//      (as PyTorch's fused kernels and the interpreter do), 0 in fully
//      masked rows;
//   5. acc = p @ v (f32 accumulation): a plain matrix product again;
//   6. out = acc / l (the unrounded sum), zeros for fully masked rows.
// Grouped-query heads read key/value head h floordiv (Hq / Hkv) (then 1 and
// 5 are not plain products, and run as kernels).
//
// With `tiled` (the GPU path), attention on f16 or bf16 operands of rank 4
// and head dimension 64 or 128 (a mask broadcast only over batch and heads)
// becomes one
// magi.tiled_attention instead, which magi-tiled-attention-to-gpu makes a
// single tensor-core kernel that never materializes the scores.
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalgCommon.h"

#include "magi/Dialect/Magi/IR/AttentionLayout.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Dialect/Magi/IR/TiledAttentionRules.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace magi;
using namespace magi::lower;

namespace {

class AttentionPattern : public OpRewritePattern<AttentionOp> {
public:
  AttentionPattern(MLIRContext *ctx, bool tiled)
      : OpRewritePattern(ctx), tiled(tiled) {}

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getDropoutP().convertToDouble() != 0)
      return rewriter.notifyMatchFailure(op, "dropout is random");
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
    Value mask = op.getMask();
    auto qType = cast<RankedTensorType>(q.getType());
    auto kType = cast<RankedTensorType>(k.getType());
    auto vType = cast<RankedTensorType>(v.getType());
    auto resType = cast<RankedTensorType>(op.getType());
    int64_t rank = qType.getRank();
    if (rank < 3 || kType.getRank() != rank || vType.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "needs [..., H, L, E] operands");
    int64_t nb = rank - 3; // batch dimensions
    bool sequenceMajor = op.isSequenceMajor();
    // The heads are dimension 2 in layout bshd. Every check comes before
    // anything is built.
    int64_t headsDim = sequenceMajor ? 2 : nb;
    int64_t heads = qType.getDimSize(headsDim), kvHeads = kType.getDimSize(headsDim);
    int64_t group = 1;
    if (heads != kvHeads) {
      if (ShapedType::isDynamic(heads) || ShapedType::isDynamic(kvHeads) ||
          heads % kvHeads != 0)
        return rewriter.notifyMatchFailure(op, "unknown head grouping");
      group = heads / kvHeads;
    }
    FailureOr<double> scaleOrFailure = scaleOf(op);
    if (failed(scaleOrFailure))
      return rewriter.notifyMatchFailure(op, "default scale of a dynamic E");
    double scale = *scaleOrFailure;
    // Layout bshd: the tiled kernel reads it through views; the loops here
    // take transposed copies and transpose the result back.
    if (sequenceMajor) {
      if (tiled && fitsTiledKernel(op))
        return rewriteTiled(op, scale, rewriter);
      q = swapHeadsAndSequence(rewriter, loc, q);
      k = swapHeadsAndSequence(rewriter, loc, k);
      v = swapHeadsAndSequence(rewriter, loc, v);
      qType = cast<RankedTensorType>(q.getType());
      kType = cast<RankedTensorType>(k.getType());
      vType = cast<RankedTensorType>(v.getType());
    }
    Type f32 = rewriter.getF32Type();
    Type inEl = qType.getElementType();
    Type resEl = resType.getElementType();
    bool causal = op.getIsCausal();
    if (tiled && fitsTiledKernel(op))
      return rewriteTiled(op, scale, rewriter);
    auto maskType = mask ? cast<RankedTensorType>(mask.getType()) : nullptr;

    // Sizes: batch..., Hq, L from q; S from k; Ev from v.
    SmallVector<OpFoldResult> qSizes = tensor::getMixedSizes(rewriter, loc, q);
    OpFoldResult keys = tensor::getMixedSizes(rewriter, loc, k)[rank - 2];
    OpFoldResult dimV = tensor::getMixedSizes(rewriter, loc, v)[rank - 1];
    SmallVector<OpFoldResult> rowSizes(qSizes.begin(), qSizes.end() - 1);
    SmallVector<OpFoldResult> scoreSizes(rowSizes);
    scoreSizes.push_back(keys);
    SmallVector<OpFoldResult> outSizes(rowSizes);
    outSizes.push_back(dimV);
    SmallVector<int64_t> scoreShape(qType.getShape());
    scoreShape.back() = kType.getDimSize(rank - 2);

    auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    // Loop dims 0..nb+1 are batch..., h, l in every step.
    auto rowExprs = [&]() {
      SmallVector<AffineExpr> e;
      for (int64_t i = 0; i < nb + 2; ++i)
        e.push_back(dim(i));
      return e;
    };
    // The key/value head of query head loop `h`.
    auto kvExprs = [&](AffineExpr s, AffineExpr last) {
      SmallVector<AffineExpr> e;
      for (int64_t i = 0; i < nb; ++i)
        e.push_back(dim(i));
      e.push_back(group == 1 ? dim(nb) : dim(nb).floorDiv(group));
      e.push_back(s);
      e.push_back(last);
      return e;
    };
    auto map = [&](unsigned numLoops, ArrayRef<AffineExpr> e) {
      return AffineMap::get(numLoops, 0, e, ctx);
    };

    // 1. scores: loops (batch..., h, l, s, e).
    unsigned scoreLoops = nb + 4;
    SmallVector<AffineExpr> qExprs = rowExprs();
    qExprs.push_back(dim(nb + 3));
    SmallVector<AffineExpr> sExprs = rowExprs();
    sExprs.push_back(dim(nb + 2));
    SmallVector<utils::IteratorType> scoreIters = parallelIterators(scoreLoops);
    scoreIters.back() = utils::IteratorType::reduction;
    Value scoreInit =
        filledOfSizes(rewriter, loc, scoreSizes, floatConst(rewriter, loc, f32, 0.0));
    Value scores =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{scoreInit.getType()}, ValueRange{q, k},
            ValueRange{scoreInit},
            SmallVector<AffineMap>{map(scoreLoops, qExprs),
                                   map(scoreLoops, kvExprs(dim(nb + 2), dim(nb + 3))),
                                   map(scoreLoops, sExprs)},
            scoreIters,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value p = arith::MulFOp::create(b, l, convertScalar(b, l, a[0], f32),
                                              convertScalar(b, l, a[1], f32));
              linalg::YieldOp::create(
                  b, l, arith::AddFOp::create(b, l, p, a[2]).getResult());
            })
            .getResult(0);

    // The scaled and masked score; `lLoop`/`sLoop` are the loops of the query
    // and key positions (for the causal mask).
    auto masked = [&](OpBuilder &b, Location l, Value s, Value maskValue,
                      unsigned lLoop, unsigned sLoop) -> Value {
      Value negInf = floatConst(b, l, f32, -INFINITY);
      s = arith::MulFOp::create(b, l, s, floatConst(b, l, f32, scale));
      if (maskValue && maskValue.getType().isInteger(1))
        s = arith::SelectOp::create(b, l, maskValue, s, negInf);
      else if (maskValue)
        s = arith::AddFOp::create(b, l, s, convertScalar(b, l, maskValue, f32));
      if (causal) {
        Value after = arith::CmpIOp::create(
            b, l, arith::CmpIPredicate::ugt, linalg::IndexOp::create(b, l, sLoop),
            linalg::IndexOp::create(b, l, lLoop));
        s = arith::SelectOp::create(b, l, after, negInf, s);
      }
      return s;
    };
    Value negInf = floatConst(rewriter, loc, f32, -INFINITY);
    Value zero = floatConst(rewriter, loc, f32, 0.0);
    // exp(s - m), 0 when the whole row is masked (m = -inf).
    auto expShifted = [&](OpBuilder &b, Location l, Value s, Value m) -> Value {
      Value rowMasked =
          arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, m, negInf);
      Value e = math::ExpOp::create(b, l, arith::SubFOp::create(b, l, s, m));
      return arith::SelectOp::create(b, l, rowMasked, zero, e);
    };

    // 2. and 3. the row max, then the row sum: loops (batch..., h, l, s).
    unsigned statLoops = nb + 3;
    SmallVector<Value> statIns = {scores};
    SmallVector<AffineMap> statMaps = {rewriter.getMultiDimIdentityMap(statLoops)};
    if (mask) {
      statIns.push_back(mask);
      statMaps.push_back(broadcastMap(maskType, scoreShape, statLoops));
    }
    SmallVector<utils::IteratorType> statIters = parallelIterators(statLoops);
    statIters.back() = utils::IteratorType::reduction;
    // A generic over the scaled, masked scores s' into `init` (through
    // `outMap`), given the row max m when `rowMaxIn` is set; `body` makes the
    // yielded value from s', m and the output element.
    auto overScores = [&](Value rowMaxIn, Value init, AffineMap outMap,
                          ArrayRef<utils::IteratorType> iters,
                          function_ref<Value(OpBuilder &, Location, Value, Value, Value)>
                              body) {
      SmallVector<Value> ins = statIns;
      SmallVector<AffineMap> maps = statMaps;
      if (rowMaxIn) {
        ins.push_back(rowMaxIn);
        maps.push_back(map(statLoops, rowExprs()));
      }
      maps.push_back(outMap);
      return linalg::GenericOp::create(
                 rewriter, loc, TypeRange{init.getType()}, ins, ValueRange{init},
                 maps, iters,
                 [&](OpBuilder &b, Location l, ValueRange a) {
                   Value s = masked(b, l, a[0], mask ? a[1] : Value(), nb + 1, nb + 2);
                   Value m = rowMaxIn ? a[a.size() - 2] : Value();
                   linalg::YieldOp::create(b, l, body(b, l, s, m, a.back()));
                 })
          .getResult(0);
    };
    AffineMap rowMap = map(statLoops, rowExprs());
    Value rowMax = overScores(
        Value(), filledOfSizes(rewriter, loc, rowSizes, negInf), rowMap, statIters,
        [](OpBuilder &b, Location l, Value s, Value, Value out) -> Value {
          return arith::MaximumFOp::create(b, l, out, s);
        });
    Value rowSum = overScores(
        rowMax, filledOfSizes(rewriter, loc, rowSizes, zero), rowMap, statIters,
        [&](OpBuilder &b, Location l, Value s, Value m, Value out) -> Value {
          return arith::AddFOp::create(b, l, out, expShifted(b, l, s, m));
        });

    // 4. p = round(exp(s' - m)) in the input dtype: loops (batch..., h, l, s).
    Value probs = overScores(
        rowMax, emptyOfSizes(rewriter, loc, scoreSizes, inEl),
        rewriter.getMultiDimIdentityMap(statLoops), parallelIterators(statLoops),
        [&](OpBuilder &b, Location l, Value s, Value m, Value) -> Value {
          return convertScalar(b, l, expShifted(b, l, s, m), inEl);
        });

    // 5. acc = p @ v: loops (batch..., h, l, ev, s).
    unsigned pvLoops = nb + 4;
    SmallVector<AffineExpr> pvProbExprs = rowExprs();
    pvProbExprs.push_back(dim(nb + 3));
    SmallVector<AffineExpr> accExprs = rowExprs();
    accExprs.push_back(dim(nb + 2));
    SmallVector<utils::IteratorType> pvIters = parallelIterators(pvLoops);
    pvIters.back() = utils::IteratorType::reduction;
    Value accInit = filledOfSizes(rewriter, loc, outSizes, zero);
    Value acc =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{accInit.getType()}, ValueRange{probs, v},
            ValueRange{accInit},
            SmallVector<AffineMap>{map(pvLoops, pvProbExprs),
                                   map(pvLoops, kvExprs(dim(nb + 3), dim(nb + 2))),
                                   map(pvLoops, accExprs)},
            pvIters,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value pv = arith::MulFOp::create(b, l, convertScalar(b, l, a[0], f32),
                                               convertScalar(b, l, a[1], f32));
              linalg::YieldOp::create(
                  b, l, arith::AddFOp::create(b, l, pv, a.back()).getResult());
            })
            .getResult(0);

    // 6. out = acc / sum, zeros where the sum is 0 (fully masked rows).
    Value outInit = emptyOfSizes(rewriter, loc, outSizes, resEl);
    Value out = buildParallelGeneric(
        rewriter, loc, outInit, {acc, rowSum},
        {rewriter.getMultiDimIdentityMap(nb + 3), map(nb + 3, rowExprs())},
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value positive =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, a[1], zero);
          Value r = arith::SelectOp::create(
              b, l, positive, arith::DivFOp::create(b, l, a[0], a[1]), zero);
          return convertScalar(b, l, r, resEl);
        });
    if (sequenceMajor)
      out = swapHeadsAndSequence(rewriter, loc, out);
    // The result's declared type may be more static than the sizes built.
    return replaceWithType(rewriter, op, out, op.getType());
  }

private:
  bool tiled;

  // Dimensions 1 and 2 of a rank-4 tensor swapped, by linalg.transpose.
  static Value swapHeadsAndSequence(PatternRewriter &rewriter, Location loc, Value t) {
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, t);
    std::swap(sizes[1], sizes[2]);
    Value init = emptyOfSizes(rewriter, loc, sizes,
                              cast<RankedTensorType>(t.getType()).getElementType());
    return linalg::TransposeOp::create(rewriter, loc, t, init, headsSequenceSwap())
        ->getResult(0);
  }

  // The scores' scale: the op's, else 1/sqrt(E) (E static).
  static FailureOr<double> scaleOf(AttentionOp op) {
    if (auto attr = op.getScaleAttr())
      return attr.getValueAsDouble();
    int64_t e = cast<RankedTensorType>(op.getQuery().getType()).getShape().back();
    if (ShapedType::isDynamic(e))
      return failure();
    return 1.0 / std::sqrt(static_cast<double>(e));
  }

  // What magi.tiled_attention takes: rank 4, one half dtype throughout,
  // E = Ev of 64 or 128; a mask of [1 or B, 1 or Hq, L, S].
  // The op's operands fit magi.tiled_attention (its verifier's rule), with
  // the init rewriteTiled makes: the query's shape, the result's dtype.
  static bool fitsTiledKernel(AttentionOp op) {
    auto query = cast<ShapedType>(op.getQuery().getType());
    auto init = RankedTensorType::get(
        query.getShape(), cast<ShapedType>(op.getType()).getElementType());
    ShapedType mask = op.getMask() ? cast<ShapedType>(op.getMask().getType()) : ShapedType();
    return !tiledAttentionMismatch(query, cast<ShapedType>(op.getKey().getType()),
                                   cast<ShapedType>(op.getValue().getType()), init, mask,
                                   op.isSequenceMajor());
  }

  LogicalResult rewriteTiled(AttentionOp op, double scale,
                             PatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    auto resType = cast<RankedTensorType>(op.getType());
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, op.getQuery());
    Value init = emptyOfSizes(rewriter, loc, sizes, resType.getElementType());
    auto tiledOp = TiledAttentionOp::create(
        rewriter, loc, TypeRange{init.getType()}, op.getQuery(), op.getKey(),
        op.getValue(), op.getMask(), init, rewriter.getF64FloatAttr(scale),
        rewriter.getBoolAttr(op.getIsCausal()), op.getLayoutAttr());
    Value result = tiledOp.getResult();
    if (result.getType() != resType)
      result = tensor::CastOp::create(rewriter, loc, resType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void magi::lower::populateAttentionPatterns(RewritePatternSet &patterns,
                                            bool tiled) {
  patterns.add<AttentionPattern>(patterns.getContext(), tiled);
}
