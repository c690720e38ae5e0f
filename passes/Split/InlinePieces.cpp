//===- InlinePieces.cpp - Inline the pieces of a split graph --------------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

namespace magi {
#define GEN_PASS_DEF_INLINEPIECES
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;
using namespace magi;

namespace {

// Two bindings say the same when they bind the same tensor with the same
// symbols and expressions.
bool sameBinding(BindSymbolicShapeOp a, BindSymbolicShapeOp b) {
  return a.getOperand() == b.getOperand() &&
         a.getShapeSymbols() == b.getShapeSymbols() &&
         a.getShapeExpressions() == b.getShapeExpressions();
}

class InlinePiecesPass : public magi::impl::InlinePiecesBase<InlinePiecesPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (callee && callee->hasAttr(kPieceIndexAttr))
        calls.push_back(call);
    });
    OpBuilder b(module.getContext());
    for (func::CallOp call : calls) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      Block &body = callee.getBody().front();
      IRMapping mapping;
      mapping.map(body.getArguments(), call.getOperands());
      b.setInsertionPoint(call);
      for (Operation &op : body.without_terminator()) {
        // The split repeated bindings across pieces: keep one of each.
        if (auto bind = dyn_cast<BindSymbolicShapeOp>(op)) {
          Value tensor = mapping.lookupOrDefault(bind.getOperand());
          auto existing = llvm::any_of(tensor.getUsers(), [&](Operation *u) {
            auto other = dyn_cast<BindSymbolicShapeOp>(u);
            return other &&
                   other.getShapeExpressions() == bind.getShapeExpressions() &&
                   llvm::equal(other.getShapeSymbols(),
                               llvm::map_range(bind.getShapeSymbols(),
                                               [&](Value s) {
                                                 return mapping.lookupOrDefault(s);
                                               }));
          });
          if (existing)
            continue;
        }
        b.clone(op, mapping);
      }
      for (auto [result, value] :
           llvm::zip(call.getResults(), body.getTerminator()->getOperands()))
        result.replaceAllUsesWith(mapping.lookupOrDefault(value));
      call.erase();
    }
    // Bindings of call results repeated on top are now duplicates.
    module.walk([&](BindSymbolicShapeOp bind) {
      for (Operation *user : bind.getOperand().getUsers()) {
        auto other = dyn_cast<BindSymbolicShapeOp>(user);
        if (other && other != bind && other->isBeforeInBlock(bind) &&
            sameBinding(other, bind)) {
          bind.erase();
          return;
        }
      }
    });
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      func->removeAttr(kSplitAttr);
      if (func->hasAttr(kPieceIndexAttr) &&
          SymbolTable::symbolKnownUseEmpty(func, module))
        func.erase();
    }
  }
};

} // namespace
