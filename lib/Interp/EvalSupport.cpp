//===- EvalSupport.cpp - Helpers shared by the interpreter's op groups ----===//

#include "Eval.h"
#include "magi/Dialect/Magi/IR/TypeInference.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace magi::interp::detail {

LogicalResult checkResultSize(Operation *op, Type dtype, ArrayRef<int64_t> shape) {
  int64_t bytes = (dtype.getIntOrFloatBitWidth() + 7) / 8;
  for (int64_t s : shape) {
    if (s < 0)
      return op->emitError("size ") << s << " is negative (shape "
                                    << formatShape(shape) << ")";
  }
  for (int64_t s : shape)
    if (llvm::MulOverflow(bytes, s, bytes) || bytes > kMaxTensorBytes)
      return op->emitError("a result of shape ")
             << formatShape(shape) << " and dtype " << dtype
             << " holds more than the interpreter's limit of "
             << (kMaxTensorBytes >> 30) << " GiB";
  return success();
}

SmallVector<int64_t> resolveMixedList(ArrayRef<int64_t> statics,
                                      ValueRange dynamic, const Env &env) {
  SmallVector<int64_t> values;
  unsigned next = 0;
  for (int64_t s : statics) {
    if (ShapedType::isDynamic(s))
      values.push_back(env.getInt(dynamic[next++]));
    else
      values.push_back(s);
  }
  return values;
}

IndexWalker::IndexWalker(ArrayRef<int64_t> shape,
                         ArrayRef<SmallVector<int64_t>> strides,
                         ArrayRef<int64_t> bases)
    : shape(shape.begin(), shape.end()),
      strides(strides.begin(), strides.end()), index(shape.size(), 0) {
  if (bases.empty())
    offsets.assign(strides.size(), 0);
  else
    offsets.assign(bases.begin(), bases.end());
}

void IndexWalker::next() {
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    ++index[d];
    for (auto [offset, s] : llvm::zip(offsets, strides))
      offset += s[d];
    if (index[d] < shape[d])
      return;
    // Carry into the next outer dimension.
    for (auto [offset, s] : llvm::zip(offsets, strides))
      offset -= s[d] * shape[d];
    index[d] = 0;
  }
}

SmallVector<int64_t> getBroadcastStrides(ArrayRef<int64_t> shape,
                                         ArrayRef<int64_t> target) {
  SmallVector<int64_t> contiguous = getContiguousStrides(shape);
  SmallVector<int64_t> strides(target.size(), 0);
  size_t lead = target.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1 || target[lead + d] == 1)
      strides[lead + d] = contiguous[d];
  return strides;
}

Tensor gatherStrided(const Tensor &src, ArrayRef<int64_t> shape,
                     ArrayRef<int64_t> strides, int64_t offset) {
  Tensor out(src.getDtype(), shape);
  SmallVector<int64_t> s(strides.begin(), strides.end());
  IndexWalker walker(shape, {s}, {offset});
  for (int64_t i = 0, e = out.getNumElements(); i < e; ++i, walker.next())
    out.setFrom(i, src, walker.offset(0));
  return out;
}

Tensor broadcastTo(const Tensor &src, ArrayRef<int64_t> shape, Type dtype) {
  Tensor out(dtype, shape);
  IndexWalker walker(shape, {getBroadcastStrides(src.getShape(), shape)});
  for (int64_t i = 0, e = out.getNumElements(); i < e; ++i, walker.next())
    out.setFrom(i, src, walker.offset(0));
  return out;
}

FailureOr<SmallVector<int64_t>>
broadcastRuntimeShapes(ArrayRef<ArrayRef<int64_t>> shapes, Location loc) {
  // Run-time shapes are all static, so the dialect's rule is exact here.
  return magi::broadcastShapes(shapes, loc);
}

bool isFloatDtype(Type dtype) {
  return magi::getDtypeCategory(dtype) == magi::DtypeCategory::Float;
}

Tensor castOperand(const Tensor &value, Value v, Type dtype) {
  if (!isa<RankedTensorType>(v.getType()) && magi::isHalfDtype(dtype))
    return value.castTo(Float32Type::get(dtype.getContext()));
  return value.castTo(dtype);
}

DimSplit splitAt(ArrayRef<int64_t> shape, int64_t dim) {
  DimSplit split{1, shape.empty() ? 1 : shape[dim], 1};
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (d < dim)
      split.outer *= shape[d];
    else if (d > dim)
      split.inner *= shape[d];
  }
  return split;
}

} // namespace magi::interp::detail
