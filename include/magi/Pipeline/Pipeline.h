//===- Pipeline.h - Magi's compilation pipeline by phases -------*- C++ -*-===//
//
// The pipeline is a C++ function over an options struct, in named phases:
//
//   import → full-graph → split → post-grad → lower → binary
//
// `import` is done by the importer (the pipeline starts after it); the
// pipeline builds the passes of every phase up to `compile-to`. `binary`
// compiles every piece to PTX and a launch plan (magi-compile-pieces), as
// magi-compile does for each piece variant through its cache.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_PIPELINE_PIPELINE_H
#define MAGI_PIPELINE_PIPELINE_H

#include "magi/Conversion/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/StringRef.h"
#include <optional>

namespace magi {

enum class Phase { Import, FullGraph, Split, PostGrad, Lower, Binary };

/// "import", "full-graph", "split", "post-grad", "lower", "binary".
llvm::StringRef phaseName(Phase phase);
std::optional<Phase> parsePhase(llvm::StringRef name);
/// The phase names in order, comma-separated (for messages).
std::string phaseNames();

struct PipelineOptions : public mlir::PassPipelineOptions<PipelineOptions> {
  Option<std::string> compileTo{
      *this, "compile-to",
      llvm::cl::desc("Last phase to run: import, full-graph, split, post-grad, "
                     "lower, binary"),
      llvm::cl::init("post-grad")};
  ListOption<std::string> splittingOps{
      *this, "splitting-ops",
      llvm::cl::desc("Ops to split at (default: the attention ops)")};
  ListOption<std::string> fusions{
      *this, "fusions",
      llvm::cl::desc("Fusion passes to run, by name without 'magi-fuse-' "
                     "(default: all; 'none' for none)")};
  ListOption<std::string> disabledFusions{
      *this, "disable-fusions",
      llvm::cl::desc("Fusion passes not to run, by name without "
                     "'magi-fuse-' (applied after 'fusions')")};
  Option<bool> mergeProjections{
      *this, "merge-projections",
      llvm::cl::desc("Merge the projections of one input (Q/K/V, gate/up) "
                     "into one product over concatenated weights "
                     "(magi-merge-projections)"),
      llvm::cl::init(true)};
  Option<std::string> opLibrary{
      *this, "op-library",
      llvm::cl::desc("An MLIR file of op definitions: magi-expand-op-library "
                     "replaces the opaque ops they name, first in the "
                     "full-graph phase")};
  Option<std::string> replaceOp{
      *this, "replace-op",
      llvm::cl::desc("'from=to': run magi-replace-op in the full-graph phase")};
  Option<std::string> fullGraphExtra{
      *this, "full-graph-extra",
      llvm::cl::desc("Extra passes (a pass pipeline on func.func) at the end "
                     "of the full-graph phase")};
  Option<std::string> postGradExtra{
      *this, "post-grad-extra",
      llvm::cl::desc("Extra passes (a pass pipeline on func.func) at the end "
                     "of the post-grad phase, run on every piece")};
  Option<std::string> tiledAttention{
      *this, "tiled-attention",
      llvm::cl::desc("auto, on or off: attention that fits one tiled "
                     "tensor-core kernel becomes magi.tiled_attention in the "
                     "lower phase (auto: when compiling to binary, as "
                     "magi-compile does)"),
      llvm::cl::init("auto")};
  Option<std::string> binaryOptions{
      *this, "binary-options",
      llvm::cl::desc("Options of the binary phase's magi-compile-pieces "
                     "(e.g. 'chip=sm_90 cuda-path=/usr/local/cuda')")};
  Option<std::string> dumpDir{
      *this, "dump-dir",
      llvm::cl::desc("Write the IR after every phase into this directory")};
  Option<std::string> splitDot{
      *this, "split-dot",
      llvm::cl::desc("Write the split graph as Graphviz to this file")};
};

/// Adds the passes of every phase up to `options.compileTo` to `pm` (a pass
/// manager on builtin.module). Fails, with a message to `errorHandler`, on an
/// unknown or unimplemented phase or a malformed extra-pass pipeline.
mlir::LogicalResult
buildPipeline(mlir::OpPassManager &pm, const PipelineOptions &options,
              llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>
                  errorHandler);

/// Registers the passes and the `magi-pipeline` pass pipeline.
void registerPasses();

} // namespace magi

#endif // MAGI_PIPELINE_PIPELINE_H
