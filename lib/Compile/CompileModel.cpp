//===- CompileModel.cpp - a captured graph to an artifact, as a call ------===//

#include "magi/Compile/CompileModel.h"
#include "magi/Compile/ArtifactCache.h"
#include "magi/Target/LaunchPlan.h"
#include "magi/Import/TorchExport.h"
#include "magi/InitAllDialects.h"
#include "magi/Pipeline/Pipeline.h"
#include "magi/Runtime/Manifest.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include <chrono>

using namespace mlir;
using namespace magi;
namespace cl = llvm::cl;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string CompileOptions::resolvedCudaPath() const {
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

std::string CompileOptions::keyText() const {
  // The text (and its order) is part of every stored artifact's key:
  // changing it makes every entry miss once.
  std::string text = "splitting-ops=";
  for (const std::string &op : splittingOps)
    text += op + ",";
  text += ";merge-projections=" + std::to_string(mergeProjections);
  // Only when set, so that the keys of every other compilation stay.
  if (!disabledFusions.empty()) {
    text += ";disable-fusions=";
    for (const std::string &name : disabledFusions)
      text += name + ",";
  }
  text += ";compile-sizes=";
  for (int64_t size : compileSizes)
    text += std::to_string(size) + ",";
  // The manifest names the archive relative to the output directory.
  std::string archive = !weightsPath.empty()      ? weightsPath
                        : isZipArchive(inputPath) ? inputPath
                                                  : std::string();
  if (!archive.empty() && !noWeights && !packWeights)
    text += ";weights-at=" + relativePath(archive, outputDir);
  text += ";pack-weights=" + std::to_string(packWeights);
  text += ";no-weights=" + std::to_string(noWeights) +
          ";no-cubin=" + std::to_string(!emitCubin) +
          ";block-size=" + std::to_string(blockSize) +
          ";reduction-block-size=" + std::to_string(reductionBlockSize) +
          ";no-library-gemm=" + std::to_string(!libraryGemm) +
          ";no-tiled-attention=" + std::to_string(!tiledAttention) +
          ";attention-rows-per-warp=" + std::to_string(attentionRowsPerWarp) +
          ";attention-key-rows=" + std::to_string(attentionKeyRows) +
          ";attention-query-in-shared=" + std::to_string(attentionQueryInShared) +
          ";attention-min-blocks-per-sm=" + std::to_string(attentionMinBlocksPerSM) +
          ";attention-key-splits=" + std::to_string(attentionKeySplits) +
          ";few-row-gemm-rows=" + std::to_string(fewRowGemmRows) +
          ";few-row-gemm-column-tiles=" + std::to_string(fewRowGemmColumnTiles) +
          ";few-row-gemm-warps=" + std::to_string(fewRowGemmWarps) +
          ";few-row-gemm-stages=" + std::to_string(fewRowGemmStages);
  // Only when set, so that the keys of every other compilation stay.
  if (!kernelPassOptions.empty())
    text += ";kernel-pass-options=" + kernelPassOptions;
  return text;
}

//===----------------------------------------------------------------------===//
// Options by name
//===----------------------------------------------------------------------===//

namespace {
/// One settable option: its flag name and how its text sets the field.
struct NamedOption {
  const char *name;
  llvm::Error (*set)(CompileOptions &, llvm::StringRef);
};
} // namespace

static llvm::Expected<bool> parseFlag(llvm::StringRef name,
                                      llvm::StringRef value) {
  if (value.empty() || value == "true" || value == "1")
    return true;
  if (value == "false" || value == "0")
    return false;
  return makeError("option '" + name + "' takes true or false, got '" +
                   value + "'");
}

static llvm::Expected<int64_t> parseInt(llvm::StringRef name,
                                        llvm::StringRef value) {
  int64_t result;
  if (value.trim().getAsInteger(10, result))
    return makeError("option '" + name + "' takes an integer, got '" +
                     value + "'");
  return result;
}

#define MAGI_STRING_OPTION(flag, field)                                        \
  {flag, [](CompileOptions &o, llvm::StringRef v) -> llvm::Error {            \
     o.field = v.str();                                                        \
     return llvm::Error::success();                                            \
   }}
#define MAGI_FLAG_OPTION(flag, field, negated)                                 \
  {flag, [](CompileOptions &o, llvm::StringRef v) -> llvm::Error {            \
     llvm::Expected<bool> b = parseFlag(flag, v);                              \
     if (!b)                                                                   \
       return b.takeError();                                                   \
     o.field = negated ? !*b : *b;                                             \
     return llvm::Error::success();                                            \
   }}
// A comma-separated list of names.
#define MAGI_LIST_OPTION(flag, field)                                          \
  {flag, [](CompileOptions &o, llvm::StringRef v) -> llvm::Error {            \
     llvm::SmallVector<llvm::StringRef> parts;                                 \
     v.split(parts, ',', -1, /*KeepEmpty=*/false);                             \
     o.field.assign(parts.begin(), parts.end());                               \
     return llvm::Error::success();                                            \
   }}
#define MAGI_INT_OPTION(flag, field)                                           \
  {flag, [](CompileOptions &o, llvm::StringRef v) -> llvm::Error {            \
     llvm::Expected<int64_t> i = parseInt(flag, v);                            \
     if (!i)                                                                   \
       return i.takeError();                                                   \
     o.field = *i;                                                             \
     return llvm::Error::success();                                            \
   }}

static const NamedOption kOptions[] = {
    MAGI_STRING_OPTION("input", inputPath),
    MAGI_STRING_OPTION("o", outputDir),
    MAGI_STRING_OPTION("weights", weightsPath),
    MAGI_FLAG_OPTION("pack-weights", packWeights, false),
    MAGI_FLAG_OPTION("no-weights", noWeights, false),
    {"compile-sizes",
     [](CompileOptions &o, llvm::StringRef v) -> llvm::Error {
       std::vector<int64_t> sizes;
       llvm::SmallVector<llvm::StringRef> parts;
       v.split(parts, ',', -1, /*KeepEmpty=*/false);
       for (llvm::StringRef part : parts) {
         llvm::Expected<int64_t> size = parseInt("compile-sizes", part);
         if (!size)
           return size.takeError();
         sizes.push_back(*size);
       }
       o.compileSizes = std::move(sizes);
       return llvm::Error::success();
     }},
    MAGI_STRING_OPTION("target", chip),
    MAGI_STRING_OPTION("features", features),
    MAGI_STRING_OPTION("cuda-path", cudaPath),
    MAGI_FLAG_OPTION("no-cubin", emitCubin, true),
    MAGI_LIST_OPTION("splitting-ops", splittingOps),
    MAGI_FLAG_OPTION("no-merge-projections", mergeProjections, true),
    MAGI_LIST_OPTION("disable-fusions", disabledFusions),
    MAGI_INT_OPTION("block-size", blockSize),
    MAGI_INT_OPTION("reduction-block-size", reductionBlockSize),
    MAGI_FLAG_OPTION("no-library-gemm", libraryGemm, true),
    MAGI_FLAG_OPTION("no-tiled-attention", tiledAttention, true),
    MAGI_INT_OPTION("attention-rows-per-warp", attentionRowsPerWarp),
    MAGI_INT_OPTION("attention-key-rows", attentionKeyRows),
    MAGI_FLAG_OPTION("attention-query-in-shared", attentionQueryInShared, false),
    MAGI_INT_OPTION("attention-min-blocks-per-sm", attentionMinBlocksPerSM),
    MAGI_INT_OPTION("attention-key-splits", attentionKeySplits),
    MAGI_INT_OPTION("few-row-gemm-rows", fewRowGemmRows),
    MAGI_INT_OPTION("few-row-gemm-column-tiles", fewRowGemmColumnTiles),
    MAGI_INT_OPTION("few-row-gemm-warps", fewRowGemmWarps),
    MAGI_INT_OPTION("few-row-gemm-stages", fewRowGemmStages),
    MAGI_STRING_OPTION("kernel-pass-options", kernelPassOptions),
    MAGI_STRING_OPTION("op-library", opLibrary),
    MAGI_STRING_OPTION("dump-dir", dumpDir),
    MAGI_STRING_OPTION("cache-dir", cacheDir),
    {"cache-mode",
     [](CompileOptions &o, llvm::StringRef v) -> llvm::Error {
       std::optional<cache::CacheMode> mode = cache::parseCacheMode(v);
       if (!mode)
         return makeError("unknown --cache-mode '" + v +
                          "' (readwrite, readonly, must-hit, off)");
       o.cacheMode = *mode;
       return llvm::Error::success();
     }},
    MAGI_STRING_OPTION("cache-salt", cacheSalt),
    {"cache-max-size",
     [](CompileOptions &o, llvm::StringRef v) -> llvm::Error {
       if (v.empty()) {
         o.cacheMaxBytes.reset();
         return llvm::Error::success();
       }
       std::optional<uint64_t> bytes = cache::parseByteSize(v);
       if (!bytes)
         return makeError("malformed --cache-max-size '" + v + "'");
       o.cacheMaxBytes = *bytes;
       return llvm::Error::success();
     }},
};

#undef MAGI_STRING_OPTION
#undef MAGI_FLAG_OPTION
#undef MAGI_INT_OPTION

llvm::Error magi::setCompileOption(CompileOptions &options,
                                   llvm::StringRef name,
                                   llvm::StringRef value) {
  for (const NamedOption &option : kOptions)
    if (name == option.name)
      return option.set(options, value);
  return makeError("unknown compile option '" + name + "'");
}

std::vector<std::string> magi::compileOptionNames() {
  std::vector<std::string> names;
  for (const NamedOption &option : kOptions)
    names.push_back(option.name);
  return names;
}

//===----------------------------------------------------------------------===//
// The command line
//===----------------------------------------------------------------------===//

// Each flag is parsed as text and set through setCompileOption in finish():
// one parser for the command line and for the C API.
struct CompileCommandLine::Flags {
  explicit Flags(cl::OptionCategory &cat)
      : input(cl::Positional, cl::Required,
              cl::desc("<model.pt2 | graph.mlir>"), cl::cat(cat)),
        output("o", cl::Required, cl::desc("Artifact directory to write"),
               cl::value_desc("DIR"), cl::cat(cat)),
        weights("weights",
                cl::desc("torch.export archive holding the weights (for a "
                         ".mlir graph; an archive input is its own)"),
                cl::value_desc("model.pt2"), cl::cat(cat)),
        packWeights("pack-weights",
                    cl::desc("Copy the weights into the artifact's "
                             "weights.bin (self-contained; streamed and "
                             "CRC-checked) instead of referencing the "
                             "archive"),
                    cl::cat(cat)),
        noWeights("no-weights",
                  cl::desc("Compile without weights (the artifact cannot "
                           "run; for a graph whose parameters have no "
                           "archive)"),
                  cl::cat(cat)),
        compileSizes("compile-sizes", cl::CommaSeparated,
                     cl::desc("Also compile variants specialized for these "
                              "values of the graph's symbol (e.g. "
                              "1,16,512); the variant for any size is "
                              "always there"),
                     cl::cat(cat)),
        chip("target", cl::init("sm_90a"),
             cl::desc("GPU architecture (default sm_90a: Hopper with its "
                      "arch-specific instructions, which tiled attention's "
                      "warpgroup products need; sm_90 keeps to mma.sync)"),
             cl::cat(cat)),
        features("features", cl::init("+ptx80"),
                 cl::desc("PTX features (default +ptx80; sm_90 needs ptx80 "
                          "or later)"),
                 cl::cat(cat)),
        cudaPath("cuda-path",
                 cl::desc("CUDA toolkit for libdevice and ptxas (default: "
                          "$CUDA_PATH, else the toolkit found when Magi was "
                          "built)"),
                 cl::cat(cat)),
        noCubin("no-cubin", cl::desc("Write PTX only, do not run ptxas"),
                cl::cat(cat)),
        splittingOps("splitting-ops", cl::CommaSeparated,
                     cl::desc("Ops to split at (default: the attention ops)"),
                     cl::cat(cat)),
        noMergeProjections(
            "no-merge-projections",
            cl::desc("Keep the projections of one input (Q/K/V, gate/up) "
                     "separate products instead of one over their "
                     "concatenated weights"),
            cl::cat(cat)),
        disableFusions("disable-fusions", cl::CommaSeparated,
                       cl::desc("magi-fuse's fusions not to run, by name "
                                "(docs/pipeline.md), for experiments"),
                       cl::cat(cat)),
        blockSize("block-size", cl::init(256),
                  cl::desc("Threads per block, elementwise kernels"),
                  cl::cat(cat)),
        reductionBlockSize(
            "reduction-block-size", cl::init(128),
            cl::desc("Threads per block, kernels with an inner loop"),
            cl::cat(cat)),
        noLibraryGemm("no-library-gemm",
                      cl::desc("Compile matrix products into kernels "
                               "instead of cuBLASLt calls"),
                      cl::cat(cat)),
        noTiledAttention(
            "no-tiled-attention",
            cl::desc("Lower attention to separate score, softmax and "
                     "product kernels instead of one tiled tensor-core "
                     "kernel"),
            cl::cat(cat)),
        attentionRowsPerWarp(
            "attention-rows-per-warp", cl::init(0),
            cl::desc("Tiled attention: query rows a warp, 16 or 32 (a "
                     "block is 4 warps), with the --attention-* tiling "
                     "options; 0: the tiling chosen per attention"),
            cl::cat(cat)),
        attentionKeyRows("attention-key-rows", cl::init(64),
                         cl::desc("Tiled attention: key rows a tile, 32 or 64"),
                         cl::cat(cat)),
        attentionQueryInShared(
            "attention-query-in-shared",
            cl::desc("Tiled attention: keep the query tile in shared memory "
                     "and load its fragments for every key tile"),
            cl::cat(cat)),
        attentionMinBlocksPerSM(
            "attention-min-blocks-per-sm", cl::init(0),
            cl::desc("Tiled attention: blocks an SM must hold at once, so "
                     "ptxas keeps registers within that share (0: ptxas "
                     "chooses)"),
            cl::cat(cat)),
        attentionKeySplits(
            "attention-key-splits", cl::init(0),
            cl::desc("Tiled attention: splits over keys for few query rows "
                     "(a decode step), where the sizes are static and the "
                     "queries fit one block (0: about four blocks an SM, 1: "
                     "never split)"),
            cl::cat(cat)),
        fewRowGemmRows(
            "few-row-gemm-rows", cl::init(16),
            cl::desc("Matrix products of at most this many static rows (a "
                     "compile size's few tokens) as Magi's weight-streaming "
                     "tensor-core kernel instead of cuBLASLt (0: never)"),
            cl::cat(cat)),
        fewRowGemmColumnTiles(
            "few-row-gemm-column-tiles", cl::init(0),
            cl::desc("Few-row products: tiles of 8 columns a block (0: chosen)"),
            cl::cat(cat)),
        fewRowGemmWarps("few-row-gemm-warps", cl::init(0),
                        cl::desc("Few-row products: warps a block, splitting "
                                 "the depth (0: chosen)"),
                        cl::cat(cat)),
        fewRowGemmStages(
            "few-row-gemm-stages", cl::init(0),
            cl::desc("Few-row products: stages of 64 of the depth in each "
                     "warp's ring, all but one in flight (0: chosen)"),
            cl::cat(cat)),
        kernelPassOptions(
            "kernel-pass-options",
            cl::desc("Further options of the kernel passes, in pass-pipeline "
                     "syntax: 'magi-choose-kernel-config{max-elements-per-thread=1} "
                     "magi-map-to-gpu{...}' (magi-few-row-matmul-to-gpu, "
                     "magi-choose-kernel-config, magi-map-to-gpu, "
                     "magi-tiled-attention-to-gpu; for experiments)"),
            cl::cat(cat)),
        opLibrary("op-library",
                  cl::desc("An MLIR file of op definitions (func.func named after "
                           "the op) for ops Magi does not know"),
                  cl::cat(cat)),
        dumpDir("dump-dir", cl::desc("Write the IR after every phase here"),
                cl::cat(cat)),
        quiet("quiet", cl::desc("Print no summary"), cl::cat(cat)),
        cacheDir("cache-dir",
                 cl::desc("Compile cache root (default: $MAGI_CACHE_DIR, "
                          "else ~/.cache/magi)"),
                 cl::cat(cat)),
        cacheMode("cache-mode", cl::init("readwrite"),
                  cl::desc("readwrite, readonly, must-hit or off"),
                  cl::cat(cat)),
        cacheSalt("cache-salt",
                  cl::desc("Extra key factor (forces recompilation when "
                           "changed)"),
                  cl::cat(cat)),
        cacheMaxSize("cache-max-size",
                     cl::desc("After compiling, evict least recently used "
                              "entries until the cache holds at most this "
                              "(e.g. 2G)"),
                     cl::cat(cat)),
        explainCache("explain-cache",
                     cl::desc("Print each piece's key factors, and for a "
                              "miss the factor that differs from the "
                              "closest stored entry"),
                     cl::cat(cat)) {}

  cl::opt<std::string> input, output, weights;
  cl::opt<bool> packWeights, noWeights;
  cl::list<int64_t> compileSizes;
  cl::opt<std::string> chip, features, cudaPath;
  cl::opt<bool> noCubin;
  cl::list<std::string> splittingOps;
  cl::opt<bool> noMergeProjections;
  cl::list<std::string> disableFusions;
  cl::opt<int64_t> blockSize, reductionBlockSize;
  cl::opt<bool> noLibraryGemm, noTiledAttention;
  cl::opt<int64_t> attentionRowsPerWarp, attentionKeyRows;
  cl::opt<bool> attentionQueryInShared;
  cl::opt<int64_t> attentionMinBlocksPerSM, attentionKeySplits;
  cl::opt<int64_t> fewRowGemmRows, fewRowGemmColumnTiles, fewRowGemmWarps,
      fewRowGemmStages;
  cl::opt<std::string> kernelPassOptions, opLibrary, dumpDir;
  cl::opt<bool> quiet;
  cl::opt<std::string> cacheDir, cacheMode, cacheSalt, cacheMaxSize;
  cl::opt<bool> explainCache;
};

CompileCommandLine::CompileCommandLine(CompileOptions &options,
                                       cl::OptionCategory &cat)
    : flags(std::make_unique<Flags>(cat)), options(options) {}

CompileCommandLine::~CompileCommandLine() = default;

bool CompileCommandLine::quiet() const { return flags->quiet; }

llvm::Error CompileCommandLine::finish() {
  Flags &f = *flags;
  options.inputPath = f.input;
  options.outputDir = f.output;
  options.weightsPath = f.weights;
  options.packWeights = f.packWeights;
  options.noWeights = f.noWeights;
  options.compileSizes.assign(f.compileSizes.begin(), f.compileSizes.end());
  options.chip = f.chip;
  options.features = f.features;
  options.cudaPath = f.cudaPath;
  options.emitCubin = !f.noCubin;
  options.splittingOps.assign(f.splittingOps.begin(), f.splittingOps.end());
  options.mergeProjections = !f.noMergeProjections;
  options.disabledFusions.assign(f.disableFusions.begin(),
                                 f.disableFusions.end());
  options.blockSize = f.blockSize;
  options.reductionBlockSize = f.reductionBlockSize;
  options.libraryGemm = !f.noLibraryGemm;
  options.tiledAttention = !f.noTiledAttention;
  options.attentionRowsPerWarp = f.attentionRowsPerWarp;
  options.attentionKeyRows = f.attentionKeyRows;
  options.attentionQueryInShared = f.attentionQueryInShared;
  options.attentionMinBlocksPerSM = f.attentionMinBlocksPerSM;
  options.attentionKeySplits = f.attentionKeySplits;
  options.fewRowGemmRows = f.fewRowGemmRows;
  options.fewRowGemmColumnTiles = f.fewRowGemmColumnTiles;
  options.fewRowGemmWarps = f.fewRowGemmWarps;
  options.fewRowGemmStages = f.fewRowGemmStages;
  options.kernelPassOptions = f.kernelPassOptions;
  options.opLibrary = f.opLibrary;
  options.dumpDir = f.dumpDir;
  options.cacheDir = f.cacheDir;
  options.cacheSalt = f.cacheSalt;
  if (f.explainCache)
    options.explainCache = &llvm::outs();
  if (llvm::Error e = setCompileOption(options, "cache-mode", f.cacheMode))
    return e;
  return setCompileOption(options, "cache-max-size", f.cacheMaxSize);
}

//===----------------------------------------------------------------------===//
// The compile
//===----------------------------------------------------------------------===//

// The reports of an artifact restored from the cache, from its manifest as
// the runtime reads it.
static llvm::Error readReports(llvm::StringRef outputDir,
                               std::vector<PieceReport> &reports,
                               std::vector<MutationReport> &mutations) {
  std::string path = (outputDir + "/manifest.json").str();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return makeError("the cached artifact's manifest cannot be read back: " +
                     buffer.getError().message());
  runtime::Manifest manifest;
  std::string error;
  if (!runtime::tryParseManifest((*buffer)->getBuffer().str(), path, manifest,
                                 error))
    return makeError("the cached artifact's manifest cannot be read back: " +
                     error);
  for (const runtime::Piece &piece : manifest.pieces) {
    PieceReport report;
    report.name = piece.name;
    report.kind = piece.isSplitting ? "splitting" : "compute";
    report.graphIndex = piece.graphIndex;
    report.variants = piece.variants.size();
    // As a compile reports it: by the variant for any size (the last).
    if (!piece.variants.empty()) {
      report.kernels = piece.variants.back().kernels.size();
      report.libraryCalls = countLibraryCalls(piece.variants.back().plan);
    }
    report.source = "hit";
    reports.push_back(report);
  }
  mutations = describeMutations(manifest);
  return llvm::Error::success();
}

// Pruning and the counters: the end of every successful compile.
static void finishCompile(cache::CacheStore *cache,
                          const CompileOptions &options,
                          llvm::raw_ostream &diagnostics,
                          CompileResult &result,
                          std::chrono::steady_clock::time_point start) {
  if (cache && options.cacheMaxBytes && cache->writable()) {
    llvm::Expected<cache::PruneReport> pruned =
        cache->prune(*options.cacheMaxBytes);
    if (!pruned)
      diagnostics << options.programName << ": warning: cache prune failed: "
                  << llvm::toString(pruned.takeError()) << "\n";
  }
  if (cache)
    result.cacheCounters = cache->counters();
  result.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
}

llvm::Expected<CompileResult>
magi::compileModel(const CompileOptions &options) {
  auto start = std::chrono::steady_clock::now();
  llvm::raw_ostream &diagnostics =
      options.diagnostics ? *options.diagnostics : llvm::errs();
  if (options.inputPath.empty())
    return makeError("no input graph given");
  if (options.outputDir.empty())
    return makeError("no output directory given");
  {
    GpuTargetOptions kernels; // what decides which kernel passes run
    kernels.fewRowGemmRows = options.fewRowGemmRows;
    kernels.tiledAttention = options.tiledAttention;
    kernels.kernelPassOptions = options.kernelPassOptions;
    if (llvm::Error error = checkKernelPassOptions(kernels))
      return error;
  }
  CompileResult result;

  // The cache, before any work: an unusable root fails early.
  std::unique_ptr<cache::CacheStore> cache;
  if (options.cacheMode != cache::CacheMode::Off) {
    auto opened = cache::CacheStore::open(
        cache::resolveCacheRoot(options.cacheDir), options.cacheMode,
        [&diagnostics, &options](const std::string &message) {
          diagnostics << options.programName << ": warning: cache: "
                      << message << "\n";
        });
    if (!opened)
      return makeError("cache: " + llvm::toString(opened.takeError()));
    cache = std::move(*opened);
  }

  // The whole artifact first: a hit skips import, pipeline and pieces.
  std::string cudaPath = options.resolvedCudaPath();
  std::optional<cache::CacheKeyFactors> artifactFactors;
  if (cache) {
    ArtifactKeyInputs keyInputs;
    keyInputs.inputFiles.push_back(options.inputPath);
    if (!options.weightsPath.empty())
      keyInputs.inputFiles.push_back(options.weightsPath);
    if (!options.opLibrary.empty())
      keyInputs.inputFiles.push_back(options.opLibrary);
    keyInputs.options = options.keyText();
    keyInputs.chip = options.chip;
    keyInputs.features = options.features;
    keyInputs.cudaPath = cudaPath;
    keyInputs.salt = options.cacheSalt;
    llvm::Expected<cache::CacheKeyFactors> factors =
        artifactKeyFactors(keyInputs);
    if (!factors)
      return factors.takeError();
    artifactFactors = std::move(*factors);
    if (options.explainCache)
      *options.explainCache << "artifact: key "
                            << artifactFactors->computeKey().shortHex()
                            << "\n"
                            << artifactFactors->describe();
    llvm::Expected<bool> restored =
        restoreArtifact(*cache, *artifactFactors, options.outputDir);
    if (!restored)
      return restored.takeError();
    if (*restored) {
      if (llvm::Error e = readReports(options.outputDir, result.pieces, result.mutations))
        return std::move(e);
      result.artifactFromCache = true;
      finishCompile(cache.get(), options, diagnostics, result, start);
      return result;
    }
    if (options.explainCache)
      *options.explainCache << "  miss: "
                            << cache->explainMiss(*artifactFactors) << "\n";
  }

  // MLIR only now: loading its dialects costs more than a warm compile.
  DialectRegistry registry;
  registerAllDialects(registry);
  registerGpuCompilation(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  // Every diagnostic is printed, warnings too (a piece that could not be
  // cached, say): without a handler MLIR prints errors only.
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, diagnostics);

  OwningOpRef<ModuleOp> module;
  std::string archivePath = options.weightsPath;
  if (isZipArchive(options.inputPath)) {
    module = importTorchExport(options.inputPath, &context);
    if (archivePath.empty())
      archivePath = options.inputPath;
  } else {
    module = parseSourceFile<ModuleOp>(options.inputPath, sourceMgr,
                                       ParserConfig(&context));
  }
  if (!module)
    return makeError("'" + options.inputPath + "' could not be read as a " +
                     "graph (see the diagnostics)");

  // The pipeline through post-grad; each piece is lowered when it misses
  // the cache.
  PipelineOptions pipeline;
  pipeline.compileTo = "post-grad";
  pipeline.splittingOps = options.splittingOps;
  pipeline.dumpDir = options.dumpDir;
  pipeline.opLibrary = options.opLibrary;
  pipeline.mergeProjections = options.mergeProjections;
  pipeline.disabledFusions = options.disabledFusions;
  PassManager pm(&context);
  std::string pipelineError;
  if (failed(buildPipeline(pm, pipeline, [&](const llvm::Twine &message) {
        pipelineError = message.str();
        return failure();
      })))
    return makeError(pipelineError);
  if (failed(pm.run(*module)))
    return makeError("the pipeline failed on '" + options.inputPath +
                     "' (see the diagnostics)");

  ArtifactOptions artifact;
  artifact.sourcePath = options.inputPath;
  artifact.target.chip = options.chip;
  artifact.target.features = options.features;
  artifact.target.cudaPath = cudaPath;
  artifact.target.blockSize = options.blockSize;
  artifact.target.reductionBlockSize = options.reductionBlockSize;
  artifact.target.libraryGemm = options.libraryGemm;
  artifact.target.tiledAttention = options.tiledAttention;
  artifact.target.attentionRowsPerWarp = options.attentionRowsPerWarp;
  artifact.target.attentionKeyRows = options.attentionKeyRows;
  artifact.target.attentionQueryInShared = options.attentionQueryInShared;
  artifact.target.attentionMinBlocksPerSM = options.attentionMinBlocksPerSM;
  artifact.target.attentionKeySplits = options.attentionKeySplits;
  artifact.target.fewRowGemmRows = options.fewRowGemmRows;
  artifact.target.fewRowGemmColumnTiles = options.fewRowGemmColumnTiles;
  artifact.target.fewRowGemmWarps = options.fewRowGemmWarps;
  artifact.target.fewRowGemmStages = options.fewRowGemmStages;
  artifact.target.kernelPassOptions = options.kernelPassOptions;
  artifact.emitCubin = options.emitCubin;
  artifact.noWeights = options.noWeights;
  artifact.packWeights = options.packWeights;
  artifact.weightsArchive = archivePath;
  artifact.compileSizes = options.compileSizes;
  artifact.cache = cache.get();
  artifact.cacheSalt = options.cacheSalt;
  artifact.explainCache = options.explainCache;
  artifact.progress = options.progress;
  if (failed(writeArtifact(*module, options.outputDir, artifact,
                           result.pieces, &result.mutations)))
    return makeError("the artifact was not written (see the diagnostics "
                     "above)");
  if (cache && cache->writable() && !options.packWeights)
    if (llvm::Error e =
            storeArtifact(*cache, *artifactFactors, options.outputDir))
      diagnostics << options.programName
                  << ": warning: the artifact was not cached: "
                  << llvm::toString(std::move(e)) << "\n";
  finishCompile(cache.get(), options, diagnostics, result, start);
  return result;
}
