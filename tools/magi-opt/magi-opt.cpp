//===- magi-opt.cpp - mlir-opt with Magi's dialect and passes -------------===//
//
// Beside mlir-opt's options, `--magi-compile-to=<phase>` runs Magi's pipeline
// up to that phase and prints the IR as the pipeline has it there;
// `--magi-dump-dir`, `--magi-split-dot`, `--magi-splitting-ops`,
// `--magi-tiled-attention` and `--magi-binary-options` configure it. Passes given the usual way run first.
//
//===----------------------------------------------------------------------===//

#include "magi/Target/GpuCompiler.h"
#include "magi/InitAllDialects.h"
#include "magi/Pipeline/Pipeline.h"
#include "magi/Support/Version.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

namespace cl = llvm::cl;

static cl::OptionCategory magiCategory("Magi pipeline options");
static cl::opt<std::string> compileTo(
    "magi-compile-to",
    cl::desc("Run Magi's pipeline up to this phase (full-graph, split, "
             "post-grad, lower, binary) and print the IR there"),
    cl::cat(magiCategory));
static cl::opt<std::string>
    dumpDir("magi-dump-dir",
            cl::desc("With --magi-compile-to: write the IR after every phase "
                     "(and every piece after split) into this directory"),
            cl::cat(magiCategory));
static cl::opt<std::string>
    splitDot("magi-split-dot",
             cl::desc("With --magi-compile-to: write the split graph as "
                      "Graphviz to this file"),
             cl::cat(magiCategory));
static cl::list<std::string> splittingOps(
    "magi-splitting-ops", cl::CommaSeparated,
    cl::desc("With --magi-compile-to: ops to split at (default: attention)"),
    cl::cat(magiCategory));

static cl::opt<std::string> tiledAttention(
    "magi-tiled-attention",
    cl::desc("With --magi-compile-to: auto, on or off (attention as one tiled "
             "tensor-core kernel in the lower phase; auto: when compiling to "
             "binary)"),
    cl::init("auto"), cl::cat(magiCategory));
static cl::opt<std::string> binaryOptions(
    "magi-binary-options",
    cl::desc("With --magi-compile-to=binary: magi-compile-pieces' options "
             "(e.g. 'chip=sm_90 cuda-path=/usr/local/cuda')"),
    cl::cat(magiCategory));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAllPasses();
  magi::registerPasses();
  magi::registerGpuPipeline();

  mlir::DialectRegistry registry;
  magi::registerAllDialects(registry);
  // Upstream interface models (bufferization of the lowered pieces, ...), so
  // that upstream passes run on Magi's IR as in mlir-opt.
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // What magi-gpu-pipeline needs past the dialects (NVVM target, LLVM IR
  // translations, the bufferization models).
  magi::registerGpuCompilation(registry);
  cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { magi::printVersion(os); });

  auto [inputPath, outputPath] = mlir::registerAndParseCLIOptions(
      argc, argv, "Magi optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();

  bool usesPipeline = !compileTo.empty();
  if (!usesPipeline && (!dumpDir.empty() || !splitDot.empty() ||
                        !splittingOps.empty() || !binaryOptions.empty() ||
                        tiledAttention.getNumOccurrences())) {
    llvm::errs() << "magi-opt: --magi-dump-dir, --magi-split-dot, "
                    "--magi-splitting-ops, --magi-tiled-attention and "
                    "--magi-binary-options need --magi-compile-to\n";
    return 1;
  }
  // Outlives the pass manager set-up below, which reads it.
  magi::PipelineOptions options;
  if (usesPipeline) {
    options.compileTo = compileTo;
    options.dumpDir = dumpDir;
    options.splitDot = splitDot;
    options.tiledAttention = tiledAttention;
    options.binaryOptions = binaryOptions;
    for (const std::string &op : splittingOps)
      options.splittingOps.push_back(op);
    // MlirOptMain dumps the command line's passes as soon as it adds them,
    // before Magi's (so that dump may say "0 passes"); the whole pipeline
    // is dumped again after both.
    bool dump = config.shouldDumpPassPipeline();
    mlir::MlirOptMainConfig base = config;
    config.setPassPipelineSetupFn([base, dump, &options](mlir::PassManager &pm) {
      if (mlir::failed(base.setupPassPipeline(pm)))
        return mlir::failure();
      if (mlir::failed(magi::buildPipeline(pm, options, [](const llvm::Twine &msg) {
            llvm::errs() << "magi-opt: " << msg << "\n";
            return mlir::failure();
          })))
        return mlir::failure();
      if (dump) {
        llvm::errs() << "magi-opt: the whole pipeline, with --magi-compile-to's phases:\n";
        pm.dump();
        llvm::errs() << "\n";
      }
      return mlir::success();
    });
  }

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputPath, &error);
  if (!input) {
    llvm::errs() << "magi-opt: " << error << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputPath, &error);
  if (!output) {
    llvm::errs() << "magi-opt: " << error << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(input), registry,
                                     config)))
    return 1;
  output->keep();
  return 0;
}
