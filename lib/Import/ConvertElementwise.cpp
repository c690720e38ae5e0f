//===- ConvertElementwise.cpp - Import elementwise torch ops --------------===//
//
// Unary and binary arithmetic, comparisons, `where`, clamps, activations and
// dtype conversions.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"

using namespace mlir;

namespace magi::torch_import {
namespace {

LogicalResult convertUnary(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  return node.emit({*self});
}

LogicalResult convertGelu(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  const Json *a = node.arg("approximate");
  std::optional<StringRef> approx =
      a ? getString(a, "as_string") : std::nullopt;
  return node.emit({*self},
                   {node.named("approximate", node.builder().getStringAttr(
                                                  approx.value_or("none")))});
}

/// Tensor and Scalar overloads alike; either side may be a Python scalar.
LogicalResult convertBinary(Node &node) {
  // pow.Tensor_Scalar and pow.Scalar name their second operand `exponent`.
  StringRef rhsName = node.arg("exponent") ? "exponent" : "other";
  FailureOr<Value> lhs = node.scalar("self");
  FailureOr<Value> rhs = node.scalar(rhsName);
  if (failed(lhs) || failed(rhs))
    return failure();
  SmallVector<NamedAttribute> attrs;
  if (auto alpha = node.floatArg("alpha"); alpha && *alpha != 1.0) {
    attrs.push_back(node.f64("alpha", *alpha));
  } else if (!alpha && node.arg("alpha")) {
    // An alpha known only when the graph runs (a SymFloat, a SymInt): the
    // tensor `other` times it, then the plain op.
    FailureOr<Value> value = node.scalar("alpha");
    if (failed(value))
      return failure();
    auto tensor = dyn_cast<RankedTensorType>(rhs->getType());
    if (!tensor)
      return node.opaque();
    rhs = makeOp(node, MulOp::getOperationName(), {*rhs, *value}, tensor);
  }
  if (const Json *mode = node.arg("rounding_mode"))
    if (auto m = getString(mode, "as_string"))
      attrs.push_back(
          node.named("rounding_mode", node.builder().getStringAttr(*m)));
  return node.emit({*lhs, *rhs}, attrs);
}

LogicalResult convertWhere(Node &node) {
  FailureOr<Value> c = node.tensor("condition"), s = node.scalar("self"),
                   o = node.scalar("other");
  if (failed(c) || failed(s) || failed(o))
    return failure();
  return node.emit({*c, *s, *o});
}

/// A bound of a clamp-like op: its argument, the magi.clamp attribute it
/// becomes ("min" or "max"), and its value when absent (none: no bound).
struct ClampBound {
  StringRef arg, attr;
  std::optional<double> absent;
};

/// clamp with constant bounds (magi.clamp). A bound known only when the
/// graph runs (a SymInt, or a SymFloat from a float .item(); symbolicFill)
/// becomes a tensor of ones times it, the clamp PyTorch's min(max(self,
/// min), max) with magi.maximum / magi.minimum for that bound (NaN
/// propagates through either, as through clamp). A tensor bound, one that
/// would change the dtype, or a missing `required` one keeps the node
/// opaque.
LogicalResult convertClampBounds(Node &node, ArrayRef<ClampBound> bounds,
                                 bool required) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  auto type = cast<RankedTensorType>(self->getType());
  SmallVector<NamedAttribute> attrs;
  std::optional<Value> symbolicMin, symbolicMax;
  for (const ClampBound &bound : bounds) {
    if (!node.arg(bound.arg)) {
      if (required)
        return node.opaque();
      if (bound.absent)
        attrs.push_back(node.f64(bound.attr, *bound.absent));
      continue;
    }
    if (std::optional<double> v = node.floatArg(bound.arg)) {
      attrs.push_back(node.f64(bound.attr, *v));
      continue;
    }
    std::optional<Value> symbolic = symbolicFill(node, bound.arg, type.getElementType());
    if (!symbolic)
      return node.opaque();
    (bound.attr == "min" ? symbolicMin : symbolicMax) = symbolic;
  }
  if (!symbolicMin && !symbolicMax)
    return node.emit({*self}, attrs);
  if (node.resultTypes.size() != 1 || node.resultTypes[0] != Type(type))
    return node.opaque();
  auto boundTensor = [&](Value value) {
    return makeOp(node, MulOp::getOperationName(), {filledLike(node, *self, type, 1.0), value},
                  type);
  };
  // min(max(self, min), max), a constant bound as magi.clamp in its place.
  auto constant = [&](StringRef name) {
    return llvm::find_if(attrs, [&](NamedAttribute a) { return a.getName() == name; });
  };
  bool hasMax = symbolicMax || constant("max") != attrs.end();
  Value x = *self;
  if (symbolicMin) {
    Value lower = boundTensor(*symbolicMin);
    if (!hasMax)
      return node.emitAs(MaximumOp::getOperationName(), {x, lower}, {});
    x = makeOp(node, MaximumOp::getOperationName(), {x, lower}, type);
  } else if (auto *min = constant("min"); min != attrs.end()) {
    x = makeOp(node, ClampOp::getOperationName(), {x}, type, {*min});
  }
  if (symbolicMax)
    return node.emitAs(MinimumOp::getOperationName(), {x, boundTensor(*symbolicMax)}, {});
  return node.emitAs(ClampOp::getOperationName(), {x}, {*constant("max")});
}

LogicalResult convertClamp(Node &node) {
  return convertClampBounds(node, {{"min", "min", std::nullopt}, {"max", "max", std::nullopt}},
                            /*required=*/false);
}
LogicalResult convertClampMin(Node &node) {
  return convertClampBounds(node, {{"min", "min", std::nullopt}}, /*required=*/true);
}
LogicalResult convertClampMax(Node &node) {
  return convertClampBounds(node, {{"max", "max", std::nullopt}}, /*required=*/true);
}

/// clamp.Tensor(self, min?, max?): tensor bounds, which magi.clamp cannot
/// hold, as PyTorch defines it: min(max(self, min), max), broadcasting and
/// promoting as those ops do (magi.maximum's type inferred, the last op's
/// the node's).
LogicalResult convertClampTensor(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  FailureOr<Value> min = node.optTensor("min"), max = node.optTensor("max");
  if (failed(self) || failed(min) || failed(max))
    return failure();
  if (!*min && !*max)
    return node.error() << "clamp needs at least one of 'min' and 'max'";
  if (!*max)
    return node.emitAs(MaximumOp::getOperationName(), {*self, *min});
  Value lower = *self;
  if (*min)
    lower = MaximumOp::create(node.builder(), node.loc, *self, *min);
  return node.emitAs(MinimumOp::getOperationName(), {lower, *max});
}

/// hardtanh is clamp with bounds -1 and 1 by default, and like it takes
/// bounds known only when the graph runs.
LogicalResult convertHardtanh(Node &node) {
  return convertClampBounds(node, {{"min_val", "min", -1.0}, {"max_val", "max", 1.0}},
                            /*required=*/false);
}

/// leaky_relu is magi.leaky_relu; a slope known only when the graph runs
/// (a SymFloat) makes PyTorch's definition, where(self > 0, self, self *
/// slope).
LogicalResult convertLeakyRelu(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  std::optional<double> slope = node.floatArg("negative_slope");
  if (slope || !node.arg("negative_slope"))
    return node.emit({*self}, {node.f64("negative_slope", slope.value_or(0.01))});
  FailureOr<Value> value = node.scalar("negative_slope");
  if (failed(value))
    return failure();
  auto type = cast<RankedTensorType>(self->getType());
  if (!isa<FloatType>(type.getElementType()))
    return node.opaque();
  Value positive = makeOp(node, GtOp::getOperationName(), {*self, f64Scalar(node, 0.0)},
                          type.clone(node.builder().getI1Type()));
  Value scaled = makeOp(node, MulOp::getOperationName(), {*self, *value}, type);
  return node.emitAs(WhereOp::getOperationName(), {positive, *self, scaled});
}

/// elu with constant alpha, scale and input_scale is magi.elu; with one
/// known only when the graph runs (a SymFloat), the same as its lowering
/// computes it: where(x <= 0, expm1(x * input_scale) * alpha * scale,
/// x * scale), each step a magi op.
LogicalResult convertElu(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  StringRef names[] = {"alpha", "scale", "input_scale"};
  std::optional<double> constants[3];
  bool symbolic = false;
  for (int i = 0; i < 3; ++i) {
    constants[i] = node.floatArg(names[i]);
    symbolic |= !constants[i] && node.arg(names[i]);
  }
  if (!symbolic)
    return node.emit({*self}, {node.f64("alpha", constants[0].value_or(1.0)),
                               node.f64("scale", constants[1].value_or(1.0)),
                               node.f64("input_scale", constants[2].value_or(1.0))});
  auto type = cast<RankedTensorType>(self->getType());
  if (!isa<FloatType>(type.getElementType()))
    return node.opaque();
  Value factors[3]; // null: a constant 1
  for (int i = 0; i < 3; ++i) {
    if (constants[i] || !node.arg(names[i])) {
      if (constants[i].value_or(1.0) != 1.0)
        factors[i] = f64Scalar(node, *constants[i]);
      continue;
    }
    FailureOr<Value> value = node.scalar(names[i]);
    if (failed(value))
      return failure();
    factors[i] = *value;
  }
  auto mul = [&](Value x, Value by) {
    return by ? makeOp(node, MulOp::getOperationName(), {x, by}, type) : x;
  };
  Value negative = mul(mul(makeOp(node, Expm1Op::getOperationName(),
                                  {mul(*self, factors[2])}, type),
                           factors[0]),
                       factors[1]);
  Value atMostZero = makeOp(node, LeOp::getOperationName(), {*self, f64Scalar(node, 0.0)},
                            type.clone(node.builder().getI1Type()));
  return node.emitAs(WhereOp::getOperationName(), {atMostZero, negative, mul(*self, factors[1])});
}

LogicalResult convertToCopy(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  FailureOr<Type> dtype = node.resultDtype();
  if (failed(dtype))
    return failure();
  return node.emit({*self}, {node.dtype("dtype", *dtype)});
}

LogicalResult convertCopy(Node &node) {
  FailureOr<Value> self = node.tensor("self"), src = node.tensor("src");
  if (failed(self) || failed(src))
    return failure();
  return node.emit({*self, *src});
}

} // namespace

void addElementwiseConverters(std::vector<ConverterRow> &rows) {
  rows.insert(
      rows.end(),
      {// Unary ops: the default overload (the others write into `out`).
       row<NegOp>("aten::neg.default", convertUnary),
       row<AbsOp>("aten::abs.default", convertUnary),
       row<ReluOp>("aten::relu.default", convertUnary),
       row<BitwiseNotOp>("aten::bitwise_not.default", convertUnary),
       row<LogicalNotOp>("aten::logical_not.default", convertUnary),
       row<CosOp>("aten::cos.default", convertUnary),
       row<SinOp>("aten::sin.default", convertUnary),
       row<ExpOp>("aten::exp.default", convertUnary),
       row<LogOp>("aten::log.default", convertUnary),
       row<SqrtOp>("aten::sqrt.default", convertUnary),
       row<RsqrtOp>("aten::rsqrt.default", convertUnary),
       row<ReciprocalOp>("aten::reciprocal.default", convertUnary),
       row<SigmoidOp>("aten::sigmoid.default", convertUnary),
       row<TanhOp>("aten::tanh.default", convertUnary),
       row<ErfOp>("aten::erf.default", convertUnary),
       row<SiluOp>("aten::silu.default", convertUnary),
       row<Log1pOp>("aten::log1p.default", convertUnary),
       row<Expm1Op>("aten::expm1.default", convertUnary),
       row<Log2Op>("aten::log2.default", convertUnary),
       row<AcosOp>("aten::acos.default", convertUnary),
       row<AsinOp>("aten::asin.default", convertUnary),
       row<AtanOp>("aten::atan.default", convertUnary),
       row<AcoshOp>("aten::acosh.default", convertUnary),
       row<AsinhOp>("aten::asinh.default", convertUnary),
       row<AtanhOp>("aten::atanh.default", convertUnary),
       row<CoshOp>("aten::cosh.default", convertUnary),
       row<SinhOp>("aten::sinh.default", convertUnary),
       row<TanOp>("aten::tan.default", convertUnary),
       row<Log10Op>("aten::log10.default", convertUnary),
       row<FloorOp>("aten::floor.default", convertUnary),
       row<CeilOp>("aten::ceil.default", convertUnary),
       row<RoundOp>("aten::round.default", convertUnary),
       row<TruncOp>("aten::trunc.default", convertUnary),
       row<SignOp>("aten::sign.default", convertUnary),
       row<IsNanOp>("aten::isnan.default", convertUnary),
       row<IsInfOp>("aten::isinf.default", convertUnary),
       row<CloneOp>("aten::clone.default", convertUnary),
       row<CloneOp>("aten::lift_fresh_copy.default", convertUnary),
       row<CloneOp>("aten::alias.default", convertUnary),
       row<GeluOp>("aten::gelu", convertGelu),
       row<LeakyReluOp>("aten::leaky_relu", convertLeakyRelu),
       row<EluOp>("aten::elu", convertElu),
       // Binary ops and comparisons, every overload.
       row<AddOp>("aten::add", convertBinary),
       row<SubOp>("aten::sub", convertBinary),
       row<MulOp>("aten::mul", convertBinary),
       row<DivOp>("aten::div", convertBinary),
       row<PowOp>("aten::pow", convertBinary),
       row<RemainderOp>("aten::remainder", convertBinary),
       row<MaximumOp>("aten::maximum", convertBinary),
       row<MinimumOp>("aten::minimum", convertBinary),
       row<BitwiseAndOp>("aten::bitwise_and", convertBinary),
       row<BitwiseOrOp>("aten::bitwise_or", convertBinary),
       row<BitwiseXorOp>("aten::bitwise_xor", convertBinary),
       row<LogicalAndOp>("aten::logical_and", convertBinary),
       row<LogicalOrOp>("aten::logical_or", convertBinary),
       row<LogicalXorOp>("aten::logical_xor", convertBinary),
       row<FmodOp>("aten::fmod", convertBinary),
       row<Atan2Op>("aten::atan2", convertBinary),
       row<EqOp>("aten::eq", convertBinary),
       row<NeOp>("aten::ne", convertBinary),
       row<LtOp>("aten::lt", convertBinary),
       row<LeOp>("aten::le", convertBinary),
       row<GtOp>("aten::gt", convertBinary),
       row<GeOp>("aten::ge", convertBinary),
       // where.default is the one-argument form (nonzero), not a select.
       row<WhereOp>("aten::where.self", convertWhere),
       row<WhereOp>("aten::where.ScalarSelf", convertWhere),
       row<WhereOp>("aten::where.ScalarOther", convertWhere),
       row<WhereOp>("aten::where.Scalar", convertWhere),
       row<ClampOp>("aten::clamp.default", convertClamp),
       row<MinimumOp>("aten::clamp.Tensor", convertClampTensor),
       row<ClampOp>("aten::clamp_min", convertClampMin),
       row<ClampOp>("aten::clamp_max", convertClampMax),
       row<ClampOp>("aten::hardtanh", convertHardtanh),
       row<ToCopyOp>("aten::_to_copy", convertToCopy),
       row<CopyOp>("aten::copy.default", convertCopy)});
}

} // namespace magi::torch_import
