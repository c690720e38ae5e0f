//===- ConvertComposed.cpp - Core ops imported as compositions ------------===//
//
// Core ATen ops that are PyTorch's own compositions of ops Magi has: the
// node becomes those ops (its last one has the node's type), so the
// interpreter, the lowering and the GPU path need nothing new. Index tables
// and interpolation weights are computed in the graph from magi.arange, not
// written as tensor literals: a literal that a library gemm or the host
// reads cannot be in a launch plan (docs/compile.md, Limits), and the
// arithmetic works for any placement. A form the composition does not
// cover (dynamic sizes where the arithmetic needs static ones) keeps the
// node opaque.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Dialect/Magi/IR/TypeInference.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>

using namespace mlir;

namespace magi::torch_import {
namespace {

Value make(Node &node, StringRef name, ValueRange operands, Type type,
           ArrayRef<NamedAttribute> attrs = {}) {
  return makeOp(node, name, operands, type, attrs);
}

// Scalars for the elementwise ops (Python numbers beside a tensor).
Value i64Scalar(Node &node, int64_t v) {
  OpBuilder &b = node.builder();
  return arith::ConstantOp::create(b, node.loc, b.getI64IntegerAttr(v));
}

// 0, 1, ..., n - 1 as a [n] tensor of `dtype`.
Value arange(Node &node, int64_t n, Type dtype) {
  return make(node, ArangeOp::getOperationName(),
              {i64Scalar(node, 0), i64Scalar(node, n), i64Scalar(node, 1)},
              RankedTensorType::get({n}, dtype), {node.dtype("dtype", dtype)});
}

RankedTensorType withShape(RankedTensorType type, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, type.getElementType());
}

RankedTensorType resultTensorType(Node &node) {
  return node.resultTypes.size() == 1 ? dyn_cast<RankedTensorType>(node.resultTypes[0])
                                      : RankedTensorType();
}

Value view(Node &node, Value x, ArrayRef<int64_t> shape) {
  auto type = withShape(cast<RankedTensorType>(x.getType()), shape);
  return make(node, ViewOp::getOperationName(), {x}, type,
              {node.i64s("static_sizes", shape)});
}

/// _cdist_forward(x1 [*, P, M], x2 [*, R, M], p, compute_mode): the p-norm
/// of x1[.., i, :] - x2[.., j, :] for every (i, j), computed as the
/// difference of the two broadcast against each other (PyTorch may take
/// the matmul form for p = 2, which loses more to cancellation; the
/// difference is the definition).
LogicalResult convertCdist(Node &node) {
  FailureOr<Value> x1 = node.tensor("x1"), x2 = node.tensor("x2");
  if (failed(x1) || failed(x2))
    return failure();
  auto t1 = cast<RankedTensorType>(x1->getType());
  auto t2 = cast<RankedTensorType>(x2->getType());
  RankedTensorType resultType = resultTensorType(node);
  int64_t rank = t1.getRank();
  if (!resultType || rank < 2 || t2.getRank() != rank || resultType.getRank() != rank ||
      !isa<FloatType>(t1.getElementType()) || t2.getElementType() != t1.getElementType() ||
      resultType.getElementType() != t1.getElementType())
    return node.opaque();
  // x1 [*, P, 1, M] - x2 [*, 1, R, M]: the result's shape and M.
  SmallVector<int64_t> s1(t1.getShape()), s2(t2.getShape());
  s1.insert(s1.end() - 1, 1);
  s2.insert(s2.end() - 2, 1);
  Value a = make(node, UnsqueezeOp::getOperationName(), {*x1}, withShape(t1, s1),
                 {node.i64("dim", rank - 1)});
  Value b = make(node, UnsqueezeOp::getOperationName(), {*x2}, withShape(t2, s2),
                 {node.i64("dim", rank - 2)});
  SmallVector<int64_t> differenceShape(resultType.getShape());
  differenceShape.push_back(t1.getShape().back());
  Value difference =
      make(node, SubOp::getOperationName(), {a, b}, withShape(t1, differenceShape));
  int64_t last = rank;
  return emitNorm(node, difference, node.floatArg("p").value_or(2.0), ArrayRef<int64_t>(last),
                  /*keepdim=*/false, resultType);
}

/// _pdist_forward(self [N, M], p): the p-norm of self[i] - self[j] for
/// i < j, row-major, from two index_selects of the pairs' rows (static N).
/// The k-th pair's rows are computed from k: row i starts at pair i (2N - 1
/// - i) / 2, so i = floor(((2N - 1) - sqrt((2N - 1)^2 - 8k)) / 2) (in f64,
/// exact for any N a tensor can have here: the root is an integer exactly
/// when i is one) and j = k - i (2N - 1 - i) / 2 + i + 1.
LogicalResult convertPdist(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  auto type = cast<RankedTensorType>(self->getType());
  RankedTensorType resultType = resultTensorType(node);
  if (!resultType || type.getRank() != 2 || type.isDynamicDim(0) ||
      !isa<FloatType>(type.getElementType()) ||
      resultType.getElementType() != type.getElementType() || type.getDimSize(0) > (1 << 24))
    return node.opaque();
  int64_t n = type.getDimSize(0);
  int64_t pairs = n * (n - 1) / 2; // 0 for one row: an empty result
  OpBuilder &b = node.builder();
  auto f64 = RankedTensorType::get({pairs}, b.getF64Type());
  auto i64 = RankedTensorType::get({pairs}, b.getI64Type());
  Value k = arange(node, pairs, b.getI64Type());
  Value kf = make(node, ToCopyOp::getOperationName(), {k}, f64,
                  {node.dtype("dtype", b.getF64Type())});
  double width = static_cast<double>(2 * n - 1);
  // (2N - 1)^2 - 8k, its root, and the row.
  Value scaled = make(node, MulOp::getOperationName(), {kf, f64Scalar(node, -8.0)}, f64);
  Value radicand =
      make(node, AddOp::getOperationName(), {scaled, f64Scalar(node, width * width)}, f64);
  Value root = make(node, SqrtOp::getOperationName(), {radicand}, f64);
  Value lower = make(node, SubOp::getOperationName(), {f64Scalar(node, width), root}, f64);
  Value half = make(node, MulOp::getOperationName(), {lower, f64Scalar(node, 0.5)}, f64);
  Value floored = make(node, FloorOp::getOperationName(), {half}, f64);
  Value row = make(node, ToCopyOp::getOperationName(), {floored}, i64,
                   {node.dtype("dtype", b.getI64Type())});
  // j = k - i (2N - 1 - i) / 2 + i + 1 (the product is even).
  Value rest = make(node, SubOp::getOperationName(), {i64Scalar(node, 2 * n - 1), row}, i64);
  Value product = make(node, MulOp::getOperationName(), {row, rest}, i64);
  Value start = make(node, DivOp::getOperationName(), {product, i64Scalar(node, 2)}, i64,
                     {node.named("rounding_mode", b.getStringAttr("floor"))});
  Value offset = make(node, SubOp::getOperationName(), {k, start}, i64);
  Value shifted = make(node, AddOp::getOperationName(), {offset, row}, i64);
  Value column = make(node, AddOp::getOperationName(), {shifted, i64Scalar(node, 1)}, i64);
  auto pairRows = withShape(type, {pairs, type.getDimSize(1)});
  Value a = make(node, IndexSelectOp::getOperationName(), {*self, row}, pairRows,
                 {node.i64("dim", 0)});
  Value c = make(node, IndexSelectOp::getOperationName(), {*self, column}, pairRows,
                 {node.i64("dim", 0)});
  Value difference = make(node, SubOp::getOperationName(), {a, c}, pairRows);
  int64_t last = 1;
  return emitNorm(node, difference, node.floatArg("p").value_or(2.0), ArrayRef<int64_t>(last),
                  /*keepdim=*/false, resultType);
}

/// masked_scatter(self, mask, source): where mask (broadcast to self) is
/// true, source's elements in row-major order, elsewhere self. The k-th
/// true element takes source's element cumsum(mask) - 1 (clamped at 0 for
/// the elements before the first true, which keep self): a cumsum, a
/// gather from the flattened source and a where. Static shapes.
LogicalResult convertMaskedScatter(Node &node) {
  FailureOr<Value> self = node.tensor("self"), mask = node.tensor("mask"),
                   source = node.tensor("source");
  if (failed(self) || failed(mask) || failed(source))
    return failure();
  auto selfType = cast<RankedTensorType>(self->getType());
  auto maskType = cast<RankedTensorType>(mask->getType());
  auto sourceType = cast<RankedTensorType>(source->getType());
  if (!selfType.hasStaticShape() || !maskType.hasStaticShape() ||
      !sourceType.hasStaticShape() || !maskType.getElementType().isInteger(1) ||
      sourceType.getElementType() != selfType.getElementType() ||
      maskType.getRank() > selfType.getRank() || sourceType.getNumElements() == 0)
    return node.opaque();
  ArrayRef<int64_t> shape = selfType.getShape();
  auto boolShape = withShape(maskType, shape);
  Value wide = *mask;
  if (maskType.getShape() != shape)
    wide = make(node, ExpandOp::getOperationName(), {*mask}, boolShape,
                {node.i64s("static_sizes", shape)});
  int64_t n = selfType.getNumElements();
  OpBuilder &b = node.builder();
  auto i64Type = RankedTensorType::get(shape, b.getI64Type());
  Value counts = make(node, ToCopyOp::getOperationName(), {wide}, i64Type,
                      {node.dtype("dtype", b.getI64Type())});
  Value flat = view(node, counts, {n});
  Value running = make(node, CumsumOp::getOperationName(), {flat}, flat.getType(),
                       {node.i64("dim", 0)});
  Value one = arith::ConstantOp::create(b, node.loc, b.getI64IntegerAttr(1));
  Value position = make(node, SubOp::getOperationName(), {running, one}, flat.getType());
  Value clamped = make(node, ClampOp::getOperationName(), {position}, flat.getType(),
                       {node.f64("min", 0.0)});
  Value sourceFlat = view(node, *source, {sourceType.getNumElements()});
  Value gathered = make(node, IndexOp::getOperationName(), {sourceFlat, clamped},
                        withShape(sourceType, {n}), {node.i64s("indexed_dims", {0})});
  Value taken = view(node, gathered, shape);
  return node.emitAs(WhereOp::getOperationName(), {wide, taken, *self});
}

} // namespace

/// nonzero(self) [n, rank]: the coordinates of self's nonzero elements in
/// row-major order. Its size n is data: the count is summed on the device
/// and read on the host (magi.item, bounded by self's element count), and
/// everything else is computed before that read, at the bound: each
/// element's coordinates, written with index_put to its rank among the
/// nonzero ones (its running count), the others to a spare row 0; rows 1
/// to n are the result. Any size may be symbolic (magi.sym_size).
Value buildNonzero(Node &node, Value self) {
  auto type = cast<RankedTensorType>(self.getType());
  int64_t rank = type.getRank();
  OpBuilder &b = node.builder();
  Type i64 = b.getI64Type(), index = b.getIndexType();
  auto sym = [&](StringRef name, ValueRange operands, ArrayRef<NamedAttribute> attrs = {}) {
    return node.importer.create(name, node.loc, operands, attrs, index)->getResult(0);
  };
  auto symbolicSize = [&](int64_t d) {
    return sym(SymSizeOp::getOperationName(), {self}, {node.i64("dim", d)});
  };
  // The element count: a number, or the symbolic sizes' product times the
  // static ones'.
  bool dynamic = !type.hasStaticShape();
  int64_t n = dynamic ? ShapedType::kDynamic : type.getNumElements();
  Value elements = dynamic ? Value() : node.indexConstant(n);
  if (dynamic) {
    int64_t staticPart = 1;
    for (int64_t d = 0; d < rank; ++d) {
      if (!type.isDynamicDim(d)) {
        staticPart *= type.getDimSize(d);
        continue;
      }
      Value size = symbolicSize(d);
      elements = elements ? sym(SymMulOp::getOperationName(), {elements, size}) : size;
    }
    if (staticPart != 1)
      elements = sym(SymMulOp::getOperationName(), {elements, node.indexConstant(staticPart)});
  }
  // A view of x as `shape` (n where dynamic).
  auto viewAs = [&](Value x, ArrayRef<int64_t> shape) {
    if (!dynamic)
      return view(node, x, shape);
    auto viewType = RankedTensorType::get(shape, cast<RankedTensorType>(x.getType()).getElementType());
    return make(node, ViewOp::getOperationName(), {x, elements}, viewType,
                {node.i64s("static_sizes", shape)});
  };
  Value flat = viewAs(self, {n});
  Value zero = isa<FloatType>(type.getElementType()) ? f64Scalar(node, 0.0) : i64Scalar(node, 0);
  auto flatIndices = RankedTensorType::get({n}, i64);
  Value mask = make(node, NeOp::getOperationName(), {flat, zero},
                    RankedTensorType::get({n}, b.getI1Type()));
  Value ones = make(node, ToCopyOp::getOperationName(), {mask}, flatIndices,
                    {node.dtype("dtype", i64)});
  Value count = make(node, SumOp::getOperationName(), {ones}, RankedTensorType::get({}, i64));
  auto readCount = [&]() {
    return make(node, ItemOp::getOperationName(), {count, elements}, index);
  };
  if (rank == 0) {
    // A 0-d self has no coordinates: [0, 0] or [1, 0].
    Value rows = readCount();
    return make(node, FullOp::getOperationName(), {rows},
                RankedTensorType::get({ShapedType::kDynamic, 0}, i64),
                {node.i64s("static_sizes", {ShapedType::kDynamic, 0}), node.i64("fill_value", 0),
                 node.dtype("dtype", i64)});
  }
  // A nonzero element's rank (from 1) is its running count; a zero's row is 0.
  Value running = make(node, CumsumOp::getOperationName(), {ones}, flatIndices,
                       {node.i64("dim", 0)});
  Value rows = make(node, MulOp::getOperationName(), {running, ones}, flatIndices);
  // Each element's coordinates from its flat position.
  Value position = make(node, ArangeOp::getOperationName(),
                        {i64Scalar(node, 0), dynamic ? elements : i64Scalar(node, n),
                         i64Scalar(node, 1)},
                        flatIndices, {node.dtype("dtype", i64)});
  // Dimension d's coordinate is (position floordiv stride_d) mod size_d,
  // stride_d the product of the sizes after d: numbers where those sizes
  // are static, symbolic arithmetic where not.
  SmallVector<std::optional<int64_t>> staticStrides(rank);
  SmallVector<Value> symbolicStrides(rank);
  std::optional<int64_t> stride = 1; // of dimension d, while static
  Value strideValue;                  // of dimension d, once symbolic
  for (int64_t d = rank - 1; d >= 0; --d) {
    staticStrides[d] = stride;
    symbolicStrides[d] = strideValue;
    if (stride && !type.isDynamicDim(d)) {
      *stride *= std::max<int64_t>(type.getDimSize(d), 1);
      continue;
    }
    Value size = type.isDynamicDim(d) ? symbolicSize(d) : node.indexConstant(type.getDimSize(d));
    strideValue = sym(SymMulOp::getOperationName(),
                      {stride ? node.indexConstant(*stride) : strideValue, size});
    stride.reset();
  }
  SmallVector<Value> columns;
  for (int64_t d = 0; d < rank; ++d) {
    Value c = position;
    if (!staticStrides[d] || *staticStrides[d] != 1)
      c = make(node, DivOp::getOperationName(),
               {c, staticStrides[d] ? i64Scalar(node, *staticStrides[d]) : symbolicStrides[d]},
               flatIndices, {node.named("rounding_mode", b.getStringAttr("floor"))});
    if (d > 0)
      c = make(node, RemainderOp::getOperationName(),
               {c, type.isDynamicDim(d) ? symbolicSize(d) : i64Scalar(node, type.getDimSize(d))},
               flatIndices);
    columns.push_back(viewAs(c, {n, 1}));
  }
  Value coordinates = columns.size() == 1
                          ? columns.front()
                          : make(node, CatOp::getOperationName(), columns,
                                 RankedTensorType::get({n, rank}, i64), {node.i64("dim", 1)});
  int64_t spareRows = dynamic ? ShapedType::kDynamic : n + 1;
  auto padded = RankedTensorType::get({spareRows, rank}, i64);
  SmallVector<Value> spareSizes;
  if (dynamic)
    spareSizes.push_back(sym(SymAddOp::getOperationName(), {elements, node.indexConstant(1)}));
  Value spare = make(node, FullOp::getOperationName(), spareSizes, padded,
                     {node.i64s("static_sizes", {spareRows, rank}), node.i64("fill_value", 0),
                      node.dtype("dtype", i64)});
  Value written = make(node, IndexPutOp::getOperationName(), {spare, rows, coordinates}, padded,
                       {node.i64s("indexed_dims", {0}), node.boolean("accumulate", false)});
  Value found = readCount();
  Value end = sym(SymAddOp::getOperationName(), {found, node.indexConstant(1)});
  return make(node, SliceOp::getOperationName(), {written, end},
              RankedTensorType::get({ShapedType::kDynamic, rank}, i64),
              {node.i64("dim", 0), node.i64s("static_bounds", {1, ShapedType::kDynamic, 1})});
}

namespace {

LogicalResult convertNonzero(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  RankedTensorType resultType = resultTensorType(node);
  int64_t rank = cast<RankedTensorType>(self->getType()).getRank();
  if (!resultType || resultType.getRank() != 2 || resultType.getDimSize(1) != rank ||
      !resultType.getElementType().isInteger(64))
    return node.opaque();
  node.results.push_back(buildNonzero(node, *self));
  return success();
}

/// combinations(self, r, with_replacement) of a 1-d self of static size n
/// (not a core op: torch.export keeps it when it does not decompose): the
/// r-tuples of self's elements in itertools' order, gathered from self at
/// index rows enumerated here (magi.index with a [count, r] index). PyTorch
/// computes them through a mask, so the export gives the count as an
/// unbacked size; it is static here, the result cast to the node's type.
LogicalResult convertCombinations(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  auto type = cast<RankedTensorType>(self->getType());
  RankedTensorType resultType = resultTensorType(node);
  int64_t r = node.intArg("r").value_or(2);
  bool withReplacement = node.boolArg("with_replacement").value_or(false);
  if (type.getRank() != 1 || type.isDynamicDim(0) || !resultType || r < 1 ||
      resultType.getRank() != 2 || resultType.getDimSize(1) != r)
    return node.opaque();
  int64_t n = type.getDimSize(0);
  // Every r-tuple of indices, nondecreasing (with replacement) or
  // increasing, in lexicographic order; at most 2^20 indices in all.
  constexpr int64_t kMostIndices = int64_t(1) << 20;
  SmallVector<int64_t> rows;
  SmallVector<int64_t> tuple(r, 0);
  if (!withReplacement)
    for (int64_t k = 0; k < r; ++k)
      tuple[k] = k;
  auto valid = [&]() { return tuple[r - 1] < n; };
  while (valid()) {
    rows.append(tuple.begin(), tuple.end());
    if (int64_t(rows.size()) > kMostIndices)
      return node.opaque();
    // The last position that can still grow, then the rest after it.
    int64_t k = r - 1;
    while (k >= 0 && tuple[k] >= (withReplacement ? n - 1 : n - r + k))
      --k;
    if (k < 0)
      break;
    ++tuple[k];
    for (int64_t j = k + 1; j < r; ++j)
      tuple[j] = withReplacement ? tuple[k] : tuple[j - 1] + 1;
  }
  int64_t count = int64_t(rows.size()) / r;
  OpBuilder &b = node.builder();
  auto indexType = RankedTensorType::get({count, r}, b.getI64Type());
  Value indices = make(node, ConstantOp::getOperationName(), {}, indexType,
                       {node.named("value", DenseIntElementsAttr::get(indexType, rows))});
  Value gathered = make(node, IndexOp::getOperationName(), {*self, indices},
                        RankedTensorType::get({count, r}, type.getElementType()),
                        {node.i64s("indexed_dims", {0})});
  node.results.push_back(gathered.getType() == resultType
                             ? gathered
                             : tensor::CastOp::create(b, node.loc, resultType, gathered).getResult());
  return success();
}

/// as_strided(self, size, stride, storage_offset): the elements of self's
/// storage at storage_offset + sum(i_k * stride_k), gathered from the
/// flattened self with those offsets (computed from one arange a dim,
/// broadcast and added). A Magi tensor is a value whose storage is its own
/// contiguous elements, which is what torch.export's as_strided reads when
/// self is a contiguous tensor; sizes, strides and offset must be static,
/// and an offset outside self's elements is an error (PyTorch's too).
LogicalResult convertAsStrided(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  auto type = cast<RankedTensorType>(self->getType());
  std::optional<SmallVector<int64_t>> size = node.intsArg("size"),
                                      stride = node.intsArg("stride");
  const Json *offsetArg = node.arg("storage_offset");
  std::optional<int64_t> offset = 0;
  if (offsetArg && !member(offsetArg, "as_none"))
    offset = node.intArg("storage_offset");
  if (!type.hasStaticShape() || !size || !stride || !offset || size->size() != stride->size())
    return node.opaque();
  // The offsets' range: the extremes add up dim by dim.
  // Checked arithmetic: the sizes and strides are the archive's, untrusted.
  int64_t elements = type.getNumElements(), least = *offset, most = *offset;
  bool empty = false;
  for (auto [s, st] : llvm::zip(*size, *stride)) {
    if (s < 0)
      return node.error() << "as_strided size " << s << " is negative";
    empty |= s == 0;
    if (s == 0)
      continue;
    std::optional<int64_t> reach = llvm::checkedMul(s - 1, st);
    std::optional<int64_t> end = reach ? llvm::checkedAdd(st < 0 ? least : most, *reach)
                                       : std::nullopt;
    if (!end)
      return node.error() << "as_strided sizes and strides overflow 64 bits";
    (st < 0 ? least : most) = *end;
  }
  if (!empty && (least < 0 || most >= elements))
    return node.error() << "as_strided reads elements " << least << " to " << most
                        << " of a tensor of " << elements;
  OpBuilder &b = node.builder();
  int64_t rank = static_cast<int64_t>(size->size());
  Value offsets = make(node, FullOp::getOperationName(), {},
                       RankedTensorType::get(*size, b.getI64Type()),
                       {node.i64s("static_sizes", *size), node.i64("fill_value", *offset),
                        node.dtype("dtype", b.getI64Type())});
  for (int64_t d = 0; d < rank; ++d) {
    SmallVector<int64_t> shape(rank, 1);
    shape[d] = (*size)[d];
    Value along = view(node, arange(node, (*size)[d], b.getI64Type()), shape);
    Value scaled = make(node, MulOp::getOperationName(), {along, i64Scalar(node, (*stride)[d])},
                        along.getType());
    offsets = make(node, AddOp::getOperationName(), {offsets, scaled}, offsets.getType());
  }
  Value flat = view(node, *self, {elements});
  return node.emitAs(IndexOp::getOperationName(), {flat, offsets},
                     {node.i64s("indexed_dims", {0})});
}

// The two source rows (or columns) of each output one of a linear
// interpolation and their weights, as PyTorch's
// area_pixel_compute_source_index computes them in f32: with align_corners
// the ends meet (source = scale * d), else pixel centers (source = scale *
// (d + 0.5) - 0.5, clamped at 0); a given scale factor is used as given.
// low = min(floor(source), in - 1), high = min(low + 1, in - 1), and the
// high weight is source - low clamped to [0, 1]. `shape` is the weights'
// shape ([out] or [out, 1]).
struct LinearTaps {
  Value low, high, lowWeight, highWeight;
};
LinearTaps linearTaps(Node &node, int64_t in, int64_t out, bool alignCorners,
                      std::optional<double> scaleFactor, ArrayRef<int64_t> shape,
                      Type compute) {
  double scale;
  if (alignCorners)
    scale = out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  else if (scaleFactor && *scaleFactor > 0)
    scale = 1.0 / *scaleFactor;
  else
    scale = static_cast<double>(in) / static_cast<double>(out);
  OpBuilder &b = node.builder();
  Type f32 = b.getF32Type(), i64 = b.getI64Type();
  auto f32s = RankedTensorType::get({out}, f32);
  auto i64s = RankedTensorType::get({out}, i64);
  Value d = arange(node, out, f32);
  Value source;
  if (alignCorners) {
    source = make(node, MulOp::getOperationName(), {d, f64Scalar(node, scale)}, f32s);
  } else {
    Value center = make(node, AddOp::getOperationName(), {d, f64Scalar(node, 0.5)}, f32s);
    Value scaled = make(node, MulOp::getOperationName(), {center, f64Scalar(node, scale)}, f32s);
    Value shifted = make(node, SubOp::getOperationName(), {scaled, f64Scalar(node, 0.5)}, f32s);
    source = make(node, ClampOp::getOperationName(), {shifted}, f32s, {node.f64("min", 0.0)});
  }
  Value floored = make(node, FloorOp::getOperationName(), {source}, f32s);
  Value lowIndex = make(node, ToCopyOp::getOperationName(), {floored}, i64s,
                        {node.dtype("dtype", i64)});
  LinearTaps taps;
  taps.low = make(node, ClampOp::getOperationName(), {lowIndex}, i64s,
                  {node.f64("max", static_cast<double>(in - 1))});
  Value next = make(node, AddOp::getOperationName(), {taps.low, i64Scalar(node, 1)}, i64s);
  taps.high = make(node, ClampOp::getOperationName(), {next}, i64s,
                   {node.f64("max", static_cast<double>(in - 1))});
  Value lowFloat = make(node, ToCopyOp::getOperationName(), {taps.low}, f32s,
                        {node.dtype("dtype", f32)});
  Value fraction = make(node, SubOp::getOperationName(), {source, lowFloat}, f32s);
  Value high = make(node, ClampOp::getOperationName(), {fraction}, f32s,
                    {node.f64("min", 0.0), node.f64("max", 1.0)});
  Value low = make(node, SubOp::getOperationName(), {f64Scalar(node, 1.0), high}, f32s);
  auto weightType = RankedTensorType::get(shape, compute);
  auto shaped = [&](Value w) {
    if (compute != f32)
      w = make(node, ToCopyOp::getOperationName(), {w}, RankedTensorType::get({out}, compute),
               {node.dtype("dtype", compute)});
    return shape.size() == 1 ? w : view(node, w, weightType.getShape());
  };
  taps.lowWeight = shaped(low);
  taps.highWeight = shaped(high);
  return taps;
}

/// upsample_bilinear2d (.vec and .default) of [N, C, H, W] to [N, C, Ho,
/// Wo] with static H, W, Ho, Wo: along W, then along H, each step
/// index_select of the two taps, times their weights, added. Half types
/// are computed in f32 and rounded once, as PyTorch does.
LogicalResult convertUpsampleBilinear(Node &node) {
  FailureOr<Value> input = node.tensor(node.arg("input") ? "input" : "self");
  if (failed(input))
    return failure();
  auto type = cast<RankedTensorType>(input->getType());
  RankedTensorType resultType = resultTensorType(node);
  if (!resultType || type.getRank() != 4 || resultType.getRank() != 4 ||
      !isa<FloatType>(type.getElementType()) || type.isDynamicDim(2) ||
      type.isDynamicDim(3) || resultType.isDynamicDim(2) || resultType.isDynamicDim(3))
    return node.opaque();
  bool alignCorners = node.boolArg("align_corners").value_or(false);
  std::optional<double> scaleH, scaleW;
  if (auto scales = node.floatsArg("scale_factors"); scales && scales->size() == 2) {
    scaleH = (*scales)[0];
    scaleW = (*scales)[1];
  } else {
    scaleH = node.floatArg("scales_h");
    scaleW = node.floatArg("scales_w");
  }
  OpBuilder &b = node.builder();
  Type element = type.getElementType();
  Type compute = element.isF16() || element.isBF16() ? Type(b.getF32Type()) : element;
  Value x = *input;
  if (compute != element)
    x = make(node, ToCopyOp::getOperationName(), {x}, RankedTensorType::get(type.getShape(), compute),
             {node.dtype("dtype", compute)});
  // One axis: the taps gathered along `dim` and weighted (weights shaped to
  // broadcast along the dims after it).
  auto interpolate = [&](Value v, int64_t dim, int64_t in, int64_t out,
                         std::optional<double> scaleFactor) {
    auto vType = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape(vType.getShape());
    shape[dim] = out;
    auto gathered = RankedTensorType::get(shape, compute);
    SmallVector<int64_t> weightShape(4 - dim, 1);
    weightShape[0] = out;
    LinearTaps taps = linearTaps(node, in, out, alignCorners, scaleFactor, weightShape, compute);
    Value low = make(node, IndexSelectOp::getOperationName(), {v, taps.low}, gathered,
                     {node.i64("dim", dim)});
    Value high = make(node, IndexSelectOp::getOperationName(), {v, taps.high}, gathered,
                      {node.i64("dim", dim)});
    Value lowTerm = make(node, MulOp::getOperationName(), {low, taps.lowWeight}, gathered);
    Value highTerm = make(node, MulOp::getOperationName(), {high, taps.highWeight}, gathered);
    return std::make_pair(lowTerm, highTerm);
  };
  int64_t height = type.getDimSize(2), width = type.getDimSize(3);
  int64_t outHeight = resultType.getDimSize(2), outWidth = resultType.getDimSize(3);
  auto [left, right] = interpolate(x, 3, width, outWidth, scaleW);
  Value columns = make(node, AddOp::getOperationName(), {left, right}, left.getType());
  auto [top, bottom] = interpolate(columns, 2, height, outHeight, scaleH);
  if (compute == element)
    return node.emitAs(AddOp::getOperationName(), {top, bottom});
  Value sum = make(node, AddOp::getOperationName(), {top, bottom}, top.getType());
  return node.emitAs(ToCopyOp::getOperationName(), {sum}, {node.dtype("dtype", element)});
}

/// grid_sampler_2d(input [N, C, H, W], grid [N, Ho, Wo, 2],
/// interpolation_mode, padding_mode, align_corners) for bilinear (0) and
/// nearest (1) sampling with zeros (0) or border (1) padding, static
/// shapes, as PyTorch computes it: grid x and y unnormalized to pixel
/// coordinates ((g + 1) / 2 * (size - 1) with align_corners, else ((g + 1)
/// * size - 1) / 2; clamped to [0, size - 1] for border), then the corners
/// (bilinear: floor and floor + 1, weighted by the distances; nearest: the
/// coordinates rounded half to even) gathered with magi.index and counted
/// only inside the input. Half types in f32, rounded once. Reflection
/// padding and bicubic sampling stay opaque.
LogicalResult convertGridSampler(Node &node) {
  FailureOr<Value> input = node.tensor("input"), grid = node.tensor("grid");
  if (failed(input) || failed(grid))
    return failure();
  auto type = cast<RankedTensorType>(input->getType());
  auto gridType = cast<RankedTensorType>(grid->getType());
  RankedTensorType resultType = resultTensorType(node);
  std::optional<int64_t> mode = node.intArg("interpolation_mode"),
                         padding = node.intArg("padding_mode");
  if (!resultType || !mode || !padding || *mode > 1 || *padding > 1 || type.getRank() != 4 ||
      gridType.getRank() != 4 || !type.hasStaticShape() || !gridType.hasStaticShape() ||
      gridType.getDimSize(3) != 2 || gridType.getDimSize(0) != type.getDimSize(0) ||
      !isa<FloatType>(type.getElementType()) ||
      gridType.getElementType() != type.getElementType())
    return node.opaque();
  bool alignCorners = node.boolArg("align_corners").value_or(false);
  OpBuilder &b = node.builder();
  Type element = type.getElementType(), i64 = b.getI64Type(), i1 = b.getI1Type();
  Type compute = element.isF16() || element.isBF16() ? Type(b.getF32Type()) : element;
  int64_t n = type.getDimSize(0), channels = type.getDimSize(1);
  int64_t height = type.getDimSize(2), width = type.getDimSize(3);
  int64_t outHeight = gridType.getDimSize(1), outWidth = gridType.getDimSize(2);
  auto widen = [&](Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    if (compute == element)
      return v;
    return make(node, ToCopyOp::getOperationName(), {v}, RankedTensorType::get(t.getShape(), compute),
                {node.dtype("dtype", compute)});
  };
  Value x = widen(*input), g = widen(*grid);
  auto points = RankedTensorType::get({n, outHeight, outWidth}, compute);
  auto indices = RankedTensorType::get({n, outHeight, outWidth}, i64);
  auto flags = RankedTensorType::get({n, outHeight, outWidth}, i1);
  auto binary = [&](StringRef name, Value l, Value r, Type t) {
    return make(node, name, {l, r}, t);
  };
  // One pixel coordinate from grid component `c` over `size` pixels.
  auto coordinate = [&](int64_t c, int64_t size) {
    Value v = make(node, SelectOp::getOperationName(), {g}, points,
                   {node.i64("dim", 3), node.i64s("static_index", {c})});
    Value shifted = binary(AddOp::getOperationName(), v, f64Scalar(node, 1.0), points);
    Value source;
    if (alignCorners) {
      Value half = binary(MulOp::getOperationName(), shifted, f64Scalar(node, 0.5), points);
      source = binary(MulOp::getOperationName(), half, f64Scalar(node, double(size - 1)), points);
    } else {
      Value scaled = binary(MulOp::getOperationName(), shifted, f64Scalar(node, double(size)), points);
      Value less = binary(SubOp::getOperationName(), scaled, f64Scalar(node, 1.0), points);
      source = binary(MulOp::getOperationName(), less, f64Scalar(node, 0.5), points);
    }
    if (*padding == 1)
      source = make(node, ClampOp::getOperationName(), {source}, points,
                    {node.f64("min", 0.0), node.f64("max", double(size - 1))});
    return source;
  };
  Value ix = coordinate(0, width), iy = coordinate(1, height);
  Value batch = view(node, arange(node, n, i64), {n, 1, 1});
  // The input at (yc, xc) (float pixel coordinates, integral), times
  // `weight` where the pixel is inside the input and 0 elsewhere: [N, Ho,
  // Wo, C].
  auto corner = [&](Value xc, Value yc, Value weight) {
    auto inside = [&](Value v, int64_t size) {
      Value low = binary(GeOp::getOperationName(), v, f64Scalar(node, 0.0), flags);
      Value high = binary(LtOp::getOperationName(), v, f64Scalar(node, double(size)), flags);
      return binary(LogicalAndOp::getOperationName(), low, high, flags);
    };
    auto index = [&](Value v, int64_t size) {
      Value i = make(node, ToCopyOp::getOperationName(), {v}, indices, {node.dtype("dtype", i64)});
      return make(node, ClampOp::getOperationName(), {i}, indices,
                  {node.f64("min", 0.0), node.f64("max", double(size - 1))});
    };
    Value valid = binary(LogicalAndOp::getOperationName(), inside(xc, width), inside(yc, height),
                         flags);
    Value counted = make(node, ToCopyOp::getOperationName(), {valid}, points,
                         {node.dtype("dtype", compute)});
    Value w = weight ? binary(MulOp::getOperationName(), weight, counted, points) : counted;
    auto gatheredType = RankedTensorType::get({n, outHeight, outWidth, channels}, compute);
    Value gathered = make(node, IndexOp::getOperationName(),
                          {x, batch, index(yc, height), index(xc, width)}, gatheredType,
                          {node.i64s("indexed_dims", {0, 2, 3})});
    Value wide = make(node, UnsqueezeOp::getOperationName(), {w},
                      RankedTensorType::get({n, outHeight, outWidth, 1}, compute),
                      {node.i64("dim", 3)});
    return binary(MulOp::getOperationName(), gathered, wide, gatheredType);
  };
  Value sum;
  if (*mode == 1) {
    Value xr = make(node, RoundOp::getOperationName(), {ix}, points);
    Value yr = make(node, RoundOp::getOperationName(), {iy}, points);
    sum = corner(xr, yr, Value());
  } else {
    Value x0 = make(node, FloorOp::getOperationName(), {ix}, points);
    Value y0 = make(node, FloorOp::getOperationName(), {iy}, points);
    Value x1 = binary(AddOp::getOperationName(), x0, f64Scalar(node, 1.0), points);
    Value y1 = binary(AddOp::getOperationName(), y0, f64Scalar(node, 1.0), points);
    Value east = binary(SubOp::getOperationName(), ix, x0, points);  // ix - x0
    Value west = binary(SubOp::getOperationName(), x1, ix, points);  // x1 - ix
    Value south = binary(SubOp::getOperationName(), iy, y0, points); // iy - y0
    Value north = binary(SubOp::getOperationName(), y1, iy, points); // y1 - iy
    auto weight = [&](Value a, Value c) { return binary(MulOp::getOperationName(), a, c, points); };
    // PyTorch's order: nw + ne + sw + se.
    Value nw = corner(x0, y0, weight(west, north));
    Value ne = corner(x1, y0, weight(east, north));
    Value sw = corner(x0, y1, weight(west, south));
    Value se = corner(x1, y1, weight(east, south));
    Type t = nw.getType();
    sum = binary(AddOp::getOperationName(),
                 binary(AddOp::getOperationName(), binary(AddOp::getOperationName(), nw, ne, t),
                        sw, t),
                 se, t);
  }
  SmallVector<int64_t> order = {0, 3, 1, 2};
  if (compute == element)
    return node.emitAs(PermuteOp::getOperationName(), {sum}, {node.i64s("dims", order)});
  Value permuted = make(node, PermuteOp::getOperationName(), {sum},
                        RankedTensorType::get({n, channels, outHeight, outWidth}, compute),
                        {node.i64s("dims", order)});
  return node.emitAs(ToCopyOp::getOperationName(), {permuted}, {node.dtype("dtype", element)});
}

} // namespace

/// `x` gathered along each (dim, index table) in turn with index_select,
/// the last gather emitted as the node's result.
LogicalResult emitGathers(Node &node, Value x,
                          ArrayRef<std::pair<int64_t, Value>> tables) {
  for (auto [i, table] : llvm::enumerate(tables)) {
    auto [dim, index] = table;
    SmallVector<int64_t> shape(cast<RankedTensorType>(x.getType()).getShape());
    shape[dim] = cast<RankedTensorType>(index.getType()).getDimSize(0);
    if (i + 1 == tables.size())
      return node.emitAs(IndexSelectOp::getOperationName(), {x, index},
                         {node.i64("dim", dim)});
    x = make(node, IndexSelectOp::getOperationName(), {x, index},
             withShape(cast<RankedTensorType>(x.getType()), shape), {node.i64("dim", dim)});
  }
  return node.emitAs(IndexSelectOp::getOperationName(), {x}, {}); // unreachable
}

enum class PadMode { Reflect, Replicate };

/// reflection_padNd and replication_padNd(self, padding): each of the last N
/// dims (static) read at a table of source positions, `padding` giving the
/// (before, after) pair of the last dim first. For j = i - before:
/// reflection reads (W - 1) - |(W - 1) - |j|| (no edge repeated; each pad
/// must be below W), replication clamp(j, 0, W - 1).
LogicalResult convertPad(Node &node, PadMode mode, int64_t padded) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  auto type = cast<RankedTensorType>(self->getType());
  std::optional<SmallVector<int64_t>> padding = node.intsArg("padding");
  if (!padding || static_cast<int64_t>(padding->size()) != 2 * padded ||
      type.getRank() < padded + 1)
    return node.opaque();
  StringRef name = mode == PadMode::Reflect ? "reflection" : "replication";
  OpBuilder &b = node.builder();
  auto i64 = b.getI64Type();
  SmallVector<std::pair<int64_t, Value>> tables;
  for (int64_t k = 0; k < padded; ++k) {
    int64_t dim = type.getRank() - 1 - k;
    int64_t before = (*padding)[2 * k], after = (*padding)[2 * k + 1];
    if (type.isDynamicDim(dim))
      return node.opaque();
    int64_t size = type.getDimSize(dim);
    if (before < 0 || after < 0 || size == 0)
      return node.error() << name << " padding needs pads >= 0 and a nonempty dim, got ("
                          << before << ", " << after << ") for size " << size;
    if (mode == PadMode::Reflect && (before >= size || after >= size))
      return node.error() << "reflection padding (" << before << ", " << after
                          << ") must be below the size " << size << " of dim " << dim;
    int64_t out = size + before + after;
    auto table = RankedTensorType::get({out}, i64);
    Value j = make(node, SubOp::getOperationName(),
                   {arange(node, out, i64), i64Scalar(node, before)}, table);
    Value index;
    if (mode == PadMode::Replicate) {
      index = make(node, ClampOp::getOperationName(), {j}, table,
                   {node.f64("min", 0.0), node.f64("max", double(size - 1))});
    } else {
      Value distance = make(node, AbsOp::getOperationName(), {j}, table);
      Value fromEnd = make(node, SubOp::getOperationName(),
                           {distance, i64Scalar(node, size - 1)}, table);
      Value overshoot = make(node, AbsOp::getOperationName(), {fromEnd}, table);
      Value negated = make(node, SubOp::getOperationName(),
                           {overshoot, i64Scalar(node, size - 1)}, table);
      index = make(node, MulOp::getOperationName(), {negated, i64Scalar(node, -1)}, table);
    }
    tables.push_back({dim, index});
  }
  return emitGathers(node, *self, tables);
}

/// upsample_nearestNd (.vec and .default): each spatial dim (static) read
/// at min(floor(i * scale), in - 1), scale = 1 / scale_factor when one is
/// given and in / out otherwise, in f32 as PyTorch computes it.
LogicalResult convertUpsampleNearest(Node &node, int64_t spatial) {
  FailureOr<Value> input = node.tensor(node.arg("input") ? "input" : "self");
  if (failed(input))
    return failure();
  auto type = cast<RankedTensorType>(input->getType());
  RankedTensorType resultType = resultTensorType(node);
  if (!resultType || type.getRank() != spatial + 2 || resultType.getRank() != spatial + 2)
    return node.opaque();
  SmallVector<std::optional<double>> scales(spatial);
  if (auto given = node.floatsArg("scale_factors")) {
    if (static_cast<int64_t>(given->size()) != spatial)
      return node.opaque();
    for (int64_t d = 0; d < spatial; ++d)
      scales[d] = (*given)[d];
  } else {
    static constexpr const char *names[3][3] = {
        {"scales", "", ""}, {"scales_h", "scales_w", ""}, {"scales_d", "scales_h", "scales_w"}};
    for (int64_t d = 0; d < spatial; ++d)
      scales[d] = node.floatArg(names[spatial - 1][d]);
  }
  OpBuilder &b = node.builder();
  Type f32 = b.getF32Type(), i64 = b.getI64Type();
  SmallVector<std::pair<int64_t, Value>> tables;
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t dim = 2 + d;
    if (type.isDynamicDim(dim) || resultType.isDynamicDim(dim))
      return node.opaque();
    int64_t in = type.getDimSize(dim), out = resultType.getDimSize(dim);
    if (in == 0 || out == 0)
      return node.opaque();
    float scale = scales[d] && *scales[d] > 0
                      ? static_cast<float>(1.0 / *scales[d])
                      : static_cast<float>(in) / static_cast<float>(out);
    Value position = make(node, MulOp::getOperationName(),
                          {arange(node, out, f32), f64Scalar(node, scale)},
                          RankedTensorType::get({out}, f32));
    Value floored = make(node, FloorOp::getOperationName(), {position}, position.getType());
    auto table = RankedTensorType::get({out}, i64);
    Value index = make(node, ToCopyOp::getOperationName(), {floored}, table,
                       {node.dtype("dtype", i64)});
    index = make(node, ClampOp::getOperationName(), {index}, table,
                 {node.f64("max", double(in - 1))});
    tables.push_back({dim, index});
  }
  return emitGathers(node, *input, tables);
}

/// col2im(self [N, C * kh * kw, L], output_size, kernel_size, dilation,
/// padding, stride) (static, also unbatched): every column entry added into
/// the output pixel it came from, fold's definition. The entries of channel
/// c, tap (ki, kj) and block (bh, bw) go to row bh * sh + ki * dh and column
/// bw * sw + kj * dw of the padded image: one table of flat positions (from
/// magi.arange), an accumulating index_put into zeros [N, C, Hp * Wp], and
/// the padding sliced off. f16 and bf16 add up in f32, rounded once (PyTorch
/// sums each pixel in f32).
LogicalResult convertCol2im(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  auto type = cast<RankedTensorType>(self->getType());
  std::optional<SmallVector<int64_t>> outSize = node.intsArg("output_size"),
                                      kernel = node.intsArg("kernel_size"),
                                      dilation = node.intsArg("dilation"),
                                      padding = node.intsArg("padding"),
                                      stride = node.intsArg("stride");
  RankedTensorType resultType = resultTensorType(node);
  bool batched = type.getRank() == 3;
  if (!resultType || !type.hasStaticShape() || (type.getRank() != 2 && !batched) ||
      !outSize || !kernel || !dilation || !padding || !stride || outSize->size() != 2 ||
      kernel->size() != 2 || dilation->size() != 2 || padding->size() != 2 ||
      stride->size() != 2)
    return node.opaque();
  int64_t n = batched ? type.getDimSize(0) : 1;
  int64_t rows = type.getDimSize(batched ? 1 : 0), blocks = type.getDimSize(batched ? 2 : 1);
  auto [height, width] = std::pair((*outSize)[0], (*outSize)[1]);
  auto [kh, kw] = std::pair((*kernel)[0], (*kernel)[1]);
  auto [dh, dw] = std::pair((*dilation)[0], (*dilation)[1]);
  auto [ph, pw] = std::pair((*padding)[0], (*padding)[1]);
  auto [sh, sw] = std::pair((*stride)[0], (*stride)[1]);
  if (kh <= 0 || kw <= 0 || dh <= 0 || dw <= 0 || sh <= 0 || sw <= 0 || ph < 0 || pw < 0 ||
      height <= 0 || width <= 0)
    return node.error() << "col2im needs positive kernel, dilation, stride and output "
                           "sizes and pads >= 0";
  int64_t paddedH = height + 2 * ph, paddedW = width + 2 * pw;
  int64_t blocksH = (paddedH - dh * (kh - 1) - 1) / sh + 1;
  int64_t blocksW = (paddedW - dw * (kw - 1) - 1) / sw + 1;
  if (blocksH <= 0 || blocksW <= 0 || rows % (kh * kw) != 0 || blocks != blocksH * blocksW)
    return node.error() << "col2im of " << rows << " x " << blocks
                        << " columns does not fit the kernel " << kh << " x " << kw
                        << " and " << blocksH << " x " << blocksW << " blocks";
  int64_t channels = rows / (kh * kw);
  OpBuilder &b = node.builder();
  Type element = type.getElementType(), i64 = b.getI64Type();
  Type compute = element.isF16() || element.isBF16() ? Type(b.getF32Type()) : element;
  int64_t entries = kh * kw * blocks;
  Value x = view(node, *self, {n, channels, entries});
  if (compute != element)
    x = make(node, ToCopyOp::getOperationName(), {x},
             RankedTensorType::get({n, channels, entries}, compute),
             {node.dtype("dtype", compute)});
  // Flat padded positions, [kh, kw, blocksH, blocksW] in the columns' order.
  auto along = [&](int64_t count, int64_t step, int64_t axis) {
    SmallVector<int64_t> shape(4, 1);
    shape[axis] = count;
    auto t = RankedTensorType::get({count}, i64);
    Value scaled = make(node, MulOp::getOperationName(),
                        {arange(node, count, i64), i64Scalar(node, step)}, t);
    return view(node, scaled, shape);
  };
  auto i64s = [&](ArrayRef<int64_t> shape) { return RankedTensorType::get(shape, i64); };
  Value rowOf = make(node, AddOp::getOperationName(),
                     {along(kh, dh * paddedW, 0), along(blocksH, sh * paddedW, 2)},
                     i64s({kh, 1, blocksH, 1}));
  Value colOf = make(node, AddOp::getOperationName(),
                     {along(kw, dw, 1), along(blocksW, sw, 3)}, i64s({1, kw, 1, blocksW}));
  Value position = make(node, AddOp::getOperationName(), {rowOf, colOf},
                        i64s({kh, kw, blocksH, blocksW}));
  Value flat = view(node, position, {entries});
  auto imageType = RankedTensorType::get({n, channels, paddedH * paddedW}, compute);
  Value zeros = make(node, FullOp::getOperationName(), {}, imageType,
                     {node.i64s("static_sizes", imageType.getShape()),
                      node.f64("fill_value", 0.0), node.dtype("dtype", compute)});
  Value sums = make(node, IndexPutOp::getOperationName(), {zeros, flat, x}, imageType,
                    {node.i64s("indexed_dims", {2}), node.boolean("accumulate", true)});
  Value image = view(node, sums, {n, channels, paddedH, paddedW});
  auto sliced = [&](Value v, int64_t dim, int64_t start, int64_t size) {
    SmallVector<int64_t> shape(cast<RankedTensorType>(v.getType()).getShape());
    shape[dim] = size;
    return make(node, SliceOp::getOperationName(), {v},
                RankedTensorType::get(shape, compute),
                {node.i64("dim", dim), node.i64s("static_bounds", {start, start + size, 1})});
  };
  if (ph > 0)
    image = sliced(image, 2, ph, height);
  if (pw > 0)
    image = sliced(image, 3, pw, width);
  if (compute != element)
    image = make(node, ToCopyOp::getOperationName(), {image},
                 RankedTensorType::get({n, channels, height, width}, element),
                 {node.dtype("dtype", element)});
  if (batched)
    return node.emitAs(ViewOp::getOperationName(), {image},
                       {node.i64s("static_sizes", {n, channels, height, width})});
  return node.emitAs(ViewOp::getOperationName(), {image},
                     {node.i64s("static_sizes", {channels, height, width})});
}

/// histc(self, bins, min, max): the counts of self's elements in `bins`
/// equal bins over [min, max], as PyTorch's CUDA kernel bins them: element
/// x goes to bin trunc((x - min) * bins / (max - min)), the last bin taking
/// x == max; elements outside [min, max] (and NaN) count nowhere (their
/// position is not converted to an integer: it may not fit one). min ==
/// max takes the data's minimum and maximum, widened by one on each side
/// if those are equal too. Counted with scatter add (the MoE routing's
/// tokens per expert). The counts' dtype is self's; f16 and bf16 count in
/// f32 and round once. Integer self (expert ids, as transformers' grouped
/// experts count them) bins in int64 with integer division, as the CUDA
/// kernel's accumulate type does.
LogicalResult convertHistc(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  auto type = cast<RankedTensorType>(self->getType());
  RankedTensorType result = resultTensorType(node);
  int64_t bins = node.intArg("bins").value_or(100);
  std::optional<double> lo = node.arg("min") ? node.floatArg("min") : 0.0;
  std::optional<double> hi = node.arg("max") ? node.floatArg("max") : 0.0;
  Type dtype = type.getElementType();
  bool integer = dtype.isSignlessInteger() && !dtype.isInteger(1);
  if (!type.hasStaticShape() || !(isa<FloatType>(dtype) || integer) || !result ||
      result.getElementType() != type.getElementType() || !lo || !hi)
    return node.opaque();
  if (bins <= 0)
    return node.error() << "histc needs bins > 0, got " << bins;
  if (*lo > *hi)
    return node.error() << "histc needs min <= max, got " << *lo << " > " << *hi;
  OpBuilder &b = node.builder();
  // PyTorch's accumulate type: int64 for integers, double for f64, float
  // otherwise.
  Type acc = integer ? b.getI64Type() : dtype.isF64() ? dtype : b.getF32Type();
  auto scalar = [&](double v) {
    return integer ? i64Scalar(node, int64_t(v)) : f64Scalar(node, v);
  };
  auto fill = [&](double v) {
    return integer ? node.i64("fill_value", int64_t(v)) : node.f64("fill_value", v);
  };
  int64_t n = type.getNumElements();
  auto flatAcc = RankedTensorType::get({n}, acc);
  Value x = view(node, *self, {n});
  if (acc != dtype)
    x = make(node, ToCopyOp::getOperationName(), {x}, flatAcc, {node.dtype("dtype", acc)});
  auto scalarAcc = RankedTensorType::get({}, acc);
  Value low, high;
  if (*lo == *hi) {
    // The data's range, widened where it is one value.
    Value least = make(node, AminOp::getOperationName(), {x}, scalarAcc);
    Value most = make(node, AmaxOp::getOperationName(), {x}, scalarAcc);
    if (n == 0) {
      least = make(node, FullOp::getOperationName(), {}, scalarAcc,
                   {node.i64s("static_sizes", {}), fill(*lo),
                    node.dtype("dtype", acc)});
      most = least;
    }
    auto boolScalar = RankedTensorType::get({}, b.getI1Type());
    Value same = make(node, EqOp::getOperationName(), {least, most}, boolScalar);
    low = make(node, WhereOp::getOperationName(),
               {same, make(node, SubOp::getOperationName(), {least, scalar(1.0)},
                           scalarAcc),
                least},
               scalarAcc);
    high = make(node, WhereOp::getOperationName(),
                {same, make(node, AddOp::getOperationName(), {most, scalar(1.0)},
                            scalarAcc),
                 most},
                scalarAcc);
  } else {
    low = scalar(*lo);
    high = scalar(*hi);
  }
  auto flatBool = RankedTensorType::get({n}, b.getI1Type());
  auto flatI64 = RankedTensorType::get({n}, b.getI64Type());
  Value above = make(node, GeOp::getOperationName(), {x, low}, flatBool);
  Value below = make(node, LeOp::getOperationName(), {x, high}, flatBool);
  Value inside = make(node, LogicalAndOp::getOperationName(), {above, below}, flatBool);
  Value weight = make(node, WhereOp::getOperationName(),
                      {inside, scalar(1.0), scalar(0.0)}, flatAcc);
  // trunc((x - low) * bins / (high - low)), in that order (the CUDA kernel's).
  Value shifted = make(node, SubOp::getOperationName(), {x, low}, flatAcc);
  Value scaled = make(node, MulOp::getOperationName(), {shifted, scalar(double(bins))},
                      flatAcc);
  Value width = *lo == *hi ? make(node, SubOp::getOperationName(), {high, low}, scalarAcc)
                           : scalar(*hi - *lo);
  SmallVector<NamedAttribute> division;
  if (integer)
    division.push_back(node.named("rounding_mode", b.getStringAttr("trunc")));
  Value ratio = make(node, DivOp::getOperationName(), {scaled, width}, flatAcc, division);
  // Only positions inside the range convert to an integer: NaN or a value
  // far out of range would not fit one (a poison index on the GPU).
  Value position = make(node, WhereOp::getOperationName(),
                        {inside, ratio, scalar(0.0)}, flatAcc);
  Value bin = make(node, ToCopyOp::getOperationName(), {position}, flatI64,
                   {node.dtype("dtype", b.getI64Type())});
  // x == max lands on `bins`: the last bin takes it.
  bin = make(node, ClampOp::getOperationName(), {bin}, flatI64,
             {node.f64("min", 0.0), node.f64("max", double(bins - 1))});
  auto countsAcc = RankedTensorType::get({bins}, acc);
  Value zeros = make(node, FullOp::getOperationName(), {}, countsAcc,
                     {node.i64s("static_sizes", {bins}), fill(0.0),
                      node.dtype("dtype", acc)});
  SmallVector<NamedAttribute> scatterAttrs{
      node.i64("dim", 0), node.named("reduce", b.getStringAttr("add"))};
  if (acc == dtype)
    return node.emitAs(ScatterOp::getOperationName(), {zeros, bin, weight}, scatterAttrs);
  Value counts = make(node, ScatterOp::getOperationName(), {zeros, bin, weight}, countsAcc,
                      scatterAttrs);
  return node.emitAs(ToCopyOp::getOperationName(), {counts}, {node.dtype("dtype", dtype)});
}

/// index_add(self, dim, index, source, alpha): source * alpha added into
/// self at `index` along `dim`, an accumulating index_put (the MoE
/// experts' outputs summed back into their tokens).
LogicalResult convertIndexAdd(Node &node) {
  FailureOr<Value> self = node.tensor("self"), index = node.tensor("index"),
                   source = node.tensor("source");
  if (failed(self) || failed(index) || failed(source))
    return failure();
  auto selfType = cast<RankedTensorType>(self->getType());
  int64_t dim = node.intArg("dim").value_or(0);
  if (dim < 0)
    dim += selfType.getRank();
  if (dim < 0 || dim >= std::max<int64_t>(selfType.getRank(), 1))
    return node.error() << "index_add dim " << node.intArg("dim").value_or(0)
                        << " is out of range for rank " << selfType.getRank();
  Value values = *source;
  if (const Json *alphaArg = node.arg("alpha")) {
    FailureOr<Value> alpha = node.scalarValue(alphaArg, "alpha");
    if (failed(alpha))
      return failure();
    std::optional<double> constant = getConstantScalar(*alpha);
    if (!constant || *constant != 1.0)
      values = make(node, MulOp::getOperationName(), {values, *alpha}, values.getType());
  }
  return node.emitAs(IndexPutOp::getOperationName(), {*self, *index, values},
                     {node.i64s("indexed_dims", {dim}), node.boolean("accumulate", true)});
}

/// max_pool{2,3}d_with_indices_backward(grad_output, self, kernel_size,
/// stride, padding, dilation, ceil_mode, indices): each output's gradient
/// added at the input position its window's maximum came from. `indices`
/// holds that position flattened over the spatial dimensions of its plane
/// (one per batch and channel), so this is a scatter-add along the
/// flattened plane into zeros, accumulated in f32 for f16 and bf16 as
/// PyTorch's kernels do; the window's arguments are already in the indices.
LogicalResult convertMaxPoolBackward(Node &node, int64_t spatial) {
  FailureOr<Value> grad = node.tensor("grad_output"), self = node.tensor("self"),
                   indices = node.tensor("indices");
  if (failed(grad) || failed(self) || failed(indices))
    return failure();
  auto gradType = cast<RankedTensorType>(grad->getType());
  auto selfType = cast<RankedTensorType>(self->getType());
  auto indexType = cast<RankedTensorType>(indices->getType());
  RankedTensorType result = resultTensorType(node);
  Type element = selfType.getElementType();
  int64_t rank = selfType.getRank();
  if (!result || !gradType.hasStaticShape() || !selfType.hasStaticShape() ||
      !isa<FloatType>(element) || gradType.getElementType() != element ||
      result.getElementType() != element || indexType.getShape() != gradType.getShape() ||
      !indexType.getElementType().isSignlessInteger(64) || gradType.getRank() != rank ||
      rank <= spatial)
    return node.opaque();
  int64_t planes = 1, inPlane = 1, outPlane = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < rank - spatial) {
      if (gradType.getDimSize(d) != selfType.getDimSize(d))
        return node.error() << "max-pool backward: grad_output's dimension " << d << " is "
                            << gradType.getDimSize(d) << ", the input's "
                            << selfType.getDimSize(d);
      planes *= selfType.getDimSize(d);
    } else {
      inPlane *= selfType.getDimSize(d);
      outPlane *= gradType.getDimSize(d);
    }
  }
  OpBuilder &b = node.builder();
  Type compute = element.isF16() || element.isBF16() ? Type(b.getF32Type()) : element;
  auto computeType = [&](ArrayRef<int64_t> shape) { return RankedTensorType::get(shape, compute); };
  Value gradients = view(node, *grad, {planes, outPlane});
  if (compute != element)
    gradients = make(node, ToCopyOp::getOperationName(), {gradients},
                     computeType({planes, outPlane}), {node.dtype("dtype", compute)});
  Value positions = view(node, *indices, {planes, outPlane});
  Value zeros = make(node, FullOp::getOperationName(), {}, computeType({planes, inPlane}),
                     {node.i64s("static_sizes", {planes, inPlane}), node.f64("fill_value", 0.0),
                      node.dtype("dtype", compute)});
  Value sums = make(node, ScatterOp::getOperationName(), {zeros, positions, gradients},
                    computeType({planes, inPlane}),
                    {node.i64("dim", 1), node.named("reduce", b.getStringAttr("add"))});
  if (compute != element)
    sums = make(node, ToCopyOp::getOperationName(), {sums},
                RankedTensorType::get({planes, inPlane}, element), {node.dtype("dtype", element)});
  return node.emitAs(ViewOp::getOperationName(), {sums},
                     {node.i64s("static_sizes", selfType.getShape())});
}

Value f64Scalar(Node &node, double v) {
  OpBuilder &b = node.builder();
  return arith::ConstantOp::create(b, node.loc, b.getF64FloatAttr(v));
}

Value filledLike(Node &node, Value self, RankedTensorType type, double fill) {
  return makeOp(node, FullLikeOp::getOperationName(), {self}, type,
                {node.f64("fill_value", fill), node.dtype("dtype", type.getElementType())});
}

Value makeOp(Node &node, StringRef name, ValueRange operands, Type type,
             ArrayRef<NamedAttribute> attrs) {
  OperationState state(node.loc, name);
  state.addOperands(operands);
  state.addAttributes(attrs);
  state.addTypes(type);
  return node.builder().create(state)->getResult(0);
}

LogicalResult emitAdaptiveAvgPoolByWeights(Node &node, Value self,
                                           ArrayRef<int64_t> outSize) {
  auto type = cast<RankedTensorType>(self.getType());
  RankedTensorType resultType = resultTensorType(node);
  int64_t rank = type.getRank(), spatial = static_cast<int64_t>(outSize.size());
  if (!resultType || !type.hasStaticShape() || !isa<FloatType>(type.getElementType()) ||
      resultType.getElementType() != type.getElementType())
    return node.opaque();
  OpBuilder &b = node.builder();
  Type element = type.getElementType(), i64 = b.getI64Type(), i1 = b.getI1Type();
  Type compute = element.isF16() || element.isBF16() ? Type(b.getF32Type()) : element;
  Value x = self;
  if (compute != element)
    x = make(node, ToCopyOp::getOperationName(), {x}, RankedTensorType::get(type.getShape(), compute),
             {node.dtype("dtype", compute)});
  for (int64_t k = 0; k < spatial; ++k) {
    int64_t dim = rank - spatial + k, in = type.getDimSize(dim), out = outSize[k];
    if (out < 1)
      return node.error() << "adaptive_avg_pool output size " << out << " is not positive";
    // Window i is [i * in // out, ceil((i + 1) * in / out)): weights[i, h]
    // is 1 / its length inside it, 0 outside.
    auto column = RankedTensorType::get({out, 1}, i64);
    Value i = view(node, arange(node, out, i64), {out, 1});
    Value h = view(node, arange(node, in, i64), {1, in});
    auto floorDiv = [&](Value v) {
      return make(node, DivOp::getOperationName(), {v, i64Scalar(node, out)}, column,
                  {node.named("rounding_mode", b.getStringAttr("floor"))});
    };
    Value start = floorDiv(make(node, MulOp::getOperationName(), {i, i64Scalar(node, in)}, column));
    Value next = make(node, AddOp::getOperationName(), {i, i64Scalar(node, 1)}, column);
    Value scaled = make(node, MulOp::getOperationName(), {next, i64Scalar(node, in)}, column);
    Value end = floorDiv(
        make(node, AddOp::getOperationName(), {scaled, i64Scalar(node, out - 1)}, column));
    auto flags = RankedTensorType::get({out, in}, i1);
    Value after = make(node, GeOp::getOperationName(), {h, start}, flags);
    Value before = make(node, LtOp::getOperationName(), {h, end}, flags);
    Value inside = make(node, LogicalAndOp::getOperationName(), {after, before}, flags);
    Value length = make(node, SubOp::getOperationName(), {end, start}, column);
    Value ones = make(node, ToCopyOp::getOperationName(), {inside},
                      RankedTensorType::get({out, in}, compute), {node.dtype("dtype", compute)});
    Value lengthF = make(node, ToCopyOp::getOperationName(), {length},
                         RankedTensorType::get({out, 1}, compute), {node.dtype("dtype", compute)});
    Value weights = make(node, DivOp::getOperationName(), {ones, lengthF},
                         RankedTensorType::get({out, in}, compute));
    // x [.., in, rest] -> [.., 1, in, rest] * weights [out, in, 1 ...]
    // -> summed over `in`: [.., out, rest].
    auto xType = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> expanded(xType.getShape());
    expanded.insert(expanded.begin() + dim, 1);
    Value wide = make(node, UnsqueezeOp::getOperationName(), {x},
                      RankedTensorType::get(expanded, compute), {node.i64("dim", dim)});
    SmallVector<int64_t> weightShape = {out, in};
    weightShape.append(rank - dim - 1, 1);
    Value shaped = view(node, weights, weightShape);
    SmallVector<int64_t> productShape(expanded);
    productShape[dim] = out;
    Value product = make(node, MulOp::getOperationName(), {wide, shaped},
                         RankedTensorType::get(productShape, compute));
    SmallVector<int64_t> pooled(xType.getShape());
    pooled[dim] = out;
    auto pooledType = RankedTensorType::get(pooled, compute);
    bool last = k + 1 == spatial;
    if (last && compute == element)
      return node.emitAs(SumOp::getOperationName(), {product}, {node.i64s("dims", {dim + 1})});
    x = make(node, SumOp::getOperationName(), {product}, pooledType,
             {node.i64s("dims", {dim + 1})});
  }
  return node.emitAs(ToCopyOp::getOperationName(), {x}, {node.dtype("dtype", element)});
}

void addComposedConverters(std::vector<ConverterRow> &rows) {
  rows.insert(rows.end(),
              {row<SumOp>("aten::_cdist_forward", convertCdist),
               row<SumOp>("aten::_pdist_forward", convertPdist),
               row<WhereOp>("aten::masked_scatter", convertMaskedScatter),
               row<IndexOp>("aten::as_strided", convertAsStrided),
               row<AddOp>("aten::upsample_bilinear2d", convertUpsampleBilinear),
               row<PermuteOp>("aten::grid_sampler_2d", convertGridSampler),
               row<ScatterOp>("aten::histc", convertHistc),
               row<IndexPutOp>("aten::col2im", convertCol2im),
               row<IndexSelectOp>("aten::reflection_pad1d",
                                  [](Node &n) { return convertPad(n, PadMode::Reflect, 1); }),
               row<IndexSelectOp>("aten::reflection_pad2d",
                                  [](Node &n) { return convertPad(n, PadMode::Reflect, 2); }),
               row<IndexSelectOp>("aten::reflection_pad3d",
                                  [](Node &n) { return convertPad(n, PadMode::Reflect, 3); }),
               row<IndexSelectOp>("aten::replication_pad1d",
                                  [](Node &n) { return convertPad(n, PadMode::Replicate, 1); }),
               row<IndexSelectOp>("aten::replication_pad2d",
                                  [](Node &n) { return convertPad(n, PadMode::Replicate, 2); }),
               row<IndexSelectOp>("aten::replication_pad3d",
                                  [](Node &n) { return convertPad(n, PadMode::Replicate, 3); }),
               row<IndexSelectOp>("aten::upsample_nearest1d",
                                  [](Node &n) { return convertUpsampleNearest(n, 1); }),
               row<IndexSelectOp>("aten::upsample_nearest2d",
                                  [](Node &n) { return convertUpsampleNearest(n, 2); }),
               row<IndexSelectOp>("aten::upsample_nearest3d",
                                  [](Node &n) { return convertUpsampleNearest(n, 3); }),
               row<IndexPutOp>("aten::index_add", convertIndexAdd),
               row<ScatterOp>("aten::max_pool2d_with_indices_backward",
                              [](Node &n) { return convertMaxPoolBackward(n, 2); }),
               row<ScatterOp>("aten::max_pool3d_with_indices_backward",
                              [](Node &n) { return convertMaxPoolBackward(n, 3); }),
               row<SliceOp>("aten::nonzero", convertNonzero),
               row<IndexOp>("aten::combinations", convertCombinations)});
}

} // namespace magi::torch_import
