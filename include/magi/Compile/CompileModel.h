//===- CompileModel.h - a captured graph to an artifact, as a call --*- C++ -*-===//
//
// What magi-compile does, as a library call: import a torch.export archive
// (or read a .mlir graph), run the pipeline, compile every piece (or take it
// from the cache) and write the artifact directory magi-run loads. One
// options struct holds every setting; the tool binds its flags to it
// (CompileCommandLine), the C API and other programs set it by name
// (setCompileOption).
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_COMPILE_COMPILEMODEL_H
#define MAGI_COMPILE_COMPILEMODEL_H

#include "magi/Cache/CacheStore.h"
#include "magi/Compile/Artifact.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace magi {

/// Every setting of one compile. Field names follow magi-compile's flags
/// (setCompileOption and CompileCommandLine name them the same way).
struct CompileOptions {
  /// The graph: a torch.export archive (.pt2) or a .mlir file.
  std::string inputPath;
  /// The artifact directory to write (created).
  std::string outputDir;
  /// The archive holding the weights, for a .mlir graph (an archive input
  /// is its own).
  std::string weightsPath;
  bool packWeights = false;
  bool noWeights = false;
  /// Sizes of the graph's symbol to compile specialized variants for.
  std::vector<int64_t> compileSizes;
  std::string chip = "sm_90a";
  std::string features = "+ptx80";
  /// The CUDA toolkit (libdevice, ptxas); empty: $CUDA_PATH, else the one
  /// found when Magi was built (defaultCudaPath).
  std::string cudaPath;
  bool emitCubin = true;
  /// Ops to split at; empty: the attention ops.
  std::vector<std::string> splittingOps;
  bool mergeProjections = true;
  /// magi-fuse's fusions not to run, by name (fusionNames()).
  std::vector<std::string> disabledFusions;
  int64_t blockSize = 256;
  int64_t reductionBlockSize = 128;
  bool libraryGemm = true;
  bool tiledAttention = true;
  /// The tiled attention kernel's tiling (GpuTargetOptions).
  int64_t attentionRowsPerWarp = 0; // 0: chosen per attention
  int64_t attentionKeyRows = 64;
  bool attentionQueryInShared = false;
  int64_t attentionMinBlocksPerSM = 0;
  int64_t attentionKeySplits = 0; // 0: chosen, 1: none
  /// The few-row product kernel (GpuTargetOptions): rows (0: none) and tiling.
  int64_t fewRowGemmRows = 16;
  int64_t fewRowGemmColumnTiles = 0;
  int64_t fewRowGemmWarps = 0;
  int64_t fewRowGemmStages = 0;
  /// Further options of the kernel passes (GpuTargetOptions::kernelPassOptions).
  std::string kernelPassOptions;
  /// An MLIR file of op definitions for ops the importer keeps opaque
  /// (magi-expand-op-library; "" for none). Its contents are part of the
  /// artifact's cache key.
  std::string opLibrary;
  /// Write the IR after every phase into this directory ("" for none).
  std::string dumpDir;

  /// The compile cache's root ("" : $MAGI_CACHE_DIR, else ~/.cache/magi).
  std::string cacheDir;
  cache::CacheMode cacheMode = cache::CacheMode::ReadWrite;
  std::string cacheSalt;
  /// After compiling, evict least recently used entries down to this size.
  std::optional<uint64_t> cacheMaxBytes;

  /// Names the warnings that are not at an op ("<name>: warning: ...").
  std::string programName = "magi";
  /// Where MLIR's diagnostics (errors and warnings at op locations) and the
  /// cache's warnings go; null: stderr.
  llvm::raw_ostream *diagnostics = nullptr;
  /// Each piece's key factors and the reason of each miss (null: none).
  llvm::raw_ostream *explainCache = nullptr;
  /// Called after each piece variant that had to be compiled.
  std::function<void(size_t done, size_t total)> progress;

  /// The options that change the artifact's bytes, in one canonical text
  /// (part of the whole-artifact cache key): equal texts, equal artifacts.
  std::string keyText() const;
  /// The CUDA toolkit this compile uses: cudaPath, else $CUDA_PATH, else
  /// the toolkit found when Magi was built, else "".
  std::string resolvedCudaPath() const;
};

/// What a compile did.
struct CompileResult {
  /// One report per piece, in the manifest's order.
  std::vector<PieceReport> pieces;
  /// The inputs the graph mutates, in output order (describeMutations).
  std::vector<MutationReport> mutations;
  /// The whole artifact came from the cache (import and pipeline skipped).
  bool artifactFromCache = false;
  /// The cache's counters at the end (nullopt: the cache was off).
  std::optional<cache::CacheCounters> cacheCounters;
  double seconds = 0;
};

/// Compiles `options.inputPath` into `options.outputDir`. Errors that are
/// not at an op (a bad option, an unreadable cache) are returned;
/// diagnostics at ops go to `options.diagnostics` and the error then says
/// which phase failed.
llvm::Expected<CompileResult> compileModel(const CompileOptions &options);

/// Sets one option by its magi-compile flag name, without the dashes
/// ("target", "compile-sizes", "no-cubin", ...), from its text as on the
/// command line: "1,16,512" for lists, "true"/"false" (or "" for true)
/// for flags. Refuses unknown names and malformed values.
llvm::Error setCompileOption(CompileOptions &options, llvm::StringRef name,
                             llvm::StringRef value);

/// The names setCompileOption knows, in the order of `magi-compile --help`.
std::vector<std::string> compileOptionNames();

/// magi-compile's flags, each bound to a field of `options` (which must
/// outlive this object). Construct it once, before
/// llvm::cl::ParseCommandLineOptions; then call finish(), which checks what
/// the parser cannot (the cache mode and size).
class CompileCommandLine {
public:
  CompileCommandLine(CompileOptions &options, llvm::cl::OptionCategory &cat);
  ~CompileCommandLine();
  llvm::Error finish();
  bool quiet() const;

private:
  struct Flags;
  std::unique_ptr<Flags> flags;
  CompileOptions &options;
};

} // namespace magi

#endif // MAGI_COMPILE_COMPILEMODEL_H
