//===- EvalElementwise.cpp - Creation and elementwise ops -----------------===//
//
// Binary ops promote their operands to the PyTorch result dtype, broadcast,
// compute in double (floats) or int64 (integers and bool) and round once to
// the result dtype. Python scalars next to half-precision tensors enter in f32,
// as PyTorch's kernels take them in their opmath type.
//
//===----------------------------------------------------------------------===//

#include "Eval.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "llvm/ADT/TypeSwitch.h"
#include <cmath>

using namespace mlir;

namespace magi::interp::detail {
namespace {

// Runs `fn(walker, out, i)` for every element `i` of the broadcast of
// `inputs`, into a new tensor of `dtype`.
template <typename Fn>
FailureOr<Tensor> mapBroadcast(Location loc, ArrayRef<const Tensor *> inputs,
                               Type dtype, Fn fn) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (const Tensor *t : inputs)
    shapes.push_back(t->getShape());
  FailureOr<SmallVector<int64_t>> shape = broadcastRuntimeShapes(shapes, loc);
  if (failed(shape))
    return failure();
  SmallVector<SmallVector<int64_t>> strides;
  for (const Tensor *t : inputs)
    strides.push_back(getBroadcastStrides(t->getShape(), *shape));
  Tensor out(dtype, *shape);
  IndexWalker walker(*shape, strides);
  for (int64_t i = 0, e = out.getNumElements(); i < e; ++i, walker.next())
    fn(walker, out, i);
  return out;
}

int64_t wrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}
int64_t wrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) -
                              static_cast<uint64_t>(b));
}
int64_t wrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) *
                              static_cast<uint64_t>(b));
}

// Integer division for b != 0. INT64_MIN / -1 overflows (and traps on x86);
// PyTorch's int64 wraps it to INT64_MIN.
int64_t truncDivInt(int64_t a, int64_t b) {
  return b == -1 ? wrapSub(0, a) : a / b;
}
int64_t floorDivInt(int64_t a, int64_t b) {
  if (b == -1)
    return wrapSub(0, a);
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Python's float floor division: exact where `floor(a / b)` would be fooled
// by the rounding of the quotient.
double floorDivFloat(double a, double b) {
  if (b == 0)
    return a / b;
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0)))
    div -= 1;
  if (div == 0)
    return std::copysign(0.0, a / b);
  double floored = std::floor(div);
  return div - floored > 0.5 ? floored + 1 : floored;
}

double remainderFloat(double a, double b) {
  double mod = std::fmod(a, b);
  if (mod != 0 && ((b < 0) != (mod < 0)))
    mod += b;
  return mod;
}

double maxPropagatingNaN(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::nan("");
  return std::max(a, b);
}

double minPropagatingNaN(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::nan("");
  return std::min(a, b);
}

// Integer power by squaring, wrapping like int64 multiplication.
int64_t powInt(int64_t base, int64_t exponent) {
  int64_t result = 1;
  while (exponent > 0) {
    if (exponent & 1)
      result = wrapMul(result, base);
    base = wrapMul(base, base);
    exponent >>= 1;
  }
  return result;
}

// A binary op computed in `computeDtype`: `floatFn(a, b)` on doubles when it
// is floating point, else `intFn(a, b, result)` on int64, which returns false
// where the op is undefined (the op then fails with `intError`).
using FloatFn = function_ref<double(double, double)>;
using IntFn = function_ref<bool(int64_t, int64_t, int64_t &)>;

LogicalResult evalArithmetic(Operation *op, Env &env, Type computeDtype,
                             FloatFn floatFn, IntFn intFn,
                             StringRef intError = "") {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Tensor a = castOperand(env.get(lhs), lhs, computeDtype);
  Tensor b = castOperand(env.get(rhs), rhs, computeDtype);
  Value result = op->getResult(0);
  bool isFloat = isFloatDtype(computeDtype);
  bool ok = true;
  FailureOr<Tensor> out = mapBroadcast(
      op->getLoc(), {&a, &b}, getDeclaredDtype(result),
      [&](const IndexWalker &w, Tensor &out, int64_t i) {
        if (isFloat) {
          out.setDouble(
              i, floatFn(a.getDouble(w.offset(0)), b.getDouble(w.offset(1))));
          return;
        }
        int64_t r = 0;
        if (!intFn(a.getInt(w.offset(0)), b.getInt(w.offset(1)), r))
          ok = false;
        out.setInt(i, r);
      });
  if (failed(out))
    return failure();
  if (!ok)
    return op->emitError(intError);
  env.set(result, std::move(*out));
  return success();
}

Type promotedDtype(Operation *op) {
  return magi::resultDtype(op->getOperandTypes());
}

LogicalResult evalAddSub(Operation *op, Env &env, std::optional<double> alpha,
                         bool subtract) {
  double a = alpha.value_or(1.0);
  auto alphaInt = static_cast<int64_t>(a);
  if (!isFloatDtype(promotedDtype(op)) && a != static_cast<double>(alphaInt))
    return op->emitError("alpha ") << a << " must be an integer for "
                                   << "integer operands";
  double sign = subtract ? -1.0 : 1.0;
  return evalArithmetic(
      op, env, promotedDtype(op),
      [&](double x, double y) { return x + sign * a * y; },
      [&](int64_t x, int64_t y, int64_t &r) {
        int64_t scaled = wrapMul(alphaInt, y);
        r = subtract ? wrapSub(x, scaled) : wrapAdd(x, scaled);
        return true;
      });
}

LogicalResult evalDiv(DivOp op, Env &env) {
  std::optional<StringRef> mode = op.getRoundingMode();
  Type promoted = promotedDtype(op);
  if (!mode) // true division computes in the (floating-point) result dtype
    return evalArithmetic(
        op, env, getDeclaredDtype(op.getResult()),
        [](double x, double y) { return x / y; },
        [](int64_t, int64_t, int64_t &) { return false; });
  bool floor = *mode == "floor";
  return evalArithmetic(
      op, env, promoted,
      [&](double x, double y) {
        return floor ? floorDivFloat(x, y) : std::trunc(x / y);
      },
      [&](int64_t x, int64_t y, int64_t &r) {
        if (y == 0)
          return false;
        r = floor ? floorDivInt(x, y) : truncDivInt(x, y);
        return true;
      },
      "integer division by zero");
}

enum class Predicate { Eq, Ne, Lt, Le, Gt, Ge };

// IEEE comparisons, so that NaN compares unequal to everything.
template <typename T> bool compare(Predicate p, T a, T b) {
  switch (p) {
  case Predicate::Eq:
    return a == b;
  case Predicate::Ne:
    return a != b;
  case Predicate::Lt:
    return a < b;
  case Predicate::Le:
    return a <= b;
  case Predicate::Gt:
    return a > b;
  case Predicate::Ge:
    return a >= b;
  }
  llvm_unreachable("unknown predicate");
}

// Compares in the promoted dtype of the operands.
LogicalResult evalCompare(Operation *op, Env &env, Predicate p) {
  return evalArithmetic(
      op, env, promotedDtype(op),
      [&](double x, double y) -> double { return compare(p, x, y); },
      [&](int64_t x, int64_t y, int64_t &r) {
        r = compare(p, x, y);
        return true;
      });
}

// logical_and/or/xor on the truth values of the operands.
LogicalResult evalLogical(Operation *op, Env &env,
                          function_ref<bool(bool, bool)> fn) {
  const Tensor &a = env.get(op->getOperand(0));
  const Tensor &b = env.get(op->getOperand(1));
  FailureOr<Tensor> out = mapBroadcast(
      op->getLoc(), {&a, &b}, getDeclaredDtype(op->getResult(0)),
      [&](const IndexWalker &w, Tensor &out, int64_t i) {
        out.setInt(i, fn(a.isNonZero(w.offset(0)), b.isNonZero(w.offset(1))));
      });
  if (failed(out))
    return failure();
  env.set(op->getResult(0), std::move(*out));
  return success();
}

// A predicate on each element (isnan, isinf); integers are never NaN or
// infinite.
LogicalResult evalPredicate(Operation *op, Env &env,
                            function_ref<bool(double)> fn) {
  const Tensor &input = env.get(op->getOperand(0));
  Tensor out(getDeclaredDtype(op->getResult(0)), input.getShape());
  for (int64_t i = 0, e = out.getNumElements(); i < e; ++i)
    out.setInt(i, input.isFloat() && fn(input.getDouble(i)));
  env.set(op->getResult(0), std::move(out));
  return success();
}

// Rounds to the nearest integer, ties to even, as torch.round.
double roundHalfToEven(double x) {
  if (std::fabs(x - std::trunc(x)) == 0.5)
    return 2.0 * std::round(x / 2.0);
  return std::round(x);
}

template <typename T> T signOf(T x) {
  return static_cast<T>((T(0) < x) - (x < T(0)));
}

LogicalResult evalWhere(WhereOp op, Env &env) {
  const Tensor &cond = env.get(op.getCondition());
  const Tensor &self = env.get(op.getSelf());
  const Tensor &other = env.get(op.getOther());
  FailureOr<Tensor> out = mapBroadcast(
      op.getLoc(), {&cond, &self, &other}, getDeclaredDtype(op.getResult()),
      [&](const IndexWalker &w, Tensor &out, int64_t i) {
        if (cond.isNonZero(w.offset(0)))
          out.setFrom(i, self, w.offset(1));
        else
          out.setFrom(i, other, w.offset(2));
      });
  if (failed(out))
    return failure();
  env.set(op.getResult(), std::move(*out));
  return success();
}

// A unary op. Floating-point results are computed in double from the input
// converted to the result dtype (integers promote first, as in PyTorch).
LogicalResult evalUnary(Operation *op, Env &env,
                        function_ref<double(double)> floatFn,
                        function_ref<int64_t(int64_t)> intFn = nullptr) {
  Value result = op->getResult(0);
  Type dtype = getDeclaredDtype(result);
  Tensor input = env.get(op->getOperand(0)).castTo(dtype);
  Tensor out(dtype, input.getShape());
  bool isFloat = isFloatDtype(dtype);
  if (!isFloat && !intFn)
    return op->emitError("'") << op->getName() << "' needs a floating-point "
                              << "input, got " << dtype;
  for (int64_t i = 0, e = out.getNumElements(); i < e; ++i) {
    if (isFloat)
      out.setDouble(i, floatFn(input.getDouble(i)));
    else
      out.setInt(i, intFn(input.getInt(i)));
  }
  env.set(result, std::move(out));
  return success();
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

double gelu(double x, bool tanhApproximation) {
  if (!tanhApproximation)
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  double inner = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
  return 0.5 * x * (1.0 + std::tanh(inner));
}

// Fills a new tensor of `dtype` and `shape` with a scalar attribute.
FailureOr<Tensor> filled(Operation *op, Type dtype, ArrayRef<int64_t> shape,
                         Attribute fill) {
  if (failed(checkResultSize(op, dtype, shape)))
    return failure();
  Tensor out(dtype, shape);
  if (auto f = dyn_cast<FloatAttr>(fill)) {
    double v = f.getValueAsDouble();
    for (int64_t i = 0, e = out.getNumElements(); i < e; ++i)
      out.setDouble(i, v);
  } else if (auto b = dyn_cast<BoolAttr>(fill)) {
    for (int64_t i = 0, e = out.getNumElements(); i < e; ++i)
      out.setInt(i, b.getValue());
  } else if (auto n = dyn_cast<IntegerAttr>(fill)) {
    int64_t v = n.getType().isInteger(1) ? n.getValue().getZExtValue()
                                         : n.getValue().getSExtValue();
    for (int64_t i = 0, e = out.getNumElements(); i < e; ++i)
      out.setInt(i, v);
  } else {
    return op->emitError("unsupported fill value ") << fill;
  }
  return out;
}

LogicalResult evalArange(ArangeOp op, Env &env) {
  const Tensor &start = env.get(op.getStart());
  const Tensor &end = env.get(op.getEnd());
  const Tensor &step = env.get(op.getStep());
  double s = start.getDouble(0), e = end.getDouble(0), d = step.getDouble(0);
  if (d == 0)
    return op.emitError("arange step must be nonzero");
  if (!std::isfinite(s) || !std::isfinite(e))
    return op.emitError("arange bounds must be finite, got [")
           << s << ", " << e << ")";
  // The length as PyTorch computes it, in double.
  double length = std::ceil((e - s) / d);
  if (length < 0)
    length = 0;
  if (length > 1e12)
    return op.emitError("arange would have ") << length << " elements";
  Type dtype = getDeclaredDtype(op.getResult());
  if (failed(checkResultSize(op, dtype, {static_cast<int64_t>(length)})))
    return failure();
  Tensor out(dtype, {static_cast<int64_t>(length)});
  // Integer dtypes step in int64, floating-point ones in double.
  bool isFloat = isFloatDtype(dtype);
  int64_t si = start.getInt(0), di = step.getInt(0);
  for (int64_t i = 0, n = out.getNumElements(); i < n; ++i) {
    if (isFloat)
      out.setDouble(i, s + static_cast<double>(i) * d);
    else
      out.setInt(i, wrapAdd(si, wrapMul(i, di)));
  }
  env.set(op.getResult(), std::move(out));
  return success();
}

} // namespace

std::optional<LogicalResult> evalElementwiseOp(Operation *op, Env &env) {
  using Result = std::optional<LogicalResult>;
  auto identityInt = [](int64_t x) { return x; };
  return llvm::TypeSwitch<Operation *, Result>(op)
      // Creation.
      .Case([&](ScalarTensorOp s) -> Result {
        const Tensor &value = env.get(s.getValue());
        Tensor out(getDeclaredDtype(s.getResult()), {});
        out.setFrom(0, value, 0);
        env.set(s.getResult(), std::move(out));
        return success();
      })
      .Case([&](FullOp f) -> Result {
        SmallVector<int64_t> sizes =
            resolveMixedList(f.getStaticSizes(), f.getSizes(), env);
        FailureOr<Tensor> out = filled(op, getDeclaredDtype(f.getResult()),
                                       sizes, f.getFillValue());
        if (failed(out))
          return failure();
        env.set(f.getResult(), std::move(*out));
        return success();
      })
      .Case([&](FullLikeOp f) -> Result {
        FailureOr<Tensor> out =
            filled(op, getDeclaredDtype(f.getResult()),
                   env.get(f.getSelf()).getShape(), f.getFillValue());
        if (failed(out))
          return failure();
        env.set(f.getResult(), std::move(*out));
        return success();
      })
      .Case([&](ArangeOp a) -> Result { return evalArange(a, env); })
      // Unary.
      .Case([&](NegOp) -> Result {
        if (env.get(op->getOperand(0)).getKind() == ElementKind::Bool)
          return op->emitError("negation is not defined for bool tensors");
        return evalUnary(
            op, env, [](double x) { return -x; },
            [](int64_t x) { return wrapSub(0, x); });
      })
      .Case([&](AbsOp) -> Result {
        return evalUnary(
            op, env, [](double x) { return std::fabs(x); },
            [](int64_t x) { return x < 0 ? wrapSub(0, x) : x; });
      })
      .Case([&](ReluOp) -> Result {
        return evalUnary(
            op, env, [](double x) { return x > 0 || std::isnan(x) ? x : 0.0; },
            [](int64_t x) { return std::max<int64_t>(x, 0); });
      })
      .Case([&](BitwiseNotOp) -> Result {
        bool isBool = env.get(op->getOperand(0)).getKind() == ElementKind::Bool;
        return evalUnary(
            op, env, [](double x) { return x; },
            [&](int64_t x) -> int64_t { return isBool ? !x : ~x; });
      })
      .Case([&](LogicalNotOp) -> Result {
        const Tensor &input = env.get(op->getOperand(0));
        Tensor out(getDeclaredDtype(op->getResult(0)), input.getShape());
        for (int64_t i = 0, e = out.getNumElements(); i < e; ++i)
          out.setInt(i, !input.isNonZero(i));
        env.set(op->getResult(0), std::move(out));
        return success();
      })
      .Case([&](CosOp) -> Result {
        return evalUnary(op, env, [](double x) { return std::cos(x); });
      })
      .Case([&](SinOp) -> Result {
        return evalUnary(op, env, [](double x) { return std::sin(x); });
      })
      .Case([&](ExpOp) -> Result {
        return evalUnary(op, env, [](double x) { return std::exp(x); });
      })
      .Case([&](LogOp) -> Result {
        return evalUnary(op, env, [](double x) { return std::log(x); });
      })
      .Case([&](SqrtOp) -> Result {
        return evalUnary(op, env, [](double x) { return std::sqrt(x); });
      })
      .Case([&](RsqrtOp) -> Result {
        return evalUnary(op, env, [](double x) { return 1.0 / std::sqrt(x); });
      })
      .Case([&](ReciprocalOp) -> Result {
        return evalUnary(op, env, [](double x) { return 1.0 / x; });
      })
      .Case([&](SigmoidOp) -> Result { return evalUnary(op, env, sigmoid); })
      .Case([&](TanhOp) -> Result {
        return evalUnary(op, env, [](double x) { return std::tanh(x); });
      })
      .Case([&](ErfOp) -> Result {
        return evalUnary(op, env, [](double x) { return std::erf(x); });
      })
      .Case([&](SiluOp) -> Result {
        return evalUnary(op, env, [](double x) { return x * sigmoid(x); });
      })
      .Case([&](GeluOp g) -> Result {
        bool approximate = g.getApproximate() == "tanh";
        return evalUnary(op, env,
                         [&](double x) { return gelu(x, approximate); });
      })
      .Case([&](Log1pOp) -> Result {
        return evalUnary(op, env, [](double x) { return std::log1p(x); });
      })
      .Case([&](Expm1Op) -> Result {
        return evalUnary(op, env, [](double x) { return std::expm1(x); });
      })
      .Case([&](Log2Op) -> Result {
        return evalUnary(op, env, [](double x) { return std::log2(x); });
      })
      .Case([&](AcosOp) -> Result {
        return evalUnary(op, env, [](double x) { return std::acos(x); });
      })
      .Case([&](AsinOp) -> Result {
        return evalUnary(op, env, [](double x) { return std::asin(x); });
      })
      .Case([&](AtanOp) -> Result {
        return evalUnary(op, env, [](double x) { return std::atan(x); });
      })
      .Case([&](AcoshOp) -> Result {
        return evalUnary(op, env, [](double x) { return std::acosh(x); });
      })
      .Case([&](AsinhOp) -> Result {
        return evalUnary(op, env, [](double x) { return std::asinh(x); });
      })
      .Case([&](AtanhOp) -> Result {
        return evalUnary(op, env, [](double x) { return std::atanh(x); });
      })
      .Case([&](CoshOp) -> Result {
        return evalUnary(op, env, [](double x) { return std::cosh(x); });
      })
      .Case([&](SinhOp) -> Result {
        return evalUnary(op, env, [](double x) { return std::sinh(x); });
      })
      .Case([&](TanOp) -> Result {
        return evalUnary(op, env, [](double x) { return std::tan(x); });
      })
      .Case([&](Log10Op) -> Result {
        return evalUnary(op, env, [](double x) { return std::log10(x); });
      })
      // Rounding is the identity on integers.
      .Case([&](FloorOp) -> Result {
        return evalUnary(
            op, env, [](double x) { return std::floor(x); }, identityInt);
      })
      .Case([&](CeilOp) -> Result {
        return evalUnary(
            op, env, [](double x) { return std::ceil(x); }, identityInt);
      })
      .Case([&](RoundOp) -> Result {
        return evalUnary(op, env, roundHalfToEven, identityInt);
      })
      .Case([&](TruncOp) -> Result {
        return evalUnary(
            op, env, [](double x) { return std::trunc(x); }, identityInt);
      })
      // sign: -1, 0 or 1 (0 for NaN, as PyTorch's (0 < x) - (x < 0)).
      .Case([&](SignOp) -> Result {
        return evalUnary(op, env, signOf<double>, signOf<int64_t>);
      })
      .Case([&](IsNanOp) -> Result {
        return evalPredicate(op, env, [](double x) { return std::isnan(x); });
      })
      .Case([&](IsInfOp) -> Result {
        return evalPredicate(op, env, [](double x) { return std::isinf(x); });
      })
      .Case([&](EluOp e) -> Result {
        double alpha = e.getAlpha().convertToDouble(), scale = e.getScale().convertToDouble(),
               inputScale = e.getInputScale().convertToDouble();
        return evalUnary(op, env, [&](double x) {
          return x <= 0 ? std::expm1(x * inputScale) * alpha * scale : x * scale;
        });
      })
      .Case([&](LeakyReluOp l) -> Result {
        double slope = l.getNegativeSlope().convertToDouble();
        return evalUnary(op, env,
                         [&](double x) { return x >= 0 ? x : slope * x; });
      })
      .Case([&](ClampOp c) -> Result {
        std::optional<double> lo, hi;
        if (auto min = c.getMinAttr())
          lo = min.getValueAsDouble();
        if (auto max = c.getMaxAttr())
          hi = max.getValueAsDouble();
        auto clamp = [&](double x) {
          if (std::isnan(x))
            return x;
          if (lo)
            x = std::max(x, *lo);
          if (hi)
            x = std::min(x, *hi);
          return x;
        };
        return evalUnary(op, env, clamp, [&](int64_t x) {
          return static_cast<int64_t>(clamp(static_cast<double>(x)));
        });
      })
      .Case<ToCopyOp, CloneOp>([&](Operation *) -> Result {
        return evalUnary(
            op, env, [](double x) { return x; }, identityInt);
      })
      .Case([&](CopyOp c) -> Result {
        const Tensor &self = env.get(c.getSelf());
        const Tensor &src = env.get(c.getSrc());
        FailureOr<SmallVector<int64_t>> shape = broadcastRuntimeShapes(
            {self.getShape(), src.getShape()}, op->getLoc());
        if (failed(shape))
          return failure();
        if (ArrayRef<int64_t>(*shape) != self.getShape())
          return op->emitError("source of shape ")
                 << formatShape(src.getShape())
                 << " does not broadcast to the destination shape "
                 << formatShape(self.getShape());
        env.set(c.getResult(),
                broadcastTo(src, self.getShape(), self.getDtype()));
        return success();
      })
      // Binary arithmetic.
      .Case([&](AddOp a) -> Result {
        std::optional<double> alpha;
        if (auto attr = a.getAlphaAttr())
          alpha = attr.getValueAsDouble();
        return evalAddSub(op, env, alpha, /*subtract=*/false);
      })
      .Case([&](SubOp s) -> Result {
        std::optional<double> alpha;
        if (auto attr = s.getAlphaAttr())
          alpha = attr.getValueAsDouble();
        return evalAddSub(op, env, alpha, /*subtract=*/true);
      })
      .Case([&](MulOp) -> Result {
        return evalArithmetic(
            op, env, promotedDtype(op),
            [](double x, double y) { return x * y; },
            [](int64_t x, int64_t y, int64_t &r) {
              r = wrapMul(x, y);
              return true;
            });
      })
      .Case([&](DivOp d) -> Result { return evalDiv(d, env); })
      .Case([&](PowOp) -> Result {
        return evalArithmetic(
            op, env, promotedDtype(op),
            [](double x, double y) { return std::pow(x, y); },
            [](int64_t x, int64_t y, int64_t &r) {
              if (y < 0)
                return false;
              r = powInt(x, y);
              return true;
            },
            "integers to negative integer powers are not allowed");
      })
      .Case([&](RemainderOp) -> Result {
        return evalArithmetic(
            op, env, promotedDtype(op), remainderFloat,
            [](int64_t x, int64_t y, int64_t &r) {
              if (y == 0)
                return false;
              r = y == -1 ? 0 : x % y;
              if (r != 0 && ((r < 0) != (y < 0)))
                r += y;
              return true;
            },
            "integer division by zero in remainder");
      })
      .Case([&](MaximumOp) -> Result {
        return evalArithmetic(op, env, promotedDtype(op), maxPropagatingNaN,
                              [](int64_t x, int64_t y, int64_t &r) {
                                r = std::max(x, y);
                                return true;
                              });
      })
      .Case([&](MinimumOp) -> Result {
        return evalArithmetic(op, env, promotedDtype(op), minPropagatingNaN,
                              [](int64_t x, int64_t y, int64_t &r) {
                                r = std::min(x, y);
                                return true;
                              });
      })
      .Case<BitwiseAndOp, BitwiseOrOp, BitwiseXorOp>(
          [&](Operation *) -> Result {
            Type dtype = promotedDtype(op);
            if (isFloatDtype(dtype))
              return op->emitError("bitwise ops need integer or bool "
                                   "operands, got ")
                     << dtype;
            bool isAnd = isa<BitwiseAndOp>(op), isOr = isa<BitwiseOrOp>(op);
            return evalArithmetic(
                op, env, dtype, [](double x, double) { return x; },
                [&](int64_t x, int64_t y, int64_t &r) {
                  r = isAnd ? (x & y) : isOr ? (x | y) : (x ^ y);
                  return true;
                });
          })
      // fmod: the sign of the dividend, as C's fmod.
      .Case([&](FmodOp) -> Result {
        return evalArithmetic(
            op, env, promotedDtype(op),
            [](double x, double y) { return std::fmod(x, y); },
            [](int64_t x, int64_t y, int64_t &r) {
              if (y == 0)
                return false;
              r = y == -1 ? 0 : x % y;
              return true;
            },
            "integer division by zero in fmod");
      })
      // atan2 computes in its (floating-point) result dtype.
      .Case([&](Atan2Op a) -> Result {
        return evalArithmetic(
            op, env, getDeclaredDtype(a.getResult()),
            [](double y, double x) { return std::atan2(y, x); },
            [](int64_t, int64_t, int64_t &) { return false; });
      })
      .Case([&](LogicalXorOp) -> Result {
        return evalLogical(op, env, [](bool x, bool y) { return x != y; });
      })
      .Case([&](LogicalAndOp) -> Result {
        return evalLogical(op, env, [](bool x, bool y) { return x && y; });
      })
      .Case([&](LogicalOrOp) -> Result {
        return evalLogical(op, env, [](bool x, bool y) { return x || y; });
      })
      // Comparisons.
      .Case([&](EqOp) -> Result { return evalCompare(op, env, Predicate::Eq); })
      .Case([&](NeOp) -> Result { return evalCompare(op, env, Predicate::Ne); })
      .Case([&](LtOp) -> Result { return evalCompare(op, env, Predicate::Lt); })
      .Case([&](LeOp) -> Result { return evalCompare(op, env, Predicate::Le); })
      .Case([&](GtOp) -> Result { return evalCompare(op, env, Predicate::Gt); })
      .Case([&](GeOp) -> Result { return evalCompare(op, env, Predicate::Ge); })
      .Case([&](WhereOp w) -> Result { return evalWhere(w, env); })
      .Default([](Operation *) -> Result { return std::nullopt; });
}

} // namespace magi::interp::detail
