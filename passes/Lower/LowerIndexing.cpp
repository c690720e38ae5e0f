//===- LowerIndexing.cpp - Gathers and writes: embedding, index, index_put ===//
//
// Each gather is one generic over the result: the index tensors are inputs
// (broadcast by their maps), the gathered tensor is read with tensor.extract
// in the body. Negative indices count from the end, as in PyTorch. The
// writes (copy, index_put) keep `self` as their destination, so that a
// mutated graph input is written in place.
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalgCommon.h"

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace magi;
using namespace magi::lower;

namespace {

// The index value `v` (an integer element) as an `index` into a dimension
// of `size`, negative values counted from the end.
Value normalizedIndex(OpBuilder &b, Location loc, Value v, Value size) {
  Value i = convertScalar(b, loc, v, b.getIndexType());
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i,
                                         arith::ConstantIndexOp::create(b, loc, 0));
  return arith::SelectOp::create(b, loc, negative,
                                 arith::AddIOp::create(b, loc, i, size), i);
}

// The sizes of `type` with dynamic ones from `tensor.dim` of the operand
// (right-aligned) of `operands` that has them.
FailureOr<Value> resultInit(PatternRewriter &rewriter, Operation *op,
                            ValueRange operands) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  FailureOr<Value> init = emptyLike(rewriter, op->getLoc(), type, operands);
  if (failed(init))
    return rewriter.notifyMatchFailure(op, "no operand gives a dynamic size");
  return init;
}

// embedding: out[i..., k] = weight[indices[i...], k].
class EmbeddingPattern : public OpRewritePattern<EmbeddingOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(EmbeddingOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value weight = op.getWeight(), indices = op.getIndices();
    if (cast<RankedTensorType>(weight.getType()).getRank() != 2)
      return rewriter.notifyMatchFailure(op, "weight must be 2-d");
    auto resType = cast<RankedTensorType>(op.getType());
    int64_t rank = resType.getRank();
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, indices);
    sizes.push_back(tensor::getMixedSizes(rewriter, loc, weight)[1]);
    Value init = emptyOfSizes(rewriter, loc, sizes, resType.getElementType());
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank - 1; ++d)
      exprs.push_back(rewriter.getAffineDimExpr(d));
    Value result = buildParallelGeneric(
        rewriter, loc, init, indices,
        AffineMap::get(rank, 0, exprs, op.getContext()),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value row = convertScalar(b, l, a[0], b.getIndexType());
          Value col = linalg::IndexOp::create(b, l, rank - 1);
          return Value(tensor::ExtractOp::create(b, l, weight, ValueRange{row, col}));
        });
    return replaceWithType(rewriter, op, result, resType);
  }
};

// gather along `dim`: out[i] = self[i with i[dim] = index[i]].
class GatherPattern : public OpRewritePattern<GatherOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = op.getSelf(), index = op.getIndex();
    int64_t rank = cast<RankedTensorType>(self.getType()).getRank();
    if (rank == 0 || cast<RankedTensorType>(index.getType()).getRank() != rank)
      return rewriter.notifyMatchFailure(op, "index must have self's rank");
    FailureOr<int64_t> dim =
        normalizedDim(rewriter, op, static_cast<int64_t>(op.getDim()), rank);
    if (failed(dim))
      return failure();
    FailureOr<Value> init = resultInit(rewriter, op, index);
    if (failed(init))
      return failure();
    Value size = tensor::DimOp::create(rewriter, loc, self, *dim);
    Value result = buildParallelGeneric(
        rewriter, loc, *init, index, rewriter.getMultiDimIdentityMap(rank),
        [&](OpBuilder &b, Location l, ValueRange a) {
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d)
            at.push_back(d == *dim ? normalizedIndex(b, l, a[0], size)
                                   : Value(linalg::IndexOp::create(b, l, d)));
          return Value(tensor::ExtractOp::create(b, l, self, at));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

// index_select: out[..., j, ...] = self[..., index[j], ...] along `dim`
// (a 0-d index selects one, keeping the dimension).
class IndexSelectPattern : public OpRewritePattern<IndexSelectOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(IndexSelectOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = op.getSelf(), index = op.getIndex();
    int64_t rank = cast<RankedTensorType>(self.getType()).getRank();
    int64_t indexRank = cast<RankedTensorType>(index.getType()).getRank();
    if (rank == 0 || indexRank > 1)
      return rewriter.notifyMatchFailure(op, "needs rank >= 1 and a 0-d or 1-d index");
    FailureOr<int64_t> dim =
        normalizedDim(rewriter, op, static_cast<int64_t>(op.getDim()), rank);
    if (failed(dim))
      return failure();
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, self);
    sizes[*dim] = indexRank == 1
                      ? tensor::getMixedSizes(rewriter, loc, index).front()
                      : OpFoldResult(rewriter.getIndexAttr(1));
    auto resType = cast<RankedTensorType>(op.getType());
    Value init = emptyOfSizes(rewriter, loc, sizes, resType.getElementType());
    SmallVector<AffineExpr> indexExprs;
    if (indexRank == 1)
      indexExprs.push_back(rewriter.getAffineDimExpr(*dim));
    AffineMap indexMap = AffineMap::get(rank, 0, indexExprs, op.getContext());
    Value size = tensor::DimOp::create(rewriter, loc, self, *dim);
    Value result = buildParallelGeneric(
        rewriter, loc, init, index, indexMap,
        [&](OpBuilder &b, Location l, ValueRange a) {
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d)
            at.push_back(d == *dim ? normalizedIndex(b, l, a[0], size)
                                   : Value(linalg::IndexOp::create(b, l, d)));
          return Value(tensor::ExtractOp::create(b, l, self, at));
        });
    rewriter.replaceOp(op, tensor::CastOp::create(rewriter, loc, resType, result));
    return success();
  }
};

// The layout of advanced indexing (magi.index's result, magi.index_put's
// indexed shape): the broadcast index shape in place of the indexed dims
// when they are adjacent, else first; every other dim of self whole.
struct AdvancedIndexing {
  int64_t indexRank = 0;
  int64_t indexAt = 0;
  SmallVector<int64_t> dimOf;      // each plain dim of self: its dim (else -1)
  SmallVector<OpFoldResult> sizes; // the indexed shape
  SmallVector<int64_t> shape;      // its static sizes (dynamic where unknown)
  SmallVector<OpFoldResult> selfSizes;
};

// Checks `op`'s indices (one integer tensor per indexed dim, dims increasing
// within self's rank, `resultRank` dims in all when given) and gives their
// layout; each index dim's size comes from the first index tensor that has
// it (not size 1). Fails before it creates any op.
FailureOr<AdvancedIndexing> advancedIndexing(PatternRewriter &rewriter, Operation *op,
                                             Value self, ArrayRef<int64_t> dims,
                                             ValueRange indices,
                                             std::optional<int64_t> resultRank = {}) {
  auto selfType = cast<RankedTensorType>(self.getType());
  int64_t selfRank = selfType.getRank();
  if (dims.empty() || dims.size() != indices.size())
    return rewriter.notifyMatchFailure(op, "one index per indexed dimension");
  AdvancedIndexing layout;
  for (Value v : indices) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getElementType().isInteger(1))
      return rewriter.notifyMatchFailure(op, "boolean masks are data-dependent");
    layout.indexRank = std::max(layout.indexRank, t.getRank());
  }
  for (auto [i, d] : llvm::enumerate(dims))
    if (d < 0 || d >= selfRank || (i > 0 && d <= dims[i - 1]))
      return rewriter.notifyMatchFailure(op, "bad indexed_dims");
  bool adjacent = dims.back() - dims.front() + 1 == static_cast<int64_t>(dims.size());
  layout.indexAt = adjacent ? dims.front() : 0;
  int64_t rank = selfRank - static_cast<int64_t>(dims.size()) + layout.indexRank;
  if (resultRank && *resultRank != rank)
    return rewriter.notifyMatchFailure(op, "unexpected result rank");
  layout.selfSizes = tensor::getMixedSizes(rewriter, op->getLoc(), self);
  ArrayRef<OpFoldResult> selfSizes = layout.selfSizes;
  layout.dimOf.assign(selfRank, -1);
  layout.sizes.resize(rank);
  layout.shape.assign(rank, ShapedType::kDynamic);
  int64_t next = adjacent ? 0 : layout.indexRank;
  for (int64_t d = 0; d < selfRank; ++d) {
    if (llvm::is_contained(dims, d))
      continue;
    if (adjacent && next == layout.indexAt)
      next += layout.indexRank;
    layout.dimOf[d] = next;
    layout.sizes[next] = selfSizes[d];
    layout.shape[next++] = selfType.getDimSize(d);
  }
  for (int64_t r = 0; r < layout.indexRank; ++r) {
    int64_t at = layout.indexAt + r;
    layout.sizes[at] = rewriter.getIndexAttr(1);
    layout.shape[at] = 1;
    for (Value v : indices) {
      auto t = cast<RankedTensorType>(v.getType());
      int64_t od = r - (layout.indexRank - t.getRank());
      if (od < 0 || t.getDimSize(od) == 1)
        continue;
      layout.sizes[at] = tensor::getMixedSizes(rewriter, op->getLoc(), v)[od];
      layout.shape[at] = t.getDimSize(od);
      break;
    }
  }
  return layout;
}

// index (advanced indexing): the broadcast index shape replaces the indexed
// dimensions when they are adjacent, else comes first; every other
// dimension of self is taken whole.
class IndexPattern : public OpRewritePattern<IndexOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(IndexOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = op.getSelf();
    auto resType = cast<RankedTensorType>(op.getType());
    int64_t selfRank = cast<RankedTensorType>(self.getType()).getRank();
    int64_t rank = resType.getRank();
    ArrayRef<int64_t> dims = op.getIndexedDims();
    ValueRange indices = op.getIndices();
    FailureOr<AdvancedIndexing> layout =
        advancedIndexing(rewriter, op, self, dims, indices, rank);
    if (failed(layout))
      return failure();
    int64_t indexRank = layout->indexRank, indexAt = layout->indexAt;
    ArrayRef<OpFoldResult> selfSizes = layout->selfSizes;
    ArrayRef<int64_t> resultDimOf = layout->dimOf;
    SmallVector<OpFoldResult> sizes = layout->sizes;
    SmallVector<int64_t> indexShape(resType.getShape().slice(indexAt, indexRank));
    SmallVector<AffineMap> maps;
    // Loop indexAt + r iterates index dim r; the other loops none.
    SmallVector<unsigned> loopDims(rank, ~0u);
    for (int64_t r = 0; r < indexRank; ++r)
      loopDims[indexAt + r] = r;
    for (Value v : indices)
      maps.push_back(broadcastMap(cast<RankedTensorType>(v.getType()),
                                  indexShape, rank, loopDims));
    Value init = emptyOfSizes(rewriter, loc, sizes, resType.getElementType());
    Value result = buildParallelGeneric(
        rewriter, loc, init, indices, maps,
        [&](OpBuilder &b, Location l, ValueRange a) {
          SmallVector<Value> at(selfRank);
          for (int64_t d = 0; d < selfRank; ++d) {
            auto k = llvm::find(dims, d);
            if (k == dims.end())
              at[d] = linalg::IndexOp::create(b, l, resultDimOf[d]);
            else
              at[d] = normalizedIndex(b, l, a[k - dims.begin()],
                                      toIndexValue(b, l, selfSizes[d]));
          }
          return Value(tensor::ExtractOp::create(b, l, self, at));
        });
    return replaceWithType(rewriter, op, result, resType);
  }
};

// copy: `src` broadcast and converted into the shape and dtype of `self`.
// In place (magi.copy's `in_place`), `self` is the generic's init, so the
// result takes self's buffer.
class CopyPattern : public OpRewritePattern<CopyOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CopyOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = op.getSelf(), src = op.getSrc();
    auto type = cast<RankedTensorType>(self.getType());
    auto srcType = cast<RankedTensorType>(src.getType());
    if (srcType.getRank() > type.getRank())
      return rewriter.notifyMatchFailure(op, "src has a higher rank than self");
    // In place without a conversion the generic would only yield its input,
    // which canonicalization folds away (and the write with it): say what
    // it is instead, a write of src into self's buffer.
    if (op.getInPlace() && srcType == type) {
      rewriter.replaceOp(op, bufferization::MaterializeInDestinationOp::create(
                                 rewriter, loc, type, src, self)
                                 .getResult());
      return success();
    }
    Value init = op.getInPlace()
                     ? self
                     : emptyOfSizes(rewriter, loc,
                                    tensor::getMixedSizes(rewriter, loc, self),
                                    type.getElementType());
    Value result = buildParallelGeneric(
        rewriter, loc, init, src,
        broadcastMap(srcType, type.getShape(), type.getRank()),
        [&](OpBuilder &b, Location l, ValueRange a) {
          return convertScalar(b, l, a[0], type.getElementType());
        });
    return replaceWithType(rewriter, op, result,
                           cast<RankedTensorType>(op.getType()));
  }
};

// index_put without accumulate: a scf.forall over the indexed shape (as
// magi.index's result) whose every iteration inserts one element of
// `values` (broadcast and converted first when it is not already of that
// shape and self's dtype) at the element of `self` its indices name. The
// loop's shared output is `self`: bufferization writes into self's buffer
// where it may (the piece argument of an in-place mutation, a KV cache:
// only the new elements are written) and copies self first elsewhere.
// Repeated indices race, as PyTorch leaves them undefined.
class IndexPutPattern : public OpRewritePattern<IndexPutOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(IndexPutOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getAccumulate())
      return rewriter.notifyMatchFailure(op, "accumulate needs atomic adds");
    Location loc = op.getLoc();
    Value self = op.getSelf();
    auto selfType = cast<RankedTensorType>(self.getType());
    int64_t selfRank = selfType.getRank();
    ArrayRef<int64_t> dims = op.getIndexedDims();
    ValueRange indices = op.getIndices();
    FailureOr<AdvancedIndexing> layout = advancedIndexing(rewriter, op, self, dims, indices);
    if (failed(layout))
      return failure();
    int64_t indexRank = layout->indexRank, indexAt = layout->indexAt;
    int64_t rank = static_cast<int64_t>(layout->shape.size());
    ArrayRef<OpFoldResult> selfSizes = layout->selfSizes;
    ArrayRef<int64_t> loopOf = layout->dimOf; // plain self dim -> loop
    ArrayRef<OpFoldResult> sizes = layout->sizes;
    ArrayRef<int64_t> shape = layout->shape;

    // The values, as a tensor of the indexed shape and self's dtype.
    Value values = op.getValues();
    auto valuesType = cast<RankedTensorType>(values.getType());
    auto wanted = RankedTensorType::get(shape, selfType.getElementType());
    if (valuesType != wanted) {
      if (valuesType.getRank() > rank)
        return rewriter.notifyMatchFailure(op, "values have a higher rank");
      Value init = emptyOfSizes(rewriter, loc, sizes, selfType.getElementType());
      values = buildParallelGeneric(
          rewriter, loc, init, values, broadcastMap(valuesType, shape, rank),
          [&](OpBuilder &b, Location l, ValueRange a) {
            return convertScalar(b, l, a[0], selfType.getElementType());
          });
    }

    auto loop = scf::ForallOp::create(rewriter, loc, sizes, ValueRange{self},
                                      std::nullopt);
    OpBuilder::InsertionGuard guard(rewriter);
    Block *body = loop.getBody();
    rewriter.setInsertionPoint(body->getTerminator());
    ValueRange ivs = body->getArguments().take_front(rank);
    Value dest = body->getArguments().back();
    // The element of self each iteration writes.
    SmallVector<OpFoldResult> at(selfRank);
    for (int64_t d = 0; d < selfRank; ++d) {
      auto k = llvm::find(dims, d);
      if (k == dims.end()) {
        at[d] = ivs[loopOf[d]];
        continue;
      }
      Value index = indices[k - dims.begin()];
      auto t = cast<RankedTensorType>(index.getType());
      SmallVector<Value> coords;
      for (int64_t od = 0; od < t.getRank(); ++od)
        coords.push_back(t.getDimSize(od) == 1
                             ? arith::ConstantIndexOp::create(rewriter, loc, 0).getResult()
                             : ivs[indexAt + indexRank - t.getRank() + od]);
      Value v = tensor::ExtractOp::create(rewriter, loc, index, coords);
      at[d] = normalizedIndex(rewriter, loc, v,
                              toIndexValue(rewriter, loc, selfSizes[d]));
    }
    auto scalar = RankedTensorType::get({}, selfType.getElementType());
    SmallVector<OpFoldResult> ones(rank, rewriter.getIndexAttr(1));
    Value element = tensor::ExtractSliceOp::create(
        rewriter, loc, scalar, values, SmallVector<OpFoldResult>(ivs), ones, ones);
    rewriter.setInsertionPointToStart(loop.getTerminator().getBody());
    SmallVector<OpFoldResult> selfOnes(selfRank, rewriter.getIndexAttr(1));
    tensor::ParallelInsertSliceOp::create(rewriter, loc, element, dest, at,
                                          selfOnes, selfOnes);
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

// scatter without a reduction (aten.scatter.src, scatter.value): as
// index_put, a scf.forall over index's shape whose every iteration inserts
// src at the same position (or the scalar), converted to self's dtype, at
// the element of self that index names along `dim` (the iteration's own
// position elsewhere). The loop's shared output is `self`, which
// bufferization copies first. Repeated indices race, as PyTorch leaves
// them undefined. A reduction (scatter_add, reduce="multiply") needs atomic
// updates and is not lowered.
class ScatterPattern : public OpRewritePattern<ScatterOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScatterOp op, PatternRewriter &rewriter) const override {
    if (op.getReduce())
      return rewriter.notifyMatchFailure(op, "a scatter reduction needs atomic updates");
    Location loc = op.getLoc();
    Value self = op.getSelf(), index = op.getIndex(), src = op.getSrc();
    auto selfType = cast<RankedTensorType>(self.getType());
    int64_t rank = selfType.getRank();
    if (rank == 0 || cast<RankedTensorType>(index.getType()).getRank() != rank)
      return rewriter.notifyMatchFailure(op, "index must have self's rank, at least 1");
    // I64Attr reads back unsigned: -1 is 2^64 - 1 until cast.
    int64_t dim = static_cast<int64_t>(op.getDim());
    dim = dim < 0 ? dim + rank : dim;
    if (dim < 0 || dim >= rank)
      return rewriter.notifyMatchFailure(op, "dim out of range");
    Type element = selfType.getElementType();
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, index);
    Value dimSize = getValueOrCreateConstantIndexOp(
        rewriter, loc, tensor::getMixedSize(rewriter, loc, self, dim));

    auto loop = scf::ForallOp::create(rewriter, loc, sizes, ValueRange{self}, std::nullopt);
    OpBuilder::InsertionGuard guard(rewriter);
    Block *body = loop.getBody();
    rewriter.setInsertionPoint(body->getTerminator());
    ValueRange ivs = body->getArguments().take_front(rank);
    Value dest = body->getArguments().back();
    SmallVector<OpFoldResult> at(ivs.begin(), ivs.end());
    at[dim] = normalizedIndex(rewriter, loc, tensor::ExtractOp::create(rewriter, loc, index, ivs),
                              dimSize);
    Value value = isa<RankedTensorType>(src.getType())
                      ? tensor::ExtractOp::create(rewriter, loc, src, ivs).getResult()
                      : src;
    value = convertScalar(rewriter, loc, value, element);
    Value scalar = tensor::FromElementsOp::create(
        rewriter, loc, RankedTensorType::get({}, element), value);
    rewriter.setInsertionPointToStart(loop.getTerminator().getBody());
    SmallVector<OpFoldResult> ones(rank, rewriter.getIndexAttr(1));
    tensor::ParallelInsertSliceOp::create(rewriter, loc, scalar, dest, at, ones, ones);
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

} // namespace

void magi::lower::populateIndexingPatterns(RewritePatternSet &patterns) {
  patterns.add<EmbeddingPattern, GatherPattern, IndexPattern,
               IndexSelectPattern, CopyPattern, IndexPutPattern, ScatterPattern>(
      patterns.getContext());
}
