//===- Artifact.h - a split graph compiled into an artifact -----*- C++ -*-===//
//
// Writes the directory that magi-run loads (docs/artifact-format.md): the
// manifest (graph, pieces, variants, launch plans), PTX and cubin per piece,
// and the weights packed into weights.bin.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_COMPILE_ARTIFACT_H
#define MAGI_COMPILE_ARTIFACT_H

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
  /// Assemble each PTX with ptxas into a cubin (needs target.cudaPath).
  bool emitCubin = true;
};

/// What happened to one piece, for the summary and --stats.
struct PieceReport {
  std::string name;
  std::string kind;
  int64_t graphIndex = 0;
  size_t kernels = 0;
  size_t libraryCalls = 0;
  double seconds = 0;
};

/// Compiles every piece of `module` (a split graph in linalg form: the
/// pipeline's lower phase) and writes the artifact into `dir` (created).
/// `postGrad` is the same graph before the lower phase; its split function
/// and piece signatures describe the graph. Weights come from `archive`.
mlir::LogicalResult writeArtifact(mlir::ModuleOp lowered,
                                  const TorchExportArchive *archive,
                                  llvm::StringRef dir,
                                  const ArtifactOptions &options,
                                  std::vector<PieceReport> &reports);

} // namespace magi

#endif // MAGI_COMPILE_ARTIFACT_H
