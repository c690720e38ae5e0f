//===- OutlineKernels.cpp - outlining that keeps launch attributes --------===//
//
// Upstream's gpu-kernel-outlining builds each gpu.func from scratch and
// drops the launch's discardable attributes; the nvvm.* ones (launch
// bounds) are what PTX needs to see, so this pass carries them over.
//
//===----------------------------------------------------------------------===//

#include "magi/GPU/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"

namespace magi {
#define GEN_PASS_DEF_OUTLINEKERNELS
#include "magi/GPU/Passes.h.inc"
} // namespace magi

using namespace mlir;

namespace {

struct CarriedAttributes {
  StringAttr module, function;
  SmallVector<NamedAttribute> attributes;
};

class OutlineKernelsPass
    : public magi::impl::OutlineKernelsBase<OutlineKernelsPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<CarriedAttributes> carried;
    module.walk([&](gpu::LaunchOp launch) {
      if (!launch.getModule() || !launch.getFunction())
        return;
      CarriedAttributes entry{
          StringAttr::get(&getContext(), *launch.getModule()),
          StringAttr::get(&getContext(), *launch.getFunction()),
          {}};
      for (NamedAttribute attr : launch->getDiscardableAttrs())
        if (attr.getName().getValue().starts_with("nvvm."))
          entry.attributes.push_back(attr);
      if (!entry.attributes.empty())
        carried.push_back(std::move(entry));
    });
    // Outlining renames a kernel whose name is taken, so attributes could
    // land on the wrong one: each carrying launch must name its own.
    for (size_t i = 0; i < carried.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (carried[i].module == carried[j].module &&
            carried[i].function == carried[j].function) {
          module.emitError() << "magi-outline-kernels: two launches with nvvm "
                                "attributes name the kernel @"
                             << carried[i].module.getValue() << "::@"
                             << carried[i].function.getValue();
          return signalPassFailure();
        }

    OpPassManager outlining(ModuleOp::getOperationName());
    outlining.addPass(createGpuKernelOutliningPass());
    if (failed(runPipeline(outlining, module)))
      return signalPassFailure();

    for (const CarriedAttributes &entry : carried) {
      auto kernels = dyn_cast_or_null<gpu::GPUModuleOp>(
          SymbolTable::lookupSymbolIn(module, entry.module));
      auto kernel =
          kernels ? dyn_cast_or_null<gpu::GPUFuncOp>(
                        SymbolTable::lookupSymbolIn(kernels, entry.function))
                  : nullptr;
      if (!kernel) {
        module.emitError() << "magi-outline-kernels: no kernel @"
                           << entry.module.getValue() << "::@"
                           << entry.function.getValue()
                           << " after outlining";
        return signalPassFailure();
      }
      for (NamedAttribute attr : entry.attributes)
        kernel->setAttr(attr.getName(), attr.getValue());
    }
  }
};

} // namespace
