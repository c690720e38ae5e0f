//===- LowerToLinalg.cpp - magi ops to linalg on tensors ------------------===//
//
// The first step of the lower phase: elementwise ops, reductions and matrix
// products become linalg ops on tensors (value semantics), with tensor, arith
// and math ops. Other magi ops stay (partial conversion).
//
//===----------------------------------------------------------------------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Dialect/Magi/IR/TypeInference.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

namespace magi {
#define GEN_PASS_DEF_LOWERTOLINALG
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;
using namespace magi;

namespace {

//===----------------------------------------------------------------------===//
// Scalar helpers
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

// Converts a scalar between the element types Magi uses (and `index`), as
// PyTorch converts: floats truncate toward zero into integers, nonzero is
// true, bools are 0/1 (unsigned).
Value convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (from.isIndex()) {
    v = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
    return convertScalar(b, loc, v, to);
  }
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

// The type an op computes in: half types compute in f32 (PyTorch's opmath).
Type opmath(Type type) {
  if (isHalfDtype(type))
    return Float32Type::get(type.getContext());
  return type;
}

//===----------------------------------------------------------------------===//
// Elementwise bodies
//===----------------------------------------------------------------------===//

Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value one = floatConst(b, loc, t, 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e));
}

// The body of an elementwise op on operands already in `ct`, its compute
// type; null for an op this file does not lower.
Value buildBody(Operation *op, OpBuilder &b, Location loc, ArrayRef<Value> a,
                Type ct) {
  bool isFloat = isa<FloatType>(ct);
  bool isBool = ct.isInteger(1);
  auto f = [&](double v) { return floatConst(b, loc, ct, v); };
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<NegOp>([&](auto) -> Value {
        if (isFloat)
          return arith::NegFOp::create(b, loc, a[0]);
        return arith::SubIOp::create(b, loc, intConst(b, loc, ct, 0), a[0]);
      })
      .Case<AbsOp>([&](auto) -> Value {
        if (isFloat)
          return math::AbsFOp::create(b, loc, a[0]);
        if (isBool)
          return a[0];
        return math::AbsIOp::create(b, loc, a[0]);
      })
      .Case<ReluOp>([&](auto) -> Value {
        if (isFloat)
          return arith::MaximumFOp::create(b, loc, a[0], f(0.0));
        return arith::MaxSIOp::create(b, loc, a[0], intConst(b, loc, ct, 0));
      })
      .Case<ExpOp>([&](auto) -> Value { return math::ExpOp::create(b, loc, a[0]); })
      .Case<LogOp>([&](auto) -> Value { return math::LogOp::create(b, loc, a[0]); })
      .Case<SqrtOp>([&](auto) -> Value { return math::SqrtOp::create(b, loc, a[0]); })
      .Case<RsqrtOp>([&](auto) -> Value { return math::RsqrtOp::create(b, loc, a[0]); })
      .Case<TanhOp>([&](auto) -> Value { return math::TanhOp::create(b, loc, a[0]); })
      .Case<ErfOp>([&](auto) -> Value { return math::ErfOp::create(b, loc, a[0]); })
      .Case<CosOp>([&](auto) -> Value { return math::CosOp::create(b, loc, a[0]); })
      .Case<SinOp>([&](auto) -> Value { return math::SinOp::create(b, loc, a[0]); })
      .Case<ReciprocalOp>([&](auto) -> Value {
        return arith::DivFOp::create(b, loc, f(1.0), a[0]);
      })
      .Case<SigmoidOp>([&](auto) -> Value { return sigmoid(b, loc, a[0]); })
      .Case<SiluOp>([&](auto) -> Value {
        return arith::MulFOp::create(b, loc, a[0], sigmoid(b, loc, a[0]));
      })
      .Case<GeluOp>([&](GeluOp gelu) -> Value {
        Value x = a[0];
        Value half = arith::MulFOp::create(b, loc, f(0.5), x);
        Value inner;
        if (gelu.getApproximate() == "tanh") {
          // sqrt(2/pi) * (x + 0.044715 x^3)
          Value x3 = arith::MulFOp::create(
              b, loc, x, arith::MulFOp::create(b, loc, x, x));
          Value s = arith::AddFOp::create(
              b, loc, x, arith::MulFOp::create(b, loc, f(0.044715), x3));
          inner = math::TanhOp::create(
              b, loc, arith::MulFOp::create(b, loc, f(std::sqrt(2.0 / M_PI)), s));
        } else {
          inner = math::ErfOp::create(
              b, loc, arith::MulFOp::create(b, loc, x, f(M_SQRT1_2)));
        }
        return arith::MulFOp::create(b, loc, half,
                                     arith::AddFOp::create(b, loc, f(1.0), inner));
      })
      .Case<AddOp, SubOp>([&](auto binop) -> Value {
        Value other = a[1];
        if (FloatAttr alpha = binop.getAlphaAttr()) {
          double v = alpha.getValueAsDouble();
          if (v != 1.0)
            other = isFloat ? Value(arith::MulFOp::create(b, loc, other, f(v)))
                            : Value(arith::MulIOp::create(
                                  b, loc, other, intConst(b, loc, ct, (int64_t)v)));
        }
        bool isAdd = isa<AddOp>(binop.getOperation());
        if (isFloat)
          return isAdd ? Value(arith::AddFOp::create(b, loc, a[0], other))
                       : Value(arith::SubFOp::create(b, loc, a[0], other));
        if (isBool && isAdd)
          return arith::OrIOp::create(b, loc, a[0], other);
        return isAdd ? Value(arith::AddIOp::create(b, loc, a[0], other))
                     : Value(arith::SubIOp::create(b, loc, a[0], other));
      })
      .Case<MulOp>([&](auto) -> Value {
        if (isFloat)
          return arith::MulFOp::create(b, loc, a[0], a[1]);
        if (isBool)
          return arith::AndIOp::create(b, loc, a[0], a[1]);
        return arith::MulIOp::create(b, loc, a[0], a[1]);
      })
      .Case<DivOp>([&](DivOp div) -> Value {
        std::optional<StringRef> mode = div.getRoundingMode();
        if (isFloat) {
          Value q = arith::DivFOp::create(b, loc, a[0], a[1]);
          if (mode && *mode == "trunc")
            return math::TruncOp::create(b, loc, q);
          if (mode && *mode == "floor")
            return math::FloorOp::create(b, loc, q);
          return q;
        }
        if (mode && *mode == "floor")
          return arith::FloorDivSIOp::create(b, loc, a[0], a[1]);
        return arith::DivSIOp::create(b, loc, a[0], a[1]);
      })
      .Case<PowOp>([&](auto) -> Value {
        if (isFloat)
          return math::PowFOp::create(b, loc, a[0], a[1]);
        return math::IPowIOp::create(b, loc, a[0], a[1]);
      })
      .Case<MaximumOp>([&](auto) -> Value {
        if (isFloat)
          return arith::MaximumFOp::create(b, loc, a[0], a[1]);
        return isBool ? Value(arith::OrIOp::create(b, loc, a[0], a[1]))
                      : Value(arith::MaxSIOp::create(b, loc, a[0], a[1]));
      })
      .Case<MinimumOp>([&](auto) -> Value {
        if (isFloat)
          return arith::MinimumFOp::create(b, loc, a[0], a[1]);
        return isBool ? Value(arith::AndIOp::create(b, loc, a[0], a[1]))
                      : Value(arith::MinSIOp::create(b, loc, a[0], a[1]));
      })
      .Case<EqOp, NeOp, LtOp, LeOp, GtOp, GeOp>([&](Operation *cmp) -> Value {
        // Ordered float predicates (NaN compares false), except ne; bools
        // compare unsigned (true > false).
        using FP = arith::CmpFPredicate;
        using IP = arith::CmpIPredicate;
        FP fp;
        IP ip;
        if (isa<EqOp>(cmp)) { fp = FP::OEQ; ip = IP::eq; }
        else if (isa<NeOp>(cmp)) { fp = FP::UNE; ip = IP::ne; }
        else if (isa<LtOp>(cmp)) { fp = FP::OLT; ip = isBool ? IP::ult : IP::slt; }
        else if (isa<LeOp>(cmp)) { fp = FP::OLE; ip = isBool ? IP::ule : IP::sle; }
        else if (isa<GtOp>(cmp)) { fp = FP::OGT; ip = isBool ? IP::ugt : IP::sgt; }
        else { fp = FP::OGE; ip = isBool ? IP::uge : IP::sge; }
        if (isFloat)
          return arith::CmpFOp::create(b, loc, fp, a[0], a[1]);
        return arith::CmpIOp::create(b, loc, ip, a[0], a[1]);
      })
      .Case<WhereOp>([&](auto) -> Value {
        return arith::SelectOp::create(b, loc, a[0], a[1], a[2]);
      })
      .Case<ToCopyOp, CloneOp>([&](auto) -> Value { return a[0]; })
      .Default([](Operation *) -> Value { return nullptr; });
}

// The compute type of an elementwise op with result element type `resEl`:
// comparisons compute in their operands' promoted dtype, `where` and
// conversions in the result dtype, everything else in the result's opmath.
Type computeType(Operation *op, Type resEl) {
  if (isa<EqOp, NeOp, LtOp, LeOp, GtOp, GeOp>(op))
    return opmath(resultDtype(op->getOperandTypes()));
  if (isa<WhereOp, ToCopyOp, CloneOp>(op))
    return resEl;
  return opmath(resEl);
}

bool isElementwise(Operation *op) {
  return isa<NegOp, AbsOp, ReluOp, ExpOp, LogOp, SqrtOp, RsqrtOp, SigmoidOp,
             TanhOp, ErfOp, CosOp, SinOp, SiluOp, GeluOp, ReciprocalOp, AddOp,
             SubOp, MulOp, DivOp, PowOp, MaximumOp, MinimumOp, EqOp, NeOp,
             LtOp, LeOp, GtOp, GeOp, WhereOp, ToCopyOp, CloneOp>(op);
}

// A `tensor.empty` of `type` whose dynamic sizes come from `tensor.dim` of
// the tensor operand that has each dimension (right-aligned, size not 1).
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

// Lowers an elementwise op to one linalg.generic. Tensor operands broadcast
// (numpy rules: right-aligned, a static size-1 dimension is read at index 0;
// dynamic dimensions are assumed equal to the result's). Python scalars are
// cast to the compute type before the generic and used in its body.
class ElementwisePattern : public RewritePattern {
public:
  ElementwisePattern(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwise(op) || op->getNumResults() != 1)
      return failure();
    auto resType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resType)
      return failure();
    Location loc = op->getLoc();
    Type resEl = resType.getElementType();
    Type ct = computeType(op, resEl);
    int64_t rank = resType.getRank();
    MLIRContext *ctx = op->getContext();

    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    // Per operand: index into the block arguments, or the cast scalar.
    SmallVector<std::pair<int, Value>> slots;
    for (Value v : op->getOperands()) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t) {
        // `where`'s condition is a tensor, so a scalar here is a value.
        slots.push_back({-1, convertScalar(rewriter, loc, v, ct)});
        continue;
      }
      if (t.getRank() > rank)
        return rewriter.notifyMatchFailure(op, "operand of higher rank");
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < t.getRank(); ++i) {
        int64_t d = rank - t.getRank() + i;
        if (t.getDimSize(i) == 1 && resType.getDimSize(d) != 1)
          exprs.push_back(getAffineConstantExpr(0, ctx));
        else
          exprs.push_back(getAffineDimExpr(d, ctx));
      }
      slots.push_back({(int)inputs.size(), Value()});
      inputs.push_back(v);
      maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
    }
    if (inputs.empty())
      return rewriter.notifyMatchFailure(op, "no tensor operand");
    FailureOr<Value> init = emptyLike(rewriter, loc, resType, inputs);
    if (failed(init))
      return rewriter.notifyMatchFailure(op, "no operand gives a dynamic size");
    maps.push_back(rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);

    bool bodyFailed = false;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resType}, inputs, ValueRange{*init}, maps,
        iters, [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> operands;
          for (auto [idx, scalar] : slots) {
            if (idx < 0) {
              operands.push_back(scalar);
              continue;
            }
            Value arg = args[idx];
            // `where`'s condition stays i1.
            if (!(isa<WhereOp>(op) && idx == 0 && slots[0].first == 0))
              arg = convertScalar(b, l, arg, ct);
            operands.push_back(arg);
          }
          Value r = buildBody(op, b, l, operands, ct);
          if (!r) {
            bodyFailed = true;
            r = operands[0];
          }
          linalg::YieldOp::create(b, l, convertScalar(b, l, r, resEl));
        });
    if (bodyFailed) {
      rewriter.eraseOp(generic);
      return rewriter.notifyMatchFailure(op, "no body for this op");
    }
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class ReductionPattern : public RewritePattern {
public:
  ReductionPattern(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<SumOp, MeanOp, AmaxOp>(op))
      return failure();
    Value input = op->getOperand(0);
    auto inType = dyn_cast<RankedTensorType>(input.getType());
    auto resType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!inType || !resType)
      return failure();
    Location loc = op->getLoc();
    MLIRContext *ctx = op->getContext();
    int64_t rank = inType.getRank();
    auto dimsAttr = op->getAttrOfType<DenseI64ArrayAttr>("dims");
    auto keepAttr = op->getAttrOfType<BoolAttr>("keepdim");
    bool keepdim = keepAttr && keepAttr.getValue();

    SmallVector<bool> reduced(rank, !dimsAttr || dimsAttr.empty());
    if (dimsAttr)
      for (int64_t d : dimsAttr.asArrayRef()) {
        FailureOr<int64_t> nd = normalizeDim(d, rank, loc);
        if (failed(nd))
          return failure();
        if (rank > 0)
          reduced[*nd] = true;
      }

    Type resEl = resType.getElementType();
    Type acc = opmath(resEl);
    bool isFloat = isa<FloatType>(acc);

    // The reduced shape without the kept unit dimensions.
    SmallVector<int64_t> outShape;
    SmallVector<Value> dynSizes;
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iters;
    for (int64_t d = 0; d < rank; ++d) {
      iters.push_back(reduced[d] ? utils::IteratorType::reduction
                                 : utils::IteratorType::parallel);
      if (reduced[d])
        continue;
      outShape.push_back(inType.getDimSize(d));
      outExprs.push_back(getAffineDimExpr(d, ctx));
      if (inType.isDynamicDim(d))
        dynSizes.push_back(tensor::DimOp::create(rewriter, loc, input, d));
    }
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, outShape, acc, dynSizes);
    // amax starts from -inf (the smallest integer; false for bools, which
    // reduce with `or`), sums from 0.
    bool isMax = isa<AmaxOp>(op);
    bool isBool = acc.isInteger(1);
    Value initScalar;
    if (isFloat)
      initScalar = floatConst(rewriter, loc, acc, isMax ? -INFINITY : 0.0);
    else
      initScalar = intConst(rewriter, loc, acc,
                            isMax && !isBool
                                ? llvm::minIntN(acc.getIntOrFloatBitWidth())
                                : 0);
    Value init =
        linalg::FillOp::create(rewriter, loc, initScalar, empty).getResult(0);

    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank),
                                   AffineMap::get(rank, 0, outExprs, ctx)};
    auto outType = RankedTensorType::get(outShape, acc);
    auto reduce = linalg::GenericOp::create(
        rewriter, loc, TypeRange{outType}, ValueRange{input}, ValueRange{init},
        maps, iters, [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = convertScalar(b, l, args[0], acc);
          Value r;
          if (isBool)
            r = arith::OrIOp::create(b, l, x, args[1]);
          else if (isMax)
            r = isFloat ? Value(arith::MaximumFOp::create(b, l, x, args[1]))
                        : Value(arith::MaxSIOp::create(b, l, x, args[1]));
          else
            r = isFloat ? Value(arith::AddFOp::create(b, l, x, args[1]))
                        : Value(arith::AddIOp::create(b, l, x, args[1]));
          linalg::YieldOp::create(b, l, r);
        });
    Value result = reduce.getResult(0);

    // mean divides by the number of elements reduced; half types truncate
    // once, after.
    bool isMean = isa<MeanOp>(op);
    if (isMean || acc != resEl) {
      Value count;
      if (isMean) {
        Value n = arith::ConstantIndexOp::create(rewriter, loc, 1);
        for (int64_t d = 0; d < rank; ++d)
          if (reduced[d])
            n = arith::MulIOp::create(
                rewriter, loc, n, tensor::DimOp::create(rewriter, loc, input, d));
        count = convertScalar(rewriter, loc, n, acc);
      }
      int64_t outRank = outShape.size();
      auto finalType = RankedTensorType::get(outShape, resEl);
      Value finalEmpty =
          tensor::EmptyOp::create(rewriter, loc, outShape, resEl, dynSizes);
      AffineMap id = rewriter.getMultiDimIdentityMap(outRank);
      result = linalg::GenericOp::create(
                   rewriter, loc, TypeRange{finalType}, ValueRange{result},
                   ValueRange{finalEmpty}, ArrayRef<AffineMap>{id, id},
                   SmallVector<utils::IteratorType>(
                       outRank, utils::IteratorType::parallel),
                   [&](OpBuilder &b, Location l, ValueRange args) {
                     Value v = args[0];
                     if (count)
                       v = arith::DivFOp::create(b, l, v, count);
                     linalg::YieldOp::create(b, l,
                                             convertScalar(b, l, v, resEl));
                   })
                   .getResult(0);
    }

    if (keepdim && rank > 0) {
      // Each kept dimension groups with the unit dimensions before it;
      // trailing unit dimensions join the last group.
      SmallVector<ReassociationIndices> groups;
      ReassociationIndices pending;
      for (int64_t d = 0; d < rank; ++d) {
        pending.push_back(d);
        if (!reduced[d]) {
          groups.push_back(pending);
          pending.clear();
        }
      }
      if (!groups.empty())
        groups.back().append(pending.begin(), pending.end());
      result = tensor::ExpandShapeOp::create(rewriter, loc, resType, result,
                                             groups);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

template <typename OpTy>
class MatmulPattern : public OpRewritePattern<OpTy> {
public:
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    constexpr bool batched = std::is_same_v<OpTy, BmmOp>;
    auto resType = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!resType)
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value lhs = op.getSelf(), rhs = op.getMat2();
    bool tl = op.getTransposeSelf(), tr = op.getTransposeMat2();
    Type resEl = resType.getElementType();
    Type acc = opmath(resEl);
    auto accType = RankedTensorType::get(resType.getShape(), acc);

    // Dynamic result sizes: batch and M from self, N from mat2.
    int64_t b0 = batched ? 1 : 0;
    SmallVector<Value> dynSizes;
    if (batched && resType.isDynamicDim(0))
      dynSizes.push_back(tensor::DimOp::create(rewriter, loc, lhs, 0));
    if (resType.isDynamicDim(b0))
      dynSizes.push_back(tensor::DimOp::create(rewriter, loc, lhs, tl ? b0 + 1 : b0));
    if (resType.isDynamicDim(b0 + 1))
      dynSizes.push_back(tensor::DimOp::create(rewriter, loc, rhs, tr ? b0 : b0 + 1));
    Value empty = tensor::EmptyOp::create(rewriter, loc, resType.getShape(),
                                          acc, dynSizes);
    Value zero = typedConst(rewriter, loc, acc, 0.0);
    Value init = linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);

    Value product;
    if (!tl && !tr) {
      // Named ops cast their operands to the output (accumulator) type.
      if constexpr (batched)
        product = linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{accType},
                                                ValueRange{lhs, rhs}, ValueRange{init})
                      .getResult(0);
      else
        product = linalg::MatmulOp::create(rewriter, loc, TypeRange{accType},
                                           ValueRange{lhs, rhs}, ValueRange{init})
                      .getResult(0);
    } else {
      // Transposed operands: a generic with the transposed maps.
      // Loops: (batch,) m, n, k.
      int64_t nl = b0 + 3;
      AffineExpr m = getAffineDimExpr(b0, ctx), n = getAffineDimExpr(b0 + 1, ctx),
                 k = getAffineDimExpr(b0 + 2, ctx);
      auto withBatch = [&](AffineExpr x, AffineExpr y) {
        SmallVector<AffineExpr> e;
        if (batched)
          e.push_back(getAffineDimExpr(0, ctx));
        e.push_back(x);
        e.push_back(y);
        return AffineMap::get(nl, 0, e, ctx);
      };
      SmallVector<AffineMap> maps = {tl ? withBatch(k, m) : withBatch(m, k),
                                     tr ? withBatch(n, k) : withBatch(k, n),
                                     withBatch(m, n)};
      SmallVector<utils::IteratorType> iters(nl, utils::IteratorType::parallel);
      iters.back() = utils::IteratorType::reduction;
      bool isFloat = isa<FloatType>(acc);
      product = linalg::GenericOp::create(
                    rewriter, loc, TypeRange{accType}, ValueRange{lhs, rhs},
                    ValueRange{init}, maps, iters,
                    [&](OpBuilder &b, Location l, ValueRange args) {
                      Value x = convertScalar(b, l, args[0], acc);
                      Value y = convertScalar(b, l, args[1], acc);
                      Value p = isFloat ? Value(arith::MulFOp::create(b, l, x, y))
                                        : Value(arith::MulIOp::create(b, l, x, y));
                      Value s = isFloat ? Value(arith::AddFOp::create(b, l, p, args[2]))
                                        : Value(arith::AddIOp::create(b, l, p, args[2]));
                      linalg::YieldOp::create(b, l, s);
                    })
                    .getResult(0);
    }

    if (acc != resEl) {
      // bf16/f16: accumulate in f32, truncate once.
      int64_t r = resType.getRank();
      AffineMap id = rewriter.getMultiDimIdentityMap(r);
      Value outEmpty = tensor::EmptyOp::create(rewriter, loc, resType.getShape(),
                                               resEl, dynSizes);
      product = linalg::GenericOp::create(
                    rewriter, loc, TypeRange{resType}, ValueRange{product},
                    ValueRange{outEmpty}, ArrayRef<AffineMap>{id, id},
                    SmallVector<utils::IteratorType>(r, utils::IteratorType::parallel),
                    [&](OpBuilder &b, Location l, ValueRange args) {
                      linalg::YieldOp::create(b, l,
                                              convertScalar(b, l, args[0], resEl));
                    })
                    .getResult(0);
    }
    rewriter.replaceOp(op, product);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

// Magi ops that describe shapes rather than compute: they may remain.
bool isShapeOp(Operation *op) {
  return isa<BindSymbolicShapeOp, SymbolicIntOp>(op) ||
         op->getName().getStringRef().starts_with("magi.sym_");
}

class LowerToLinalgPass
    : public magi::impl::LowerToLinalgBase<LowerToLinalgPass> {
public:
  using LowerToLinalgBase::LowerToLinalgBase;

  void runOnOperation() override {
    // The split graph only calls the pieces; it stays in the magi dialect
    // (its calls are what the runtime's plan follows).
    if (getOperation()->hasAttr("magi.split"))
      return;
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<ElementwisePattern, ReductionPattern, MatmulPattern<MmOp>,
                 MatmulPattern<BmmOp>>(ctx);
    // Only rewrite, no folding of the magi ops left: the IR after the pass
    // is the input with the converted ops replaced.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      return signalPassFailure();

    if (!failOnUnconverted)
      return;
    bool failedAny = false;
    getOperation().walk([&](Operation *op) {
      if (!isa_and_nonnull<MagiDialect>(op->getDialect()) || isShapeOp(op))
        return;
      op->emitError() << "'" << op->getName()
                      << "' was not lowered to linalg";
      failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
