//===- DeadCode.cpp - Dead-code elimination through shape bindings --------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace magi {
#define GEN_PASS_DEF_DEADCODE
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;
using namespace magi;

namespace {

// True when every use of the op's results is as the tensor a binding binds
// (a symbol a binding refers to is a real use).
bool onlyBound(Operation *op) {
  for (Value result : op->getResults())
    for (OpOperand &use : result.getUses())
      if (!isa<BindSymbolicShapeOp>(use.getOwner()) ||
          use.getOperandNumber() != 0)
        return false;
  return true;
}

class DeadCodePass : public magi::impl::DeadCodeBase<DeadCodePass> {
public:
  void runOnOperation() override {
    // Users come after their operands: one pass from the end finds whole
    // dead chains. Bindings erased on the way were visited already.
    for (Block &block : getOperation().getBody()) {
      SmallVector<Operation *> ops;
      for (Operation &op : block.without_terminator())
        ops.push_back(&op);
      for (Operation *op : llvm::reverse(ops)) {
        if (op->getNumResults() == 0 || !isMemoryEffectFree(op) ||
            op->getNumRegions() != 0 || !onlyBound(op))
          continue;
        for (Operation *user : llvm::make_early_inc_range(op->getUsers()))
          user->erase();
        op->erase();
        ++numErased;
      }
    }
  }
};

} // namespace
