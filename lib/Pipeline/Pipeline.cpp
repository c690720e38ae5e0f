//===- Pipeline.cpp - Magi's compilation pipeline by phases ---------------===//

#include "magi/Pipeline/Pipeline.h"
#include "magi/Target/Passes.h"
#include "magi/Conversion/Passes.h"
#include "magi/GPU/Passes.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace magi {

static constexpr Phase kPhases[] = {Phase::Import,   Phase::FullGraph,
                                    Phase::Split,    Phase::PostGrad,
                                    Phase::Lower,    Phase::Binary};

StringRef phaseName(Phase phase) {
  switch (phase) {
  case Phase::Import:
    return "import";
  case Phase::FullGraph:
    return "full-graph";
  case Phase::Split:
    return "split";
  case Phase::PostGrad:
    return "post-grad";
  case Phase::Lower:
    return "lower";
  case Phase::Binary:
    return "binary";
  }
  llvm_unreachable("unknown phase");
}

std::optional<Phase> parsePhase(StringRef name) {
  for (Phase p : kPhases)
    if (phaseName(p) == name)
      return p;
  return std::nullopt;
}

std::string phaseNames() {
  std::string names;
  for (Phase p : kPhases)
    names += (names.empty() ? "" : ", ") + phaseName(p).str();
  return names;
}

// The fusion passes in the order they run. Layer norm and attention come
// first: they only rename ops; the others consume the patterns around them.
static LogicalResult addFusions(OpPassManager &funcPm,
                                const PipelineOptions &options,
                                function_ref<LogicalResult(const Twine &)> err) {
  SmallVector<std::string> wanted(options.fusions.begin(), options.fusions.end());
  if (wanted.size() == 1 && wanted[0] == "none")
    return success();
  SmallVector<std::string> unwanted(options.disabledFusions.begin(),
                                    options.disabledFusions.end());
  for (ArrayRef<std::string> names : {ArrayRef(wanted), ArrayRef(unwanted)})
    for (const std::string &name : names)
      if (!llvm::is_contained(fusionNames(), name))
        return err("unknown fusion '" + name + "' (known: " +
                   llvm::join(fusionNames(), ", ") + ")");
  FuseOptions fuse;
  fuse.enable = wanted;
  fuse.disable = unwanted;
  funcPm.addPass(createFuse(fuse));
  return success();
}

static void addDump(OpPassManager &pm, const PipelineOptions &options,
                    Phase phase) {
  if (options.dumpDir.empty())
    return;
  DumpIROptions dump;
  dump.dir = options.dumpDir;
  dump.phase = phaseName(phase).str();
  dump.order = static_cast<unsigned>(phase);
  dump.perPiece = phase >= Phase::Split;
  pm.addPass(createDumpIR(dump));
}

LogicalResult buildPipeline(OpPassManager &pm, const PipelineOptions &options,
                            function_ref<LogicalResult(const Twine &)> err) {
  std::optional<Phase> last = parsePhase(options.compileTo);
  if (!last)
    return err("unknown phase '" + options.compileTo + "' (phases: " +
               phaseNames() + ")");
  std::optional<bool> tiled;
  if (options.tiledAttention == "on")
    tiled = true;
  else if (options.tiledAttention == "off")
    tiled = false;
  else if (options.tiledAttention != "auto")
    return err("tiled-attention must be auto, on or off, got '" +
               options.tiledAttention + "'");
  std::unique_ptr<Pass> compilePieces;
  if (*last == Phase::Binary) {
    compilePieces = createCompilePieces();
    if (failed(compilePieces->initializeOptions(options.binaryOptions, err)))
      return err("cannot parse binary-options '" + options.binaryOptions + "'");
  } else if (!options.binaryOptions.empty()) {
    return err("binary-options need compile-to=binary");
  }

  addDump(pm, options, Phase::Import);
  if (*last == Phase::Import)
    return success();

  // full-graph: clean-ups, the seed's rewrites, fusions, extension slot.
  OpPassManager &full = pm.nest<func::FuncOp>();
  if (!options.opLibrary.empty()) {
    ExpandOpLibraryOptions library;
    library.library = options.opLibrary;
    full.addPass(createExpandOpLibrary(library));
  }
  full.addPass(createCanonicalizerPass());
  full.addPass(createCSEPass());
  full.addPass(createItemToTensor());
  full.addPass(createSelectBranches());
  if (!options.replaceOp.empty()) {
    auto [from, to] = StringRef(options.replaceOp).split('=');
    if (from.empty() || to.empty())
      return err("replace-op must be 'from=to', got '" + options.replaceOp + "'");
    ReplaceOpOptions replace;
    replace.from = from.str();
    replace.to = to.str();
    full.addPass(createReplaceOp(replace));
  }
  full.addPass(createCanonicalizerPass());
  if (failed(addFusions(full, options, err)))
    return failure();
  full.addPass(createDeadCode());
  if (options.mergeProjections)
    full.addPass(createMergeProjections());
  full.addPass(createCanonicalizerPass());
  full.addPass(createCSEPass());
  full.addPass(createMarkInPlaceMutations());
  if (!options.fullGraphExtra.empty() &&
      failed(parsePassPipeline(options.fullGraphExtra, full)))
    return err("cannot parse full-graph-extra '" + options.fullGraphExtra + "'");
  addDump(pm, options, Phase::FullGraph);
  if (*last == Phase::FullGraph)
    return success();

  // split
  SplitOptions split;
  split.splittingOps.assign(options.splittingOps.begin(),
                            options.splittingOps.end());
  split.dotFile = options.splitDot;
  pm.addPass(createSplit(split));
  addDump(pm, options, Phase::Split);
  if (*last == Phase::Split)
    return success();

  // post-grad, per piece: order, dead code, views, explicit promotion.
  OpPassManager &post = pm.nest<func::FuncOp>();
  post.addPass(createTopologicalSortPass());
  post.addPass(createCanonicalizerPass());
  post.addPass(createDeadCode());
  post.addPass(createFoldTransposes());
  post.addPass(createExplicitPromotion());
  post.addPass(createCSEPass());
  if (!options.postGradExtra.empty() &&
      failed(parsePassPipeline(options.postGradExtra, post)))
    return err("cannot parse post-grad-extra '" + options.postGradExtra + "'");
  addDump(pm, options, Phase::PostGrad);
  if (*last == Phase::PostGrad)
    return success();

  addLowerToLinalgPasses(pm, tiled.value_or(*last == Phase::Binary));
  addDump(pm, options, Phase::Lower);
  if (*last == Phase::Lower)
    return success();

  pm.addPass(std::move(compilePieces));
  addDump(pm, options, Phase::Binary);
  return success();
}

void registerPasses() {
  registerMagiPasses();
  registerMagiGPUPasses();
  registerMagiConversionPasses();
  registerMagiTargetPasses();
  registerPassPipeline(
      "magi-pipeline",
      "Magi's phased pipeline (full-graph → split → post-grad → lower → "
      "binary) up to compile-to",
      [](OpPassManager &pm, StringRef optionsText,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        PipelineOptions options;
        if (failed(options.parseFromString(optionsText)))
          return failure();
        return buildPipeline(pm, options, errorHandler);
      },
      [](function_ref<void(const detail::PassOptions &)> optionsHandler) {
        optionsHandler(PipelineOptions());
      });
}

} // namespace magi
