//===- ConvertSymbolic.cpp - Import SymInt arithmetic and metadata ops ----===//
//
// Python's integer arithmetic on SymInts (`_operator.add`, `torch.sym_min`,
// ...), `aten.sym_size`, `aten.sym_numel`, `aten.sym_stride`,
// `aten.sym_storage_offset`, `aten._assert_tensor_metadata`, and SymBools:
// comparisons of SymInts, and/or/not, and the runtime assertions on them
// (`aten._assert_scalar`).
//
//===----------------------------------------------------------------------===//

#include "Converters.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace magi::torch_import {
namespace {

/// The two SymInt operands of `a op b` (an integer as an index constant);
/// an empty list when the node has another form or computes on anything
/// else (a float, a tensor): such a node stays opaque.
FailureOr<SmallVector<Value>> symIntPair(Node &node, Type resultType) {
  if (node.resultTypes.size() != 1 || node.resultTypes[0] != resultType ||
      node.args.ordered.size() != 2)
    return SmallVector<Value>();
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
      return SmallVector<Value>();
    operands.push_back(*v);
  }
  return operands;
}

/// `a op b` on SymInts.
LogicalResult convertSymBinary(Node &node) {
  FailureOr<SmallVector<Value>> operands =
      symIntPair(node, node.builder().getIndexType());
  if (failed(operands))
    return failure();
  return operands->empty() ? node.opaque() : node.emit(*operands);
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

/// `tensor.item()`: an integer's element as an index, a float's as an f64
/// (a SymBool result, an item of a bool tensor, stays opaque). The importer
/// names it after the SymInt it defines and bounds it by that symbol's range
/// (Importer::importNode).
LogicalResult convertItem(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  if (node.resultTypes.size() == 1 && node.resultTypes[0].isInteger(1)) {
    // A bool .item() (a SymBool): the element read as an index bounded by
    // 1, compared with 0.
    if (!cast<RankedTensorType>(self->getType()).getElementType().isInteger(1))
      return node.error() << "a SymBool .item() of a tensor of "
                          << cast<RankedTensorType>(self->getType()).getElementType()
                          << " (expected bool)";
    Type index = node.builder().getIndexType();
    Value read = node.importer
                     .create(ItemOp::getOperationName(), node.loc,
                             {*self, node.indexConstant(1)}, {}, index)
                     ->getResult(0);
    node.results.push_back(
        node.importer
            .create(SymCompareOp::getOperationName(), node.loc, {read, node.indexConstant(0)},
                    {node.named("predicate", node.builder().getStringAttr("ne"))},
                    node.builder().getI1Type())
            ->getResult(0));
    return success();
  }
  if (node.resultTypes.size() != 1 ||
      !(node.resultTypes[0].isIndex() || node.resultTypes[0].isF64()))
    return node.opaque();
  return node.emit({*self});
}

/// numel as the product of the sizes: `magi.sym_size` for a symbolic dim,
/// the static ones folded into one constant.
LogicalResult convertSymNumel(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  Type index = node.builder().getIndexType();
  auto multiply = [&](Value lhs, Value rhs) {
    return node.importer
        .create(SymMulOp::getOperationName(), node.loc, {lhs, rhs}, {}, index)
        ->getResult(0);
  };
  auto type = cast<RankedTensorType>(self->getType());
  Value product;
  int64_t staticProduct = 1;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    if (!type.isDynamicDim(dim)) {
      staticProduct *= type.getDimSize(dim);
      continue;
    }
    Value size = node.importer
                     .create(SymSizeOp::getOperationName(), node.loc, {*self},
                             {node.i64("dim", dim)}, index)
                     ->getResult(0);
    product = product ? multiply(product, size) : size;
  }
  if (!product || staticProduct != 1) {
    Value constant = node.indexConstant(staticProduct);
    product = product ? multiply(product, constant) : constant;
  }
  node.results.push_back(product);
  return success();
}

/// The integer the archive records for the `self` tensor's `field`
/// (`strides` at `dim`, or `storage_offset`); none when it is symbolic.
std::optional<int64_t> recordedInteger(Node &node, StringRef field,
                                       std::optional<int64_t> dim) {
  std::optional<StringRef> name =
      getString(getObject(node.args.get("self"), "as_tensor"), "name");
  const Json *meta = name ? node.importer.tensorMeta(*name) : nullptr;
  const Json *value = nullptr;
  if (!dim) {
    value = getObject(meta, field);
  } else {
    const Json *all = getArray(meta, field);
    if (!all || *dim < 0 || *dim >= static_cast<int64_t>(all->size()))
      return std::nullopt;
    value = &(*all)[*dim];
  }
  return getInteger(value, "as_int");
}

/// Index arithmetic for sliceStorageOffset: magi.sym_* ops, folded by their
/// own folders where the operands are constants; the constants folded away
/// leave nothing behind, so a static slice adds no dead ops.
struct IndexArithmetic {
  Node &node;
  OpFoldResult constant(int64_t v) { return node.builder().getIndexAttr(v); }
  Value value(OpFoldResult v) {
    if (auto value = dyn_cast<Value>(v))
      return value;
    return node.indexConstant(cast<IntegerAttr>(cast<Attribute>(v)).getInt());
  }
  // Size `d` of `tensor`: a constant, or magi.sym_size.
  OpFoldResult size(Value tensor, int64_t d) {
    auto type = cast<RankedTensorType>(tensor.getType());
    if (!type.isDynamicDim(d))
      return constant(type.getDimSize(d));
    return SymSizeOp::create(node.builder(), node.loc, tensor, d).getResult();
  }
  template <typename OpTy>
  OpFoldResult apply(OpFoldResult a, OpFoldResult b) {
    Value lhs = value(a), rhs = value(b);
    Value result = node.builder().createOrFold<OpTy>(node.loc, lhs, rhs);
    // Constants made here for the operands, or by the fold, go again once
    // unused (each once: the fold may return an operand).
    std::optional<int64_t> folded = getConstantIntValue(result);
    llvm::SmallSetVector<Operation *, 3> made;
    bool given = (isa<Value>(a) && result == lhs) || (isa<Value>(b) && result == rhs);
    for (auto [v, madeHere] : {std::pair<Value, bool>{result, folded && !given},
                               {lhs, isa<Attribute>(a)}, {rhs, isa<Attribute>(b)}})
      if (Operation *def = v.getDefiningOp(); madeHere && def)
        made.insert(def);
    for (Operation *op : made)
      if (op->use_empty())
        op->erase();
    if (folded)
      return constant(*folded);
    return result;
  }
};

/// The storage offset PyTorch gives `view`, a chain of slices (magi.slice)
/// of a tensor that is no view (a graph input, a computed tensor: offset
/// 0, contiguous), as symbolic arithmetic: each slice adds its start,
/// wrapped and clamped as Python does, times its source's stride along the
/// sliced dimension. None for any other view.
std::optional<Value> sliceStorageOffset(Node &node, Value view) {
  SmallVector<SliceOp> slices;
  Value base = view;
  while (auto slice = base.getDefiningOp<SliceOp>()) {
    slices.push_back(slice);
    base = slice.getSelf();
  }
  Operation *def = base.getDefiningOp();
  if (slices.empty() || (def && isa<ViewOp, PermuteOp, ExpandOp, SqueezeOp, UnsqueezeOp,
                                    SelectOp, DiagonalOp, IndexOp>(def)))
    return std::nullopt;
  IndexArithmetic a{node};
  int64_t rank = cast<RankedTensorType>(base.getType()).getRank();
  // The base's contiguous strides; each slice multiplies its dimension's
  // by its step.
  SmallVector<OpFoldResult> strides(rank);
  OpFoldResult running = a.constant(1);
  for (int64_t d = rank - 1; d >= 0; --d) {
    strides[d] = running;
    if (d > 0)
      running = a.apply<SymMulOp>(a.size(base, d), running);
  }
  OpFoldResult offset = a.constant(0);
  for (SliceOp slice : llvm::reverse(slices)) {
    int64_t dim = slice.getDim() < 0 ? slice.getDim() + rank : slice.getDim();
    SmallVector<OpFoldResult> bounds = getMixedValues(
        slice.getStaticBounds(), slice.getBounds(), node.builder().getContext());
    if (dim < 0 || dim >= rank || bounds.size() != 3)
      return std::nullopt;
    // start' = s % m + m * max(s // m, 0), s the start clamped to [-n, n],
    // m = max(n, 1): start + n for a start in [-n, 0), the start in
    // [0, n], 0 below -n and n above n.
    OpFoldResult n = a.size(slice.getSelf(), dim);
    OpFoldResult s = a.apply<SymMaxOp>(a.apply<SymMinOp>(bounds[0], n),
                                       a.apply<SymSubOp>(a.constant(0), n));
    OpFoldResult m = a.apply<SymMaxOp>(n, a.constant(1));
    OpFoldResult wraps = a.apply<SymMaxOp>(a.apply<SymFloorDivOp>(s, m), a.constant(0));
    OpFoldResult start =
        a.apply<SymAddOp>(a.apply<SymModOp>(s, m), a.apply<SymMulOp>(m, wraps));
    offset = a.apply<SymAddOp>(a.apply<SymMulOp>(start, strides[dim]), offset);
    strides[dim] = a.apply<SymMulOp>(strides[dim], bounds[2]);
  }
  return a.value(offset);
}

/// A stride or storage offset as the export recorded it: Magi's tensors are
/// values, so it is the layout PyTorch had. An integer one holds for every
/// size and becomes a constant. A symbolic storage offset of a slice (its
/// start read on the host: tensor_split at a tensor's indices) is computed
/// as PyTorch does (sliceStorageOffset); any other symbolic one stays
/// opaque.
LogicalResult convertRecordedLayout(Node &node, StringRef field) {
  if (failed(node.tensor("self")))
    return failure();
  std::optional<int64_t> dim;
  if (field == "strides") {
    dim = node.intArg("dim");
    if (!dim)
      return node.error() << "expected a constant integer for argument 'dim'";
    if (*dim < 0)
      *dim +=
          cast<RankedTensorType>((*node.tensor("self")).getType()).getRank();
  }
  std::optional<int64_t> value = recordedInteger(node, field, dim);
  if (!value && field == "storage_offset") {
    if (std::optional<Value> offset = sliceStorageOffset(node, *node.tensor("self"))) {
      node.results.push_back(*offset);
      return success();
    }
  }
  if (!value)
    return node.opaque();
  node.results.push_back(node.indexConstant(*value));
  return success();
}
LogicalResult convertSymStride(Node &node) {
  return convertRecordedLayout(node, "strides");
}
LogicalResult convertSymStorageOffset(Node &node) {
  return convertRecordedLayout(node, "storage_offset");
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

/// `a op b` on SymInts giving a SymBool.
LogicalResult convertSymCompare(Node &node, StringRef predicate) {
  FailureOr<SmallVector<Value>> operands = symIntPair(node, node.builder().getI1Type());
  if (failed(operands))
    return failure();
  if (operands->empty())
    return node.opaque();
  return node.emit(*operands,
                   {node.named("predicate", node.builder().getStringAttr(predicate))});
}

/// SymBool operands (a SymBool node's result or a constant bool).
FailureOr<SmallVector<Value>> symBools(Node &node) {
  SmallVector<Value> operands;
  for (auto &[name, arg] : node.args.ordered) {
    FailureOr<Value> v = node.scalarValue(arg, name);
    if (failed(v))
      return failure();
    if (!v->getType().isInteger(1))
      return node.error() << "argument '" << name << "' is no SymBool";
    operands.push_back(*v);
  }
  return operands;
}

/// and_/or_ (`arity` 2) and sym_not (1) on SymBools.
LogicalResult convertSymBoolOp(Node &node, size_t arity) {
  FailureOr<SmallVector<Value>> operands = symBools(node);
  if (failed(operands))
    return failure();
  if (operands->size() != arity || node.resultTypes.size() != 1)
    return node.opaque();
  return node.emit(*operands);
}

/// _assert_scalar(self, assert_msg): a runtime check of a SymBool.
LogicalResult convertAssertScalar(Node &node) {
  const Json *self = node.arg("self");
  if (!self)
    return node.error() << "missing argument 'self'";
  FailureOr<Value> condition = node.scalarValue(self, "self");
  if (failed(condition))
    return failure();
  if (!condition->getType().isInteger(1))
    return node.opaque(); // an assertion on a tensor or a number
  std::string message = "a runtime assertion";
  if (const Json *m = node.arg("assert_msg"))
    message = getString(m, "as_string").value_or(message).str();
  return node.emit({*condition},
                   {node.named("message", node.builder().getStringAttr(message))});
}

/// sym_constrain_range(size, min, max) and sym_constrain_range_for_size
/// (older exports check an unbacked size so; `forSize`: a size, at least
/// 0): a runtime check that min <= size <= max, of the ends given.
LogicalResult convertConstrainRange(Node &node, bool forSize) {
  const Json *size = node.arg("size");
  if (!size)
    return node.error() << "missing argument 'size'";
  FailureOr<Value> value = node.scalarValue(size, "size");
  if (failed(value))
    return failure();
  if (!value->getType().isIndex())
    return node.opaque();
  std::optional<int64_t> min = node.intArg("min"), max = node.intArg("max");
  if (forSize)
    min = std::max<int64_t>(min.value_or(0), 0);
  OpBuilder &b = node.builder();
  Value check;
  std::string range;
  auto require = [&](StringRef predicate, int64_t bound) {
    Value holds = SymCompareOp::create(b, node.loc, b.getStringAttr(predicate), *value,
                                       node.indexConstant(bound));
    check = check ? SymAndOp::create(b, node.loc, check, holds).getResult() : holds;
  };
  if (min)
    require("ge", *min);
  if (max)
    require("le", *max);
  if (!check)
    return success(); // no end given: nothing to check
  std::string message = std::string(forSize ? "sym_constrain_range_for_size" : "sym_constrain_range") +
                        ": the value must be in [" + (min ? std::to_string(*min) : "-inf") + ", " +
                        (max ? std::to_string(*max) : "inf") + "]";
  return node.emit({check}, {node.named("message", b.getStringAttr(message))});
}

} // namespace

void addSymbolicConverters(std::vector<ConverterRow> &rows) {
  rows.insert(
      rows.end(),
      {row<SymAddOp>("_operator::add", convertSymBinary),
       row<SymSubOp>("_operator::sub", convertSymBinary),
       row<SymMulOp>("_operator::mul", convertSymBinary),
       row<SymFloorDivOp>("_operator::floordiv", convertSymBinary),
       row<SymModOp>("_operator::mod", convertSymBinary),
       row<SymMinOp>("torch::sym_min", convertSymBinary),
       row<SymMaxOp>("torch::sym_max", convertSymBinary),
       row<SymSizeOp>("aten::sym_size.int", convertSymSize),
       row<ItemOp>("aten::_local_scalar_dense", convertItem),
       row<ItemOp>("aten::item", convertItem), // not core: what _local_scalar_dense implements
       row<SymSizeOp>("aten::sym_numel", convertSymNumel),
       // The recorded integer: an index constant.
       ConverterRow{"aten::sym_stride.int", "arith.constant", convertSymStride},
       ConverterRow{"aten::sym_storage_offset", "arith.constant",
                    convertSymStorageOffset},
       row<AssertTensorMetadataOp>("aten::_assert_tensor_metadata",
                                   convertAssertTensorMetadata),
       row<SymCompareOp>("_operator::eq", [](Node &n) { return convertSymCompare(n, "eq"); }),
       row<SymCompareOp>("_operator::ne", [](Node &n) { return convertSymCompare(n, "ne"); }),
       row<SymCompareOp>("_operator::lt", [](Node &n) { return convertSymCompare(n, "lt"); }),
       row<SymCompareOp>("_operator::le", [](Node &n) { return convertSymCompare(n, "le"); }),
       row<SymCompareOp>("_operator::gt", [](Node &n) { return convertSymCompare(n, "gt"); }),
       row<SymCompareOp>("_operator::ge", [](Node &n) { return convertSymCompare(n, "ge"); }),
       row<SymAndOp>("_operator::and_", [](Node &n) { return convertSymBoolOp(n, 2); }),
       row<SymOrOp>("_operator::or_", [](Node &n) { return convertSymBoolOp(n, 2); }),
       row<SymNotOp>("torch::sym_not", [](Node &n) { return convertSymBoolOp(n, 1); }),
       row<AssertSymbolicOp>("aten::_assert_scalar", convertAssertScalar),
       row<AssertSymbolicOp>("aten::sym_constrain_range",
                             [](Node &n) { return convertConstrainRange(n, /*forSize=*/false); }),
       row<AssertSymbolicOp>("aten::sym_constrain_range_for_size",
                             [](Node &n) { return convertConstrainRange(n, /*forSize=*/true); })});
}

} // namespace magi::torch_import
