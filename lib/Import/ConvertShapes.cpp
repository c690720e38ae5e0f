//===- ConvertShapes.cpp - Import views, shape ops and tensor creation ----===//

#include "Converters.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace magi::torch_import {
namespace {

/// An op whose list argument `listArg` (sizes, pads) may hold SymInts: its
/// dynamic entries are operands after `leading`, and the whole list is the
/// attribute `staticName` with `?` for them.
LogicalResult emitMixed(Node &node, StringRef listArg, StringRef staticName,
                        ArrayRef<Value> leading,
                        ArrayRef<NamedAttribute> extra = {}) {
  FailureOr<MixedList> list = node.mixedArg(listArg);
  if (failed(list))
    return failure();
  SmallVector<Value> operands(leading.begin(), leading.end());
  operands.append(list->dynamics.begin(), list->dynamics.end());
  SmallVector<NamedAttribute> attrs(extra.begin(), extra.end());
  attrs.push_back(node.i64s(staticName, list->statics));
  return node.emit(operands, attrs);
}

LogicalResult convertView(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  return emitMixed(node, node.arg("size") ? "size" : "shape", "static_sizes",
                   {*self});
}

LogicalResult convertExpand(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  return emitMixed(node, "size", "static_sizes", {*self});
}

/// full(size, fill_value): magi.full of a constant fill; a fill known only
/// when the graph runs (symbolicFill) is ones times it, an elementwise
/// product, which keeps a float .item() on the device (magi-item-to-tensor)
/// and a SymInt a kernel argument.
LogicalResult convertFull(Node &node) {
  FailureOr<Type> dtype = node.resultDtype();
  if (failed(dtype))
    return failure();
  std::optional<double> fill = node.floatArg("fill_value");
  if (fill)
    return emitMixed(node, "size", "static_sizes", {},
                     {node.f64("fill_value", *fill), node.dtype("dtype", *dtype)});
  std::optional<Value> symbolic = symbolicFill(node, "fill_value", *dtype);
  auto type = node.resultTypes.size() == 1 ? dyn_cast<RankedTensorType>(node.resultTypes[0])
                                           : RankedTensorType();
  if (!symbolic || !type) // a tensor fill value, or one of another type
    return node.opaque();
  FailureOr<MixedList> size = node.mixedArg("size");
  if (failed(size))
    return failure();
  Value ones = makeOp(node, FullOp::getOperationName(), size->dynamics, type,
                      {node.i64s("static_sizes", size->statics), node.f64("fill_value", 1.0),
                       node.dtype("dtype", *dtype)});
  return node.emitAs(MulOp::getOperationName(), {ones, *symbolic}, {});
}

/// full_like (fill_value) and fill.Scalar (value): `self`'s shape, the
/// result's dtype, every element the argument `valueArg`: a constant, or
/// ones times a SymInt or SymFloat (symbolicFill); a tensor value keeps
/// the node opaque.
LogicalResult convertFilledLike(Node &node, StringRef valueArg) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  FailureOr<Type> dtype = node.resultDtype();
  if (failed(dtype))
    return failure();
  std::optional<double> value = node.floatArg(valueArg);
  if (value)
    return node.emit({*self}, {node.f64("fill_value", *value), node.dtype("dtype", *dtype)});
  std::optional<Value> symbolic = symbolicFill(node, valueArg, *dtype);
  auto type = node.resultTypes.size() == 1 ? dyn_cast<RankedTensorType>(node.resultTypes[0])
                                           : RankedTensorType();
  if (!symbolic || !type)
    return node.opaque();
  return node.emitAs(MulOp::getOperationName(), {filledLike(node, *self, type, 1.0), *symbolic},
                     {});
}

LogicalResult convertFullLike(Node &node) {
  return convertFilledLike(node, "fill_value");
}

/// empty, empty_strided, empty_permuted: zeros of the size (magi.full's
/// description says why).
LogicalResult convertEmpty(Node &node) {
  FailureOr<Type> dtype = node.resultDtype();
  if (failed(dtype))
    return failure();
  return emitMixed(node, "size", "static_sizes", {},
                   {node.f64("fill_value", 0.0), node.dtype("dtype", *dtype)});
}

LogicalResult convertFill(Node &node) { return convertFilledLike(node, "value"); }

LogicalResult convertScalarTensor(Node &node) {
  FailureOr<Value> s = node.scalar("s");
  if (failed(s))
    return failure();
  FailureOr<Type> dtype = node.resultDtype();
  if (failed(dtype))
    return failure();
  return node.emit({*s}, {node.dtype("dtype", *dtype)});
}

/// Every overload: an absent `start` is 0 and an absent `step` 1.
LogicalResult convertArange(Node &node) {
  auto bound = [&](StringRef name, int64_t dflt) -> FailureOr<Value> {
    if (node.arg(name))
      return node.scalar(name);
    return Value(arith::ConstantOp::create(
        node.builder(), node.loc, node.builder().getI64IntegerAttr(dflt)));
  };
  FailureOr<Value> end = node.scalar("end");
  if (failed(end))
    return failure();
  FailureOr<Value> start = bound("start", 0);
  if (failed(start))
    return failure();
  FailureOr<Value> step = bound("step", 1);
  if (failed(step))
    return failure();
  FailureOr<Type> dtype = node.resultDtype();
  if (failed(dtype))
    return failure();
  return node.emit({*start, *end, *step}, {node.dtype("dtype", *dtype)});
}

LogicalResult convertPermute(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  std::optional<SmallVector<int64_t>> dims = node.intsArg("dims");
  if (!dims)
    return node.error() << "expected constant integers for argument 'dims'";
  return node.emit({*self}, {node.i64s("dims", *dims)});
}

/// transpose.int as the permutation that swaps `dim0` and `dim1`.
LogicalResult convertTranspose(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  int64_t rank = cast<RankedTensorType>(self->getType()).getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  SmallVector<int64_t> dims;
  for (StringRef name : {"dim0", "dim1"}) {
    std::optional<int64_t> dim = node.intArg(name);
    if (!dim)
      return node.error() << "expected a constant integer for argument '"
                          << name << "'";
    FailureOr<int64_t> wrapped = normalizeDim(*dim, rank, std::nullopt);
    if (failed(wrapped))
      return node.error() << "argument '" << name << "' is " << *dim
                          << ", out of range for a tensor of rank " << rank;
    dims.push_back(*wrapped);
  }
  if (rank > 0)
    std::swap(perm[dims[0]], perm[dims[1]]);
  return node.emit({*self}, {node.i64s("dims", perm)});
}

/// t: the two dimensions of a matrix swapped; 0-d and 1-d tensors stay.
LogicalResult convertT(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  int64_t rank = cast<RankedTensorType>(self->getType()).getRank();
  if (rank > 2)
    return node.error() << "expects a tensor of rank at most 2, got rank "
                        << rank;
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (rank == 2)
    std::swap(perm[0], perm[1]);
  return node.emit({*self}, {node.i64s("dims", perm)});
}

LogicalResult convertUnsqueeze(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  return node.emit({*self}, {node.i64("dim", node.intArg("dim").value_or(0))});
}

/// squeeze of the given dimensions, or of every size-1 dimension.
LogicalResult convertSqueeze(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  auto type = cast<RankedTensorType>(self->getType());
  SmallVector<int64_t> dims;
  if (auto d = node.intsArg("dim"))
    dims = *d;
  else
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (type.getDimSize(i) == 1)
        dims.push_back(i);
  return node.emit({*self}, {node.i64s("dims", dims)});
}

LogicalResult convertSlice(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  return emitSlice(node, {*self});
}

LogicalResult convertSelect(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  return emitSelect(node, {*self}, /*symIntOnly=*/false);
}

LogicalResult convertCat(Node &node) {
  const Json *a = node.arg("tensors");
  const Json *list = a ? getArray(a, "as_tensors") : nullptr;
  if (!list)
    return node.error()
           << "expected a list of tensors for argument 'tensors'";
  SmallVector<Value> operands;
  for (const Json &t : *list) {
    const Json *o = asObject(t);
    std::optional<StringRef> ref = o ? getString(o, "name") : std::nullopt;
    if (!ref)
      return node.error() << "malformed tensor in argument 'tensors'";
    FailureOr<Value> v = node.lookup(*ref);
    if (failed(v))
      return failure();
    operands.push_back(*v);
  }
  return node.emit(operands, {node.i64("dim", node.intArg("dim").value_or(0))});
}

/// split_with_sizes(split_sizes) and split.sizes(split_size).
LogicalResult convertSplitWithSizes(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  return emitMixed(node, node.arg("split_size") ? "split_size" : "split_sizes",
                   "static_split_sizes", {*self},
                   {node.i64("dim", node.intArg("dim").value_or(0))});
}

/// split.Tensor(split_size) and chunk(chunks) (not core: kept by exports
/// without decompositions): the pieces' sizes along `dim` are those of the
/// exported results, static ones only.
LogicalResult convertSplitBySize(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  int64_t rank = cast<RankedTensorType>(self->getType()).getRank();
  int64_t dim = node.intArg("dim").value_or(0);
  if (dim < 0)
    dim += rank;
  if (dim < 0 || dim >= rank)
    return node.error() << "dim " << node.intArg("dim").value_or(0) << " of a rank-" << rank
                        << " tensor";
  SmallVector<int64_t> sizes;
  for (Type type : node.resultTypes) {
    auto result = dyn_cast<RankedTensorType>(type);
    if (!result || result.getRank() != rank || result.isDynamicDim(dim))
      return node.opaque();
    sizes.push_back(result.getDimSize(dim));
  }
  return node.emit({*self}, {node.i64("dim", dim), node.i64s("static_split_sizes", sizes)});
}

/// unbind.int (not core): one magi.select per index along `dim`.
LogicalResult convertUnbind(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  int64_t dim = node.intArg("dim").value_or(0);
  for (auto [index, type] : llvm::enumerate(node.resultTypes))
    node.results.push_back(node.importer
                               .create(SelectOp::getOperationName(), node.loc, {*self},
                                       {node.i64("dim", dim),
                                        node.i64s("static_index", {int64_t(index)})},
                                       type)
                               ->getResult(0));
  return success();
}

/// A pad value known only when the graph runs (a SymFloat) on a float
/// tensor: the tensor padded with 0, and where a mask (zeros padded
/// with 1) says so, the value: exact, unlike padding x - v
/// with 0 and adding v.
LogicalResult convertConstantPadNd(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  std::optional<double> value = node.floatArg("value");
  if (value || !node.arg("value"))
    return emitMixed(node, "pad", "static_pad", {*self},
                     {node.f64("value", value.value_or(0.0))});
  FailureOr<Value> symbolic = node.scalar("value");
  FailureOr<MixedList> pad = node.mixedArg("pad");
  if (failed(symbolic) || failed(pad))
    return failure();
  auto type = cast<RankedTensorType>(self->getType());
  if (!isa<FloatType>(type.getElementType()) || node.resultTypes.size() != 1)
    return node.opaque();
  auto padded = cast<RankedTensorType>(node.resultTypes[0]);
  auto padWith = [&](Value x, double with) {
    SmallVector<Value> operands{x};
    operands.append(pad->dynamics.begin(), pad->dynamics.end());
    return makeOp(node, ConstantPadNdOp::getOperationName(), operands, padded,
                  {node.f64("value", with), node.i64s("static_pad", pad->statics)});
  };
  Value outside = makeOp(node, NeOp::getOperationName(),
                         {padWith(filledLike(node, *self, type, 0.0), 1.0), f64Scalar(node, 0.0)},
                         padded.clone(node.builder().getI1Type()));
  return node.emitAs(WhereOp::getOperationName(), {outside, *symbolic, padWith(*self, 0.0)});
}

/// flip(dims) and repeat(repeats): a list that is not constant keeps the
/// node opaque.
LogicalResult convertIntList(Node &node, StringRef name) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  std::optional<SmallVector<int64_t>> list = node.intsArg(name);
  if (!list)
    return node.opaque();
  return node.emit({*self}, {node.i64s(name, *list)});
}
LogicalResult convertFlip(Node &node) { return convertIntList(node, "dims"); }
LogicalResult convertRepeat(Node &node) {
  return convertIntList(node, "repeats");
}

LogicalResult convertDiagonal(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  return node.emit({*self}, {node.i64("offset", node.intArg("offset").value_or(0)),
                             node.i64("dim1", node.intArg("dim1").value_or(0)),
                             node.i64("dim2", node.intArg("dim2").value_or(1))});
}

/// tril and triu.
LogicalResult convertTriangle(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  return node.emit({*self},
                   {node.i64("diagonal", node.intArg("diagonal").value_or(0))});
}

} // namespace

/// A fill value known only when the graph runs (a SymInt, or a SymFloat
/// from a float .item()) for a result of `dtype`: the value itself when
/// ones times it has that dtype (a float result, or an integer one filled
/// with a SymInt), else none. PyTorch converts the fill to the dtype as
/// 1 * value does (a float through f32 first for f16 and bf16).
std::optional<Value> symbolicFill(Node &node, StringRef valueArg, Type dtype) {
  const Json *arg = node.arg(valueArg);
  StringRef kind = unionKind(arg);
  if (!arg || (kind != "as_sym_int" && kind != "as_sym_float"))
    return std::nullopt;
  FailureOr<Value> value = node.scalarValue(arg, valueArg);
  if (failed(value))
    return std::nullopt;
  Type type = value->getType();
  bool fits = isa<FloatType>(dtype) ? (type.isF64() || type.isIndex())
                                    : dtype.isSignlessInteger() && !dtype.isInteger(1) &&
                                          type.isIndex();
  return fits ? std::optional<Value>(*value) : std::nullopt;
}

LogicalResult emitSelect(Node &node, ArrayRef<Value> leading, bool symIntOnly) {
  SmallVector<Value> operands(leading.begin(), leading.end());
  int64_t index;
  if (auto i = node.intArg("index")) {
    index = *i;
  } else {
    FailureOr<Value> v = node.scalar("index");
    if (failed(v))
      return failure();
    if (symIntOnly && !v->getType().isIndex())
      return node.opaque();
    operands.push_back(*v);
    index = ShapedType::kDynamic;
  }
  return node.emit(operands, {node.i64("dim", node.intArg("dim").value_or(0)),
                              node.i64s("static_index", {index})});
}

LogicalResult emitSlice(Node &node, ArrayRef<Value> leading) {
  FailureOr<MixedList> bounds = node.sliceBounds();
  if (failed(bounds))
    return failure();
  SmallVector<Value> operands(leading.begin(), leading.end());
  operands.append(bounds->dynamics.begin(), bounds->dynamics.end());
  return node.emit(operands,
                   {node.i64("dim", node.intArg("dim").value_or(0)),
                    node.i64s("static_bounds", bounds->statics)});
}

void addShapeConverters(std::vector<ConverterRow> &rows) {
  rows.insert(rows.end(),
              {row<ViewOp>("aten::view", convertView),
               row<ViewOp>("aten::_unsafe_view", convertView),
               row<ViewOp>("aten::reshape", convertView),
               row<ExpandOp>("aten::expand", convertExpand),
               row<PermuteOp>("aten::permute", convertPermute),
               row<PermuteOp>("aten::transpose.int", convertTranspose),
               row<PermuteOp>("aten::t", convertT),
               row<UnsqueezeOp>("aten::unsqueeze", convertUnsqueeze),
               row<SqueezeOp>("aten::squeeze", convertSqueeze),
               row<SliceOp>("aten::slice.Tensor", convertSlice),
               row<SelectOp>("aten::select.int", convertSelect),
               row<CatOp>("aten::cat", convertCat),
               row<SplitWithSizesOp>("aten::split_with_sizes",
                                     convertSplitWithSizes),
               row<SplitWithSizesOp>("aten::split.sizes", convertSplitWithSizes),
               row<SplitWithSizesOp>("aten::split.Tensor", convertSplitBySize),
               row<SplitWithSizesOp>("aten::chunk", convertSplitBySize),
               row<SelectOp>("aten::unbind.int", convertUnbind),
               row<ConstantPadNdOp>("aten::constant_pad_nd",
                                    convertConstantPadNd),
               row<FlipOp>("aten::flip", convertFlip),
               row<DiagonalOp>("aten::diagonal", convertDiagonal),
               row<RepeatOp>("aten::repeat", convertRepeat),
               row<TrilOp>("aten::tril", convertTriangle),
               row<TriuOp>("aten::triu", convertTriangle),
               // Tensor creation.
               row<FullOp>("aten::full.default", convertFull),
               row<FullLikeOp>("aten::full_like", convertFullLike),
               row<FullLikeOp>("aten::fill.Scalar", convertFill),
               row<FullOp>("aten::empty.memory_format", convertEmpty),
               row<FullOp>("aten::empty_strided", convertEmpty),
               row<FullOp>("aten::empty_permuted", convertEmpty),
               row<ScalarTensorOp>("aten::scalar_tensor", convertScalarTensor),
               row<ArangeOp>("aten::arange", convertArange)});
}

} // namespace magi::torch_import
