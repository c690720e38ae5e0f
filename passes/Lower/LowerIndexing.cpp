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
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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

// The loop body's view of an indexed write: where iteration `ivs` writes
// in the destination and what it writes there (a scalar, or for
// writeEachIteration a 0-d tensor).
using PositionFn =
    llvm::function_ref<SmallVector<OpFoldResult>(OpBuilder &, Location, ValueRange)>;
using ValueFn = llvm::function_ref<Value(OpBuilder &, Location, ValueRange)>;

// `dest` with element(ivs) (a 0-d tensor) written at position(ivs) for
// every ivs in `sizes`:
// a scf.forall whose shared output is `dest`, so that bufferization writes
// in place where it may and copies `dest` first elsewhere. Iterations that
// write one element race (PyTorch leaves that undefined too).
Value writeEachIteration(OpBuilder &b, Location loc, Value dest,
                         ArrayRef<OpFoldResult> sizes, PositionFn position,
                         ValueFn element) {
  auto destType = cast<RankedTensorType>(dest.getType());
  auto loop = scf::ForallOp::create(b, loc, sizes, ValueRange{dest}, std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  Block *body = loop.getBody();
  b.setInsertionPoint(body->getTerminator());
  ValueRange ivs = body->getArguments().take_front(sizes.size());
  SmallVector<OpFoldResult> at = position(b, loc, ivs);
  Value value = element(b, loc, ivs);
  b.setInsertionPointToStart(loop.getTerminator().getBody());
  SmallVector<OpFoldResult> ones(destType.getRank(), b.getIndexAttr(1));
  tensor::ParallelInsertSliceOp::create(b, loc, value, body->getArguments().back(), at,
                                        ones, ones);
  return loop.getResult(0);
}

// A tensor no other value shares (bufferization.alloc_tensor), for
// updateBuffers to write through: uninitialized with `sizes`, or a copy of
// `copied`.
Value freshTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type element) {
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamic;
  for (OpFoldResult size : sizes) {
    std::optional<int64_t> c = getConstantIntValue(size);
    shape.push_back(c ? *c : ShapedType::kDynamic);
    if (!c)
      dynamic.push_back(toIndexValue(b, loc, size));
  }
  return bufferization::AllocTensorOp::create(b, loc, RankedTensorType::get(shape, element),
                                              dynamic);
}
Value freshCopy(OpBuilder &b, Location loc, Value copied) {
  return bufferization::AllocTensorOp::create(
      b, loc, cast<RankedTensorType>(copied.getType()), ValueRange{}, copied);
}

// Tensors have no atomic update, so the accumulating writes (scatter with a
// reduction, index_put with accumulate), and scatter's plain writes (whose
// scalar would otherwise be a 0-d tensor per iteration), update buffers:
// a scf.parallel over `sizes` updates the bufferization.to_buffer of each
// of `dests` with memref stores or atomics; to_tensor of each buffer is a
// result. Each dest must be a tensor of its own (freshTensor, freshCopy,
// or what an op wrote into one): to_buffer is pure, so CSE would give two
// updates of one value (x.scatter_add twice) one buffer, and so would two
// identical pure producers. The exception is a graph input the graph
// mutates, which only this op writes (an in-place index_put): its own
// buffer is updated. The buffers have the identity layout, as allocations
// and piece arguments do (a strided type would make every later use that
// needs the identity layout, a piece's result, a copy). On the GPU the
// loop is one kernel, a thread an iteration.
// A `prologue`, when given, is a loop of its own over the same sizes and
// buffers that runs first (include_self = false writes the identity).
using BufferLoopBody = llvm::function_ref<void(OpBuilder &, Location, ValueRange ivs,
                                               ValueRange buffers)>;
SmallVector<Value> updateBuffers(OpBuilder &b, Location loc, ValueRange dests,
                                 ArrayRef<OpFoldResult> sizes, BufferLoopBody prologue,
                                 BufferLoopBody body) {
  SmallVector<Value> buffers;
  for (Value dest : dests) {
    auto type = cast<RankedTensorType>(dest.getType());
    auto bufferType = MemRefType::get(type.getShape(), type.getElementType());
    buffers.push_back(bufferization::ToBufferOp::create(b, loc, bufferType, dest));
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> lower(sizes.size(), zero), steps(sizes.size(), one), upper;
  for (OpFoldResult size : sizes)
    upper.push_back(toIndexValue(b, loc, size));
  for (BufferLoopBody loopBody : {prologue, body})
    if (loopBody)
      scf::ParallelOp::create(b, loc, lower, upper, steps,
                              [&](OpBuilder &nested, Location l, ValueRange ivs) {
                                loopBody(nested, l, ivs, buffers);
                              });
  SmallVector<Value> results;
  for (auto [dest, buffer] : llvm::zip(dests, buffers))
    results.push_back(bufferization::ToTensorOp::create(b, loc, dest.getType(), buffer,
                                                        /*restrict=*/true,
                                                        /*writable=*/true));
  return results;
}

// The value a reduction starts from: x combined with it is x.
Value reductionIdentity(OpBuilder &b, Location loc, StringRef reduce, Type type) {
  if (reduce == "multiply")
    return typedConst(b, loc, type, 1);
  bool max = reduce == "amax";
  if (reduce != "amax" && reduce != "amin")
    return typedConst(b, loc, type, 0);
  if (auto f = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc, b.getFloatAttr(f, APFloat::getInf(f.getFloatSemantics(), /*Negative=*/max)));
  unsigned width = type.getIntOrFloatBitWidth();
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, max ? APInt::getSignedMinValue(width)
                                         : APInt::getSignedMaxValue(width)));
}

// The integer type of `type`'s bits (i16 for bf16).
IntegerType bitsType(Type type) {
  return IntegerType::get(type.getContext(), type.getIntOrFloatBitWidth());
}

// buffer[at] = buffer[at] `reduce` value, atomically. A float product has
// no atomic operation: the buffer then holds the floats' bits and a
// compare-and-swap loop multiplies (LLVM's atomics take integers there).
// Float max and min propagate NaN, as PyTorch's do.
void combineAtomically(OpBuilder &b, Location loc, StringRef reduce, Value value,
                       Value buffer, ValueRange at) {
  Type type = value.getType();
  bool isFloat = isa<FloatType>(type);
  if (reduce == "multiply") {
    auto update = memref::GenericAtomicRMWOp::create(b, loc, buffer, at);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(update.getBody());
    Value current = update.getCurrentValue();
    Value product;
    if (isFloat) {
      Value f = arith::BitcastOp::create(b, loc, type, current);
      product = arith::BitcastOp::create(b, loc, current.getType(),
                                         arith::MulFOp::create(b, loc, f, value));
    } else {
      product = arith::MulIOp::create(b, loc, current, value);
    }
    memref::AtomicYieldOp::create(b, loc, product);
    return;
  }
  arith::AtomicRMWKind kind =
      reduce == "amax"   ? (isFloat ? arith::AtomicRMWKind::maximumf : arith::AtomicRMWKind::maxs)
      : reduce == "amin" ? (isFloat ? arith::AtomicRMWKind::minimumf : arith::AtomicRMWKind::mins)
                         : (isFloat ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi);
  memref::AtomicRMWOp::create(b, loc, kind, value, buffer, at);
}

// scatter (aten.scatter.src, scatter.value, scatter_add, scatter.reduce,
// scatter_reduce.two): for every element of index, src at the same position
// (or the scalar), converted to self's dtype, goes to the element of self
// that index names along `dim` (the iteration's own position elsewhere).
// The loops update a copy of self (updateBuffers).
// - Without a reduction, a store; iterations that meet race, as PyTorch
//   leaves them undefined.
// - With one, it is combined atomically into a copy of
//   self (with include_self false, a first loop writes the identity at
//   every position index names), a float product through its bits, and
//   for "mean" a second buffer counts the values each element met, divided
//   at the end.
class ScatterPattern : public OpRewritePattern<ScatterOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScatterOp op, PatternRewriter &rewriter) const override {
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
    std::optional<StringRef> reduce = op.getReduce();
    if (reduce && element.isInteger(1))
      return rewriter.notifyMatchFailure(op, "no atomic updates of bool elements");
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, index);
    Value dimSize = getValueOrCreateConstantIndexOp(
        rewriter, loc, tensor::getMixedSize(rewriter, loc, self, dim));
    auto position = [&](OpBuilder &b, Location l, ValueRange ivs) {
      SmallVector<OpFoldResult> at(ivs.begin(), ivs.end());
      at[dim] = normalizedIndex(b, l, tensor::ExtractOp::create(b, l, index, ivs), dimSize);
      return at;
    };
    auto value = [&](OpBuilder &b, Location l, ValueRange ivs) {
      Value v = isa<RankedTensorType>(src.getType())
                    ? tensor::ExtractOp::create(b, l, src, ivs).getResult()
                    : src;
      return convertScalar(b, l, v, element);
    };
    if (!reduce) {
      SmallVector<Value> written = updateBuffers(
          rewriter, loc, freshCopy(rewriter, loc, self), sizes, /*prologue=*/{},
          [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange buffers) {
            memref::StoreOp::create(b, l, value(b, l, ivs), buffers[0],
                                    getValueOrCreateConstantIndexOp(b, l, position(b, l, ivs)));
          });
      rewriter.replaceOp(op, written[0]);
      return success();
    }

    // The updated tensors, each of its own: a copy of self (its bits,
    // written by the bitcast into a fresh tensor, for a float product), and
    // for mean the count, filled into a fresh tensor.
    SmallVector<OpFoldResult> selfSizes = tensor::getMixedSizes(rewriter, loc, self);
    SmallVector<AffineMap> identityMap{rewriter.getMultiDimIdentityMap(rank)};
    bool throughBits = isa<FloatType>(element) && *reduce == "multiply";
    Value dest = throughBits
                     ? buildParallelGeneric(
                           rewriter, loc, freshTensor(rewriter, loc, selfSizes, bitsType(element)),
                           self, identityMap,
                           [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                             return arith::BitcastOp::create(b, l, bitsType(element), a[0]);
                           })
                     : freshCopy(rewriter, loc, self);
    bool mean = *reduce == "mean";
    SmallVector<Value> dests{dest};
    if (mean)
      dests.push_back(
          linalg::FillOp::create(
              rewriter, loc, typedConst(rewriter, loc, element, op.getIncludeSelf() ? 1 : 0),
              freshTensor(rewriter, loc, selfSizes, element))
              .getResult(0));
    // Without self, every element index names first holds the identity
    // (plain stores: iterations that meet store the same value).
    auto writeIdentity = [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange buffers) {
      Value identity = reductionIdentity(b, l, *reduce, element);
      if (throughBits)
        identity = arith::BitcastOp::create(b, l, bitsType(element), identity);
      memref::StoreOp::create(b, l, identity, buffers[0],
                              getValueOrCreateConstantIndexOp(b, l, position(b, l, ivs)));
    };
    SmallVector<Value> updated = updateBuffers(
        rewriter, loc, dests, sizes,
        op.getIncludeSelf() ? BufferLoopBody() : BufferLoopBody(writeIdentity),
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange buffers) {
          SmallVector<Value> at =
              getValueOrCreateConstantIndexOp(b, l, position(b, l, ivs));
          combineAtomically(b, l, mean ? "add" : *reduce, value(b, l, ivs), buffers[0], at);
          if (mean)
            combineAtomically(b, l, "add", typedConst(b, l, element, 1), buffers[1], at);
        });
    Value result = updated[0];
    Value init = emptyOfSizes(rewriter, loc, selfSizes, element);
    if (throughBits)
      result = buildParallelGeneric(rewriter, loc, init, result, identityMap,
                                    [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                                      return arith::BitcastOp::create(b, l, element, a[0]);
                                    });
    if (mean) {
      // An element nothing met keeps its value; integers divide with floor
      // rounding, as PyTorch does.
      identityMap.push_back(identityMap.front());
      result = buildParallelGeneric(
          rewriter, loc, init, {result, updated[1]}, identityMap,
          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            Value zero = typedConst(b, l, element, 0);
            Value none, quotient;
            if (isa<FloatType>(element)) {
              none = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[1], zero);
              quotient = arith::DivFOp::create(b, l, a[0], a[1]);
            } else {
              none = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, a[1], zero);
              Value safe = arith::SelectOp::create(b, l, none, typedConst(b, l, element, 1), a[1]);
              quotient = arith::FloorDivSIOp::create(b, l, a[0], safe);
            }
            return arith::SelectOp::create(b, l, none, a[0], quotient);
          });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

// index_put: a loop over the indexed shape (as magi.index's result) whose
// every iteration writes one element of `values` (broadcast and converted
// first when it is not already of that shape and self's dtype) at the
// element of `self` its indices name. Without accumulate a scf.forall
// inserts it (writeEachIteration): bufferization writes into self's buffer
// where it may (the piece argument of an in-place mutation, a KV cache:
// only the new elements are written) and copies self first elsewhere;
// repeated indices race, as PyTorch leaves them undefined. With accumulate
// it is added atomically (updateBuffers), in self's own buffer when the
// op is an in-place mutation.
class IndexPutPattern : public OpRewritePattern<IndexPutOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(IndexPutOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = op.getSelf();
    auto selfType = cast<RankedTensorType>(self.getType());
    Type element = selfType.getElementType();
    if (op.getAccumulate() && element.isInteger(1))
      return rewriter.notifyMatchFailure(op, "no atomic updates of bool elements");
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
    auto wanted = RankedTensorType::get(shape, element);
    if (valuesType != wanted) {
      if (valuesType.getRank() > rank)
        return rewriter.notifyMatchFailure(op, "values have a higher rank");
      Value init = emptyOfSizes(rewriter, loc, sizes, element);
      values = buildParallelGeneric(
          rewriter, loc, init, values, broadcastMap(valuesType, shape, rank),
          [&](OpBuilder &b, Location l, ValueRange a) {
            return convertScalar(b, l, a[0], element);
          });
    }

    // The element of self an iteration writes.
    auto position = [&](OpBuilder &b, Location l, ValueRange ivs) {
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
                               ? arith::ConstantIndexOp::create(b, l, 0).getResult()
                               : ivs[indexAt + indexRank - t.getRank() + od]);
        Value v = tensor::ExtractOp::create(b, l, index, coords);
        at[d] = normalizedIndex(b, l, v, toIndexValue(b, l, selfSizes[d]));
      }
      return at;
    };
    if (!op.getAccumulate()) {
      auto scalar = RankedTensorType::get({}, element);
      rewriter.replaceOp(
          op, writeEachIteration(rewriter, loc, self, sizes, position,
                                 [&](OpBuilder &b, Location l, ValueRange ivs) -> Value {
                                   SmallVector<OpFoldResult> ones(rank, b.getIndexAttr(1));
                                   return tensor::ExtractSliceOp::create(
                                       b, l, scalar, values, SmallVector<OpFoldResult>(ivs),
                                       ones, ones);
                                 }));
      return success();
    }
    SmallVector<Value> updated = updateBuffers(
        rewriter, loc, op.getInPlace() ? self : freshCopy(rewriter, loc, self), sizes,
        /*prologue=*/{},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange buffers) {
          SmallVector<Value> at = getValueOrCreateConstantIndexOp(b, l, position(b, l, ivs));
          combineAtomically(b, l, "add", tensor::ExtractOp::create(b, l, values, ivs),
                            buffers[0], at);
        });
    rewriter.replaceOp(op, updated[0]);
    return success();
  }
};

} // namespace

void magi::lower::populateIndexingPatterns(RewritePatternSet &patterns) {
  patterns.add<EmbeddingPattern, GatherPattern, IndexPattern,
               IndexSelectPattern, CopyPattern, IndexPutPattern, ScatterPattern>(
      patterns.getContext());
}
