//===- ConvertReductions.cpp - Import reductions, sorts and softmax -------===//

#include "Converters.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;

namespace magi::torch_import {
namespace {

/// A reduction over `dim` (all dimensions when absent), with `keepdim` and
/// an accumulation `dtype`.
LogicalResult convertReduction(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  SmallVector<NamedAttribute> attrs;
  if (auto dims = node.intsArg("dim"))
    attrs.push_back(node.i64s("dims", *dims));
  if (node.boolArg("keepdim").value_or(false))
    attrs.push_back(node.boolean("keepdim", true));
  FailureOr<Type> dtype = node.dtypeArg("dtype");
  if (failed(dtype))
    return failure();
  if (*dtype)
    attrs.push_back(node.dtype("dtype", *dtype));
  return node.emit({*self}, attrs);
}

/// max.default and min.default: over every element.
LogicalResult convertReduceAll(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  return node.emit({*self});
}

/// max.dim and min.dim: values and indices along one dimension.
LogicalResult convertReduceDim(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  return node.emit(
      {*self},
      {node.i64("dim", node.intArg("dim").value_or(0)),
       node.boolean("keepdim", node.boolArg("keepdim").value_or(false))});
}

LogicalResult convertArgExtremum(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  SmallVector<NamedAttribute> attrs;
  if (auto dim = node.intArg("dim"))
    attrs.push_back(node.i64("dim", *dim));
  attrs.push_back(
      node.boolean("keepdim", node.boolArg("keepdim").value_or(false)));
  return node.emit({*self}, attrs);
}

LogicalResult convertVar(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  SmallVector<NamedAttribute> attrs{
      node.f64("correction", node.floatArg("correction").value_or(1.0)),
      node.boolean("keepdim", node.boolArg("keepdim").value_or(false))};
  if (auto dims = node.intsArg("dim"))
    attrs.push_back(node.i64s("dims", *dims));
  return node.emit({*self}, attrs);
}

/// var.dim: `unbiased` (default true) is correction 1, else 0.
LogicalResult convertVarDim(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  SmallVector<NamedAttribute> attrs{
      node.f64("correction",
               node.boolArg("unbiased").value_or(true) ? 1.0 : 0.0),
      node.boolean("keepdim", node.boolArg("keepdim").value_or(false))};
  if (auto dims = node.intsArg("dim"))
    attrs.push_back(node.i64s("dims", *dims));
  return node.emit({*self}, attrs);
}

LogicalResult convertTopk(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  std::optional<int64_t> k = node.intArg("k");
  if (failed(self))
    return failure();
  if (!k) // a symbolic k stays opaque
    return node.opaque();
  return node.emit(
      {*self},
      {node.i64("k", *k), node.i64("dim", node.intArg("dim").value_or(-1)),
       node.boolean("largest", node.boolArg("largest").value_or(true)),
       node.boolean("sorted", node.boolArg("sorted").value_or(true))});
}

LogicalResult convertSort(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  return node.emit(
      {*self},
      {node.i64("dim", node.intArg("dim").value_or(-1)),
       node.boolean("descending", node.boolArg("descending").value_or(false))});
}

LogicalResult convertCumsum(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  FailureOr<Type> dtype = node.dtypeArg("dtype");
  if (failed(self) || failed(dtype))
    return failure();
  SmallVector<NamedAttribute> attrs{
      node.i64("dim", node.intArg("dim").value_or(0))};
  if (*dtype)
    attrs.push_back(node.dtype("dtype", *dtype));
  return node.emit({*self}, attrs);
}

/// _softmax and _log_softmax.
LogicalResult convertSoftmax(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  return node.emit(
      {*self}, {node.i64("dim", node.intArg("dim").value_or(-1)),
                node.boolean("half_to_float",
                             node.boolArg("half_to_float").value_or(false))});
}

/// linalg_vector_norm(self, ord = 2, dim = None, keepdim = False, dtype =
/// None) of a floating-point tensor, as PyTorch defines it (emitNorm). A
/// `dtype` (a result type other than `self`'s) or an integer `self` keeps
/// the node opaque.
LogicalResult convertVectorNorm(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  FailureOr<Type> dtype = node.dtypeArg("dtype");
  if (failed(self) || failed(dtype))
    return failure();
  auto resultType = node.resultTypes.size() == 1
                        ? dyn_cast<RankedTensorType>(node.resultTypes[0])
                        : RankedTensorType();
  if (*dtype || !resultType)
    return node.opaque();
  return emitNorm(node, *self, node.floatArg("ord").value_or(2.0), node.intsArg("dim"),
                  node.boolArg("keepdim").value_or(false), resultType);
}

} // namespace

LogicalResult emitNorm(Node &node, Value x, double ord,
                       std::optional<ArrayRef<int64_t>> dims, bool keepdim,
                       RankedTensorType resultType) {
  auto xType = cast<RankedTensorType>(x.getType());
  if (!isa<FloatType>(xType.getElementType()) ||
      resultType.getElementType() != xType.getElementType())
    return node.opaque();
  SmallVector<NamedAttribute> attrs;
  if (dims)
    attrs.push_back(node.i64s("dims", *dims));
  if (keepdim)
    attrs.push_back(node.boolean("keepdim", true));
  OpBuilder &b = node.builder();
  auto make = [&](StringRef name, ValueRange operands, Type type,
                  ArrayRef<NamedAttribute> opAttrs = {}) {
    return makeOp(node, name, operands, type, opAttrs);
  };
  auto constant = [&](double v) {
    return arith::ConstantOp::create(b, node.loc, b.getF64FloatAttr(v)).getResult();
  };
  Type reduced = resultType;
  if (ord == 0.0) {
    // A count of the nonzero elements, in x's dtype.
    auto flags = RankedTensorType::get(xType.getShape(), b.getI1Type());
    Value nonzero = make(NeOp::getOperationName(), {x, constant(0.0)}, flags);
    Value ones = make(ToCopyOp::getOperationName(), {nonzero}, xType,
                      {node.dtype("dtype", xType.getElementType())});
    return node.emitAs(SumOp::getOperationName(), {ones}, attrs);
  }
  if (ord == 2.0) {
    Value square = make(MulOp::getOperationName(), {x, x}, xType);
    Value sum = make(SumOp::getOperationName(), {square}, reduced, attrs);
    return node.emitAs(SqrtOp::getOperationName(), {sum});
  }
  Value magnitude = make(AbsOp::getOperationName(), {x}, xType);
  if (std::isinf(ord))
    return node.emitAs(ord > 0 ? AmaxOp::getOperationName() : AminOp::getOperationName(),
                       {magnitude}, attrs);
  if (ord == 1.0)
    return node.emitAs(SumOp::getOperationName(), {magnitude}, attrs);
  Value exponent = constant(ord);
  Value powered = make(PowOp::getOperationName(), {magnitude, exponent}, xType);
  Value sum = make(SumOp::getOperationName(), {powered}, reduced, attrs);
  Value root = constant(1.0 / ord);
  return node.emitAs(PowOp::getOperationName(), {sum, root});
}

void addReductionConverters(std::vector<ConverterRow> &rows) {
  rows.insert(rows.end(),
              {row<SumOp>("aten::sum", convertReduction),
               row<SumOp>("aten::linalg_vector_norm", convertVectorNorm),
               row<MeanOp>("aten::mean", convertReduction),
               row<AmaxOp>("aten::amax", convertReduction),
               row<AminOp>("aten::amin", convertReduction),
               row<AnyOp>("aten::any", convertReduction),
               row<AllOp>("aten::all", convertReduction),
               row<ProdOp>("aten::prod", convertReduction),
               row<AmaxOp>("aten::max.default", convertReduceAll),
               row<AminOp>("aten::min.default", convertReduceAll),
               row<MaxDimOp>("aten::max.dim", convertReduceDim),
               row<MinDimOp>("aten::min.dim", convertReduceDim),
               row<ArgmaxOp>("aten::argmax", convertArgExtremum),
               row<ArgminOp>("aten::argmin", convertArgExtremum),
               row<VarOp>("aten::var.correction", convertVar),
               row<VarOp>("aten::var.dim", convertVarDim),
               row<TopkOp>("aten::topk", convertTopk),
               row<SortOp>("aten::sort.default", convertSort),
               row<SortOp>("aten::sort.stable", convertSort),
               row<CumsumOp>("aten::cumsum", convertCumsum),
               row<SoftmaxOp>("aten::_softmax", convertSoftmax),
               row<LogSoftmaxOp>("aten::_log_softmax", convertSoftmax)});
}

} // namespace magi::torch_import
