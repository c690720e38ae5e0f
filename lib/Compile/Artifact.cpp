//===- Artifact.cpp - a split graph compiled into an artifact -------------===//

#include "magi/Compile/Artifact.h"
#include "magi/Compile/ArtifactCache.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Interp/Interpreter.h"
#include "magi/Support/Version.h"
#include "magi/Pipeline/Pipeline.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/ToolOutputFile.h"
#include <atomic>
#include <chrono>
#include <map>

using namespace mlir;
namespace json = llvm::json;

namespace magi {
namespace {

constexpr int64_t kWeightAlignment = 256;

std::string affineToString(AffineExpr expr, ArrayRef<std::string> symbols) {
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    return std::to_string(cast<AffineConstantExpr>(expr).getValue());
  case AffineExprKind::SymbolId:
    return symbols[cast<AffineSymbolExpr>(expr).getPosition()];
  case AffineExprKind::DimId:
    return "d" + std::to_string(cast<AffineDimExpr>(expr).getPosition());
  default:
    break;
  }
  auto binary = cast<AffineBinaryOpExpr>(expr);
  std::string lhs = affineToString(binary.getLHS(), symbols);
  std::string rhs = affineToString(binary.getRHS(), symbols);
  StringRef op = expr.getKind() == AffineExprKind::Add        ? "+"
                 : expr.getKind() == AffineExprKind::Mul      ? "*"
                 : expr.getKind() == AffineExprKind::FloorDiv ? "floordiv"
                 : expr.getKind() == AffineExprKind::CeilDiv  ? "ceildiv"
                                                              : "mod";
  return "(" + lhs + " " + op.str() + " " + rhs + ")";
}

json::Value sizeValue(const std::string &text) {
  int64_t n;
  if (!StringRef(text).getAsInteger(10, n))
    return n;
  return text;
}

json::Object valueKind(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return json::Object{{"kind", "tensor"},
                        {"dtype", dtypeName(tensor.getElementType())},
                        {"rank", tensor.getRank()}};
  return json::Object{{"kind", "index"}};
}

// What a piece compiles to, as the artifact and the cache keep it.
struct PieceBinary {
  std::string ptx;
  std::optional<std::string> cubin;
  /// kernels, values, plan and results of the variant.
  json::Object body;
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
  /// The earlier job with the same key, whose binary this one reuses.
  VariantJob *sameAs = nullptr;
  double seconds = 0;
};

class ArtifactWriter {
public:
  ArtifactWriter(ModuleOp module, const TorchExportArchive *archive,
                 StringRef dir, const ArtifactOptions &options)
      : module(module), archive(archive), dir(dir), options(options) {}

  LogicalResult write(std::vector<PieceReport> &reports) {
    graph = findGraph();
    if (!graph)
      return failure();
    modelId = makeModelId();
    if (llvm::Error e = prepareArtifactDir(dir))
      return module.emitError() << llvm::toString(std::move(e));
    json::Object graphJSON;
    if (failed(describeGraph(graphJSON)))
      return failure();
    if (!options.compileSizes.empty() && symbolName.empty())
      return graph.emitError("--compile-sizes needs a graph with a symbolic "
                             "size; this one has none");
    // Find what is known (cache, identical pieces), compile the rest in
    // parallel, then write the pieces in order.
    for (func::FuncOp piece : pieceFunctions)
      if (failed(planVariants(piece)))
        return failure();
    if (failed(compileMissing()))
      return failure();
    json::Array pieces;
    for (func::FuncOp piece : pieceFunctions) {
      PieceReport report;
      FailureOr<json::Object> entry = pieceEntry(piece, report);
      if (failed(entry))
        return failure();
      pieces.push_back(std::move(*entry));
      reports.push_back(report);
    }
    json::Object manifest{
        {"format", "magi-artifact"},
        {"version", 1},
        {"producer",
         json::Object{{"magi", getMagiVersion()},
                      {"llvm", getLLVMVersion()},
                      {"ptxas", ptxas.empty() ? json::Value(nullptr)
                                              : json::Value(ptxas)}}},
        {"target", json::Object{{"chip", options.target.chip},
                                {"features", options.target.features},
                                {"triple", "nvptx64-nvidia-cuda"}}},
        {"source", sourceJSON()},
        {"weights", json::Object{{"file", "weights.bin"},
                                 {"bytes", int64_t(weights.size())}}},
        {"graph", std::move(graphJSON)},
        {"pieces", std::move(pieces)}};
    if (failed(writeFile("weights.bin", weights)))
      return failure();
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::formatv("{0:2}", json::Value(std::move(manifest))) << "\n";
    return writeFile("manifest.json", text);
  }

private:
  ModuleOp module;
  const TorchExportArchive *archive;
  std::string dir;
  const ArtifactOptions &options;
  func::FuncOp graph;
  SmallVector<func::FuncOp> pieceFunctions;
  llvm::DenseMap<func::FuncOp, unsigned> pieceIndex;
  std::string weights;
  std::string ptxas;
  std::string ptxasVersionText;
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

  func::FuncOp findGraph() {
    func::FuncOp found;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(kSplitAttr))
        found = func;
    if (!found)
      module.emitError("no split graph (a function marked '")
          << kSplitAttr << "') to compile: run the pipeline's split phase";
    return found;
  }

  LogicalResult writeFile(StringRef name, StringRef bytes) {
    SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    std::error_code ec;
    llvm::ToolOutputFile file(path, ec, llvm::sys::fs::OF_None);
    if (ec)
      return module.emitError() << "cannot write '" << path
                                << "': " << ec.message();
    file.os() << bytes;
    file.keep();
    return success();
  }

  json::Value sourceJSON() {
    json::Object source{{"file", llvm::sys::path::filename(options.sourcePath).str()}};
    if (auto buffer = llvm::MemoryBuffer::getFile(options.sourcePath))
      source["sha256"] = llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(
                                         (*buffer)->getBuffer())),
                                     /*LowerCase=*/true);
    return source;
  }

  // Inputs, symbols, steps (the calls) and outputs of the split function.
  LogicalResult describeGraph(json::Object &out) {
    std::map<void *, json::Value> refs;
    llvm::DenseMap<Value, std::string> symbolNames;
    json::Array symbols;
    // Sizes of each argument as expressions of the symbols.
    llvm::DenseMap<unsigned, SmallVector<std::string>> argShapes;
    llvm::DenseMap<unsigned, magi::BindSymbolicShapeOp> argBindings;
    for (Operation &op : graph.getBody().front()) {
      if (auto sym = dyn_cast<SymbolicIntOp>(op))
        symbolNames[sym.getResult()] = sym.getName().str();
      if (auto bind = dyn_cast<BindSymbolicShapeOp>(op))
        if (auto arg = dyn_cast<BlockArgument>(bind.getOperand()))
          argBindings[arg.getArgNumber()] = bind;
    }
    std::optional<interp::WeightLoader> loader;
    if (archive)
      loader.emplace(*archive);
    json::Array inputs;
    for (unsigned i = 0; i < graph.getNumArguments(); ++i) {
      auto type = dyn_cast<RankedTensorType>(graph.getArgument(i).getType());
      if (!type)
        return graph.emitError() << "argument " << i
                                 << " is not a ranked tensor";
      json::Array shape;
      SmallVector<std::string> names;
      auto bind = argBindings.lookup(i);
      if (bind)
        for (Value s : bind.getShapeSymbols())
          names.push_back(symbolNames.lookup(s));
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (!type.isDynamicDim(d)) {
          shape.push_back(type.getDimSize(d));
        } else if (bind) {
          shape.push_back(sizeValue(
              affineToString(bind.getShapeExpressions().getResult(d), names)));
        } else {
          return graph.emitError() << "argument " << i << " has dynamic size "
                                   << d << " bound to no symbol";
        }
      }
      auto kind = graph.getArgAttrOfType<StringAttr>(i, kInputKindAttr);
      auto name = graph.getArgAttrOfType<StringAttr>(i, kNameAttr);
      json::Object input{
          {"name", name ? name.getValue().str() : "arg" + std::to_string(i)},
          {"kind", kind ? kind.getValue().str() : "user_input"},
          {"dtype", dtypeName(type.getElementType())},
          {"shape", std::move(shape)}};
      if (kind && kind.getValue() != "user_input" && !options.noWeights) {
        if (!loader)
          return graph.emitError() << "argument " << i
                                   << " is a weight, but no archive was given "
                                      "to read it from (--weights, or "
                                      "--no-weights to compile without them)";
        FailureOr<interp::Tensor> tensor = loader->load(graph, i);
        if (failed(tensor))
          return failure();
        weights.resize(llvm::alignTo(weights.size(), kWeightAlignment), '\0');
        int64_t offset = weights.size();
        weights.append(tensor->getBytes().begin(), tensor->getBytes().end());
        input["weight"] = json::Object{
            {"offset", offset},
            {"bytes", int64_t(tensor->getBytes().size())}};
      }
      inputs.push_back(std::move(input));
      refs.insert_or_assign(graph.getArgument(i).getAsOpaquePointer(),
                            json::Object{{"input", int64_t(i)}});
    }

    // Each symbol is read from the first user input dimension that is
    // exactly the symbol.
    for (Operation &op : graph.getBody().front()) {
      auto sym = dyn_cast<SymbolicIntOp>(op);
      if (!sym)
        continue;
      json::Object entry{{"name", sym.getName().str()},
                         {"min", sym.getMinVal()},
                         {"max", sym.getMaxVal() ? json::Value(*sym.getMaxVal())
                                                 : json::Value(nullptr)}};
      for (unsigned i = 0; i < graph.getNumArguments() && !entry.get("input");
           ++i) {
        auto kind = graph.getArgAttrOfType<StringAttr>(i, kInputKindAttr);
        auto bind = argBindings.lookup(i);
        if ((kind && kind.getValue() != "user_input") || !bind)
          continue;
        for (auto [d, result] : llvm::enumerate(bind.getShapeExpressions().getResults())) {
          auto symExpr = dyn_cast<AffineSymbolExpr>(result);
          if (symExpr &&
              bind.getShapeSymbols()[symExpr.getPosition()] == sym.getResult()) {
            entry["input"] = int64_t(i);
            entry["dim"] = int64_t(d);
            break;
          }
        }
      }
      if (!entry.get("input"))
        return sym.emitError() << "symbol " << sym.getName()
                               << " is not a size of any user input";
      if (!options.compileSizes.empty()) {
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
      refs.insert_or_assign(sym.getResult().getAsOpaquePointer(),
                            json::Object{{"symbol", sym.getName().str()}});
      symbols.push_back(std::move(entry));
    }

    json::Array steps, outputs;
    auto refOf = [&](Value v) -> FailureOr<json::Value> {
      auto it = refs.find(v.getAsOpaquePointer());
      if (it != refs.end())
        return it->second;
      if (auto c = v.getDefiningOp<arith::ConstantOp>())
        if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
          return json::Value(json::Object{{"int", i.getInt()}});
      return graph.emitError("a value the artifact cannot pass between pieces");
    };
    for (Operation &op : graph.getBody().front()) {
      if (isa<SymbolicIntOp, BindSymbolicShapeOp, arith::ConstantOp>(op))
        continue;
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        for (Value v : ret.getOperands()) {
          FailureOr<json::Value> ref = refOf(v);
          if (failed(ref))
            return failure();
          outputs.push_back(std::move(*ref));
        }
        continue;
      }
      auto call = dyn_cast<func::CallOp>(op);
      if (!call)
        return op.emitError() << "the split graph holds '" << op.getName()
                              << "'; an artifact's graph only calls pieces";
      auto piece = module.lookupSymbol<func::FuncOp>(call.getCallee());
      if (!piece)
        return call.emitError("calls an unknown piece");
      if (!pieceIndex.count(piece)) {
        pieceIndex[piece] = pieceFunctions.size();
        pieceFunctions.push_back(piece);
      }
      json::Array args;
      for (Value v : call.getOperands()) {
        FailureOr<json::Value> ref = refOf(v);
        if (failed(ref))
          return failure();
        args.push_back(std::move(*ref));
      }
      int64_t step = steps.size();
      for (auto [k, result] : llvm::enumerate(call.getResults()))
        refs.insert_or_assign(result.getAsOpaquePointer(),
                              json::Object{{"step", step}, {"result", int64_t(k)}});
      steps.push_back(json::Object{{"piece", int64_t(pieceIndex[piece])},
                                   {"args", std::move(args)}});
    }
    out = json::Object{{"inputs", std::move(inputs)},
                       {"symbols", std::move(symbols)},
                       {"steps", std::move(steps)},
                       {"outputs", std::move(outputs)}};
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
    factors.pipelineOptions =
        "lower;bufferize;map{block-size=" + std::to_string(t.blockSize) +
        ",reduction-block-size=" + std::to_string(t.reductionBlockSize) +
        "};gemm=" + (t.libraryGemm ? "library" : "kernel") +
        ";nvvm{O" + std::to_string(t.optLevel) + ",libdevice=" +
        (findLibdevice(t.cudaPath).empty() ? "no" : "yes") +
        "};cubin=" + (cubin ? "yes" : "no");
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
  FailureOr<PieceBinary> compileFresh(func::FuncOp piece, StringRef cubinPath) {
    OpBuilder b(piece.getContext());
    OwningOpRef<ModuleOp> holder = ModuleOp::create(piece.getLoc());
    auto clone = cast<func::FuncOp>(b.clone(*piece));
    holder->getBody()->push_back(clone);
    PassManager pm(piece.getContext());
    addLowerToLinalgPasses(pm);
    if (failed(pm.run(*holder)))
      return piece.emitError() << "piece @" << piece.getSymName()
                               << " failed in the lower phase";
    FailureOr<CompiledPiece> compiled = compilePieceForGpu(clone, options.target);
    if (failed(compiled))
      return failure();
    PieceBinary binary;
    binary.ptx = std::move(compiled->ptx);
    binary.kernels = compiled->plan.kernels.size();
    binary.libraryCalls = compiled->plan.libraryCalls;
    if (options.emitCubin && !options.target.cudaPath.empty() &&
        binary.kernels != 0) {
      std::string error;
      if (failed(assemblePtx(binary.ptx, cubinPath, options.target, error)))
        return piece.emitError() << "piece @" << piece.getSymName() << ": "
                                 << error;
      auto bytes = llvm::MemoryBuffer::getFile(cubinPath);
      if (!bytes)
        return piece.emitError() << "cannot read back '" << cubinPath << "'";
      binary.cubin = (*bytes)->getBuffer().str();
    }
    json::Array kernels;
    for (auto &[name, config] : compiled->kernelConfigs)
      kernels.push_back(json::Object{{"name", name}, {"config", std::move(config)}});
    binary.body = json::Object{{"kernels", std::move(kernels)},
                               {"values", std::move(compiled->plan.values)},
                               {"plan", std::move(compiled->plan.steps)},
                               {"results", std::move(compiled->plan.results)}};
    binary.loweredBytecode = std::move(compiled->loweredBytecode);
    return binary;
  }

  std::optional<PieceBinary> fromCacheEntry(const cache::CacheEntry &entry) {
    const cache::CacheFile *ptx = entry.file("piece.ptx");
    const cache::CacheFile *plan = entry.file("plan.json");
    if (!ptx || !plan)
      return std::nullopt;
    llvm::Expected<json::Value> body = json::parse(plan->data);
    if (!body || !body->getAsObject()) {
      llvm::consumeError(body.takeError());
      return std::nullopt;
    }
    PieceBinary binary;
    binary.ptx = ptx->data;
    if (const cache::CacheFile *cubin = entry.file("piece.cubin"))
      binary.cubin = cubin->data;
    binary.body = std::move(*body->getAsObject());
    if (const json::Array *kernels = binary.body.getArray("kernels"))
      binary.kernels = kernels->size();
    if (const json::Array *steps = binary.body.getArray("plan"))
      binary.libraryCalls = countLibraryCalls(*steps);
    return binary;
  }

  void storeInCache(const cache::CacheKey &key,
                    const cache::CacheKeyFactors &factors,
                    const PieceBinary &binary, func::FuncOp piece,
                    int64_t graphIndex) {
    std::string plan;
    llvm::raw_string_ostream os(plan);
    os << json::Value(json::Object(binary.body));
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
        if (*entry && (job->binary = fromCacheEntry(**entry)))
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
    parallelForEach(module.getContext(), missing, [&](VariantJob *job) {
      auto start = std::chrono::steady_clock::now();
      FailureOr<PieceBinary> fresh =
          compileFresh(job->source, dir + "/" + job->base + ".cubin");
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

  // The manifest's variant for `job`, its files written.
  FailureOr<json::Object> variantEntry(VariantJob &job) {
    const PieceBinary &binary =
        job.sameAs ? *job.sameAs->binary : *job.binary;
    json::Object symbols;
    if (job.size)
      symbols[symbolName] = *job.size;
    json::Object variant{{"symbols", std::move(symbols)}};
    // A piece of library calls only has no module to write.
    if (binary.kernels != 0) {
      if (failed(writeFile(job.base + ".ptx", binary.ptx)))
        return failure();
      variant["ptx"] = job.base + ".ptx";
      if (binary.cubin) {
        if (failed(writeFile(job.base + ".cubin", *binary.cubin)))
          return failure();
        variant["cubin"] = job.base + ".cubin";
        if (ptxas.empty())
          ptxas = job.factors.ptxasVersion;
      }
    }
    for (auto &field : json::Object(binary.body))
      variant[field.first] = field.second;
    return variant;
  }

  FailureOr<json::Object> pieceEntry(func::FuncOp piece, PieceReport &report) {
    unsigned index = pieceIndex[piece];
    auto splittingAttr = piece->getAttrOfType<BoolAttr>(kIsSplittingAttr);
    bool splitting = splittingAttr && splittingAttr.getValue();
    auto graphIndex = piece->getAttrOfType<IntegerAttr>(kGraphIndexAttr);
    report.name = piece.getSymName().str();
    report.kind = splitting ? "splitting" : "compute";
    report.graphIndex = graphIndex ? graphIndex.getInt() : -1;

    json::Array variants;
    for (const auto &job : jobs) {
      if (job->piece != piece)
        continue;
      FailureOr<json::Object> variant = variantEntry(*job);
      if (failed(variant))
        return failure();
      variants.push_back(std::move(*variant));
      report.seconds += job->seconds;
      // The piece is described by its variant for any size.
      if (!job->size) {
        const PieceBinary &binary =
            job->sameAs ? *job->sameAs->binary : *job->binary;
        report.kernels = binary.kernels;
        report.libraryCalls = binary.libraryCalls;
        report.source = job->origin;
        report.cacheKey = job->key.hex();
      }
    }
    report.variants = variants.size();

    json::Array args, results;
    for (Type t : piece.getArgumentTypes())
      args.push_back(valueKind(t));
    for (Type t : piece.getResultTypes())
      results.push_back(valueKind(t));
    return json::Object{{"index", int64_t(index)},
                        {"name", piece.getSymName().str()},
                        {"kind", report.kind},
                        {"graph_index", report.graphIndex < 0
                                            ? json::Value(nullptr)
                                            : json::Value(report.graphIndex)},
                        {"cuda_graph", !splitting},
                        {"args", std::move(args)},
                        {"results", std::move(results)},
                        {"variants", std::move(variants)}};
  }
};

} // namespace

LogicalResult writeArtifact(ModuleOp lowered, const TorchExportArchive *archive,
                            StringRef dir, const ArtifactOptions &options,
                            std::vector<PieceReport> &reports) {
  return ArtifactWriter(lowered, archive, dir, options).write(reports);
}

} // namespace magi
