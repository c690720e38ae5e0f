//===- ConvertSymbolic.cpp - Import SymInt arithmetic and metadata ops ----===//
//
// Python's integer arithmetic on SymInts (`_operator.add`, `torch.sym_min`,
// ...), `aten.sym_size`, and `aten._assert_tensor_metadata`.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"

using namespace mlir;

namespace magi::torch_import {
namespace {

/// `a op b` on SymInts; a node that computes on anything else (a float, a
/// tensor) stays opaque.
LogicalResult convertSymBinary(Node &node) {
  if (node.resultTypes.size() != 1 || !node.resultTypes[0].isIndex() ||
      node.args.ordered.size() != 2)
    return node.opaque();
  SmallVector<Value> operands;
  for (auto &[name, arg] : node.args.ordered) {
    if (auto i = getInteger(arg, "as_int")) {
      operands.push_back(node.indexConstant(*i));
      continue;
    }
    FailureOr<Value> v = node.scalarValue(arg, name);
    if (failed(v))
      return failure();
    if (!v->getType().isIndex())
      return node.opaque();
    operands.push_back(*v);
  }
  return node.emit(operands);
}

LogicalResult convertSymSize(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  std::optional<int64_t> dim = node.intArg("dim");
  if (!dim)
    return node.error() << "expected a constant integer for argument 'dim'";
  FailureOr<int64_t> wrapped = normalizeDim(
      *dim, cast<RankedTensorType>(self->getType()).getRank(), std::nullopt);
  if (failed(wrapped))
    return node.error() << "argument 'dim' is " << *dim
                        << ", out of range for a tensor of rank "
                        << cast<RankedTensorType>(self->getType()).getRank();
  return node.emit({*self}, {node.i64("dim", *wrapped)});
}

LogicalResult convertAssertTensorMetadata(Node &node) {
  FailureOr<Value> a = node.tensor("a");
  FailureOr<Type> dtype = node.dtypeArg("dtype");
  if (failed(a) || failed(dtype))
    return failure();
  SmallVector<NamedAttribute> attrs;
  if (*dtype)
    attrs.push_back(node.dtype("dtype", *dtype));
  return node.emit({*a}, attrs);
}

} // namespace

void addSymbolicConverters(std::vector<ConverterRow> &rows) {
  rows.insert(rows.end(),
              {row<SymAddOp>("_operator::add", convertSymBinary),
               row<SymSubOp>("_operator::sub", convertSymBinary),
               row<SymMulOp>("_operator::mul", convertSymBinary),
               row<SymFloorDivOp>("_operator::floordiv", convertSymBinary),
               row<SymModOp>("_operator::mod", convertSymBinary),
               row<SymMinOp>("torch::sym_min", convertSymBinary),
               row<SymMaxOp>("torch::sym_max", convertSymBinary),
               row<SymSizeOp>("aten::sym_size.int", convertSymSize),
               row<AssertTensorMetadataOp>("aten::_assert_tensor_metadata",
                                           convertAssertTensorMetadata)});
}

} // namespace magi::torch_import
