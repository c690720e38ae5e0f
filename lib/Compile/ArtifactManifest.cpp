//===- ArtifactManifest.cpp - a split module as the artifact's types ------===//

#include "magi/Compile/ArtifactManifest.h"
#include "magi/Target/LaunchPlan.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Import/TorchExport.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>

using namespace mlir;
namespace rt = magi::runtime;

namespace magi {
namespace {

std::string affineToString(AffineExpr expr, ArrayRef<std::string> symbols) {
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    return std::to_string(cast<AffineConstantExpr>(expr).getValue());
  case AffineExprKind::SymbolId:
    return symbols[cast<AffineSymbolExpr>(expr).getPosition()];
  case AffineExprKind::DimId:
    return "d" + std::to_string(cast<AffineDimExpr>(expr).getPosition());
  default:
    break;
  }
  auto binary = cast<AffineBinaryOpExpr>(expr);
  std::string lhs = affineToString(binary.getLHS(), symbols);
  std::string rhs = affineToString(binary.getRHS(), symbols);
  StringRef op = expr.getKind() == AffineExprKind::Add        ? "+"
                 : expr.getKind() == AffineExprKind::Mul      ? "*"
                 : expr.getKind() == AffineExprKind::FloorDiv ? "floordiv"
                 : expr.getKind() == AffineExprKind::CeilDiv  ? "ceildiv"
                                                              : "mod";
  return "(" + lhs + " " + op.str() + " " + rhs + ")";
}

FailureOr<rt::ValueType> valueType(Type type, Operation *where) {
  rt::ValueType result;
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return result; // an index
  std::optional<rt::Dtype> dtype = artifactDtype(tensor.getElementType());
  if (!dtype)
    return where->emitError() << "a tensor of " << tensor.getElementType()
                              << ", which the artifact has no dtype for";
  result.isTensor = true;
  result.dtype = *dtype;
  result.rank = tensor.getRank();
  return result;
}

FailureOr<rt::InputKind> inputKind(StringRef kind, Operation *where) {
  if (kind == "parameter") return rt::InputKind::Parameter;
  if (kind == "buffer") return rt::InputKind::Buffer;
  if (kind == "constant") return rt::InputKind::Constant;
  if (kind == "user_input") return rt::InputKind::UserInput;
  return where->emitError() << "an input of kind '" << kind
                            << "' (expected parameter, buffer, constant or "
                               "user_input)";
}

class GraphDescriber {
public:
  GraphDescriber(ModuleOp module, func::FuncOp graph)
      : module(module), graph(graph) {}

  FailureOr<SplitGraph> describe() {
    SplitGraph out;
    out.graph = graph;
    for (Operation &op : graph.getBody().front())
      if (auto sym = dyn_cast<SymbolicIntOp>(op))
        symbolNames[sym.getResult()] = sym.getName().str();
    // Bindings inside loops and branches too: a size of the data may be
    // computed there.
    graph.walk([&](BindSymbolicShapeOp bind) { bindings[bind.getOperand()] = bind; });
    findItemReads();
    if (failed(describeInputs(out.manifest)) ||
        failed(describeSymbols(out.manifest)) ||
        failed(describeChecks(out.manifest)) ||
        failed(describeCalls(out)))
      return failure();
    return out;
  }

private:
  ModuleOp module;
  func::FuncOp graph;
  llvm::DenseMap<Value, std::string> symbolNames;
  llvm::DenseMap<Value, BindSymbolicShapeOp> bindings;
  llvm::DenseMap<Value, rt::ValueRef> refs;
  llvm::DenseMap<func::FuncOp, unsigned> pieceIndex;
  // Where the calls being described are: the part of the loop or branch
  // holding them, and the loops around them, innermost last.
  rt::GraphPart currentPart;
  SmallVector<int64_t> loopStack;

  // A graph value's sizes over the symbols: its static sizes, and the
  // expressions its magi.bind_symbolic_shape gives the dynamic ones.
  FailureOr<std::vector<rt::Expr>> shapeOf(Value value, const std::string &what) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<std::string> names;
    BindSymbolicShapeOp bind = bindings.lookup(value);
    if (bind)
      for (Value s : bind.getShapeSymbols())
        names.push_back(symbolNames.lookup(s));
    std::vector<rt::Expr> shape;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      std::string text;
      if (!type.isDynamicDim(d))
        text = std::to_string(type.getDimSize(d));
      else if (bind)
        text = affineToString(bind.getShapeExpressions().getResult(d), names);
      else
        return graph.emitError() << what << " has dynamic size " << d
                                 << " bound to no symbol";
      std::string error;
      std::optional<rt::Expr> e = rt::Expr::tryParse(text, error);
      if (!e)
        return graph.emitError() << what << " size " << d << ": " << error;
      shape.push_back(std::move(*e));
    }
    return shape;
  }

  LogicalResult describeInputs(rt::Graph &g) {
    for (unsigned i = 0; i < graph.getNumArguments(); ++i) {
      auto type = dyn_cast<RankedTensorType>(graph.getArgument(i).getType());
      if (!type)
        return graph.emitError() << "argument " << i
                                 << " is not a ranked tensor";
      rt::GraphInput input;
      auto name = graph.getArgAttrOfType<StringAttr>(i, kNameAttr);
      input.name = name ? name.getValue().str() : "arg" + std::to_string(i);
      auto kind = graph.getArgAttrOfType<StringAttr>(i, kInputKindAttr);
      FailureOr<rt::InputKind> k =
          inputKind(kind ? kind.getValue() : "user_input", graph);
      FailureOr<rt::ValueType> vt = valueType(type, graph);
      if (failed(k) || failed(vt))
        return failure();
      input.kind = *k;
      input.dtype = vt->dtype;
      FailureOr<std::vector<rt::Expr>> shape =
          shapeOf(graph.getArgument(i), "argument " + std::to_string(i));
      if (failed(shape))
        return failure();
      input.shape = std::move(*shape);
      g.inputs.push_back(std::move(input));
      rt::ValueRef ref;
      ref.kind = rt::ValueRef::Kind::Input;
      ref.index = i;
      refs[graph.getArgument(i)] = ref;
    }
    return describeConcatenations(g);
  }

  // A concatenated weight (magi.concat_of) names its parts; the manifest
  // gives their input indices (the runtime checks the shapes).
  LogicalResult describeConcatenations(rt::Graph &g) {
    for (unsigned i = 0; i < graph.getNumArguments(); ++i) {
      if (!graph.getArgAttr(i, kConcatOfAttr))
        continue;
      if (!g.inputs[i].isWeight())
        return graph.emitError() << "argument " << i << " has " << kConcatOfAttr
                                 << " but is not a weight";
      FailureOr<SmallVector<unsigned>> parts = concatenationParts(graph, i);
      if (failed(parts))
        return failure();
      g.inputs[i].concatOf.assign(parts->begin(), parts->end());
    }
    return success();
  }

  // Each symbol is read from the first user input dimension that is
  // exactly the symbol.
  LogicalResult describeSymbols(rt::Graph &g) {
    for (Operation &op : graph.getBody().front()) {
      auto sym = dyn_cast<SymbolicIntOp>(op);
      if (!sym)
        continue;
      rt::GraphSymbol entry;
      entry.name = sym.getName().str();
      entry.min = sym.getMinVal();
      if (sym.getMaxVal())
        entry.max = *sym.getMaxVal();
      bool found = false;
      for (unsigned i = 0; i < graph.getNumArguments() && !found; ++i) {
        auto kind = graph.getArgAttrOfType<StringAttr>(i, kInputKindAttr);
        auto bind = bindings.lookup(graph.getArgument(i));
        if ((kind && kind.getValue() != "user_input") || !bind)
          continue;
        for (auto [d, result] :
             llvm::enumerate(bind.getShapeExpressions().getResults())) {
          auto symExpr = dyn_cast<AffineSymbolExpr>(result);
          if (symExpr &&
              bind.getShapeSymbols()[symExpr.getPosition()] == sym.getResult()) {
            entry.input = i;
            entry.dim = d;
            found = true;
            break;
          }
        }
      }
      if (!found && !definedByStep(sym.getResult(), entry))
        return sym.emitError() << "symbol " << sym.getName()
                               << " is not a size of any user input, nor a value or "
                                  "size a piece computes";
      rt::ValueRef ref;
      ref.kind = rt::ValueRef::Kind::Symbol;
      ref.symbol = entry.name;
      refs[sym.getResult()] = ref;
      g.symbols.push_back(std::move(entry));
    }
    // A named .item() no symbol declaration names: a symbol all the same,
    // for the assertions that read it.
    for (auto &[name, read] : itemReads) {
      if (llvm::any_of(g.symbols, [&](const rt::GraphSymbol &s) { return s.name == name; }))
        continue;
      rt::GraphSymbol entry;
      entry.name = name;
      entry.step = read.step;
      entry.result = read.result;
      entry.dim = -1;
      // A value that gives no size has no minimum (read anew inside a loop
      // or branch, a bool predicate too); a bool is at most 1.
      if (read.anyValue)
        entry.min = std::nullopt;
      entry.max = read.isBool ? std::optional<int64_t>(1) : read.max;
      g.symbols.push_back(std::move(entry));
    }
    return success();
  }

  // The step (each call of the top level is one, in order) and result a
  // named magi.item's value comes out of.
  struct StepValue {
    int64_t step = 0;
    int64_t result = 0;
    bool isBool = false;
    bool anyValue = false; // it gives no size (magi.read_any_value) or is clamped
    std::optional<int64_t> max;
  };
  std::map<std::string, StepValue> itemReads;

  // The calls that are the artifact's steps, in step order: the top
  // level's, and where a loop or branch stands its regions', in order (a
  // loop's condition, then its body: graph.loops; a branch's then part,
  // then its else part: graph.branches).
  SmallVector<func::CallOp> stepCalls() {
    // In the order of the text: a loop's or branch's regions in order, and
    // those inside them, however deep.
    SmallVector<func::CallOp> calls;
    graph.walk<WalkOrder::PreOrder>([&](func::CallOp call) { calls.push_back(call); });
    return calls;
  }

  void findItemReads() {
    int64_t step = 0;
    for (auto call : stepCalls()) {
      auto piece = module.lookupSymbol<func::FuncOp>(call.getCallee());
      if (piece && !piece.isExternal()) {
        auto ret = cast<func::ReturnOp>(piece.getBody().front().getTerminator());
        for (auto [k, v] : llvm::enumerate(ret.getOperands()))
          if (auto item = v.getDefiningOp<ItemOp>(); item && item.getSymbol()) {
            StepValue read{step, int64_t(k)};
            // Its range, for a symbol no declaration names: a bool's is
            // [0, 1], an integer's [0, its bound] (the runtime refuses a
            // read outside [0, bound]), or any integer when it gives no
            // size or acts as its clamp (clamped).
            read.isBool = cast<RankedTensorType>(item.getSelf().getType())
                              .getElementType()
                              .isInteger(1);
            read.anyValue = item->hasAttr(kReadAnyValueAttr) || item.getClamped();
            APInt bound;
            if (!item.getClamped() && item.getBound() &&
                matchPattern(item.getBound(), m_ConstantInt(&bound)))
              read.max = bound.getSExtValue();
            itemReads[item.getSymbol()->str()] = read;
            symbolNames[call.getResult(k)] = item.getSymbol()->str();
          }
      }
      ++step;
    }
  }

  // A symbol of the data: a named .item()'s value, or exactly one size of
  // a piece's result (the top level binds call results: magi-split).
  bool definedByStep(Value symbol, rt::GraphSymbol &entry) {
    if (auto it = itemReads.find(entry.name); it != itemReads.end()) {
      entry.step = it->second.step;
      entry.result = it->second.result;
      entry.dim = -1;
      return true;
    }
    int64_t step = 0;
    for (auto call : stepCalls()) {
      for (auto [k, result] : llvm::enumerate(call.getResults())) {
        BindSymbolicShapeOp bind = bindings.lookup(result);
        if (!bind)
          continue;
        for (auto [d, e] : llvm::enumerate(bind.getShapeExpressions().getResults())) {
          auto symExpr = dyn_cast<AffineSymbolExpr>(e);
          if (symExpr && bind.getShapeSymbols()[symExpr.getPosition()] == symbol) {
            entry.step = step;
            entry.result = int64_t(k);
            entry.dim = int64_t(d);
            return true;
          }
        }
      }
      ++step;
    }
    return false;
  }

  // The expression of symbolic arithmetic the runtime evaluates (a runtime
  // assertion's, a branch's condition), over the symbols' names (SymBools
  // as 0 and 1).
  FailureOr<std::string> hostExpr(Value v) {
    if (auto it = symbolNames.find(v); it != symbolNames.end())
      return it->second;
    Operation *def = v.getDefiningOp();
    if (auto c = dyn_cast_or_null<arith::ConstantOp>(def))
      if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
        return std::to_string(i.getType().isInteger(1) ? int64_t(!i.getValue().isZero())
                                                       : i.getValue().getSExtValue());
    if (!def || def->getNumOperands() == 0)
      return graph.emitError("a runtime assertion or branch condition reads a value that is "
                             "no symbolic arithmetic");
    SmallVector<std::string> args;
    for (Value operand : def->getOperands()) {
      FailureOr<std::string> e = hostExpr(operand);
      if (failed(e))
        return failure();
      args.push_back(*e);
    }
    auto infix = [&](StringRef op) {
      return "(" + args[0] + " " + op.str() + " " + args[1] + ")";
    };
    auto call = [&](StringRef fn) {
      return fn.str() + "(" + llvm::join(args, ", ") + ")";
    };
    return llvm::TypeSwitch<Operation *, FailureOr<std::string>>(def)
        .Case([&](SymAddOp) { return infix("+"); })
        .Case([&](SymSubOp) { return infix("-"); })
        .Case([&](SymMulOp) { return infix("*"); })
        .Case([&](SymFloorDivOp) { return infix("floordiv"); })
        .Case([&](SymModOp) { return infix("mod"); })
        .Case([&](SymMinOp) { return call("min"); })
        .Case([&](SymMaxOp) { return call("max"); })
        .Case([&](SymCompareOp c) { return call(c.getPredicate()); })
        .Case([&](SymAndOp) { return call("min"); })
        .Case([&](SymOrOp) { return call("max"); })
        .Case([&](SymNotOp) { return "eq(" + args[0] + ", 0)"; })
        .Default([&](Operation *op) -> FailureOr<std::string> {
          return op->emitError("a runtime assertion or branch condition reads '")
                 << op->getName() << "', which the artifact cannot express";
        });
  }

  // The runtime assertions the split kept in the graph (magi-split's
  // hoisting), each an expression over the symbols and its message; those
  // inside loops and branches too (the runtime checks each when a symbol
  // it reads is bound: there, one defined inside).
  LogicalResult describeChecks(rt::Graph &g) {
    SmallVector<AssertSymbolicOp> checks;
    graph.walk([&](AssertSymbolicOp check) { checks.push_back(check); });
    for (AssertSymbolicOp check : checks) {
      FailureOr<std::string> text = hostExpr(check.getCondition());
      if (failed(text))
        return failure();
      std::string error;
      std::optional<rt::Expr> e = rt::Expr::tryParse(*text, error);
      if (!e)
        return check.emitError("the runtime assertion's expression '")
               << *text << "' does not parse: " << error;
      g.checks.push_back(rt::GraphCheck{std::move(*e), check.getMessage().str()});
    }
    return success();
  }

  FailureOr<rt::ValueRef> refOf(Value v) {
    auto it = refs.find(v);
    if (it != refs.end()) {
      rt::ValueRef ref = it->second;
      // A carried value of a loop other than the innermost one here names
      // its loop (format 13).
      ref.namesLoop = ref.kind == rt::ValueRef::Kind::Carried &&
                      (loopStack.empty() || loopStack.back() != ref.index);
      return ref;
    }
    if (auto c = v.getDefiningOp<arith::ConstantOp>())
      if (auto i = dyn_cast<IntegerAttr>(c.getValue())) {
        rt::ValueRef ref;
        ref.kind = rt::ValueRef::Kind::Int;
        ref.value = i.getInt();
        return ref;
      }
    return graph.emitError("a value the artifact cannot pass between pieces");
  }

  // The outputs the importer marked as an input's new value (magi.mutates
  // names the input).
  LogicalResult describeMutations(rt::Graph &g) {
    for (unsigned i = 0; i < graph.getNumResults(); ++i) {
      auto target = graph.getResultAttrOfType<StringAttr>(i, kMutatesAttr);
      if (!target)
        continue;
      std::optional<int64_t> input;
      for (unsigned a = 0; a < graph.getNumArguments(); ++a)
        if (auto name = graph.getArgAttrOfType<StringAttr>(a, kNameAttr);
            name && name == target)
          input = a;
      if (!input)
        return graph.emitError() << "result " << i << " mutates '" << target.getValue()
                                 << "', which is no argument of the graph";
      g.mutations.push_back(rt::GraphMutation{int64_t(i), *input});
    }
    return success();
  }

  LogicalResult describeCalls(SplitGraph &out) {
    rt::Graph &g = out.manifest;
    for (Operation &op : graph.getBody().front()) {
      if (isa<SymbolicIntOp, BindSymbolicShapeOp, arith::ConstantOp, AssertSymbolicOp>(op) ||
          op.hasAttr(kHostArithmeticAttr))
        continue; // declarations, or checks (describeChecks)
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        // Output shapes are known when every dynamic size is bound (a
        // graph from torch.export; a hand-written one may leave them
        // unbound, and then records none: padding needs them).
        bool shapesKnown = true;
        for (Value v : ret.getOperands()) {
          FailureOr<rt::ValueRef> ref = refOf(v);
          if (failed(ref))
            return failure();
          g.outputs.push_back(*ref);
          auto type = dyn_cast<RankedTensorType>(v.getType());
          shapesKnown &= type && (type.hasStaticShape() || bindings.count(v));
        }
        for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
          if (!shapesKnown)
            break;
          FailureOr<std::vector<rt::Expr>> shape = shapeOf(v, "output " + std::to_string(i));
          if (failed(shape))
            return failure();
          g.outputShapes.push_back(std::move(*shape));
        }
        if (failed(describeMutations(g)))
          return failure();
        continue;
      }
      FailureOr<bool> controlFlow = describeControlFlow(op, out);
      if (failed(controlFlow))
        return failure();
      if (*controlFlow)
        continue;
      auto call = dyn_cast<func::CallOp>(op);
      if (!call)
        return op.emitError() << "the split graph holds '" << op.getName()
                              << "'; an artifact's graph only calls pieces";
      if (failed(describeCall(call, out)))
        return failure();
    }
    return success();
  }

  // A loop or branch of the runtime (true), described; anything else
  // (false) is left to the caller.
  FailureOr<bool> describeControlFlow(Operation &op, SplitGraph &out) {
    if (auto loop = dyn_cast<scf::WhileOp>(op))
      return failed(describeLoop(loop, out)) ? FailureOr<bool>(failure()) : true;
    if (auto branch = dyn_cast<scf::IfOp>(op))
      return failed(describeBranch(branch, out)) ? FailureOr<bool>(failure()) : true;
    return false;
  }

  LogicalResult describeCall(func::CallOp call, SplitGraph &out) {
    rt::Graph &g = out.manifest;
    auto piece = module.lookupSymbol<func::FuncOp>(call.getCallee());
    if (!piece)
      return call.emitError("calls an unknown piece");
    if (!pieceIndex.count(piece)) {
      pieceIndex[piece] = out.pieces.size();
      out.pieces.push_back(piece);
    }
    rt::GraphStep step;
    step.piece = pieceIndex[piece];
    for (Value v : call.getOperands()) {
      FailureOr<rt::ValueRef> ref = refOf(v);
      if (failed(ref))
        return failure();
      step.args.push_back(*ref);
    }
    int64_t index = g.steps.size();
    for (auto [k, result] : llvm::enumerate(call.getResults())) {
      rt::ValueRef ref;
      ref.kind = rt::ValueRef::Kind::StepResult;
      ref.index = index;
      ref.result = k;
      refs[result] = ref;
    }
    g.steps.push_back(std::move(step));
    return success();
  }

  // An scf.while as magi-split leaves it (at the top level or in a part
  // of another loop or branch): calls in both regions, the condition a
  // magi.sym_compare "ne" of a read value with 0 (magi.loop_condition). Its
  // steps follow one another in graph.steps; its block arguments are the
  // carried values, its results the loop's. It is listed before the loops
  // inside it.
  LogicalResult describeLoop(scf::WhileOp loop, SplitGraph &out) {
    rt::Graph &g = out.manifest;
    int64_t loopIndex = g.loops.size();
    {
      rt::GraphLoop entry;
      entry.first = g.steps.size();
      entry.in = currentPart;
      for (Value init : loop.getInits()) {
        FailureOr<rt::ValueRef> ref = refOf(init);
        if (failed(ref))
          return failure();
        entry.carried.push_back(*ref);
      }
      g.loops.push_back(std::move(entry));
    }
    for (Block *block : {&loop.getBefore().front(), &loop.getAfter().front()})
      for (auto [k, arg] : llvm::enumerate(block->getArguments())) {
        rt::ValueRef ref;
        ref.kind = rt::ValueRef::Kind::Carried;
        ref.index = loopIndex;
        ref.result = int64_t(k);
        refs[arg] = ref;
      }
    // The condition's region holds the marked compare, and ends in the
    // scf.condition that reads it.
    auto conditionOps = [&](Operation &op) -> FailureOr<bool> {
      if (auto compare = dyn_cast<SymCompareOp>(op); compare && op.hasAttr(kLoopConditionAttr)) {
        FailureOr<rt::ValueRef> read = refOf(compare.getLhs());
        APInt zero;
        if (failed(read) || read->kind != rt::ValueRef::Kind::StepResult ||
            read->index < g.loops[loopIndex].first || compare.getPredicate() != "ne" ||
            !matchPattern(compare.getRhs(), m_ConstantInt(&zero)) || !zero.isZero())
          return op.emitError("a while loop's condition is not a value its condition's "
                              "pieces read, compared with 0");
        g.loops[loopIndex].condition = *read;
        return true;
      }
      return isa<scf::ConditionOp>(op);
    };
    Operation *condition = loop.getConditionOp().getCondition().getDefiningOp();
    if (!condition || !condition->hasAttr(kLoopConditionAttr))
      return loop.emitError("a while loop of the split graph has no condition read on the host "
                            "(magi.loop_condition): run magi-split on it");
    rt::GraphPart outside = currentPart;
    loopStack.push_back(loopIndex);
    std::vector<rt::ValueRef> none, next;
    currentPart = rt::GraphPart{rt::GraphPart::Owner::Loop, loopIndex, 0};
    if (failed(describeRegion(loop.getBefore().front(), out, none, "a while loop", conditionOps)))
      return failure();
    g.loops[loopIndex].condSteps = int64_t(g.steps.size()) - g.loops[loopIndex].first;
    currentPart = rt::GraphPart{rt::GraphPart::Owner::Loop, loopIndex, 1};
    if (failed(describeRegion(loop.getAfter().front(), out, next, "a while loop")))
      return failure();
    rt::GraphLoop &entry = g.loops[loopIndex];
    entry.next = std::move(next);
    entry.bodySteps = int64_t(g.steps.size()) - entry.first - entry.condSteps;
    loopStack.pop_back();
    currentPart = outside;
    for (auto [k, result] : llvm::enumerate(loop.getResults())) {
      rt::ValueRef ref;
      ref.kind = rt::ValueRef::Kind::LoopResult;
      ref.index = loopIndex;
      ref.result = int64_t(k);
      refs[result] = ref;
    }
    return success();
  }

  // The calls of a loop's or branch's region as steps (and the loops and
  // branches inside it), and the values its scf.yield gives into
  // `yielded`; `other` accepts (true) the other ops the region may hold.
  LogicalResult describeRegion(Block &block, SplitGraph &out, std::vector<rt::ValueRef> &yielded,
                               StringRef what,
                               function_ref<FailureOr<bool>(Operation &)> other = nullptr) {
    for (Operation &op : block) {
      // Symbolic arithmetic the runtime evaluates (a branch's condition)
      // is described where it is used.
      if (isa<BindSymbolicShapeOp, arith::ConstantOp, AssertSymbolicOp>(op) ||
          op.hasAttr(kHostArithmeticAttr))
        continue;
      FailureOr<bool> controlFlow = describeControlFlow(op, out);
      if (failed(controlFlow))
        return failure();
      if (*controlFlow)
        continue;
      if (auto call = dyn_cast<func::CallOp>(op)) {
        if (failed(describeCall(call, out)))
          return failure();
        continue;
      }
      if (auto yield = dyn_cast<scf::YieldOp>(op)) {
        for (Value v : yield.getOperands()) {
          FailureOr<rt::ValueRef> ref = refOf(v);
          if (failed(ref))
            return failure();
          yielded.push_back(*ref);
        }
        continue;
      }
      if (other) {
        FailureOr<bool> accepted = other(op);
        if (failed(accepted))
          return failure();
        if (*accepted)
          continue;
      }
      return op.emitError() << what << " of the split graph holds '" << op.getName()
                            << "'; it may only call pieces";
    }
    return success();
  }

  // An scf.if as magi-split leaves it (at the top level or in a part of a
  // loop or branch): calls in both regions, the condition symbolic
  // arithmetic (magi.host_arithmetic) over the symbols, a bool read on the
  // host among them. The then part's steps, then the else part's, follow
  // one another in graph.steps. It is listed before the branches inside it.
  LogicalResult describeBranch(scf::IfOp branch, SplitGraph &out) {
    rt::Graph &g = out.manifest;
    int64_t branchIndex = g.branches.size();
    rt::GraphBranch entry;
    entry.in = currentPart;
    Operation *condition = branch.getCondition().getDefiningOp();
    if (!condition || !condition->hasAttr(kHostArithmeticAttr))
      return branch.emitError("a branch of the split graph has no condition the runtime can "
                              "evaluate (magi.host_arithmetic): run magi-split on it");
    FailureOr<std::string> text = hostExpr(branch.getCondition());
    if (failed(text))
      return failure();
    std::string error;
    std::optional<rt::Expr> e = rt::Expr::tryParse(*text, error);
    if (!e)
      return branch.emitError("the branch's condition '") << *text << "' does not parse: " << error;
    entry.condition = std::move(*e);
    entry.first = g.steps.size();
    g.branches.push_back(std::move(entry));
    rt::GraphPart outside = currentPart;
    std::vector<rt::ValueRef> thenResults, elseResults;
    currentPart = rt::GraphPart{rt::GraphPart::Owner::Branch, branchIndex, 0};
    if (failed(describeRegion(branch.getThenRegion().front(), out, thenResults, "a branch")))
      return failure();
    g.branches[branchIndex].thenSteps = int64_t(g.steps.size()) - g.branches[branchIndex].first;
    currentPart = rt::GraphPart{rt::GraphPart::Owner::Branch, branchIndex, 1};
    if (failed(describeRegion(branch.getElseRegion().front(), out, elseResults, "a branch")))
      return failure();
    currentPart = outside;
    rt::GraphBranch &described = g.branches[branchIndex];
    described.elseSteps = int64_t(g.steps.size()) - described.first - described.thenSteps;
    described.thenResults = std::move(thenResults);
    described.elseResults = std::move(elseResults);
    for (auto [k, result] : llvm::enumerate(branch.getResults())) {
      rt::ValueRef ref;
      ref.kind = rt::ValueRef::Kind::BranchResult;
      ref.index = branchIndex;
      ref.result = int64_t(k);
      refs[result] = ref;
    }
    return success();
  }
};

} // namespace

std::optional<rt::Dtype> artifactDtype(Type type) {
  return rt::dtypeFromManifestName(dtypeName(type));
}

FailureOr<SplitGraph> describeSplitGraph(ModuleOp module) {
  func::FuncOp found;
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr(kSplitAttr))
      found = func;
  if (!found)
    return module.emitError("no split graph (a function marked '")
           << kSplitAttr << "') to compile: run the pipeline's split phase";
  return GraphDescriber(module, found).describe();
}

FailureOr<rt::Piece> pieceSignature(func::FuncOp piece, int64_t index) {
  rt::Piece entry;
  entry.index = index;
  entry.name = piece.getSymName().str();
  auto splitting = piece->getAttrOfType<BoolAttr>(kIsSplittingAttr);
  entry.isSplitting = splitting && splitting.getValue();
  auto graphIndex = piece->getAttrOfType<IntegerAttr>(kGraphIndexAttr);
  entry.graphIndex = graphIndex ? graphIndex.getInt() : -1;
  entry.cudaGraph = !entry.isSplitting;
  for (Type t : piece.getArgumentTypes()) {
    FailureOr<rt::ValueType> vt = valueType(t, piece);
    if (failed(vt))
      return failure();
    entry.args.push_back(*vt);
  }
  for (Type t : piece.getResultTypes()) {
    FailureOr<rt::ValueType> vt = valueType(t, piece);
    if (failed(vt))
      return failure();
    entry.results.push_back(*vt);
  }
  return entry;
}

} // namespace magi
