//===- Specialize.cpp - Specialize a graph for one value of a symbol ------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Dialect/Magi/IR/TypeInference.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace magi {
#define GEN_PASS_DEF_SPECIALIZE
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;
using namespace magi;

namespace {

// Bindings and refolding refine types inside cond's and while_loop's
// regions (scf.if, scf.while), but the values their regions join must keep
// one type. Each joined value takes the meet of the types flowing into it;
// an incoming value of a less static type gets a tensor.cast.
LogicalResult joinTypes(Operation *op, ArrayRef<SmallVector<Value>> targets,
                        ArrayRef<SmallVector<OpOperand *>> incoming) {
  OpBuilder b(op->getContext());
  for (auto [joined, flows] : llvm::zip(targets, incoming)) {
    Type meet = joined.front().getType();
    if (!isa<RankedTensorType>(meet))
      continue;
    for (Value v : joined)
      meet = meet ? meetTypes(meet, v.getType()) : meet;
    for (OpOperand *use : flows)
      meet = meet ? meetTypes(meet, use->get().getType()) : meet;
    if (!meet)
      return op->emitError("the values joined by '")
             << op->getName() << "' have conflicting shapes";
    for (Value v : joined)
      v.setType(meet);
    for (OpOperand *use : flows) {
      if (use->get().getType() == meet)
        continue;
      b.setInsertionPoint(use->getOwner());
      use->set(tensor::CastOp::create(b, op->getLoc(), meet, use->get()));
    }
  }
  return success();
}

LogicalResult joinControlFlowTypes(Operation *op) {
  SmallVector<SmallVector<Value>> targets;
  SmallVector<SmallVector<OpOperand *>> incoming;
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    for (OpResult result : ifOp.getResults()) {
      targets.push_back({result});
      incoming.push_back(
          {&ifOp.thenYield()->getOpOperand(result.getResultNumber()),
           &ifOp.elseYield()->getOpOperand(result.getResultNumber())});
    }
    return joinTypes(op, targets, incoming);
  }
  auto whileOp = cast<scf::WhileOp>(op);
  // Before the condition: the initial values and what the body yields.
  for (auto [i, arg] : llvm::enumerate(whileOp.getBeforeArguments())) {
    targets.push_back({arg});
    incoming.push_back({&whileOp.getInitsMutable()[i],
                        &whileOp.getYieldOp()->getOpOperand(i)});
  }
  // After it: the values the condition forwards to the body and out.
  for (auto [i, arg] : llvm::enumerate(whileOp.getAfterArguments())) {
    targets.push_back({arg, whileOp.getResult(i)});
    incoming.push_back({&whileOp.getConditionOp().getArgsMutable()[i]});
  }
  return joinTypes(op, targets, incoming);
}

class SpecializePass : public magi::impl::SpecializeBase<SpecializePass> {
public:
  using SpecializeBase::SpecializeBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (symbol.empty()) {
      module.emitError("magi-specialize needs a symbol");
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && func.isPublic() &&
          !func->hasAttr("magi.specialized")) {
        bool hasSymbol = false;
        func.walk([&](SymbolicIntOp op) { hasSymbol |= op.getName() == symbol; });
        if (hasSymbol)
          funcs.push_back(func);
      }
    if (funcs.empty()) {
      module.emitError("no function declares the symbol '") << symbol << "'";
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    for (func::FuncOp func : funcs) {
      // A split graph passes shapes across calls: specialize before the split.
      if (func->hasAttr(kSplitAttr) || func->hasAttr(kPieceIndexAttr)) {
        func.emitError("magi-specialize works on a graph before magi-split: '")
            << func.getName() << "' is split";
        return signalPassFailure();
      }
      func::FuncOp target = func;
      if (!replace) {
        target = func.clone();
        target.setName((func.getName() + "_" + symbol + "_" +
                        std::to_string(value)).str());
        symbols.insert(target, std::next(Block::iterator(func)));
      }
      target->setAttr("magi.specialized",
                      DictionaryAttr::get(&getContext(),
                                          {NamedAttribute(
                                              StringAttr::get(&getContext(), symbol),
                                              IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                                               value))}));
      if (failed(specializeSymbol(target, symbol, value)))
        return signalPassFailure();
    }
  }

};

} // namespace

namespace magi {

LogicalResult specializeSymbol(func::FuncOp func, StringRef symbol,
                              int64_t value) {
    OpBuilder b(func.getContext());
    // 1. The symbol becomes a constant.
    SmallVector<SymbolicIntOp> decls;
    func.walk([&](SymbolicIntOp op) {
      if (op.getName() == symbol)
        decls.push_back(op);
    });
    // In a piece, the symbol is an argument marked with its name.
  for (BlockArgument arg : func.getArguments()) {
    auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                  kSymbolArgAttr);
    if (!name || name.getValue() != symbol)
      continue;
    b.setInsertionPointToStart(&func.getBody().front());
    Value c = arith::ConstantIndexOp::create(b, func.getLoc(), value);
    arg.replaceAllUsesWith(c);
  }
  for (SymbolicIntOp decl : decls) {
      int64_t min = static_cast<int64_t>(decl.getMinVal());
      auto max = decl.getMaxVal();
      if (value < min || (max && value > static_cast<int64_t>(*max)))
        return decl.emitError("cannot specialize '")
               << symbol << "' to " << static_cast<int64_t>(value)
               << ": outside its range [" << min
               << ", " << (max ? std::to_string(static_cast<int64_t>(*max)) : "inf")
               << "]";
      b.setInsertionPoint(decl);
      Value c = arith::ConstantIndexOp::create(b, decl.getLoc(), value);
      decl.getResult().replaceAllUsesWith(c);
      decl.erase();
    }
    // 2. Bound dimensions whose expressions are now constant become static.
    SmallVector<BindSymbolicShapeOp> binds;
    func.walk([&](BindSymbolicShapeOp op) { binds.push_back(op); });
    for (BindSymbolicShapeOp bind : binds) {
      SmallVector<Attribute> operands;
      bool allConstant = true;
      for (Value s : bind.getShapeSymbols()) {
        auto c = s.getDefiningOp<arith::ConstantIndexOp>();
        allConstant &= static_cast<bool>(c);
        operands.push_back(c ? b.getIndexAttr(c.value()) : Attribute());
      }
      if (!allConstant) {
        // Other symbols remain: fold the constant ones into the expressions.
        AffineMap map = bind.getShapeExpressions();
        SmallVector<AffineExpr> replacements;
        SmallVector<Value> kept;
        for (auto [s, c] : llvm::zip(bind.getShapeSymbols(), operands)) {
          if (c) {
            replacements.push_back(b.getAffineConstantExpr(
                cast<IntegerAttr>(c).getInt()));
          } else {
            replacements.push_back(b.getAffineSymbolExpr(kept.size()));
            kept.push_back(s);
          }
        }
        AffineMap folded = map.replaceDimsAndSymbols({}, replacements, 0,
                                                     kept.size());
        // Dimensions that became constant are static now.
        auto type = cast<RankedTensorType>(bind.getOperand().getType());
        SmallVector<int64_t> shape(type.getShape());
        for (auto [i, e] : llvm::enumerate(folded.getResults()))
          if (auto c = dyn_cast<AffineConstantExpr>(e))
            shape[i] = c.getValue();
        bind.getOperand().setType(
            RankedTensorType::get(shape, type.getElementType()));
        b.setInsertionPoint(bind);
        BindSymbolicShapeOp::create(b, bind.getLoc(), bind.getOperand(), kept,
                                    folded);
        bind.erase();
        continue;
      }
      SmallVector<Attribute> sizes;
      if (failed(bind.getShapeExpressions().constantFold(operands, sizes)))
        continue;
      SmallVector<int64_t> shape;
      for (Attribute size : sizes)
        shape.push_back(cast<IntegerAttr>(size).getInt());
      Value tensor = bind.getOperand();
      auto type = cast<RankedTensorType>(tensor.getType());
      auto refined = cast_or_null<RankedTensorType>(
          meetTypes(type, RankedTensorType::get(shape, type.getElementType())));
      if (!refined)
        return bind.emitError("specializing '")
               << symbol << "' to " << static_cast<int64_t>(value)
               << " contradicts the type " << type;
      tensor.setType(refined);
      bind.erase();
    }
    // 3. Refold every result type from its operands, in order.
    WalkResult walk = func.walk([&](Operation *op) {
      LogicalResult refined = isa<scf::IfOp, scf::WhileOp>(op)
                                  ? joinControlFlowTypes(op)
                                  : magi::refineResultTypes(op);
      return failed(refined) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    func.setType(FunctionType::get(
        func.getContext(), func.getBody().front().getArgumentTypes(),
        func.getBody().front().getTerminator()->getOperandTypes()));
    // 4. Fold what the constants made foldable.
    RewritePatternSet patterns(func.getContext());
    for (RegisteredOperationName name :
         func.getContext()->getRegisteredOperations())
      name.getCanonicalizationPatterns(patterns, func.getContext());
    return applyPatternsGreedily(func, std::move(patterns));
  }

} // namespace magi
