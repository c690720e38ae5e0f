//===- TypeInference.cpp - PyTorch dtype promotion and shapes ------------===//

#include "magi/Dialect/Magi/IR/TypeInference.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace magi {

DtypeCategory getDtypeCategory(Type type) {
  if (isa<FloatType>(type))
    return DtypeCategory::Float;
  if (type.isInteger(1))
    return DtypeCategory::Bool;
  return DtypeCategory::Integer;
}

bool isHalfDtype(Type type) { return type.isF16() || type.isBF16(); }

Type defaultFloatDtype(MLIRContext *context) {
  return Float32Type::get(context);
}

Type promoteDtypes(Type a, Type b) {
  if (!a)
    return b;
  if (!b || a == b)
    return a;
  DtypeCategory ca = getDtypeCategory(a), cb = getDtypeCategory(b);
  if (ca != cb)
    return ca > cb ? a : b;
  if (ca == DtypeCategory::Float) {
    // f16 and bf16 have no common 16-bit type.
    if (isHalfDtype(a) && isHalfDtype(b))
      return Float32Type::get(a.getContext());
    return a.getIntOrFloatBitWidth() >= b.getIntOrFloatBitWidth() ? a : b;
  }
  // Integers. An index (SymInt) counts as int64.
  auto width = [](Type t) {
    return t.isIndex() ? 64u : t.getIntOrFloatBitWidth();
  };
  bool ua = a.isUnsignedInteger(), ub = b.isUnsignedInteger();
  if (ua == ub)
    return width(a) >= width(b) ? a : b;
  // uint8 with a signed type: the signed type when wider, else int16.
  Type signedType = ua ? b : a;
  if (width(signedType) > 8)
    return signedType;
  return IntegerType::get(a.getContext(), 16);
}

Type wrappedNumberDtype(Type type) {
  MLIRContext *context = type.getContext();
  switch (getDtypeCategory(type)) {
  case DtypeCategory::Float:
    return defaultFloatDtype(context);
  case DtypeCategory::Integer:
    return IntegerType::get(context, 64);
  case DtypeCategory::Bool:
    return IntegerType::get(context, 1);
  }
  llvm_unreachable("unknown dtype category");
}

// PyTorch's combine_categories: the higher-priority class wins unless a
// lower-priority operand is of a higher category.
static Type combineCategories(Type higher, Type lower) {
  if (!higher)
    return lower;
  if (!lower)
    return higher;
  if (getDtypeCategory(higher) == DtypeCategory::Float)
    return higher;
  if (higher.isInteger(1) || getDtypeCategory(lower) == DtypeCategory::Float)
    return promoteDtypes(higher, lower);
  return higher;
}

Type resultDtype(TypeRange operandTypes) {
  Type dimResult, zeroResult, wrappedResult;
  for (Type type : operandTypes) {
    if (auto tensor = dyn_cast<RankedTensorType>(type)) {
      Type &slot = tensor.getRank() == 0 ? zeroResult : dimResult;
      slot = promoteDtypes(slot, tensor.getElementType());
    } else {
      wrappedResult = promoteDtypes(wrappedResult, wrappedNumberDtype(type));
    }
  }
  return combineCategories(dimResult,
                           combineCategories(zeroResult, wrappedResult));
}

FailureOr<SmallVector<int64_t>>
broadcastShapes(ArrayRef<ArrayRef<int64_t>> shapes,
                std::optional<Location> loc) {
  size_t rank = 0;
  for (ArrayRef<int64_t> shape : shapes)
    rank = std::max(rank, shape.size());
  SmallVector<int64_t> result(rank, 1);
  for (ArrayRef<int64_t> shape : shapes) {
    size_t offset = rank - shape.size();
    for (auto [i, size] : llvm::enumerate(shape)) {
      int64_t &out = result[offset + i];
      if (size == 1)
        continue;
      if (out == 1 || out == size) {
        out = size;
        continue;
      }
      if (ShapedType::isDynamic(size))
        continue; // `?` against a static size: the static size.
      if (ShapedType::isDynamic(out)) {
        out = size;
        continue;
      }
      return emitOptionalError(loc, "shapes are not broadcast-compatible: "
                                    "size ",
                               out, " vs ", size, " in dimension ",
                               offset + i, " of the broadcast shape");
    }
  }
  return result;
}

SliceBounds resolveSliceBounds(int64_t size, int64_t start, int64_t end,
                               int64_t step) {
  auto clamp = [&](int64_t v) {
    if (v < 0)
      v = v < -size ? 0 : v + size;
    return std::min(v, size);
  };
  int64_t s = clamp(start), e = clamp(end);
  // (e - s - 1) / step + 1 = ceil((e - s) / step), without overflow.
  return {s, e <= s ? 0 : (e - s - 1) / step + 1};
}

FailureOr<int64_t> normalizeDim(int64_t dim, int64_t rank,
                                std::optional<Location> loc) {
  int64_t bound = std::max<int64_t>(rank, 1);
  if (dim < -bound || dim >= bound)
    return emitOptionalError(loc, "dimension ", dim,
                             " is out of range for a tensor of rank ", rank);
  return dim < 0 ? dim + bound : dim;
}

std::optional<double> getConstantScalar(Value value) {
  Attribute attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return static_cast<double>(i.getValue().getSExtValue());
  return std::nullopt;
}

bool isRefinementOf(Type declared, Type inferred) {
  if (declared == inferred)
    return true;
  auto d = dyn_cast<RankedTensorType>(declared);
  auto i = dyn_cast<RankedTensorType>(inferred);
  if (!d || !i || d.getElementType() != i.getElementType() ||
      d.getRank() != i.getRank())
    return false;
  for (auto [ds, is] : llvm::zip(d.getShape(), i.getShape()))
    if (!ShapedType::isDynamic(is) && ds != is)
      return false;
  return true;
}

bool areCompatibleResults(TypeRange declared, TypeRange inferred) {
  if (declared.size() != inferred.size())
    return false;
  for (auto [d, i] : llvm::zip(declared, inferred)) {
    if (d == i)
      continue;
    auto dt = dyn_cast<RankedTensorType>(d);
    auto it = dyn_cast<RankedTensorType>(i);
    if (!dt || !it || dt.getElementType() != it.getElementType() ||
        failed(verifyCompatibleShape(dt, it)))
      return false;
  }
  return true;
}

Type meetTypes(Type a, Type b) {
  auto ta = dyn_cast<RankedTensorType>(a), tb = dyn_cast<RankedTensorType>(b);
  if (!ta || !tb)
    return a == b ? a : Type();
  if (ta.getElementType() != tb.getElementType() || ta.getRank() != tb.getRank())
    return Type();
  SmallVector<int64_t> shape;
  for (auto [x, y] : llvm::zip(ta.getShape(), tb.getShape())) {
    if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
      return Type();
    shape.push_back(ShapedType::isDynamic(x) ? y : x);
  }
  return RankedTensorType::get(shape, ta.getElementType());
}

LogicalResult refineResultTypes(Operation *op) {
  auto infer = dyn_cast<InferTypeOpInterface>(op);
  if (!infer)
    return success();
  SmallVector<Type> inferred;
  if (failed(infer.inferReturnTypes(op->getContext(), op->getLoc(), op->getOperands(),
                                    op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
                                    op->getRegions(), inferred)))
    return failure();
  for (auto [result, type] : llvm::zip(op->getResults(), inferred)) {
    if (!isa<RankedTensorType>(result.getType()) || !isa<RankedTensorType>(type))
      continue;
    Type refined = meetTypes(result.getType(), type);
    if (!refined)
      return op->emitError("shapes conflict: inferred ")
             << type << " for declared " << result.getType();
    result.setType(refined);
  }
  return success();
}

bool areRefinementsOf(TypeRange declared, TypeRange inferred) {
  if (declared.size() != inferred.size())
    return false;
  for (auto [d, i] : llvm::zip(declared, inferred))
    if (!isRefinementOf(d, i))
      return false;
  return true;
}

bool declaredTypesHold(Operation *op) {
  auto infer = dyn_cast<InferTypeOpInterface>(op);
  SmallVector<Type> inferred;
  return infer &&
         // No location: a probe, not a diagnostic.
         succeeded(infer.inferReturnTypes(op->getContext(), std::nullopt, op->getOperands(),
                                          op->getRawDictionaryAttrs(),
                                          op->getPropertiesStorage(), op->getRegions(),
                                          inferred)) &&
         areRefinementsOf(op->getResultTypes(), inferred);
}

} // namespace magi
