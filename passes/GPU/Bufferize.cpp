//===- Bufferize.cpp - one-shot bufferization for the GPU path ------------===//
//
// The textual options of upstream's one-shot-bufferize cannot say that
// copies are linalg.copy; this pass can, so the GPU path is a pipeline of
// registered passes that magi-opt reproduces.
//
//===----------------------------------------------------------------------===//

#include "magi/GPU/Passes.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

namespace magi {
#define GEN_PASS_DEF_MAGIBUFFERIZE
#include "magi/GPU/Passes.h.inc"
} // namespace magi

using namespace mlir;

Operation *magi::findHostControlFlow(Operation *root) {
  Operation *found = nullptr;
  root->walk([&](Operation *op) {
    if (!isa<scf::IfOp, scf::WhileOp>(op))
      return WalkResult::advance();
    for (Operation *parent = op->getParentOp(); parent;
         parent = parent->getParentOp())
      if (isa<linalg::LinalgOp, scf::ParallelOp, scf::ForallOp,
              tensor::GenerateOp>(parent))
        return WalkResult::advance(); // inside a kernel's body
    found = op;
    return WalkResult::interrupt();
  });
  return found;
}

namespace {

// A piece's launch plan is a straight line of launches and library calls:
// it cannot branch on a value on the device. cond and while_loop
// (scf.if / scf.while outside any kernel body) left in a piece are
// therefore refused here, by name, rather than failing later in
// bufferization or the plan (a top-level while_loop or cond is a loop or
// branch of the runtime instead: magi-split).
LogicalResult rejectHostControlFlow(ModuleOp module) {
  Operation *op = magi::findHostControlFlow(module);
  if (!op)
    return success();
  InFlightDiagnostic error = op->emitError()
                             << "'" << op->getName()
                             << "' (control flow: torch.cond or while_loop) is not "
                                "compiled for the GPU: a launch plan cannot branch on "
                                "a value on the device (magi-interp runs it, also "
                                "lowered with --lowered-pieces; a cond on the sizes "
                                "inside a piece compiles for --compile-sizes)";
  // The loop or branch magi-split left in the piece says why (the op found
  // may be one nested in it).
  for (Operation *parent = op; parent; parent = parent->getParentOp()) {
    if (auto why = parent->getAttrOfType<StringAttr>(magi::kNotARuntimeLoopAttr)) {
      error << "; a while loop runs as a loop of the runtime, but not this one: "
            << why.getValue();
      break;
    }
    if (auto why = parent->getAttrOfType<StringAttr>(magi::kNotARuntimeBranchAttr)) {
      error << "; a cond runs as a branch of the runtime, but not this one: "
            << why.getValue();
      break;
    }
  }
  return error;
}

// A fill of an empty tensor that several ops take as their init (CSE merges
// the identical fills of two RMSNorms' sums) would bufferize as one buffer
// filled once and copied for every use but the last. Instead every use gets
// an empty tensor and fill of its own, just before it, and the shared fill
// goes: each reduction then accumulates in place into a buffer filled for
// it, and the kernel configuration sees the fill next to its reduction. A
// use in a loop body is filled there, every iteration: it needs a fresh
// accumulator each time, and a fill outside would be copied in instead.
void cloneSharedFills(ModuleOp module) {
  SmallVector<linalg::FillOp> fills;
  module.walk([&](linalg::FillOp fill) {
    if (fill.hasPureTensorSemantics() && !fill->getResult(0).hasOneUse() &&
        fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
      fills.push_back(fill);
  });
  for (linalg::FillOp fill : fills) {
    auto empty = fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : fill->getResult(0).getUses())
      uses.push_back(&use);
    for (OpOperand *use : uses) {
      OpBuilder b(use->getOwner());
      Operation *newEmpty = b.clone(*empty);
      IRMapping mapping;
      mapping.map(empty.getResult(), newEmpty->getResult(0));
      Operation *newFill = b.clone(*fill, mapping);
      use->set(newFill->getResult(0));
    }
    fill->erase();
    if (empty->use_empty())
      empty->erase();
  }
}

class MagiBufferizePass
    : public magi::impl::MagiBufferizeBase<MagiBufferizePass> {
public:
  void runOnOperation() override {
    // Arguments are the caller's buffers (graph inputs, weights, other
    // pieces' results): read-only unless the lowering marked one as an
    // in-place mutation's destination.
    MLIRContext *ctx = &getContext();
    if (failed(rejectHostControlFlow(getOperation())))
      return signalPassFailure();
    cloneSharedFills(getOperation());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        if (isa<TensorType>(func.getArgumentTypes()[i]) &&
            !func.getArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName))
          func.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                          BoolAttr::get(ctx, false));
    }
    bufferization::OneShotBufferizationOptions options;
    options.bufferizeFunctionBoundaries = true;
    options.setFunctionBoundaryTypeConversion(
        bufferization::LayoutMapOption::IdentityLayoutMap);
    options.memCpyFn = [](OpBuilder &b, Location loc, Value from,
                          Value to) -> LogicalResult {
      linalg::CopyOp::create(b, loc, from, to);
      return success();
    };
    bufferization::BufferizationState state;
    if (failed(bufferization::runOneShotModuleBufferize(getOperation(), options,
                                                        state)))
      signalPassFailure();
  }
};

} // namespace
