//===- GpuCompiler.cpp - one lowered piece to PTX and a launch plan -------===//

#include "magi/Target/GpuCompiler.h"
#include "magi/Support/FileIO.h"
#include "magi/GPU/Passes.h"
#include "magi/Conversion/Passes.h"
#include "magi/Target/Passes.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace mlir;

namespace magi {

void registerGpuCompilation(DialectRegistry &registry) {
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  // convert-gpu-to-nvvm lowers every other dialect through these.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
}

std::string ptxISAVersion(StringRef features) {
  StringRef isa = features.rsplit("ptx").second;
  if (isa.size() < 2)
    return "";
  return (isa.drop_back() + "." + isa.take_back()).str();
}

std::string findLibdevice(StringRef cudaPath) {
  if (cudaPath.empty())
    return "";
  SmallString<256> path(cudaPath);
  llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
  return llvm::sys::fs::exists(path) ? path.str().str() : "";
}

namespace {

// "PASS{OPTIONS} PASS{OPTIONS} ..." as (pass, options) pairs.
llvm::Expected<SmallVector<std::pair<StringRef, StringRef>>>
splitKernelPassOptions(StringRef text) {
  SmallVector<std::pair<StringRef, StringRef>> entries;
  for (text = text.ltrim(); !text.empty(); text = text.ltrim()) {
    size_t open = text.find('{');
    StringRef name = text.take_front(open).rtrim();
    if (open == StringRef::npos || name.empty() || name.contains(' '))
      return llvm::createStringError(
          "kernel pass options: expected PASS{OPTIONS}, found '" + text + "'");
    // Options may hold braces of their own (list options): find the match.
    size_t depth = 0, close = open;
    for (; close < text.size(); ++close) {
      if (text[close] == '{')
        ++depth;
      else if (text[close] == '}' && --depth == 0)
        break;
    }
    if (close == text.size())
      return llvm::createStringError("kernel pass options: no '}' closes '" +
                                     name + "{'");
    entries.push_back({name, text.slice(open + 1, close).trim()});
    text = text.drop_front(close + 1);
  }
  return entries;
}

// Sets `options` ("a=1 b=2") on `pass`; the parser's message on failure.
llvm::Error setPassOptions(Pass &pass, StringRef options) {
  std::string error;
  if (failed(pass.initializeOptions(options, [&](const Twine &message) {
        error = message.str();
        return failure();
      })))
    return llvm::createStringError("kernel pass options of '" + pass.getArgument() +
                                   "': " + error);
  return llvm::Error::success();
}

// The passes kernelPassOptions may name, by their argument.
struct TunablePass {
  StringRef name;
  std::unique_ptr<Pass> (*create)();
};
const TunablePass kTunablePasses[] = {
    {"magi-few-row-matmul-to-gpu", [] { return createFewRowMatmulToGPU(); }},
    {"magi-choose-kernel-config", [] { return createChooseKernelConfig(); }},
    {"magi-map-to-gpu", [] { return createMapToGPU(); }},
    {"magi-tiled-attention-to-gpu", [] { return createTiledAttentionToGPU(); }},
};

// `pass` with the options kernelPassOptions gives it (none: as it is).
std::unique_ptr<Pass> withKernelPassOptions(std::unique_ptr<Pass> pass,
                                            const GpuTargetOptions &target) {
  if (target.kernelPassOptions.empty())
    return pass;
  auto entries = splitKernelPassOptions(target.kernelPassOptions);
  if (!entries)
    llvm::report_fatal_error(entries.takeError());
  for (auto [name, options] : *entries)
    if (name == pass->getArgument())
      if (llvm::Error error = setPassOptions(*pass, options))
        llvm::report_fatal_error(std::move(error)); // checkKernelPassOptions was not called
  return pass;
}

void addMappingPasses(OpPassManager &pm, const GpuTargetOptions &target) {
  pm.addPass(createMagiBufferize());
  pm.addPass(createCanonicalizerPass());
  OpPassManager &fn = pm.nest<func::FuncOp>();
  // index_put's loop (scf.forall) as a parallel loop: mapped like any other.
  fn.addPass(createForallToParallelLoopPass());
  if (target.fewRowGemmRows > 0) {
    FewRowMatmulToGPUOptions fewRows;
    fewRows.maxRows = target.fewRowGemmRows;
    fewRows.columnTiles = target.fewRowGemmColumnTiles;
    fewRows.warps = target.fewRowGemmWarps;
    fewRows.stages = target.fewRowGemmStages;
    fn.addPass(withKernelPassOptions(createFewRowMatmulToGPU(fewRows), target));
  }
  if (target.libraryGemm)
    fn.addPass(createMatmulToLibraryCall());
  fn.addPass(createConvertLinalgToParallelLoopsPass());
  fn.addPass(createCanonicalizerPass());
  // Each linalg op bufferized its own memref.dim; moving a row phase across
  // others (earlier-row-phases) compares their row bounds as values, so
  // those must be one.
  fn.addPass(createCSEPass());
  ChooseKernelConfigOptions config;
  config.blockSize = target.blockSize;
  config.reductionBlockSize = target.reductionBlockSize;
  fn.addPass(withKernelPassOptions(createChooseKernelConfig(config), target));
  fn.addPass(withKernelPassOptions(createMapToGPU(), target));
  fn.addPass(createFuseLaunches());
  // Last before outlining: no canonicalization hoists the kernel's
  // constants out of its launch.
  TiledAttentionToGPUOptions attention;
  attention.rowsPerWarp = target.attentionRowsPerWarp;
  attention.keyRows = target.attentionKeyRows;
  attention.queryInShared = target.attentionQueryInShared;
  attention.minBlocksPerSM = target.attentionMinBlocksPerSM;
  attention.keySplits = target.attentionKeySplits;
  // sm_90a is the target with Hopper's arch-specific instructions.
  attention.warpgroupMma = target.chip == "sm_90a";
  // Without tiled attention the lowering makes no magi.tiled_attention.
  if (target.tiledAttention)
    fn.addPass(withKernelPassOptions(createTiledAttentionToGPU(attention), target));
}

// Whether `chip` ("sm_90", "sm_90a", ...) is of compute capability
// `major`.0 or later.
bool chipAtLeast(StringRef chip, unsigned major) {
  unsigned version = 0;
  if (!chip.consume_front("sm_") || chip.consumeInteger(10, version))
    return false;
  return version >= major * 10;
}

void addOutliningPasses(OpPassManager &pm, const GpuTargetOptions &target) {
  // Upstream outlining, keeping the launches' launch bounds.
  pm.addPass(createOutlineKernels());
  // Hopper's programmatic dependent launch (griddepcontrol, sm_90 on).
  if (chipAtLeast(target.chip, 9))
    pm.addPass(createWaitForPreviousGrid());
  OpPassManager &fn = pm.nest<func::FuncOp>();
  fn.addPass(createExpandShapesToCasts());
  fn.addPass(memref::createExpandStridedMetadataPass());
  fn.addPass(createLowerAffinePass());
  fn.addPass(createCanonicalizerPass());
  fn.addPass(createCSEPass());
}

void addNVVMPasses(OpPassManager &pm, const GpuTargetOptions &target) {
  std::string libdevice = findLibdevice(target.cudaPath);
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createExpandShapesToCasts());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  {
    arith::ArithIntRangeNarrowingOptions narrowing;
    narrowing.bitwidthsSupported = {32};
    kernels.addPass(arith::createArithIntRangeNarrowing(narrowing));
  }
  kernels.addPass(arith::createArithExpandOpsPass());
  kernels.addPass(createSCFToControlFlowPass());
  // Tensor-core fragments, ldmatrix and cp.async (tiled attention).
  kernels.addPass(createConvertNVGPUToNVVMPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.indexBitwidth = 64;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  GpuNVVMAttachTargetOptions attach;
  attach.chip = target.chip;
  attach.features = target.features;
  attach.optLevel = target.optLevel;
  if (!libdevice.empty())
    attach.linkLibs.push_back(libdevice);
  pm.addPass(createGpuNVVMAttachTarget(attach));
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  binary.toolkitPath = target.cudaPath;
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

LogicalResult runPasses(ModuleOp module, StringRef what,
                        function_ref<void(PassManager &)> build) {
  PassManager pm(module.getContext());
  build(pm);
  if (succeeded(pm.run(module)))
    return success();
  return module.emitError() << "the " << what << " passes failed";
}

} // namespace

void buildGpuPipeline(OpPassManager &pm, const GpuTargetOptions &target) {
  addMappingPasses(pm, target);
  addOutliningPasses(pm, target);
  pm.addPass(createExtractLaunchPlan());
  addNVVMPasses(pm, target);
}

std::vector<StringRef> tunableKernelPasses() {
  std::vector<StringRef> names;
  for (const TunablePass &pass : kTunablePasses)
    names.push_back(pass.name);
  return names;
}

llvm::Error checkKernelPassOptions(const GpuTargetOptions &target) {
  auto entries = splitKernelPassOptions(target.kernelPassOptions);
  if (!entries)
    return entries.takeError();
  if (entries->empty())
    return llvm::Error::success();
  // The tunable passes the mapping passes for `target` run, read off their
  // printed pipeline (each prints as `name{options}`).
  GpuTargetOptions plain = target;
  plain.kernelPassOptions.clear();
  OpPassManager mapping(ModuleOp::getOperationName(), OpPassManager::Nesting::Implicit);
  addMappingPasses(mapping, plain);
  std::string text;
  llvm::raw_string_ostream os(text);
  mapping.printAsTextualPipeline(os);
  llvm::StringSet<> runs;
  for (const TunablePass &pass : kTunablePasses)
    if (StringRef(text).contains((pass.name + "{").str()))
      runs.insert(pass.name);
  for (auto [name, options] : *entries) {
    const TunablePass *tunable = llvm::find_if(
        kTunablePasses, [&](const TunablePass &pass) { return pass.name == name; });
    if (tunable == std::end(kTunablePasses))
      return llvm::createStringError("kernel pass options: '" + name + "' is not one of " +
                                     llvm::join(tunableKernelPasses(), ", "));
    // Options of a pass this pipeline leaves out would do nothing.
    if (!runs.contains(name))
      return llvm::createStringError(
          "kernel pass options: '" + name +
          "' is not in the pipeline these options build (few-row-gemm-rows=0 "
          "leaves out the few-row products, no tiled attention the tiled attention)");
    if (llvm::Error error = setPassOptions(*tunable->create(), options))
      return error;
  }
  return llvm::Error::success();
}

std::string gpuPipelineText(const GpuTargetOptions &target) {
  OpPassManager pm(ModuleOp::getOperationName(),
                   OpPassManager::Nesting::Implicit);
  buildGpuPipeline(pm, target);
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return text;
}

namespace {
struct GpuPipelineCliOptions : public PassPipelineOptions<GpuPipelineCliOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("GPU architecture (sm_90a: with Hopper's "
                                          "warpgroup products in tiled attention)"),
                           llvm::cl::init("sm_90a")};
  Option<std::string> features{*this, "features",
                               llvm::cl::desc("PTX features (sm_90 needs +ptx80 or later)"),
                               llvm::cl::init("+ptx80")};
  Option<unsigned> optLevel{*this, "opt-level", llvm::cl::desc("NVPTX optimization level"),
                            llvm::cl::init(3)};
  Option<std::string> cudaPath{*this, "cuda-path",
                               llvm::cl::desc("CUDA toolkit (libdevice; ptxas for cubins)"),
                               llvm::cl::init("")};
  Option<int64_t> blockSize{*this, "block-size",
                            llvm::cl::desc("Threads per block, elementwise kernels"),
                            llvm::cl::init(256)};
  Option<int64_t> reductionBlockSize{*this, "reduction-block-size",
                                     llvm::cl::desc("Threads per block, serial reductions"),
                                     llvm::cl::init(128)};
  Option<bool> libraryGemm{*this, "library-gemm",
                           llvm::cl::desc("Matrix products as cuBLASLt calls"),
                           llvm::cl::init(true)};
  Option<int64_t> attentionRowsPerWarp{
      *this, "attention-rows-per-warp",
      llvm::cl::desc("Tiled attention: query rows a warp (16 or 32; 0: the "
                     "tiling chosen per attention)"),
      llvm::cl::init(0)};
  Option<int64_t> attentionKeyRows{
      *this, "attention-key-rows",
      llvm::cl::desc("Tiled attention: key rows a tile (32 or 64)"),
      llvm::cl::init(64)};
  Option<bool> attentionQueryInShared{
      *this, "attention-query-in-shared",
      llvm::cl::desc("Tiled attention: query fragments from shared memory "
                     "for every key tile"),
      llvm::cl::init(false)};
  Option<int64_t> attentionMinBlocksPerSM{
      *this, "attention-min-blocks-per-sm",
      llvm::cl::desc("Tiled attention: blocks an SM must hold at once (0: "
                     "ptxas chooses)"),
      llvm::cl::init(0)};
  Option<int64_t> attentionKeySplits{
      *this, "attention-key-splits",
      llvm::cl::desc("Tiled attention: splits over keys for few query rows "
                     "(0: chosen, 1: none)"),
      llvm::cl::init(0)};
  Option<int64_t> fewRowGemmRows{
      *this, "few-row-gemm-rows",
      llvm::cl::desc("Products of at most this many static rows as one "
                     "weight-streaming tensor-core kernel (0: none)"),
      llvm::cl::init(16)};
  Option<int64_t> fewRowGemmColumnTiles{
      *this, "few-row-gemm-column-tiles",
      llvm::cl::desc("Few-row products: tiles of 8 columns a block (0: chosen)"),
      llvm::cl::init(0)};
  Option<int64_t> fewRowGemmWarps{
      *this, "few-row-gemm-warps",
      llvm::cl::desc("Few-row products: warps a block (0: chosen)"),
      llvm::cl::init(0)};
  Option<int64_t> fewRowGemmStages{
      *this, "few-row-gemm-stages",
      llvm::cl::desc("Few-row products: stages of 64 k in each warp's ring, all but one in flight (0: chosen)"),
      llvm::cl::init(0)};
  Option<std::string> kernelPassOptions{
      *this, "kernel-pass-options",
      llvm::cl::desc("Further options of the kernel passes, as "
                     "'PASS{OPTIONS} ...' (magi-compile --kernel-pass-options)"),
      llvm::cl::init("")};
};
} // namespace

void registerGpuPipeline() {
  // registerPassPipeline rather than PassPipelineRegistration: bad
  // kernel-pass-options are reported through the error handler.
  registerPassPipeline(
      "magi-gpu-pipeline",
      "Magi's GPU half for pieces in linalg form (as the lower phase leaves "
      "them): magi-bufferize, tiled attention kernels, matrix products to "
      "library calls, loops, "
      "magi-choose-kernel-config, magi-map-to-gpu, kernel outlining, "
      "magi-extract-launch-plan, NVVM with libdevice, PTX in a gpu.binary. "
      "magi-compile runs exactly this, reading the kernel configurations "
      "after the mapping.",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) -> LogicalResult {
        GpuPipelineCliOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        GpuTargetOptions target;
        target.chip = options.chip;
        target.features = options.features;
        target.optLevel = options.optLevel;
        target.cudaPath = options.cudaPath;
        target.blockSize = options.blockSize;
        target.reductionBlockSize = options.reductionBlockSize;
        target.libraryGemm = options.libraryGemm;
        target.attentionRowsPerWarp = options.attentionRowsPerWarp;
        target.attentionKeyRows = options.attentionKeyRows;
        target.attentionQueryInShared = options.attentionQueryInShared;
        target.attentionMinBlocksPerSM = options.attentionMinBlocksPerSM;
        target.attentionKeySplits = options.attentionKeySplits;
        target.fewRowGemmRows = options.fewRowGemmRows;
        target.fewRowGemmColumnTiles = options.fewRowGemmColumnTiles;
        target.fewRowGemmWarps = options.fewRowGemmWarps;
        target.fewRowGemmStages = options.fewRowGemmStages;
        target.kernelPassOptions = options.kernelPassOptions;
        if (llvm::Error error = checkKernelPassOptions(target))
          return errorHandler(llvm::toString(std::move(error)));
        buildGpuPipeline(pm, target);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> describe) {
        describe(GpuPipelineCliOptions());
      });
}

void loadGpuCompilationDialects(MLIRContext *context,
                                const GpuTargetOptions &target) {
  // Every dialect a pass of the path may create, loaded now: loading them
  // while pieces compile on several threads would race.
  DialectRegistry registry;
  PassManager pm(context);
  addLowerToLinalgPasses(pm, target.tiledAttention);
  addMappingPasses(pm, target);
  addOutliningPasses(pm, target);
  addNVVMPasses(pm, target);
  pm.getDependentDialects(registry);
  context->appendDialectRegistry(registry);
  context->loadAllAvailableDialects();
}

FailureOr<CompiledPiece> compilePieceForGpu(func::FuncOp piece,
                                            const GpuTargetOptions &target) {
  MLIRContext *ctx = piece.getContext();
  OpBuilder builder(ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(piece.getLoc());
  auto clone = cast<func::FuncOp>(builder.clone(*piece));
  clone.setPublic();
  // Attributes of the graph (piece index, ...) have no meaning below.
  module->getBody()->push_back(clone);
  auto fail = [&](const Twine &stage) {
    return piece.emitError() << "piece @" << piece.getSymName()
                             << " failed in " << stage;
  };

  CompiledPiece compiled;
  // Bufferized, then loops, configured and mapped to blocks and threads.
  if (failed(runPasses(*module, "mapping", [&](PassManager &pm) {
        addMappingPasses(pm, target);
      })))
    return fail("bufferization and mapping to threads");

  module->walk([&](gpu::LaunchOp launch) {
    std::vector<std::pair<std::string, runtime::JsonValue>> config;
    if (auto dict =
            launch->getAttrOfType<DictionaryAttr>(kKernelConfigAttr))
      for (NamedAttribute entry : dict) {
        if (auto i = dyn_cast<IntegerAttr>(entry.getValue()))
          config.push_back({entry.getName().str(),
                            runtime::JsonValue::makeInteger(i.getInt())});
        else if (auto s = dyn_cast<StringAttr>(entry.getValue()))
          config.push_back({entry.getName().str(),
                            runtime::JsonValue::makeString(s.getValue().str())});
      }
    compiled.kernelConfigs.push_back(
        {launch.getFunction()->str(),
         runtime::JsonValue::makeObject(std::move(config))});
  });

  // Kernels out of the host function; the host function into plain index
  // arithmetic over views.
  if (failed(runPasses(*module, "outlining", [&](PassManager &pm) {
        addOutliningPasses(pm, target);
      })))
    return fail("kernel outlining");
  {
    llvm::raw_string_ostream os(compiled.loweredBytecode);
    if (failed(writeBytecodeToFile(*module, os)))
      return fail("bytecode serialization");
  }
  std::optional<LaunchPlan> plan;
  if (failed(runPasses(*module, "launch-plan", [&](PassManager &pm) {
        pm.addPass(createExtractLaunchPlan(
            [&](func::FuncOp host, LaunchPlan extracted) {
              if (host.getSymName() == clone.getSymName())
                plan = std::move(extracted);
            }));
      })) ||
      !plan)
    return fail("launch-plan extraction");
  compiled.plan = std::move(*plan);
  // The plan is the host side from here on; only the kernels go on (with
  // the library callees, which the runtime provides).
  for (auto func : llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
    func.erase();

  // Kernels to NVVM, then PTX through LLVM's NVPTX backend.
  if (failed(runPasses(*module, "NVVM", [&](PassManager &pm) {
        addNVVMPasses(pm, target);
      })))
    return fail("NVVM lowering and PTX generation");

  module->walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      if (auto obj = dyn_cast<gpu::ObjectAttr>(object))
        compiled.ptx += obj.getObject().getValue().str();
  });
  if (compiled.ptx.empty() && !compiled.plan.kernels.empty())
    return fail("PTX generation (no PTX came out)");
  // An unresolved math function would only fail at ptxas or load time.
  if (StringRef(compiled.ptx).contains(".extern .func __nv_"))
    return piece.emitError()
           << "piece @" << piece.getSymName()
           << " calls libdevice math functions, but no libdevice was "
              "found: pass the CUDA toolkit path (--cuda-path)";
  return compiled;
}

LaunchPlan planWithKernelConfigs(const CompiledPiece &compiled) {
  LaunchPlan plan = compiled.plan;
  plan.kernels.clear();
  for (const auto &[name, config] : compiled.kernelConfigs)
    plan.kernels.push_back(runtime::Kernel{name, config});
  return plan;
}

std::optional<std::string> cubinDefect(StringRef bytes) {
  llvm::Expected<llvm::object::ELF64LEFile> elf =
      llvm::object::ELF64LEFile::create(bytes);
  if (!elf)
    return llvm::toString(elf.takeError());
  auto sections = elf->sections();
  if (!sections)
    return llvm::toString(sections.takeError());
  for (const auto &section : *sections) {
    if (section.sh_type == llvm::ELF::SHT_NOBITS)
      continue;
    if (section.sh_offset > bytes.size() ||
        section.sh_size > bytes.size() - section.sh_offset)
      return "a section ends at byte " +
             std::to_string(section.sh_offset + section.sh_size) +
             ", past the end of the file (" + std::to_string(bytes.size()) +
             " bytes)";
  }
  return std::nullopt;
}

FailureOr<std::string> assemblePtx(StringRef ptx, const GpuTargetOptions &target,
                                   std::string &error,
                                   SmallVectorImpl<std::string> *warnings) {
  SmallString<256> ptxas(target.cudaPath);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  if (!llvm::sys::fs::can_execute(ptxas)) {
    error = ("no ptxas at " + ptxas).str();
    return failure();
  }
  SmallString<128> ptxPath, cubinPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("magi", "ptx", ptxPath)) {
    error = "cannot create a temporary file: " + ec.message();
    return failure();
  }
  llvm::FileRemover removePtx(ptxPath);
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("magi", "cubin", cubinPath)) {
    error = "cannot create a temporary file: " + ec.message();
    return failure();
  }
  llvm::FileRemover removeCubin(cubinPath);
  if (llvm::Error e = writeFileChecked(ptxPath, ptx)) {
    error = llvm::toString(std::move(e));
    return failure();
  }
  // ptxas's own messages go to a file, not to this process's stderr: they
  // become the error's text (several pieces compile at once, and a library
  // caller has no terminal to read).
  SmallString<128> logPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("magi", "ptxas.log", logPath)) {
    error = "cannot create a temporary file: " + ec.message();
    return failure();
  }
  llvm::FileRemover removeLog(logPath);
  std::string opt = "-O" + std::to_string(std::min(target.optLevel, 3u));
  // --split-compile 0: ptxas compiles the module's kernels on as many
  // threads as there are cores. The machine code is the same as without it
  // (scripts/compare-cubins.py: every kernel's sections, and the module's
  // attributes by symbol, are equal; only the symbol order differs).
  SmallVector<StringRef> args = {ptxas, "--gpu-name", target.chip, opt,
                                 "--split-compile", "0", ptxPath, "-o", cubinPath};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logPath),
                                          StringRef(logPath)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0,
                                     &message);
  if (rc != 0) {
    error = "ptxas failed (exit " + std::to_string(rc) + ")" +
            (message.empty() ? "" : ": " + message);
    // Its first lines name the PTX line and what is wrong with it.
    if (auto log = llvm::MemoryBuffer::getFile(logPath)) {
      SmallVector<StringRef> lines;
      (*log)->getBuffer().split(lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
      constexpr size_t kShownLines = 8;
      for (size_t i = 0; i < std::min(lines.size(), kShownLines); ++i)
        error += "\n  " + lines[i].trim().str();
      if (lines.size() > kShownLines)
        error += "\n  (" + std::to_string(lines.size() - kShownLines) + " more lines)";
    }
    return failure();
  }
  if (warnings)
    if (auto log = llvm::MemoryBuffer::getFile(logPath)) {
      SmallVector<StringRef> lines;
      (*log)->getBuffer().split(lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
      for (StringRef line : lines)
        if (line.contains("Performance Loss") || line.starts_with("ptxas warning"))
          warnings->push_back(line.trim().str());
    }
  auto cubin = llvm::MemoryBuffer::getFile(cubinPath);
  if (!cubin) {
    error = "cannot read ptxas's output '" + cubinPath.str().str() +
            "': " + cubin.getError().message();
    return failure();
  }
  // ptxas exits 0 with its output cut short when the disk is full.
  if (std::optional<std::string> defect =
          cubinDefect((*cubin)->getBuffer())) {
    error = "ptxas wrote a broken cubin (" + *defect + "); is the disk full?";
    return failure();
  }
  return (*cubin)->getBuffer().str();
}

std::string ptxasVersion(StringRef cudaPath) {
  SmallString<256> ptxas(cudaPath);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  if (cudaPath.empty() || !llvm::sys::fs::can_execute(ptxas))
    return "";
  SmallString<128> out;
  llvm::sys::fs::createTemporaryFile("magi-ptxas", "txt", out);
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(out),
                                          std::nullopt};
  SmallVector<StringRef> args = {ptxas, "--version"};
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects);
  auto buffer = llvm::MemoryBuffer::getFile(out);
  llvm::sys::fs::remove(out);
  if (rc != 0 || !buffer)
    return "";
  StringRef text = (*buffer)->getBuffer().trim();
  return text.rsplit('\n').second.empty() ? text.str()
                                          : text.rsplit('\n').second.str();
}

} // namespace magi
