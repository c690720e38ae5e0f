//===- WaitForPreviousGrid.cpp - kernels ready for programmatic launch ----===//
//
// A kernel launched with programmatic stream serialization may start while
// the previous kernel in the stream still runs; waiting first thing for
// that kernel's results keeps every read and write as ordered as a plain
// launch, while the blocks' scheduling overlaps the previous kernel's tail.
//
//===----------------------------------------------------------------------===//

#include "magi/GPU/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace magi {
#define GEN_PASS_DEF_WAITFORPREVIOUSGRID
#include "magi/GPU/Passes.h.inc"
} // namespace magi

using namespace mlir;

// A kernel that waits anywhere was made to (this pass's wait comes first; a
// few-row product's after prefetching weights that no wait guards).
bool magi::waitsForPreviousGrid(gpu::GPUFuncOp kernel) {
  if (kernel.isExternal())
    return false;
  return kernel
      .walk([](NVVM::GriddepcontrolOp op) {
        return op.getKind() == NVVM::GridDepActionKind::wait ? WalkResult::interrupt()
                                                             : WalkResult::advance();
      })
      .wasInterrupted();
}

namespace {
class WaitForPreviousGridPass
    : public magi::impl::WaitForPreviousGridBase<WaitForPreviousGridPass> {
public:
  void runOnOperation() override {
    getOperation().walk([](gpu::GPUFuncOp kernel) {
      if (!kernel.isKernel() || kernel.isExternal() || magi::waitsForPreviousGrid(kernel))
        return;
      OpBuilder b = OpBuilder::atBlockBegin(&kernel.getBody().front());
      Location loc = kernel.getLoc();
      NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::wait);
      NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::launch_dependents);
    });
  }
};
} // namespace
