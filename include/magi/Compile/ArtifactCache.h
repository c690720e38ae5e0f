//===- ArtifactCache.h - whole artifacts in the compile cache ---*- C++ -*-===//
//
// A warm compile should cost little more than starting the process: the
// whole artifact is cached under a key of the input's bytes and the options,
// so a hit skips import, the pipeline and every piece. A miss falls back to
// the per-piece cache (pieces shared with other models still hit).
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_COMPILE_ARTIFACTCACHE_H
#define MAGI_COMPILE_ARTIFACTCACHE_H

#include "magi/Cache/CacheStore.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace magi {

/// Everything that decides an artifact's bytes, besides Magi's and LLVM's
/// versions (which the key adds): the input files, the pipeline and target
/// options.
struct ArtifactKeyInputs {
  /// The graph (.pt2 or .mlir) and, if separate, the weights archive.
  std::vector<std::string> inputFiles;
  /// Every option that changes the artifact, as text.
  std::string options;
  std::string chip, features;
  /// The CUDA toolkit used for libdevice and ptxas ("" for none).
  std::string cudaPath;
  std::string salt;
};

/// Makes `dir` ready for a new artifact: an old manifest, weights and pieces
/// are removed (so a failed compile never leaves a manifest over new pieces,
/// and no stale piece file stays), `dir/pieces` is created.
llvm::Error prepareArtifactDir(llvm::StringRef dir);

/// What identifies an input file for the artifact's key and the manifest's
/// `source.sha256`: for a zip archive the SHA-256 of its directory listing
/// (entry names, methods, sizes, CRC-32s), which costs nothing to read
/// however large its weights; for anything else the SHA-256 of its bytes.
/// "<kind>:<hex>".
llvm::Expected<std::string> inputIdentity(llvm::StringRef path);

/// `target` as a path relative to the directory `fromDir` (both made
/// absolute and normalized; symbolic links are not resolved): how an
/// artifact names the archive its weights are in.
std::string relativePath(llvm::StringRef target, llvm::StringRef fromDir);

/// The key factors of the artifact; fails when an input cannot be read.
llvm::Expected<cache::CacheKeyFactors>
artifactKeyFactors(const ArtifactKeyInputs &inputs);

/// Writes the cached artifact into `dir` and returns true on a hit; false on
/// a miss. (In must-hit mode a miss is not an error here: the pieces may
/// still all hit.)
llvm::Expected<bool> restoreArtifact(cache::CacheStore &cache,
                                     const cache::CacheKeyFactors &factors,
                                     llvm::StringRef dir);

/// Stores the artifact in `dir` under `factors`' key.
llvm::Error storeArtifact(cache::CacheStore &cache,
                          const cache::CacheKeyFactors &factors,
                          llvm::StringRef dir);

} // namespace magi

#endif // MAGI_COMPILE_ARTIFACTCACHE_H
