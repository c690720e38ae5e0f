//===- EvalShape.cpp - Shape, view and indexing ops -----------------------===//
//
// Tensors are values, so views are materialized: each op builds a strided
// view of its operand and copies it out, and the scatter ops write into a
// copy. Indices are checked against the sizes at run time (PyTorch raises
// where an index is out of range).
//
//===----------------------------------------------------------------------===//

#include "Eval.h"
#include "llvm/Support/MathExtras.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace magi::interp::detail {
namespace {

FailureOr<int64_t> normalize(Operation *op, int64_t dim, int64_t rank) {
  return magi::normalizeDim(dim, rank, op->getLoc());
}

LogicalResult evalView(ViewOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  SmallVector<int64_t> sizes =
      resolveMixedList(op.getStaticSizes(), op.getSizes(), env);
  int64_t known = 1, inferredAt = -1;
  for (auto [i, s] : llvm::enumerate(sizes)) {
    if (s == -1 && inferredAt < 0) {
      inferredAt = static_cast<int64_t>(i);
      continue;
    }
    if (s < 0)
      return op.emitError("invalid size ")
             << s << " in view sizes " << formatShape(sizes);
    known *= s;
  }
  int64_t numel = self.getNumElements();
  if (inferredAt >= 0) {
    if (known == 0 || numel % known != 0)
      return op.emitError("cannot view ")
             << numel << " elements as " << formatShape(sizes);
    sizes[inferredAt] = numel / known;
  } else if (known != numel) {
    return op.emitError("cannot view a tensor of shape ")
           << formatShape(self.getShape()) << " (" << numel << " elements) as "
           << formatShape(sizes) << " (" << known << " elements)";
  }
  env.set(op.getResult(), self.reshaped(sizes));
  return success();
}

LogicalResult evalExpand(ExpandOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  SmallVector<int64_t> sizes =
      resolveMixedList(op.getStaticSizes(), op.getSizes(), env);
  int64_t rank = sizes.size();
  if (rank < self.getRank())
    return op.emitError("cannot expand a tensor of rank ")
           << self.getRank() << " to " << rank << " sizes";
  int64_t lead = rank - self.getRank();
  SmallVector<int64_t> selfStrides = getContiguousStrides(self.getShape());
  SmallVector<int64_t> strides(rank, 0);
  for (int64_t d = 0; d < rank; ++d) {
    if (d < lead) {
      if (sizes[d] < 0)
        return op.emitError("size ")
               << sizes[d] << " is not allowed for new dimension " << d;
      continue;
    }
    int64_t in = self.getShape()[d - lead];
    if (sizes[d] == -1)
      sizes[d] = in;
    if (sizes[d] < 0 || (in != 1 && in != sizes[d]))
      return op.emitError("cannot expand shape ")
             << formatShape(self.getShape()) << " to " << formatShape(sizes);
    strides[d] = in == 1 ? 0 : selfStrides[d - lead];
  }
  if (failed(checkResultSize(op, self.getDtype(), sizes)))
    return failure();
  env.set(op.getResult(), gatherStrided(self, sizes, strides));
  return success();
}

LogicalResult evalPermute(PermuteOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  ArrayRef<int64_t> dims = op.getDims();
  if (static_cast<int64_t>(dims.size()) != self.getRank())
    return op.emitError("permutation of ")
           << dims.size() << " dimensions for a tensor of rank "
           << self.getRank();
  SmallVector<int64_t> selfStrides = getContiguousStrides(self.getShape());
  SmallVector<int64_t> shape, strides;
  SmallVector<bool> seen(self.getRank(), false);
  for (int64_t d : dims) {
    FailureOr<int64_t> n = normalize(op, d, self.getRank());
    if (failed(n))
      return failure();
    if (seen[*n])
      return op.emitError("dims is not a permutation");
    seen[*n] = true;
    shape.push_back(self.getShape()[*n]);
    strides.push_back(selfStrides[*n]);
  }
  env.set(op.getResult(), gatherStrided(self, shape, strides));
  return success();
}

// A strided window into a contiguous tensor: what slice and select read and
// what slice_scatter and select_scatter write.
struct StridedView {
  SmallVector<int64_t> shape, strides;
  int64_t offset = 0;
};

// The view of `start:end:step` along `dimAttr` of `self`.
FailureOr<StridedView> sliceView(Operation *op, const Tensor &self,
                                 int64_t dimAttr, ArrayRef<int64_t> staticBounds,
                                 ValueRange dynamicBounds, Env &env) {
  if (self.getRank() == 0)
    return op->emitError("cannot slice a 0-d tensor");
  FailureOr<int64_t> dim = normalize(op, dimAttr, self.getRank());
  if (failed(dim))
    return failure();
  SmallVector<int64_t> bounds =
      resolveMixedList(staticBounds, dynamicBounds, env);
  if (bounds.size() != 3)
    return op->emitError("expected [start, end, step]");
  if (bounds[2] <= 0)
    return op->emitError("slice step must be positive, got ") << bounds[2];
  SliceBounds range =
      resolveSliceBounds(self.getShape()[*dim], bounds[0], bounds[1], bounds[2]);
  StridedView view{SmallVector<int64_t>(self.getShape()), {}, 0};
  view.strides = getContiguousStrides(view.shape);
  view.offset = range.start * view.strides[*dim];
  view.shape[*dim] = range.length;
  view.strides[*dim] *= bounds[2];
  return view;
}

// The view of index `index` along `dimAttr` of `self`, that dimension dropped.
FailureOr<StridedView> selectView(Operation *op, const Tensor &self,
                                  int64_t dimAttr, ArrayRef<int64_t> staticIndex,
                                  ValueRange dynamicIndex, Env &env) {
  if (self.getRank() == 0)
    return op->emitError("cannot select from a 0-d tensor");
  FailureOr<int64_t> dim = normalize(op, dimAttr, self.getRank());
  if (failed(dim))
    return failure();
  int64_t index = resolveMixedList(staticIndex, dynamicIndex, env).front();
  int64_t size = self.getShape()[*dim];
  if (index < -size || index >= size)
    return op->emitError("index ") << index << " is out of range for dimension "
                                   << *dim << " of size " << size;
  if (index < 0)
    index += size;
  StridedView view{SmallVector<int64_t>(self.getShape()), {}, 0};
  view.strides = getContiguousStrides(view.shape);
  view.offset = index * view.strides[*dim];
  view.shape.erase(view.shape.begin() + *dim);
  view.strides.erase(view.strides.begin() + *dim);
  return view;
}

LogicalResult evalSlice(SliceOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  FailureOr<StridedView> view =
      sliceView(op, self, static_cast<int64_t>(op.getDim()),
                op.getStaticBounds(), op.getBounds(), env);
  if (failed(view))
    return failure();
  env.set(op.getResult(),
          gatherStrided(self, view->shape, view->strides, view->offset));
  return success();
}

LogicalResult evalSelect(SelectOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  FailureOr<StridedView> view =
      selectView(op, self, static_cast<int64_t>(op.getDim()),
                 op.getStaticIndex(), op.getIndex(), env);
  if (failed(view))
    return failure();
  env.set(op.getResult(),
          gatherStrided(self, view->shape, view->strides, view->offset));
  return success();
}

LogicalResult evalCat(CatOp op, Env &env) {
  SmallVector<const Tensor *> inputs;
  for (Value v : op.getTensors())
    inputs.push_back(&env.get(v));
  const Tensor &first = *inputs.front();
  FailureOr<int64_t> dim =
      normalize(op, static_cast<int64_t>(op.getDim()), first.getRank());
  if (failed(dim))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  if (shape.empty())
    return op.emitError("cannot concatenate 0-d tensors");
  shape[*dim] = 0;
  for (auto [i, t] : llvm::enumerate(inputs)) {
    for (int64_t d = 0; d < first.getRank(); ++d)
      if (d != *dim && (t->getRank() != first.getRank() ||
                        t->getShape()[d] != first.getShape()[d]))
        return op.emitError("tensor ")
               << i << " of shape " << formatShape(t->getShape())
               << " does not match tensor 0 of shape "
               << formatShape(first.getShape()) << " outside dimension "
               << *dim;
    shape[*dim] += t->getShape()[*dim];
  }
  Tensor out(getDeclaredDtype(op.getResult()), shape);
  DimSplit s = splitAt(shape, *dim);
  int64_t at = 0; // position along `dim` where the next input goes
  for (const Tensor *t : inputs) {
    int64_t n = t->getShape()[*dim];
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t k = 0; k < n * s.inner; ++k)
        out.setFrom(o * s.size * s.inner + at * s.inner + k, *t,
                    o * n * s.inner + k);
    at += n;
  }
  env.set(op.getResult(), std::move(out));
  return success();
}

LogicalResult evalSplit(SplitWithSizesOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  FailureOr<int64_t> dim =
      normalize(op, static_cast<int64_t>(op.getDim()), self.getRank());
  if (failed(dim))
    return failure();
  if (self.getRank() == 0)
    return op.emitError("cannot split a 0-d tensor");
  SmallVector<int64_t> sizes =
      resolveMixedList(op.getStaticSplitSizes(), op.getSplitSizes(), env);
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return op.emitError("split size ") << s << " is negative";
    total += s;
  }
  if (total != self.getShape()[*dim])
    return op.emitError("split sizes ")
           << formatShape(sizes) << " add up to " << total << ", but dimension "
           << *dim << " has size " << self.getShape()[*dim];
  if (sizes.size() != op.getNumResults())
    return op.emitError("got ") << sizes.size() << " split sizes for "
                                << op.getNumResults() << " results";
  SmallVector<int64_t> strides = getContiguousStrides(self.getShape());
  int64_t start = 0;
  for (auto [size, result] : llvm::zip(sizes, op.getResults())) {
    SmallVector<int64_t> shape(self.getShape());
    shape[*dim] = size;
    env.set(result, gatherStrided(self, shape, strides, start * strides[*dim]));
    start += size;
  }
  return success();
}

LogicalResult evalPad(ConstantPadNdOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  SmallVector<int64_t> pad =
      resolveMixedList(op.getStaticPad(), op.getPad(), env);
  int64_t rank = self.getRank();
  if (pad.size() % 2 != 0 || static_cast<int64_t>(pad.size()) > 2 * rank)
    return op.emitError("pad must hold pairs for at most ")
           << rank << " dimensions";
  SmallVector<int64_t> before(rank, 0), shape(self.getShape());
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    int64_t d = rank - 1 - static_cast<int64_t>(i);
    before[d] = pad[2 * i];
    if (llvm::AddOverflow(shape[d], pad[2 * i], shape[d]) ||
        llvm::AddOverflow(shape[d], pad[2 * i + 1], shape[d]))
      return op.emitError("padding dimension ") << d << " overflows int64";
    if (shape[d] < 0)
      return op.emitError("padding makes dimension ")
             << d << " of size " << self.getShape()[d] << " negative";
  }
  if (failed(checkResultSize(op, self.getDtype(), shape)))
    return failure();
  Tensor out(self.getDtype(), shape);
  double value = op.getValue().convertToDouble();
  for (int64_t i = 0, e = out.getNumElements(); i < e; ++i)
    out.setDouble(i, value);
  // Copy each input element that lands inside the output (negative padding
  // crops).
  SmallVector<int64_t> outStrides = getContiguousStrides(shape);
  SmallVector<int64_t> index(rank, 0);
  for (int64_t i = 0, e = self.getNumElements(); i < e; ++i) {
    int64_t at = 0;
    bool inside = true;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t o = index[d] + before[d];
      inside &= o >= 0 && o < shape[d];
      at += o * outStrides[d];
    }
    if (inside)
      out.setFrom(at, self, i);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < self.getShape()[d])
        break;
      index[d] = 0;
    }
  }
  env.set(op.getResult(), std::move(out));
  return success();
}

// Reads index `i` of `indices` for a dimension of `size`: negative indices
// count from the end; out-of-range ones are an error.
FailureOr<int64_t> readIndex(Operation *op, const Tensor &indices, int64_t i,
                             int64_t size) {
  int64_t v = indices.getInt(i);
  if (v < -size || v >= size)
    return op->emitError("index ")
           << v << " is out of range for a dimension of size " << size;
  return v < 0 ? v + size : v;
}

LogicalResult evalEmbedding(EmbeddingOp op, Env &env) {
  const Tensor &weight = env.get(op.getWeight());
  const Tensor &indices = env.get(op.getIndices());
  if (weight.getRank() != 2)
    return op.emitError("embedding weight must be 2-d");
  int64_t rows = weight.getShape()[0], width = weight.getShape()[1];
  SmallVector<int64_t> shape(indices.getShape());
  shape.push_back(width);
  Tensor out(weight.getDtype(), shape);
  for (int64_t i = 0, e = indices.getNumElements(); i < e; ++i) {
    int64_t v = indices.getInt(i);
    if (v < 0 || v >= rows)
      return op.emitError("embedding index ")
             << v << " is out of range for " << rows << " rows";
    for (int64_t k = 0; k < width; ++k)
      out.setFrom(i * width + k, weight, v * width + k);
  }
  env.set(op.getResult(), std::move(out));
  return success();
}

// Unravels the linear index `i` of `shape` into `index`.
void unravel(int64_t i, ArrayRef<int64_t> shape,
             MutableArrayRef<int64_t> index) {
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    index[d] = shape[d] ? i % shape[d] : 0;
    i = shape[d] ? i / shape[d] : 0;
  }
}

// Advanced indexing `self[indices]` with `indices[k]` indexing dimension
// `dims[k]`: the result shape, and for each result element the offset of the
// element of `self` it reads (magi.index) or writes (magi.index_put).
struct AdvancedIndexing {
  SmallVector<int64_t> shape;
  SmallVector<int64_t> offsets;
};

FailureOr<AdvancedIndexing> resolveAdvancedIndexing(Operation *op,
                                                    ArrayRef<int64_t> selfShape,
                                                    ValueRange indexValues,
                                                    ArrayRef<int64_t> dims,
                                                    const Env &env) {
  auto rank = static_cast<int64_t>(selfShape.size());
  SmallVector<const Tensor *> indices;
  SmallVector<ArrayRef<int64_t>> indexShapes;
  for (Value v : indexValues) {
    indices.push_back(&env.get(v));
    indexShapes.push_back(indices.back()->getShape());
  }
  if (dims.empty() || dims.size() != indices.size())
    return op->emitError("expected one index tensor per indexed dimension");
  for (auto [i, d] : llvm::enumerate(dims))
    if (d < 0 || d >= rank || (i > 0 && d <= dims[i - 1]))
      return op->emitError("indexed_dims must be increasing dimensions of "
                           "self");
  FailureOr<SmallVector<int64_t>> indexShape =
      broadcastRuntimeShapes(indexShapes, op->getLoc());
  if (failed(indexShape))
    return failure();
  SmallVector<SmallVector<int64_t>> indexStrides;
  for (const Tensor *t : indices)
    indexStrides.push_back(getBroadcastStrides(t->getShape(), *indexShape));

  // The broadcast index shape replaces adjacent indexed dimensions in place;
  // otherwise it comes first.
  bool adjacent =
      dims.back() - dims.front() + 1 == static_cast<int64_t>(dims.size());
  int64_t indexAt = adjacent ? dims.front() : 0;
  SmallVector<int64_t> plainDims; // dimensions of self taken whole
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(dims, d))
      plainDims.push_back(d);
  AdvancedIndexing result;
  for (int64_t d : plainDims)
    result.shape.push_back(selfShape[d]);
  result.shape.insert(result.shape.begin() + indexAt, indexShape->begin(),
                      indexShape->end());

  SmallVector<int64_t> selfStrides = getContiguousStrides(selfShape);
  int64_t indexRank = indexShape->size();
  SmallVector<int64_t> outIndex(result.shape.size());
  for (int64_t i = 0, e = getNumElements(result.shape); i < e; ++i) {
    unravel(i, result.shape, outIndex);
    int64_t at = 0;
    // The plain dimensions, around the block of index dimensions.
    for (auto [k, d] : llvm::enumerate(plainDims)) {
      int64_t pos = static_cast<int64_t>(k) < indexAt
                        ? static_cast<int64_t>(k)
                        : static_cast<int64_t>(k) + indexRank;
      at += outIndex[pos] * selfStrides[d];
    }
    for (auto [k, t] : llvm::enumerate(indices)) {
      int64_t offset = 0;
      for (int64_t b = 0; b < indexRank; ++b)
        offset += outIndex[indexAt + b] * indexStrides[k][b];
      FailureOr<int64_t> v = readIndex(op, *t, offset, selfShape[dims[k]]);
      if (failed(v))
        return failure();
      at += *v * selfStrides[dims[k]];
    }
    result.offsets.push_back(at);
  }
  return result;
}

LogicalResult evalIndex(IndexOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  FailureOr<AdvancedIndexing> indexing = resolveAdvancedIndexing(
      op, self.getShape(), op.getIndices(), op.getIndexedDims(), env);
  if (failed(indexing))
    return failure();
  Tensor out(self.getDtype(), indexing->shape);
  for (auto [i, at] : llvm::enumerate(indexing->offsets))
    out.setFrom(i, self, at);
  env.set(op.getResult(), std::move(out));
  return success();
}

// Writes element `from` of `src` into element `at` of `out`, or adds it
// there when `accumulate`.
void writeElement(Tensor &out, int64_t at, const Tensor &src, int64_t from,
                  bool accumulate) {
  if (!accumulate)
    return out.setFrom(at, src, from);
  if (out.isFloat())
    out.setDouble(at, out.getDouble(at) + src.getDouble(from));
  else
    out.setInt(at,
               static_cast<int64_t>(static_cast<uint64_t>(out.getInt(at)) +
                                    static_cast<uint64_t>(src.getInt(from))));
}

LogicalResult evalIndexPut(IndexPutOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  FailureOr<AdvancedIndexing> indexing = resolveAdvancedIndexing(
      op, self.getShape(), op.getIndices(), op.getIndexedDims(), env);
  if (failed(indexing))
    return failure();
  const Tensor &values = env.get(op.getValues());
  FailureOr<SmallVector<int64_t>> shape =
      broadcastRuntimeShapes({values.getShape(), indexing->shape}, op.getLoc());
  if (failed(shape))
    return failure();
  if (ArrayRef<int64_t>(*shape) != ArrayRef<int64_t>(indexing->shape))
    return op.emitError("values of shape ")
           << formatShape(values.getShape())
           << " do not broadcast to the indexed shape "
           << formatShape(indexing->shape);
  Tensor src = broadcastTo(values, indexing->shape, self.getDtype());
  Tensor out = self;
  // Repeated indices: the last write wins, or every value adds up.
  for (auto [i, at] : llvm::enumerate(indexing->offsets))
    writeElement(out, at, src, i, op.getAccumulate());
  env.set(op.getResult(), std::move(out));
  return success();
}

LogicalResult evalScatter(ScatterOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  const Tensor &index = env.get(op.getIndex());
  const Tensor &src = env.get(op.getSrc());
  bool scalarSrc = !isa<RankedTensorType>(op.getSrc().getType());
  int64_t rank = self.getRank();
  FailureOr<int64_t> dim =
      normalize(op, static_cast<int64_t>(op.getDim()), rank);
  if (failed(dim))
    return failure();
  if (index.getRank() != rank || (!scalarSrc && src.getRank() != rank))
    return op.emitError("index and src must have the rank of self");
  // PyTorch's bounds: index fits in src, and in self outside `dim`.
  for (int64_t d = 0; d < rank; ++d)
    if ((!scalarSrc && index.getShape()[d] > src.getShape()[d]) ||
        (d != *dim && index.getShape()[d] > self.getShape()[d]))
      return op.emitError("index of shape ")
             << formatShape(index.getShape()) << " does not fit self "
             << formatShape(self.getShape()) << " and src "
             << formatShape(src.getShape());
  std::optional<StringRef> reduce = op.getReduce();
  SmallVector<int64_t> selfStrides = getContiguousStrides(self.getShape());
  SmallVector<int64_t> srcStrides = getContiguousStrides(src.getShape());
  SmallVector<int64_t> at(rank);
  Tensor out = self;
  int64_t size = rank ? self.getShape()[*dim] : 1;
  // Where each index element writes and which src element it takes.
  SmallVector<std::pair<int64_t, int64_t>> writes;
  for (int64_t i = 0, e = index.getNumElements(); i < e; ++i) {
    unravel(i, index.getShape(), at);
    FailureOr<int64_t> v = readIndex(op, index, i, size);
    if (failed(v))
      return failure();
    int64_t to = 0, from = 0;
    for (int64_t d = 0; d < rank; ++d) {
      to += (d == *dim ? *v : at[d]) * selfStrides[d];
      if (!scalarSrc)
        from += at[d] * srcStrides[d];
    }
    writes.push_back({to, from});
  }
  if (!reduce) {
    for (auto [to, from] : writes)
      out.setFrom(to, src, from);
    env.set(op.getResult(), std::move(out));
    return success();
  }
  // As PyTorch's scatter_reduce: without include_self the written elements
  // start from the reduction's identity; mean divides by how many values
  // met (self counting as one), floor rounding for integers.
  bool isFloat = out.isFloat();
  if (!op.getIncludeSelf()) {
    double inf = std::numeric_limits<double>::infinity();
    for (auto [to, from] : writes) {
      if (*reduce == "multiply")
        out.setDouble(to, 1);
      else if (*reduce == "amax")
        isFloat ? out.setDouble(to, -inf) : out.setInt(to, std::numeric_limits<int64_t>::min());
      else if (*reduce == "amin")
        isFloat ? out.setDouble(to, inf) : out.setInt(to, std::numeric_limits<int64_t>::max());
      else
        out.setDouble(to, 0);
    }
  }
  auto wrapping = [](int64_t a, int64_t b, bool multiply) {
    auto x = static_cast<uint64_t>(a), y = static_cast<uint64_t>(b);
    return static_cast<int64_t>(multiply ? x * y : x + y);
  };
  for (auto [to, from] : writes) {
    if (*reduce == "add" || *reduce == "mean" || *reduce == "multiply") {
      bool multiply = *reduce == "multiply";
      if (isFloat) {
        double a = out.getDouble(to), b = src.getDouble(from);
        out.setDouble(to, multiply ? a * b : a + b);
      } else {
        out.setInt(to, wrapping(out.getInt(to), src.getInt(from), multiply));
      }
    } else if (isFloat) {
      double a = out.getDouble(to), b = src.getDouble(from);
      double m = std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN()
                 : *reduce == "amax"            ? std::max(a, b)
                                                : std::min(a, b);
      out.setDouble(to, m);
    } else {
      int64_t a = out.getInt(to), b = src.getInt(from);
      out.setInt(to, *reduce == "amax" ? std::max(a, b) : std::min(a, b));
    }
  }
  if (*reduce == "mean") {
    // The count is kept in self's dtype, as PyTorch does.
    Tensor count = self;
    for (int64_t i = 0, e = count.getNumElements(); i < e; ++i)
      count.setDouble(i, op.getIncludeSelf() ? 1 : 0);
    for (auto [to, from] : writes)
      count.setDouble(to, count.getDouble(to) + 1);
    for (int64_t i = 0, e = out.getNumElements(); i < e; ++i) {
      if (count.getDouble(i) == 0)
        continue;
      if (isFloat) {
        out.setDouble(i, out.getDouble(i) / count.getDouble(i));
      } else {
        int64_t a = out.getInt(i), c = count.getInt(i);
        int64_t q = a / c;
        out.setInt(i, (a % c != 0 && (a < 0) != (c < 0)) ? q - 1 : q);
      }
    }
  }
  env.set(op.getResult(), std::move(out));
  return success();
}

// Copies `src` into the strided view (`shape`, `strides`, `offset`) of a copy
// of `self`; `src` must have the view's shape.
LogicalResult scatterStrided(Operation *op, const Tensor &self,
                             const Tensor &src, ArrayRef<int64_t> shape,
                             ArrayRef<int64_t> strides, int64_t offset,
                             Value result, Env &env) {
  if (src.getShape() != shape)
    return op->emitError("src of shape ")
           << formatShape(src.getShape()) << " does not match the target "
           << formatShape(shape);
  Tensor out = self;
  SmallVector<int64_t> s(strides.begin(), strides.end());
  IndexWalker walker(shape, {s}, {offset});
  for (int64_t i = 0, e = src.getNumElements(); i < e; ++i, walker.next())
    out.setFrom(walker.offset(0), src, i);
  env.set(result, std::move(out));
  return success();
}

LogicalResult evalSliceScatter(SliceScatterOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  FailureOr<StridedView> view =
      sliceView(op, self, static_cast<int64_t>(op.getDim()),
                op.getStaticBounds(), op.getBounds(), env);
  if (failed(view))
    return failure();
  return scatterStrided(op, self, env.get(op.getSrc()), view->shape,
                        view->strides, view->offset, op.getResult(), env);
}

LogicalResult evalSelectScatter(SelectScatterOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  FailureOr<StridedView> view =
      selectView(op, self, static_cast<int64_t>(op.getDim()),
                 op.getStaticIndex(), op.getIndex(), env);
  if (failed(view))
    return failure();
  return scatterStrided(op, self, env.get(op.getSrc()), view->shape,
                        view->strides, view->offset, op.getResult(), env);
}

LogicalResult evalFlip(FlipOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  SmallVector<int64_t> strides = getContiguousStrides(self.getShape());
  int64_t offset = 0;
  SmallVector<bool> flipped(self.getRank(), false);
  for (int64_t d : op.getDims()) {
    FailureOr<int64_t> n = normalize(op, d, self.getRank());
    if (failed(n))
      return failure();
    if (self.getRank() == 0 || flipped[*n])
      continue;
    flipped[*n] = true;
    // Walk the dimension backwards from its last element.
    offset += (self.getShape()[*n] - 1) * strides[*n];
    strides[*n] = -strides[*n];
  }
  if (self.getNumElements() == 0)
    offset = 0;
  env.set(op.getResult(),
          gatherStrided(self, self.getShape(), strides, offset));
  return success();
}

// diagonal: a strided view, the diagonal's stride the sum of the two
// dimensions' strides.
LogicalResult evalDiagonal(DiagonalOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  int64_t rank = self.getRank();
  FailureOr<int64_t> dim1 = normalize(op, static_cast<int64_t>(op.getDim1()), rank),
                     dim2 = normalize(op, static_cast<int64_t>(op.getDim2()), rank);
  if (failed(dim1) || failed(dim2))
    return failure();
  if (*dim1 == *dim2)
    return op.emitError("diagonal dimensions cannot be identical");
  int64_t offset = static_cast<int64_t>(op.getOffset());
  int64_t first1 = std::max<int64_t>(0, -offset), first2 = std::max<int64_t>(0, offset);
  SmallVector<int64_t> contiguous = getContiguousStrides(self.getShape());
  SmallVector<int64_t> shape, strides;
  for (int64_t d = 0; d < rank; ++d)
    if (d != *dim1 && d != *dim2) {
      shape.push_back(self.getShape()[d]);
      strides.push_back(contiguous[d]);
    }
  int64_t length = std::max<int64_t>(
      0, std::min(self.getShape()[*dim1] - first1, self.getShape()[*dim2] - first2));
  shape.push_back(length);
  strides.push_back(contiguous[*dim1] + contiguous[*dim2]);
  int64_t start = length == 0 ? 0 : first1 * contiguous[*dim1] + first2 * contiguous[*dim2];
  env.set(op.getResult(), gatherStrided(self, shape, strides, start));
  return success();
}

LogicalResult evalRepeat(RepeatOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  ArrayRef<int64_t> repeats = op.getRepeats();
  auto rank = static_cast<int64_t>(repeats.size());
  if (rank < self.getRank())
    return op.emitError("repeat needs at least ")
           << self.getRank() << " repeats, got " << rank;
  // Leading new dimensions have size 1 in `self`.
  SmallVector<int64_t> inShape(rank - self.getRank(), 1);
  inShape.append(self.getShape().begin(), self.getShape().end());
  SmallVector<int64_t> shape;
  for (auto [size, r] : llvm::zip(inShape, repeats)) {
    if (r < 0)
      return op.emitError("repeat count ") << r << " is negative";
    shape.push_back(size * r);
  }
  Tensor out(self.getDtype(), shape);
  SmallVector<int64_t> inStrides = getContiguousStrides(inShape);
  SmallVector<int64_t> at(rank);
  for (int64_t i = 0, e = out.getNumElements(); i < e; ++i) {
    unravel(i, shape, at);
    int64_t from = 0;
    for (int64_t d = 0; d < rank; ++d)
      from += (at[d] % inShape[d]) * inStrides[d];
    out.setFrom(i, self, from);
  }
  env.set(op.getResult(), std::move(out));
  return success();
}

// tril/triu: keeps element (i, j) of the last two dimensions where
// `keep(j - i)`, zeroes the others.
LogicalResult evalTriangle(Operation *op, Env &env,
                           function_ref<bool(int64_t)> keep) {
  const Tensor &self = env.get(op->getOperand(0));
  if (self.getRank() < 2)
    return op->emitError("needs a tensor of rank >= 2");
  int64_t rows = self.getShape()[self.getRank() - 2];
  int64_t cols = self.getShape()[self.getRank() - 1];
  Tensor out(self.getDtype(), self.getShape());
  for (int64_t i = 0, e = out.getNumElements(); i < e; ++i) {
    int64_t col = i % cols, row = (i / cols) % rows;
    if (keep(col - row))
      out.setFrom(i, self, i);
  }
  env.set(op->getResult(0), std::move(out));
  return success();
}

LogicalResult evalIndexSelect(IndexSelectOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  const Tensor &index = env.get(op.getIndex());
  if (index.getRank() > 1)
    return op.emitError("index must be 0-d or 1-d");
  FailureOr<int64_t> dim =
      normalize(op, static_cast<int64_t>(op.getDim()), self.getRank());
  if (failed(dim))
    return failure();
  SmallVector<int64_t> shape(self.getShape());
  int64_t n = index.getNumElements();
  if (!shape.empty())
    shape[*dim] = n;
  Tensor out(self.getDtype(), shape);
  DimSplit in = splitAt(self.getShape(), *dim);
  for (int64_t j = 0; j < n; ++j) {
    FailureOr<int64_t> v = readIndex(op, index, j, in.size);
    if (failed(v))
      return failure();
    for (int64_t o = 0; o < in.outer; ++o)
      for (int64_t k = 0; k < in.inner; ++k)
        out.setFrom(o * n * in.inner + j * in.inner + k, self,
                    o * in.size * in.inner + *v * in.inner + k);
  }
  env.set(op.getResult(), std::move(out));
  return success();
}

LogicalResult evalGather(GatherOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  const Tensor &index = env.get(op.getIndex());
  int64_t rank = self.getRank();
  if (index.getRank() != rank)
    return op.emitError("index has rank ")
           << index.getRank() << " but self has rank " << rank;
  FailureOr<int64_t> dim =
      normalize(op, static_cast<int64_t>(op.getDim()), rank);
  if (failed(dim))
    return failure();
  for (int64_t d = 0; d < rank; ++d)
    if (d != *dim && index.getShape()[d] > self.getShape()[d])
      return op.emitError("index shape ")
             << formatShape(index.getShape()) << " exceeds self shape "
             << formatShape(self.getShape()) << " in dimension " << d;
  Tensor out(self.getDtype(), index.getShape());
  SmallVector<int64_t> selfStrides = getContiguousStrides(self.getShape());
  SmallVector<int64_t> at(rank);
  int64_t size = rank ? self.getShape()[*dim] : 1;
  for (int64_t i = 0, e = out.getNumElements(); i < e; ++i) {
    unravel(i, index.getShape(), at);
    FailureOr<int64_t> v = readIndex(op, index, i, size);
    if (failed(v))
      return failure();
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      offset += (d == *dim ? *v : at[d]) * selfStrides[d];
    out.setFrom(i, self, offset);
  }
  env.set(op.getResult(), std::move(out));
  return success();
}

} // namespace

std::optional<LogicalResult> evalShapeOp(Operation *op, Env &env) {
  using Result = std::optional<LogicalResult>;
  return llvm::TypeSwitch<Operation *, Result>(op)
      .Case([&](ViewOp v) -> Result { return evalView(v, env); })
      .Case([&](ExpandOp e) -> Result { return evalExpand(e, env); })
      .Case([&](PermuteOp p) -> Result { return evalPermute(p, env); })
      .Case([&](UnsqueezeOp u) -> Result {
        const Tensor &self = env.get(u.getSelf());
        auto dim = static_cast<int64_t>(u.getDim());
        FailureOr<int64_t> wrapped =
            magi::normalizeDim(dim, self.getRank() + 1, std::nullopt);
        if (failed(wrapped))
          return op->emitError("dimension ")
                 << dim << " is out of range to unsqueeze a tensor of rank "
                 << self.getRank();
        SmallVector<int64_t> shape(self.getShape());
        shape.insert(shape.begin() + *wrapped, 1);
        env.set(u.getResult(), self.reshaped(shape));
        return success();
      })
      .Case([&](SqueezeOp s) -> Result {
        const Tensor &self = env.get(s.getSelf());
        SmallVector<bool> drop(self.getRank(), false);
        for (int64_t d : s.getDims()) {
          FailureOr<int64_t> n = normalize(op, d, self.getRank());
          if (failed(n))
            return failure();
          // Dimensions whose size is not 1 stay, as in PyTorch.
          if (self.getRank() && self.getShape()[*n] == 1)
            drop[*n] = true;
        }
        SmallVector<int64_t> shape;
        for (auto [size, d] : llvm::zip(self.getShape(), drop))
          if (!d)
            shape.push_back(size);
        env.set(s.getResult(), self.reshaped(shape));
        return success();
      })
      .Case([&](SliceOp s) -> Result { return evalSlice(s, env); })
      .Case([&](SelectOp s) -> Result { return evalSelect(s, env); })
      .Case([&](CatOp c) -> Result { return evalCat(c, env); })
      .Case([&](SplitWithSizesOp s) -> Result { return evalSplit(s, env); })
      .Case([&](ConstantPadNdOp p) -> Result { return evalPad(p, env); })
      .Case([&](EmbeddingOp e) -> Result { return evalEmbedding(e, env); })
      .Case([&](IndexOp i) -> Result { return evalIndex(i, env); })
      .Case([&](IndexSelectOp i) -> Result { return evalIndexSelect(i, env); })
      .Case([&](GatherOp g) -> Result { return evalGather(g, env); })
      .Case([&](ScatterOp g) -> Result { return evalScatter(g, env); })
      .Case([&](IndexPutOp i) -> Result { return evalIndexPut(i, env); })
      .Case(
          [&](SliceScatterOp s) -> Result { return evalSliceScatter(s, env); })
      .Case([&](SelectScatterOp s) -> Result {
        return evalSelectScatter(s, env);
      })
      .Case([&](FlipOp f) -> Result { return evalFlip(f, env); })
      .Case([&](DiagonalOp d) -> Result { return evalDiagonal(d, env); })
      .Case([&](RepeatOp r) -> Result { return evalRepeat(r, env); })
      .Case([&](TrilOp t) -> Result {
        auto diagonal = static_cast<int64_t>(t.getDiagonal());
        return evalTriangle(op, env, [&](int64_t d) { return d <= diagonal; });
      })
      .Case([&](TriuOp t) -> Result {
        auto diagonal = static_cast<int64_t>(t.getDiagonal());
        return evalTriangle(op, env, [&](int64_t d) { return d >= diagonal; });
      })
      .Default([](Operation *) -> Result { return std::nullopt; });
}

} // namespace magi::interp::detail
