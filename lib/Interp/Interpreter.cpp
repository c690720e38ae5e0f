//===- Interpreter.cpp - Reference interpreter: the driver ----------------===//
//
// Walks the function body in order. Symbolic integers get their values from
// `magi.bind_symbolic_shape` on actual tensors; the scalar ops (arith.constant,
// magi.sym_*) compute on 0-d tensors; every tensor op goes to its op group.
// After each op, the computed results are checked against the declared types.
//
//===----------------------------------------------------------------------===//

#include "magi/Interp/Interpreter.h"
#include "Eval.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace magi::interp::detail;

namespace magi::interp {

namespace {

// Python's floor division and modulo on int64 (rounding toward -inf), for
// b != 0. INT64_MIN / -1 overflows (and traps on x86); PyTorch's int64 wraps
// it: INT64_MIN // -1 == INT64_MIN, INT64_MIN % -1 == 0.
int64_t floorDiv(int64_t a, int64_t b) {
  if (b == -1)
    return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t floorMod(int64_t a, int64_t b) {
  if (b == -1)
    return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
// The ceiling of a / b, for b != 0: floor((a + b - 1) / b) would overflow.
int64_t ceilDiv(int64_t a, int64_t b) {
  int64_t q = floorDiv(a, b);
  return floorMod(a, b) != 0 ? q + 1 : q;
}

class Interpreter {
public:
  explicit Interpreter(CalleeRunner runCallee, unsigned depth = 0)
      : runCallee(runCallee), depth(depth) {}
  FailureOr<SmallVector<Tensor>> run(func::FuncOp func, ArrayRef<Tensor> args);

private:
  LogicalResult evalOp(Operation *op);
  LogicalResult checkOperands(Operation *op);
  LogicalResult checkResults(Operation *op);
  LogicalResult evalBind(BindSymbolicShapeOp op);
  LogicalResult bindSymbol(BindSymbolicShapeOp op, Value symbol, int64_t value);
  LogicalResult evalConstant(Operation *op, Attribute value);
  LogicalResult evalItem(ItemOp item);
  LogicalResult evalSymBinary(Operation *op);
  LogicalResult evalSymBool(Operation *op);
  LogicalResult evalCall(func::CallOp call);
  LogicalResult evalIf(scf::IfOp op);
  LogicalResult evalWhile(scf::WhileOp op);
  LogicalResult evalExtract(tensor::ExtractOp op);
  /// Runs `block` up to its terminator with `args` as its arguments, and
  /// gives the terminator (not evaluated) and the values of its operands.
  LogicalResult runBlock(Block &block, ArrayRef<Tensor> args,
                         Operation *&terminator, SmallVector<Tensor> &yielded);

  Env env;
  // Runs callees instead of a nested interpreter when set.
  CalleeRunner runCallee;
  // How many calls deep this function runs (split graphs call their pieces).
  unsigned depth;
};

// Deeper than any graph of pieces needs; it stops runaway recursion.
constexpr unsigned kMaxCallDepth = 64;

} // namespace

// The tensor a scalar argument of MLIR type `type` is passed as.
static Type scalarTensorDtype(Type type) {
  if (type.isIndex())
    return IntegerType::get(type.getContext(), 64);
  return type;
}

LogicalResult checkArguments(func::FuncOp func, ArrayRef<Tensor> args) {
  if (args.size() != func.getNumArguments())
    return func.emitError("expected ")
           << func.getNumArguments() << " arguments, got " << args.size();
  for (auto [i, arg] : llvm::enumerate(args)) {
    Type type = func.getArgument(i).getType();
    auto describe = [&, i = i]() {
      return "argument " + std::to_string(i) + " (" + getArgumentName(func, i) +
             ")";
    };
    if (!arg.hasDtype())
      return func.emitError() << describe() << " has no value";
    auto tensorType = dyn_cast<RankedTensorType>(type);
    Type dtype =
        tensorType ? tensorType.getElementType() : scalarTensorDtype(type);
    if (arg.getDtype() != dtype)
      return func.emitError() << describe() << " has dtype " << arg.getDtype()
                              << ", but the graph expects " << dtype;
    ArrayRef<int64_t> expected =
        tensorType ? tensorType.getShape() : ArrayRef<int64_t>();
    bool matches = static_cast<int64_t>(expected.size()) == arg.getRank();
    for (size_t d = 0; matches && d < expected.size(); ++d)
      matches = ShapedType::isDynamic(expected[d]) ||
                expected[d] == arg.getShape()[d];
    if (!matches)
      return func.emitError()
             << describe() << " has shape " << formatShape(arg.getShape())
             << ", but the graph expects " << type;
  }
  return success();
}

FailureOr<SmallVector<Tensor>> Interpreter::run(func::FuncOp func,
                                                ArrayRef<Tensor> args) {
  if (func.isExternal())
    return func.emitError("cannot interpret a function without a body");
  if (!func.getBody().hasOneBlock())
    return func.emitError("cannot interpret a function with several blocks");
  if (failed(checkArguments(func, args)))
    return failure();
  Operation *terminator = nullptr;
  SmallVector<Tensor> results;
  if (failed(runBlock(func.getBody().front(), args, terminator, results)))
    return failure();
  if (!isa<func::ReturnOp>(terminator))
    return func.emitError("the function body does not end in func.return");
  return results;
}

LogicalResult Interpreter::runBlock(Block &block, ArrayRef<Tensor> args,
                                    Operation *&terminator,
                                    SmallVector<Tensor> &yielded) {
  for (auto [value, arg] : llvm::zip(block.getArguments(), args))
    if (!value.use_empty())
      env.set(value, arg);

  // Values are dropped after their last use, so memory holds only the live
  // ones. A use inside a nested region counts as its op's in this block, and
  // only this block's own values are dropped here: a loop body runs again
  // and reads the values from outside it each time.
  DenseMap<Value, Operation *> lastUser;
  for (Operation &op : block)
    op.walk([&](Operation *nested) {
      for (Value v : nested->getOperands())
        lastUser[v] = &op;
    });
  auto dropIfLast = [&](Value v, Operation *op) {
    if (v.getParentBlock() == &block && lastUser.lookup(v) == op)
      env.erase(v);
  };

  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      if (failed(checkOperands(&op)))
        return failure();
      terminator = &op;
      yielded.clear();
      for (Value v : op.getOperands())
        yielded.push_back(env.get(v));
      for (Value v : op.getOperands())
        dropIfLast(v, &op);
      return success();
    }
    if (failed(evalOp(&op)))
      return failure();
    op.walk([&](Operation *nested) {
      for (Value v : nested->getOperands())
        dropIfLast(v, &op);
    });
    for (Value v : op.getResults())
      if (v.use_empty())
        env.erase(v);
  }
  return block.getParentOp()->emitError("a block without a terminator");
}

LogicalResult Interpreter::checkOperands(Operation *op) {
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    if (env.contains(v))
      continue;
    if (auto symbol = v.getDefiningOp<SymbolicIntOp>())
      return op->emitError("symbol '")
             << symbol.getName()
             << "' has no value: no magi.bind_symbolic_shape before this op "
                "binds it to a size";
    return op->emitError("operand ") << i << " has no value";
  }
  return success();
}

LogicalResult Interpreter::checkResults(Operation *op) {
  for (Value result : op->getResults()) {
    if (!env.contains(result))
      return op->emitError("the interpreter computed no value for result ")
             << cast<OpResult>(result).getResultNumber();
    const Tensor &value = env.get(result);
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type)
      continue;
    bool matches = value.getDtype() == type.getElementType() &&
                   value.getRank() == type.getRank();
    for (int64_t d = 0; matches && d < type.getRank(); ++d)
      matches =
          type.isDynamicDim(d) || type.getDimSize(d) == value.getShape()[d];
    if (!matches)
      return op->emitError("computed a result of shape ")
             << formatShape(value.getShape()) << " and dtype "
             << value.getDtype() << " that contradicts the declared type "
             << type;
  }
  return success();
}

LogicalResult Interpreter::evalOp(Operation *op) {
  // Symbols have no value until a binding gives them one.
  if (isa<SymbolicIntOp>(op))
    return success();
  if (auto bind = dyn_cast<BindSymbolicShapeOp>(op))
    return evalBind(bind);
  if (auto item = dyn_cast<ItemOp>(op))
    return evalItem(item);
  if (auto opaque = dyn_cast<OpaqueOp>(op)) {
    return op->emitError("cannot interpret '")
           << op->getName() << "' (\"" << opaque.getOpName() << "\")";
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return evalIf(ifOp);
  if (auto whileOp = dyn_cast<scf::WhileOp>(op))
    return evalWhile(whileOp);
  if (op->getNumRegions() != 0)
    return op->emitError("cannot interpret '")
           << op->getName() << "': ops with regions are not supported";
  if (failed(checkOperands(op)))
    return failure();

  std::optional<LogicalResult> result =
      llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
          .Case([&](arith::ConstantOp c) {
            return evalConstant(op, c.getValue());
          })
          .Case([&](ConstantOp c) { return evalConstant(op, c.getValue()); })
          .Case([&](SymSizeOp s) -> LogicalResult {
            const Tensor &self = env.get(s.getSelf());
            auto dim = static_cast<int64_t>(s.getDim());
            if (dim < 0 || dim >= self.getRank())
              return op->emitError("dimension ")
                     << dim << " is out of range for a tensor of rank "
                     << self.getRank();
            env.set(s.getResult(),
                    Tensor::scalarInt(IntegerType::get(op->getContext(), 64),
                                      self.getShape()[dim]));
            return success();
          })
          .Case<SymAddOp, SymSubOp, SymMulOp, SymFloorDivOp, SymModOp, SymMinOp,
                SymMaxOp>([&](Operation *) { return evalSymBinary(op); })
          .Case<SymCompareOp, SymAndOp, SymOrOp, SymNotOp>(
              [&](Operation *) { return evalSymBool(op); })
          .Case([&](AssertSymbolicOp a) -> LogicalResult {
            if (env.getInt(a.getCondition()) == 0)
              return op->emitError("runtime assertion failed: ") << a.getMessage();
            return success();
          })
          .Case([&](func::CallOp call) { return evalCall(call); })
          .Case([&](tensor::ExtractOp e) { return evalExtract(e); })
          .Case([&](tensor::CastOp c) -> LogicalResult {
            // The declared type is checked below, like every result's.
            env.set(c.getResult(), env.get(c.getSource()));
            return success();
          })
          .Case([&](AssertTensorMetadataOp a) -> LogicalResult {
            std::optional<Type> dtype = a.getDtype();
            Type actual = env.get(a.getSelf()).getDtype();
            if (dtype && *dtype != actual)
              return op->emitError("assertion failed: the tensor has dtype ")
                     << actual << ", expected " << *dtype;
            return success();
          })
          .Default([&](Operation *) -> std::optional<LogicalResult> {
            if (auto r = evalElementwiseOp(op, env))
              return r;
            if (auto r = evalReductionOp(op, env))
              return r;
            if (auto r = evalShapeOp(op, env))
              return r;
            if (auto r = evalNNOp(op, env))
              return r;
            return std::nullopt;
          });
  if (!result)
    return op->emitError("cannot interpret '") << op->getName() << "'";
  if (failed(*result))
    return failure();
  return checkResults(op);
}

//===----------------------------------------------------------------------===//
// Control flow (cond and while_loop, imported as scf.if and scf.while)
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::evalIf(scf::IfOp op) {
  if (failed(checkOperands(op)))
    return failure();
  Region &branch =
      env.getInt(op.getCondition()) ? op.getThenRegion() : op.getElseRegion();
  if (branch.empty())
    return op.getNumResults() == 0
               ? success()
               : op.emitError("an scf.if with results has no else region");
  Operation *terminator = nullptr;
  SmallVector<Tensor> yielded;
  if (failed(runBlock(branch.front(), {}, terminator, yielded)))
    return failure();
  for (auto [result, value] : llvm::zip(op.getResults(), yielded))
    env.set(result, std::move(value));
  return checkResults(op);
}

LogicalResult Interpreter::evalWhile(scf::WhileOp op) {
  if (failed(checkOperands(op)))
    return failure();
  SmallVector<Tensor> carried;
  for (Value init : op.getInits())
    carried.push_back(env.get(init));
  // A size of the data computed inside the loop (a nonzero's count) is
  // new every iteration: the symbols its bindings give, unbound before
  // the loop, are forgotten before each iteration.
  llvm::SetVector<Value> boundInside;
  op->walk([&](BindSymbolicShapeOp bind) {
    for (Value symbol : bind.getShapeSymbols())
      if (!env.contains(symbol))
        boundInside.insert(symbol);
  });
  while (true) {
    for (Value symbol : boundInside)
      env.erase(symbol);
    Operation *terminator = nullptr;
    SmallVector<Tensor> forwarded;
    if (failed(runBlock(op.getBefore().front(), carried, terminator, forwarded)))
      return failure();
    if (!isa<scf::ConditionOp>(terminator))
      return op.emitError("the condition region does not end in scf.condition");
    // The condition is the terminator's first operand; the rest go on.
    bool again = forwarded.front().isNonZero(0);
    forwarded.erase(forwarded.begin());
    if (!again) {
      for (auto [result, value] : llvm::zip(op.getResults(), forwarded))
        env.set(result, std::move(value));
      return checkResults(op);
    }
    if (failed(runBlock(op.getAfter().front(), forwarded, terminator, carried)))
      return failure();
  }
}

LogicalResult Interpreter::evalExtract(tensor::ExtractOp op) {
  const Tensor &source = env.get(op.getTensor());
  int64_t linear = 0;
  for (auto [dim, index] : llvm::enumerate(op.getIndices())) {
    int64_t i = env.getInt(index);
    int64_t size = source.getShape()[dim];
    if (i < 0 || i >= size)
      return op.emitError("index ")
             << i << " is out of range for dimension " << dim << " of size "
             << size;
    linear = linear * size + i;
  }
  Tensor element(source.getDtype(), {});
  element.setFrom(0, source, linear);
  env.set(op.getResult(), std::move(element));
  return success();
}

//===----------------------------------------------------------------------===//
// Symbols and scalars
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::bindSymbol(BindSymbolicShapeOp op, Value symbol,
                                      int64_t value) {
  if (auto decl = symbol.getDefiningOp<SymbolicIntOp>()) {
    auto min = static_cast<int64_t>(decl.getMinVal());
    std::optional<uint64_t> max = decl.getMaxVal();
    if (value < min || (max && value > static_cast<int64_t>(*max))) {
      std::string range =
          "[" + std::to_string(min) + ", " +
          (max ? std::to_string(static_cast<int64_t>(*max)) : "inf") + "]";
      return op.emitError("symbol '")
             << decl.getName() << "' would be " << value
             << ", outside its range " << range;
    }
  }
  env.set(symbol,
          Tensor::scalarInt(IntegerType::get(op.getContext(), 64), value));
  return success();
}

static std::string toString(AffineExpr expr) {
  std::string text;
  llvm::raw_string_ostream(text) << expr;
  return text;
}

// Evaluates `expr` with symbol values `values` (nothing where unbound).
static std::optional<int64_t>
evalAffine(AffineExpr expr, ArrayRef<std::optional<int64_t>> values) {
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    return cast<AffineConstantExpr>(expr).getValue();
  case AffineExprKind::SymbolId:
    return values[cast<AffineSymbolExpr>(expr).getPosition()];
  case AffineExprKind::DimId:
    return std::nullopt;
  default:
    break;
  }
  auto binary = cast<AffineBinaryOpExpr>(expr);
  std::optional<int64_t> lhs = evalAffine(binary.getLHS(), values);
  std::optional<int64_t> rhs = evalAffine(binary.getRHS(), values);
  if (!lhs || !rhs)
    return std::nullopt;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return *lhs + *rhs;
  case AffineExprKind::Mul:
    return *lhs * *rhs;
  case AffineExprKind::FloorDiv:
    return *rhs == 0 ? std::nullopt : std::optional(floorDiv(*lhs, *rhs));
  case AffineExprKind::CeilDiv:
    return *rhs == 0 ? std::nullopt : std::optional(ceilDiv(*lhs, *rhs));
  case AffineExprKind::Mod:
    return *rhs == 0 ? std::nullopt : std::optional(floorMod(*lhs, *rhs));
  default:
    return std::nullopt;
  }
}

LogicalResult Interpreter::evalBind(BindSymbolicShapeOp op) {
  if (!env.contains(op.getOperand()))
    return checkOperands(op);
  ArrayRef<int64_t> shape = env.get(op.getOperand()).getShape();
  AffineMap map = op.getShapeExpressions();
  ValueRange symbols = op.getShapeSymbols();
  if (map.getNumResults() != shape.size())
    return op.emitError("binds ")
           << map.getNumResults() << " sizes, but the tensor has rank "
           << shape.size();

  auto currentValues = [&]() {
    SmallVector<std::optional<int64_t>> values;
    for (Value s : symbols)
      values.push_back(env.contains(s) ? std::optional(env.getInt(s))
                                       : std::nullopt);
    return values;
  };
  // Bind what can be bound: a bare symbol takes the size as is; an affine
  // expression with one unbound symbol `a * s + b` is solved for it. Repeat
  // while that binds something new.
  bool progress = true;
  while (progress) {
    progress = false;
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      SmallVector<std::optional<int64_t>> values = currentValues();
      if (evalAffine(expr, values))
        continue;
      SmallVector<unsigned> unbound;
      for (unsigned s = 0; s < symbols.size(); ++s)
        if (!values[s] && expr.isFunctionOfSymbol(s))
          unbound.push_back(s);
      if (unbound.size() != 1 || !expr.isPureAffine())
        continue;
      unsigned s = unbound.front();
      values[s] = 0;
      std::optional<int64_t> b = evalAffine(expr, values);
      values[s] = 1;
      std::optional<int64_t> aPlusB = evalAffine(expr, values);
      if (!b || !aPlusB || *aPlusB == *b)
        continue;
      int64_t a = *aPlusB - *b;
      if ((shape[d] - *b) % a != 0)
        return op.emitError("dimension ")
               << d << " has size " << shape[d] << ", which " << toString(expr)
               << " cannot take";
      if (failed(bindSymbol(op, symbols[s], (shape[d] - *b) / a)))
        return failure();
      progress = true;
    }
  }
  // Every expression must now agree with the actual size.
  SmallVector<std::optional<int64_t>> values = currentValues();
  for (auto [d, expr] : llvm::enumerate(map.getResults())) {
    std::optional<int64_t> expected = evalAffine(expr, values);
    if (expected && *expected != shape[d])
      return op.emitError("dimension ")
             << d << " has size " << shape[d] << ", but it is bound to "
             << toString(expr) << " = " << *expected;
  }
  return success();
}

// `tensor.item()` (aten._local_scalar_dense, kept opaque): the one element
// of its tensor as the scalar the op's result type names (an f64 for a
// float, an index or i64 for an integer, an i1 for a bool).
LogicalResult Interpreter::evalItem(ItemOp item) {
  if (failed(checkOperands(item)))
    return failure();
  const Tensor &self = env.get(item.getSelf());
  if (self.getNumElements() != 1)
    return item.emitError("a .item() of a tensor of ")
           << self.getNumElements() << " elements (it needs exactly one)";
  Type dtype = scalarTensorDtype(item.getResult().getType());
  if (isFloatDtype(dtype)) {
    env.set(item.getResult(), Tensor::scalar(dtype, self.getDouble(0)));
    return success();
  }
  int64_t value = self.getInt(0);
  // A clamped value acts as its clamp wherever it gives a size: any is valid.
  if (Value bound = item.getBound(); bound && !item.getClamped()) {
    int64_t most = env.get(bound).getInt(0);
    if (value < 0 || value > most)
      return item.emitError("read ")
             << value << ", outside its range [0, " << most << "]";
  }
  env.set(item.getResult(), Tensor::scalarInt(dtype, value));
  return success();
}

LogicalResult Interpreter::evalConstant(Operation *op, Attribute value) {
  Value result = op->getResult(0);
  if (auto i = dyn_cast<IntegerAttr>(value)) {
    Type dtype = scalarTensorDtype(result.getType());
    if (!getElementKind(dtype))
      return op->emitError("cannot interpret a constant of type ")
             << result.getType();
    int64_t v = i.getType().isInteger(1) || i.getType().isUnsignedInteger()
                    ? static_cast<int64_t>(i.getValue().getZExtValue())
                    : i.getValue().getSExtValue();
    env.set(result, Tensor::scalarInt(dtype, v));
    return success();
  }
  if (auto f = dyn_cast<FloatAttr>(value)) {
    if (!getElementKind(f.getType()))
      return op->emitError("cannot interpret a constant of type ")
             << f.getType();
    env.set(result, Tensor::scalar(f.getType(), f.getValueAsDouble()));
    return success();
  }
  auto type = dyn_cast<RankedTensorType>(result.getType());
  if (!type || !getElementKind(type.getElementType()) || !type.hasStaticShape())
    return op->emitError("cannot interpret a constant of type ")
           << result.getType();
  Tensor tensor(type.getElementType(), type.getShape());
  if (auto dense = dyn_cast<DenseIntOrFPElementsAttr>(value)) {
    if (isFloatDtype(type.getElementType())) {
      for (auto [i, v] : llvm::enumerate(dense.getValues<APFloat>()))
        tensor.setDouble(i, v.convertToDouble());
    } else {
      bool isUnsigned = type.getElementType().isUnsignedInteger() ||
                        type.getElementType().isInteger(1);
      for (auto [i, v] : llvm::enumerate(dense.getValues<APInt>()))
        tensor.setInt(i, isUnsigned ? static_cast<int64_t>(v.getZExtValue())
                                    : v.getSExtValue());
    }
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    // A blob in the dtype's own layout (one byte per bool).
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return op->emitError("the constant's resource blob '")
             << resource.getRawHandle().getKey() << "' is missing";
    ArrayRef<char> data = blob->getData();
    MutableArrayRef<char> bytes = tensor.getMutableBytes();
    if (data.size() != bytes.size())
      return op->emitError("the constant's resource blob holds ")
             << data.size() << " bytes, expected " << bytes.size();
    llvm::copy(data, bytes.begin());
  } else {
    return op->emitError("cannot interpret a constant attribute of kind ")
           << value;
  }
  env.set(result, std::move(tensor));
  return success();
}

LogicalResult Interpreter::evalSymBinary(Operation *op) {
  int64_t a = env.getInt(op->getOperand(0));
  int64_t b = env.getInt(op->getOperand(1));
  auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };
  std::optional<int64_t> r =
      llvm::TypeSwitch<Operation *, std::optional<int64_t>>(op)
          .Case([&](SymAddOp) {
            return wrap(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
          })
          .Case([&](SymSubOp) {
            return wrap(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
          })
          .Case([&](SymMulOp) {
            return wrap(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
          })
          .Case([&](SymFloorDivOp) -> std::optional<int64_t> {
            if (b == 0)
              return std::nullopt;
            return floorDiv(a, b);
          })
          .Case([&](SymModOp) -> std::optional<int64_t> {
            if (b == 0)
              return std::nullopt;
            return floorMod(a, b);
          })
          .Case([&](SymMinOp) { return std::min(a, b); })
          .Case([&](SymMaxOp) { return std::max(a, b); })
          .Default([](Operation *) { return std::nullopt; });
  if (!r)
    return op->emitError("integer division by zero");
  env.set(op->getResult(0),
          Tensor::scalarInt(IntegerType::get(op->getContext(), 64), *r));
  return success();
}

LogicalResult Interpreter::evalSymBool(Operation *op) {
  auto value = [&](unsigned i) { return env.getInt(op->getOperand(i)); };
  bool r = llvm::TypeSwitch<Operation *, bool>(op)
               .Case([&](SymCompareOp c) {
                 return SymCompareOp::compare(c.getPredicate(), value(0), value(1));
               })
               .Case([&](SymAndOp) { return value(0) != 0 && value(1) != 0; })
               .Case([&](SymOrOp) { return value(0) != 0 || value(1) != 0; })
               .Default([&](Operation *) { return value(0) == 0; }); // sym_not
  env.set(op->getResult(0), Tensor::scalarInt(IntegerType::get(op->getContext(), 1), r));
  return success();
}

LogicalResult Interpreter::evalCall(func::CallOp call) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  if (!callee)
    return call.emitError("cannot find the callee @") << call.getCallee();
  if (depth >= kMaxCallDepth)
    return call.emitError("calls nest deeper than ")
           << kMaxCallDepth << " functions";
  SmallVector<Tensor> args;
  for (Value v : call.getOperands())
    args.push_back(env.get(v));
  FailureOr<SmallVector<Tensor>> results =
      runCallee
          ? runCallee(callee, args)
          : Interpreter(/*runCallee=*/nullptr, depth + 1).run(callee, args);
  if (failed(results))
    return call.emitError("in this call of @") << call.getCallee();
  if (results->size() != call.getNumResults())
    return call.emitError("@")
           << call.getCallee() << " returned " << results->size()
           << " values, the call expects " << call.getNumResults();
  for (auto [value, result] : llvm::zip(call.getResults(), *results))
    env.set(value, std::move(result));
  return success();
}

FailureOr<SmallVector<Tensor>>
interpret(func::FuncOp func, ArrayRef<Tensor> args, CalleeRunner runCallee) {
  Interpreter interpreter(runCallee);
  return interpreter.run(func, args);
}

} // namespace magi::interp
