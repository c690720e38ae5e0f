//===- Decompose.cpp - Fused magi ops back to primitive ops ---------------===//
//
// The inverse of the fusion passes. Each fused op becomes the primitive ops
// its documentation defines it by; the last op takes the fused op's result
// type (a refinement of what inference gives it).
//
//===----------------------------------------------------------------------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"

namespace magi {
#define GEN_PASS_DEF_DECOMPOSEFUSED
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;
using namespace magi;

namespace {

// Gives the last op of a decomposition the fused op's (refined) type and
// replaces the fused op.
LogicalResult finish(Operation *fused, Value result) {
  Type want = fused->getResult(0).getType();
  if (result.getType() != want) {
    if (!isRefinementOf(want, result.getType()))
      return fused->emitError("decomposition gives type ")
             << result.getType() << ", expected " << want;
    result.setType(want);
  }
  fused->getResult(0).replaceAllUsesWith(result);
  fused->erase();
  return success();
}

class DecomposeFusedPass : public magi::impl::DecomposeFusedBase<DecomposeFusedPass> {
public:
  using DecomposeFusedBase::DecomposeFusedBase;

  void runOnOperation() override {
    // The ops it knows are the registered ones that can decompose.
    MLIRContext *context = &getContext();
    for (const std::string &name : ops) {
      std::optional<RegisteredOperationName> registered =
          RegisteredOperationName::lookup(name, context);
      if (!registered || !registered->hasInterface<DecomposableOpInterface>()) {
        getOperation().emitError("magi-decompose-fused: '")
            << name << "' is not a fused op it decomposes (known: "
            << llvm::join(decomposableOps(context), ", ") << ")";
        return signalPassFailure();
      }
    }
    auto wanted = [&](Operation *op) {
      return ops.empty() ||
             llvm::is_contained(ops, op->getName().getStringRef().str());
    };
    SmallVector<DecomposableOpInterface> fused;
    getOperation().walk([&](DecomposableOpInterface op) {
      if (wanted(op))
        fused.push_back(op);
    });
    OpBuilder b(context);
    for (DecomposableOpInterface op : fused) {
      b.setInsertionPoint(op);
      FailureOr<Value> result = op.decompose(b);
      if (failed(result) || failed(finish(op, *result)))
        return signalPassFailure();
      ++numDecomposed;
    }
  }

private:
  // The names of the registered ops that implement DecomposableOpInterface.
  static SmallVector<std::string> decomposableOps(MLIRContext *context) {
    SmallVector<std::string> names;
    for (RegisteredOperationName name : context->getRegisteredOperations())
      if (name.hasInterface<DecomposableOpInterface>())
        names.push_back(name.getStringRef().str());
    llvm::sort(names);
    return names;
  }
};

} // namespace
