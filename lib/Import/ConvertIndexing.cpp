//===- ConvertIndexing.cpp - Import gathers, scatters and embeddings ------===//

#include "Converters.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"

using namespace mlir;

namespace magi::torch_import {
namespace {

LogicalResult convertEmbedding(Node &node) {
  FailureOr<Value> w = node.tensor("weight"), i = node.tensor("indices");
  if (failed(w) || failed(i))
    return failure();
  return node.emit({*w, *i}, {node.i64("padding_idx",
                                       node.intArg("padding_idx").value_or(-1))});
}

/// self and, for each of the mask's dimensions d, column d of the mask's
/// nonzero coordinates (buildNonzero, read on the host) as a [n] index of
/// dimension d: the operands and indexed dims of a magi.index or
/// magi.index_put through the mask.
void indexThroughMask(Node &node, Value self, Value mask, SmallVectorImpl<Value> &operands,
                      SmallVectorImpl<int64_t> &dims) {
  Value coordinates = buildNonzero(node, mask);
  OpBuilder &b = node.builder();
  auto column = RankedTensorType::get({ShapedType::kDynamic}, b.getI64Type());
  operands.push_back(self);
  for (int64_t d = 0; d < cast<RankedTensorType>(mask.getType()).getRank(); ++d) {
    Value c = makeOp(node, SliceOp::getOperationName(), {coordinates},
                     RankedTensorType::get({ShapedType::kDynamic, 1}, b.getI64Type()),
                     {node.i64("dim", 1), node.i64s("static_bounds", {d, d + 1, 1})});
    operands.push_back(makeOp(node, SqueezeOp::getOperationName(), {c}, column,
                              {node.i64s("dims", {1})}));
    dims.push_back(d);
  }
}

/// Whether `mask` covers `self`'s leading dimensions (x[mask] with one
/// bool mask, the only mask Magi indexes with).
bool masksLeadingDims(RankedTensorType selfType, RankedTensorType maskType) {
  int64_t maskRank = maskType.getRank();
  return maskRank > 0 && maskRank <= selfType.getRank() &&
         maskType.getShape() == selfType.getShape().take_front(maskRank);
}

/// x[mask] (index.Tensor with one bool mask over x's leading dimensions):
/// the mask's nonzero coordinates, read on the host (buildNonzero), as one
/// index a masked dimension. Other masks keep the node opaque.
LogicalResult convertMaskIndex(Node &node, Value self, Value mask) {
  if (node.resultTypes.size() != 1 ||
      !masksLeadingDims(cast<RankedTensorType>(self.getType()),
                        cast<RankedTensorType>(mask.getType())))
    return node.opaque();
  SmallVector<Value> operands;
  SmallVector<int64_t> dims;
  indexThroughMask(node, self, mask, operands, dims);
  return node.emit(operands, {node.i64s("indexed_dims", dims)});
}

/// x[mask] = v (index_put with one bool mask over x's leading dimensions).
/// A v of one element, not accumulated (`x[x < 0] = 0`), is written where
/// the mask is set: magi.where over the mask viewed with trailing 1s, no
/// read on the host. Any other v (a row per set element of the mask) or an
/// accumulating put goes to the mask's nonzero coordinates (buildNonzero,
/// read on the host), as magi.index_put with one index a masked dimension.
/// Other masks keep the node opaque.
LogicalResult convertMaskPut(Node &node, Value self, Value mask, Value values, bool accumulate) {
  auto selfType = cast<RankedTensorType>(self.getType());
  auto maskType = cast<RankedTensorType>(mask.getType());
  auto valuesType = dyn_cast<RankedTensorType>(values.getType());
  int64_t maskRank = maskType.getRank();
  if (node.resultTypes.size() != 1 || node.resultTypes[0] != selfType || !valuesType ||
      !masksLeadingDims(selfType, maskType))
    return node.opaque();
  OpBuilder &b = node.builder();
  bool oneValue = valuesType.hasStaticShape() && valuesType.getNumElements() == 1;
  if (oneValue && !accumulate &&
      (maskRank == selfType.getRank() || maskType.hasStaticShape())) {
    Value where = mask;
    if (maskRank < selfType.getRank()) {
      SmallVector<int64_t> shape(maskType.getShape());
      shape.append(selfType.getRank() - maskRank, 1);
      where = makeOp(node, ViewOp::getOperationName(), {mask},
                     RankedTensorType::get(shape, b.getI1Type()),
                     {node.i64s("static_sizes", shape)});
    }
    Type element = selfType.getElementType();
    if (valuesType.getElementType() != element)
      values = makeOp(node, ToCopyOp::getOperationName(), {values},
                      RankedTensorType::get(valuesType.getShape(), element),
                      {node.dtype("dtype", element)});
    node.results.push_back(
        makeOp(node, WhereOp::getOperationName(), {where, values, self}, selfType));
    return success();
  }
  SmallVector<Value> operands;
  SmallVector<int64_t> dims;
  indexThroughMask(node, self, mask, operands, dims);
  operands.push_back(values);
  return node.emit(operands, {node.i64s("indexed_dims", dims),
                              node.boolean("accumulate", accumulate)});
}

/// index.Tensor and index_put: one index tensor per indexed dimension, None
/// for a dimension taken whole. A boolean mask is read on the host
/// (convertMaskIndex, convertMaskPut); beside other indices it keeps the
/// node opaque.
LogicalResult convertAdvancedIndex(Node &node, bool put) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  const Json *a = node.arg("indices");
  if (!a)
    return node.error() << "missing argument 'indices'";
  SmallVector<Value> operands{*self};
  SmallVector<int64_t> dims;
  auto addIndex = [&](const Json *t, int64_t d) -> LogicalResult {
    std::optional<StringRef> n = t ? getString(t, "name") : std::nullopt;
    if (!n)
      return success(); // None: the dimension is taken whole
    FailureOr<Value> v = node.lookup(*n);
    if (failed(v))
      return failure();
    operands.push_back(*v);
    dims.push_back(d);
    return success();
  };
  if (const Json *list = getArray(a, "as_tensors")) {
    for (auto [d, t] : llvm::enumerate(*list))
      if (failed(addIndex(asObject(t), d)))
        return failure();
  } else if (const Json *list = getArray(a, "as_optional_tensors")) {
    for (auto [d, t] : llvm::enumerate(*list))
      if (failed(addIndex(getObject(asObject(t), "as_tensor"), d)))
        return failure();
  } else {
    return node.error() << "malformed argument 'indices'";
  }
  for (Value v : ArrayRef(operands).drop_front()) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      return node.error() << "argument 'indices' holds a value that is not "
                             "a tensor";
    if (t.getElementType().isInteger(1)) {
      if (operands.size() != 2 || dims != SmallVector<int64_t>{0})
        return node.opaque();
      if (!put)
        return convertMaskIndex(node, *self, operands[1]);
      FailureOr<Value> values = node.tensor("values");
      if (failed(values))
        return failure();
      return convertMaskPut(node, *self, operands[1], *values,
                            node.boolArg("accumulate").value_or(false));
    }
  }
  if (!put)
    return node.emit(operands, {node.i64s("indexed_dims", dims)});
  FailureOr<Value> values = node.tensor("values");
  if (failed(values))
    return failure();
  operands.push_back(*values);
  return node.emit(operands,
                   {node.i64s("indexed_dims", dims),
                    node.boolean("accumulate",
                                 node.boolArg("accumulate").value_or(false))});
}
LogicalResult convertIndex(Node &node) {
  return convertAdvancedIndex(node, /*put=*/false);
}
LogicalResult convertIndexPut(Node &node) {
  return convertAdvancedIndex(node, /*put=*/true);
}

/// index_select and gather.
LogicalResult convertIndexAlongDim(Node &node) {
  FailureOr<Value> self = node.tensor("self"), index = node.tensor("index");
  if (failed(self) || failed(index))
    return failure();
  return node.emit({*self, *index},
                   {node.i64("dim", node.intArg("dim").value_or(0))});
}

enum class ScatterKind { Assign, Add, Reduce };

/// scatter (src or value, optional reduce "add"/"multiply"), scatter_add and
/// scatter_reduce.two (reduce "sum", "prod", "mean", "amax", "amin";
/// include_self). magi.scatter names sum and prod as scatter.reduce does.
LogicalResult convertScatter(Node &node, ScatterKind kind) {
  FailureOr<Value> self = node.tensor("self"), index = node.tensor("index");
  FailureOr<Value> src = node.scalar(node.arg("src") ? "src" : "value");
  if (failed(self) || failed(index) || failed(src))
    return failure();
  SmallVector<NamedAttribute> attrs{
      node.i64("dim", node.intArg("dim").value_or(0))};
  StringRef reduce;
  if (kind == ScatterKind::Add)
    reduce = "add";
  else if (const Json *r = node.arg("reduce"))
    reduce = getString(r, "as_string").value_or("");
  if (kind == ScatterKind::Reduce) {
    if (reduce.empty())
      return node.error() << "missing argument 'reduce'";
    reduce = llvm::StringSwitch<StringRef>(reduce)
                 .Case("sum", "add")
                 .Case("prod", "multiply")
                 .Default(reduce);
    if (!node.boolArg("include_self").value_or(true))
      attrs.push_back(node.boolean("include_self", false));
  }
  if (!reduce.empty())
    attrs.push_back(node.named("reduce", node.builder().getStringAttr(reduce)));
  return node.emit({*self, *index, *src}, attrs);
}
LogicalResult convertScatterAssign(Node &node) {
  return convertScatter(node, ScatterKind::Assign);
}
LogicalResult convertScatterAdd(Node &node) {
  return convertScatter(node, ScatterKind::Add);
}
LogicalResult convertScatterReduce(Node &node) {
  return convertScatter(node, ScatterKind::Reduce);
}

LogicalResult convertSliceScatter(Node &node) {
  FailureOr<Value> self = node.tensor("self"), src = node.tensor("src");
  if (failed(self) || failed(src))
    return failure();
  return emitSlice(node, {*self, *src});
}

/// select_scatter at a constant or SymInt index; any other index keeps the
/// node opaque.
LogicalResult convertSelectScatter(Node &node) {
  FailureOr<Value> self = node.tensor("self"), src = node.tensor("src");
  if (failed(self) || failed(src))
    return failure();
  return emitSelect(node, {*self, *src}, /*symIntOnly=*/true);
}

} // namespace

void addIndexingConverters(std::vector<ConverterRow> &rows) {
  rows.insert(rows.end(),
              {row<EmbeddingOp>("aten::embedding", convertEmbedding),
               row<IndexOp>("aten::index.Tensor", convertIndex),
               row<IndexPutOp>("aten::index_put", convertIndexPut),
               row<IndexSelectOp>("aten::index_select", convertIndexAlongDim),
               row<GatherOp>("aten::gather", convertIndexAlongDim),
               row<ScatterOp>("aten::scatter", convertScatterAssign),
               row<ScatterOp>("aten::scatter_add", convertScatterAdd),
               row<ScatterOp>("aten::scatter_reduce", convertScatterReduce),
               row<SliceScatterOp>("aten::slice_scatter", convertSliceScatter),
               row<SelectScatterOp>("aten::select_scatter",
                                    convertSelectScatter)});
}

} // namespace magi::torch_import
