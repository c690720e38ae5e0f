//===- Decompositions.cpp - Fused magi ops as their primitive ops ---------===//
//
// DecomposableOpInterface: each fused op builds the primitive ops its
// documentation defines it by (magi-decompose-fused replaces it with them).
//
//===----------------------------------------------------------------------===//

#include "magi/Dialect/Magi/IR/AttentionLayout.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include <cmath>
#include <limits>

using namespace mlir;
using namespace magi;

namespace {

Value f64Constant(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
}
Value i64Constant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
}

Value toDtype(OpBuilder &b, Location loc, Value v, Type dtype) {
  if (cast<RankedTensorType>(v.getType()).getElementType() == dtype)
    return v;
  return ToCopyOp::create(b, loc, v, TypeAttr::get(dtype));
}

// A dimension of `v` as a size: a constant, or magi.sym_size when dynamic.
std::pair<int64_t, Value> sizeOf(OpBuilder &b, Location loc, Value v,
                                 int64_t dim) {
  int64_t size = cast<RankedTensorType>(v.getType()).getDimSize(dim);
  if (!ShapedType::isDynamic(size))
    return {size, Value()};
  return {ShapedType::kDynamic,
          SymSizeOp::create(b, loc, v, b.getI64IntegerAttr(dim))};
}

// repeat_kv: [B, Hkv, S, D] -> [B, Hkv * n, S, D].
Value repeatHeads(OpBuilder &b, Location loc, Value kv, int64_t n) {
  Value u = UnsqueezeOp::create(b, loc, kv, b.getI64IntegerAttr(2));
  Value e = ExpandOp::create(b, loc, u, ValueRange(),
                             b.getDenseI64ArrayAttr({-1, -1, n, -1, -1}));
  SmallVector<int64_t> statics;
  SmallVector<Value> dynamics;
  int64_t heads = cast<RankedTensorType>(kv.getType()).getDimSize(1);
  for (int64_t dim = 0; dim < 4; ++dim) {
    if (dim == 1) {
      statics.push_back(heads * n);
      continue;
    }
    auto [size, value] = sizeOf(b, loc, kv, dim);
    statics.push_back(size);
    if (value)
      dynamics.push_back(value);
  }
  return ViewOp::create(b, loc, e, dynamics, b.getDenseI64ArrayAttr(statics));
}

} // namespace

FailureOr<Value> RmsNormOp::decompose(OpBuilder &b) {
  RmsNormOp op = *this;
  Location loc = op.getLoc();
  Type inputDtype = op.getInput().getType().getElementType();
  Type compute = op.getComputeDtypeAttr() ? op.getComputeDtypeAttr().getValue()
                                          : Type(b.getF32Type());
  Value x = toDtype(b, loc, op.getInput(), compute);
  Value sq = PowOp::create(b, loc, x, i64Constant(b, loc, 2));
  Value mean = MeanOp::create(b, loc, sq, b.getDenseI64ArrayAttr({-1}),
                              b.getBoolAttr(true), TypeAttr());
  Value var = AddOp::create(b, loc, mean,
                            f64Constant(b, loc, op.getEps().convertToDouble()),
                            FloatAttr());
  Value inv = RsqrtOp::create(b, loc, var);
  Value y = toDtype(b, loc, MulOp::create(b, loc, x, inv), inputDtype);
  if (op.getWeight())
    y = MulOp::create(b, loc, op.getWeight(), y);
  return Value(y);
}

FailureOr<Value> SiluAndMulOp::decompose(OpBuilder &b) {
  SiluAndMulOp op = *this;
  Value silu = SiluOp::create(b, op.getLoc(), op.getGate());
  return Value(MulOp::create(b, op.getLoc(), silu, op.getUp()));
}

FailureOr<Value> RotaryEmbeddingOp::decompose(OpBuilder &b) {
  RotaryEmbeddingOp op = *this;
  Location loc = op.getLoc();
  auto type = op.getX().getType();
  int64_t d = type.getDimSize(type.getRank() - 1);
  if (ShapedType::isDynamic(d))
    return op.emitError("cannot decompose rotary_embedding with a dynamic "
                        "last dimension");
  auto slice = [&](int64_t start, int64_t end) -> Value {
    return SliceOp::create(b, loc, op.getX(), b.getI64IntegerAttr(-1),
                           ValueRange(), b.getDenseI64ArrayAttr({start, end, 1}));
  };
  Value lo = slice(0, d / 2);
  Value hi = slice(d / 2, std::numeric_limits<int64_t>::max());
  Value rot = CatOp::create(b, loc, ValueRange{NegOp::create(b, loc, hi), lo},
                            b.getI64IntegerAttr(-1));
  Value a = MulOp::create(b, loc, op.getX(), op.getCos());
  Value c = MulOp::create(b, loc, rot, op.getSin());
  return Value(AddOp::create(b, loc, a, c, FloatAttr()));
}

FailureOr<Value> LayerNormOp::decompose(OpBuilder &b) {
  LayerNormOp op = *this;
  auto native = NativeLayerNormOp::create(
      b, op.getLoc(), op.getInput(), op.getWeight(), op.getBias(),
      op.getNormalizedNdimAttr(), op.getEpsAttr());
  return Value(native.getResult());
}

// softmax(x) = exp(x - amax(x)) / sum(exp(x - amax(x))), computed in f32 for
// a half input with half_to_float.
FailureOr<Value> SoftmaxOp::decompose(OpBuilder &b) {
  SoftmaxOp op = *this;
  Location loc = op.getLoc();
  Value x = toDtype(b, loc, op.getSelf(), op.getType().getElementType());
  auto dims = b.getDenseI64ArrayAttr({static_cast<int64_t>(op.getDim())});
  Value max = AmaxOp::create(b, loc, x, dims, b.getBoolAttr(true), TypeAttr());
  Value e = ExpOp::create(b, loc, SubOp::create(b, loc, x, max, FloatAttr()));
  Value sum = SumOp::create(b, loc, e, dims, b.getBoolAttr(true), TypeAttr());
  return Value(DivOp::create(b, loc, e, sum, StringAttr()));
}

// gelu(x) = 0.5 x (1 + erf(x / sqrt 2)), or the tanh approximation.
FailureOr<Value> GeluOp::decompose(OpBuilder &b) {
  GeluOp op = *this;
  Location loc = op.getLoc();
  Value x = op.getSelf();
  Value inner;
  if (op.getApproximate() == "tanh") {
    Value cube = PowOp::create(b, loc, x, f64Constant(b, loc, 3.0));
    Value poly = AddOp::create(
        b, loc, x, MulOp::create(b, loc, cube, f64Constant(b, loc, 0.044715)),
        FloatAttr());
    inner = TanhOp::create(
        b, loc,
        MulOp::create(b, loc, poly, f64Constant(b, loc, std::sqrt(2.0 / M_PI))));
  } else {
    inner = ErfOp::create(b, loc,
                          MulOp::create(b, loc, x, f64Constant(b, loc, M_SQRT1_2)));
  }
  Value half = MulOp::create(b, loc, x, f64Constant(b, loc, 0.5));
  Value onePlus = AddOp::create(b, loc, inner, f64Constant(b, loc, 1.0), FloatAttr());
  return Value(MulOp::create(b, loc, half, onePlus));
}

FailureOr<Value> AttentionOp::decompose(OpBuilder &b) {
  AttentionOp op = *this;
  Location loc = op.getLoc();
  // Layout bshd: the heads-first operands as transposes, the result
  // transposed back.
  Value query = op.getQuery(), key = op.getKey(), value = op.getValue();
  if (op.isSequenceMajor()) {
    query = swapHeadsAndSequence(b, loc, query);
    key = swapHeadsAndSequence(b, loc, key);
    value = swapHeadsAndSequence(b, loc, value);
  }
  auto q = cast<RankedTensorType>(query.getType()), k = cast<RankedTensorType>(key.getType());
  if (q.getRank() != 4)
    return op.emitError("cannot decompose attention of rank ")
           << q.getRank() << " (the SDPA kernels take [B, H, L, E])";
  int64_t hq = q.getDimSize(1), hk = k.getDimSize(1);
  if (hq != hk) {
    if (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hk))
      return op.emitError("cannot decompose attention with dynamic head counts");
    key = repeatHeads(b, loc, key, hq / hk);
    value = repeatHeads(b, loc, value, hq / hk);
  }
  auto sdpa = EfficientAttentionOp::create(
      b, loc, query, key, value, op.getMask(), b.getBoolAttr(false),
      b.getF64FloatAttr(op.getDropoutP().convertToDouble()),
      b.getBoolAttr(op.getIsCausal()), op.getScaleAttr());
  if (op.isSequenceMajor())
    return swapHeadsAndSequence(b, loc, sdpa.getResult());
  return Value(sdpa.getResult());
}
