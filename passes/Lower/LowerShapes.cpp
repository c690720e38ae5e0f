//===- LowerShapes.cpp - Views, slices, concatenation, symbolic sizes -----===//
//
// Views of dense row-major data become tensor.collapse_shape /
// tensor.expand_shape (memref views after bufferization) when the
// reassociation follows from the static sizes, else a gathering generic.
// Slices are tensor.extract_slice; cat is tensor.insert_slice into an empty
// tensor; expand and constant_pad_nd are one generic. Symbolic integers
// become arith on `index`.
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalgCommon.h"
#include "llvm/ADT/StringSwitch.h"

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace magi;
using namespace magi::lower;

namespace {

//===----------------------------------------------------------------------===//
// view
//===----------------------------------------------------------------------===//

// Matching groups of source and result dimensions of a reshape.
struct ReshapeGroups {
  SmallVector<ReassociationIndices> src, dst;
};

// Groups the dimensions of `src` and `dst` so that each group has the same
// number of elements on both sides. Static groups are matched from both
// ends; what is left in the middle (all the dynamic dimensions) is one
// group, whose sizes agree because the whole tensors do. Fails when the
// middle has dynamic dimensions on one side only, or static sizes that do
// not divide.
FailureOr<ReshapeGroups> matchReshapeGroups(ArrayRef<int64_t> src,
                                            ArrayRef<int64_t> dst) {
  int64_t n = src.size(), m = dst.size();
  // Extends [i, ii) and [j, jj) (moving by `step`) until their static
  // products agree; false on a dynamic size or the end of either side.
  auto matchStatic = [&](int64_t &i, int64_t &j, int64_t iEnd, int64_t jEnd,
                         int64_t step, ReassociationIndices &gs,
                         ReassociationIndices &gd) {
    int64_t ps = 1, pd = 1;
    int64_t ii = i, jj = j;
    gs.clear();
    gd.clear();
    do {
      if (gs.empty() || ps < pd) {
        if (ii == iEnd || ShapedType::isDynamic(src[ii]))
          return false;
        ps *= src[ii];
        gs.push_back(ii);
        ii += step;
      } else {
        if (jj == jEnd || ShapedType::isDynamic(dst[jj]))
          return false;
        pd *= dst[jj];
        gd.push_back(jj);
        jj += step;
      }
    } while (ps != pd || gd.empty());
    i = ii;
    j = jj;
    if (step < 0) {
      std::reverse(gs.begin(), gs.end());
      std::reverse(gd.begin(), gd.end());
    }
    return true;
  };

  ReshapeGroups front, back;
  int64_t i = 0, j = 0, ie = n - 1, je = m - 1;
  ReassociationIndices gs, gd;
  while (i < n && j < m && matchStatic(i, j, ie + 1, je + 1, 1, gs, gd)) {
    front.src.push_back(gs);
    front.dst.push_back(gd);
  }
  while (ie >= i && je >= j && matchStatic(ie, je, i - 1, j - 1, -1, gs, gd)) {
    back.src.push_back(gs);
    back.dst.push_back(gd);
  }
  // The middle: [i, ie] and [j, je].
  ReassociationIndices midSrc, midDst;
  bool srcDynamic = false, dstDynamic = false;
  int64_t srcStatic = 1, dstStatic = 1;
  for (int64_t d = i; d <= ie; ++d) {
    midSrc.push_back(d);
    srcDynamic |= ShapedType::isDynamic(src[d]);
    if (!ShapedType::isDynamic(src[d]))
      srcStatic *= src[d];
  }
  for (int64_t d = j; d <= je; ++d) {
    midDst.push_back(d);
    dstDynamic |= ShapedType::isDynamic(dst[d]);
    if (!ShapedType::isDynamic(dst[d]))
      dstStatic *= dst[d];
  }
  ReshapeGroups groups = front;
  if (!midSrc.empty() || !midDst.empty()) {
    bool onlyUnits = !srcDynamic && !dstDynamic && srcStatic == 1 &&
                     dstStatic == 1;
    if (onlyUnits && (!groups.src.empty() || !back.src.empty())) {
      // Unit dimensions join a neighbouring group.
      if (!groups.src.empty()) {
        groups.src.back().append(midSrc.begin(), midSrc.end());
        groups.dst.back().append(midDst.begin(), midDst.end());
      } else {
        back.src.back().insert(back.src.back().begin(), midSrc.begin(),
                               midSrc.end());
        back.dst.back().insert(back.dst.back().begin(), midDst.begin(),
                               midDst.end());
      }
    } else {
      if (midSrc.empty() || midDst.empty() || srcDynamic != dstDynamic ||
          (!srcDynamic && srcStatic != dstStatic))
        return failure();
      groups.src.push_back(midSrc);
      groups.dst.push_back(midDst);
    }
  }
  for (auto it = back.src.rbegin(); it != back.src.rend(); ++it)
    groups.src.push_back(*it);
  for (auto it = back.dst.rbegin(); it != back.dst.rend(); ++it)
    groups.dst.push_back(*it);
  return groups;
}

// The sizes of a view's result: the listed sizes, with -1 inferred from the
// number of elements.
SmallVector<OpFoldResult> viewSizes(OpBuilder &b, Location loc, ViewOp op) {
  auto resType = cast<RankedTensorType>(op.getType());
  SmallVector<OpFoldResult> sizes =
      mixedList(op.getContext(), op.getStaticSizes(), op.getSizes());
  int64_t inferredAt = -1;
  OpFoldResult known = b.getIndexAttr(1);
  for (auto [d, s] : llvm::enumerate(sizes)) {
    if (!resType.isDynamicDim(d))
      s = b.getIndexAttr(resType.getDimSize(d));
    else if (isConstantIntValue(s, -1)) {
      inferredAt = d;
      continue;
    }
    known = mulIndex(b, loc, known, s);
  }
  if (inferredAt >= 0)
    sizes[inferredAt] = arith::DivUIOp::create(
                            b, loc, toIndexValue(b, loc, numElements(b, loc, op.getSelf())),
                            toIndexValue(b, loc, known))
                            .getResult();
  return sizes;
}

// The element of `src` at the row-major position of `index` in `sizes`.
Value gatherReshaped(OpBuilder &b, Location loc, Value src,
                     ArrayRef<OpFoldResult> sizes) {
  Value linear = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [d, s] : llvm::enumerate(sizes)) {
    linear = arith::MulIOp::create(b, loc, linear, toIndexValue(b, loc, s));
    linear = arith::AddIOp::create(b, loc, linear,
                                   linalg::IndexOp::create(b, loc, d));
  }
  int64_t rank = cast<RankedTensorType>(src.getType()).getRank();
  SmallVector<Value> indices(rank);
  for (int64_t d = rank - 1; d >= 0; --d) {
    Value size = tensor::DimOp::create(b, loc, src, d);
    indices[d] = arith::RemUIOp::create(b, loc, linear, size);
    linear = arith::DivUIOp::create(b, loc, linear, size);
  }
  return tensor::ExtractOp::create(b, loc, src, indices);
}

class ViewPattern : public OpRewritePattern<ViewOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ViewOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = op.getSelf();
    auto srcType = cast<RankedTensorType>(src.getType());
    auto resType = cast<RankedTensorType>(op.getType());
    SmallVector<OpFoldResult> sizes = viewSizes(rewriter, loc, op);
    // No elements (a static size 0): nothing to move, and collapsing a
    // group that holds a 0 beside dynamic sizes gives a collapse_shape that
    // canonicalizes into an invalid one.
    if (llvm::is_contained(srcType.getShape(), 0)) {
      Value empty = emptyOfSizes(rewriter, loc, sizes, resType.getElementType());
      rewriter.replaceOp(op, tensor::CastOp::create(rewriter, loc, resType, empty));
      return success();
    }
    FailureOr<ReshapeGroups> groups =
        matchReshapeGroups(srcType.getShape(), resType.getShape());
    // An expand_shape group of two or more dynamic sizes crashes LLVM 22's
    // expand-strided-metadata (llvm/llvm-project#186830, fixed for LLVM
    // 23): such a view is a gather instead.
    auto expandsTwoDynamic = [&](const ReshapeGroups &g) {
      return llvm::any_of(g.dst, [&](const ReassociationIndices &r) {
        return llvm::count_if(r, [&](int64_t d) { return resType.isDynamicDim(d); }) > 1;
      });
    };
    if (failed(groups) || expandsTwoDynamic(*groups)) {
      // A gather: result element i is source element i (row-major).
      Value init = emptyOfSizes(rewriter, loc, sizes, resType.getElementType());
      Value result = buildParallelGeneric(
          rewriter, loc, init, {}, {},
          [&](OpBuilder &b, Location l, ValueRange) {
            return gatherReshaped(b, l, src, sizes);
          });
      rewriter.replaceOp(op, tensor::CastOp::create(rewriter, loc, resType, result));
      return success();
    }
    auto allSingletons = [](ArrayRef<ReassociationIndices> g) {
      return llvm::all_of(g, [](const ReassociationIndices &r) {
        return r.size() == 1;
      });
    };
    Value result = src;
    if (!allSingletons(groups->src) || srcType.getRank() == 0)
      result = tensor::CollapseShapeOp::create(rewriter, loc, result, groups->src);
    if (!allSingletons(groups->dst) || resType.getRank() == 0) {
      // The collapsed shape: each group's size, static when the result's is.
      SmallVector<int64_t> mid;
      for (const ReassociationIndices &g : groups->dst) {
        int64_t p = 1;
        for (int64_t d : g)
          p = ShapedType::isDynamic(resType.getDimSize(d)) || ShapedType::isDynamic(p)
                  ? ShapedType::kDynamic
                  : p * resType.getDimSize(d);
        mid.push_back(p);
      }
      auto midType = RankedTensorType::get(mid, resType.getElementType());
      if (result.getType() != midType)
        result = tensor::CastOp::create(rewriter, loc, midType, result);
      result = tensor::ExpandShapeOp::create(rewriter, loc, resType, result,
                                             groups->dst, sizes);
    }
    return replaceWithType(rewriter, op, result, resType);
  }
};

//===----------------------------------------------------------------------===//
// unsqueeze, squeeze, permute, expand
//===----------------------------------------------------------------------===//

class UnsqueezePattern : public OpRewritePattern<UnsqueezeOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(UnsqueezeOp op,
                                PatternRewriter &rewriter) const override {
    auto resType = cast<RankedTensorType>(op.getType());
    int64_t rank = resType.getRank();
    FailureOr<int64_t> dim =
        normalizedDim(rewriter, op, static_cast<int64_t>(op.getDim()), rank);
    if (failed(dim))
      return failure();
    SmallVector<bool> isUnit(rank, false);
    isUnit[*dim] = true;
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, op.getLoc(), op.getSelf());
    sizes.insert(sizes.begin() + *dim, rewriter.getIndexAttr(1));
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, resType, op.getSelf(), unitDimGroups(isUnit), sizes);
    return success();
  }
};

// squeeze: the listed dimensions that are static 1 go (a dynamic dimension
// is never 1).
class SqueezePattern : public OpRewritePattern<SqueezeOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SqueezeOp op,
                                PatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getSelf().getType());
    int64_t rank = srcType.getRank();
    SmallVector<bool> isUnit(rank, false);
    for (int64_t d : op.getDims()) {
      FailureOr<int64_t> nd = normalizedDim(rewriter, op, d, rank);
      if (failed(nd))
        return failure();
      if (rank > 0 && srcType.getDimSize(*nd) == 1)
        isUnit[*nd] = true;
    }
    if (llvm::count(isUnit, true) == 0) {
      rewriter.replaceOpWithNewOp<tensor::CastOp>(op, op.getType(), op.getSelf());
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        op, op.getType(), op.getSelf(), unitDimGroups(isUnit));
    return success();
  }
};

class PermutePattern : public OpRewritePattern<PermuteOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PermuteOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t rank = cast<RankedTensorType>(op.getSelf().getType()).getRank();
    SmallVector<OpFoldResult> srcSizes =
        tensor::getMixedSizes(rewriter, loc, op.getSelf());
    SmallVector<int64_t> perm;
    SmallVector<OpFoldResult> sizes;
    for (int64_t d : op.getDims()) {
      FailureOr<int64_t> nd = normalizedDim(rewriter, op, d, rank);
      if (failed(nd))
        return failure();
      perm.push_back(*nd);
      sizes.push_back(srcSizes[*nd]);
    }
    Value init = emptyOfSizes(rewriter, loc, sizes,
                              op.getType().getElementType());
    Value result =
        linalg::TransposeOp::create(rewriter, loc, op.getSelf(), init, perm)
            ->getResult(0);
    if (result.getType() != op.getType())
      result = tensor::CastOp::create(rewriter, loc, op.getType(), result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

// expand: one generic reading the size-1 dimensions at index 0; the operand
// itself when nothing broadcasts.
class ExpandPattern : public OpRewritePattern<ExpandOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ExpandOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = op.getSelf();
    auto srcType = cast<RankedTensorType>(src.getType());
    auto resType = cast<RankedTensorType>(op.getType());
    int64_t rank = resType.getRank(), lead = rank - srcType.getRank();
    if (lead < 0)
      return rewriter.notifyMatchFailure(op, "fewer sizes than dimensions");
    SmallVector<OpFoldResult> listed =
        mixedList(op.getContext(), op.getStaticSizes(), op.getSizes());
    SmallVector<OpFoldResult> srcSizes = tensor::getMixedSizes(rewriter, loc, src);
    SmallVector<OpFoldResult> sizes;
    bool broadcasts = lead > 0;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t sd = d - lead;
      if (!resType.isDynamicDim(d))
        sizes.push_back(rewriter.getIndexAttr(resType.getDimSize(d)));
      else if (sd >= 0 && (isConstantIntValue(listed[d], -1) ||
                           srcType.isDynamicDim(sd)))
        sizes.push_back(srcSizes[sd]);
      else
        sizes.push_back(listed[d]);
      if (sd >= 0 && srcType.getDimSize(sd) == 1 && resType.getDimSize(d) != 1)
        broadcasts = true;
    }
    if (!broadcasts) {
      Value result = src;
      return replaceWithType(rewriter, op, result, resType);
    }
    Value init = emptyOfSizes(rewriter, loc, sizes, resType.getElementType());
    Value result = buildParallelGeneric(
        rewriter, loc, init, src, broadcastMap(srcType, resType.getShape(), rank),
        [](OpBuilder &, Location, ValueRange a) { return a[0]; });
    return replaceWithType(rewriter, op, result, resType);
  }
};

//===----------------------------------------------------------------------===//
// slice, select, split_with_sizes, cat
//===----------------------------------------------------------------------===//

// A Python bound into [0, size]: negative counts from the end, then clamped.
OpFoldResult clampBound(OpBuilder &b, Location loc, OpFoldResult bound,
                        OpFoldResult size) {
  std::optional<int64_t> c = getConstantIntValue(bound);
  if (c && *c >= 0) {
    if (!getConstantIntValue(size) && *c >= (int64_t{1} << 62))
      return size; // "to the end"
    return minIndex(b, loc, bound, size);
  }
  if (c) // negative: size + c, at least 0
    return maxIndex(b, loc, addIndex(b, loc, size, bound), b.getIndexAttr(0));
  Value v = toIndexValue(b, loc, bound);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v, zero);
  Value fromEnd = arith::MaxSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, v, toIndexValue(b, loc, size)), zero);
  Value wrapped = arith::SelectOp::create(b, loc, negative, fromEnd, v);
  return arith::MinSIOp::create(b, loc, wrapped, toIndexValue(b, loc, size))
      .getResult();
}

// The static size of dimension `d` of `type` where it has one, else `size`.
OpFoldResult preferStatic(OpBuilder &b, RankedTensorType type, int64_t d,
                          OpFoldResult size) {
  if (!type.isDynamicDim(d))
    return b.getIndexAttr(type.getDimSize(d));
  return size;
}

// Where a Python slice [start:end:step] of a dimension of `size` lies: its
// offset, length and step, the bounds clamped as Python clamps them. A start
// clamped to the end of a static dimension gives offset 0 and length 0
// (tensor.extract_slice refuses an offset at the end even for none).
struct SliceRange {
  OpFoldResult offset, length, step;
};
static SliceRange resolveSliceRange(PatternRewriter &rewriter, Location loc,
                                    ArrayRef<OpFoldResult> bounds,
                                    OpFoldResult size) {
  OpFoldResult start = clampBound(rewriter, loc, bounds[0], size);
  OpFoldResult end = clampBound(rewriter, loc, bounds[1], size);
  OpFoldResult step = bounds[2];
  // max(ceil((end - start) / step), 0)
  OpFoldResult length;
  std::optional<int64_t> cs = getConstantIntValue(start),
                         ce = getConstantIntValue(end),
                         cst = getConstantIntValue(step);
  if (cs && ce && cst) {
    // The bounds are clamped already: resolveSliceBounds's length.
    length = rewriter.getIndexAttr(resolveSliceBounds(*ce, *cs, *ce, *cst).length);
  } else {
    Value span = toIndexValue(rewriter, loc, subIndex(rewriter, loc, end, start));
    Value n = isConstantIntValue(step, 1)
                  ? span
                  : Value(arith::CeilDivSIOp::create(
                        rewriter, loc, span, toIndexValue(rewriter, loc, step)));
    length = maxIndex(rewriter, loc, n, rewriter.getIndexAttr(0));
  }
  std::optional<int64_t> staticSize = getConstantIntValue(size);
  if (cs && staticSize && *cs >= *staticSize)
    return {rewriter.getIndexAttr(0), rewriter.getIndexAttr(0),
            rewriter.getIndexAttr(1)};
  return {start, length, step};
}

// A select's index along a dimension of `size`; a negative index counts
// from the end.
static OpFoldResult wrapIndex(PatternRewriter &rewriter, Location loc,
                              OpFoldResult index, OpFoldResult size) {
  if (std::optional<int64_t> c = getConstantIntValue(index))
    return *c < 0 ? addIndex(rewriter, loc, size, index) : index;
  Value v = toIndexValue(rewriter, loc, index);
  Value negative = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::slt, v,
      arith::ConstantIndexOp::create(rewriter, loc, 0));
  return arith::SelectOp::create(
             rewriter, loc, negative,
             arith::AddIOp::create(rewriter, loc, v,
                                   toIndexValue(rewriter, loc, size)),
             v)
      .getResult();
}

// The offsets, sizes and strides of the part of `tensor` that a slice
// (start:end:step along dim) or a select (an index along dim, size 1) of it
// names; a match failure for an out-of-range dim or malformed bounds.
struct SlicePart {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  int64_t dim;
};

template <typename SliceOpT>
static FailureOr<SlicePart> slicePart(PatternRewriter &rewriter, SliceOpT op,
                                      Value tensor) {
  Location loc = op.getLoc();
  int64_t rank = cast<RankedTensorType>(tensor.getType()).getRank();
  FailureOr<int64_t> dim =
      normalizedDim(rewriter, op, static_cast<int64_t>(op.getDim()), rank);
  if (failed(dim))
    return failure();
  SmallVector<OpFoldResult> bounds =
      mixedList(op.getContext(), op.getStaticBounds(), op.getBounds());
  if (bounds.size() != 3)
    return rewriter.notifyMatchFailure(op, "expected [start, end, step]");
  SlicePart part{SmallVector<OpFoldResult>(rank, rewriter.getIndexAttr(0)),
                 tensor::getMixedSizes(rewriter, loc, tensor),
                 SmallVector<OpFoldResult>(rank, rewriter.getIndexAttr(1)), *dim};
  SliceRange range = resolveSliceRange(rewriter, loc, bounds, part.sizes[*dim]);
  part.offsets[*dim] = range.offset;
  part.strides[*dim] = range.step;
  part.sizes[*dim] = range.length;
  return part;
}

template <typename SelectOpT>
static FailureOr<SlicePart> selectPart(PatternRewriter &rewriter, SelectOpT op,
                                       Value tensor) {
  Location loc = op.getLoc();
  int64_t rank = cast<RankedTensorType>(tensor.getType()).getRank();
  if (rank == 0)
    return rewriter.notifyMatchFailure(op, "a select of a 0-d tensor");
  FailureOr<int64_t> dim =
      normalizedDim(rewriter, op, static_cast<int64_t>(op.getDim()), rank);
  if (failed(dim))
    return failure();
  SlicePart part{SmallVector<OpFoldResult>(rank, rewriter.getIndexAttr(0)),
                 tensor::getMixedSizes(rewriter, loc, tensor),
                 SmallVector<OpFoldResult>(rank, rewriter.getIndexAttr(1)), *dim};
  part.offsets[*dim] = wrapIndex(
      rewriter, loc,
      mixedList(op.getContext(), op.getStaticIndex(), op.getIndex()).front(),
      part.sizes[*dim]);
  part.sizes[*dim] = rewriter.getIndexAttr(1);
  return part;
}

class SlicePattern : public OpRewritePattern<SliceOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto resType = cast<RankedTensorType>(op.getType());
    FailureOr<SlicePart> part = slicePart(rewriter, op, op.getSelf());
    if (failed(part))
      return failure();
    for (int64_t d = 0; d < resType.getRank(); ++d)
      part->sizes[d] = preferStatic(rewriter, resType, d, part->sizes[d]);
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, resType, op.getSelf(), part->offsets, part->sizes, part->strides);
    return success();
  }
};

class SelectPattern : public OpRewritePattern<SelectOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SelectOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<SlicePart> part = selectPart(rewriter, op, op.getSelf());
    if (failed(part))
      return failure();
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, cast<RankedTensorType>(op.getType()), op.getSelf(), part->offsets,
        part->sizes, part->strides);
    return success();
  }
};

// slice_scatter and select_scatter: `self` with the part a slice or a
// select of it names replaced by `src` (a tensor.insert_slice, rank-reducing
// for select_scatter), at the part's offsets and strides.
template <typename ScatterOpT, bool isSelect>
class InsertPartPattern : public OpRewritePattern<ScatterOpT> {
public:
  using OpRewritePattern<ScatterOpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(ScatterOpT op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = op.getSelf(), src = op.getSrc();
    FailureOr<SlicePart> part = failure();
    if constexpr (isSelect)
      part = selectPart(rewriter, op, self);
    else
      part = slicePart(rewriter, op, self);
    if (failed(part))
      return failure();
    // A slice's sizes are src's (equal to the slice's, which the verifier
    // checks as far as they are static).
    if (!isSelect)
      part->sizes = tensor::getMixedSizes(rewriter, loc, src);
    Value result = tensor::InsertSliceOp::create(
        rewriter, loc, src, self, part->offsets, part->sizes, part->strides);
    rewriter.replaceOp(op, tensor::CastOp::create(rewriter, loc, op.getType(), result));
    return success();
  }
};

class SplitWithSizesPattern : public OpRewritePattern<SplitWithSizesOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SplitWithSizesOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = op.getSelf();
    int64_t rank = cast<RankedTensorType>(src.getType()).getRank();
    FailureOr<int64_t> dim =
        normalizedDim(rewriter, op, static_cast<int64_t>(op.getDim()), rank);
    if (failed(dim))
      return failure();
    SmallVector<OpFoldResult> splits = mixedList(
        op.getContext(), op.getStaticSplitSizes(), op.getSplitSizes());
    if (splits.size() != op.getNumResults())
      return rewriter.notifyMatchFailure(op, "one size per result");
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, src);
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    SmallVector<Value> results;
    for (auto [split, result] : llvm::zip(splits, op.getResults())) {
      auto type = cast<RankedTensorType>(result.getType());
      sizes[*dim] = split;
      SmallVector<OpFoldResult> pieceSizes;
      for (int64_t d = 0; d < rank; ++d)
        pieceSizes.push_back(preferStatic(rewriter, type, d, sizes[d]));
      results.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, type, src, offsets, pieceSizes, strides));
      offsets[*dim] = addIndex(rewriter, loc, offsets[*dim], split);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

// cat: each operand inserted into an empty result at its offset.
class CatPattern : public OpRewritePattern<CatOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CatOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resType = cast<RankedTensorType>(op.getType());
    int64_t rank = resType.getRank();
    if (rank == 0)
      return rewriter.notifyMatchFailure(op, "0-d cat");
    FailureOr<int64_t> dim =
        normalizedDim(rewriter, op, static_cast<int64_t>(op.getDim()), rank);
    if (failed(dim))
      return failure();
    SmallVector<Value> inputs;
    for (Value v : op.getTensors())
      if (cast<RankedTensorType>(v.getType()).getRank() == rank)
        inputs.push_back(v); // PyTorch skips 1-d empty legacy operands
    if (inputs.empty())
      return rewriter.notifyMatchFailure(op, "no operand of the result's rank");
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, inputs.front());
    OpFoldResult total = rewriter.getIndexAttr(0);
    for (Value v : inputs)
      total = addIndex(rewriter, loc, total,
                       tensor::getMixedSizes(rewriter, loc, v)[*dim]);
    sizes[*dim] = total;
    for (int64_t d = 0; d < rank; ++d)
      sizes[d] = preferStatic(rewriter, resType, d, sizes[d]);
    Value result = emptyOfSizes(rewriter, loc, sizes, resType.getElementType());
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    for (Value v : inputs) {
      Value converted = convertElements(rewriter, loc, v, resType.getElementType());
      SmallVector<OpFoldResult> vSizes =
          tensor::getMixedSizes(rewriter, loc, converted);
      result = tensor::InsertSliceOp::create(rewriter, loc, converted, result,
                                             offsets, vSizes, strides);
      offsets[*dim] = addIndex(rewriter, loc, offsets[*dim], vSizes[*dim]);
    }
    return replaceWithType(rewriter, op, result, resType);
  }
};

//===----------------------------------------------------------------------===//
// constant_pad_nd
//===----------------------------------------------------------------------===//

// One generic over the padded shape: the source element where the position
// minus the leading pad is inside the source, else the pad value. Negative
// pads crop. The read index is clamped so that it stays in bounds.
class ConstantPadPattern : public OpRewritePattern<ConstantPadNdOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConstantPadNdOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = op.getSelf();
    auto resType = cast<RankedTensorType>(op.getType());
    int64_t rank = resType.getRank();
    SmallVector<OpFoldResult> pad =
        mixedList(op.getContext(), op.getStaticPad(), op.getPad());
    if (pad.size() % 2 != 0 || static_cast<int64_t>(pad.size()) > 2 * rank)
      return rewriter.notifyMatchFailure(op, "bad pad list");
    SmallVector<OpFoldResult> srcSizes = tensor::getMixedSizes(rewriter, loc, src);
    SmallVector<OpFoldResult> before(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes(srcSizes);
    for (size_t i = 0; i < pad.size() / 2; ++i) {
      int64_t d = rank - 1 - static_cast<int64_t>(i);
      before[d] = pad[2 * i];
      sizes[d] = addIndex(rewriter, loc, sizes[d],
                          addIndex(rewriter, loc, pad[2 * i], pad[2 * i + 1]));
    }
    for (int64_t d = 0; d < rank; ++d)
      sizes[d] = preferStatic(rewriter, resType, d, sizes[d]);
    Type el = resType.getElementType();
    double padValue = op.getValue().convertToDouble();
    Value init = emptyOfSizes(rewriter, loc, sizes, el);
    Value result = buildParallelGeneric(
        rewriter, loc, init, {}, {}, [&](OpBuilder &b, Location l, ValueRange) {
          Value inside;
          SmallVector<Value> indices;
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          for (int64_t d = 0; d < rank; ++d) {
            Value size = toIndexValue(b, l, srcSizes[d]);
            Value at = arith::SubIOp::create(b, l, linalg::IndexOp::create(b, l, d),
                                             toIndexValue(b, l, before[d]));
            Value ok = arith::AndIOp::create(
                b, l,
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, at, zero),
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, at, size));
            inside = inside ? Value(arith::AndIOp::create(b, l, inside, ok)) : ok;
            Value last = arith::SubIOp::create(
                b, l, size, arith::ConstantIndexOp::create(b, l, 1));
            indices.push_back(arith::MaxSIOp::create(
                b, l, arith::MinSIOp::create(b, l, at, last), zero));
          }
          Value fill = convertScalar(
              b, l, floatConst(b, l, b.getF64Type(), padValue), el);
          if (!inside)
            return Value(tensor::ExtractOp::create(b, l, src, indices));
          Value x = tensor::ExtractOp::create(b, l, src, indices);
          return Value(arith::SelectOp::create(b, l, inside, x, fill));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Symbolic integers
//===----------------------------------------------------------------------===//

class SymSizePattern : public OpRewritePattern<SymSizeOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SymSizeOp op,
                                PatternRewriter &rewriter) const override {
    int64_t rank = cast<RankedTensorType>(op.getSelf().getType()).getRank();
    FailureOr<int64_t> dim =
        normalizedDim(rewriter, op, static_cast<int64_t>(op.getDim()), rank);
    if (failed(dim))
      return failure();
    rewriter.replaceOpWithNewOp<tensor::DimOp>(op, op.getSelf(), *dim);
    return success();
  }
};

// The element as a scalar, read on the host once the piece computing the
// tensor has run (magi-split makes each item a piece of its own). Its
// bound goes on the result of the function returning it
// (`magi.read_bound`: a number, or `argN`; `magi.read_clamped` with it
// when any value may be read), where the launch plan finds it;
// a value that gives no size (magi.read_any_value) needs none.
class ItemPattern : public OpRewritePattern<ItemOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ItemOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getSelf().getType());
    auto func = op->getParentOfType<func::FuncOp>();
    if (op->hasAttr(kReadAnyValueAttr)) {
      for (OpOperand &use : op.getResult().getUses())
        if (isa<func::ReturnOp>(use.getOwner()) && func)
          func.setResultAttr(use.getOperandNumber(), kReadAnyValueAttr, rewriter.getUnitAttr());
    } else if (Value bound = op.getBound()) {
      std::string text;
      APInt value;
      if (matchPattern(bound, m_ConstantInt(&value)))
        text = std::to_string(value.getSExtValue());
      else if (auto arg = dyn_cast<BlockArgument>(bound); arg && func &&
                                                           arg.getOwner() == &func.getBody().front())
        text = "arg" + std::to_string(arg.getArgNumber());
      else
        return rewriter.notifyMatchFailure(op, "a bound that is no constant or argument");
      for (OpOperand &use : op.getResult().getUses())
        if (isa<func::ReturnOp>(use.getOwner()) && func) {
          func.setResultAttr(use.getOperandNumber(), kReadBoundAttr,
                             rewriter.getStringAttr(text));
          if (op.getClamped())
            func.setResultAttr(use.getOperandNumber(), kReadClampedAttr, rewriter.getUnitAttr());
        }
    }
    SmallVector<Value> zeros(type.getRank(), arith::ConstantIndexOp::create(rewriter, loc, 0));
    Value element = tensor::ExtractOp::create(rewriter, loc, op.getSelf(), zeros);
    Type elementType = type.getElementType();
    Value scalar;
    if (isa<FloatType>(elementType))
      scalar = elementType.isF64() ? element
                                   : arith::ExtFOp::create(rewriter, loc, rewriter.getF64Type(), element);
    else if (elementType.isInteger(1) || elementType.isUnsignedInteger())
      scalar = arith::IndexCastUIOp::create(
          rewriter, loc, rewriter.getIndexType(),
          elementType.isUnsignedInteger()
              ? arith::BitcastOp::create(
                    rewriter, loc,
                    rewriter.getIntegerType(elementType.getIntOrFloatBitWidth()), element)
                    .getResult()
              : element);
    else
      scalar = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), element);
    rewriter.replaceOp(op, scalar);
    return success();
  }
};

template <typename SymOp, typename ArithOp>
class SymBinaryPattern : public OpRewritePattern<SymOp> {
public:
  using OpRewritePattern<SymOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(SymOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ArithOp>(op, op.getLhs(), op.getRhs());
    return success();
  }
};

// A divisor of 0 or -1 never reaches a division (x86 traps on both: by
// zero, and INT64_MIN / -1): the divisor becomes 1 and the caller selects
// the result for -1. Selects and comparisons only, which launch plans
// carry as expressions. Returns {divisor, isMinusOne}.
static std::pair<Value, Value> guardedDivisor(PatternRewriter &rewriter,
                                              Location loc, Value divisor) {
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  using P = arith::CmpIPredicate;
  Value one = constant(1);
  Value byZero =
      arith::CmpIOp::create(rewriter, loc, P::eq, divisor, constant(0));
  Value byMinusOne =
      arith::CmpIOp::create(rewriter, loc, P::eq, divisor, constant(-1));
  Value safe = arith::SelectOp::create(
      rewriter, loc, byZero, one,
      arith::SelectOp::create(rewriter, loc, byMinusOne, one, divisor));
  return {safe, byMinusOne};
}

// Python's a // b; a // -1 is -a (wrapping: INT64_MIN // -1 is INT64_MIN,
// as the interpreter computes it), a // 0 gives a (the interpreter refuses
// it; lowered code has no way to).
class SymFloorDivPattern : public OpRewritePattern<SymFloorDivOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SymFloorDivOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto [divisor, byMinusOne] = guardedDivisor(rewriter, loc, op.getRhs());
    Value q = arith::FloorDivSIOp::create(rewriter, loc, op.getLhs(), divisor);
    Value negated = arith::SubIOp::create(
        rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, 0),
        op.getLhs());
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, byMinusOne, negated, q);
    return success();
  }
};

// Python's a % b (the sign of b): r = a rem b, plus b when r is nonzero and
// its sign is not b's (never overflows), all on index; a % -1 is 0 (and
// a % 0 gives 0), without a trapping division.
class SymModPattern : public OpRewritePattern<SymModOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SymModOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value b = guardedDivisor(rewriter, loc, op.getRhs()).first;
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value r = arith::RemSIOp::create(rewriter, loc, op.getLhs(), b);
    Value adjusted = arith::AddIOp::create(rewriter, loc, r, b);
    using P = arith::CmpIPredicate;
    auto cmp = [&](P p, Value x) {
      return arith::CmpIOp::create(rewriter, loc, p, x, zero);
    };
    // b < 0: a positive r gets b added; b > 0: a negative r does.
    Value ifNegative = arith::SelectOp::create(rewriter, loc, cmp(P::sgt, r),
                                               adjusted, r);
    Value ifPositive = arith::SelectOp::create(rewriter, loc, cmp(P::slt, r),
                                               adjusted, r);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, cmp(P::slt, b),
                                                 ifNegative, ifPositive);
    return success();
  }
};

// SymBools (a cond's predicate on sizes): comparisons and logic on i1.
class SymComparePattern : public OpRewritePattern<SymCompareOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SymCompareOp op,
                                PatternRewriter &rewriter) const override {
    using P = arith::CmpIPredicate;
    std::optional<P> predicate = llvm::StringSwitch<std::optional<P>>(op.getPredicate())
                                     .Case("eq", P::eq)
                                     .Case("ne", P::ne)
                                     .Case("lt", P::slt)
                                     .Case("le", P::sle)
                                     .Case("gt", P::sgt)
                                     .Case("ge", P::sge)
                                     .Default(std::nullopt);
    if (!predicate)
      return rewriter.notifyMatchFailure(op, "unknown predicate");
    rewriter.replaceOpWithNewOp<arith::CmpIOp>(op, *predicate, op.getLhs(), op.getRhs());
    return success();
  }
};

class SymNotPattern : public OpRewritePattern<SymNotOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SymNotOp op,
                                PatternRewriter &rewriter) const override {
    Value one = arith::ConstantOp::create(rewriter, op.getLoc(), rewriter.getBoolAttr(true));
    rewriter.replaceOpWithNewOp<arith::XOrIOp>(op, op.getOperand(), one);
    return success();
  }
};

// Bindings only describe shapes; lowered pieces carry their sizes in their
// types and tensor.dim.
class EraseBindingPattern : public OpRewritePattern<BindSymbolicShapeOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BindSymbolicShapeOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

class EraseUnusedSymbolPattern : public OpRewritePattern<SymbolicIntOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SymbolicIntOp op,
                                PatternRewriter &rewriter) const override {
    if (!op->use_empty())
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

// tril/triu: one generic keeping element (i, j) of the last two
// dimensions where j - i <= diagonal (tril) or >= diagonal (triu), zero
// elsewhere.
template <typename TriangleOp, bool lower>
class TrianglePattern : public OpRewritePattern<TriangleOp> {
public:
  using OpRewritePattern<TriangleOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(TriangleOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = op.getSelf();
    auto type = cast<RankedTensorType>(src.getType());
    int64_t rank = type.getRank();
    if (rank < 2)
      return rewriter.notifyMatchFailure(op, "needs a tensor of rank >= 2");
    auto diagonal = static_cast<int64_t>(op.getDiagonal());
    Value init = emptyOfSizes(rewriter, loc,
                              tensor::getMixedSizes(rewriter, loc, src),
                              type.getElementType());
    Value result = buildParallelGeneric(
        rewriter, loc, init, src, rewriter.getMultiDimIdentityMap(rank),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value row = linalg::IndexOp::create(b, l, rank - 2);
          Value col = linalg::IndexOp::create(b, l, rank - 1);
          Value offset = arith::SubIOp::create(b, l, col, row);
          Value keep = arith::CmpIOp::create(
              b, l,
              lower ? arith::CmpIPredicate::sle : arith::CmpIPredicate::sge,
              offset, arith::ConstantIndexOp::create(b, l, diagonal));
          Value zero = typedConst(b, l, type.getElementType(), 0.0);
          return arith::SelectOp::create(b, l, keep, a[0], zero);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

// flip: one generic reading the source at (size - 1 - index) in each
// flipped dimension.
class FlipPattern : public OpRewritePattern<FlipOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FlipOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = op.getSelf();
    auto type = cast<RankedTensorType>(src.getType());
    int64_t rank = type.getRank();
    SmallVector<bool> flipped(rank, false);
    for (int64_t d : op.getDims()) {
      FailureOr<int64_t> n = normalizedDim(rewriter, op, d, rank);
      if (failed(n))
        return failure();
      if (rank > 0)
        flipped[*n] = true;
    }
    Value init = emptyOfSizes(rewriter, loc,
                              tensor::getMixedSizes(rewriter, loc, src),
                              type.getElementType());
    Value result = buildParallelGeneric(
        rewriter, loc, init, {}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          SmallVector<Value> indices;
          for (int64_t d = 0; d < rank; ++d) {
            Value i = linalg::IndexOp::create(b, l, d);
            if (flipped[d]) {
              Value last = arith::SubIOp::create(
                  b, l, tensor::DimOp::create(b, l, src, d),
                  arith::ConstantIndexOp::create(b, l, 1));
              i = arith::SubIOp::create(b, l, last, i);
            }
            indices.push_back(i);
          }
          return tensor::ExtractOp::create(b, l, src, indices);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

// diagonal: one generic over the result reading the source at (a + i) in
// dim1 and (b + i) in dim2, i the last index, the other dimensions in order.
class DiagonalPattern : public OpRewritePattern<DiagonalOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DiagonalOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = op.getSelf();
    auto type = cast<RankedTensorType>(src.getType());
    int64_t rank = type.getRank();
    FailureOr<int64_t> dim1 = normalizedDim(rewriter, op, static_cast<int64_t>(op.getDim1()), rank),
                       dim2 = normalizedDim(rewriter, op, static_cast<int64_t>(op.getDim2()), rank);
    if (failed(dim1) || failed(dim2))
      return failure();
    int64_t offset = static_cast<int64_t>(op.getOffset());
    int64_t first1 = std::max<int64_t>(0, -offset), first2 = std::max<int64_t>(0, offset);
    // The result's sizes: the other dimensions', then the diagonal's length.
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank; ++d)
      if (d != *dim1 && d != *dim2)
        sizes.push_back(tensor::getMixedSize(rewriter, loc, src, d));
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!resultType.isDynamicDim(resultType.getRank() - 1)) {
      sizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(resultType.getRank() - 1)));
    } else {
      auto remaining = [&](int64_t d, int64_t first) -> Value {
        Value size = toIndexValue(rewriter, loc, tensor::getMixedSize(rewriter, loc, src, d));
        return first ? arith::SubIOp::create(rewriter, loc, size,
                                             arith::ConstantIndexOp::create(rewriter, loc, first))
                           .getResult()
                     : size;
      };
      Value length = arith::MinSIOp::create(rewriter, loc, remaining(*dim1, first1),
                                            remaining(*dim2, first2));
      sizes.push_back(
          arith::MaxSIOp::create(rewriter, loc, length,
                                 arith::ConstantIndexOp::create(rewriter, loc, 0))
              .getResult());
    }
    Value init = emptyOfSizes(rewriter, loc, sizes, type.getElementType());
    Value result = buildParallelGeneric(
        rewriter, loc, init, {}, {}, [&](OpBuilder &b, Location l, ValueRange) -> Value {
          Value i = linalg::IndexOp::create(b, l, rank - 2);
          SmallVector<Value> indices;
          int64_t next = 0;
          for (int64_t d = 0; d < rank; ++d) {
            if (d == *dim1 || d == *dim2) {
              int64_t first = d == *dim1 ? first1 : first2;
              indices.push_back(first ? arith::AddIOp::create(
                                            b, l, i, arith::ConstantIndexOp::create(b, l, first))
                                            .getResult()
                                      : i);
              continue;
            }
            indices.push_back(linalg::IndexOp::create(b, l, next++));
          }
          return tensor::ExtractOp::create(b, l, src, indices);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

// repeat: one generic reading the source at (index mod size) in each of
// its dimensions (the leading repeats add dimensions of size 1).
class RepeatPattern : public OpRewritePattern<RepeatOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(RepeatOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = op.getSelf();
    auto type = cast<RankedTensorType>(src.getType());
    ArrayRef<int64_t> repeats = op.getRepeats();
    int64_t rank = repeats.size(), srcRank = type.getRank();
    if (rank < srcRank)
      return rewriter.notifyMatchFailure(op, "fewer repeats than dimensions");
    if (llvm::any_of(repeats, [](int64_t r) { return r < 0; }))
      return rewriter.notifyMatchFailure(op, "a negative repeat count");
    int64_t lead = rank - srcRank;
    SmallVector<OpFoldResult> srcSizes = tensor::getMixedSizes(rewriter, loc, src);
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank; ++d) {
      OpFoldResult size = d < lead ? rewriter.getIndexAttr(1) : srcSizes[d - lead];
      sizes.push_back(mulIndex(rewriter, loc, size, rewriter.getIndexAttr(repeats[d])));
    }
    auto resType = cast<RankedTensorType>(op.getType());
    for (int64_t d = 0; d < rank; ++d)
      sizes[d] = preferStatic(rewriter, resType, d, sizes[d]);
    Value init = emptyOfSizes(rewriter, loc, sizes, type.getElementType());
    Value result = buildParallelGeneric(
        rewriter, loc, init, {}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          SmallVector<Value> indices;
          for (int64_t d = lead; d < rank; ++d)
            indices.push_back(arith::RemUIOp::create(
                b, l, linalg::IndexOp::create(b, l, d),
                tensor::DimOp::create(b, l, src, d - lead)));
          return tensor::ExtractOp::create(b, l, src, indices);
        });
    rewriter.replaceOp(op, tensor::CastOp::create(rewriter, loc, resType, result));
    return success();
  }
};

} // namespace

void magi::lower::populateShapePatterns(RewritePatternSet &patterns) {
  patterns.add<ViewPattern, UnsqueezePattern, SqueezePattern, PermutePattern,
               ExpandPattern, SlicePattern, SelectPattern, SplitWithSizesPattern,
               CatPattern, ConstantPadPattern, SymSizePattern, ItemPattern,
               SymBinaryPattern<SymAddOp, arith::AddIOp>,
               SymBinaryPattern<SymSubOp, arith::SubIOp>,
               SymBinaryPattern<SymMulOp, arith::MulIOp>,
               SymFloorDivPattern,
               SymBinaryPattern<SymMinOp, arith::MinSIOp>,
               SymBinaryPattern<SymMaxOp, arith::MaxSIOp>, SymModPattern,
               SymComparePattern, SymBinaryPattern<SymAndOp, arith::AndIOp>,
               SymBinaryPattern<SymOrOp, arith::OrIOp>, SymNotPattern,
               EraseBindingPattern, EraseUnusedSymbolPattern,
               TrianglePattern<TrilOp, true>, TrianglePattern<TriuOp, false>,
               FlipPattern, DiagonalPattern, RepeatPattern,
               InsertPartPattern<SliceScatterOp, false>,
               InsertPartPattern<SelectScatterOp, true>>(
      patterns.getContext());
}
