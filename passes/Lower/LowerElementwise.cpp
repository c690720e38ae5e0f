//===- LowerElementwise.cpp - Elementwise and tensor-creation ops ---------===//
//
// Each elementwise op (and the fused silu_and_mul and rotary_embedding)
// becomes one linalg.generic whose maps broadcast its operands; the creation
// ops (full, scalar_tensor, arange, constant) become a fill or a generic that
// computes each element from its index.
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalgCommon.h"

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Dialect/Magi/IR/TypeInference.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace magi;
using namespace magi::lower;

namespace {

//===----------------------------------------------------------------------===//
// Elementwise bodies
//===----------------------------------------------------------------------===//

// Rounds toward zero: floor above zero, ceil below (ceil keeps -0 for
// (-1, 0), as trunc does, and NaN). Not math.trunc, which the NVVM
// lowering leaves unconverted.
Value truncate(OpBuilder &b, Location loc, Value x) {
  Value zero = floatConst(b, loc, x.getType(), 0.0);
  Value down = math::FloorOp::create(b, loc, x);
  Value up = math::CeilOp::create(b, loc, x);
  Value positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x, zero);
  return arith::SelectOp::create(b, loc, positive, down, up);
}

// 1 / (1 + exp(-x)). `approximate`: the exponential and the division may
// be the GPU's approximate ones (ex2.approx, a reciprocal estimate: a few ulp
// of f32), for results rounded to 16 bits, where they change nothing that
// survives the rounding but cost a fifth of the instructions.
Value sigmoid(OpBuilder &b, Location loc, Value x, bool approximate = false) {
  Type t = x.getType();
  auto flags = arith::FastMathFlagsAttr::get(
      b.getContext(), approximate ? arith::FastMathFlags::afn : arith::FastMathFlags::none);
  Value one = floatConst(b, loc, t, 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x), flags);
  return arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e), flags);
}

// Whether values of type `t` are rounded to a 16-bit float (see sigmoid).
bool isFloat16Bits(Type t) { return isa<FloatType>(t) && t.getIntOrFloatBitWidth() == 16; }

// base ** exponent for integers, by squaring over the exponent's bits: a
// fixed loop (no LLVM lowering exists for math.ipowi, and none for the GPU),
// wrapping as PyTorch's integer pow does. A negative exponent, which
// PyTorch refuses (and the interpreter), gives 0 here.
Value integerPower(OpBuilder &b, Location loc, Value base, Value exponent) {
  Type type = base.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  Value zero = intConst(b, loc, type, 0), one = intConst(b, loc, type, 1);
  Value lower = arith::ConstantIndexOp::create(b, loc, 0);
  Value upper = arith::ConstantIndexOp::create(b, loc, bits);
  Value step = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, lower, upper, step, ValueRange{one, base, exponent},
      [&](OpBuilder &nb, Location nl, Value, ValueRange carried) {
        Value result = carried[0], square = carried[1], rest = carried[2];
        Value bit = arith::AndIOp::create(nb, nl, rest, one);
        Value taken = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ne,
                                            bit, zero);
        Value product = arith::MulIOp::create(nb, nl, result, square);
        result = arith::SelectOp::create(nb, nl, taken, product, result);
        square = arith::MulIOp::create(nb, nl, square, square);
        rest = arith::ShRUIOp::create(nb, nl, rest, one);
        scf::YieldOp::create(nb, nl, ValueRange{result, square, rest});
      });
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                         exponent, zero);
  return arith::SelectOp::create(b, loc, negative, zero, loop.getResult(0));
}

// The body of an elementwise op on operands already in `ct`, its compute
// type; null for an op this file does not lower.
Value buildBody(Operation *op, OpBuilder &b, Location loc, ArrayRef<Value> a,
                Type ct) {
  bool isFloat = isa<FloatType>(ct);
  bool isBool = ct.isInteger(1);
  auto f = [&](double v) { return floatConst(b, loc, ct, v); };
  bool rounded16 = isFloat16Bits(getElementTypeOrSelf(op->getResult(0).getType()));
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
        // max(x, 0 - x) rather than math.absi, which the NVVM conversion
        // does not lower (INT_MIN stays INT_MIN, as in PyTorch).
        return arith::MaxSIOp::create(
            b, loc, a[0],
            arith::SubIOp::create(b, loc, intConst(b, loc, ct, 0), a[0]));
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
      .Case<SigmoidOp>([&](auto) -> Value { return sigmoid(b, loc, a[0], rounded16); })
      .Case<SiluOp>([&](auto) -> Value {
        return arith::MulFOp::create(b, loc, a[0], sigmoid(b, loc, a[0], rounded16));
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
            return truncate(b, loc, q);
          if (mode && *mode == "floor")
            return math::FloorOp::create(b, loc, q);
          return q;
        }
        // A divisor of 0 or -1 never reaches the division (x86 traps on
        // both: by zero, and INT64_MIN / -1): x / -1 is -x (wrapping, as
        // the interpreter computes it), and x / 0 gives x (the interpreter
        // refuses it; a kernel has no way to).
        Value zero = intConst(b, loc, ct, 0), one = intConst(b, loc, ct, 1);
        Value minusOne = intConst(b, loc, ct, -1);
        Value byZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a[1], zero);
        Value byMinusOne =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a[1], minusOne);
        Value unsafe = arith::OrIOp::create(b, loc, byZero, byMinusOne);
        Value divisor = arith::SelectOp::create(b, loc, unsafe, one, a[1]);
        Value q = mode && *mode == "floor"
                      ? Value(arith::FloorDivSIOp::create(b, loc, a[0], divisor))
                      : Value(arith::DivSIOp::create(b, loc, a[0], divisor));
        Value negated = arith::SubIOp::create(b, loc, zero, a[0]);
        return arith::SelectOp::create(b, loc, byMinusOne, negated, q);
      })
      .Case<PowOp>([&](auto) -> Value {
        if (isFloat)
          return math::PowFOp::create(b, loc, a[0], a[1]);
        return integerPower(b, loc, a[0], a[1]);
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
      .Case<BitwiseAndOp, LogicalAndOp>([&](auto) -> Value {
        return arith::AndIOp::create(b, loc, a[0], a[1]);
      })
      .Case<BitwiseOrOp, LogicalOrOp>([&](auto) -> Value {
        return arith::OrIOp::create(b, loc, a[0], a[1]);
      })
      .Case<BitwiseXorOp, LogicalXorOp>([&](auto) -> Value {
        return arith::XOrIOp::create(b, loc, a[0], a[1]);
      })
      .Case<BitwiseNotOp, LogicalNotOp>([&](auto) -> Value {
        // All ones: true for bools, ~x for integers.
        return arith::XOrIOp::create(b, loc, a[0], intConst(b, loc, ct, -1));
      })
      .Case<ToCopyOp, CloneOp>([&](auto) -> Value { return a[0]; })
      .Case<Log1pOp>([&](auto) -> Value { return math::Log1pOp::create(b, loc, a[0]); })
      .Case<Expm1Op>([&](auto) -> Value { return math::ExpM1Op::create(b, loc, a[0]); })
      .Case<Log2Op>([&](auto) -> Value { return math::Log2Op::create(b, loc, a[0]); })
      .Case<AcosOp>([&](auto) -> Value { return math::AcosOp::create(b, loc, a[0]); })
      .Case<AsinOp>([&](auto) -> Value { return math::AsinOp::create(b, loc, a[0]); })
      .Case<AtanOp>([&](auto) -> Value { return math::AtanOp::create(b, loc, a[0]); })
      .Case<AcoshOp>([&](auto) -> Value { return math::AcoshOp::create(b, loc, a[0]); })
      .Case<AsinhOp>([&](auto) -> Value { return math::AsinhOp::create(b, loc, a[0]); })
      .Case<AtanhOp>([&](auto) -> Value { return math::AtanhOp::create(b, loc, a[0]); })
      .Case<CoshOp>([&](auto) -> Value { return math::CoshOp::create(b, loc, a[0]); })
      .Case<SinhOp>([&](auto) -> Value { return math::SinhOp::create(b, loc, a[0]); })
      .Case<TanOp>([&](auto) -> Value { return math::TanOp::create(b, loc, a[0]); })
      .Case<Log10Op>([&](auto) -> Value { return math::Log10Op::create(b, loc, a[0]); })
      // Rounding is the identity on integers.
      .Case<FloorOp>([&](auto) -> Value {
        return isFloat ? Value(math::FloorOp::create(b, loc, a[0])) : a[0];
      })
      .Case<CeilOp>([&](auto) -> Value {
        return isFloat ? Value(math::CeilOp::create(b, loc, a[0])) : a[0];
      })
      .Case<RoundOp>([&](auto) -> Value { // half to even, as torch.round
        return isFloat ? Value(math::RoundEvenOp::create(b, loc, a[0])) : a[0];
      })
      .Case<TruncOp>([&](auto) -> Value {
        return isFloat ? truncate(b, loc, a[0]) : a[0];
      })
      // (0 < x) - (x < 0), as PyTorch: 0 for NaN.
      .Case<SignOp>([&](auto) -> Value {
        if (isBool)
          return a[0];
        // Operands are made one statement at a time: the order of C++
        // arguments' evaluation is unspecified, the IR's must not be.
        Value zero = isFloat ? f(0.0) : intConst(b, loc, ct, 0);
        Value one = isFloat ? f(1.0) : intConst(b, loc, ct, 1);
        Value minusOne = isFloat ? f(-1.0) : intConst(b, loc, ct, -1);
        Value positive, negative;
        if (isFloat) {
          positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, a[0], zero);
          negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, a[0], zero);
        } else {
          positive = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, a[0], zero);
          negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, a[0], zero);
        }
        Value notPositive = arith::SelectOp::create(b, loc, negative, minusOne, zero);
        return arith::SelectOp::create(b, loc, positive, one, notPositive);
      })
      // Integers are never NaN or infinite.
      .Case<IsNanOp>([&](auto) -> Value {
        if (!isFloat)
          return intConst(b, loc, b.getI1Type(), 0);
        return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, a[0], a[0]);
      })
      .Case<IsInfOp>([&](auto) -> Value {
        if (!isFloat)
          return intConst(b, loc, b.getI1Type(), 0);
        Value magnitude = math::AbsFOp::create(b, loc, a[0]);
        return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, magnitude,
                                     f(INFINITY));
      })
      // As the interpreter: x <= 0 ? expm1(x * input_scale) * alpha * scale
      // : x * scale (NaN fails x <= 0 and stays NaN).
      .Case<EluOp>([&](EluOp e) -> Value {
        Value x = a[0];
        Value negative = arith::MulFOp::create(
            b, loc,
            arith::MulFOp::create(
                b, loc,
                math::ExpM1Op::create(
                    b, loc,
                    arith::MulFOp::create(b, loc, x, f(e.getInputScale().convertToDouble()))),
                f(e.getAlpha().convertToDouble())),
            f(e.getScale().convertToDouble()));
        Value positive = arith::MulFOp::create(b, loc, x, f(e.getScale().convertToDouble()));
        Value atMostZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, x, f(0.0));
        return arith::SelectOp::create(b, loc, atMostZero, negative, positive);
      })
      .Case<LeakyReluOp>([&](LeakyReluOp l) -> Value {
        Value slope = f(l.getNegativeSlope().convertToDouble());
        Value scaled = arith::MulFOp::create(b, loc, a[0], slope);
        Value zero = f(0.0);
        Value keep = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, a[0], zero);
        return arith::SelectOp::create(b, loc, keep, a[0], scaled);
      })
      // A NaN stays NaN (maximumf and minimumf propagate it); integers clamp
      // in f64 and convert back, as the interpreter does.
      .Case<ClampOp>([&](ClampOp c) -> Value {
        Value x = a[0];
        Type ft = ct;
        if (!isFloat) {
          ft = b.getF64Type();
          x = isBool ? Value(arith::UIToFPOp::create(b, loc, ft, x))
                     : Value(arith::SIToFPOp::create(b, loc, ft, x));
        }
        if (FloatAttr min = c.getMinAttr()) {
          Value bound = floatConst(b, loc, ft, min.getValueAsDouble());
          x = arith::MaximumFOp::create(b, loc, x, bound);
        }
        if (FloatAttr max = c.getMaxAttr()) {
          Value bound = floatConst(b, loc, ft, max.getValueAsDouble());
          x = arith::MinimumFOp::create(b, loc, x, bound);
        }
        if (isFloat)
          return x;
        return isBool ? Value(arith::FPToUIOp::create(b, loc, ct, x))
                      : Value(arith::FPToSIOp::create(b, loc, ct, x));
      })
      // fmod has the dividend's sign (C's fmod); remainder the divisor's
      // (Python's %). An integer divisor of 0 gives 0 (the interpreter
      // refuses it; a kernel has no way to), and -1 gives 0 without the
      // overflow of INT64_MIN % -1.
      .Case<FmodOp, RemainderOp>([&](Operation *rem) -> Value {
        bool python = isa<RemainderOp>(rem);
        Value r;
        if (isFloat) {
          r = arith::RemFOp::create(b, loc, a[0], a[1]);
          if (!python)
            return r;
          Value zero = f(0.0);
          Value nonzero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, r, zero);
          Value rNegative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, r, zero);
          Value yNegative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, a[1], zero);
          Value signsDiffer = arith::XOrIOp::create(b, loc, rNegative, yNegative);
          Value adjust = arith::AndIOp::create(b, loc, nonzero, signsDiffer);
          Value moved = arith::AddFOp::create(b, loc, r, a[1]);
          return arith::SelectOp::create(b, loc, adjust, moved, r);
        }
        Value zero = intConst(b, loc, ct, 0), one = intConst(b, loc, ct, 1);
        Value minusOne = intConst(b, loc, ct, -1);
        Value byZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a[1], zero);
        Value byMinusOne =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a[1], minusOne);
        Value unsafe = arith::OrIOp::create(b, loc, byZero, byMinusOne);
        Value divisor = arith::SelectOp::create(b, loc, unsafe, one, a[1]);
        r = arith::RemSIOp::create(b, loc, a[0], divisor);
        if (!python)
          return r;
        Value nonzero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, zero);
        Value rNegative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero);
        Value yNegative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, a[1], zero);
        Value signsDiffer = arith::XOrIOp::create(b, loc, rNegative, yNegative);
        Value adjust = arith::AndIOp::create(b, loc, nonzero, signsDiffer);
        Value moved = arith::AddIOp::create(b, loc, r, a[1]);
        return arith::SelectOp::create(b, loc, adjust, moved, r);
      })
      .Case<Atan2Op>([&](auto) -> Value {
        return math::Atan2Op::create(b, loc, a[0], a[1]);
      })
      .Default([](Operation *) -> Value { return nullptr; });
}

// The compute type of an elementwise op with result element type `resEl`:
// comparisons compute in their operands' promoted dtype, `where` and
// conversions in the result dtype, everything else in the result's opmath.
Type computeType(Operation *op, Type resEl) {
  if (isa<EqOp, NeOp, LtOp, LeOp, GtOp, GeOp>(op))
    return opmath(resultDtype(op->getOperandTypes()));
  // Predicates on the operand's values.
  if (isa<IsNanOp, IsInfOp>(op))
    return opmath(getElementTypeOrSelf(op->getOperand(0).getType()));
  if (isa<WhereOp, ToCopyOp, CloneOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp,
          BitwiseNotOp>(op))
    return resEl;
  // Logical ops read their operands as truth values.
  if (isa<LogicalNotOp, LogicalAndOp, LogicalOrOp, LogicalXorOp>(op))
    return IntegerType::get(op->getContext(), 1);
  return opmath(resEl);
}

bool isElementwise(Operation *op) {
  return isa<NegOp, AbsOp, ReluOp, ExpOp, LogOp, SqrtOp, RsqrtOp, SigmoidOp,
             TanhOp, ErfOp, CosOp, SinOp, SiluOp, GeluOp, ReciprocalOp, AddOp,
             SubOp, MulOp, DivOp, PowOp, MaximumOp, MinimumOp, EqOp, NeOp,
             LtOp, LeOp, GtOp, GeOp, WhereOp, ToCopyOp, CloneOp, BitwiseAndOp,
             BitwiseOrOp, BitwiseXorOp, BitwiseNotOp, LogicalNotOp,
             LogicalAndOp, LogicalOrOp, LogicalXorOp, Log1pOp, Expm1Op, Log2Op,
             FloorOp, CeilOp, RoundOp, TruncOp, SignOp, IsNanOp, IsInfOp,
             LeakyReluOp, EluOp, ClampOp, FmodOp, RemainderOp, Atan2Op, AcosOp, AsinOp,
             AtanOp, AcoshOp, AsinhOp, AtanhOp, CoshOp, SinhOp, TanOp, Log10Op>(op);
}

// Lowers an elementwise op to one linalg.generic. Tensor operands broadcast
// (numpy rules: right-aligned, a static size-1 dimension is read at index 0;
// dynamic dimensions are assumed equal to the result's). Python scalars are
// converted to the compute type inside the body, so that the host code only
// does index arithmetic.
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

    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    // Per operand: index into the block arguments, or the scalar.
    SmallVector<std::pair<int, Value>> slots;
    for (Value v : op->getOperands()) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t) {
        slots.push_back({-1, v});
        continue;
      }
      if (t.getRank() > rank)
        return rewriter.notifyMatchFailure(op, "operand of higher rank");
      slots.push_back({(int)inputs.size(), Value()});
      inputs.push_back(v);
      maps.push_back(broadcastMap(t, resType.getShape(), rank));
    }
    if (inputs.empty())
      return rewriter.notifyMatchFailure(op, "no tensor operand");
    FailureOr<Value> init = emptyLike(rewriter, loc, resType, inputs);
    if (failed(init))
      return rewriter.notifyMatchFailure(op, "no operand gives a dynamic size");

    bool bodyFailed = false;
    Value result = buildParallelGeneric(
        rewriter, loc, *init, inputs, maps,
        [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> operands;
          for (auto [i, slot] : llvm::enumerate(slots)) {
            Value arg = slot.first < 0 ? slot.second : args[slot.first];
            // `where`'s condition stays i1.
            if (auto copy = dyn_cast<ToCopyOp>(op))
              arg = convertAcrossUnsigned(
                  b, l, arg, ct, copy->hasAttr(kUnsignedSourceAttrName),
                  copy.getDtype().isUnsignedInteger());
            else if (!(isa<WhereOp>(op) && i == 0))
              arg = convertScalar(b, l, arg, ct);
            operands.push_back(arg);
          }
          Value r = buildBody(op, b, l, operands, ct);
          if (!r) {
            bodyFailed = true;
            r = operands[0];
          }
          return convertScalar(b, l, r, resEl);
        });
    if (bodyFailed) {
      rewriter.eraseOp(result.getDefiningOp());
      return rewriter.notifyMatchFailure(op, "no body for this op");
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

// The maps of `operands` broadcast to `resType`, and the init of the result.
LogicalResult broadcastOperands(PatternRewriter &rewriter, Operation *op,
                                RankedTensorType resType, ValueRange operands,
                                SmallVectorImpl<AffineMap> &maps, Value &init) {
  for (Value v : operands)
    maps.push_back(broadcastMap(cast<RankedTensorType>(v.getType()),
                                resType.getShape(), resType.getRank()));
  FailureOr<Value> empty = emptyLike(rewriter, op->getLoc(), resType, operands);
  if (failed(empty))
    return rewriter.notifyMatchFailure(op, "no operand gives a dynamic size");
  init = *empty;
  return success();
}

// silu(gate) * up in one generic: silu rounds to gate's dtype (its own op in
// the decomposition), the product computes in the result's opmath.
class SiluAndMulPattern : public OpRewritePattern<SiluAndMulOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SiluAndMulOp op,
                                PatternRewriter &rewriter) const override {
    auto resType = cast<RankedTensorType>(op.getType());
    Type gateEl = cast<RankedTensorType>(op.getGate().getType()).getElementType();
    Type siluDtype = isa<FloatType>(gateEl) ? gateEl
                                            : Float32Type::get(op.getContext());
    Type resEl = resType.getElementType();
    Type ct = opmath(resEl);
    SmallVector<AffineMap> maps;
    Value init;
    if (failed(broadcastOperands(rewriter, op, resType,
                                 {op.getGate(), op.getUp()}, maps, init)))
      return failure();
    Value result = buildParallelGeneric(
        rewriter, op.getLoc(), init, {op.getGate(), op.getUp()}, maps,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value g = convertScalar(b, l, a[0], opmath(siluDtype));
          Value s = arith::MulFOp::create(b, l, g, sigmoid(b, l, g, isFloat16Bits(siluDtype)));
          s = convertScalar(b, l, convertScalar(b, l, s, siluDtype), ct);
          Value p = arith::MulFOp::create(b, l, s, convertScalar(b, l, a[1], ct));
          return convertScalar(b, l, p, resEl);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

// x * cos + rotate_half(x) * sin in one generic. rotate_half reads x at
// (j + d/2) mod d along the last dimension and negates the first half; each
// product rounds to its promoted dtype, then the sum to the result's.
class RotaryEmbeddingPattern : public OpRewritePattern<RotaryEmbeddingOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(RotaryEmbeddingOp op,
                                PatternRewriter &rewriter) const override {
    auto resType = cast<RankedTensorType>(op.getType());
    auto xType = cast<RankedTensorType>(op.getX().getType());
    int64_t rank = resType.getRank();
    if (rank == 0 || xType.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "x must have the result's rank");
    int64_t width = xType.getDimSize(rank - 1);
    if (ShapedType::isDynamic(width) || width % 2 != 0)
      return rewriter.notifyMatchFailure(op, "needs a static even last dim");
    Type cosDtype = resultDtype(TypeRange{op.getX().getType(), op.getCos().getType()});
    Type sinDtype = resultDtype(TypeRange{op.getX().getType(), op.getSin().getType()});
    Type resEl = resType.getElementType();
    Type ct = opmath(resEl);
    MLIRContext *ctx = op.getContext();

    SmallVector<Value> inputs = {op.getX(), op.getCos(), op.getSin()};
    SmallVector<AffineMap> maps;
    Value init;
    if (failed(broadcastOperands(rewriter, op, resType, inputs, maps, init)))
      return failure();
    // x again, read rotated by half the last dimension.
    SmallVector<AffineExpr> rotated;
    for (int64_t d = 0; d < rank - 1; ++d)
      rotated.push_back(getAffineDimExpr(d, ctx));
    rotated.push_back((getAffineDimExpr(rank - 1, ctx) + width / 2) % width);
    inputs.push_back(op.getX());
    maps.push_back(AffineMap::get(rank, 0, rotated, ctx));

    Value result = buildParallelGeneric(
        rewriter, op.getLoc(), init, inputs, maps,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value j = linalg::IndexOp::create(b, l, rank - 1);
          Value firstHalf = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::slt, j,
              arith::ConstantIndexOp::create(b, l, width / 2));
          Value other = convertScalar(b, l, a[3], ct);
          Value rot = arith::SelectOp::create(
              b, l, firstHalf, arith::NegFOp::create(b, l, other), other);
          Value x = convertScalar(b, l, a[0], ct);
          Value xCos = roundThrough(
              b, l, arith::MulFOp::create(b, l, x, convertScalar(b, l, a[1], ct)),
              cosDtype);
          Value rSin = roundThrough(
              b, l,
              arith::MulFOp::create(b, l, rot, convertScalar(b, l, a[2], ct)),
              sinDtype);
          return convertScalar(b, l, arith::AddFOp::create(b, l, xCos, rSin),
                               resEl);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Tensor creation
//===----------------------------------------------------------------------===//

Value scalarAttrConst(OpBuilder &b, Location loc, Attribute value, Type type) {
  if (auto f = dyn_cast<FloatAttr>(value))
    return convertScalar(b, loc, floatConst(b, loc, b.getF64Type(),
                                             f.getValueAsDouble()),
                         type);
  // A BoolAttr is also an IntegerAttr (of i1, whose getInt() is -1 for
  // true): asked first.
  if (auto flag = dyn_cast<BoolAttr>(value))
    return convertScalar(b, loc,
                         intConst(b, loc, b.getI1Type(), flag.getValue()), type);
  auto i = cast<IntegerAttr>(value);
  return convertScalar(b, loc, intConst(b, loc, b.getI64Type(), i.getInt()),
                       type);
}

// full: a linalg.fill of the sizes (constants and symbolic sizes).
class FullPattern : public OpRewritePattern<FullOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FullOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type el = op.getType().getElementType();
    SmallVector<OpFoldResult> sizes =
        mixedList(op.getContext(), op.getStaticSizes(), op.getSizes());
    Value value = scalarAttrConst(rewriter, loc, op.getFillValue(), el);
    return replaceWithType(rewriter, op,
                           filledOfSizes(rewriter, loc, sizes, value),
                           op.getType());
  }
};

class FullLikePattern : public OpRewritePattern<FullLikeOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FullLikeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type el = op.getType().getElementType();
    Value value = scalarAttrConst(rewriter, loc, op.getFillValue(), el);
    // The declared type may know sizes `self`'s type does not.
    return replaceWithType(
        rewriter, op,
        filledOfSizes(rewriter, loc,
                      tensor::getMixedSizes(rewriter, loc, op.getSelf()),
                      value),
        op.getType());
  }
};

// scalar_tensor: a 0-d generic that converts the scalar in its body.
class ScalarTensorPattern : public OpRewritePattern<ScalarTensorOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScalarTensorOp op,
                                PatternRewriter &rewriter) const override {
    Type el = op.getType().getElementType();
    Value init = emptyOfSizes(rewriter, op.getLoc(), {}, el);
    Value value = op.getValue();
    rewriter.replaceOp(
        op, buildParallelGeneric(rewriter, op.getLoc(), init, {}, {},
                                 [&](OpBuilder &b, Location l, ValueRange) {
                                   return convertScalar(b, l, value, el);
                                 }));
    return success();
  }
};

// arange: element i is start + i * step (in int64 for integer dtypes, in
// f64 for floating-point ones, as the interpreter computes). A dynamic
// length, ceil((end - start) / step), needs integer bounds.
class ArangePattern : public OpRewritePattern<ArangeOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ArangeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // The declared type may say `?` where the bounds have since folded to
    // constants: the inferred length is then static.
    auto type = op.getType();
    SmallVector<Type> inferred;
    if (type.isDynamicDim(0) &&
        succeeded(ArangeOp::inferReturnTypes(
            op.getContext(), std::nullopt, op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), inferred)))
      type = cast<RankedTensorType>(inferred.front());
    Type el = type.getElementType();
    OpFoldResult length;
    if (!type.isDynamicDim(0)) {
      length = rewriter.getIndexAttr(type.getDimSize(0));
    } else {
      for (Value v : {op.getStart(), op.getEnd(), op.getStep()})
        if (isa<FloatType>(v.getType()))
          return rewriter.notifyMatchFailure(op, "dynamic float arange");
      auto asIndex = [&](Value v) {
        return convertScalar(rewriter, loc, v, rewriter.getIndexType());
      };
      Value span = arith::SubIOp::create(rewriter, loc, asIndex(op.getEnd()),
                                         asIndex(op.getStart()));
      Value n = arith::CeilDivSIOp::create(rewriter, loc, span,
                                           asIndex(op.getStep()));
      length = maxIndex(rewriter, loc, n, rewriter.getIndexAttr(0));
    }
    Value init = emptyOfSizes(rewriter, loc, {length}, el);
    bool isFloat = isa<FloatType>(el);
    Type step = isFloat ? Type(rewriter.getF64Type()) : Type(rewriter.getI64Type());
    Value start = op.getStart(), stride = op.getStep();
    Value result = buildParallelGeneric(
                rewriter, loc, init, {}, {},
                [&](OpBuilder &b, Location l, ValueRange) {
                  Value i = convertScalar(b, l, linalg::IndexOp::create(b, l, 0),
                                          step);
                  Value s = convertScalar(b, l, start, step);
                  Value d = convertScalar(b, l, stride, step);
                  Value v = isFloat
                                ? Value(arith::AddFOp::create(
                                      b, l, s, arith::MulFOp::create(b, l, i, d)))
                                : Value(arith::AddIOp::create(
                                      b, l, s, arith::MulIOp::create(b, l, i, d)));
                  return convertScalar(b, l, v, el);
                });
    return replaceWithType(rewriter, op, result, op.getType());
  }
};

// constant: a fill when splat, else a tensor literal.
class ConstantPattern : public OpRewritePattern<ConstantOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (dense && dense.isSplat() && dense.getType() == type) {
      Value value = arith::ConstantOp::create(
          rewriter, op.getLoc(), cast<TypedAttr>(dense.getSplatValue<Attribute>()));
      SmallVector<OpFoldResult> sizes;
      for (int64_t s : type.getShape())
        sizes.push_back(rewriter.getIndexAttr(s));
      rewriter.replaceOp(op, filledOfSizes(rewriter, op.getLoc(), sizes, value));
      return success();
    }
    auto typed = dyn_cast<TypedAttr>(op.getValue());
    if (!typed || typed.getType() != type)
      return rewriter.notifyMatchFailure(op, "literal of another type");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, typed);
    return success();
  }
};

} // namespace

void magi::lower::populateElementwisePatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwisePattern, SiluAndMulPattern, RotaryEmbeddingPattern,
               FullPattern, FullLikePattern, ScalarTensorPattern, ArangePattern,
               ConstantPattern>(patterns.getContext());
}
