//===- GpuCompiler.h - one lowered piece to PTX and a launch plan -*- C++ -*-===//
//
// The binary phase for one piece in linalg form: bufferize, loops, kernel
// configuration, mapping to blocks and threads, outlining, then the kernels
// through NVVM to PTX and the host function into a launch plan.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_TARGET_GPUCOMPILER_H
#define MAGI_TARGET_GPUCOMPILER_H

#include "magi/Target/LaunchPlan.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace magi {

struct GpuTargetOptions {
  std::string chip = "sm_90a";
  std::string features = "+ptx80";
  unsigned optLevel = 3;
  /// The CUDA toolkit (for libdevice, which math functions need, and for
  /// ptxas); empty when none is available.
  std::string cudaPath;
  /// Threads per block (magi-choose-kernel-config's options).
  int64_t blockSize = 256;
  int64_t reductionBlockSize = 128;
  /// Matrix products as cuBLASLt calls (magi-matmul-to-library-call) rather
  /// than kernels.
  bool libraryGemm = true;
  /// Attention that fits as one tiled tensor-core kernel
  /// (magi.tiled_attention, magi-tiled-attention-to-gpu) rather than
  /// scores, softmax and products as separate kernels.
  bool tiledAttention = true;
  /// The tiled attention kernel's tiling (magi-tiled-attention-to-gpu's
  /// options): query rows a warp (16 or 32), key rows a tile (32 or 64),
  /// query fragments reloaded from shared memory per key tile.
  int64_t attentionRowsPerWarp = 0; // 0: chosen per attention
  int64_t attentionKeyRows = 64;
  bool attentionQueryInShared = false;
  /// Blocks of the attention kernel an SM must hold (0: ptxas chooses).
  int64_t attentionMinBlocksPerSM = 0;
  /// Splits over keys for few query rows (0: chosen, 1: none).
  int64_t attentionKeySplits = 0;
  /// Products of at most this many static rows as Magi's weight-streaming
  /// kernel (magi-few-row-matmul-to-gpu; 0: none), with its tiling (each 0:
  /// chosen).
  int64_t fewRowGemmRows = 16;
  int64_t fewRowGemmColumnTiles = 0;
  int64_t fewRowGemmWarps = 0;
  int64_t fewRowGemmStages = 0;
  /// Further options of the kernel passes, in pass-pipeline syntax
  /// ("magi-choose-kernel-config{max-elements-per-thread=1}
  /// magi-map-to-gpu{...}"), applied over those the fields above set: an
  /// experiment with any option of those passes needs no field of its own.
  /// Check it with checkKernelPassOptions before building a pipeline.
  std::string kernelPassOptions;
};

/// The passes kernelPassOptions may name.
std::vector<llvm::StringRef> tunableKernelPasses();
/// An error naming what is wrong with `target.kernelPassOptions` (syntax, a
/// pass it may not name or that `target`'s pipeline does not run, an option
/// that pass does not have), else success.
llvm::Error checkKernelPassOptions(const GpuTargetOptions &target);

struct CompiledPiece {
  std::string ptx;
  /// The module after kernel outlining (host function and kernels, before
  /// NVVM), as MLIR bytecode: what the cache keeps of the lowered piece.
  std::string loweredBytecode;
  LaunchPlan plan;
  /// Each kernel's configuration, by entry name ({block_size, strategy}):
  /// a JSON object for the manifest's `kernels[].config`.
  std::vector<std::pair<std::string, runtime::JsonValue>> kernelConfigs;
};

/// The plan of a compiled piece as the artifact's variant holds it: each
/// kernel with the configuration its mapping chose.
LaunchPlan planWithKernelConfigs(const CompiledPiece &compiled);

/// Registers what the GPU path needs in `registry` (NVVM target, LLVM IR
/// translations) and initializes the NVPTX backend. Call once per process.
void registerGpuCompilation(mlir::DialectRegistry &registry);

/// Loads every dialect the GPU path's passes create into `context`. Needed
/// before pieces compile on several threads (dialects must not load then).
void loadGpuCompilationDialects(mlir::MLIRContext *context,
                                const GpuTargetOptions &target);

/// The whole GPU half as one pass pipeline on a module of pieces in linalg
/// form: what compilePieceForGpu runs in stages.
void buildGpuPipeline(mlir::OpPassManager &pm, const GpuTargetOptions &target);
/// That pipeline's textual form (for the cache key: it names every pass and
/// option that shapes the code).
std::string gpuPipelineText(const GpuTargetOptions &target);
/// Registers `magi-gpu-pipeline` (magi-opt --magi-gpu-pipeline="chip=...").
void registerGpuPipeline();

/// The PTX ISA version that target features name ("+ptx80" -> "8.0"), or ""
/// when they name none.
std::string ptxISAVersion(llvm::StringRef features);

/// The path of libdevice under `cudaPath`, or "" when there is none.
std::string findLibdevice(llvm::StringRef cudaPath);

/// Compiles `piece` (a function whose body is in linalg form, as the lower
/// phase leaves it) for `target`. The function is cloned; `piece` is not
/// changed. Diagnostics name the piece.
mlir::FailureOr<CompiledPiece> compilePieceForGpu(mlir::func::FuncOp piece,
                                                  const GpuTargetOptions &target);

/// Runs ptxas on `ptx` (into temporary files) and returns the cubin, checked
/// to be a whole ELF file. Fails with a message in `error`. ptxas's warnings
/// and the performance losses it reports (C7510: wgmma serialized, say) go
/// to `warnings`, one line each, when given.
mlir::FailureOr<std::string>
assemblePtx(llvm::StringRef ptx, const GpuTargetOptions &target, std::string &error,
            llvm::SmallVectorImpl<std::string> *warnings = nullptr);

/// What is wrong with `bytes` as a cubin (not an ELF file, a section past
/// its end: a file cut short), or nothing.
std::optional<std::string> cubinDefect(llvm::StringRef bytes);

/// `ptxas --version`'s last line, or "" when there is no ptxas.
std::string ptxasVersion(llvm::StringRef cudaPath);

} // namespace magi

#endif // MAGI_TARGET_GPUCOMPILER_H
