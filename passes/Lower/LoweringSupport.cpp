//===- LoweringSupport.cpp - Helpers shared by the linalg lowering --------===//

#include "LowerToLinalgCommon.h"

#include "magi/Dialect/Magi/IR/TypeInference.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace magi::lower {

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

Value floatConst(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}

Value intConst(OpBuilder &b, Location loc, Type type, int64_t value) {
  return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, value));
}

Value typedConst(OpBuilder &b, Location loc, Type type, double value) {
  if (isa<FloatType>(type))
    return floatConst(b, loc, type, value);
  return intConst(b, loc, type, static_cast<int64_t>(value));
}

Value convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (from.isIndex()) {
    v = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
    return convertScalar(b, loc, v, to);
  }
  if (to.isIndex())
    return arith::IndexCastOp::create(
        b, loc, to, convertScalar(b, loc, v, b.getI64Type()));
  auto fromF = dyn_cast<FloatType>(from);
  auto toF = dyn_cast<FloatType>(to);
  if (fromF && toF) {
    if (fromF.getWidth() < toF.getWidth())
      return arith::ExtFOp::create(b, loc, to, v);
    if (fromF.getWidth() > toF.getWidth())
      return arith::TruncFOp::create(b, loc, to, v);
    // bf16 <-> f16: exact through f32.
    v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    return arith::TruncFOp::create(b, loc, to, v);
  }
  if (to.isInteger(1)) {
    if (fromF)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v,
                                   floatConst(b, loc, from, 0.0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                                 intConst(b, loc, from, 0));
  }
  if (fromF)
    return arith::FPToSIOp::create(b, loc, to, v);
  bool fromBool = from.isInteger(1);
  if (toF)
    return fromBool ? Value(arith::UIToFPOp::create(b, loc, to, v))
                    : Value(arith::SIToFPOp::create(b, loc, to, v));
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw)
    return fromBool ? Value(arith::ExtUIOp::create(b, loc, to, v))
                    : Value(arith::ExtSIOp::create(b, loc, to, v));
  return arith::TruncIOp::create(b, loc, to, v);
}

Value convertAcrossUnsigned(OpBuilder &b, Location loc, Value v, Type to,
                            bool fromUnsigned, bool toUnsigned) {
  Type from = v.getType();
  if (fromUnsigned && from != to && !to.isInteger(1)) {
    if (isa<FloatType>(to))
      return arith::UIToFPOp::create(b, loc, to, v);
    if (to.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth())
      return arith::ExtUIOp::create(b, loc, to, v);
  }
  if (toUnsigned && isa<FloatType>(from))
    return arith::TruncIOp::create(
        b, loc, to, arith::FPToSIOp::create(b, loc, b.getI64Type(), v));
  return convertScalar(b, loc, v, to);
}

Value roundThrough(OpBuilder &b, Location loc, Value v, Type dtype) {
  if (v.getType() == dtype)
    return v;
  return convertScalar(b, loc, convertScalar(b, loc, v, dtype), v.getType());
}

Type opmath(Type type) {
  if (isHalfDtype(type))
    return Float32Type::get(type.getContext());
  return type;
}

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

Value toIndexValue(OpBuilder &b, Location loc, OpFoldResult ofr) {
  if (auto v = dyn_cast<Value>(ofr))
    return v;
  return arith::ConstantIndexOp::create(b, loc, *getConstantIntValue(ofr));
}

namespace {
// `x op y`, a constant when both are; else the arith op `OpTy`.
template <typename OpTy>
OpFoldResult foldedIndexOp(OpBuilder &b, Location loc, OpFoldResult x,
                           OpFoldResult y,
                           function_ref<int64_t(int64_t, int64_t)> fold) {
  std::optional<int64_t> cx = getConstantIntValue(x), cy = getConstantIntValue(y);
  if (cx && cy)
    return b.getIndexAttr(fold(*cx, *cy));
  return OpTy::create(b, loc, toIndexValue(b, loc, x), toIndexValue(b, loc, y))
      .getResult();
}
} // namespace

OpFoldResult addIndex(OpBuilder &b, Location loc, OpFoldResult x,
                      OpFoldResult y) {
  if (isConstantIntValue(y, 0))
    return x;
  if (isConstantIntValue(x, 0))
    return y;
  return foldedIndexOp<arith::AddIOp>(b, loc, x, y,
                                      [](int64_t p, int64_t q) { return p + q; });
}

OpFoldResult subIndex(OpBuilder &b, Location loc, OpFoldResult x,
                      OpFoldResult y) {
  if (isConstantIntValue(y, 0))
    return x;
  return foldedIndexOp<arith::SubIOp>(b, loc, x, y,
                                      [](int64_t p, int64_t q) { return p - q; });
}

OpFoldResult mulIndex(OpBuilder &b, Location loc, OpFoldResult x,
                      OpFoldResult y) {
  if (isConstantIntValue(y, 1))
    return x;
  if (isConstantIntValue(x, 1))
    return y;
  return foldedIndexOp<arith::MulIOp>(b, loc, x, y,
                                      [](int64_t p, int64_t q) { return p * q; });
}

OpFoldResult minIndex(OpBuilder &b, Location loc, OpFoldResult x,
                      OpFoldResult y) {
  return foldedIndexOp<arith::MinSIOp>(
      b, loc, x, y, [](int64_t p, int64_t q) { return std::min(p, q); });
}

OpFoldResult maxIndex(OpBuilder &b, Location loc, OpFoldResult x,
                      OpFoldResult y) {
  return foldedIndexOp<arith::MaxSIOp>(
      b, loc, x, y, [](int64_t p, int64_t q) { return std::max(p, q); });
}

SmallVector<OpFoldResult> mixedList(MLIRContext *ctx, ArrayRef<int64_t> statics,
                                    ValueRange dynamic) {
  return getMixedValues(statics, dynamic, ctx);
}

OpFoldResult numElements(OpBuilder &b, Location loc, Value tensor) {
  OpFoldResult n = b.getIndexAttr(1);
  for (OpFoldResult s : tensor::getMixedSizes(b, loc, tensor))
    n = mulIndex(b, loc, n, s);
  return n;
}

//===----------------------------------------------------------------------===//
// Tensors and generics
//===----------------------------------------------------------------------===//

AffineMap broadcastMap(RankedTensorType operandType,
                       ArrayRef<int64_t> resultShape, unsigned numLoops,
                       ArrayRef<unsigned> loopDims) {
  MLIRContext *ctx = operandType.getContext();
  int64_t rank = resultShape.size();
  // The loop dimension that iterates result dimension d.
  auto loopOf = [&](int64_t d) -> AffineExpr {
    for (auto [i, rd] : llvm::enumerate(loopDims))
      if (static_cast<int64_t>(rd) == d)
        return getAffineDimExpr(i, ctx);
    return getAffineDimExpr(d, ctx);
  };
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < operandType.getRank(); ++i) {
    int64_t d = rank - operandType.getRank() + i;
    if (operandType.getDimSize(i) == 1 && resultShape[d] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(loopOf(d));
  }
  return AffineMap::get(numLoops, 0, exprs, ctx);
}

FailureOr<Value> emptyLike(OpBuilder &b, Location loc, RankedTensorType type,
                           ValueRange operands) {
  SmallVector<Value> dynSizes;
  int64_t rank = type.getRank();
  for (int64_t d = 0; d < rank; ++d) {
    if (!type.isDynamicDim(d))
      continue;
    Value size;
    for (Value v : operands) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t)
        continue;
      int64_t od = d - (rank - t.getRank());
      if (od < 0 || t.getDimSize(od) == 1)
        continue;
      size = tensor::DimOp::create(b, loc, v, od);
      break;
    }
    if (!size)
      return failure();
    dynSizes.push_back(size);
  }
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 dynSizes)
      .getResult();
}

Value emptyOfSizes(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                   Type elementType) {
  return tensor::EmptyOp::create(b, loc, sizes, elementType);
}

Value filledOfSizes(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                    Value value) {
  Value empty = emptyOfSizes(b, loc, sizes, value.getType());
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

SmallVector<utils::IteratorType> parallelIterators(int64_t n) {
  return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
}

Value buildParallelGeneric(OpBuilder &b, Location loc, Value init,
                           ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                           BodyBuilder body) {
  auto type = cast<RankedTensorType>(init.getType());
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(type.getRank()));
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, inputs, ValueRange{init}, maps,
             parallelIterators(type.getRank()),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l,
                                       body(nb, l, args.drop_back()));
             })
      .getResult(0);
}

Value convertElements(OpBuilder &b, Location loc, Value tensor,
                      Type elementType) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getElementType() == elementType)
    return tensor;
  Value init = emptyOfSizes(b, loc, tensor::getMixedSizes(b, loc, tensor),
                            elementType);
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  return buildParallelGeneric(
      b, loc, init, tensor, id, [&](OpBuilder &nb, Location l, ValueRange a) {
        return convertScalar(nb, l, a[0], elementType);
      });
}

SmallVector<ReassociationIndices> unitDimGroups(ArrayRef<bool> isUnit) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (auto [d, unit] : llvm::enumerate(isUnit)) {
    pending.push_back(d);
    if (!unit) {
      groups.push_back(pending);
      pending.clear();
    }
  }
  if (!groups.empty())
    groups.back().append(pending.begin(), pending.end());
  return groups;
}

FailureOr<int64_t> normalizedDim(PatternRewriter &rewriter, Operation *op,
                                 int64_t dim, int64_t rank) {
  FailureOr<int64_t> normalized = magi::normalizeDim(dim, rank, std::nullopt);
  if (failed(normalized))
    return rewriter.notifyMatchFailure(op, "dimension out of range");
  return *normalized;
}

LogicalResult replaceWithType(PatternRewriter &rewriter, Operation *op,
                              Value result, Type type) {
  if (result.getType() != type)
    result = tensor::CastOp::create(rewriter, op->getLoc(), type, result);
  rewriter.replaceOp(op, result);
  return success();
}

} // namespace magi::lower
