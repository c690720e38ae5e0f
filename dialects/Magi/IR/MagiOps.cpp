//===- MagiOps.cpp - Ops of the magi dialect ------------------------------===//
//
// Verifiers, result-type inference and folders of the magi ops. Inference
// mirrors the shape and dtype rules of the ATen op each magi op stands for.
//
//===----------------------------------------------------------------------===//

#include "magi/Dialect/Magi/IR/AttentionLayout.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Dialect/Magi/IR/PoolingShape.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/CheckedArithmetic.h"
#include <limits>

using namespace mlir;
using namespace magi;

using OptLoc = std::optional<Location>;
using Shape = SmallVector<int64_t>;

static constexpr int64_t kDyn = ShapedType::kDynamic;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static RankedTensorType tensorTypeOf(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

static RankedTensorType makeTensor(ArrayRef<int64_t> shape, Type dtype) {
  return RankedTensorType::get(shape, dtype);
}

// Same rank, and equal sizes wherever both are static.
static bool shapesCompatible(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b))
    if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
      return false;
  return true;
}

// Sizes from a mixed static/dynamic list: dynamic entries become `?`.
static LogicalResult checkMixedList(ArrayRef<int64_t> statics,
                                    ValueRange dynamics, StringRef what,
                                    OptLoc loc) {
  int64_t numDynamic = llvm::count_if(
      statics, [](int64_t s) { return ShapedType::isDynamic(s); });
  if (numDynamic != static_cast<int64_t>(dynamics.size()))
    return emitOptionalError(loc, "expected ", numDynamic,
                             " dynamic values for ", what, ", got ",
                             dynamics.size());
  return success();
}

// A boolean attribute with a default of false; C++ builders may leave it
// null, so adaptors are read through this.
static bool isSet(BoolAttr attr) { return attr && attr.getValue(); }

static Type floatIfNotFloat(Type dtype) {
  if (getDtypeCategory(dtype) == DtypeCategory::Float)
    return dtype;
  return defaultFloatDtype(dtype.getContext());
}

// Normalizes and checks a list of reduction dimensions.
static FailureOr<SmallVector<bool>> reducedDims(DenseI64ArrayAttr dims,
                                                int64_t rank, OptLoc loc) {
  SmallVector<bool> reduced(rank, !dims || dims.empty());
  if (!dims)
    return reduced;
  for (int64_t d : dims.asArrayRef()) {
    FailureOr<int64_t> n = normalizeDim(d, rank, loc);
    if (failed(n))
      return failure();
    if (rank == 0)
      continue;
    if (reduced[*n] && !dims.empty())
      return emitOptionalError(loc, "dimension ", d,
                               " appears more than once in the reduction");
    reduced[*n] = true;
  }
  return reduced;
}

static Shape reduceShape(ArrayRef<int64_t> shape, ArrayRef<bool> reduced,
                         bool keepdim) {
  Shape out;
  for (auto [size, r] : llvm::zip(shape, reduced)) {
    if (!r)
      out.push_back(size);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Symbolic integers
//===----------------------------------------------------------------------===//

LogicalResult SymbolicIntOp::verify() {
  if (getName().empty())
    return emitOpError("symbol name must not be empty");
  auto max = getMaxVal();
  if (max && static_cast<int64_t>(*max) < static_cast<int64_t>(getMinVal()))
    return emitOpError("range is empty: min ")
           << static_cast<int64_t>(getMinVal()) << " > max "
           << static_cast<int64_t>(*max);
  return success();
}

// Prints the symbol's value as `%s70` rather than `%0`.
void SymbolicIntOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), getName());
}

LogicalResult BindSymbolicShapeOp::verify() {
  AffineMap map = getShapeExpressions();
  auto type = cast<RankedTensorType>(getOperand().getType());
  if (map.getNumDims() != 0)
    return emitOpError("shape expressions must use symbols only, found ")
           << map.getNumDims() << " dimension(s)";
  if (map.getNumSymbols() != getShapeSymbols().size())
    return emitOpError("shape expressions use ")
           << map.getNumSymbols() << " symbol(s) but "
           << getShapeSymbols().size() << " were bound";
  if (map.getNumResults() != type.getRank())
    return emitOpError("expected ")
           << type.getRank() << " shape expressions for a tensor of rank "
           << type.getRank() << ", got " << map.getNumResults();
  for (Value symbol : getShapeSymbols())
    if (Operation *def = symbol.getDefiningOp(); def && !isa<SymbolicIntOp>(def))
      return emitOpError("bound value is not a symbol: it is defined by '")
             << def->getName() << "', not 'magi.symbolic_int'";
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    int64_t size = type.getDimSize(i);
    auto constant = dyn_cast<AffineConstantExpr>(expr);
    // Printed for the error only: this runs after every pass, on every
    // binding of a 32-layer graph.
    auto text = [&] {
      std::string exprText;
      llvm::raw_string_ostream(exprText) << expr;
      return exprText;
    };
    if (!ShapedType::isDynamic(size) &&
        (!constant || constant.getValue() != size))
      return emitOpError("dimension ")
             << i << " has static size " << size << " but is bound to "
             << text();
    if (ShapedType::isDynamic(size) && constant)
      return emitOpError("dimension ")
             << i << " is dynamic but is bound to the constant " << text();
  }
  return success();
}

LogicalResult BindSymbolicShapeOp::canonicalize(BindSymbolicShapeOp op,
                                                PatternRewriter &rewriter) {
  Value tensor = op.getOperand();
  // A binding saying what an earlier one in the block says already goes
  // (CSE merges tensors, and with them their bindings).
  for (Operation *user : tensor.getUsers()) {
    auto other = dyn_cast<BindSymbolicShapeOp>(user);
    if (other && other != op && other->getBlock() == op->getBlock() &&
        other->isBeforeInBlock(op) &&
        other.getShapeSymbols() == op.getShapeSymbols() &&
        other.getShapeExpressions() == op.getShapeExpressions()) {
      rewriter.eraseOp(op);
      return success();
    }
  }
  if (isa<BlockArgument>(tensor) || !tensor.hasOneUse())
    return failure();
  // A tensor nothing uses needs no binding, unless the binding alone gives a
  // symbol something reads (a runtime assertion over a size of the data
  // whose tensor a piece gives out only for it).
  for (Value symbol : op.getShapeSymbols()) {
    bool read = false, boundElsewhere = false;
    for (Operation *user : symbol.getUsers()) {
      if (auto other = dyn_cast<BindSymbolicShapeOp>(user))
        boundElsewhere |= other != op;
      else
        read = true;
    }
    if (read && !boundElsewhere)
      return failure();
  }
  rewriter.eraseOp(op);
  return success();
}

LogicalResult ItemOp::verify() {
  auto type = cast<RankedTensorType>(getSelf().getType());
  if (type.hasStaticShape() && type.getNumElements() != 1)
    return emitOpError("needs a tensor of one element, got ")
           << type.getNumElements();
  Type element = type.getElementType();
  bool isFloat = isa<FloatType>(element);
  if (isFloat != isa<FloatType>(getResult().getType()))
    return emitOpError("gives an ")
           << (isFloat ? "f64 for a floating-point tensor"
                       : "index for an integer or bool tensor")
           << ", not " << getResult().getType();
  if (getBound() && isFloat)
    return emitOpError("bounds an integer element only");
  if (getClamped() && (!getBound() || element.isInteger(1)))
    return emitOpError("is clamped only with a bound, and for an integer (not bool) element");
  return success();
}

LogicalResult SymSizeOp::verify() {
  int64_t rank = cast<RankedTensorType>(getSelf().getType()).getRank();
  int64_t dim = static_cast<int64_t>(getDim());
  if (dim < 0 || dim >= rank)
    return emitOpError("dimension ")
           << dim << " is out of range for a tensor of rank " << rank;
  return success();
}

OpFoldResult SymSizeOp::fold(FoldAdaptor) {
  auto type = cast<RankedTensorType>(getSelf().getType());
  int64_t dim = static_cast<int64_t>(getDim());
  if (dim < 0 || dim >= type.getRank())
    return {};
  if (!type.isDynamicDim(dim))
    return IntegerAttr::get(IndexType::get(getContext()), type.getDimSize(dim));
  // A dimension bound to exactly one symbol is that symbol: later pieces
  // then see the symbol itself (which specialization turns into a constant)
  // instead of an unrelated index argument.
  for (Operation *user : getSelf().getUsers()) {
    auto bind = dyn_cast<BindSymbolicShapeOp>(user);
    if (!bind)
      continue;
    AffineMap map = bind.getShapeExpressions();
    if (dim >= static_cast<int64_t>(map.getNumResults()))
      continue;
    auto symbol = dyn_cast<AffineSymbolExpr>(map.getResult(dim));
    if (!symbol || symbol.getPosition() >= bind.getShapeSymbols().size())
      continue;
    Value value = bind.getShapeSymbols()[symbol.getPosition()];
    // The symbol must be seen here: defined before this op in its block or
    // in a block around it (inside a cond's branch, say).
    Operation *def = value.getDefiningOp();
    Block *block = def ? def->getBlock() : cast<BlockArgument>(value).getOwner();
    Operation *here = block->findAncestorOpInBlock(*getOperation());
    bool dominates = here && (!def || def->isBeforeInBlock(here));
    if (dominates)
      return value;
  }
  return {};
}

static std::optional<int64_t> indexConstant(Attribute attr) {
  if (auto i = dyn_cast_or_null<IntegerAttr>(attr))
    return i.getValue().getSExtValue();
  return std::nullopt;
}

// Folds a symbolic binary op on constants with `fn`, which returns nothing
// where the operation is undefined (division by zero).
template <typename Fn>
static OpFoldResult foldSymBinary(MLIRContext *context,
                                  ArrayRef<Attribute> operands, Fn fn) {
  std::optional<int64_t> a = indexConstant(operands[0]);
  std::optional<int64_t> b = indexConstant(operands[1]);
  if (!a || !b)
    return {};
  std::optional<int64_t> r = fn(*a, *b);
  if (!r)
    return {};
  return IntegerAttr::get(IndexType::get(context), *r);
}

// Python's a // b; nothing when undefined or out of range.
static std::optional<int64_t> floorDiv(int64_t a, int64_t b) {
  if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1))
    return std::nullopt;
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static std::optional<bool> boolConstant(Attribute attr) {
  if (auto i = dyn_cast_or_null<IntegerAttr>(attr))
    return !i.getValue().isZero();
  return std::nullopt;
}

static BoolAttr boolAttr(MLIRContext *context, bool value) {
  return BoolAttr::get(context, value);
}

LogicalResult SymCompareOp::verify() {
  if (!llvm::is_contained({"eq", "ne", "lt", "le", "gt", "ge"}, getPredicate()))
    return emitOpError("predicate must be eq, ne, lt, le, gt or ge, got '")
           << getPredicate() << "'";
  return success();
}

OpFoldResult SymCompareOp::fold(FoldAdaptor adaptor) {
  std::optional<int64_t> a = indexConstant(adaptor.getLhs());
  std::optional<int64_t> b = indexConstant(adaptor.getRhs());
  StringRef p = getPredicate();
  if (!a || !b) {
    // x op x needs no values.
    if (getLhs() != getRhs())
      return {};
    return boolAttr(getContext(), p == "eq" || p == "le" || p == "ge");
  }
  return boolAttr(getContext(), compare(p, *a, *b));
}

bool SymCompareOp::compare(StringRef predicate, int64_t a, int64_t b) {
  return predicate == "eq"   ? a == b
         : predicate == "ne" ? a != b
         : predicate == "lt" ? a < b
         : predicate == "le" ? a <= b
         : predicate == "gt" ? a > b
                             : a >= b;
}

OpFoldResult SymAndOp::fold(FoldAdaptor adaptor) {
  std::optional<bool> a = boolConstant(adaptor.getLhs());
  std::optional<bool> b = boolConstant(adaptor.getRhs());
  if ((a && !*a) || (b && !*b))
    return boolAttr(getContext(), false);
  if (a && *a)
    return getRhs();
  if (b && *b)
    return getLhs();
  return {};
}

OpFoldResult SymOrOp::fold(FoldAdaptor adaptor) {
  std::optional<bool> a = boolConstant(adaptor.getLhs());
  std::optional<bool> b = boolConstant(adaptor.getRhs());
  if ((a && *a) || (b && *b))
    return boolAttr(getContext(), true);
  if (a && !*a)
    return getRhs();
  if (b && !*b)
    return getLhs();
  return {};
}

OpFoldResult SymNotOp::fold(FoldAdaptor adaptor) {
  if (std::optional<bool> a = boolConstant(adaptor.getOperand()))
    return boolAttr(getContext(), !*a);
  return {};
}

LogicalResult AssertSymbolicOp::canonicalize(AssertSymbolicOp op,
                                             PatternRewriter &rewriter) {
  std::optional<bool> holds;
  if (auto c = op.getCondition().getDefiningOp<arith::ConstantOp>())
    holds = boolConstant(c.getValue());
  if (!holds || !*holds)
    return failure();
  rewriter.eraseOp(op);
  return success();
}

OpFoldResult SymAddOp::fold(FoldAdaptor adaptor) {
  if (indexConstant(adaptor.getRhs()) == 0)
    return getLhs();
  return foldSymBinary(getContext(), adaptor.getOperands(),
                       [](int64_t a, int64_t b) -> std::optional<int64_t> {
                         return llvm::checkedAdd(a, b);
                       });
}

OpFoldResult SymSubOp::fold(FoldAdaptor adaptor) {
  if (indexConstant(adaptor.getRhs()) == 0)
    return getLhs();
  return foldSymBinary(getContext(), adaptor.getOperands(),
                       [](int64_t a, int64_t b) -> std::optional<int64_t> {
                         return llvm::checkedSub(a, b);
                       });
}

OpFoldResult SymMulOp::fold(FoldAdaptor adaptor) {
  if (indexConstant(adaptor.getRhs()) == 1)
    return getLhs();
  return foldSymBinary(getContext(), adaptor.getOperands(),
                       [](int64_t a, int64_t b) -> std::optional<int64_t> {
                         return llvm::checkedMul(a, b);
                       });
}

OpFoldResult SymFloorDivOp::fold(FoldAdaptor adaptor) {
  if (indexConstant(adaptor.getRhs()) == 1)
    return getLhs();
  return foldSymBinary(getContext(), adaptor.getOperands(),
                       [](int64_t a, int64_t b) -> std::optional<int64_t> {
                         return floorDiv(a, b);
                       });
}

OpFoldResult SymModOp::fold(FoldAdaptor adaptor) {
  return foldSymBinary(getContext(), adaptor.getOperands(),
                       [](int64_t a, int64_t b) -> std::optional<int64_t> {
                         // Python's %: the remainder, plus b when their
                         // signs differ (opposite signs: no overflow);
                         // q * b would overflow for INT64_MAX % INT64_MIN.
                         if (b == 0)
                           return std::nullopt;
                         if (b == -1)
                           return 0;
                         int64_t r = a % b;
                         return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
                       });
}

OpFoldResult SymMinOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldSymBinary(getContext(), adaptor.getOperands(),
                       [](int64_t a, int64_t b) -> std::optional<int64_t> {
                         return std::min(a, b);
                       });
}

OpFoldResult SymMaxOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldSymBinary(getContext(), adaptor.getOperands(),
                       [](int64_t a, int64_t b) -> std::optional<int64_t> {
                         return std::max(a, b);
                       });
}

//===----------------------------------------------------------------------===//
// Constants and creation
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  auto type = dyn_cast<RankedTensorType>(adaptor.getValue().getType());
  if (!type)
    return emitOptionalError(loc, "value must be a ranked tensor literal");
  types.push_back(type);
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult ScalarTensorOp::inferReturnTypes(MLIRContext *, OptLoc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  types.push_back(makeTensor({}, adaptor.getDtype()));
  return success();
}

LogicalResult FullOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  ArrayRef<int64_t> sizes = adaptor.getStaticSizes();
  if (failed(checkMixedList(sizes, adaptor.getSizes(), "sizes", loc)))
    return failure();
  for (int64_t s : sizes)
    if (!ShapedType::isDynamic(s) && s < 0)
      return emitOptionalError(loc, "size ", s, " is negative");
  types.push_back(makeTensor(sizes, adaptor.getDtype()));
  return success();
}

LogicalResult FullLikeOp::inferReturnTypes(MLIRContext *, OptLoc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  types.push_back(
      makeTensor(tensorTypeOf(adaptor.getSelf()).getShape(), adaptor.getDtype()));
  return success();
}

LogicalResult ArangeOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  int64_t length = kDyn;
  std::optional<double> start = getConstantScalar(adaptor.getStart());
  std::optional<double> end = getConstantScalar(adaptor.getEnd());
  std::optional<double> step = getConstantScalar(adaptor.getStep());
  if (step && *step == 0)
    return emitOptionalError(loc, "step must be nonzero");
  if (start && end && step) {
    double n = std::ceil((*end - *start) / *step);
    if (!std::isfinite(n) || n > static_cast<double>(1LL << 62))
      return emitOptionalError(loc, "arange length is not a finite size");
    length = std::max<int64_t>(0, static_cast<int64_t>(n));
  }
  types.push_back(makeTensor({length}, adaptor.getDtype()));
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// Result of an elementwise op over `operands` (tensors and scalars): the
// broadcast shape and `dtype`, or the promoted dtype when `dtype` is null.
static LogicalResult inferElementwise(ValueRange operands, Type dtype,
                                      OptLoc loc, SmallVectorImpl<Type> &types) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value v : operands)
    if (auto t = tensorTypeOf(v))
      shapes.push_back(t.getShape());
  if (shapes.empty())
    return emitOptionalError(loc, "expected at least one tensor operand");
  FailureOr<Shape> shape = broadcastShapes(shapes, loc);
  if (failed(shape))
    return failure();
  if (!dtype)
    dtype = resultDtype(operands.getTypes());
  types.push_back(makeTensor(*shape, dtype));
  return success();
}

#define MAGI_SAME_TYPE_UNARY(OP)                                               \
  LogicalResult OP::inferReturnTypes(MLIRContext *, OptLoc, Adaptor adaptor,   \
                                     SmallVectorImpl<Type> &types) {           \
    types.push_back(adaptor.getSelf().getType());                              \
    return success();                                                          \
  }
MAGI_SAME_TYPE_UNARY(AbsOp)
MAGI_SAME_TYPE_UNARY(FloorOp)
MAGI_SAME_TYPE_UNARY(CeilOp)
MAGI_SAME_TYPE_UNARY(RoundOp)
MAGI_SAME_TYPE_UNARY(TruncOp)
MAGI_SAME_TYPE_UNARY(SignOp)
MAGI_SAME_TYPE_UNARY(ReluOp)
MAGI_SAME_TYPE_UNARY(ClampOp)
MAGI_SAME_TYPE_UNARY(CloneOp)
#undef MAGI_SAME_TYPE_UNARY

#define MAGI_FLOAT_UNARY(OP)                                                   \
  LogicalResult OP::inferReturnTypes(MLIRContext *, OptLoc, Adaptor adaptor,   \
                                     SmallVectorImpl<Type> &types) {           \
    auto type = tensorTypeOf(adaptor.getSelf());                               \
    types.push_back(                                                           \
        makeTensor(type.getShape(), floatIfNotFloat(type.getElementType())));  \
    return success();                                                          \
  }
MAGI_FLOAT_UNARY(CosOp)
MAGI_FLOAT_UNARY(SinOp)
MAGI_FLOAT_UNARY(ExpOp)
MAGI_FLOAT_UNARY(LogOp)
MAGI_FLOAT_UNARY(SqrtOp)
MAGI_FLOAT_UNARY(RsqrtOp)
MAGI_FLOAT_UNARY(ReciprocalOp)
MAGI_FLOAT_UNARY(SigmoidOp)
MAGI_FLOAT_UNARY(TanhOp)
MAGI_FLOAT_UNARY(ErfOp)
MAGI_FLOAT_UNARY(Log1pOp)
MAGI_FLOAT_UNARY(Expm1Op)
MAGI_FLOAT_UNARY(Log2Op)
MAGI_FLOAT_UNARY(AcosOp)
MAGI_FLOAT_UNARY(AsinOp)
MAGI_FLOAT_UNARY(AtanOp)
MAGI_FLOAT_UNARY(AcoshOp)
MAGI_FLOAT_UNARY(AsinhOp)
MAGI_FLOAT_UNARY(AtanhOp)
MAGI_FLOAT_UNARY(CoshOp)
MAGI_FLOAT_UNARY(SinhOp)
MAGI_FLOAT_UNARY(TanOp)
MAGI_FLOAT_UNARY(Log10Op)
#undef MAGI_FLOAT_UNARY

// Activations with floating-point kernels only.
#define MAGI_FLOAT_ONLY_UNARY(OP, NAME)                                        \
  LogicalResult OP::inferReturnTypes(MLIRContext *, OptLoc loc,                \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    auto type = tensorTypeOf(adaptor.getSelf());                               \
    if (getDtypeCategory(type.getElementType()) != DtypeCategory::Float)       \
      return emitOptionalError(loc, NAME " needs a floating-point tensor, "    \
                                         "got ",                               \
                               type.getElementType());                         \
    types.push_back(type);                                                     \
    return success();                                                          \
  }
MAGI_FLOAT_ONLY_UNARY(SiluOp, "silu")
MAGI_FLOAT_ONLY_UNARY(GeluOp, "gelu")
MAGI_FLOAT_ONLY_UNARY(LeakyReluOp, "leaky_relu")
MAGI_FLOAT_ONLY_UNARY(EluOp, "elu")
#undef MAGI_FLOAT_ONLY_UNARY

LogicalResult NegOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  Type t = adaptor.getSelf().getType();
  if (cast<RankedTensorType>(t).getElementType().isInteger(1))
    return emitOptionalError(loc, "neg of a bool tensor is not supported "
                                  "(use logical_not)");
  types.push_back(t);
  return success();
}

#define MAGI_PREDICATE_UNARY(OP)                                               \
  LogicalResult OP::inferReturnTypes(MLIRContext *context, OptLoc,             \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    types.push_back(makeTensor(tensorTypeOf(adaptor.getSelf()).getShape(),     \
                               IntegerType::get(context, 1)));                 \
    return success();                                                          \
  }
MAGI_PREDICATE_UNARY(IsNanOp)
MAGI_PREDICATE_UNARY(IsInfOp)
#undef MAGI_PREDICATE_UNARY

LogicalResult LogicalNotOp::inferReturnTypes(MLIRContext *context, OptLoc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  types.push_back(makeTensor(tensorTypeOf(adaptor.getSelf()).getShape(),
                             IntegerType::get(context, 1)));
  return success();
}

LogicalResult BitwiseNotOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  if (getDtypeCategory(type.getElementType()) == DtypeCategory::Float)
    return emitOptionalError(loc, "bitwise_not needs an integer or bool "
                                  "tensor, got ",
                             type.getElementType());
  types.push_back(type);
  return success();
}

LogicalResult GeluOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError("approximate must be \"none\" or \"tanh\", got \"")
           << getApproximate() << "\"";
  return success();
}

LogicalResult ClampOp::verify() {
  if (!getMin() && !getMax())
    return emitOpError("needs at least one of min and max");
  return success();
}

#define MAGI_PROMOTING_BINARY(OP)                                              \
  LogicalResult OP::inferReturnTypes(MLIRContext *, OptLoc loc,                \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    return inferElementwise(adaptor.getOperands(), Type(), loc, types);        \
  }
MAGI_PROMOTING_BINARY(AddOp)
MAGI_PROMOTING_BINARY(SubOp)
MAGI_PROMOTING_BINARY(MulOp)
MAGI_PROMOTING_BINARY(PowOp)
MAGI_PROMOTING_BINARY(RemainderOp)
MAGI_PROMOTING_BINARY(MaximumOp)
MAGI_PROMOTING_BINARY(MinimumOp)
MAGI_PROMOTING_BINARY(SiluAndMulOp)
MAGI_PROMOTING_BINARY(FmodOp)
#undef MAGI_PROMOTING_BINARY

#define MAGI_BITWISE_BINARY(OP)                                                \
  LogicalResult OP::inferReturnTypes(MLIRContext *, OptLoc loc,                \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    Type dtype = resultDtype(adaptor.getOperands().getTypes());                \
    if (dtype && getDtypeCategory(dtype) == DtypeCategory::Float)              \
      return emitOptionalError(loc, "bitwise ops need integer or bool "        \
                                    "operands, got ",                          \
                               dtype);                                         \
    return inferElementwise(adaptor.getOperands(), Type(), loc, types);        \
  }
MAGI_BITWISE_BINARY(BitwiseAndOp)
MAGI_BITWISE_BINARY(BitwiseOrOp)
MAGI_BITWISE_BINARY(BitwiseXorOp)
#undef MAGI_BITWISE_BINARY

#define MAGI_BOOL_BINARY(OP)                                                   \
  LogicalResult OP::inferReturnTypes(MLIRContext *context, OptLoc loc,         \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    return inferElementwise(adaptor.getOperands(),                             \
                            IntegerType::get(context, 1), loc, types);         \
  }
MAGI_BOOL_BINARY(LogicalAndOp)
MAGI_BOOL_BINARY(LogicalOrOp)
MAGI_BOOL_BINARY(LogicalXorOp)
MAGI_BOOL_BINARY(EqOp)
MAGI_BOOL_BINARY(NeOp)
MAGI_BOOL_BINARY(LtOp)
MAGI_BOOL_BINARY(LeOp)
MAGI_BOOL_BINARY(GtOp)
MAGI_BOOL_BINARY(GeOp)
#undef MAGI_BOOL_BINARY

LogicalResult DivOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  Type dtype = resultDtype(adaptor.getOperands().getTypes());
  if (!adaptor.getRoundingModeAttr())
    dtype = floatIfNotFloat(dtype);
  return inferElementwise(adaptor.getOperands(), dtype, loc, types);
}

LogicalResult DivOp::verify() {
  if (auto mode = getRoundingMode(); mode && *mode != "trunc" && *mode != "floor")
    return emitOpError("rounding_mode must be \"trunc\" or \"floor\", got \"")
           << *mode << "\"";
  return success();
}

LogicalResult Atan2Op::inferReturnTypes(MLIRContext *, OptLoc loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  Type dtype = floatIfNotFloat(resultDtype(adaptor.getOperands().getTypes()));
  return inferElementwise(adaptor.getOperands(), dtype, loc, types);
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  Type dtype = resultDtype(
      TypeRange{adaptor.getSelf().getType(), adaptor.getOther().getType()});
  return inferElementwise(adaptor.getOperands(), dtype, loc, types);
}

LogicalResult ToCopyOp::inferReturnTypes(MLIRContext *, OptLoc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  types.push_back(makeTensor(tensorTypeOf(adaptor.getSelf()).getShape(),
                             adaptor.getDtype()));
  return success();
}

OpFoldResult ToCopyOp::fold(FoldAdaptor) {
  if (getSelf().getType() == getType())
    return getSelf();
  return {};
}

OpFoldResult CloneOp::fold(FoldAdaptor) {
  if (getSelf().getType() == getType())
    return getSelf();
  return {};
}

LogicalResult CopyOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto self = tensorTypeOf(adaptor.getSelf());
  auto src = tensorTypeOf(adaptor.getSrc());
  FailureOr<Shape> shape =
      broadcastShapes({self.getShape(), src.getShape()}, loc);
  if (failed(shape))
    return failure();
  if (!shapesCompatible(self.getShape(), *shape))
    return emitOptionalError(loc, "source of shape ", src,
                             " does not broadcast to ", self);
  types.push_back(self);
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

template <typename AdaptorT>
static LogicalResult inferReduction(AdaptorT adaptor, OptLoc loc,
                                    function_ref<Type(Type)> dtypeOf,
                                    SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  FailureOr<SmallVector<bool>> reduced =
      reducedDims(adaptor.getDimsAttr(), type.getRank(), loc);
  if (failed(reduced))
    return failure();
  Type dtype = adaptor.getDtypeAttr() ? adaptor.getDtypeAttr().getValue()
                                      : dtypeOf(type.getElementType());
  if (!dtype)
    return emitOptionalError(loc, "cannot reduce a tensor of ",
                             type.getElementType(),
                             " without an explicit floating-point dtype");
  types.push_back(makeTensor(
      reduceShape(type.getShape(), *reduced, isSet(adaptor.getKeepdimAttr())), dtype));
  return success();
}

static Type sumDtype(Type t) {
  return getDtypeCategory(t) == DtypeCategory::Float
             ? t
             : IntegerType::get(t.getContext(), 64);
}

LogicalResult SumOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  return inferReduction(adaptor, loc, sumDtype, types);
}

LogicalResult ProdOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  return inferReduction(adaptor, loc, sumDtype, types);
}

LogicalResult VarOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  if (getDtypeCategory(type.getElementType()) != DtypeCategory::Float)
    return emitOptionalError(loc, "var needs a floating-point tensor, got ",
                             type.getElementType());
  FailureOr<SmallVector<bool>> reduced =
      reducedDims(adaptor.getDimsAttr(), type.getRank(), loc);
  if (failed(reduced))
    return failure();
  types.push_back(makeTensor(
      reduceShape(type.getShape(), *reduced, isSet(adaptor.getKeepdimAttr())),
      type.getElementType()));
  return success();
}

LogicalResult MeanOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  if (TypeAttr dtype = adaptor.getDtypeAttr();
      dtype && getDtypeCategory(dtype.getValue()) != DtypeCategory::Float)
    return emitOptionalError(loc, "mean needs a floating-point dtype, got ",
                             dtype.getValue());
  return inferReduction(
      adaptor, loc,
      [](Type t) -> Type {
        return getDtypeCategory(t) == DtypeCategory::Float ? t : Type();
      },
      types);
}

LogicalResult AmaxOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  return inferReduction(adaptor, loc, [](Type t) { return t; }, types);
}

LogicalResult AminOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  return inferReduction(adaptor, loc, [](Type t) { return t; }, types);
}

static Type boolDtype(Type t) { return IntegerType::get(t.getContext(), 1); }

LogicalResult AnyOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  return inferReduction(adaptor, loc, boolDtype, types);
}

LogicalResult AllOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  return inferReduction(adaptor, loc, boolDtype, types);
}

template <typename AdaptorT>
static LogicalResult inferValuesAndIndices(MLIRContext *context, OptLoc loc,
                                           AdaptorT adaptor,
                                           SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  int64_t rank = type.getRank();
  FailureOr<int64_t> dim =
      normalizeDim(static_cast<int64_t>(adaptor.getDim()), rank, loc);
  if (failed(dim))
    return failure();
  SmallVector<bool> reduced(rank, false);
  if (rank)
    reduced[*dim] = true;
  Shape shape =
      reduceShape(type.getShape(), reduced, isSet(adaptor.getKeepdimAttr()));
  types.push_back(makeTensor(shape, type.getElementType()));
  types.push_back(makeTensor(shape, IntegerType::get(context, 64)));
  return success();
}

LogicalResult MaxDimOp::inferReturnTypes(MLIRContext *context, OptLoc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  return inferValuesAndIndices(context, loc, adaptor, types);
}

LogicalResult MinDimOp::inferReturnTypes(MLIRContext *context, OptLoc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  return inferValuesAndIndices(context, loc, adaptor, types);
}

template <typename AdaptorT>
static LogicalResult inferArgReduction(MLIRContext *context, OptLoc loc,
                                       AdaptorT adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  int64_t rank = type.getRank();
  SmallVector<bool> reduced(rank, true);
  if (auto dimAttr = adaptor.getDimAttr()) {
    FailureOr<int64_t> dim = normalizeDim(dimAttr.getInt(), rank, loc);
    if (failed(dim))
      return failure();
    reduced.assign(rank, false);
    if (rank)
      reduced[*dim] = true;
  }
  types.push_back(makeTensor(
      reduceShape(type.getShape(), reduced, isSet(adaptor.getKeepdimAttr())),
      IntegerType::get(context, 64)));
  return success();
}

LogicalResult ArgmaxOp::inferReturnTypes(MLIRContext *context, OptLoc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  return inferArgReduction(context, loc, adaptor, types);
}

LogicalResult ArgminOp::inferReturnTypes(MLIRContext *context, OptLoc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  return inferArgReduction(context, loc, adaptor, types);
}

LogicalResult TopkOp::inferReturnTypes(MLIRContext *context, OptLoc loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  int64_t dimAttr = adaptor.getDimAttr() ? adaptor.getDimAttr().getInt() : -1;
  FailureOr<int64_t> dim = normalizeDim(dimAttr, type.getRank(), loc);
  if (failed(dim))
    return failure();
  int64_t k = static_cast<int64_t>(adaptor.getK());
  Shape shape(type.getShape());
  // A 0-d tensor has one element to select from.
  int64_t size = shape.empty() ? 1 : shape[*dim];
  if (k < 0)
    return emitOptionalError(loc, "k = ", k, " is negative");
  if (!ShapedType::isDynamic(size) && k > size)
    return emitOptionalError(loc, "k = ", k,
                             " is out of range for a dimension of size ", size);
  if (!shape.empty())
    shape[*dim] = k;
  types.push_back(makeTensor(shape, type.getElementType()));
  types.push_back(makeTensor(shape, IntegerType::get(context, 64)));
  return success();
}

LogicalResult SortOp::inferReturnTypes(MLIRContext *context, OptLoc loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  int64_t dimAttr = adaptor.getDimAttr() ? adaptor.getDimAttr().getInt() : -1;
  if (failed(normalizeDim(dimAttr, type.getRank(), loc)))
    return failure();
  types.push_back(type);
  types.push_back(makeTensor(type.getShape(), IntegerType::get(context, 64)));
  return success();
}

LogicalResult CumsumOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  if (failed(normalizeDim(static_cast<int64_t>(adaptor.getDim()),
                          type.getRank(), loc)))
    return failure();
  Type dtype = adaptor.getDtypeAttr() ? adaptor.getDtypeAttr().getValue()
                                      : sumDtype(type.getElementType());
  types.push_back(makeTensor(type.getShape(), dtype));
  return success();
}

//===----------------------------------------------------------------------===//
// Shape and indexing
//===----------------------------------------------------------------------===//

// The element count of a shape: std::nullopt when a size is dynamic, a
// diagnostic when the count passes int64 (sizes near INT64_MAX are valid
// types, their product is not a count).
static FailureOr<std::optional<int64_t>>
staticNumElements(ArrayRef<int64_t> shape, OptLoc loc, StringRef what) {
  if (llvm::any_of(shape, ShapedType::isDynamic))
    return std::optional<int64_t>();
  int64_t n = 1;
  for (int64_t s : shape) {
    std::optional<int64_t> next = llvm::checkedMul(n, s);
    if (!next)
      return emitOptionalError(loc, what, " has more than 2^63 elements");
    n = *next;
  }
  return std::optional<int64_t>(n);
}

LogicalResult ViewOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  ArrayRef<int64_t> sizes = adaptor.getStaticSizes();
  if (failed(checkMixedList(sizes, adaptor.getSizes(), "sizes", loc)))
    return failure();
  Shape shape(sizes.begin(), sizes.end());
  int64_t inferredAt = -1;
  for (auto [i, s] : llvm::enumerate(shape)) {
    if (s == -1) {
      if (inferredAt >= 0)
        return emitOptionalError(loc, "only one size may be -1");
      inferredAt = i;
      s = kDyn;
    } else if (!ShapedType::isDynamic(s) && s < 0) {
      return emitOptionalError(loc, "size ", s, " is negative");
    }
  }
  FailureOr<std::optional<int64_t>> inNumel =
      staticNumElements(type.getShape(), loc, "the input");
  if (failed(inNumel))
    return failure();
  SmallVector<int64_t> known;
  for (auto [i, s] : llvm::enumerate(shape))
    if (static_cast<int64_t>(i) != inferredAt)
      known.push_back(s);
  FailureOr<std::optional<int64_t>> knownNumel =
      staticNumElements(known, loc, "the view");
  if (failed(knownNumel))
    return failure();
  if (*inNumel && *knownNumel) {
    if (inferredAt >= 0) {
      if (**knownNumel == 0 || **inNumel % **knownNumel != 0)
        return emitOptionalError(loc, "cannot view ", **inNumel,
                                 " elements with a size of -1 next to ",
                                 **knownNumel, " elements");
      shape[inferredAt] = **inNumel / **knownNumel;
    } else if (**inNumel != **knownNumel) {
      return emitOptionalError(loc, "cannot view ", **inNumel,
                               " elements as ", **knownNumel, " elements");
    }
  }
  types.push_back(makeTensor(shape, type.getElementType()));
  return success();
}

OpFoldResult ViewOp::fold(FoldAdaptor) {
  if (getSelf().getType() == getType() && getType().hasStaticShape())
    return getSelf();
  return {};
}

LogicalResult AttentionOp::canonicalize(AttentionOp op,
                                       PatternRewriter &rewriter) {
  Value mask = op.getMask();
  auto expand = mask ? mask.getDefiningOp<ExpandOp>() : ExpandOp();
  if (!expand)
    return failure();
  // Same rank: the expand only turned size-1 dimensions into others, which
  // the mask's own broadcasting does again.
  auto from = cast<RankedTensorType>(expand.getSelf().getType());
  auto to = cast<RankedTensorType>(expand.getType());
  if (from.getRank() != to.getRank())
    return failure();
  for (int64_t d = 0; d < from.getRank(); ++d)
    if (from.getDimSize(d) != 1 && from.getDimSize(d) != to.getDimSize(d))
      return failure();
  rewriter.modifyOpInPlace(
      op, [&] { op.getMaskMutable().assign(expand.getSelf()); });
  return success();
}

LogicalResult ViewOp::canonicalize(ViewOp op, PatternRewriter &rewriter) {
  auto inner = op.getSelf().getDefiningOp<ViewOp>();
  if (!inner)
    return failure();
  // Viewing the inner operand directly must not infer a more static type
  // than the one declared.
  SmallVector<Type> inferred;
  SmallVector<Value> operands{inner.getSelf()};
  llvm::append_range(operands, op.getSizes());
  if (failed(ViewOp::inferReturnTypes(
          op.getContext(), std::nullopt, operands,
          op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
          op->getRegions(), inferred)) ||
      !isRefinementOf(op.getType(), inferred[0]))
    return failure();
  rewriter.modifyOpInPlace(
      op, [&] { op.getSelfMutable().assign(inner.getSelf()); });
  return success();
}

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  ArrayRef<int64_t> sizes = adaptor.getStaticSizes();
  if (failed(checkMixedList(sizes, adaptor.getSizes(), "sizes", loc)))
    return failure();
  int64_t rank = sizes.size();
  if (rank < type.getRank())
    return emitOptionalError(loc, "cannot expand a tensor of rank ",
                             type.getRank(), " to ", rank, " sizes");
  int64_t lead = rank - type.getRank();
  Shape shape;
  for (auto [i, s] : llvm::enumerate(sizes)) {
    int64_t in = static_cast<int64_t>(i) < lead
                     ? 1
                     : type.getDimSize(static_cast<int64_t>(i) - lead);
    if (s == -1) {
      if (static_cast<int64_t>(i) < lead)
        return emitOptionalError(loc, "size -1 is not allowed for the new "
                                      "leading dimension ",
                                 i);
      shape.push_back(in);
    } else if (ShapedType::isDynamic(s)) {
      shape.push_back(!ShapedType::isDynamic(in) && in != 1 ? in : kDyn);
    } else if (s < 0) {
      return emitOptionalError(loc, "size ", s, " is negative");
    } else {
      if (!ShapedType::isDynamic(in) && in != 1 && in != s)
        return emitOptionalError(loc, "cannot expand size ", in,
                                 " of dimension ", i, " to ", s);
      shape.push_back(s);
    }
  }
  types.push_back(makeTensor(shape, type.getElementType()));
  return success();
}

OpFoldResult ExpandOp::fold(FoldAdaptor) {
  if (getSelf().getType() == getType() && getType().hasStaticShape())
    return getSelf();
  return {};
}

LogicalResult PermuteOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  ArrayRef<int64_t> dims = adaptor.getDims();
  if (static_cast<int64_t>(dims.size()) != type.getRank())
    return emitOptionalError(loc, "expected ", type.getRank(),
                             " permutation entries, got ", dims.size());
  SmallVector<bool> seen(type.getRank(), false);
  Shape shape;
  for (int64_t d : dims) {
    FailureOr<int64_t> n = normalizeDim(d, type.getRank(), loc);
    if (failed(n))
      return failure();
    if (seen[*n])
      return emitOptionalError(loc, "dims is not a permutation: ", d,
                               " appears twice");
    seen[*n] = true;
    shape.push_back(type.getDimSize(*n));
  }
  types.push_back(makeTensor(shape, type.getElementType()));
  return success();
}

OpFoldResult PermuteOp::fold(FoldAdaptor) {
  if (getSelf().getType() != getType())
    return {};
  for (auto [i, d] : llvm::enumerate(getDims()))
    if (static_cast<int64_t>(i) != d)
      return {};
  return getSelf();
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  int64_t dim = static_cast<int64_t>(adaptor.getDim());
  // The new dimension's place, among the result's rank + 1.
  FailureOr<int64_t> wrapped =
      normalizeDim(dim, type.getRank() + 1, std::nullopt);
  if (failed(wrapped))
    return emitOptionalError(loc, "dimension ", dim,
                             " is out of range to unsqueeze a tensor of rank ",
                             type.getRank());
  Shape shape(type.getShape());
  shape.insert(shape.begin() + *wrapped, 1);
  types.push_back(makeTensor(shape, type.getElementType()));
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  SmallVector<bool> drop(type.getRank(), false);
  for (int64_t d : adaptor.getDims()) {
    FailureOr<int64_t> n = normalizeDim(d, type.getRank(), loc);
    if (failed(n))
      return failure();
    // Only sizes known to be 1 are removed, as PyTorch does for sizes >= 2.
    if (type.getRank() && type.getDimSize(*n) == 1)
      drop[*n] = true;
  }
  Shape shape;
  for (auto [size, d] : llvm::zip(type.getShape(), drop))
    if (!d)
      shape.push_back(size);
  types.push_back(makeTensor(shape, type.getElementType()));
  return success();
}

OpFoldResult SqueezeOp::fold(FoldAdaptor) {
  if (getSelf().getType() == getType())
    return getSelf();
  return {};
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  ArrayRef<int64_t> bounds = adaptor.getStaticBounds();
  if (bounds.size() != 3)
    return emitOptionalError(loc, "expected [start, end, step], got ",
                             bounds.size(), " bounds");
  if (failed(checkMixedList(bounds, adaptor.getBounds(), "bounds", loc)))
    return failure();
  if (type.getRank() == 0)
    return emitOptionalError(loc, "cannot slice a 0-d tensor");
  FailureOr<int64_t> dim =
      normalizeDim(static_cast<int64_t>(adaptor.getDim()), type.getRank(), loc);
  if (failed(dim))
    return failure();
  int64_t start = bounds[0], end = bounds[1], step = bounds[2];
  if (!ShapedType::isDynamic(step) && step <= 0)
    return emitOptionalError(loc, "slice step must be positive, got ", step);
  Shape shape(type.getShape());
  int64_t size = shape[*dim];
  if (llvm::any_of(bounds, ShapedType::isDynamic) ||
      ShapedType::isDynamic(size))
    shape[*dim] = kDyn;
  else
    shape[*dim] = resolveSliceBounds(size, start, end, step).length;
  types.push_back(makeTensor(shape, type.getElementType()));
  return success();
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> b = getStaticBounds();
  auto type = getSelf().getType();
  if (type != getType() || b.size() != 3 || b[0] != 0 || b[2] != 1 ||
      ShapedType::isDynamic(b[1]))
    return {};
  FailureOr<int64_t> wrapped = normalizeDim(static_cast<int64_t>(getDim()),
                                            type.getRank(), std::nullopt);
  if (failed(wrapped) || type.getRank() == 0)
    return {};
  int64_t dim = *wrapped;
  // `0:end:1` with an end past every possible size is the whole dimension.
  int64_t size = type.getDimSize(dim);
  if (b[1] == std::numeric_limits<int64_t>::max() ||
      (!ShapedType::isDynamic(size) && b[1] >= size))
    return getSelf();
  return {};
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  ArrayRef<int64_t> index = adaptor.getStaticIndex();
  if (index.size() != 1)
    return emitOptionalError(loc, "expected one index, got ", index.size());
  if (failed(checkMixedList(index, adaptor.getIndex(), "index", loc)))
    return failure();
  if (type.getRank() == 0)
    return emitOptionalError(loc, "cannot select from a 0-d tensor");
  FailureOr<int64_t> dim =
      normalizeDim(static_cast<int64_t>(adaptor.getDim()), type.getRank(), loc);
  if (failed(dim))
    return failure();
  int64_t size = type.getDimSize(*dim);
  if (!ShapedType::isDynamic(index[0]) && !ShapedType::isDynamic(size) &&
      (index[0] < -size || index[0] >= size))
    return emitOptionalError(loc, "index ", index[0],
                             " is out of range for a dimension of size ", size);
  Shape shape(type.getShape());
  shape.erase(shape.begin() + *dim);
  types.push_back(makeTensor(shape, type.getElementType()));
  return success();
}

LogicalResult CatOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  ValueRange tensors = adaptor.getTensors();
  if (tensors.empty())
    return emitOptionalError(loc, "needs at least one tensor");
  auto first = tensorTypeOf(tensors[0]);
  int64_t rank = first.getRank();
  FailureOr<int64_t> dim =
      normalizeDim(static_cast<int64_t>(adaptor.getDim()), rank, loc);
  if (failed(dim))
    return failure();
  Shape shape(first.getShape());
  for (auto [i, v] : llvm::enumerate(tensors.drop_front())) {
    auto t = tensorTypeOf(v);
    if (t.getRank() != rank)
      return emitOptionalError(loc, "tensor ", i + 1, " has rank ",
                               t.getRank(), ", expected ", rank);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t a = shape[d], b = t.getDimSize(d);
      if (d == *dim) {
        if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b)) {
          shape[d] = kDyn;
          continue;
        }
        std::optional<int64_t> sum = llvm::checkedAdd(a, b);
        if (!sum)
          return emitOptionalError(loc, "the concatenated size of dimension ",
                                   d, " overflows int64");
        shape[d] = *sum;
      } else if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) &&
                 a != b) {
        return emitOptionalError(loc, "tensor ", i + 1, " has size ", b,
                                 " in dimension ", d, ", expected ", a);
      } else if (ShapedType::isDynamic(a)) {
        shape[d] = b;
      }
    }
  }
  types.push_back(makeTensor(shape, resultDtype(tensors.getTypes())));
  return success();
}

LogicalResult
SplitWithSizesOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                   SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  ArrayRef<int64_t> sizes = adaptor.getStaticSplitSizes();
  if (failed(checkMixedList(sizes, adaptor.getSplitSizes(), "split sizes",
                            loc)))
    return failure();
  FailureOr<int64_t> dim =
      normalizeDim(static_cast<int64_t>(adaptor.getDim()), type.getRank(), loc);
  if (failed(dim))
    return failure();
  bool allStatic = llvm::none_of(sizes, ShapedType::isDynamic);
  int64_t sum = 0;
  for (int64_t s : sizes) {
    if (!ShapedType::isDynamic(s) && s < 0)
      return emitOptionalError(loc, "split size ", s, " is negative");
    std::optional<int64_t> next =
        llvm::checkedAdd(sum, ShapedType::isDynamic(s) ? int64_t(0) : s);
    if (!next)
      return emitOptionalError(loc, "split sizes add up past int64");
    sum = *next;
  }
  int64_t size = type.getDimSize(*dim);
  if (allStatic && !ShapedType::isDynamic(size) && sum != size)
    return emitOptionalError(loc, "split sizes add up to ", sum,
                             " but dimension ", *dim, " has size ", size);
  for (int64_t s : sizes) {
    Shape shape(type.getShape());
    shape[*dim] = s;
    types.push_back(makeTensor(shape, type.getElementType()));
  }
  return success();
}

LogicalResult
ConstantPadNdOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                  SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  ArrayRef<int64_t> pad = adaptor.getStaticPad();
  if (failed(checkMixedList(pad, adaptor.getPad(), "pad", loc)))
    return failure();
  if (pad.size() % 2 != 0 ||
      static_cast<int64_t>(pad.size()) > 2 * type.getRank())
    return emitOptionalError(loc, "pad must hold an even number of entries, "
                                  "at most twice the rank (",
                             type.getRank(), "), got ", pad.size());
  Shape shape(type.getShape());
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    int64_t d = type.getRank() - 1 - static_cast<int64_t>(i);
    int64_t before = pad[2 * i], after = pad[2 * i + 1];
    if (ShapedType::isDynamic(shape[d]) || ShapedType::isDynamic(before) ||
        ShapedType::isDynamic(after)) {
      shape[d] = kDyn;
      continue;
    }
    std::optional<int64_t> padded = llvm::checkedAdd(shape[d], before);
    if (padded)
      padded = llvm::checkedAdd(*padded, after);
    if (!padded)
      return emitOptionalError(loc, "padding dimension ", d,
                               " overflows int64");
    shape[d] = *padded;
    if (shape[d] < 0)
      return emitOptionalError(loc, "padding makes dimension ", d,
                               " negative");
  }
  types.push_back(makeTensor(shape, type.getElementType()));
  return success();
}

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto weight = tensorTypeOf(adaptor.getWeight());
  auto indices = tensorTypeOf(adaptor.getIndices());
  if (weight.getRank() != 2)
    return emitOptionalError(loc, "embedding weight must be 2-d, got rank ",
                             weight.getRank());
  Shape shape(indices.getShape());
  shape.push_back(weight.getDimSize(1));
  types.push_back(makeTensor(shape, weight.getElementType()));
  return success();
}

// The shape of `self[indices]` with `indices[i]` indexing dimension `dims[i]`.
static FailureOr<Shape> advancedIndexShape(RankedTensorType type,
                                           ValueRange indices,
                                           ArrayRef<int64_t> dims, OptLoc loc) {
  if (indices.size() != dims.size())
    return emitOptionalError(loc, "got ", indices.size(),
                             " index tensors for ", dims.size(),
                             " indexed dimensions");
  if (indices.empty())
    return emitOptionalError(loc, "needs at least one index tensor");
  SmallVector<ArrayRef<int64_t>> shapes;
  for (auto [i, v] : llvm::enumerate(indices)) {
    auto t = tensorTypeOf(v);
    if (getDtypeCategory(t.getElementType()) != DtypeCategory::Integer)
      return emitOptionalError(loc, "index tensor ", i,
                               " must have an integer dtype, got ",
                               t.getElementType());
    if (dims[i] < 0 || dims[i] >= type.getRank() ||
        (i > 0 && dims[i] <= dims[i - 1]))
      return emitOptionalError(loc, "indexed_dims must be increasing "
                                    "dimensions of self (rank ",
                               type.getRank(), ")");
    shapes.push_back(t.getShape());
  }
  FailureOr<Shape> indexShape = broadcastShapes(shapes, loc);
  if (failed(indexShape))
    return failure();
  bool adjacent = dims.back() - dims.front() + 1 ==
                  static_cast<int64_t>(dims.size());
  Shape shape;
  if (adjacent) {
    shape.append(type.getShape().begin(), type.getShape().begin() + dims[0]);
    shape.append(indexShape->begin(), indexShape->end());
    shape.append(type.getShape().begin() + dims.back() + 1,
                 type.getShape().end());
  } else {
    shape = *indexShape;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!llvm::is_contained(dims, d))
        shape.push_back(type.getDimSize(d));
  }
  return shape;
}

LogicalResult IndexOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  FailureOr<Shape> shape = advancedIndexShape(
      type, adaptor.getIndices(), adaptor.getIndexedDims(), loc);
  if (failed(shape))
    return failure();
  types.push_back(makeTensor(*shape, type.getElementType()));
  return success();
}

LogicalResult IndexSelectOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  auto index = tensorTypeOf(adaptor.getIndex());
  if (index.getRank() > 1)
    return emitOptionalError(loc, "index must be 0-d or 1-d, got rank ",
                             index.getRank());
  FailureOr<int64_t> dim =
      normalizeDim(static_cast<int64_t>(adaptor.getDim()), type.getRank(), loc);
  if (failed(dim))
    return failure();
  Shape shape(type.getShape());
  if (!shape.empty())
    shape[*dim] = index.getRank() ? index.getDimSize(0) : 1;
  types.push_back(makeTensor(shape, type.getElementType()));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  auto index = tensorTypeOf(adaptor.getIndex());
  if (index.getRank() != type.getRank())
    return emitOptionalError(loc, "index has rank ", index.getRank(),
                             " but self has rank ", type.getRank());
  if (failed(normalizeDim(static_cast<int64_t>(adaptor.getDim()),
                          type.getRank(), loc)))
    return failure();
  types.push_back(makeTensor(index.getShape(), type.getElementType()));
  return success();
}

LogicalResult ScatterOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  auto index = tensorTypeOf(adaptor.getIndex());
  if (index.getRank() != type.getRank())
    return emitOptionalError(loc, "index has rank ", index.getRank(),
                             " but self has rank ", type.getRank());
  auto src = tensorTypeOf(adaptor.getSrc());
  if (src && src.getRank() != type.getRank())
    return emitOptionalError(loc, "src has rank ", src.getRank(),
                             " but self has rank ", type.getRank());
  if (src && src.getElementType() != type.getElementType())
    return emitOptionalError(loc, "src has dtype ", src.getElementType(),
                             " but self has dtype ", type.getElementType());
  FailureOr<int64_t> dim = normalizeDim(static_cast<int64_t>(adaptor.getDim()),
                                        type.getRank(), loc);
  if (failed(dim))
    return failure();
  // index may not reach past src, nor past self outside `dim`.
  auto exceeds = [](int64_t a, int64_t b) {
    return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a > b;
  };
  for (int64_t d = 0; d < index.getRank(); ++d) {
    if ((src && exceeds(index.getDimSize(d), src.getDimSize(d))) ||
        (d != *dim && exceeds(index.getDimSize(d), type.getDimSize(d))))
      return emitOptionalError(loc, "index size ", index.getDimSize(d),
                               " in dimension ", d,
                               " exceeds the size of src or self");
  }
  types.push_back(type);
  return success();
}

LogicalResult ScatterOp::verify() {
  std::optional<StringRef> reduce = getReduce();
  if (reduce && !llvm::is_contained({"add", "multiply", "mean", "amax", "amin"}, *reduce))
    return emitOpError("reduce must be one of \"add\", \"multiply\", \"mean\", "
                       "\"amax\", \"amin\", got \"")
           << *reduce << "\"";
  if (!reduce && !getIncludeSelf())
    return emitOpError("include_self = false needs a reduction");
  return success();
}

LogicalResult IndexPutOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  FailureOr<Shape> indexed = advancedIndexShape(
      type, adaptor.getIndices(), adaptor.getIndexedDims(), loc);
  if (failed(indexed))
    return failure();
  auto values = tensorTypeOf(adaptor.getValues());
  if (values.getElementType() != type.getElementType())
    return emitOptionalError(loc, "values must have the dtype of self, ",
                             type.getElementType(), ", got ",
                             values.getElementType());
  // values broadcast to the indexed shape.
  FailureOr<Shape> shape =
      broadcastShapes({*indexed, values.getShape()}, std::nullopt);
  if (failed(shape) || !shapesCompatible(*shape, *indexed))
    return emitOptionalError(loc, "values ", values,
                             " do not broadcast to the indexed shape ",
                             makeTensor(*indexed, type.getElementType()));
  types.push_back(type);
  return success();
}

LogicalResult
SliceScatterOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                 SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  auto src = tensorTypeOf(adaptor.getSrc());
  ArrayRef<int64_t> bounds = adaptor.getStaticBounds();
  if (bounds.size() != 3)
    return emitOptionalError(loc, "expected [start, end, step], got ",
                             bounds.size(), " bounds");
  if (failed(checkMixedList(bounds, adaptor.getBounds(), "bounds", loc)))
    return failure();
  if (src.getRank() != type.getRank() ||
      src.getElementType() != type.getElementType())
    return emitOptionalError(loc, "src ", src,
                             " must have the rank and dtype of self ", type);
  FailureOr<int64_t> dim = normalizeDim(static_cast<int64_t>(adaptor.getDim()),
                                        type.getRank(), loc);
  if (failed(dim))
    return failure();
  int64_t start = bounds[0], end = bounds[1], step = bounds[2];
  if (!ShapedType::isDynamic(step) && step <= 0)
    return emitOptionalError(loc, "slice step must be positive, got ", step);
  // src has the slice's shape.
  Shape slice(type.getShape());
  if (llvm::any_of(bounds, ShapedType::isDynamic) ||
      ShapedType::isDynamic(slice[*dim]))
    slice[*dim] = kDyn;
  else
    slice[*dim] = resolveSliceBounds(slice[*dim], start, end, step).length;
  if (!shapesCompatible(src.getShape(), slice))
    return emitOptionalError(loc, "src ", src, " does not have the shape of "
                                               "the slice, ",
                             makeTensor(slice, type.getElementType()));
  types.push_back(type);
  return success();
}

LogicalResult
SelectScatterOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                  SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  auto src = tensorTypeOf(adaptor.getSrc());
  ArrayRef<int64_t> index = adaptor.getStaticIndex();
  if (index.size() != 1)
    return emitOptionalError(loc, "expected one index, got ", index.size());
  if (failed(checkMixedList(index, adaptor.getIndex(), "index", loc)))
    return failure();
  if (src.getRank() + 1 != type.getRank() ||
      src.getElementType() != type.getElementType())
    return emitOptionalError(loc, "src ", src,
                             " must have the dtype of self and one dimension "
                             "less than ",
                             type);
  FailureOr<int64_t> dim = normalizeDim(static_cast<int64_t>(adaptor.getDim()),
                                        type.getRank(), loc);
  if (failed(dim))
    return failure();
  int64_t size = type.getDimSize(*dim);
  if (!ShapedType::isDynamic(index[0]) && !ShapedType::isDynamic(size) &&
      (index[0] < -size || index[0] >= size))
    return emitOptionalError(loc, "index ", index[0],
                             " is out of range for a dimension of size ", size);
  Shape selected(type.getShape());
  selected.erase(selected.begin() + *dim);
  if (!shapesCompatible(src.getShape(), selected))
    return emitOptionalError(loc, "src ", src,
                             " does not have the shape of the selected slice");
  types.push_back(type);
  return success();
}

LogicalResult FlipOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  llvm::SmallSet<int64_t, 4> seen;
  for (int64_t d : adaptor.getDims()) {
    FailureOr<int64_t> n = normalizeDim(d, type.getRank(), loc);
    if (failed(n))
      return failure();
    if (!seen.insert(*n).second)
      return emitOptionalError(loc, "dimension ", d, " appears more than once");
  }
  types.push_back(type);
  return success();
}

LogicalResult DiagonalOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  int64_t rank = type.getRank();
  if (rank < 2)
    return emitOptionalError(loc, "diagonal needs a tensor of rank 2 or more, got ", type);
  // I64Attr reads back unsigned.
  FailureOr<int64_t> dim1 = normalizeDim(static_cast<int64_t>(adaptor.getDim1()), rank, loc),
                     dim2 = normalizeDim(static_cast<int64_t>(adaptor.getDim2()), rank, loc);
  if (failed(dim1) || failed(dim2))
    return failure();
  if (*dim1 == *dim2)
    return emitOptionalError(loc, "diagonal dimensions cannot be identical: ", *dim1);
  int64_t offset = static_cast<int64_t>(adaptor.getOffset());
  Shape shape;
  for (int64_t d = 0; d < rank; ++d)
    if (d != *dim1 && d != *dim2)
      shape.push_back(type.getDimSize(d));
  int64_t n1 = type.getDimSize(*dim1), n2 = type.getDimSize(*dim2);
  shape.push_back(ShapedType::isDynamic(n1) || ShapedType::isDynamic(n2)
                      ? ShapedType::kDynamic
                      : std::max<int64_t>(0, std::min(n1 - std::max<int64_t>(0, -offset),
                                                      n2 - std::max<int64_t>(0, offset))));
  types.push_back(makeTensor(shape, type.getElementType()));
  return success();
}

LogicalResult RepeatOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  ArrayRef<int64_t> repeats = adaptor.getRepeats();
  int64_t rank = repeats.size();
  if (rank < type.getRank())
    return emitOptionalError(loc, "repeat needs at least ", type.getRank(),
                             " repeats, got ", rank);
  Shape shape;
  for (auto [i, r] : llvm::enumerate(repeats)) {
    if (r < 0)
      return emitOptionalError(loc, "repeat count ", r, " is negative");
    int64_t d = static_cast<int64_t>(i) - (rank - type.getRank());
    int64_t size = d < 0 ? 1 : type.getDimSize(d);
    if (ShapedType::isDynamic(size)) {
      shape.push_back(kDyn);
      continue;
    }
    std::optional<int64_t> repeated = llvm::checkedMul(size, r);
    if (!repeated)
      return emitOptionalError(loc, "repeating dimension ", i, " ", r,
                               " times overflows int64");
    shape.push_back(*repeated);
  }
  types.push_back(makeTensor(shape, type.getElementType()));
  return success();
}

#define MAGI_TRIANGLE(OP)                                                      \
  LogicalResult OP::inferReturnTypes(MLIRContext *, OptLoc loc,                \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    auto type = tensorTypeOf(adaptor.getSelf());                               \
    if (type.getRank() < 2)                                                    \
      return emitOptionalError(loc, "needs a tensor of rank >= 2, got ",      \
                               type.getRank());                                \
    types.push_back(type);                                                     \
    return success();                                                          \
  }
MAGI_TRIANGLE(TrilOp)
MAGI_TRIANGLE(TriuOp)
#undef MAGI_TRIANGLE

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

static LogicalResult checkSameDtype(RankedTensorType a, RankedTensorType b,
                                    OptLoc loc) {
  if (a.getElementType() != b.getElementType())
    return emitOptionalError(loc, "operands must have the same dtype, got ",
                             a.getElementType(), " and ", b.getElementType());
  return success();
}

static LogicalResult checkSizesMatch(int64_t a, int64_t b, StringRef what,
                                     OptLoc loc) {
  if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
    return emitOptionalError(loc, what, " do not match: ", a, " vs ", b);
  return success();
}

static int64_t mergeSizes(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) ? b : a;
}

// `t` with its last two dimensions swapped when `transposed`.
static RankedTensorType maybeTransposed(RankedTensorType t, bool transposed) {
  if (!transposed || t.getRank() < 2)
    return t;
  Shape shape(t.getShape());
  std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
  return makeTensor(shape, t.getElementType());
}

static LogicalResult inferMatmul(RankedTensorType a, RankedTensorType b,
                                 int64_t rank, OptLoc loc,
                                 SmallVectorImpl<Type> &types,
                                 bool transposeA = false,
                                 bool transposeB = false) {
  if (a.getRank() != rank || b.getRank() != rank)
    return emitOptionalError(loc, "operands must be ", rank,
                             "-d, got ranks ", a.getRank(), " and ",
                             b.getRank());
  a = maybeTransposed(a, transposeA);
  b = maybeTransposed(b, transposeB);
  if (failed(checkSameDtype(a, b, loc)) ||
      failed(checkSizesMatch(a.getDimSize(rank - 1), b.getDimSize(rank - 2),
                             "contraction sizes", loc)))
    return failure();
  Shape shape;
  if (rank == 3) {
    if (failed(checkSizesMatch(a.getDimSize(0), b.getDimSize(0),
                               "batch sizes", loc)))
      return failure();
    shape.push_back(mergeSizes(a.getDimSize(0), b.getDimSize(0)));
  }
  shape.push_back(a.getDimSize(rank - 2));
  shape.push_back(b.getDimSize(rank - 1));
  types.push_back(makeTensor(shape, a.getElementType()));
  return success();
}

LogicalResult MmOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                     Adaptor adaptor,
                                     SmallVectorImpl<Type> &types) {
  return inferMatmul(tensorTypeOf(adaptor.getSelf()),
                     tensorTypeOf(adaptor.getMat2()), 2, loc, types,
                     adaptor.getTransposeSelf(), adaptor.getTransposeMat2());
}

LogicalResult BmmOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  return inferMatmul(tensorTypeOf(adaptor.getSelf()),
                     tensorTypeOf(adaptor.getMat2()), 3, loc, types,
                     adaptor.getTransposeSelf(), adaptor.getTransposeMat2());
}

LogicalResult GroupedMmOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto self = tensorTypeOf(adaptor.getSelf());
  auto mat2 = tensorTypeOf(adaptor.getMat2());
  auto offs = tensorTypeOf(adaptor.getOffs());
  if (self.getRank() != 2 || mat2.getRank() != 3 || offs.getRank() != 1)
    return emitOptionalError(loc,
                             "grouped_mm takes a 2-d self, a 3-d mat2 and 1-d "
                             "offs, got ranks ",
                             self.getRank(), ", ", mat2.getRank(), " and ",
                             offs.getRank());
  mat2 = maybeTransposed(mat2, adaptor.getTransposeMat2());
  if (failed(checkSameDtype(self, mat2, loc)) ||
      failed(checkSizesMatch(self.getDimSize(1), mat2.getDimSize(1),
                             "contraction sizes", loc)) ||
      failed(checkSizesMatch(mat2.getDimSize(0), offs.getDimSize(0),
                             "group counts of mat2 and offs", loc)))
    return failure();
  types.push_back(makeTensor({self.getDimSize(0), mat2.getDimSize(2)},
                             self.getElementType()));
  return success();
}

LogicalResult AddmmOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  if (failed(inferMatmul(tensorTypeOf(adaptor.getMat1()),
                         tensorTypeOf(adaptor.getMat2()), 2, loc, types,
                         adaptor.getTransposeMat1(),
                         adaptor.getTransposeMat2())))
    return failure();
  auto product = cast<RankedTensorType>(types.back());
  auto self = tensorTypeOf(adaptor.getSelf());
  if (failed(checkSameDtype(self, product, loc)))
    return failure();
  FailureOr<Shape> shape =
      broadcastShapes({self.getShape(), product.getShape()}, loc);
  if (failed(shape))
    return failure();
  if (!shapesCompatible(product.getShape(), *shape))
    return emitOptionalError(loc, "self ", self,
                             " does not broadcast to the product ", product);
  return success();
}

LogicalResult ConvolutionOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  auto input = tensorTypeOf(adaptor.getInput());
  auto weight = tensorTypeOf(adaptor.getWeight());
  int64_t rank = input.getRank();
  if (rank < 3 || rank > 5)
    return emitOptionalError(loc,
                             "convolution input must be [N, C, *spatial] "
                             "with 1 to 3 spatial dimensions, got rank ",
                             rank);
  if (weight.getRank() != rank)
    return emitOptionalError(loc,
                             "convolution weight must have the input's "
                             "rank ",
                             rank, ", got ", weight.getRank());
  if (input.getElementType() != weight.getElementType())
    return emitOptionalError(loc,
                             "convolution input and weight must have the "
                             "same dtype, got ",
                             input.getElementType(), " and ",
                             weight.getElementType());
  if (getDtypeCategory(input.getElementType()) != DtypeCategory::Float)
    return emitOptionalError(loc,
                             "convolution needs a floating-point input, "
                             "got ",
                             input.getElementType());
  int64_t spatial = rank - 2;
  ArrayRef<int64_t> stride = adaptor.getStride(),
                    padding = adaptor.getPadding(),
                    dilation = adaptor.getDilation();
  for (auto [name, list] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"stride", stride},
        {"padding", padding},
        {"dilation", dilation}})
    if (static_cast<int64_t>(list.size()) != spatial)
      return emitOptionalError(loc, "convolution ", name, " must have ",
                               spatial, " entries, got ", list.size());
  for (int64_t d = 0; d < spatial; ++d)
    if (stride[d] < 1 || dilation[d] < 1 || padding[d] < 0)
      return emitOptionalError(loc,
                               "convolution needs stride and dilation >= "
                               "1 and padding >= 0 in spatial dimension ",
                               d);
  bool transposed = adaptor.getTransposed();
  SmallVector<int64_t> outputPadding(spatial, 0);
  if (std::optional<ArrayRef<int64_t>> given = adaptor.getOutputPadding()) {
    if (!transposed)
      return emitOptionalError(loc, "convolution output_padding needs "
                                    "`transposed`");
    if (static_cast<int64_t>(given->size()) != spatial)
      return emitOptionalError(loc, "convolution output_padding must have ",
                               spatial, " entries, got ", given->size());
    outputPadding.assign(given->begin(), given->end());
  }
  for (int64_t d = 0; d < spatial; ++d)
    if (outputPadding[d] < 0 ||
        (outputPadding[d] >= stride[d] && outputPadding[d] >= dilation[d]))
      return emitOptionalError(loc, "convolution output_padding ",
                               outputPadding[d],
                               " must be >= 0 and smaller than the stride or "
                               "the dilation in spatial dimension ",
                               d);
  int64_t groups = static_cast<int64_t>(adaptor.getGroups());
  if (groups < 1)
    return emitOptionalError(loc, "convolution groups must be >= 1, got ",
                             groups);
  // Transposed: the weight is [C, O / groups, *kernel].
  int64_t channels = input.getDimSize(1);
  int64_t perGroup = weight.getDimSize(1), outChannels = weight.getDimSize(0);
  if (transposed) {
    int64_t weightChannels = weight.getDimSize(0);
    outChannels = ShapedType::isDynamic(perGroup) ? ShapedType::kDynamic
                                                  : perGroup * groups;
    if (!ShapedType::isDynamic(channels) &&
        !ShapedType::isDynamic(weightChannels) && channels != weightChannels)
      return emitOptionalError(loc, "transposed convolution input has ",
                               channels, " channels, the weight ",
                               weightChannels);
    if (!ShapedType::isDynamic(weightChannels) && weightChannels % groups != 0)
      return emitOptionalError(loc, "transposed convolution's ",
                               weightChannels,
                               " input channels do not split into ", groups,
                               " groups");
  } else {
    if (!ShapedType::isDynamic(channels) && !ShapedType::isDynamic(perGroup) &&
        channels != perGroup * groups)
      return emitOptionalError(loc, "convolution input has ", channels,
                               " channels, the weight expects ", perGroup,
                               " per group times ", groups, " groups");
    if (!ShapedType::isDynamic(outChannels) && outChannels % groups != 0)
      return emitOptionalError(loc, "convolution weight's ", outChannels,
                               " output channels do not split into ", groups,
                               " groups");
  }
  if (Value bias = adaptor.getBias()) {
    auto biasType = tensorTypeOf(bias);
    if (biasType.getRank() != 1 ||
        !shapesCompatible(biasType.getShape(), {outChannels}))
      return emitOptionalError(loc, "convolution bias must be [", outChannels,
                               "], got ", biasType);
    if (biasType.getElementType() != input.getElementType())
      return emitOptionalError(loc,
                               "convolution bias must have the input's "
                               "dtype ",
                               input.getElementType(), ", got ",
                               biasType.getElementType());
  }
  Shape shape{input.getDimSize(0), outChannels};
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t in = input.getDimSize(2 + d), kernel = weight.getDimSize(2 + d);
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    int64_t window = dilation[d] * (kernel - 1) + 1;
    if (transposed) {
      int64_t size = transposedConvolutionSize(in, kernel, padding[d], stride[d],
                                               dilation[d], outputPadding[d]);
      if (size < 1)
        return emitOptionalError(loc, "transposed convolution output size ",
                                 size, " is not positive in spatial dimension ",
                                 d);
      shape.push_back(size);
      continue;
    }
    int64_t padded = in + 2 * padding[d];
    if (padded < window)
      return emitOptionalError(loc, "convolution window of ", window,
                               " is larger than the padded input's ", padded,
                               " in spatial dimension ", d);
    shape.push_back(poolingOutputSize(in, kernel, padding[d], stride[d],
                                      dilation[d], /*ceilMode=*/false));
  }
  types.push_back(makeTensor(shape, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization, softmax, attention
//===----------------------------------------------------------------------===//

static LogicalResult checkNormParams(RankedTensorType input, int64_t ndim,
                                     Value weight, Value bias, OptLoc loc) {
  if (ndim < 1 || ndim > input.getRank())
    return emitOptionalError(loc, "normalized_ndim ", ndim,
                             " must be in [1, rank] for a tensor of rank ",
                             input.getRank());
  ArrayRef<int64_t> normalized = input.getShape().take_back(ndim);
  for (auto [name, v] : {std::pair<StringRef, Value>{"weight", weight},
                         std::pair<StringRef, Value>{"bias", bias}}) {
    if (!v)
      continue;
    auto t = tensorTypeOf(v);
    if (t.getRank() != ndim)
      return emitOptionalError(loc, name, " must have rank ", ndim,
                               " (the normalized shape), got ", t.getRank());
    for (auto [a, b] : llvm::zip(t.getShape(), normalized))
      if (failed(checkSizesMatch(a, b, (name + " and input sizes").str(), loc)))
        return failure();
  }
  return success();
}

// The pooled shape of `self`: the last kernel.size() dimensions pooled.
static FailureOr<Shape> inferPooledShape(RankedTensorType self,
                                         ArrayRef<int64_t> kernel,
                                         ArrayRef<int64_t> stride,
                                         ArrayRef<int64_t> padding,
                                         ArrayRef<int64_t> dilation,
                                         bool ceilMode, StringRef what,
                                         OptLoc loc) {
  int64_t pooled = static_cast<int64_t>(kernel.size());
  if (pooled < 1 || pooled > 3 || self.getRank() <= pooled)
    return emitOptionalError(loc, what, " pools 1 to 3 dimensions after at "
                             "least one kept one, got a kernel of ",
                             pooled, " for rank ", self.getRank());
  for (auto [name, list] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"stride", stride},
        {"padding", padding},
        {"dilation", dilation}})
    if (static_cast<int64_t>(list.size()) != pooled)
      return emitOptionalError(loc, what, " ", name, " must have ", pooled,
                               " entries, got ", list.size());
  Shape shape(self.getShape().drop_back(pooled));
  for (int64_t d = 0; d < pooled; ++d) {
    if (kernel[d] < 1 || stride[d] < 1 || dilation[d] < 1 || padding[d] < 0 ||
        2 * padding[d] > kernel[d])
      return emitOptionalError(loc, what, " needs kernel, stride and dilation "
                               ">= 1 and 0 <= padding <= kernel / 2 in pooled "
                               "dimension ",
                               d);
    int64_t in = self.getDimSize(self.getRank() - pooled + d);
    if (ShapedType::isDynamic(in)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    int64_t out = poolingOutputSize(in, kernel[d], padding[d], stride[d],
                                    dilation[d], ceilMode);
    if (out < 1)
      return emitOptionalError(loc, what, " window is larger than the padded "
                               "input in pooled dimension ",
                               d);
    shape.push_back(out);
  }
  return shape;
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *context, OptLoc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto self = tensorTypeOf(adaptor.getSelf());
  if (getDtypeCategory(self.getElementType()) != DtypeCategory::Float)
    return emitOptionalError(loc, "max_pool needs a floating-point input, got ",
                             self.getElementType());
  FailureOr<Shape> shape = inferPooledShape(
      self, adaptor.getKernelSize(), adaptor.getStride(), adaptor.getPadding(),
      adaptor.getDilation(), static_cast<bool>(adaptor.getCeilModeAttr()),
      "max_pool", loc);
  if (failed(shape))
    return failure();
  types.push_back(makeTensor(*shape, self.getElementType()));
  types.push_back(makeTensor(*shape, IntegerType::get(context, 64)));
  return success();
}

LogicalResult AvgPoolOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto self = tensorTypeOf(adaptor.getSelf());
  if (getDtypeCategory(self.getElementType()) != DtypeCategory::Float)
    return emitOptionalError(loc, "avg_pool needs a floating-point input, got ",
                             self.getElementType());
  SmallVector<int64_t> ones(adaptor.getKernelSize().size(), 1);
  FailureOr<Shape> shape = inferPooledShape(
      self, adaptor.getKernelSize(), adaptor.getStride(), adaptor.getPadding(),
      ones, static_cast<bool>(adaptor.getCeilModeAttr()), "avg_pool", loc);
  if (failed(shape))
    return failure();
  if (auto divisor = adaptor.getDivisorOverrideAttr();
      divisor && divisor.getInt() == 0)
    return emitOptionalError(loc, "avg_pool divisor_override must not be 0");
  types.push_back(makeTensor(*shape, self.getElementType()));
  return success();
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto input = tensorTypeOf(adaptor.getInput());
  if (input.getRank() < 2)
    return emitOptionalError(loc, "batch_norm input must be [N, C, ...], got "
                                  "rank ",
                             input.getRank());
  Type dtype = input.getElementType();
  if (getDtypeCategory(dtype) != DtypeCategory::Float)
    return emitOptionalError(loc, "batch_norm needs a floating-point input, "
                                  "got ",
                             dtype);
  int64_t channels = input.getDimSize(1);
  for (auto [name, v] :
       {std::pair<StringRef, Value>{"running_mean", adaptor.getRunningMean()},
        {"running_var", adaptor.getRunningVar()},
        {"weight", adaptor.getWeight()},
        {"bias", adaptor.getBias()}}) {
    if (!v)
      continue;
    auto t = tensorTypeOf(v);
    if (t.getRank() != 1 || !shapesCompatible(t.getShape(), {channels}))
      return emitOptionalError(loc, "batch_norm ", name, " must be [",
                               channels, "] (the channels), got ", t);
    if (t.getElementType() != dtype && !t.getElementType().isF32())
      return emitOptionalError(loc, "batch_norm ", name,
                               " must have the input's dtype or f32, got ",
                               t.getElementType());
  }
  types.push_back(input);
  return success();
}

LogicalResult
NativeLayerNormOp::inferReturnTypes(MLIRContext *context, OptLoc loc,
                                    Adaptor adaptor,
                                    SmallVectorImpl<Type> &types) {
  auto input = tensorTypeOf(adaptor.getInput());
  int64_t ndim = static_cast<int64_t>(adaptor.getNormalizedNdim());
  if (failed(checkNormParams(input, ndim, adaptor.getWeight(),
                             adaptor.getBias(), loc)))
    return failure();
  Shape stats(input.getShape());
  for (int64_t d = input.getRank() - ndim; d < input.getRank(); ++d)
    stats[d] = 1;
  Type statsDtype = isHalfDtype(input.getElementType())
                        ? Float32Type::get(context)
                        : input.getElementType();
  types.push_back(input);
  types.push_back(makeTensor(stats, statsDtype));
  types.push_back(makeTensor(stats, statsDtype));
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto input = tensorTypeOf(adaptor.getInput());
  if (failed(checkNormParams(input,
                             static_cast<int64_t>(adaptor.getNormalizedNdim()),
                             adaptor.getWeight(), adaptor.getBias(), loc)))
    return failure();
  types.push_back(input);
  return success();
}

LogicalResult RmsNormOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto input = tensorTypeOf(adaptor.getInput());
  if (input.getRank() == 0)
    return emitOptionalError(loc, "rms_norm needs a tensor of rank >= 1");
  if (getDtypeCategory(input.getElementType()) != DtypeCategory::Float)
    return emitOptionalError(loc, "rms_norm needs a floating-point input, "
                                  "got ",
                             input.getElementType());
  Type dtype = input.getElementType();
  if (Value weight = adaptor.getWeight()) {
    if (failed(checkNormParams(input, 1, weight, Value(), loc)))
      return failure();
    dtype = promoteDtypes(dtype, tensorTypeOf(weight).getElementType());
  }
  types.push_back(makeTensor(input.getShape(), dtype));
  return success();
}

LogicalResult
RotaryEmbeddingOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                    Adaptor adaptor,
                                    SmallVectorImpl<Type> &types) {
  return inferElementwise(adaptor.getOperands(), Type(), loc, types);
}

LogicalResult RotaryEmbeddingOp::verify() {
  auto x = cast<RankedTensorType>(getX().getType());
  if (x.getRank() == 0)
    return emitOpError("x must have rank >= 1");
  int64_t d = x.getDimSize(x.getRank() - 1);
  if (!ShapedType::isDynamic(d) && d % 2 != 0)
    return emitOpError("the last dimension of x must be even to rotate "
                       "halves, got ")
           << d;
  return success();
}

template <typename AdaptorT>
static LogicalResult inferSoftmax(AdaptorT adaptor, OptLoc loc,
                                  SmallVectorImpl<Type> &types) {
  auto type = tensorTypeOf(adaptor.getSelf());
  if (failed(normalizeDim(static_cast<int64_t>(adaptor.getDim()),
                          type.getRank(), loc)))
    return failure();
  if (getDtypeCategory(type.getElementType()) != DtypeCategory::Float)
    return emitOptionalError(loc, "softmax needs a floating-point input, got ",
                             type.getElementType());
  Type dtype = type.getElementType();
  if (isSet(adaptor.getHalfToFloatAttr())) {
    if (!isHalfDtype(dtype))
      return emitOptionalError(loc, "half_to_float needs an f16 or bf16 "
                                    "input, got ",
                               dtype);
    dtype = Float32Type::get(dtype.getContext());
  }
  types.push_back(makeTensor(type.getShape(), dtype));
  return success();
}

LogicalResult SoftmaxOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferSoftmax(adaptor, loc, types);
}

LogicalResult LogSoftmaxOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  return inferSoftmax(adaptor, loc, types);
}

// Checks q/k/v of attention and returns the result shape.
static FailureOr<Shape> attentionShape(RankedTensorType q, RankedTensorType k,
                                       RankedTensorType v, bool allowGqa,
                                       OptLoc loc) {
  int64_t rank = q.getRank();
  if (rank < 2 || k.getRank() != rank || v.getRank() != rank)
    return emitOptionalError(loc, "query, key and value must have the same "
                                  "rank >= 2, got ",
                             q.getRank(), ", ", k.getRank(), ", ",
                             v.getRank());
  if (q.getElementType() != k.getElementType() ||
      q.getElementType() != v.getElementType())
    return emitOptionalError(loc, "query, key and value must have the same "
                                  "dtype");
  if (failed(checkSizesMatch(q.getDimSize(rank - 1), k.getDimSize(rank - 1),
                             "query and key head sizes", loc)) ||
      failed(checkSizesMatch(k.getDimSize(rank - 2), v.getDimSize(rank - 2),
                             "key and value sequence lengths", loc)))
    return failure();
  for (int64_t d = 0; d < rank - 3; ++d)
    if (failed(checkSizesMatch(q.getDimSize(d), k.getDimSize(d),
                               "batch sizes", loc)))
      return failure();
  if (rank >= 3) {
    int64_t hq = q.getDimSize(rank - 3), hk = k.getDimSize(rank - 3);
    if (failed(checkSizesMatch(hk, v.getDimSize(rank - 3),
                               "key and value head counts", loc)))
      return failure();
    if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hk) && hq != hk) {
      if (!allowGqa)
        return emitOptionalError(loc, "query and key head counts differ (",
                                 hq, " vs ", hk, ")");
      if (hk == 0 || hq % hk != 0)
        return emitOptionalError(loc, "query heads (", hq,
                                 ") must be a multiple of key/value heads (",
                                 hk, ")");
    }
  }
  Shape shape(q.getShape());
  shape.back() = v.getDimSize(rank - 1);
  return shape;
}

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto q = tensorTypeOf(adaptor.getQuery());
  auto k = tensorTypeOf(adaptor.getKey()), v = tensorTypeOf(adaptor.getValue());
  // Absent while an op is built from attributes without it: the default.
  StringRef layout = adaptor.getLayoutAttr() ? adaptor.getLayoutAttr().getValue() : "bhsd";
  if (layout != "bhsd" && layout != "bshd")
    return emitOptionalError(loc, "layout must be 'bhsd' or 'bshd', got '", layout, "'");
  bool sequenceMajor = layout == "bshd";
  // [B, S, H, D] checked as the [B, H, S, D] it stands for.
  auto headsFirst = [](RankedTensorType t) {
    return RankedTensorType::get(swapHeadsAndSequence(t.getShape()), t.getElementType());
  };
  if (sequenceMajor) {
    if (q.getRank() != 4 || k.getRank() != 4 || v.getRank() != 4)
      return emitOptionalError(loc, "layout 'bshd' needs query, key and value of rank 4");
    q = headsFirst(q);
    k = headsFirst(k);
    v = headsFirst(v);
  }
  FailureOr<Shape> shape = attentionShape(q, k, v, /*allowGqa=*/true, loc);
  if (failed(shape))
    return failure();
  types.push_back(makeTensor(sequenceMajor ? Shape(swapHeadsAndSequence(*shape)) : *shape,
                            q.getElementType()));
  return success();
}

LogicalResult
EfficientAttentionOp::inferReturnTypes(MLIRContext *context, OptLoc loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto q = tensorTypeOf(adaptor.getQuery());
  if (q.getRank() != 4)
    return emitOptionalError(loc, "query must be 4-d [B, H, L, E], got rank ",
                             q.getRank());
  FailureOr<Shape> shape =
      attentionShape(q, tensorTypeOf(adaptor.getKey()),
                     tensorTypeOf(adaptor.getValue()), /*allowGqa=*/false, loc);
  if (failed(shape))
    return failure();
  int64_t lseLength = 0;
  if (isSet(adaptor.getComputeLogSumexpAttr())) {
    int64_t l = q.getDimSize(2);
    lseLength = ShapedType::isDynamic(l) ? kDyn : (l + 31) / 32 * 32;
  }
  Type i64 = IntegerType::get(context, 64);
  types.push_back(makeTensor(*shape, q.getElementType()));
  types.push_back(makeTensor({q.getDimSize(0), q.getDimSize(1), lseLength},
                             Float32Type::get(context)));
  types.push_back(makeTensor({}, i64));
  types.push_back(makeTensor({}, i64));
  return success();
}

LogicalResult CudnnAttentionOp::verify() {
  auto q = cast<RankedTensorType>(getQuery().getType());
  if (q.getRank() != 4)
    return emitOpError("query must be 4-d [B, H, L, E], got rank ") << q.getRank();
  FailureOr<Shape> shape = attentionShape(
      q, cast<RankedTensorType>(getKey().getType()),
      cast<RankedTensorType>(getValue().getType()), /*allowGqa=*/false, getLoc());
  if (failed(shape))
    return failure();
  auto result = cast<RankedTensorType>(getResult().getType());
  if (!shapesCompatible(result.getShape(), *shape) ||
      result.getElementType() != q.getElementType())
    return emitOpError("result ") << result << " is not the attention's "
                                  << makeTensor(*shape, q.getElementType());
  return success();
}

//===----------------------------------------------------------------------===//
// Assertions and opaque ops
//===----------------------------------------------------------------------===//

LogicalResult AssertTensorMetadataOp::canonicalize(AssertTensorMetadataOp op,
                                                   PatternRewriter &rewriter) {
  rewriter.eraseOp(op);
  return success();
}

LogicalResult AssertTensorMetadataOp::verify() {
  auto type = cast<RankedTensorType>(getSelf().getType());
  if (auto dtype = getDtypeAttr(); dtype && dtype.getValue() != type.getElementType())
    return emitOpError("asserts dtype ")
           << dtype.getValue() << " but the tensor has dtype "
           << type.getElementType();
  return success();
}

LogicalResult OpaqueOp::verify() {
  StringRef name = getOpName();
  size_t sep = name.find("::");
  if (sep == StringRef::npos || sep == 0 || sep + 2 == name.size())
    return emitOpError("op name must be qualified as 'namespace::name', got '")
           << name << "'";
  return success();
}

ArrayRef<StringRef> magi::torchOpNamesOf(OperationName name) {
  if (auto *model = name.getInterface<TorchOpInterface>())
    return model->getTorchOpNames();
  return {};
}

#include "magi/Dialect/Magi/IR/MagiInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "magi/Dialect/Magi/IR/MagiOps.cpp.inc"
