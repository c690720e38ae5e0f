//===- EvalReductions.cpp - Reductions, scans and sorts -------------------===//
//
// Sums, products, means and variances accumulate in double (floats) or int64
// (integers and bool) and round once to the result dtype. Sorts are stable
// and put NaN above every number, as PyTorch does.
//
//===----------------------------------------------------------------------===//

#include "Eval.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "llvm/ADT/TypeSwitch.h"
#include <algorithm>
#include <cmath>

using namespace mlir;

namespace magi::interp::detail {
namespace {

// Which dimensions of a tensor of rank `rank` a reduction over `dims` reduces
// (all of them when `dims` is absent or empty).
FailureOr<SmallVector<bool>>
getReducedDims(Operation *op, std::optional<ArrayRef<int64_t>> dims,
               int64_t rank) {
  SmallVector<bool> reduced(rank, !dims || dims->empty());
  if (!dims)
    return reduced;
  for (int64_t d : *dims) {
    FailureOr<int64_t> n = magi::normalizeDim(d, rank, op->getLoc());
    if (failed(n))
      return failure();
    if (rank)
      reduced[*n] = true;
  }
  return reduced;
}

enum class Reduction { Sum, Prod, Mean, Max, Min, Any, All };

// Where the elements of a tensor go when the `reduced` dimensions are
// reduced: the output shape, and for each input dimension the output stride
// (0 along reduced dimensions).
struct ReductionLayout {
  SmallVector<int64_t> outShape, strides;
  int64_t count = 1; // input elements per output element
};

ReductionLayout getReductionLayout(ArrayRef<int64_t> shape,
                                   ArrayRef<bool> reduced, bool keepdim) {
  ReductionLayout layout;
  SmallVector<int64_t> keptShape;
  for (auto [size, r] : llvm::zip(shape, reduced)) {
    if (r)
      layout.count *= size;
    else
      keptShape.push_back(size);
    if (!r || keepdim)
      layout.outShape.push_back(r ? 1 : size);
  }
  SmallVector<int64_t> keptStrides = getContiguousStrides(keptShape);
  unsigned kept = 0;
  for (bool r : reduced)
    layout.strides.push_back(r ? 0 : keptStrides[kept++]);
  return layout;
}

int64_t wrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) *
                              static_cast<uint64_t>(b));
}

// Reduces `input` over the `reduced` dimensions.
FailureOr<Tensor> reduce(Operation *op, const Tensor &input,
                         ArrayRef<bool> reduced, bool keepdim, Type dtype,
                         Reduction kind) {
  ReductionLayout layout =
      getReductionLayout(input.getShape(), reduced, keepdim);
  Tensor out(dtype, layout.outShape);
  int64_t outCount = out.getNumElements();
  if (layout.count == 0 && (kind == Reduction::Max || kind == Reduction::Min) &&
      outCount != 0)
    return op->emitError("cannot take the ")
           << (kind == Reduction::Max ? "maximum" : "minimum")
           << " of an empty dimension";

  bool isFloat = input.isFloat();
  bool logical = kind == Reduction::Any || kind == Reduction::All;
  bool additive = kind == Reduction::Sum || kind == Reduction::Mean;
  double floatInit = kind == Reduction::Max    ? -INFINITY
                     : kind == Reduction::Min  ? INFINITY
                     : kind == Reduction::Prod ? 1.0
                                               : 0.0;
  int64_t intInit = kind == Reduction::Max   ? INT64_MIN
                    : kind == Reduction::Min ? INT64_MAX
                    : kind == Reduction::All || kind == Reduction::Prod ? 1
                                                                        : 0;
  SmallVector<double> accFloat(outCount, floatInit);
  SmallVector<int64_t> accInt(outCount, intInit);
  IndexWalker walker(input.getShape(), {layout.strides});
  for (int64_t i = 0, e = input.getNumElements(); i < e; ++i, walker.next()) {
    int64_t o = walker.offset(0);
    if (logical) {
      bool v = input.isNonZero(i);
      accInt[o] = kind == Reduction::Any ? (accInt[o] || v) : (accInt[o] && v);
    } else if (isFloat) {
      double v = input.getDouble(i);
      double &acc = accFloat[o];
      if (additive)
        acc += v;
      else if (kind == Reduction::Prod)
        acc *= v;
      else if (std::isnan(v) || std::isnan(acc))
        acc = std::nan("");
      else
        acc = kind == Reduction::Max ? std::max(acc, v) : std::min(acc, v);
    } else {
      int64_t v = input.getInt(i);
      int64_t &acc = accInt[o];
      if (additive)
        acc = static_cast<int64_t>(static_cast<uint64_t>(acc) +
                                   static_cast<uint64_t>(v));
      else if (kind == Reduction::Prod)
        acc = wrapMul(acc, v);
      else
        acc = kind == Reduction::Max ? std::max(acc, v) : std::min(acc, v);
    }
  }
  auto count = static_cast<double>(layout.count);
  for (int64_t o = 0; o < outCount; ++o) {
    if (logical || !isFloat) {
      if (kind == Reduction::Mean)
        out.setDouble(o, static_cast<double>(accInt[o]) / count);
      else
        out.setInt(o, accInt[o]);
    } else {
      out.setDouble(o, kind == Reduction::Mean ? accFloat[o] / count
                                               : accFloat[o]);
    }
  }
  return out;
}

template <typename OpT>
LogicalResult evalReduction(OpT op, Env &env, Reduction kind) {
  Tensor input = env.get(op.getSelf());
  Type dtype = getDeclaredDtype(op.getResult());
  // An explicit dtype converts the input before reducing, as in PyTorch.
  if (op.getDtype())
    input = input.castTo(dtype);
  std::optional<ArrayRef<int64_t>> dims;
  if (auto attr = op.getDimsAttr())
    dims = attr.asArrayRef();
  FailureOr<SmallVector<bool>> reduced =
      getReducedDims(op, dims, input.getRank());
  if (failed(reduced))
    return failure();
  FailureOr<Tensor> out =
      reduce(op, input, *reduced, op.getKeepdim(), dtype, kind);
  if (failed(out))
    return failure();
  env.set(op.getResult(), std::move(*out));
  return success();
}

// sum((x - mean)^2) / max(0, N - correction), in double.
LogicalResult evalVar(VarOp op, Env &env) {
  const Tensor &input = env.get(op.getSelf());
  std::optional<ArrayRef<int64_t>> dims;
  if (auto attr = op.getDimsAttr())
    dims = attr.asArrayRef();
  FailureOr<SmallVector<bool>> reduced =
      getReducedDims(op, dims, input.getRank());
  if (failed(reduced))
    return failure();
  ReductionLayout layout =
      getReductionLayout(input.getShape(), *reduced, op.getKeepdim());
  Tensor out(getDeclaredDtype(op.getResult()), layout.outShape);
  int64_t outCount = out.getNumElements();
  SmallVector<double> mean(outCount, 0.0), squares(outCount, 0.0);
  auto count = static_cast<double>(layout.count);
  // Two passes: the mean, then the squared deviations from it.
  for (int pass = 0; pass < 2; ++pass) {
    IndexWalker walker(input.getShape(), {layout.strides});
    for (int64_t i = 0, e = input.getNumElements(); i < e; ++i, walker.next()) {
      int64_t o = walker.offset(0);
      double v = input.getDouble(i);
      if (pass == 0)
        mean[o] += v;
      else
        squares[o] += (v - mean[o]) * (v - mean[o]);
    }
    if (pass == 0)
      for (double &m : mean)
        m /= count;
  }
  double divisor = std::max(0.0, count - op.getCorrection().convertToDouble());
  for (int64_t o = 0; o < outCount; ++o)
    out.setDouble(o, squares[o] / divisor);
  env.set(op.getResult(), std::move(out));
  return success();
}

// Whether element `a` of `t` orders before element `b` in ascending order,
// with NaN above every number (as PyTorch sorts).
bool lessThan(const Tensor &t, int64_t a, int64_t b) {
  if (!t.isFloat())
    return t.getInt(a) < t.getInt(b);
  double x = t.getDouble(a), y = t.getDouble(b);
  if (std::isnan(x))
    return false;
  return std::isnan(y) || x < y;
}

// Index of the maximum (or minimum) along `dim`: the first one, NaN counting
// as both the maximum and the minimum, as PyTorch propagates it. Writes
// values and/or indices when given.
LogicalResult argExtreme(Operation *op, const Tensor &input, int64_t dim,
                         bool largest, Tensor *values, Tensor *indices) {
  DimSplit s = splitAt(input.getShape(), dim);
  if (s.size == 0 && s.outer * s.inner != 0)
    return op->emitError("cannot reduce an empty dimension");
  bool isFloat = input.isFloat();
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t in = 0; in < s.inner; ++in) {
      int64_t base = o * s.size * s.inner + in, best = 0;
      for (int64_t j = 1; j < s.size; ++j) {
        int64_t a = base + j * s.inner, b = base + best * s.inner;
        if (isFloat && std::isnan(input.getDouble(b)))
          break; // the first NaN wins
        bool better = isFloat && std::isnan(input.getDouble(a));
        better |= largest ? lessThan(input, b, a) : lessThan(input, a, b);
        if (better)
          best = j;
      }
      int64_t out = o * s.inner + in;
      if (values)
        values->setFrom(out, input, base + best * s.inner);
      if (indices)
        indices->setInt(out, best);
    }
  }
  return success();
}

// The shape of `shape` reduced along `dim`.
SmallVector<int64_t> reducedShape(ArrayRef<int64_t> shape, int64_t dim,
                                  bool keepdim) {
  SmallVector<int64_t> out(shape);
  if (out.empty())
    return out;
  if (keepdim)
    out[dim] = 1;
  else
    out.erase(out.begin() + dim);
  return out;
}

// max_dim / min_dim: values and indices along `dim`.
template <typename OpT>
LogicalResult evalExtremeDim(OpT op, Env &env, bool largest) {
  const Tensor &input = env.get(op.getSelf());
  FailureOr<int64_t> dim = magi::normalizeDim(static_cast<int64_t>(op.getDim()),
                                              input.getRank(), op.getLoc());
  if (failed(dim))
    return failure();
  SmallVector<int64_t> shape =
      reducedShape(input.getShape(), *dim, op.getKeepdim());
  Tensor values(getDeclaredDtype(op.getValues()), shape);
  Tensor indices(getDeclaredDtype(op.getIndices()), shape);
  if (failed(argExtreme(op, input, *dim, largest, &values, &indices)))
    return failure();
  env.set(op.getValues(), std::move(values));
  env.set(op.getIndices(), std::move(indices));
  return success();
}

// argmax / argmin, along `dim` or over the flattened tensor.
template <typename OpT>
LogicalResult evalArgExtreme(OpT op, Env &env, bool largest) {
  Tensor input = env.get(op.getSelf());
  Type dtype = getDeclaredDtype(op.getResult());
  std::optional<uint64_t> dimAttr = op.getDim();
  if (!dimAttr) {
    // keepdim keeps every dimension, as size 1.
    SmallVector<int64_t> shape;
    if (op.getKeepdim())
      shape.assign(input.getRank(), 1);
    Tensor indices(dtype, shape);
    Tensor flat = input.reshaped({input.getNumElements()});
    if (failed(argExtreme(op, flat, 0, largest, nullptr, &indices)))
      return failure();
    env.set(op.getResult(), std::move(indices));
    return success();
  }
  FailureOr<int64_t> dim = magi::normalizeDim(static_cast<int64_t>(*dimAttr),
                                              input.getRank(), op.getLoc());
  if (failed(dim))
    return failure();
  Tensor indices(dtype, reducedShape(input.getShape(), *dim, op.getKeepdim()));
  if (failed(argExtreme(op, input, *dim, largest, nullptr, &indices)))
    return failure();
  env.set(op.getResult(), std::move(indices));
  return success();
}

// Sorts each slice along `dim` (stably, NaN above every number) and keeps
// the first `k` entries: sort keeps all, topk its `k`.
LogicalResult sortAlong(Operation *op, Env &env, Value self, int64_t dimAttr,
                        std::optional<int64_t> k, bool descending,
                        Value valuesResult, Value indicesResult) {
  const Tensor &input = env.get(self);
  FailureOr<int64_t> dim =
      magi::normalizeDim(dimAttr, input.getRank(), op->getLoc());
  if (failed(dim))
    return failure();
  DimSplit s = splitAt(input.getShape(), *dim);
  int64_t keep = k.value_or(s.size);
  if (keep < 0 || keep > s.size)
    return op->emitError("k = ") << keep << " is out of range for a dimension "
                                 << "of size " << s.size;
  SmallVector<int64_t> shape(input.getShape());
  if (!shape.empty())
    shape[*dim] = keep;
  Tensor values(getDeclaredDtype(valuesResult), shape);
  Tensor indices(getDeclaredDtype(indicesResult), shape);
  SmallVector<int64_t> order(s.size);
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t in = 0; in < s.inner; ++in) {
      int64_t base = o * s.size * s.inner + in;
      for (int64_t j = 0; j < s.size; ++j)
        order[j] = j;
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        int64_t x = base + a * s.inner, y = base + b * s.inner;
        return descending ? lessThan(input, y, x) : lessThan(input, x, y);
      });
      for (int64_t j = 0; j < keep; ++j) {
        int64_t out = o * keep * s.inner + j * s.inner + in;
        values.setFrom(out, input, base + order[j] * s.inner);
        indices.setInt(out, order[j]);
      }
    }
  }
  env.set(valuesResult, std::move(values));
  env.set(indicesResult, std::move(indices));
  return success();
}

LogicalResult evalCumsum(CumsumOp op, Env &env) {
  Type dtype = getDeclaredDtype(op.getResult());
  Tensor input = env.get(op.getSelf()).castTo(dtype);
  FailureOr<int64_t> dim = magi::normalizeDim(static_cast<int64_t>(op.getDim()),
                                              input.getRank(), op.getLoc());
  if (failed(dim))
    return failure();
  Tensor out(dtype, input.getShape());
  DimSplit s = splitAt(input.getShape(), *dim);
  bool isFloat = input.isFloat();
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t in = 0; in < s.inner; ++in) {
      double accFloat = 0;
      int64_t accInt = 0;
      for (int64_t j = 0; j < s.size; ++j) {
        int64_t i = o * s.size * s.inner + j * s.inner + in;
        if (isFloat) {
          accFloat += input.getDouble(i);
          out.setDouble(i, accFloat);
        } else {
          accInt = static_cast<int64_t>(static_cast<uint64_t>(accInt) +
                                        static_cast<uint64_t>(input.getInt(i)));
          out.setInt(i, accInt);
        }
      }
    }
  }
  env.set(op.getResult(), std::move(out));
  return success();
}

} // namespace

std::optional<LogicalResult> evalReductionOp(Operation *op, Env &env) {
  using Result = std::optional<LogicalResult>;
  return llvm::TypeSwitch<Operation *, Result>(op)
      .Case([&](SumOp r) -> Result {
        return evalReduction(r, env, Reduction::Sum);
      })
      .Case([&](MeanOp r) -> Result {
        if (!isFloatDtype(getDeclaredDtype(r.getResult())))
          return op->emitError("mean needs a floating-point dtype");
        return evalReduction(r, env, Reduction::Mean);
      })
      .Case([&](AmaxOp r) -> Result {
        return evalReduction(r, env, Reduction::Max);
      })
      .Case([&](AminOp r) -> Result {
        return evalReduction(r, env, Reduction::Min);
      })
      .Case([&](AnyOp r) -> Result {
        return evalReduction(r, env, Reduction::Any);
      })
      .Case([&](AllOp r) -> Result {
        return evalReduction(r, env, Reduction::All);
      })
      .Case([&](ProdOp r) -> Result {
        return evalReduction(r, env, Reduction::Prod);
      })
      .Case([&](VarOp v) -> Result { return evalVar(v, env); })
      .Case([&](MaxDimOp m) -> Result {
        return evalExtremeDim(m, env, /*largest=*/true);
      })
      .Case([&](MinDimOp m) -> Result {
        return evalExtremeDim(m, env, /*largest=*/false);
      })
      .Case([&](ArgmaxOp a) -> Result {
        return evalArgExtreme(a, env, /*largest=*/true);
      })
      .Case([&](ArgminOp a) -> Result {
        return evalArgExtreme(a, env, /*largest=*/false);
      })
      .Case([&](TopkOp t) -> Result {
        return sortAlong(op, env, t.getSelf(), static_cast<int64_t>(t.getDim()),
                         static_cast<int64_t>(t.getK()), t.getLargest(),
                         t.getValues(), t.getIndices());
      })
      .Case([&](SortOp t) -> Result {
        return sortAlong(op, env, t.getSelf(), static_cast<int64_t>(t.getDim()),
                         std::nullopt, t.getDescending(), t.getValues(),
                         t.getIndices());
      })
      .Case([&](CumsumOp c) -> Result { return evalCumsum(c, env); })
      .Default([](Operation *) -> Result { return std::nullopt; });
}

} // namespace magi::interp::detail
