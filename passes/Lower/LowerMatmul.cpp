//===- LowerMatmul.cpp - Matrix products ----------------------------------===//
//
// mm, bmm and addmm accumulate in a filled f32 tensor for half types (the
// compute dtype otherwise) with linalg.matmul / linalg.batch_matmul, or a
// generic with transposed maps when a `transpose_*` flag is set; one
// elementwise generic then rounds (and, for addmm, adds the scaled bias).
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalgCommon.h"

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace magi;
using namespace magi::lower;

namespace {

// The product of `lhs` and `rhs` (3-d when `batched`), each used with its
// last two dimensions swapped when its flag is set, accumulated in
// opmath(`resEl`). `resType` gives the static sizes of the result.
Value buildMatmulAccumulator(OpBuilder &b, Location loc, Value lhs, Value rhs,
                             bool tl, bool tr, bool batched,
                             RankedTensorType resType) {
  MLIRContext *ctx = b.getContext();
  Type acc = opmath(resType.getElementType());
  auto accType = RankedTensorType::get(resType.getShape(), acc);

  // Dynamic result sizes: batch and M from lhs, N from rhs.
  int64_t b0 = batched ? 1 : 0;
  SmallVector<Value> dynSizes;
  if (batched && resType.isDynamicDim(0))
    dynSizes.push_back(tensor::DimOp::create(b, loc, lhs, 0));
  if (resType.isDynamicDim(b0))
    dynSizes.push_back(tensor::DimOp::create(b, loc, lhs, tl ? b0 + 1 : b0));
  if (resType.isDynamicDim(b0 + 1))
    dynSizes.push_back(tensor::DimOp::create(b, loc, rhs, tr ? b0 : b0 + 1));
  Value empty =
      tensor::EmptyOp::create(b, loc, resType.getShape(), acc, dynSizes);
  Value init = linalg::FillOp::create(b, loc, typedConst(b, loc, acc, 0.0), empty)
                   .getResult(0);

  if (!tl && !tr) {
    // Named ops cast their operands to the output (accumulator) type.
    if (batched)
      return linalg::BatchMatmulOp::create(b, loc, TypeRange{accType},
                                           ValueRange{lhs, rhs}, ValueRange{init})
          .getResult(0);
    return linalg::MatmulOp::create(b, loc, TypeRange{accType},
                                    ValueRange{lhs, rhs}, ValueRange{init})
        .getResult(0);
  }
  // Transposed operands: a generic with the transposed maps.
  // Loops: (batch,) m, n, k.
  int64_t nl = b0 + 3;
  AffineExpr m = getAffineDimExpr(b0, ctx), n = getAffineDimExpr(b0 + 1, ctx),
             k = getAffineDimExpr(b0 + 2, ctx);
  auto withBatch = [&](AffineExpr x, AffineExpr y) {
    SmallVector<AffineExpr> e;
    if (batched)
      e.push_back(getAffineDimExpr(0, ctx));
    e.push_back(x);
    e.push_back(y);
    return AffineMap::get(nl, 0, e, ctx);
  };
  SmallVector<AffineMap> maps = {tl ? withBatch(k, m) : withBatch(m, k),
                                 tr ? withBatch(n, k) : withBatch(k, n),
                                 withBatch(m, n)};
  SmallVector<utils::IteratorType> iters = parallelIterators(nl);
  iters.back() = utils::IteratorType::reduction;
  bool isFloat = isa<FloatType>(acc);
  return linalg::GenericOp::create(
             b, loc, TypeRange{accType}, ValueRange{lhs, rhs}, ValueRange{init},
             maps, iters,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value x = convertScalar(nb, l, args[0], acc);
               Value y = convertScalar(nb, l, args[1], acc);
               Value p = isFloat ? Value(arith::MulFOp::create(nb, l, x, y))
                                 : Value(arith::MulIOp::create(nb, l, x, y));
               Value s = isFloat ? Value(arith::AddFOp::create(nb, l, p, args[2]))
                                 : Value(arith::AddIOp::create(nb, l, p, args[2]));
               linalg::YieldOp::create(nb, l, s);
             })
      .getResult(0);
}

template <typename OpTy>
class MatmulPattern : public OpRewritePattern<OpTy> {
public:
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto resType = cast<RankedTensorType>(op.getResult().getType());
    Value product = buildMatmulAccumulator(
        rewriter, op.getLoc(), op.getSelf(), op.getMat2(),
        op.getTransposeSelf(), op.getTransposeMat2(),
        std::is_same_v<OpTy, BmmOp>, resType);
    // bf16/f16: accumulate in f32, round once.
    rewriter.replaceOp(op, convertElements(rewriter, op.getLoc(), product,
                                           resType.getElementType()));
    return success();
  }
};

// addmm: beta * self + alpha * (mat1 @ mat2), rounded once in the epilogue
// (as cuBLAS's), with self broadcast to the product.
class AddmmPattern : public OpRewritePattern<AddmmOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AddmmOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resType = cast<RankedTensorType>(op.getType());
    auto selfType = cast<RankedTensorType>(op.getSelf().getType());
    if (selfType.getRank() > 2)
      return rewriter.notifyMatchFailure(op, "self of rank > 2");
    Value product = buildMatmulAccumulator(
        rewriter, loc, op.getMat1(), op.getMat2(), op.getTransposeMat1(),
        op.getTransposeMat2(), /*batched=*/false, resType);
    Type resEl = resType.getElementType();
    Type acc = opmath(resEl);
    double beta = op.getBeta().convertToDouble();
    double alpha = op.getAlpha().convertToDouble();
    Value init = emptyOfSizes(rewriter, loc,
                              tensor::getMixedSizes(rewriter, loc, product), resEl);
    SmallVector<AffineMap> maps = {
        rewriter.getMultiDimIdentityMap(2),
        broadcastMap(selfType, resType.getShape(), 2)};
    bool isFloat = isa<FloatType>(acc);
    Value result = buildParallelGeneric(
        rewriter, loc, init, {product, op.getSelf()}, maps,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value p = a[0];
          Value bias = convertScalar(b, l, a[1], acc);
          if (alpha != 1.0)
            p = isFloat ? Value(arith::MulFOp::create(b, l, p,
                                                      typedConst(b, l, acc, alpha)))
                        : Value(arith::MulIOp::create(b, l, p,
                                                      typedConst(b, l, acc, alpha)));
          if (beta != 1.0)
            bias = isFloat
                       ? Value(arith::MulFOp::create(b, l, bias,
                                                     typedConst(b, l, acc, beta)))
                       : Value(arith::MulIOp::create(b, l, bias,
                                                     typedConst(b, l, acc, beta)));
          Value s = isFloat ? Value(arith::AddFOp::create(b, l, bias, p))
                            : Value(arith::AddIOp::create(b, l, bias, p));
          return convertScalar(b, l, s, resEl);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

// grouped_mm: each row's group (how many offsets are at or below it), then
// out[m, n] = sum_k self[m, k] * mat2[group(m), k, n], mat2 read at the
// row's group inside the body; a row past the last offset (group G) adds
// nothing. Accumulated in opmath, rounded once. A general product: no
// tensor cores, no library call.
class GroupedMmPattern : public OpRewritePattern<GroupedMmOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GroupedMmOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto resType = cast<RankedTensorType>(op.getType());
    Type resEl = resType.getElementType();
    Type acc = opmath(resEl);
    bool isFloat = isa<FloatType>(acc);
    bool transposed = op.getTransposeMat2();
    Value self = op.getSelf(), mat2 = op.getMat2(), offs = op.getOffs();
    Type i64 = rewriter.getI64Type();

    // The group of each row.
    OpFoldResult rows = tensor::getMixedSize(rewriter, loc, self, 0);
    Value groupsInit = filledOfSizes(rewriter, loc, {rows}, intConst(rewriter, loc, i64, 0));
    AffineExpr m = getAffineDimExpr(0, ctx), g = getAffineDimExpr(1, ctx);
    Value groups =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{groupsInit.getType()}, ValueRange{offs},
            ValueRange{groupsInit},
            {AffineMap::get(2, 0, {g}, ctx), AffineMap::get(2, 0, {m}, ctx)},
            {utils::IteratorType::parallel, utils::IteratorType::reduction},
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value row = convertScalar(b, l, linalg::IndexOp::create(b, l, 0), i64);
              Value end = convertScalar(b, l, args[0], i64);
              Value past = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sle, end, row);
              Value next = arith::AddIOp::create(
                  b, l, args[1], arith::ExtUIOp::create(b, l, i64, past));
              linalg::YieldOp::create(b, l, next);
            })
            .getResult(0);

    // The products, mat2 read at the row's group.
    OpFoldResult cols = tensor::getMixedSize(rewriter, loc, mat2, transposed ? 1 : 2);
    Value init = filledOfSizes(rewriter, loc, {rows, cols}, typedConst(rewriter, loc, acc, 0.0));
    Value groupCount = convertScalar(rewriter, loc, tensor::DimOp::create(rewriter, loc, mat2, 0), i64);
    AffineExpr n = getAffineDimExpr(1, ctx), k = getAffineDimExpr(2, ctx);
    Value product =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()}, ValueRange{self, groups},
            ValueRange{init},
            {AffineMap::get(3, 0, {m, k}, ctx), AffineMap::get(3, 0, {m}, ctx),
             AffineMap::get(3, 0, {m, n}, ctx)},
            {utils::IteratorType::parallel, utils::IteratorType::parallel,
             utils::IteratorType::reduction},
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value group = args[1];
              Value inRange =
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, group, groupCount);
              Value safe = arith::SelectOp::create(b, l, inRange, group,
                                                   intConst(b, l, i64, 0));
              Value col = linalg::IndexOp::create(b, l, 1);
              Value red = linalg::IndexOp::create(b, l, 2);
              Value at = convertScalar(b, l, safe, b.getIndexType());
              Value w = tensor::ExtractOp::create(
                  b, l, mat2,
                  transposed ? ValueRange{at, col, red} : ValueRange{at, red, col});
              Value x = convertScalar(b, l, args[0], acc);
              Value y = convertScalar(b, l, w, acc);
              Value p = isFloat ? Value(arith::MulFOp::create(b, l, x, y))
                                : Value(arith::MulIOp::create(b, l, x, y));
              p = arith::SelectOp::create(b, l, inRange, p, typedConst(b, l, acc, 0.0));
              Value s = isFloat ? Value(arith::AddFOp::create(b, l, args[2], p))
                                : Value(arith::AddIOp::create(b, l, args[2], p));
              linalg::YieldOp::create(b, l, s);
            })
            .getResult(0);
    return replaceWithType(rewriter, op,
                           convertElements(rewriter, loc, product, resEl), resType);
  }
};

} // namespace

void magi::lower::populateMatmulPatterns(RewritePatternSet &patterns) {
  patterns.add<MatmulPattern<MmOp>, MatmulPattern<BmmOp>, AddmmPattern,
               GroupedMmPattern>(patterns.getContext());
}
