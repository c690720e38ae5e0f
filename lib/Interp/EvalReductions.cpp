//===- EvalReductions.cpp - Reductions and scans --------------------------===//
//
// Sums and means accumulate in double (floats) or int64 (integers and bool)
// and round once to the result dtype.
//
//===----------------------------------------------------------------------===//

#include "Eval.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "llvm/ADT/TypeSwitch.h"
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

enum class Reduction { Sum, Mean, Max, Min, Any, All };

// Reduces `input` over the `reduced` dimensions.
FailureOr<Tensor> reduce(Operation *op, const Tensor &input,
                         ArrayRef<bool> reduced, bool keepdim, Type dtype,
                         Reduction kind) {
  ArrayRef<int64_t> shape = input.getShape();
  SmallVector<int64_t> outShape, keptShape;
  int64_t count = 1;
  for (auto [size, r] : llvm::zip(shape, reduced)) {
    if (r)
      count *= size;
    else
      keptShape.push_back(size);
    if (!r || keepdim)
      outShape.push_back(r ? 1 : size);
  }
  Tensor out(dtype, outShape);
  int64_t outCount = out.getNumElements();
  if (count == 0 && (kind == Reduction::Max || kind == Reduction::Min) &&
      outCount != 0)
    return op->emitError("cannot take the ")
           << (kind == Reduction::Max ? "maximum" : "minimum")
           << " of an empty dimension";

  // Each input element's place in the output: kept dimensions' strides.
  SmallVector<int64_t> keptStrides = getContiguousStrides(keptShape);
  SmallVector<int64_t> strides;
  unsigned kept = 0;
  for (bool r : reduced)
    strides.push_back(r ? 0 : keptStrides[kept++]);

  bool isFloat = input.isFloat();
  bool logical = kind == Reduction::Any || kind == Reduction::All;
  SmallVector<double> accFloat(outCount, kind == Reduction::Max   ? -INFINITY
                                         : kind == Reduction::Min ? INFINITY
                                                                  : 0.0);
  SmallVector<int64_t> accInt(outCount, kind == Reduction::Max   ? INT64_MIN
                                        : kind == Reduction::Min ? INT64_MAX
                                        : kind == Reduction::All ? 1
                                                                 : 0);
  IndexWalker walker(shape, {strides});
  for (int64_t i = 0, e = input.getNumElements(); i < e; ++i, walker.next()) {
    int64_t o = walker.offset(0);
    if (logical) {
      bool v = input.isNonZero(i);
      accInt[o] = kind == Reduction::Any ? (accInt[o] || v) : (accInt[o] && v);
    } else if (isFloat) {
      double v = input.getDouble(i);
      double &acc = accFloat[o];
      if (kind == Reduction::Sum || kind == Reduction::Mean)
        acc += v;
      else if (std::isnan(v) || std::isnan(acc))
        acc = std::nan("");
      else
        acc = kind == Reduction::Max ? std::max(acc, v) : std::min(acc, v);
    } else {
      int64_t v = input.getInt(i);
      int64_t &acc = accInt[o];
      if (kind == Reduction::Sum || kind == Reduction::Mean)
        acc = static_cast<int64_t>(static_cast<uint64_t>(acc) +
                                   static_cast<uint64_t>(v));
      else
        acc = kind == Reduction::Max ? std::max(acc, v) : std::min(acc, v);
    }
  }
  for (int64_t o = 0; o < outCount; ++o) {
    if (logical || !isFloat) {
      if (kind == Reduction::Mean)
        out.setDouble(o, static_cast<double>(accInt[o]) /
                             static_cast<double>(count));
      else
        out.setInt(o, accInt[o]);
    } else {
      out.setDouble(o, kind == Reduction::Mean
                           ? accFloat[o] / static_cast<double>(count)
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

// Index of the maximum along `dim` (the first one; NaN counts as the
// maximum, as in PyTorch). Writes values and/or indices when given.
LogicalResult argMax(Operation *op, const Tensor &input, int64_t dim,
                     Tensor *values, Tensor *indices) {
  DimSplit s = splitAt(input.getShape(), dim);
  if (s.size == 0 && s.outer * s.inner != 0)
    return op->emitError("cannot take the maximum of an empty dimension");
  bool isFloat = input.isFloat();
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t in = 0; in < s.inner; ++in) {
      int64_t base = o * s.size * s.inner + in, best = 0;
      for (int64_t j = 1; j < s.size; ++j) {
        int64_t a = base + j * s.inner, b = base + best * s.inner;
        bool better;
        if (isFloat) {
          double x = input.getDouble(a), y = input.getDouble(b);
          better = !std::isnan(y) && (std::isnan(x) || x > y);
        } else {
          better = input.getInt(a) > input.getInt(b);
        }
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

LogicalResult evalMaxDim(MaxDimOp op, Env &env) {
  const Tensor &input = env.get(op.getSelf());
  FailureOr<int64_t> dim = magi::normalizeDim(static_cast<int64_t>(op.getDim()),
                                              input.getRank(), op.getLoc());
  if (failed(dim))
    return failure();
  SmallVector<int64_t> shape =
      reducedShape(input.getShape(), *dim, op.getKeepdim());
  Tensor values(getDeclaredDtype(op.getValues()), shape);
  Tensor indices(getDeclaredDtype(op.getIndices()), shape);
  if (failed(argMax(op, input, *dim, &values, &indices)))
    return failure();
  env.set(op.getValues(), std::move(values));
  env.set(op.getIndices(), std::move(indices));
  return success();
}

LogicalResult evalArgmax(ArgmaxOp op, Env &env) {
  Tensor input = env.get(op.getSelf());
  Type dtype = getDeclaredDtype(op.getResult());
  std::optional<uint64_t> dimAttr = op.getDim();
  if (!dimAttr) {
    // Over the flattened tensor; keepdim keeps every dimension as size 1.
    SmallVector<int64_t> shape;
    if (op.getKeepdim())
      shape.assign(input.getRank(), 1);
    Tensor indices(dtype, shape);
    Tensor flat = input.reshaped({input.getNumElements()});
    if (failed(argMax(op, flat, 0, nullptr, &indices)))
      return failure();
    env.set(op.getResult(), std::move(indices));
    return success();
  }
  FailureOr<int64_t> dim = magi::normalizeDim(static_cast<int64_t>(*dimAttr),
                                              input.getRank(), op.getLoc());
  if (failed(dim))
    return failure();
  Tensor indices(dtype, reducedShape(input.getShape(), *dim, op.getKeepdim()));
  if (failed(argMax(op, input, *dim, nullptr, &indices)))
    return failure();
  env.set(op.getResult(), std::move(indices));
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
      .Case([&](MaxDimOp m) -> Result { return evalMaxDim(m, env); })
      .Case([&](ArgmaxOp a) -> Result { return evalArgmax(a, env); })
      .Case([&](CumsumOp c) -> Result { return evalCumsum(c, env); })
      .Default([](Operation *) -> Result { return std::nullopt; });
}

} // namespace magi::interp::detail
