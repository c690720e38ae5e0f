//===- Artifact.h - a split graph compiled into an artifact -----*- C++ -*-===//
//
// Writes the directory that magi-run loads (docs/artifact-format.md): the
// manifest (graph, pieces, variants, launch plans, where each weight lives)
// and PTX and cubin per piece. Weights stay in their archive unless
// packWeights copies them into weights.bin; their bytes are never held in
// memory.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_COMPILE_ARTIFACT_H
#define MAGI_COMPILE_ARTIFACT_H

#include "magi/Cache/CacheStore.h"
#include "magi/Target/GpuCompiler.h"
#include "mlir/IR/BuiltinOps.h"
#include <functional>
#include <string>
#include <vector>

namespace magi {

struct ArtifactOptions {
  GpuTargetOptions target;
  /// Where the graph came from (its file name goes into the manifest).
  std::string sourcePath;
  /// Sizes of the graph's symbol to compile specialized variants for (the
  /// variant for any size is always compiled).
  std::vector<int64_t> compileSizes;
  /// The torch.export archive the weights are in ("" for none). The
  /// manifest refers to its entries by a path relative to the artifact.
  std::string weightsArchive;
  /// Write no weights: parameters, buffers and constants then have no
  /// `weight` in the manifest (magi-run refuses to run such an artifact).
  bool noWeights = false;
  /// Copy the weights' storages into the artifact's weights.bin (streamed in
  /// bounded chunks, CRC-checked), so the artifact is self-contained.
  bool packWeights = false;
  /// Assemble each PTX with ptxas into a cubin (needs target.cudaPath).
  bool emitCubin = true;
  /// The compile cache, or null for none. Lowered pieces are looked up by
  /// their key; misses are compiled and stored.
  cache::CacheStore *cache = nullptr;
  /// The key's salt factor (forces recompilation when changed).
  std::string cacheSalt;
  /// Print each piece's key factors, and for a miss what differs from the
  /// closest stored entry, to this stream (null: not at all).
  llvm::raw_ostream *explainCache = nullptr;
  /// Called after each piece variant that had to be compiled, with the
  /// number done and the number to compile (from one thread at a time).
  std::function<void(size_t done, size_t total)> progress;
};

/// What happened to one piece, for the summary and --stats.
struct PieceReport {
  std::string name;
  std::string kind;
  int64_t graphIndex = 0;
  size_t kernels = 0;
  size_t libraryCalls = 0;
  size_t variants = 1;
  double seconds = 0;
  /// "hit" (from the cache), "compiled", or "reused" (an identical piece
  /// compiled earlier in the same run).
  std::string source;
  std::string cacheKey;
};

namespace runtime {
struct Manifest;
} // namespace runtime

/// How the artifact writes back one input the graph mutates (a KV cache):
/// in place (every variant of the piece computing its new value returns the
/// input's own buffer) or by a copy the runtime makes after each run.
struct MutationReport {
  std::string input;
  bool inPlace = false;
};

/// The mutations of `manifest`'s graph, in output order.
std::vector<MutationReport> describeMutations(const runtime::Manifest &manifest);

/// Compiles every piece of `module` (a split graph after the post-grad
/// phase: each piece goes through the lower phase, then to PTX) and writes
/// the artifact into `dir` (created). Weights come from
/// `options.weightsArchive`.
mlir::LogicalResult writeArtifact(mlir::ModuleOp module,
                                  llvm::StringRef dir,
                                  const ArtifactOptions &options,
                                  std::vector<PieceReport> &reports,
                                  std::vector<MutationReport> *mutations = nullptr);

} // namespace magi

#endif // MAGI_COMPILE_ARTIFACT_H
