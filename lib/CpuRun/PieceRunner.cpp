//===- PieceRunner.cpp - Run lowered pieces on the CPU --------------------===//
//
// A piece is compiled in two steps: the lower phase (magi to linalg on
// tensors), then upstream bufferization and conversion to LLVM. It is called
// through ExecutionEngine's packed interface, every argument expanded as
// convert-to-llvm expands it: a memref as its allocated and aligned
// pointers, offset, sizes and strides.
//
//===----------------------------------------------------------------------===//

#include "magi/CpuRun/PieceRunner.h"
#include "magi/Interp/Interpreter.h"
#include "magi/Interp/Numerics.h"
#include "magi/Pipeline/Pipeline.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"
#include <cstdlib>
#include <cstring>

using namespace mlir;
using magi::interp::Tensor;

namespace magi::cpurun {

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

// The bf16 nearest to `value` (nearest-even, as PyTorch rounds), returned as
// a float holding its bits in the low 16 bits: a bf16 result travels in the
// low 16 bits of xmm0, where a float's bits go.
static float bf16BitsAsFloat(double value) {
  uint32_t bits = interp::roundToBF16(value);
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}
static float truncF32ToBF16(float value) { return bf16BitsAsFloat(value); }
static float truncF64ToBF16(double value) { return bf16BitsAsFloat(value); }

// Functions the compiled pieces call that the process does not export by
// itself.
static llvm::orc::SymbolMap
getRuntimeSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap symbols;
  auto add = [&](StringRef name, auto *function) {
    symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                               llvm::JITSymbolFlags::Exported};
  };
  // LLVM lowers conversions to bf16 on x86 without native bf16 to these
  // helpers, which libgcc before GCC 13 lacks.
  add("__truncsfbf2", &truncF32ToBF16);
  add("__truncdfbf2", &truncF64ToBF16);
  return symbols;
}

namespace {
// memref.copy between memrefs that are not both contiguous becomes a
// linalg.copy, which convert-linalg-to-loops turns into loops; contiguous
// copies stay and become memcpy. Otherwise convert-to-llvm calls MLIR's
// runtime function memrefCopy, whose shared library links the shared
// libMLIR.so: the portable release, with MLIR linked in statically, would
// load a second copy of MLIR and LLVM.
struct StridedCopiesToLinalgPass
    : PassWrapper<StridedCopiesToLinalgPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(StridedCopiesToLinalgPass)
  StringRef getArgument() const override {
    return "magi-strided-copies-to-linalg";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect>();
  }
  void runOnOperation() override {
    auto contiguous = [](Type type) {
      auto memref = cast<MemRefType>(type);
      return memref.getLayout().isIdentity() ||
             (memref.hasStaticShape() &&
              memref::isStaticShapeAndContiguousRowMajor(memref));
    };
    getOperation().walk([&](memref::CopyOp copy) {
      if (contiguous(copy.getSource().getType()) &&
          contiguous(copy.getTarget().getType()))
        return;
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    });
  }
};

// The CPU run executes scf.parallel loops one iteration after another
// (scf-to-cf makes them serial loops), so a generic atomic update (a float
// scatter product's compare-and-swap) is its body between a load and a
// store. Rewritten before buffer deallocation, which refuses region ops
// that do not describe their control flow.
struct SerialAtomicUpdatesPass
    : PassWrapper<SerialAtomicUpdatesPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SerialAtomicUpdatesPass)
  StringRef getArgument() const override { return "magi-serial-atomic-updates"; }
  void runOnOperation() override {
    getOperation().walk([](memref::GenericAtomicRMWOp update) {
      OpBuilder b(update);
      Location loc = update.getLoc();
      Value current = memref::LoadOp::create(b, loc, update.getMemref(), update.getIndices());
      IRMapping map;
      map.map(update.getCurrentValue(), current);
      Block *body = update.getBody();
      for (Operation &op : body->without_terminator())
        b.clone(op, map);
      auto yield = cast<memref::AtomicYieldOp>(body->getTerminator());
      Value next = map.lookupOrDefault(yield.getResult());
      memref::StoreOp::create(b, loc, next, update.getMemref(), update.getIndices());
      update.getResult().replaceAllUsesWith(current);
      update.erase();
    });
  }
};
// The bound a magi.item's lowering leaves on its function's result is for
// a launch plan; the CPU run reads the value directly, and LLVM has no use
// for the attribute.
struct DropReadBoundsPass : PassWrapper<DropReadBoundsPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DropReadBoundsPass)
  StringRef getArgument() const override { return "magi-drop-read-bounds"; }
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
      for (StringRef name : {kReadBoundAttr, kReadAnyValueAttr, kReadClampedAttr})
        func.removeResultAttr(i, StringAttr::get(&getContext(), name));
  }
};
} // namespace

// Bufferization and conversion to LLVM with upstream passes.
static void addCpuLoweringPasses(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // A while_loop's body yields new tensors, not its arguments updated in
  // place.
  bufferize.allowReturnAllocsFromLoops = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Tiled attention as the GPU kernel's algorithm in loops, before the
  // deallocation pipeline frees its split buffers.
  pm.addNestedPass<func::FuncOp>(createTiledAttentionToLoops());
  pm.addNestedPass<func::FuncOp>(std::make_unique<SerialAtomicUpdatesPass>());
  bufferization::buildBufferDeallocationPipeline(
      pm, bufferization::BufferDeallocationPipelineOptions());
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addNestedPass<func::FuncOp>(std::make_unique<StridedCopiesToLinalgPass>());
  pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addNestedPass<func::FuncOp>(std::make_unique<DropReadBoundsPass>());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

// A module holding a copy of `piece` alone, public, its arguments read-only
// (bufferization copies rather than write into the caller's tensors) and
// without magi's attributes.
static OwningOpRef<ModuleOp> clonePieceIntoModule(func::FuncOp piece) {
  OwningOpRef<ModuleOp> module = ModuleOp::create(piece.getLoc());
  auto clone = cast<func::FuncOp>(piece->clone());
  clone->setDiscardableAttrs(DictionaryAttr::get(piece.getContext()));
  clone.removeArgAttrsAttr();
  clone.removeResAttrsAttr();
  clone.setPublic();
  for (unsigned i = 0, e = clone.getNumArguments(); i < e; ++i)
    if (isa<TensorType>(clone.getArgumentTypes()[i]))
      clone.setArgAttr(i,
                       bufferization::BufferizationDialect::kWritableAttrName,
                       BoolAttr::get(piece.getContext(), false));
  module->push_back(clone);
  return module;
}

struct PieceRunner::CompiledPiece {
  std::unique_ptr<ExecutionEngine> engine;
  std::string name;
  // The functions the piece calls outside itself (libm, runtime helpers), for
  // the message when one cannot be found.
  std::string externalFunctions;
};

PieceRunner::PieceRunner(MLIRContext *context, bool tiledAttention)
    : tiledAttention(tiledAttention) {
  // Bufferization models (registered with the dialects) and convert-to-llvm
  // interfaces (the extensions) of every dialect a lowered piece may hold.
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  context->appendDialectRegistry(registry);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
}

PieceRunner::~PieceRunner() = default;

FailureOr<PieceRunner::CompiledPiece *>
PieceRunner::getOrCompile(func::FuncOp piece) {
  auto found = compiled.find(piece);
  if (found != compiled.end())
    return found->second.get();
  auto fail = [&](StringRef step) {
    return piece.emitError("piece @")
           << piece.getName() << " failed to " << step << " for the CPU run";
  };

  OwningOpRef<ModuleOp> module = clonePieceIntoModule(piece);
  PassManager lower(piece.getContext());
  addLowerToLinalgPasses(lower, tiledAttention);
  if (failed(lower.run(*module)))
    return fail("lower to linalg");
  PassManager toLLVM(piece.getContext());
  addCpuLoweringPasses(toLLVM);
  if (failed(toLLVM.run(*module)))
    return fail("lower to LLVM");

  std::string externalFunctions;
  for (auto func : module->getOps<LLVM::LLVMFuncOp>())
    if (func.isExternal())
      externalFunctions +=
          (externalFunctions.empty() ? "" : ", ") + func.getName().str();

  auto transformer = makeOptimizingTransformer(/*optLevel=*/2, /*sizeLevel=*/0,
                                               /*targetMachine=*/nullptr);
  ExecutionEngineOptions options;
  options.transformer = transformer;
  llvm::Expected<std::unique_ptr<ExecutionEngine>> engine =
      ExecutionEngine::create(*module, options);
  if (!engine) {
    std::string message = llvm::toString(engine.takeError());
    return fail("compile") << ": " << message;
  }
  (*engine)->registerSymbols(getRuntimeSymbols);
  auto entry = std::make_unique<CompiledPiece>();
  entry->engine = std::move(*engine);
  entry->name = piece.getName().str();
  entry->externalFunctions = std::move(externalFunctions);
  return (compiled[piece] = std::move(entry)).get();
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

// The dtype a scalar of type `type` is passed as (index as i64).
static Type scalarDtype(Type type) {
  return type.isIndex() ? IntegerType::get(type.getContext(), 64) : type;
}

// Appends `arg` as the lowered function takes it: a tensor as a memref
// descriptor over its storage, a scalar in one word (little-endian, so the
// low bytes hold a narrower one).
static void appendArgument(const Tensor &arg, Type type,
                           SmallVectorImpl<int64_t> &words) {
  if (!isa<RankedTensorType>(type)) {
    int64_t word = 0;
    std::memcpy(&word, arg.getBytes().data(), arg.getElementSize());
    words.push_back(word);
    return;
  }
  auto data = reinterpret_cast<int64_t>(arg.getBytes().data());
  words.append({data, data, /*offset=*/0});
  llvm::append_range(words, arg.getShape());
  llvm::append_range(words, interp::getContiguousStrides(arg.getShape()));
}

// The size in bytes of a result of type `type` in the struct the lowered
// function returns: a memref descriptor, or a scalar (aligned to its size).
static int64_t resultFieldSize(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return (3 + 2 * tensor.getRank()) * 8;
  return interp::getElementSize(*interp::getElementKind(scalarDtype(type)));
}

// A contiguous copy of the memref described at `fields` (allocated and
// aligned pointers, offset, sizes, strides) with elements of `dtype`.
static Tensor readMemRef(const int64_t *fields, Type dtype, int64_t rank) {
  ArrayRef<int64_t> sizes(fields + 3, rank), strides(fields + 3 + rank, rank);
  Tensor result(dtype, sizes);
  unsigned elementSize = result.getElementSize();
  const char *base = reinterpret_cast<const char *>(fields[1]);
  MutableArrayRef<char> out = result.getMutableBytes();
  SmallVector<int64_t> index(rank, 0);
  for (int64_t i = 0, e = result.getNumElements(); i < e; ++i) {
    int64_t offset = fields[2];
    for (int64_t d = 0; d < rank; ++d)
      offset += index[d] * strides[d];
    std::memcpy(out.data() + i * elementSize, base + offset * elementSize,
                elementSize);
    // Row-major increment of the multi-index.
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == sizes[d]; --d)
      index[d] = 0;
  }
  return result;
}

// memref.get_global gives constants this allocated pointer: nothing to free.
static constexpr int64_t kGlobalMemRefSentinel = 0xdeadbeef;

FailureOr<SmallVector<Tensor>> PieceRunner::run(func::FuncOp piece,
                                                ArrayRef<Tensor> args) {
  if (failed(interp::checkArguments(piece, args)))
    return failure();
  // The lowered code checks no index, size or shape: arguments the
  // interpreter refuses (an index out of range, inconsistent sizes) would
  // make it read or write anywhere. So the interpreter runs the piece
  // first; only what it accepts runs lowered, and the lowered results must
  // have its shapes.
  FailureOr<SmallVector<Tensor>> reference = interp::interpret(piece, args);
  if (failed(reference))
    return piece.emitError("piece @")
           << piece.getName()
           << " was not run lowered: the interpreter refuses its arguments";
  FailureOr<CompiledPiece *> compiledPiece = getOrCompile(piece);
  if (failed(compiledPiece))
    return failure();
  CompiledPiece &callee = **compiledPiece;
  for (Type type : piece.getResultTypes())
    if (!isa<RankedTensorType>(type) &&
        !interp::getElementKind(scalarDtype(type)))
      return piece.emitError("piece @")
             << piece.getName() << " returns a " << type
             << ", which the CPU run cannot read back";

  SmallVector<int64_t> argWords;
  for (auto [arg, type] : llvm::zip(args, piece.getArgumentTypes()))
    appendArgument(arg, type, argWords);

  // Results come back as the fields of one struct (one value alone is
  // stored the same way), each aligned to its size, pointers to 8 bytes.
  SmallVector<int64_t> resultOffsets;
  int64_t resultBytes = 0;
  for (Type type : piece.getResultTypes()) {
    int64_t size = resultFieldSize(type);
    resultBytes = llvm::alignTo(resultBytes, std::min<int64_t>(size, 8));
    resultOffsets.push_back(resultBytes);
    resultBytes += size;
  }
  SmallVector<int64_t> resultWords(llvm::divideCeil(resultBytes, 8), 0);

  SmallVector<void *> packed;
  for (int64_t &word : argWords)
    packed.push_back(&word);
  if (!resultWords.empty())
    packed.push_back(resultWords.data());
  if (llvm::Error error = callee.engine->invokePacked(callee.name, packed)) {
    std::string message = llvm::toString(std::move(error));
    InFlightDiagnostic diag = piece.emitError("cannot call piece @")
                              << piece.getName() << " on the CPU: " << message;
    if (!callee.externalFunctions.empty())
      diag.attachNote() << "the piece calls " << callee.externalFunctions;
    return diag;
  }

  // Copy the results out, then free the buffers the piece allocated: each
  // once, and never the caller's tensors or constants.
  const char *resultBase = reinterpret_cast<const char *>(resultWords.data());
  SmallVector<Tensor> results;
  llvm::SmallPtrSet<void *, 8> toFree;
  for (auto [i, type, offset] :
       llvm::enumerate(piece.getResultTypes(), resultOffsets)) {
    const char *field = resultBase + offset;
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor) {
      Tensor scalar(scalarDtype(type), {});
      std::memcpy(scalar.getMutableBytes().data(), field,
                  scalar.getElementSize());
      results.push_back(std::move(scalar));
      continue;
    }
    auto fields = reinterpret_cast<const int64_t *>(field);
    ArrayRef<int64_t> sizes(fields + 3, tensor.getRank());
    if (sizes != (*reference)[i].getShape()) {
      // The buffers the piece returned are left to leak: after a wrong
      // shape nothing about them can be trusted.
      return piece.emitError("piece @")
             << piece.getName() << ", lowered, gives result " << i
             << " the shape " << interp::formatShape(sizes)
             << " where the interpreter gives "
             << interp::formatShape((*reference)[i].getShape());
    }
    results.push_back(
        readMemRef(fields, tensor.getElementType(), tensor.getRank()));
    auto allocated = reinterpret_cast<void *>(fields[0]);
    bool isArgument = llvm::any_of(args, [&](const Tensor &arg) {
      return arg.getBytes().data() == allocated;
    });
    if (allocated && fields[0] != kGlobalMemRefSentinel && !isArgument)
      toFree.insert(allocated);
  }
  for (void *buffer : toFree)
    std::free(buffer);
  return results;
}

} // namespace magi::cpurun
