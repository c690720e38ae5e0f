//===- Artifact.h - a split graph compiled into an artifact -----*- C++ -*-===//
//
// Writes the directory that magi-run loads (docs/artifact-format.md): the
// manifest (graph, pieces, variants, launch plans), PTX and cubin per piece,
// and the weights packed into weights.bin.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_COMPILE_ARTIFACT_H
#define MAGI_COMPILE_ARTIFACT_H

#include "magi/Cache/CacheStore.h"
#include "magi/Compile/GpuCompiler.h"
#include "magi/Import/TorchExport.h"
#include "mlir/IR/BuiltinOps.h"
#include <string>
#include <vector>

namespace magi {

struct ArtifactOptions {
  GpuTargetOptions target;
  /// Where the graph came from (its file name goes into the manifest).
  std::string sourcePath;
  /// Write no weights: parameters, buffers and constants then have no
  /// `weight` in the manifest (magi-run refuses to run such an artifact).
  bool noWeights = false;
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
};

/// What happened to one piece, for the summary and --stats.
struct PieceReport {
  std::string name;
  std::string kind;
  int64_t graphIndex = 0;
  size_t kernels = 0;
  size_t libraryCalls = 0;
  double seconds = 0;
  /// "hit" (from the cache), "compiled", or "reused" (an identical piece
  /// compiled earlier in the same run).
  std::string source;
  std::string cacheKey;
};

/// Compiles every piece of `module` (a split graph after the post-grad
/// phase: each piece goes through the lower phase, then to PTX) and writes
/// the artifact into `dir` (created). Weights come from `archive`.
mlir::LogicalResult writeArtifact(mlir::ModuleOp module,
                                  const TorchExportArchive *archive,
                                  llvm::StringRef dir,
                                  const ArtifactOptions &options,
                                  std::vector<PieceReport> &reports);

} // namespace magi

#endif // MAGI_COMPILE_ARTIFACT_H
