//===- ReplaceOp.cpp - Replace ops of one name by another -----------------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Transforms/Passes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"

namespace magi {
#define GEN_PASS_DEF_REPLACEOP
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;
using namespace magi;

namespace {

constexpr llvm::StringLiteral kOpaquePrefix = "magi.opaque:";

bool hasName(Operation *op, StringRef name) {
  if (auto opaque = dyn_cast<OpaqueOp>(op))
    if (opaque.getOpName() == name)
      return true;
  return op->getName().getStringRef() == name;
}

class ReplaceOpPass : public magi::impl::ReplaceOpBase<ReplaceOpPass> {
public:
  using ReplaceOpBase::ReplaceOpBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *context = &getContext();
    if (from.empty() || to.empty()) {
      func.emitError("magi-replace-op needs both 'from' and 'to'");
      return signalPassFailure();
    }
    bool toOpaque = StringRef(to).starts_with(kOpaquePrefix);
    StringRef toName = toOpaque ? StringRef(to).drop_front(kOpaquePrefix.size())
                                : StringRef(to);
    if (!toOpaque && !RegisteredOperationName::lookup(toName, context)) {
      func.emitError("magi-replace-op: '")
          << toName << "' is not a registered op (for an opaque op, write '"
          << kOpaquePrefix << toName << "')";
      return signalPassFailure();
    }
    SmallVector<Operation *> matches;
    func.walk([&](Operation *op) {
      if (op != func && hasName(op, from))
        matches.push_back(op);
    });
    OpBuilder b(context);
    for (Operation *op : matches) {
      b.setInsertionPoint(op);
      OperationState state(op->getLoc(),
                           toOpaque ? OpaqueOp::getOperationName() : toName);
      state.addOperands(op->getOperands());
      state.addTypes(op->getResultTypes());
      for (NamedAttribute attr : op->getAttrs())
        if (!(isa<OpaqueOp>(op) && attr.getName() == "op_name"))
          state.addAttribute(attr.getName(), attr.getValue());
      if (toOpaque)
        state.addAttribute("op_name", b.getStringAttr(toName));
      Operation *replacement = b.create(state);
      if (failed(mlir::verify(replacement))) {
        replacement->erase();
        op->emitError("magi-replace-op: replacing '")
            << from << "' by '" << toName << "' gives an invalid op here";
        return signalPassFailure();
      }
      op->replaceAllUsesWith(replacement->getResults());
      op->erase();
      ++numReplaced;
    }
  }
};

} // namespace
