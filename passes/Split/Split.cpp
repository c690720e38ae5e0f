//===- Split.cpp - Split a graph into pieces at splitting ops -------------===//
//
// MagiCompiler's piecewise split as an MLIR pass: splitting ops alone in
// their pieces, the ops between them in compute pieces, in the original
// order; the top-level function becomes the calls of the pieces.
//
//===----------------------------------------------------------------------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

namespace magi {
#define GEN_PASS_DEF_SPLIT
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;
using namespace magi;

SmallVector<std::string> magi::defaultSplittingOps() {
  return {"magi.attention", "magi.scaled_dot_product_efficient_attention"};
}

namespace {

/// One splitting-op pattern and whether it matched anything.
struct NamePattern {
  std::string text;
  llvm::GlobPattern glob;
  bool matched = false;
};

/// The names an op answers to: its MLIR name, the name an opaque op carries,
/// and the torch ops a typed magi op declares it stands for
/// (TorchOpInterface).
SmallVector<std::string> namesOf(Operation *op) {
  SmallVector<std::string> names{op->getName().getStringRef().str()};
  if (auto opaque = dyn_cast<OpaqueOp>(op))
    names.push_back(opaque.getOpName().str());
  for (StringRef name : torchOpNamesOf(op->getName()))
    names.push_back(name.str());
  return names;
}

/// Whether the pattern `pattern` names the torch op `name`
/// (`namespace::op[.overload]`): the same op, where a side without an
/// overload stands for every overload.
bool namesTorchOp(StringRef pattern, StringRef name) {
  if (!pattern.contains("::") || !name.contains("::"))
    return false;
  auto [patternOp, patternOverload] = pattern.split('.');
  auto [op, overload] = name.split('.');
  return patternOp == op && (patternOverload.empty() || overload.empty() ||
                             patternOverload == overload);
}

struct Piece {
  SmallVector<Operation *> ops;
  bool isSplitting = false;
  bool isLoop = false;   // a loop of the runtime: its regions are split in turn
  bool isBranch = false; // a branch of the runtime: the same
  bool holdsRegions() const { return isLoop || isBranch; }
};

// What the pieces of one function share while its blocks are split.
struct Binding {
  SmallVector<Value> symbols;
  AffineMap map;
  Location loc;
};
struct FunctionSplit {
  func::FuncOp func;
  SymbolTable &symbols;
  DenseMap<Value, SmallVector<Binding>> &bindings;
  llvm::function_ref<bool(BindSymbolicShapeOp)> bindsDataSymbol;
  int64_t nextPiece = 0;
  int64_t nextGraphIndex = 0;
};

class SplitPass : public magi::impl::SplitBase<SplitPass> {
public:
  using SplitBase::SplitBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::string> names(splittingOps.begin(), splittingOps.end());
    // Only names the user gave are reported when they match nothing.
    bool userNames = !names.empty();
    if (names.empty())
      names = defaultSplittingOps();
    SmallVector<NamePattern> patterns;
    for (const std::string &name : names) {
      NamePattern p;
      p.text = name;
      auto glob = llvm::GlobPattern::create(name);
      if (!glob) {
        module.emitError("invalid splitting-op pattern '")
            << name << "': " << llvm::toString(glob.takeError());
        return signalPassFailure();
      }
      p.glob = std::move(*glob);
      patterns.push_back(std::move(p));
    }

    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>()) {
      // Pieces, and functions split already, are not split again.
      if (func.isExternal() || func->hasAttr(kPieceIndexAttr) ||
          func->hasAttr(kSplitAttr))
        continue;
      if (function.empty() ? func.isPublic() : func.getName() == function)
        funcs.push_back(func);
    }
    if (!function.empty() && funcs.empty()) {
      module.emitError("no function named '") << function << "' to split";
      return signalPassFailure();
    }
    std::string dot;
    llvm::raw_string_ostream dotOs(dot);
    dotOs << "digraph magi_split {\n  rankdir=TB;\n  node [shape=box];\n";
    for (func::FuncOp func : funcs)
      if (failed(splitFunction(func, patterns, dotOs)))
        return signalPassFailure();
    dotOs << "}\n";

    for (const NamePattern &p : patterns)
      if (userNames && !p.matched)
        mlir::emitWarning(module.getLoc(), "splitting-op pattern '")
            << p.text << "' matched no op";
    if (!dotFile.empty()) {
      std::error_code ec;
      llvm::raw_fd_ostream os(dotFile, ec, llvm::sys::fs::OF_Text);
      if (ec) {
        module.emitError("cannot write '") << dotFile << "': " << ec.message();
        return signalPassFailure();
      }
      os << dot;
    }
  }

private:
  bool isSplittingOp(Operation *op, MutableArrayRef<NamePattern> patterns) {
    // A value read on the host ends the work before it: its own piece.
    bool found = op->hasAttr(kSplittingMarkerAttr) || isa<ItemOp>(op);
    SmallVector<std::string> names = namesOf(op);
    for (NamePattern &p : patterns) {
      bool hit = llvm::any_of(names, [&](const std::string &n) {
        return n == p.text || namesTorchOp(p.text, n) || p.glob.match(n);
      });
      p.matched |= hit;
      found |= hit;
    }
    return found;
  }

  LogicalResult splitFunction(func::FuncOp func,
                              MutableArrayRef<NamePattern> patterns,
                              raw_ostream &dot);
  // Splits one block into pieces: the function's body, or a region of a
  // loop or branch of the runtime.
  LogicalResult splitBlock(Block &block, FunctionSplit &split,
                           MutableArrayRef<NamePattern> patterns, raw_ostream &dot);
};

// Ops that stay in the top-level function: symbol declarations and constants
// (constants are cloned into every piece that uses them), runtime assertions
// and the symbolic arithmetic they read (a copy of their own).
bool staysOnTop(Operation *op) {
  return isa<SymbolicIntOp, AssertSymbolicOp>(op) ||
         op->hasTrait<OpTrait::ConstantLike>() || op->hasAttr(kHostArithmeticAttr);
}

// Symbolic arithmetic an assertion's copy may hold.
bool isCheckArithmetic(Operation *op) {
  return isa<SymAddOp, SymSubOp, SymMulOp, SymFloorDivOp, SymModOp, SymMinOp,
             SymMaxOp, SymCompareOp, SymAndOp, SymOrOp, SymNotOp>(op);
}

// A name no symbol of `body` has: cond0, cond1, ...
std::string freshReadName(Block &body, int64_t &next) {
  llvm::StringSet<> taken;
  body.walk([&](Operation *op) {
    if (auto sym = dyn_cast<SymbolicIntOp>(op))
      taken.insert(sym.getName());
    else if (auto item = dyn_cast<ItemOp>(op); item && item.getSymbol())
      taken.insert(*item.getSymbol());
  });
  std::string name;
  do
    name = "cond" + std::to_string(next++);
  while (taken.contains(name));
  return name;
}

// Names a value read on the host (magi.item) that has no symbol, so that
// the runtime can evaluate arithmetic over it.
using NameRead = llvm::function_ref<void(ItemOp)>;

// Copies, at `b`'s insertion point, the symbolic arithmetic that computes
// `v`, down to symbols, constants and values read on the host of the same
// block (named by `nameRead` if they are not: a symbol of the data), each
// copy marked to stay on top (kHostArithmeticAttr): the runtime evaluates
// it over the symbols. The ops copied go to `originals`; on anything else,
// fails with what it met.
FailureOr<Value> copyHostArithmetic(Value v, OpBuilder &b, IRMapping &copies,
                                    SmallVector<Operation *> &originals, std::string &met,
                                    NameRead nameRead) {
  Operation *def = v.getDefiningOp();
  if (copies.contains(v) ||
      (def && (isa<SymbolicIntOp>(def) || def->hasTrait<OpTrait::ConstantLike>())))
    return copies.lookupOrDefault(v);
  if (auto item = dyn_cast_or_null<ItemOp>(def);
      item && item->getBlock() == b.getInsertionBlock() && item.getType().isIndex()) {
    if (!item.getSymbol())
      nameRead(item);
    return v;
  }
  if (!def || !isCheckArithmetic(def)) {
    met = def ? "'" + def->getName().getStringRef().str() + "'"
              : std::string("a block argument");
    return failure();
  }
  for (Value operand : def->getOperands())
    if (failed(copyHostArithmetic(operand, b, copies, originals, met, nameRead)))
      return failure();
  Operation *clone = b.clone(*def, copies);
  clone->setAttr(kHostArithmeticAttr, b.getUnitAttr());
  originals.push_back(def);
  return clone->getResult(0);
}

// Erases the ops copyHostArithmetic copied that have no use left, last first.
void eraseUnusedOriginals(ArrayRef<Operation *> originals) {
  for (Operation *op : llvm::reverse(originals))
    if (op->use_empty())
      op->erase();
}

// Gives each runtime assertion a copy, just before it, of the symbolic
// arithmetic it reads, marked to stay on top: the artifact checks it over
// the symbols before anything runs (graph.checks). The originals keep
// their other users; those left unused go.
LogicalResult hoistChecks(Block &body, NameRead nameRead) {
  for (auto check : llvm::to_vector(body.getOps<AssertSymbolicOp>())) {
    OpBuilder b(check);
    IRMapping copies;
    SmallVector<Operation *> originals;
    std::string met;
    FailureOr<Value> copy =
        copyHostArithmetic(check.getCondition(), b, copies, originals, met, nameRead);
    if (failed(copy))
      return check.emitError("the runtime assertion '")
             << check.getMessage() << "' reads " << met
             << ": only symbolic arithmetic on the graph's symbols can be checked before a run";
    check.getConditionMutable().assign(*copy);
    eraseUnusedOriginals(originals);
  }
  return success();
}

// A symbol of the data is a size of a tensor the graph computes (the
// top-level binding says which): its uses after that tensor, other than
// bindings and runtime assertions, read the size from the tensor instead
// (magi.sym_size next to it). The piece computing the tensor then never
// needs the symbol itself, which the runtime binds only after that piece's
// step; later pieces receive the size as a result.
void readDataSymbolsFromTheirTensors(Block &body, llvm::function_ref<bool(Value)> isDataSymbol) {
  for (auto bind : llvm::to_vector(body.getOps<BindSymbolicShapeOp>())) {
    Value tensor = bind.getOperand();
    Operation *def = tensor.getDefiningOp();
    if (!def || def->getBlock() != &body)
      continue;
    for (auto [d, e] : llvm::enumerate(bind.getShapeExpressions().getResults())) {
      auto symExpr = dyn_cast<AffineSymbolExpr>(e);
      if (!symExpr)
        continue;
      Value symbol = bind.getShapeSymbols()[symExpr.getPosition()];
      if (!isDataSymbol(symbol))
        continue;
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : symbol.getUses()) {
        Operation *user = use.getOwner();
        Operation *top = body.findAncestorOpInBlock(*user);
        if (!top || isa<BindSymbolicShapeOp, AssertSymbolicOp>(user) ||
            user->hasAttr(kHostArithmeticAttr) || !def->isBeforeInBlock(top))
          continue;
        uses.push_back(&use);
      }
      if (uses.empty())
        continue;
      OpBuilder b(def->getContext());
      b.setInsertionPointAfter(def);
      Value size = SymSizeOp::create(b, bind.getLoc(), tensor, int64_t(d));
      for (OpOperand *use : uses)
        use->set(size);
    }
  }
}

// Whether a shape is declared with the symbol `item` reads.
bool isDeclaredSize(ItemOp item, Block &body) {
  std::optional<StringRef> name = item.getSymbol();
  if (!name)
    return false;
  bool isASize = false;
  body.walk([&](SymbolicIntOp sym) {
    if (sym.getName() == *name)
      isASize |= llvm::any_of(sym->getUsers(), llvm::IsaPred<BindSymbolicShapeOp>);
  });
  return isASize;
}

// Whether the use reaches, through symbolic arithmetic, only runtime
// assertions and the conditions of branches and loops.
bool reachesOnlyChecks(OpOperand &first) {
  SmallVector<OpOperand *> uses{&first};
  while (!uses.empty()) {
    OpOperand &use = *uses.pop_back_val();
    Operation *user = use.getOwner();
    if (isa<AssertSymbolicOp, scf::IfOp>(user))
      continue;
    if (isa<scf::ConditionOp>(user) && use.getOperandNumber() == 0)
      continue;
    if (!isCheckArithmetic(user))
      return false;
    for (OpOperand &next : user->getResult(0).getUses())
      uses.push_back(&next);
  }
  return true;
}

// Whether the value `item` reads on the host gives no size: through
// symbolic arithmetic it reaches only runtime assertions and the conditions
// of branches and loops, and no size is declared with its symbol. Its
// memory plan then does not depend on it, so it may be any integer.
bool givesNoSize(ItemOp item, Block &body) {
  return !isDeclaredSize(item, body) &&
         llvm::all_of(item.getResult().getUses(),
                      [](OpOperand &use) { return reachesOnlyChecks(use); });
}

// The largest dimension the integer `item` reads is a slice's start or end
// of, when it gives sizes only that way (tensor_split at indices held in a
// tensor) and every such dimension is static: Python counts a negative
// bound from the end and clamps it to [0, size], so each size it gives is
// one it gives at some value in [0, that dimension], and is largest with
// it at 0 or there (a difference of clamped bounds grows or shrinks with
// each). Its memory can then be planned with it at 0 and that bound,
// whatever value is read (magi.item's `clamped`).
std::optional<int64_t> largestSlicedDimension(ItemOp item, Block &body) {
  if (isDeclaredSize(item, body) ||
      cast<RankedTensorType>(item.getSelf().getType()).getElementType().isInteger(1))
    return std::nullopt;
  std::optional<int64_t> largest;
  for (OpOperand &use : item.getResult().getUses()) {
    if (auto slice = dyn_cast<SliceOp>(use.getOwner())) {
      // Which of [start, end, step] the operand is.
      unsigned operand = use.getOperandNumber() - slice.getBounds().getBeginOperandIndex();
      int64_t position = -1;
      for (auto [i, bound] : llvm::enumerate(slice.getStaticBounds()))
        if (ShapedType::isDynamic(bound) && operand-- == 0) {
          position = int64_t(i);
          break;
        }
      auto type = cast<RankedTensorType>(slice.getSelf().getType());
      int64_t dim = slice.getDim();
      if (position < 0 || position > 1 || dim < 0 ||
          dim >= type.getRank() || type.isDynamicDim(dim))
        return std::nullopt;
      largest = std::max(largest.value_or(0), type.getDimSize(dim));
      continue;
    }
    if (!reachesOnlyChecks(use))
      return std::nullopt;
  }
  return largest;
}

// Replaces a bool tensor's element (`extract`) by the element read on the
// host (magi.item, bound 1) compared with 0, which it returns; `read` is
// the magi.item.
SymCompareOp readOnTheHost(tensor::ExtractOp extract, ItemOp &read) {
  OpBuilder b(extract);
  Location loc = extract.getLoc();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  read = ItemOp::create(b, loc, b.getIndexType(), extract.getTensor(), one, /*symbol=*/nullptr);
  auto compare = SymCompareOp::create(b, loc, b.getStringAttr("ne"), read, zero);
  extract.getResult().replaceAllUsesWith(compare.getResult());
  extract.erase();
  return compare;
}

// A size of the data (a symbol a value read on the host gives) that a loop
// or branch of the runtime binds inside and something outside it uses: the
// symbol is bound only where its steps run (each iteration anew, or not at
// all), so it cannot be seen outside. Returns why, if so.
std::optional<std::string> sizeOfTheDataEscapes(Operation *construct,
                                                 llvm::function_ref<bool(Value)> isDataSymbol) {
  std::optional<std::string> why;
  construct->walk([&](BindSymbolicShapeOp bind) {
    for (Value symbol : bind.getShapeSymbols()) {
      if (!isDataSymbol(symbol))
        continue;
      for (Operation *user : symbol.getUsers())
        if (!construct->isAncestor(user)) {
          why = "a size of the data it computes (" +
                symbol.getDefiningOp<SymbolicIntOp>().getName().str() +
                ") is used outside it, where it is not known";
          return WalkResult::interrupt();
        }
    }
    return WalkResult::advance();
  });
  return why;
}

// A runtime assertion inside a loop or branch of the runtime is checked
// when a symbol it reads is bound (graph.checks), so it must read one
// defined inside: a value read on the host there, or a size of the data
// bound there. One over symbols from outside only would be checked before
// the run, whether its part runs or not; one that reads more than symbolic
// arithmetic over symbols, constants and values read in its own block
// cannot be copied out of the pieces. Returns why, if some assertion is
// either.
std::optional<std::string> assertionCannotBeChecked(Operation *construct,
                                                    llvm::function_ref<bool(Value)> isDataSymbol) {
  auto boundInside = [&](Value symbol) {
    return llvm::any_of(symbol.getUsers(), [&](Operation *user) {
      return isa<BindSymbolicShapeOp>(user) && construct->isAncestor(user);
    });
  };
  std::optional<std::string> why;
  construct->walk([&](AssertSymbolicOp check) {
    SmallVector<Value> work{check.getCondition()};
    llvm::SmallPtrSet<Operation *, 8> seen;
    bool inside = false;
    std::optional<std::string> unreadable;
    while (!work.empty() && !unreadable) {
      Value v = work.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (def && !seen.insert(def).second)
        continue;
      if (auto item = dyn_cast_or_null<ItemOp>(def); item && item->getBlock() == check->getBlock())
        inside = true;
      else if (isa_and_nonnull<SymbolicIntOp>(def))
        inside |= isDataSymbol(v) && boundInside(v);
      else if (def && (isCheckArithmetic(def) || def->hasTrait<OpTrait::ConstantLike>()))
        llvm::append_range(work, def->getOperands());
      else
        unreadable = def ? "'" + def->getName().getStringRef().str() + "'"
                         : std::string("a block argument");
    }
    if (unreadable) {
      why = "it holds a runtime assertion ('" + check.getMessage().str() + "') that reads " +
            *unreadable + ", which the artifact cannot check";
      return WalkResult::interrupt();
    }
    if (inside)
      return WalkResult::advance();
    why = "it holds a runtime assertion ('" + check.getMessage().str() +
          "') that reads no value computed inside it: the artifact would check it before "
          "the run, whether its part runs or not";
    return WalkResult::interrupt();
  });
  return why;
}

// A while loop (torch.while_loop) at the top level, or inside a loop or
// branch of the runtime, runs on the GPU as a loop of the runtime
// (graph.loops): its regions are split into pieces like the top level,
// and the condition, a bool tensor's element, becomes a value read on the
// host (magi.item, bound 1) compared with 0 (the compare is marked:
// magi-split leaves it out of the pieces). A loop the artifact cannot run so
// is left alone, why on it (kNotARuntimeLoopAttr): it stays in a piece,
// which the CPU runs and the GPU path refuses with that reason.
std::optional<std::string> prepareLoop(scf::WhileOp loop,
                                       llvm::function_ref<bool(Value)> isDataSymbol) {
  auto condition = cast<scf::ConditionOp>(loop.getBefore().front().getTerminator());
  if (!llvm::equal(condition.getArgs(), loop.getBefore().front().getArguments()))
    return std::string("its condition region changes the carried values");
  for (Value init : loop.getInits())
    if (!isa<RankedTensorType>(init.getType()))
      return std::string("it carries a value that is no tensor");
  if (std::optional<std::string> why = sizeOfTheDataEscapes(loop, isDataSymbol))
    return why;
  if (std::optional<std::string> why = assertionCannotBeChecked(loop, isDataSymbol))
    return why;
  auto extract = condition.getCondition().getDefiningOp<tensor::ExtractOp>();
  if (!extract || extract->getBlock() != &loop.getBefore().front())
    return std::string("its condition is no element of a tensor");
  ItemOp read;
  readOnTheHost(extract, read)->setAttr(kLoopConditionAttr, UnitAttr::get(loop.getContext()));
  return std::nullopt;
}

// A cond that magi-select-branches left (a branch may fault on the
// other's values, or its predicate is on the sizes), at the top level or
// inside a loop or branch of the runtime, runs on the GPU as a branch of
// the runtime (graph.branches): its regions are split into pieces like the
// top level, and its predicate becomes symbolic arithmetic the runtime
// evaluates: a bool tensor's element is read on the host (a magi.item,
// bound 1, named by `nameRead`) and compared with 0; a predicate on the
// sizes or on values read on the host (a bool .item()) is copied.
// A branch the artifact cannot run so is left alone,
// why on it (kNotARuntimeBranchAttr), like a loop.
std::optional<std::string> prepareBranch(scf::IfOp branch, NameRead nameRead,
                                         llvm::function_ref<bool(Value)> isDataSymbol) {
  for (Type type : branch.getResultTypes())
    if (!isa<RankedTensorType>(type))
      return std::string("it gives a value that is no tensor");
  if (std::optional<std::string> why = sizeOfTheDataEscapes(branch, isDataSymbol))
    return why;
  if (std::optional<std::string> why = assertionCannotBeChecked(branch, isDataSymbol))
    return why;
  Value predicate = branch.getCondition();
  if (auto extract = predicate.getDefiningOp<tensor::ExtractOp>();
      extract && extract->getBlock() == branch->getBlock()) {
    ItemOp read;
    SymCompareOp compare = readOnTheHost(extract, read);
    nameRead(read);
    compare->setAttr(kHostArithmeticAttr, UnitAttr::get(branch.getContext()));
    return std::nullopt;
  }
  OpBuilder b(branch);
  IRMapping copies;
  SmallVector<Operation *> originals;
  std::string met;
  FailureOr<Value> copy = copyHostArithmetic(predicate, b, copies, originals, met, nameRead);
  if (failed(copy)) {
    for (Operation *op : llvm::reverse(originals))
      if (Operation *clone = copies.lookupOrNull(op->getResult(0)).getDefiningOp())
        clone->erase();
    return "its predicate reads " + met +
           ": it is neither a bool tensor's element nor arithmetic on the sizes";
  }
  branch.getConditionMutable().assign(*copy);
  eraseUnusedOriginals(originals);
  return std::nullopt;
}

LogicalResult SplitPass::splitFunction(func::FuncOp func,
                                       MutableArrayRef<NamePattern> patterns,
                                       raw_ostream &dot) {
  if (!func.getBody().hasOneBlock())
    return func.emitError("magi-split needs a function with one block");
  Block &body = func.getBody().front();
  int64_t nextRead = 0;
  auto nameRead = [&](ItemOp item) {
    item.setSymbolAttr(StringAttr::get(func.getContext(), freshReadName(body, nextRead)));
  };
  if (failed(hoistChecks(body, nameRead)))
    return failure();
  // Symbols the graph's arguments define; the others (a nonzero's count,
  // an .item()) are known only once the piece that computes them has run.
  llvm::SmallPtrSet<Value, 8> argumentSymbols;
  for (auto bind : body.getOps<BindSymbolicShapeOp>())
    if (isa<BlockArgument>(bind.getOperand()))
      argumentSymbols.insert(bind.getShapeSymbols().begin(), bind.getShapeSymbols().end());
  auto isDataSymbol = [&](Value s) {
    return s.getDefiningOp<SymbolicIntOp>() && !argumentSymbols.contains(s);
  };
  auto bindsDataSymbol = [&](BindSymbolicShapeOp bind) {
    return llvm::any_of(bind.getShapeSymbols(), isDataSymbol);
  };
  readDataSymbolsFromTheirTensors(body, isDataSymbol);
  // Symbols are declared first, so every piece call can receive them.
  Operation *lastSymbol = nullptr;
  for (auto sym : llvm::make_early_inc_range(body.getOps<SymbolicIntOp>())) {
    if (lastSymbol)
      sym->moveAfter(lastSymbol);
    else
      sym->moveBefore(&body, body.begin());
    lastSymbol = sym;
  }


  // Loops and branches of the runtime, outermost first: those inside one
  // are prepared once it is one (inside a piece, they stay there).
  std::function<LogicalResult(Block &, bool)> prepare = [&](Block &block,
                                                            bool nested) -> LogicalResult {
    // Inside a loop or branch of the runtime, as at the top level, runtime
    // assertions get their own copy of what they read (graph.checks: the
    // runtime checks them when a symbol they read is bound), then later
    // uses of a size of the data read it from its tensor.
    if (nested) {
      if (failed(hoistChecks(block, nameRead)))
        return failure();
      readDataSymbolsFromTheirTensors(block, isDataSymbol);
    }
    SmallVector<Operation *> runtimeOps;
    for (auto loop : llvm::to_vector(block.getOps<scf::WhileOp>())) {
      if (std::optional<std::string> why = prepareLoop(loop, isDataSymbol))
        loop->setAttr(kNotARuntimeLoopAttr, StringAttr::get(func.getContext(), *why));
      else
        runtimeOps.push_back(loop);
    }
    for (auto branch : llvm::to_vector(block.getOps<scf::IfOp>())) {
      if (std::optional<std::string> why = prepareBranch(branch, nameRead, isDataSymbol))
        branch->setAttr(kNotARuntimeBranchAttr, StringAttr::get(func.getContext(), *why));
      else
        runtimeOps.push_back(branch);
    }
    for (Operation *op : runtimeOps)
      for (Region &region : op->getRegions())
        if (!region.empty() && failed(prepare(region.front(), /*nested=*/true)))
          return failure();
    return success();
  };
  if (failed(prepare(body, /*nested=*/false)))
    return failure();

  // A value read on the host without a bound may be anything when it gives
  // no size; one that gives sizes only as slice bounds is planned at the
  // largest sliced dimension, any value read acting as its clamp.
  func.walk([&](ItemOp item) {
    if (!item.getType().isIndex() || item.getBound())
      return;
    if (givesNoSize(item, body)) {
      item->setAttr(kReadAnyValueAttr, UnitAttr::get(func.getContext()));
    } else if (std::optional<int64_t> most = largestSlicedDimension(item, body)) {
      OpBuilder b(item);
      item.getBoundMutable().assign(arith::ConstantIndexOp::create(b, item.getLoc(), *most));
      item.setClamped(true);
    }
  });

  // Bindings of each value to top-level symbols, recorded before ops move,
  // so that a piece receiving a tensor, and the top level receiving a piece's
  // result, also know its shape.
  DenseMap<Value, SmallVector<Binding>> bindings;
  func.walk([&](BindSymbolicShapeOp bind) {
    if (llvm::all_of(bind.getShapeSymbols(), [&](Value s) {
          return s.getParentBlock() == &body;
        }))
      bindings[bind.getOperand()].push_back(
          {llvm::to_vector(bind.getShapeSymbols()), bind.getShapeExpressions(),
           bind.getLoc()});
  });

  ModuleOp module = func->getParentOfType<ModuleOp>();
  SymbolTable symbols(module);
  FunctionSplit split{func, symbols, bindings, bindsDataSymbol};
  std::string funcName = func.getName().str();
  dot << "  subgraph cluster_" << funcName << " {\n    label=\"@" << funcName
      << "\";\n";
  if (failed(splitBlock(body, split, patterns, dot)))
    return failure();

  // Data edges between pieces.
  func.walk([&](func::CallOp call) {
    for (Value operand : call.getOperands())
      if (auto producer = operand.getDefiningOp<func::CallOp>())
        dot << "    \"" << producer.getCallee() << "\" -> \"" << call.getCallee()
            << "\" [label=\"" << operand.getType() << "\"];\n";
  });
  dot << "  }\n";

  func->setAttr(kSplitAttr, UnitAttr::get(func.getContext()));
  // Constants no longer used on top (or in a loop's regions) go.
  SmallVector<Operation *> unused;
  func.walk([&](Operation *op) {
    if (op->hasTrait<OpTrait::ConstantLike>() && op->use_empty())
      unused.push_back(op);
  });
  for (Operation *op : unused)
    op->erase();
  return success();
}

LogicalResult SplitPass::splitBlock(Block &block, FunctionSplit &split,
                                    MutableArrayRef<NamePattern> patterns, raw_ostream &dot) {
  func::FuncOp func = split.func;
  // Partition the ops, in order. A binding goes with the op defining its
  // tensor; bindings of arguments stay on top, and so do those to a symbol
  // of the data: the piece defining it cannot receive it (the top level
  // repeats them for the call results below). A loop or branch of the
  // runtime is a piece of its own, split in turn.
  SmallVector<Piece> pieces;
  DenseMap<Operation *, unsigned> pieceOf;
  for (Operation &op : block.without_terminator()) {
    if (staysOnTop(&op) || op.hasAttr(kLoopConditionAttr))
      continue;
    if (auto bind = dyn_cast<BindSymbolicShapeOp>(op)) {
      Operation *def = bind.getOperand().getDefiningOp();
      if (def && pieceOf.count(def) && !split.bindsDataSymbol(bind)) {
        pieces[pieceOf[def]].ops.push_back(&op);
        pieceOf[&op] = pieceOf[def];
      }
      continue;
    }
    if (isa<scf::WhileOp>(op) && !op.hasAttr(kNotARuntimeLoopAttr)) {
      pieces.push_back({{&op}, false, /*isLoop=*/true});
      continue;
    }
    if (isa<scf::IfOp>(op) && !op.hasAttr(kNotARuntimeBranchAttr)) {
      pieces.push_back({{&op}, false, false, /*isBranch=*/true});
      continue;
    }
    if (isSplittingOp(&op, patterns)) {
      pieces.push_back({{&op}, true});
    } else {
      if (pieces.empty() || pieces.back().isSplitting || pieces.back().holdsRegions())
        pieces.push_back({{}, false});
      pieces.back().ops.push_back(&op);
    }
    pieceOf[&op] = pieces.size() - 1;
  }
  // A piece of nothing but bindings cannot occur: bindings follow their op.

  // The bindings to symbols of the data left on top go now (recorded above).
  // A tensor whose size is such a symbol that something outside its piece
  // reads (a runtime assertion, a branch's condition) is given out by the
  // piece, though nothing else uses it: its size defines the symbol.
  llvm::SmallPtrSet<Value, 8> sizeReadOutside;
  for (auto bind : llvm::make_early_inc_range(block.getOps<BindSymbolicShapeOp>())) {
    Operation *def = bind.getOperand().getDefiningOp();
    if (!def || !pieceOf.count(def) || pieceOf.count(bind))
      continue;
    unsigned piece = pieceOf[def];
    for (Value symbol : bind.getShapeSymbols())
      for (Operation *user : symbol.getUsers()) {
        Operation *top = block.findAncestorOpInBlock(*user);
        if (!isa<BindSymbolicShapeOp>(user) && (!top || !pieceOf.count(top) || pieceOf[top] != piece))
          sizeReadOutside.insert(bind.getOperand());
      }
    bind.erase();
  }

  DenseMap<Value, SmallVector<Binding>> &bindings = split.bindings;
  OpBuilder b(func.getContext());
  std::string funcName = func.getName().str();
  for (Piece &piece : pieces) {
    if (piece.holdsRegions()) {
      Operation *op = piece.ops.front();
      dot << "    subgraph cluster_" << (piece.isLoop ? "loop_" : "branch_") << split.nextPiece
          << " {\n      label=\"" << (piece.isLoop ? "while loop" : "cond") << "\";\n";
      LogicalResult done = success();
      for (Region &region : op->getRegions())
        if (succeeded(done) && !region.empty())
          done = splitBlock(region.front(), split, patterns, dot);
      dot << "    }\n";
      if (failed(done))
        return failure();
      continue;
    }
    int64_t index = split.nextPiece++;
    llvm::SmallPtrSet<Operation *, 32> inPiece(piece.ops.begin(),
                                               piece.ops.end());
    // Values the piece takes in and gives out, in first-use order.
    llvm::SetVector<Value> inputs, outputs;
    llvm::SetVector<Operation *> constants;
    auto addInput = [&](Value v) {
      Operation *def = v.getDefiningOp();
      // Values defined inside a piece op's regions (a branch's ops, a
      // loop's block arguments) are the piece's own.
      Operation *owner = def ? def : v.getParentBlock()->getParentOp();
      Operation *top = block.findAncestorOpInBlock(*owner);
      if (top && inPiece.contains(top))
        return;
      if (def && def->hasTrait<OpTrait::ConstantLike>())
        constants.insert(def);
      else
        inputs.insert(v);
    };
    for (Operation *op : piece.ops)
      op->walk([&](Operation *nested) {
        for (Value v : nested->getOperands())
          addInput(v);
      });
    // Symbols the bindings of incoming tensors need.
    SmallVector<std::pair<Value, Binding>> incomingBinds;
    for (Value v : ArrayRef(inputs.getArrayRef()).vec())
      for (const Binding &bind : bindings.lookup(v)) {
        incomingBinds.push_back({v, bind});
        for (Value s : bind.symbols)
          addInput(s);
      }
    for (Operation *op : piece.ops)
      for (Value result : op->getResults()) {
        if (sizeReadOutside.contains(result))
          outputs.insert(result);
        for (Operation *user : result.getUsers())
          if (!inPiece.contains(user) && !isa<BindSymbolicShapeOp>(user))
            outputs.insert(result);
      }

    // The piece function.
    b.setInsertionPoint(func);
    std::string name = funcName + "_piece_" + std::to_string(index);
    auto pieceFunc = func::FuncOp::create(
        b, func.getLoc(), name,
        b.getFunctionType(ValueRange(inputs.getArrayRef()).getTypes(),
                          ValueRange(outputs.getArrayRef()).getTypes()));
    pieceFunc.setPrivate();
    pieceFunc->setAttr(kPieceIndexAttr, b.getI64IntegerAttr(index));
    pieceFunc->setAttr(kIsSplittingAttr, b.getBoolAttr(piece.isSplitting));
    if (!piece.isSplitting)
      pieceFunc->setAttr(kGraphIndexAttr, b.getI64IntegerAttr(split.nextGraphIndex++));
    split.symbols.insert(pieceFunc); // renames on a clash
    for (auto [i, v] : llvm::enumerate(inputs))
      if (auto sym = v.getDefiningOp<SymbolicIntOp>())
        pieceFunc.setArgAttr(i, kSymbolArgAttr, sym.getNameAttr());
    Block *pieceBody = pieceFunc.addEntryBlock();

    // The call, where the piece's first op was.
    b.setInsertionPoint(piece.ops.front());
    auto call = func::CallOp::create(b, piece.ops.front()->getLoc(), pieceFunc,
                                     inputs.getArrayRef());

    // Move the ops; clone constants and incoming bindings; wire arguments.
    b.setInsertionPointToStart(pieceBody);
    IRMapping mapping;
    for (Operation *c : constants)
      mapping.map(c->getResult(0), b.clone(*c)->getResult(0));
    for (auto [v, arg] : llvm::zip(inputs, pieceBody->getArguments()))
      mapping.map(v, arg);
    for (auto &[v, bind] : incomingBinds)
      BindSymbolicShapeOp::create(
          b, bind.loc, mapping.lookup(v),
          llvm::map_to_vector(bind.symbols,
                              [&](Value s) { return mapping.lookup(s); }),
          bind.map);
    for (Operation *op : piece.ops)
      op->moveBefore(pieceBody, pieceBody->end());
    for (auto [outside, inside] : mapping.getValueMap())
      Value(outside).replaceUsesWithIf(inside, [&](OpOperand &use) {
        return pieceFunc->isProperAncestor(use.getOwner());
      });
    b.setInsertionPointToEnd(pieceBody);
    func::ReturnOp::create(b, func.getLoc(), outputs.getArrayRef());
    for (auto [v, result] : llvm::zip(outputs, call.getResults()))
      Value(v).replaceUsesWithIf(result, [&](OpOperand &use) {
        return !pieceFunc->isAncestor(use.getOwner());
      });
    // Bindings of outputs are repeated on top for the call results.
    b.setInsertionPointAfter(call);
    for (auto [v, result] : llvm::zip(outputs, call.getResults())) {
      SmallVector<Binding> binds = bindings.lookup(v);
      for (const Binding &bind : binds)
        BindSymbolicShapeOp::create(b, bind.loc, result, bind.symbols,
                                    bind.map);
      // Later pieces receive the call result: they need its shape too.
      bindings[result] = binds;
    }

    if (piece.isSplitting)
      ++numSplittingPieces;
    else
      ++numComputePieces;
    dot << "    \"" << name << "\" [label=\"" << name << "\\n"
        << (piece.isSplitting
                ? std::string("splitting: ") +
                      piece.ops.front()->getName().getStringRef().str()
                : "compute, graph_index " +
                      std::to_string(split.nextGraphIndex - 1) + ", " +
                      std::to_string(piece.ops.size()) + " ops")
        << "\"" << (piece.isSplitting ? ", style=filled, fillcolor=lightblue" : "")
        << "];\n";
  }
  return success();
}

} // namespace
