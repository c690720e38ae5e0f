//===- Artifact.cpp - a split graph compiled into an artifact -------------===//

#include "magi/Compile/Artifact.h"
#include "magi/Compile/ArtifactCache.h"
#include "magi/Compile/ArtifactManifest.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/GPU/Passes.h"
#include "magi/Import/TorchExport.h"
#include "magi/Support/Version.h"
#include "magi/Pipeline/Pipeline.h"
#include "magi/Support/FileIO.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/ToolOutputFile.h"
#include <atomic>
#include <mutex>
#include <chrono>
#include <map>

using namespace mlir;
namespace rt = magi::runtime;

namespace magi {
namespace {

constexpr int64_t kWeightAlignment = 256;

// What a piece compiles to, as the artifact and the cache keep it.
struct PieceBinary {
  std::string ptx;
  std::optional<std::string> cubin;
  /// kernels, values, plan and results of the variant (no symbols, ptx or
  /// cubin: those are the artifact's).
  rt::Variant body;
  size_t kernels = 0;
  size_t libraryCalls = 0;
  /// The lowered module (empty when the binary came from the cache).
  std::string loweredBytecode;
};

// One variant of one piece to produce: what the key says about it, and the
// binary once found or compiled.
struct VariantJob {
  func::FuncOp piece;
  unsigned index = 0;
  /// The symbol's value the variant is specialized for; none: any size.
  std::optional<int64_t> size;
  /// Its files' path without extension, relative to the artifact.
  std::string base;
  /// The specialized copy of the piece (for a specialized variant).
  OwningOpRef<ModuleOp> holder;
  func::FuncOp source;
  cache::CacheKeyFactors factors;
  cache::CacheKey key;
  std::optional<PieceBinary> binary;
  /// "hit", "compiled" or "reused".
  std::string origin;
  /// The earlier job with the same key, whose binary and files this one
  /// reuses.
  VariantJob *sameAs = nullptr;
  /// The files written for the binary, relative to the artifact (set once
  /// written; a job that reuses another's names them too).
  std::string ptxFile;
  std::optional<std::string> cubinFile;
  double seconds = 0;
};

class ArtifactWriter {
public:
  ArtifactWriter(ModuleOp module, StringRef dir, const ArtifactOptions &options)
      : module(module), dir(dir), options(options) {}

  LogicalResult write(std::vector<PieceReport> &reports) {
    FailureOr<SplitGraph> split = describeSplitGraph(module);
    if (failed(split))
      return failure();
    graph = split->graph;
    pieceFunctions = split->pieces;
    for (auto [i, piece] : llvm::enumerate(pieceFunctions))
      pieceIndex[piece] = i;
    manifest.graph = std::move(split->manifest);
    modelId = makeModelId();
    if (llvm::Error e = prepareArtifactDir(dir))
      return module.emitError() << llvm::toString(std::move(e));
    if (failed(attachWeights()) || failed(chooseCompileSymbol()))
      return failure();
    // Find what is known (cache, identical pieces), compile the rest in
    // parallel, then write the pieces in order.
    for (func::FuncOp piece : pieceFunctions)
      if (failed(planVariants(piece)))
        return failure();
    if (failed(compileMissing()))
      return failure();
    for (func::FuncOp piece : pieceFunctions) {
      PieceReport report;
      FailureOr<rt::Piece> entry = pieceEntry(piece, report);
      if (failed(entry))
        return failure();
      manifest.pieces.push_back(std::move(*entry));
      reports.push_back(report);
    }
    manifest.producer.magi = getMagiVersion();
    manifest.producer.llvm = getLLVMVersion();
    if (!ptxas.empty())
      manifest.producer.ptxas = ptxas;
    manifest.targetChip = options.target.chip;
    manifest.targetFeatures = options.target.features;
    manifest.sourceFile = llvm::sys::path::filename(options.sourcePath).str();
    if (llvm::Expected<std::string> identity = inputIdentity(options.sourcePath))
      manifest.sourceSha256 = StringRef(*identity).rsplit(':').second.str();
    else
      llvm::consumeError(identity.takeError());
    return writeFile("manifest.json", rt::printManifest(manifest));
  }

  const rt::Manifest &written() const { return manifest; }

private:
  ModuleOp module;
  std::string dir;
  const ArtifactOptions &options;
  func::FuncOp graph;
  rt::Manifest manifest;
  SmallVector<func::FuncOp> pieceFunctions;
  llvm::DenseMap<func::FuncOp, unsigned> pieceIndex;
  std::string ptxas;
  std::string ptxasVersionText;
  /// The lower and GPU pipelines' textual form, for the piece keys.
  std::string pipelineText;
  /// Every variant to produce, in manifest order.
  std::vector<std::unique_ptr<VariantJob>> jobs;
  cache::ModelId modelId;
  /// The symbol --compile-sizes specializes (the graph's only symbol).
  std::string symbolName;

  // The cache index of this model: its file name and a digest of the graph.
  cache::ModelId makeModelId() {
    cache::ModelId id;
    for (char c : llvm::sys::path::stem(options.sourcePath))
      id.tag += (llvm::isAlnum(c) || c == '.' || c == '_' || c == '-') ? c : '_';
    if (id.tag.empty() || id.tag[0] == '.')
      id.tag = "model" + id.tag;
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, OpPrintingFlags().useLocalScope());
    id.graphHash = cache::sha256Hex(text).substr(0, 16);
    return id;
  }

  LogicalResult writeFile(StringRef name, StringRef bytes) {
    SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    if (llvm::Error e = writeFileChecked(path, bytes))
      return module.emitError() << llvm::toString(std::move(e));
    return success();
  }

  // Where every weight input's bytes are: an entry of the archive, checked
  // against its zip directory (method, sizes, the view inside the entry),
  // never read; or, with --pack-weights, a range of weights.bin that the
  // entries are streamed into.
  LogicalResult attachWeights() {
    if (options.noWeights)
      return success();
    std::vector<size_t> weightInputs;
    // A concatenation's bytes are its parts'.
    for (auto [i, input] : llvm::enumerate(manifest.graph.inputs))
      if (input.isWeight() && !input.isConcatenation())
        weightInputs.push_back(i);
    if (weightInputs.empty())
      return success();
    if (options.weightsArchive.empty())
      return graph.emitError() << "argument " << weightInputs.front()
                               << " is a weight, but no archive was given "
                                  "to read it from (--weights, or "
                                  "--no-weights to compile without them)";
    rt::ZipDirectory zip;
    std::string error;
    if (!rt::tryReadZipDirectory(options.weightsArchive, zip, error))
      return graph.emitError() << error;
    std::vector<const rt::ZipEntry *> storages; // in first-use order
    llvm::DenseMap<const rt::ZipEntry *, unsigned> storageOf;
    std::vector<unsigned> weightStorage;
    for (size_t i : weightInputs) {
      rt::GraphInput &input = manifest.graph.inputs[i];
      std::string what = "argument " + std::to_string(i) + " ('" + input.name + "')";
      auto attr = graph.getArgAttrOfType<DictionaryAttr>(i, kWeightAttr);
      auto entryName = attr ? attr.getAs<StringAttr>("entry") : StringAttr();
      auto offset = attr ? attr.getAs<IntegerAttr>("offset") : IntegerAttr();
      auto strides = attr ? attr.getAs<DenseI64ArrayAttr>("strides")
                          : DenseI64ArrayAttr();
      if (!entryName || !offset || !strides)
        return graph.emitError()
               << what << " has no well-formed " << kWeightAttr
               << " attribute ({entry = \"...\", offset = <bytes>, strides = "
                  "array<i64: ...>}) saying where its data is";
      // The recorded name, or another export's (a .mlir graph compiled
      // with --weights from another archive of the model).
      const rt::ZipEntry *entry = zip.findIgnoringFolder(entryName.getValue().str());
      if (!entry)
        return graph.emitError() << what << ": " << options.weightsArchive
                                 << " has no entry '" << entryName.getValue()
                                 << "'";
      int64_t elementSize = rt::elementSize(input.dtype);
      if (offset.getInt() < 0 || offset.getInt() % elementSize != 0)
        return graph.emitError() << what << ": its byte offset "
                                 << offset.getInt()
                                 << " is not a whole number of elements";
      rt::WeightRef ref;
      ref.setStorage(0, *entry);
      ref.storageOffset = offset.getInt() / elementSize;
      ref.strides.assign(strides.asArrayRef().begin(), strides.asArrayRef().end());
      std::vector<int64_t> shape;
      for (const rt::Expr &size : input.shape) {
        std::optional<int64_t> n = constantOf(size);
        if (!n)
          return graph.emitError() << what << " has a symbolic shape";
        shape.push_back(*n);
      }
      int64_t dense = 0;
      if (std::optional<std::string> bad =
              rt::checkView(elementSize, shape, ref.strides, ref.storageOffset,
                            ref.bytes, dense))
        return graph.emitError() << what << ": its view of entry '"
                                 << entry->name << "' " << *bad;
      auto [it, inserted] = storageOf.try_emplace(entry, storages.size());
      if (inserted)
        storages.push_back(entry);
      weightStorage.push_back(it->second);
      input.weight = std::move(ref);
    }
    rt::WeightFile file;
    if (!options.packWeights) {
      file.path = relativePath(options.weightsArchive, dir);
      file.bytes = zip.fileBytes;
      manifest.weightFiles.push_back(std::move(file));
      return success();
    }
    // Packed: each storage once, 256-byte aligned, streamed in 8 MiB chunks.
    FailureOr<std::vector<int64_t>> packed = packStorages(storages);
    if (failed(packed))
      return failure();
    for (auto [k, i] : llvm::enumerate(weightInputs)) {
      rt::WeightRef &ref = *manifest.graph.inputs[i].weight;
      ref.offset = (*packed)[weightStorage[k]];
      ref.method = rt::ZipMethod::Stored;
      ref.storedBytes = ref.bytes;
      ref.entry.clear();
    }
    file.path = "weights.bin";
    file.bytes = packed->back();
    manifest.weightFiles.push_back(std::move(file));
    return success();
  }

  // Streams `storages` into DIR/weights.bin; their offsets, then the file's
  // size.
  FailureOr<std::vector<int64_t>> packStorages(
      const std::vector<const rt::ZipEntry *> &storages) {
    SmallString<256> path(dir);
    llvm::sys::path::append(path, "weights.bin");
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return module.emitError() << "cannot write '" << path
                                << "': " << ec.message();
    // A failed write (a full disk) is reported, the stream's error cleared
    // (or its destructor aborts) and the partial file removed.
    auto fail = [&](const std::string &why) {
      std::string message =
          os.has_error() ? "cannot write '" + path.str().str() +
                               "': " + os.error().message()
                         : why;
      os.clear_error();
      os.close();
      os.clear_error();
      llvm::sys::fs::remove(path);
      return module.emitError() << message;
    };
    std::vector<int64_t> offsets;
    int64_t size = 0;
    for (const rt::ZipEntry *entry : storages) {
      int64_t aligned = llvm::alignTo(size, kWeightAlignment);
      os.write_zeros(aligned - size);
      offsets.push_back(aligned);
      size = aligned + entry->bytes;
      std::string error;
      if (!rt::tryStreamEntry(options.weightsArchive, *entry, 8u << 20,
                              [&](const char *data, size_t n) {
                                os.write(data, n);
                                return !os.has_error();
                              },
                              error))
        return fail(error);
    }
    os.close();
    if (os.has_error())
      return fail("");
    offsets.push_back(size);
    return offsets;
  }

  static std::optional<int64_t> constantOf(const rt::Expr &e) {
    int64_t n;
    if (StringRef(e.text()).getAsInteger(10, n))
      return std::nullopt;
    return n;
  }

  // The symbol --compile-sizes specializes: the graph's only one, with
  // every size in its range.
  LogicalResult chooseCompileSymbol() {
    if (options.compileSizes.empty())
      return success();
    for (Operation &op : graph.getBody().front()) {
      auto sym = dyn_cast<SymbolicIntOp>(op);
      if (!sym)
        continue;
      if (!symbolName.empty())
        return sym.emitError() << "--compile-sizes needs a graph with one "
                                  "symbol; this one has "
                               << symbolName << " and " << sym.getName();
      symbolName = sym.getName().str();
      for (int64_t size : options.compileSizes) {
        int64_t min = static_cast<int64_t>(sym.getMinVal());
        auto max = sym.getMaxVal();
        if (size < min || (max && size > static_cast<int64_t>(*max)))
          return sym.emitError()
                 << "compile size " << size << " is outside " << sym.getName()
                 << "'s range [" << min << ", "
                 << (max ? std::to_string(static_cast<int64_t>(*max)) : "inf")
                 << "]";
      }
    }
    if (symbolName.empty())
      return graph.emitError("--compile-sizes needs a graph with a symbolic "
                             "size; this one has none");
    return success();
  }

  // The piece as the key sees it: its IR without the piece's name, position
  // or locations, so identical pieces share one entry.
  std::string canonicalPieceIR(func::FuncOp piece) {
    OpBuilder b(piece.getContext());
    auto clone = cast<func::FuncOp>(b.clone(*piece));
    clone.setSymName("piece");
    clone->removeAttr(kPieceIndexAttr);
    clone->removeAttr(kGraphIndexAttr);
    std::string text;
    llvm::raw_string_ostream os(text);
    clone->print(os, OpPrintingFlags().useLocalScope());
    clone.erase();
    return text;
  }

  cache::CacheKeyFactors pieceFactors(func::FuncOp piece) {
    cache::CacheKeyFactors factors = cache::CacheKeyFactors::forThisBuild();
    const GpuTargetOptions &t = options.target;
    factors.pieceIR = canonicalPieceIR(piece);
    bool cubin = options.emitCubin && !t.cudaPath.empty();
    // The pipelines as they run, in their textual form: every pass and
    // option that shapes the code is in it, and nothing else.
    if (pipelineText.empty()) {
      OpPassManager lower(ModuleOp::getOperationName(),
                          OpPassManager::Nesting::Implicit);
      addLowerToLinalgPasses(lower, t.tiledAttention);
      llvm::raw_string_ostream os(pipelineText);
      lower.printAsTextualPipeline(os);
      os << " then " << gpuPipelineText(t);
    }
    factors.pipelineOptions =
        pipelineText + ";cubin=" + (cubin ? "ptxas -O" + std::to_string(std::min(t.optLevel, 3u)) : "no");
    factors.targetChip = t.chip;
    factors.targetFeatures = t.features;
    factors.ptxISA = ptxISAVersion(t.features);
    if (cubin && ptxasVersionText.empty())
      ptxasVersionText = ptxasVersion(t.cudaPath); // one process, once
    factors.ptxasVersion = cubin ? ptxasVersionText : "";
    factors.salt = options.cacheSalt;
    return factors;
  }

  // The lower phase and the GPU compilation of one piece.
  FailureOr<PieceBinary> compileFresh(func::FuncOp piece) {
    OpBuilder b(piece.getContext());
    OwningOpRef<ModuleOp> holder = ModuleOp::create(piece.getLoc());
    auto clone = cast<func::FuncOp>(b.clone(*piece));
    holder->getBody()->push_back(clone);
    PassManager pm(piece.getContext());
    addLowerToLinalgPasses(pm, options.target.tiledAttention);
    if (failed(pm.run(*holder)))
      return piece.emitError() << "piece @" << piece.getSymName()
                               << " failed in the lower phase";
    FailureOr<CompiledPiece> compiled = compilePieceForGpu(clone, options.target);
    if (failed(compiled))
      return failure();
    PieceBinary binary;
    binary.ptx = std::move(compiled->ptx);
    binary.kernels = compiled->plan.kernels.size();
    binary.libraryCalls = countLibraryCalls(compiled->plan.plan);
    if (options.emitCubin && !options.target.cudaPath.empty() &&
        binary.kernels != 0) {
      std::string error;
      SmallVector<std::string> warnings;
      FailureOr<std::string> cubin =
          assemblePtx(binary.ptx, options.target, error, &warnings);
      if (failed(cubin))
        return piece.emitError() << "piece @" << piece.getSymName() << ": "
                                 << error;
      for (const std::string &warning : warnings)
        piece.emitWarning() << "piece @" << piece.getSymName() << ": " << warning;
      binary.cubin = std::move(*cubin);
    }
    binary.body = planWithKernelConfigs(*compiled);
    binary.loweredBytecode = std::move(compiled->loweredBytecode);
    return binary;
  }

  // A cached binary, its plan read by the runtime's own parser against the
  // piece's signature; nothing (a recompile) when the entry does not hold.
  std::optional<PieceBinary> fromCacheEntry(const cache::CacheEntry &entry,
                                            func::FuncOp piece) {
    const cache::CacheFile *ptx = entry.file("piece.ptx");
    const cache::CacheFile *plan = entry.file("plan.json");
    if (!ptx || !plan)
      return std::nullopt;
    FailureOr<rt::Piece> signature = pieceSignature(piece, 0);
    if (failed(signature))
      return std::nullopt;
    PieceBinary binary;
    std::string error;
    if (!rt::tryParseVariantBody(plan->data, "plan.json", *signature,
                                 binary.body, error)) {
      piece.emitWarning() << "piece @" << piece.getSymName()
                          << ": the cached plan does not read back ("
                          << error << "); compiling it again";
      return std::nullopt;
    }
    binary.ptx = ptx->data;
    if (const cache::CacheFile *cubin = entry.file("piece.cubin"))
      binary.cubin = cubin->data;
    binary.kernels = binary.body.kernels.size();
    binary.libraryCalls = countLibraryCalls(binary.body.plan);
    return binary;
  }

  void storeInCache(const cache::CacheKey &key,
                    const cache::CacheKeyFactors &factors,
                    const PieceBinary &binary, func::FuncOp piece,
                    int64_t graphIndex) {
    std::string plan = rt::printVariantBody(binary.body);
    std::vector<cache::CacheFile> files = {{"piece.ptx", binary.ptx},
                                           {"plan.json", plan},
                                           {"lowered.mlirbc", binary.loweredBytecode}};
    if (binary.cubin)
      files.push_back({"piece.cubin", *binary.cubin});
    llvm::Expected<cache::StoreOutcome> stored =
        options.cache->store(key, factors, files);
    if (!stored) {
      // The compile goes on without caching (read-only or full disk).
      piece.emitWarning() << "piece @" << piece.getSymName()
                          << " was not cached: "
                          << llvm::toString(stored.takeError());
      return;
    }
    if (graphIndex < 0)
      return;
    // Compute pieces only: the index maps (runtime shape, graph index,
    // backend) of the split's compiled graphs.
    cache::IndexRecord record;
    record.runtimeShape = factors.runtimeShape;
    record.graphIndex = graphIndex;
    record.backend = binary.cubin ? "cuda-cubin" : "cuda-ptx";
    record.key = key;
    if (llvm::Error e = options.cache->recordInIndex(modelId, record))
      piece.emitWarning() << "the cache index was not updated: "
                          << llvm::toString(std::move(e));
  }

  // The jobs of `piece`'s variants: specialized ones first (the runtime
  // takes the first that fits), for pieces that take the symbol; the
  // variant for any size last. Each is looked up: an earlier identical
  // job, then the cache.
  LogicalResult planVariants(func::FuncOp piece) {
    unsigned index = pieceIndex[piece];
    std::string base = "pieces/piece_" + std::to_string(index);
    bool takesSymbol = llvm::any_of(
        llvm::seq<unsigned>(0, piece.getNumArguments()), [&](unsigned i) {
          auto name = piece.getArgAttrOfType<StringAttr>(i, kSymbolArgAttr);
          return name && name.getValue() == symbolName;
        });
    SmallVector<std::optional<int64_t>> sizes;
    if (takesSymbol)
      sizes.append(options.compileSizes.begin(), options.compileSizes.end());
    // Control flow (a cond on the sizes) folds away when the piece is
    // specialized; for any size it cannot run on the GPU. Such a piece has
    // only its specialized variants, and the runtime refuses other sizes.
    if (takesSymbol && !options.compileSizes.empty() && findHostControlFlow(piece))
      piece.emitWarning() << "piece @" << piece.getSymName()
                          << " holds control flow: compiled for the compile sizes of "
                          << symbolName
                          << " only (other sizes are refused when run, and so is "
                             "--pad-to-compile-sizes: a padded run would take the padded "
                             "size's way)";
    else
      sizes.push_back(std::nullopt);
    for (std::optional<int64_t> size : sizes) {
      auto job = std::make_unique<VariantJob>();
      job->piece = piece;
      job->index = index;
      job->size = size;
      job->base = size ? base + "_" + symbolName + "_" + std::to_string(*size)
                       : base;
      job->source = piece;
      std::string shape = "dynamic";
      if (size) {
        job->holder = ModuleOp::create(piece.getLoc());
        OpBuilder b(piece.getContext());
        job->source = cast<func::FuncOp>(b.clone(*piece));
        job->holder->getBody()->push_back(job->source);
        if (failed(specializeSymbol(job->source, symbolName, *size)))
          return piece.emitError() << "piece @" << piece.getSymName()
                                   << " cannot be specialized for "
                                   << symbolName << " = " << *size;
        shape = symbolName + "=" + std::to_string(*size);
      }
      job->factors = pieceFactors(job->source);
      job->factors.runtimeShape = shape;
      job->key = job->factors.computeKey();
      if (options.explainCache)
        *options.explainCache << "piece " << index << " @"
                              << piece.getSymName() << " (" << shape
                              << "): key " << job->key.shortHex() << "\n"
                              << job->factors.describe();
      for (const auto &earlier : jobs)
        if (earlier->key == job->key && !earlier->sameAs) {
          job->sameAs = earlier.get();
          job->origin = "reused";
        }
      if (!job->sameAs && options.cache) {
        llvm::Expected<std::optional<cache::CacheEntry>> entry =
            options.cache->lookupPiece(job->factors, piece.getSymName());
        if (!entry)
          return piece.emitError() << llvm::toString(entry.takeError());
        if (*entry && (job->binary = fromCacheEntry(**entry, job->source)))
          job->origin = "hit";
        else if (!*entry && options.explainCache)
          *options.explainCache << "  miss: "
                                << options.cache->explainMiss(job->factors)
                                << "\n";
      }
      jobs.push_back(std::move(job));
    }
    return success();
  }

  // Compiles every job that nothing provided, on the context's threads
  // (each job works on its own module), then stores them in the cache.
  LogicalResult compileMissing() {
    SmallVector<VariantJob *> missing;
    for (const auto &job : jobs)
      if (!job->sameAs && !job->binary)
        missing.push_back(job.get());
    std::atomic<bool> anyFailed = false;
    if (missing.size() > 1)
      loadGpuCompilationDialects(module.getContext(), options.target);
    std::atomic<size_t> done = 0;
    std::mutex progressMutex;
    parallelForEach(module.getContext(), missing, [&](VariantJob *job) {
      llvm::scope_exit finished([&] {
        size_t n = ++done;
        if (options.progress) {
          std::lock_guard<std::mutex> lock(progressMutex);
          options.progress(n, missing.size());
        }
      });
      auto start = std::chrono::steady_clock::now();
      FailureOr<PieceBinary> fresh =
          compileFresh(job->source);
      job->seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
      if (failed(fresh)) {
        anyFailed = true;
        return;
      }
      job->binary = std::move(*fresh);
      job->origin = "compiled";
    });
    if (anyFailed)
      return failure();
    for (VariantJob *job : missing) {
      auto graphIndex = job->piece->getAttrOfType<IntegerAttr>(kGraphIndexAttr);
      if (options.cache)
        storeInCache(job->key, job->factors, *job->binary, job->piece,
                     graphIndex ? graphIndex.getInt() : -1);
    }
    return success();
  }

  // The manifest's variant for `job`, its files written. Identical pieces
  // (the layers of a model) name the files of the first: an artifact and
  // its cache entry hold each distinct module once, and the runtime loads
  // it once.
  FailureOr<rt::Variant> variantEntry(VariantJob &job) {
    VariantJob &owner = job.sameAs ? *job.sameAs : job;
    const PieceBinary &binary = *owner.binary;
    rt::Variant variant = binary.body;
    if (job.size)
      variant.symbols[symbolName] = *job.size;
    // A piece of library calls only has no module to write.
    if (binary.kernels != 0) {
      if (owner.ptxFile.empty()) {
        owner.ptxFile = owner.base + ".ptx";
        if (failed(writeFile(owner.ptxFile, binary.ptx)))
          return failure();
        if (binary.cubin) {
          owner.cubinFile = owner.base + ".cubin";
          if (failed(writeFile(*owner.cubinFile, *binary.cubin)))
            return failure();
          if (ptxas.empty())
            ptxas = owner.factors.ptxasVersion;
        }
      }
      variant.ptx = owner.ptxFile;
      variant.cubin = owner.cubinFile;
    }
    return variant;
  }

  FailureOr<rt::Piece> pieceEntry(func::FuncOp piece, PieceReport &report) {
    FailureOr<rt::Piece> entry = pieceSignature(piece, pieceIndex[piece]);
    if (failed(entry))
      return failure();
    report.name = entry->name;
    report.kind = entry->isSplitting ? "splitting" : "compute";
    report.graphIndex = entry->graphIndex;
    for (const auto &job : jobs) {
      if (job->piece != piece)
        continue;
      FailureOr<rt::Variant> variant = variantEntry(*job);
      if (failed(variant))
        return failure();
      entry->variants.push_back(std::move(*variant));
      report.seconds += job->seconds;
      // The piece is described by its variant for any size (or, without
      // one, its last specialized one).
      bool noGeneral = llvm::none_of(jobs, [&](const auto &other) {
        return other->piece == piece && !other->size;
      });
      if (!job->size || noGeneral) {
        const PieceBinary &binary =
            job->sameAs ? *job->sameAs->binary : *job->binary;
        report.kernels = binary.kernels;
        report.libraryCalls = binary.libraryCalls;
        report.source = job->origin;
        report.cacheKey = job->key.hex();
      }
    }
    report.variants = entry->variants.size();
    return entry;
  }
};

} // namespace

LogicalResult writeArtifact(ModuleOp lowered, StringRef dir,
                            const ArtifactOptions &options,
                            std::vector<PieceReport> &reports,
                            std::vector<MutationReport> *mutations) {
  ArtifactWriter writer(lowered, dir, options);
  if (failed(writer.write(reports)))
    return failure();
  if (mutations)
    *mutations = describeMutations(writer.written());
  return success();
}

std::vector<MutationReport> describeMutations(const rt::Manifest &manifest) {
  const rt::Graph &graph = manifest.graph;
  std::vector<MutationReport> reports;
  for (const rt::GraphMutation &m : graph.mutations) {
    MutationReport report;
    report.input = graph.inputs[size_t(m.input)].name;
    const rt::ValueRef &ref = graph.outputs[size_t(m.output)];
    if (ref.kind == rt::ValueRef::Kind::Input) {
      report.inPlace = ref.index == m.input;
    } else if (ref.kind == rt::ValueRef::Kind::StepResult) {
      // Every variant's result is the piece argument the input is passed as.
      const rt::GraphStep &step = graph.steps[size_t(ref.index)];
      const rt::Piece &piece = manifest.pieces[size_t(step.piece)];
      report.inPlace = !piece.variants.empty() &&
                       llvm::all_of(piece.variants, [&](const rt::Variant &v) {
                         const rt::PieceResult &r = v.results[size_t(ref.result)];
                         if (!r.isTensor || r.tensor.base != rt::Descriptor::Base::Arg)
                           return false;
                         const rt::ValueRef &arg = step.args[size_t(r.tensor.baseIndex)];
                         return arg.kind == rt::ValueRef::Kind::Input && arg.index == m.input;
                       });
    }
    reports.push_back(report);
  }
  return reports;
}

} // namespace magi
