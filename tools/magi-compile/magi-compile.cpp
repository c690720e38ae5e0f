//===- magi-compile.cpp - a captured graph to a runnable GPU artifact -----===//
//
// Imports a torch.export archive (or reads a .mlir graph), runs the pipeline
// through the lower phase, compiles every piece to PTX (and cubin) with its
// launch plan, and writes the artifact magi-run loads
// (docs/artifact-format.md). Prints one summary line per piece.
//
//===----------------------------------------------------------------------===//

#include "magi/Cache/CacheStore.h"
#include "magi/Compile/Artifact.h"
#include "magi/Compile/ArtifactCache.h"
#include "magi/Import/TorchExport.h"
#include "magi/InitAllDialects.h"
#include "magi/Pipeline/Pipeline.h"
#include "magi/Support/Version.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include <chrono>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("magi-compile options");
static cl::opt<std::string> inputPath(cl::Positional, cl::Required,
                                      cl::desc("<model.pt2 | graph.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string> outputDir("o", cl::Required,
                                      cl::desc("Artifact directory to write"),
                                      cl::value_desc("DIR"), cl::cat(category));
static cl::opt<std::string>
    weightsPath("weights",
                cl::desc("torch.export archive holding the weights (for a "
                         ".mlir graph; an archive input is its own)"),
                cl::value_desc("model.pt2"), cl::cat(category));
static cl::opt<bool> packWeights(
    "pack-weights",
    cl::desc("Copy the weights into the artifact's weights.bin (self-contained; "
             "streamed and CRC-checked) instead of referencing the archive"),
    cl::cat(category));
static cl::opt<bool> noWeights(
    "no-weights",
    cl::desc("Compile without weights (the artifact cannot run; for a graph "
             "whose parameters have no archive)"),
    cl::cat(category));
static cl::list<int64_t> compileSizes(
    "compile-sizes", cl::CommaSeparated,
    cl::desc("Also compile variants specialized for these values of the "
             "graph's symbol (e.g. 1,16,512); the variant for any size is "
             "always there"),
    cl::cat(category));
static cl::opt<std::string> chip("target", cl::init("sm_90"),
                                 cl::desc("GPU architecture (default sm_90)"),
                                 cl::cat(category));
static cl::opt<std::string>
    features("features", cl::init("+ptx80"),
             cl::desc("PTX features (default +ptx80; sm_90 needs ptx80 or later)"),
             cl::cat(category));
static cl::opt<std::string> cudaPath(
    "cuda-path",
    cl::desc("CUDA toolkit for libdevice and ptxas (default: $CUDA_PATH, "
             "else the toolkit found when Magi was built)"),
    cl::cat(category));
static cl::opt<bool> noCubin("no-cubin",
                             cl::desc("Write PTX only, do not run ptxas"),
                             cl::cat(category));
static cl::list<std::string>
    splittingOps("splitting-ops", cl::CommaSeparated,
                 cl::desc("Ops to split at (default: the attention ops)"),
                 cl::cat(category));
static cl::opt<bool> noMergeProjections(
    "no-merge-projections",
    cl::desc("Keep the projections of one input (Q/K/V, gate/up) separate "
             "products instead of one over their concatenated weights"),
    cl::cat(category));
static cl::opt<int64_t> blockSize("block-size", cl::init(256),
                                  cl::desc("Threads per block, elementwise kernels"),
                                  cl::cat(category));
static cl::opt<int64_t>
    reductionBlockSize("reduction-block-size", cl::init(128),
                       cl::desc("Threads per block, kernels with an inner loop"),
                       cl::cat(category));
static cl::opt<bool> noLibraryGemm(
    "no-library-gemm",
    cl::desc("Compile matrix products into kernels instead of cuBLASLt calls"),
    cl::cat(category));
static cl::opt<bool> noTiledAttention(
    "no-tiled-attention",
    cl::desc("Lower attention to separate score, softmax and product kernels "
             "instead of one tiled tensor-core kernel"),
    cl::cat(category));
static cl::opt<std::string>
    dumpDir("dump-dir", cl::desc("Write the IR after every phase here"),
            cl::cat(category));
static cl::opt<bool> quiet("quiet", cl::desc("Print no summary"),
                           cl::cat(category));
static cl::opt<std::string> cacheDir(
    "cache-dir",
    cl::desc("Compile cache root (default: $MAGI_CACHE_DIR, else "
             "~/.cache/magi)"),
    cl::cat(category));
static cl::opt<std::string>
    cacheModeText("cache-mode", cl::init("readwrite"),
                  cl::desc("readwrite, readonly, must-hit or off"),
                  cl::cat(category));
static cl::opt<std::string> cacheSalt("cache-salt",
                                      cl::desc("Extra key factor (forces "
                                               "recompilation when changed)"),
                                      cl::cat(category));
static cl::opt<std::string>
    cacheMaxSize("cache-max-size",
                 cl::desc("After compiling, evict least recently used entries "
                          "until the cache holds at most this (e.g. 2G)"),
                 cl::cat(category));
static cl::opt<bool> explainCache(
    "explain-cache",
    cl::desc("Print each piece's key factors, and for a miss the factor "
             "that differs from the closest stored entry"),
    cl::cat(category));
// `--stats` (the cache counters) is read before LLVM's parser, which owns
// an option of that name (LLVM's statistics, compiled out of release builds).
static bool stats = false;

static constexpr const char *kTool = "magi-compile";

static int fail(const llvm::Twine &message) {
  llvm::errs() << kTool << ": error: " << message << "\n";
  return 1;
}

static std::string defaultCudaPath() {
  if (!cudaPath.empty())
    return cudaPath;
  if (std::optional<std::string> env = llvm::sys::Process::GetEnv("CUDA_PATH"))
    return *env;
#ifdef MAGI_DEFAULT_CUDA_PATH
  if (llvm::sys::fs::is_directory(MAGI_DEFAULT_CUDA_PATH))
    return MAGI_DEFAULT_CUDA_PATH;
#endif
  return "";
}

// Every option that changes the artifact's bytes, for the artifact's key.
static std::string optionsText() {
  std::string text = "splitting-ops=";
  for (const std::string &op : splittingOps)
    text += op + ",";
  text += ";merge-projections=" + std::to_string(!noMergeProjections);
  text += ";compile-sizes=";
  for (int64_t size : compileSizes)
    text += std::to_string(size) + ",";
  // The manifest names the archive relative to the output directory.
  std::string archive = !weightsPath.empty() ? std::string(weightsPath)
                        : magi::isZipArchive(inputPath) ? std::string(inputPath)
                                                        : std::string();
  if (!archive.empty() && !noWeights && !packWeights)
    text += ";weights-at=" + magi::relativePath(archive, outputDir);
  text += ";pack-weights=" + std::to_string(packWeights);
  text += ";no-weights=" + std::to_string(noWeights) +
          ";no-cubin=" + std::to_string(noCubin) +
          ";block-size=" + std::to_string(blockSize) +
          ";reduction-block-size=" + std::to_string(reductionBlockSize) +
          ";no-library-gemm=" + std::to_string(noLibraryGemm) +
          ";no-tiled-attention=" + std::to_string(noTiledAttention);
  return text;
}

// The summary of an artifact restored from the cache, from its manifest.
// The summary of a cached artifact, from its manifest as the runtime reads
// it; false (with the reason in `error`) when it does not read back.
static bool readReports(std::vector<magi::PieceReport> &reports,
                        std::string &error) {
  std::string path = outputDir + "/manifest.json";
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = buffer.getError().message();
    return false;
  }
  magi::runtime::Manifest manifest;
  if (!magi::runtime::tryParseManifest((*buffer)->getBuffer().str(), path,
                                       manifest, error))
    return false;
  for (const magi::runtime::Piece &piece : manifest.pieces) {
    magi::PieceReport report;
    report.name = piece.name;
    report.kind = piece.isSplitting ? "splitting" : "compute";
    report.graphIndex = piece.graphIndex;
    report.variants = piece.variants.size();
    // As a compile reports it: by the variant for any size (the last).
    if (!piece.variants.empty()) {
      report.kernels = piece.variants.back().kernels.size();
      report.libraryCalls =
          magi::countLibraryCalls(piece.variants.back().plan);
    }
    report.source = "hit";
    reports.push_back(report);
  }
  return true;
}

// Pruning, --stats and the summary: the end of every successful compile.
static int finish(magi::cache::CacheStore *cache,
                  const std::vector<magi::PieceReport> &reports,
                  std::chrono::steady_clock::time_point start,
                  std::optional<uint64_t> maxBytes) {
  if (cache && maxBytes && cache->writable()) {
    llvm::Expected<magi::cache::PruneReport> pruned = cache->prune(*maxBytes);
    if (!pruned)
      llvm::errs() << kTool << ": warning: cache prune failed: "
                   << llvm::toString(pruned.takeError()) << "\n";
  }
  if (stats) {
    size_t compiled = 0, hits = 0, reused = 0;
    for (const magi::PieceReport &r : reports) {
      compiled += r.source == "compiled";
      hits += r.source == "hit";
      reused += r.source == "reused";
    }
    llvm::outs() << "pieces: " << reports.size() << " (" << compiled
                 << " compiled, " << hits << " from the cache, " << reused
                 << " identical to an earlier piece)\n";
    if (cache)
      cache->counters().print(llvm::outs());
    else
      llvm::outs() << "cache: off\n";
  }
  if (quiet)
    return 0;
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  size_t kernels = 0;
  for (const magi::PieceReport &r : reports) {
    llvm::outs() << llvm::format(
        "piece %-3zu %-28s %-9s graph %-2lld %3zu kernels %2zu gemms "
        "%2zu variants %7.1f ms  %s\n",
        &r - reports.data(), r.name.c_str(), r.kind.c_str(),
        (long long)r.graphIndex, r.kernels, r.libraryCalls, r.variants,
        r.seconds * 1e3, r.source.c_str());
    kernels += r.kernels;
  }
  llvm::outs() << llvm::format("%s: %zu pieces, %zu kernels, %s -> %s in %.2f s\n",
                               kTool, reports.size(), kernels, chip.c_str(),
                               outputDir.c_str(), seconds);
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  std::vector<char *> args;
  for (int i = 0; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (i > 0 && (arg == "--stats" || arg == "-stats"))
      stats = true;
    else
      args.push_back(argv[i]);
  }
  argc = static_cast<int>(args.size());
  argv = args.data();
  cl::HideUnrelatedOptions(category);
  cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { magi::printVersion(os); });
  cl::ParseCommandLineOptions(
      argc, argv,
      "magi-compile: compile a captured graph for an NVIDIA GPU\n\n"
      "  --stats  print the cache counters (hits, misses, stored, bytes) at "
      "the end\n");
  auto start = std::chrono::steady_clock::now();

  // The cache, before any work: a bad mode or root fails early.
  std::optional<magi::cache::CacheMode> cacheMode =
      magi::cache::parseCacheMode(cacheModeText);
  if (!cacheMode)
    return fail("unknown --cache-mode '" + cacheModeText +
                "' (readwrite, readonly, must-hit, off)");
  std::optional<uint64_t> maxBytes;
  if (!cacheMaxSize.empty() &&
      !(maxBytes = magi::cache::parseByteSize(cacheMaxSize)))
    return fail("malformed --cache-max-size '" + cacheMaxSize + "'");
  std::unique_ptr<magi::cache::CacheStore> cache;
  if (*cacheMode != magi::cache::CacheMode::Off) {
    auto opened = magi::cache::CacheStore::open(
        magi::cache::resolveCacheRoot(cacheDir), *cacheMode,
        [](const std::string &message) {
          llvm::errs() << kTool << ": warning: cache: " << message << "\n";
        });
    if (!opened)
      return fail("cache: " + llvm::toString(opened.takeError()));
    cache = std::move(*opened);
  }

  // The whole artifact first: a hit skips import, pipeline and pieces.
  std::string resolvedCudaPath = defaultCudaPath();
  std::optional<magi::cache::CacheKeyFactors> artifactFactors;
  if (cache) {
    magi::ArtifactKeyInputs keyInputs;
    keyInputs.inputFiles.push_back(inputPath);
    if (!weightsPath.empty())
      keyInputs.inputFiles.push_back(weightsPath);
    keyInputs.options = optionsText();
    keyInputs.chip = chip;
    keyInputs.features = features;
    keyInputs.cudaPath = resolvedCudaPath;
    keyInputs.salt = cacheSalt;
    llvm::Expected<magi::cache::CacheKeyFactors> factors =
        magi::artifactKeyFactors(keyInputs);
    if (!factors)
      return fail(llvm::toString(factors.takeError()));
    artifactFactors = std::move(*factors);
    if (explainCache)
      llvm::outs() << "artifact: key "
                   << artifactFactors->computeKey().shortHex() << "\n"
                   << artifactFactors->describe();
    llvm::Expected<bool> restored =
        magi::restoreArtifact(*cache, *artifactFactors, outputDir);
    if (!restored)
      return fail(llvm::toString(restored.takeError()));
    if (*restored) {
      std::vector<magi::PieceReport> reports;
      std::string error;
      if (!readReports(reports, error))
        return fail("the cached artifact's manifest cannot be read back: " +
                    error);
      return finish(cache.get(), reports, start, maxBytes);
    }
    if (explainCache)
      llvm::outs() << "  miss: " << cache->explainMiss(*artifactFactors)
                   << "\n";
  }

  // MLIR only now: loading its dialects costs more than a warm compile.
  DialectRegistry registry;
  magi::registerAllDialects(registry);
  magi::registerGpuCompilation(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  // Every diagnostic is printed, warnings too (a piece that could not be
  // cached, say): without a handler MLIR prints errors only.
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  OwningOpRef<ModuleOp> module;
  std::string archivePath = weightsPath;
  if (magi::isZipArchive(inputPath)) {
    module = magi::importTorchExport(inputPath, &context);
    if (archivePath.empty())
      archivePath = inputPath;
  } else {
    module = parseSourceFile<ModuleOp>(inputPath, sourceMgr,
                                       ParserConfig(&context));
  }
  if (!module)
    return 1;

  // The pipeline through post-grad; each piece is lowered when it misses
  // the cache.
  magi::PipelineOptions pipeline;
  pipeline.compileTo = "post-grad";
  for (const std::string &op : splittingOps)
    pipeline.splittingOps.push_back(op);
  pipeline.dumpDir = dumpDir;
  pipeline.mergeProjections = !noMergeProjections;
  PassManager pm(&context);
  if (failed(magi::buildPipeline(pm, pipeline, [](const llvm::Twine &msg) {
        fail(msg);
        return failure();
      })))
    return 1;
  if (failed(pm.run(*module)))
    return 1;

  magi::ArtifactOptions options;
  options.sourcePath = inputPath;
  options.target.chip = chip;
  options.target.features = features;
  options.target.cudaPath = resolvedCudaPath;
  options.target.blockSize = blockSize;
  options.target.reductionBlockSize = reductionBlockSize;
  options.target.libraryGemm = !noLibraryGemm;
  options.target.tiledAttention = !noTiledAttention;
  options.emitCubin = !noCubin;
  options.noWeights = noWeights;
  options.packWeights = packWeights;
  options.weightsArchive = archivePath;
  options.compileSizes.assign(compileSizes.begin(), compileSizes.end());
  options.cache = cache.get();
  options.cacheSalt = cacheSalt;
  if (explainCache)
    options.explainCache = &llvm::outs();
  // Progress on a terminal, once a compile has taken a second; nothing when
  // stderr is a file or a pipe.
  bool showProgress = llvm::sys::Process::StandardErrIsDisplayed() && !quiet;
  bool progressShown = false;
  if (showProgress)
    options.progress = [&](size_t done, size_t total) {
      double elapsed = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      if (elapsed < 1.0 && !progressShown)
        return;
      progressShown = true;
      llvm::errs() << "\r" << kTool << ": compiled " << done << " of "
                   << total << " piece variants";
      if (done == total)
        llvm::errs() << "\n";
      llvm::errs().flush();
    };
  std::vector<magi::PieceReport> reports;
  if (failed(magi::writeArtifact(*module, outputDir, options, reports)))
    return 1;
  if (cache && cache->writable() && !packWeights)
    if (llvm::Error e = magi::storeArtifact(*cache, *artifactFactors, outputDir))
      llvm::errs() << kTool << ": warning: the artifact was not cached: "
                   << llvm::toString(std::move(e)) << "\n";
  return finish(cache.get(), reports, start, maxBytes);
}
