//===- TargetPasses.cpp - Launch-plan extraction and the binary phase -----===//

#include "magi/Target/GpuCompiler.h"
#include "magi/Target/Passes.h"
#include "magi/Transforms/Passes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Pass/PassManager.h"

namespace magi {
#define GEN_PASS_DEF_EXTRACTLAUNCHPLAN
#define GEN_PASS_DEF_COMPILEPIECES
#include "magi/Target/Passes.h.inc"
} // namespace magi

using namespace mlir;
using namespace magi;

namespace {

class ExtractLaunchPlanPass
    : public magi::impl::ExtractLaunchPlanBase<ExtractLaunchPlanPass> {
public:
  using ExtractLaunchPlanBase::ExtractLaunchPlanBase;
  explicit ExtractLaunchPlanPass(LaunchPlanSink sink) : sink(std::move(sink)) {}

  void runOnOperation() override {
    for (auto host : getOperation().getOps<func::FuncOp>()) {
      if (host.isExternal())
        continue; // the gemm library's declarations
      FailureOr<LaunchPlan> plan = extractLaunchPlan(host);
      if (failed(plan))
        return signalPassFailure();
      host->setAttr(kLaunchPlanAttr,
                    StringAttr::get(&getContext(),
                                    runtime::printVariantBody(*plan)));
      if (sink)
        sink(host, std::move(*plan));
    }
  }

private:
  LaunchPlanSink sink;
};

class CompilePiecesPass
    : public magi::impl::CompilePiecesBase<CompilePiecesPass> {
public:
  using CompilePiecesBase::CompilePiecesBase;

  // Every dialect the GPU path creates, loaded before the pass runs: the
  // pieces compile in pass managers of their own.
  void getDependentDialects(DialectRegistry &registry) const override {
    OpPassManager pm(ModuleOp::getOperationName());
    buildGpuPipeline(pm, targetOptions());
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> pieces;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(kPieceIndexAttr) && !func.isExternal())
        pieces.push_back(func);
    if (pieces.empty()) {
      module.emitError("magi-compile-pieces: no piece to compile (a function "
                       "marked '")
          << kPieceIndexAttr << "'): run the split phase first";
      return signalPassFailure();
    }
    GpuTargetOptions target = targetOptions();
    if (llvm::Error error = checkKernelPassOptions(target)) {
      module.emitError("magi-compile-pieces: ") << llvm::toString(std::move(error));
      return signalPassFailure();
    }
    for (func::FuncOp piece : pieces) {
      FailureOr<CompiledPiece> compiled = compilePieceForGpu(piece, target);
      if (failed(compiled))
        return signalPassFailure();
      piece->setAttr(kLaunchPlanAttr,
                     StringAttr::get(&getContext(),
                                     runtime::printVariantBody(
                                         planWithKernelConfigs(*compiled))));
      if (!compiled->ptx.empty())
        piece->setAttr(kPtxAttr, StringAttr::get(&getContext(), compiled->ptx));
      piece.getBody().getBlocks().clear();
    }
  }

private:
  GpuTargetOptions targetOptions() const {
    GpuTargetOptions target;
    target.chip = chip;
    target.features = features;
    target.optLevel = optLevel;
    target.cudaPath = cudaPath;
    target.blockSize = blockSize;
    target.reductionBlockSize = reductionBlockSize;
    target.libraryGemm = libraryGemm;
    target.attentionRowsPerWarp = attentionRowsPerWarp;
    target.attentionKeyRows = attentionKeyRows;
    target.attentionQueryInShared = attentionQueryInShared;
    target.attentionMinBlocksPerSM = attentionMinBlocksPerSM;
    target.attentionKeySplits = attentionKeySplits;
    target.fewRowGemmRows = fewRowGemmRows;
    target.fewRowGemmColumnTiles = fewRowGemmColumnTiles;
    target.fewRowGemmWarps = fewRowGemmWarps;
    target.fewRowGemmStages = fewRowGemmStages;
    target.kernelPassOptions = kernelPassOptions;
    return target;
  }
};

} // namespace

std::unique_ptr<Pass> magi::createExtractLaunchPlan(LaunchPlanSink sink) {
  return std::make_unique<ExtractLaunchPlanPass>(std::move(sink));
}
