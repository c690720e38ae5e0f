//===- ConvertReductions.cpp - Import reductions, sorts and softmax -------===//

#include "Converters.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"

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

} // namespace

void addReductionConverters(std::vector<ConverterRow> &rows) {
  rows.insert(rows.end(),
              {row<SumOp>("aten::sum", convertReduction),
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
