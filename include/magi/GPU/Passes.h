//===- Passes.h - Magi's GPU mapping passes ---------------------*- C++ -*-===//
#ifndef MAGI_GPU_PASSES_H
#define MAGI_GPU_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace magi {

#define GEN_PASS_DECL
#include "magi/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "magi/GPU/Passes.h.inc"

/// The attribute on a func.call that is a library call run by the host
/// (value: the call's kind, "gemm"), and the callee of gemm calls.
inline constexpr llvm::StringLiteral kLibraryCallAttr = "magi.library";
inline constexpr llvm::StringLiteral kGemmCallee = "magi_library_gemm";

/// The attribute magi-choose-kernel-config writes and magi-map-to-gpu reads.
inline constexpr llvm::StringLiteral kKernelConfigAttr = "magi.kernel_config";

/// The first scf.if or scf.while in `root` outside any kernel body (a
/// linalg op, scf.parallel, scf.forall, tensor.generate): torch.cond or
/// while_loop, which a launch plan cannot run; null when there is none.
mlir::Operation *findHostControlFlow(mlir::Operation *root);

/// True for a top-level op of a bufferized host function that the mapping
/// passes must make device work: it reads or writes memory (other than
/// allocating it or describing views of it) or holds regions, and is not a
/// kernel already or magi.tiled_attention (which has its own pass).
bool isDeviceWork(mlir::Operation *op);

/// Whether `op` only converts an integer (index_cast, ext, bitcast): what
/// stands between a value read on the host (an integer load the function
/// returns) and its return.
bool isIntegerConversion(mlir::Operation *op);

/// True for device work the mapping passes leave as it is but that ends a
/// run of neighbouring loops (row groups, single-thread kernels, folded
/// fills): a library call, a kernel already formed (`gpu.launch`), or a
/// magi.tiled_attention (made a kernel by magi-tiled-attention-to-gpu).
bool endsLoopRun(mlir::Operation *op);

/// The buffer `v` is a view of: followed through view-like ops to the
/// value they start from (an allocation, a function argument).
mlir::Value viewedBuffer(mlir::Value v);

/// Appends the buffers (viewedBuffer) that the loads and stores nested in
/// `op` read and write; false when an op in it touches memory otherwise.
/// Ops with regions are looked into; barriers and scf.reduce touch nothing.
bool collectBufferAccesses(mlir::Operation *op,
                           llvm::SmallVectorImpl<mlir::Value> &reads,
                           llvm::SmallVectorImpl<mlir::Value> &writes);

/// Whether two buffers (viewedBuffer) may be one: a buffer the function
/// allocates is no other; anything else (the piece's arguments) may be.
bool mayBeOneBuffer(mlir::Value a, mlir::Value b);

/// True when the iterations of an elementwise `scf.parallel` can be run
/// several to a thread with every load of all of them issued before any of
/// their stores: the body has no regions and reads nothing after its first
/// store (scf.parallel's iterations are independent, so reordering across
/// iterations is allowed).
bool canRunSeveralPerThread(mlir::scf::ParallelOp loop);

/// The elements of an elementwise `scf.parallel` one 16-byte access per
/// buffer can move (W = 16 / the widest element's bytes, at least 2), when
/// every load and store streams along the last loop (its last index is
/// the last induction variable, which is used for nothing else), the other
/// ops are elementwise arithmetic, the last trip count is a static multiple
/// of W and each streamed buffer is vectorAligned. Loads that do not depend
/// on the last loop are broadcast. Bases are assumed 16-byte aligned (the runtime refuses others).
std::optional<int64_t> elementwiseVectorWidth(mlir::scf::ParallelOp loop);

/// True when every W-element run along the last dimension of a `type`
/// buffer starts W-aligned (bases are 16-byte aligned): the last stride is
/// 1, the offset and the other strides are static multiples of W (a
/// dimension of size 1, always indexed by 0, may have any stride).
bool vectorAligned(mlir::MemRefType type, int64_t width);

/// What is known of a view's layout from how the host makes it: for each
/// stride, and for the offset, a number it is a multiple of (0: it is 0).
/// A stride or offset of the type is exact; a dynamic one is followed
/// through identity layouts (row-major: the product of the static inner
/// sizes), memref.transpose, cast, subview and reinterpret_cast, and the
/// integer arithmetic that computes their operands; anything else gives 1.
struct KnownLayout {
  llvm::SmallVector<int64_t> strides;
  int64_t offset = 1;
};
KnownLayout knownLayout(mlir::Value memref);

/// vectorAligned for a buffer whose dynamic strides and offset may be known
/// from how the host makes it (knownLayout): the last stride is 1, the
/// others (but those of size-1 dimensions) and the offset known multiples
/// of W.
bool vectorAligned(mlir::Value memref, int64_t width);

/// Rewrites such a loop into one over vectors of `width` elements: its last
/// trip count divided by `width`, vector.load/vector.store (with their
/// alignment) for the streaming accesses, vector arithmetic. Replaces and
/// erases `loop`; an error at `loop` when it does not match with `width`.
mlir::FailureOr<mlir::scf::ParallelOp> vectorizeElementwise(mlir::scf::ParallelOp loop,
                                                            int64_t width);

/// A row reduction as convert-linalg-to-parallel-loops writes it: an
/// `scf.parallel` over the rows whose body is side-effect-free index work
/// and then one `scf.for` over the reduced dimension that loads an output
/// element, combines it with a value computed from the iteration, and stores
/// it back to the same place:
///   scf.for %j { %a = load %out[I]; ...; %n = combine %a, %v; store %n, %out[I] }
/// with I invariant in the loop and %v independent of %a. Such a loop can
/// run as one block per row, the threads splitting %j and combining their
/// partial results with `gpu.all_reduce` (magi-map-to-gpu's
/// `block-reduction`).
struct RowAccumulation {
  mlir::scf::ForOp loop;
  mlir::memref::LoadOp load;
  mlir::Operation *combine = nullptr;
  mlir::memref::StoreOp store;
  /// The combine's operand that is not the loaded value.
  mlir::Value value;
  mlir::gpu::AllReduceOperation kind;
  /// The combine's identity (0 for add, -inf for max, ...).
  mlir::TypedAttr identity;
  /// Every load in the loop that depends on its induction variable indexes
  /// its last dimension with it: threads that split the loop read
  /// neighbouring elements (coalesced).
  bool contiguous = false;
};
std::optional<RowAccumulation> matchRowAccumulation(mlir::scf::ParallelOp loop);

/// One loop of a row group: consecutive top-level loops over the same rows
/// that run as one kernel, one block per row, one phase after the other
/// (magi-choose-kernel-config's `row-group`; a barrier between phases).
struct RowPhase {
  enum class Kind {
    Scalar,    ///< one iteration per row (a fill of a row's result): thread 0
    Reduction, ///< a row reduction over the columns (RowAccumulation)
    Columns,   ///< one iteration per (row, column): the threads split the columns
  };
  mlir::scf::ParallelOp loop;
  Kind kind;
  std::optional<RowAccumulation> acc; ///< for a Reduction
};

/// `loop` as a phase of a group whose rows and columns are those of the row
/// reduction `anchor` (its loop's bounds, and its inner loop's): the same
/// row bounds, and either no more loops (Scalar), the same inner loop
/// (Reduction), or one more loop with the column bounds (Columns); Scalar
/// and Columns bodies have no regions and read nothing after their first
/// store.
std::optional<RowPhase> matchRowPhase(mlir::scf::ParallelOp loop,
                                      mlir::scf::ParallelOp anchor);

/// True when the phases can share blocks: every buffer a phase writes is
/// accessed by all phases through the same memref value (not another view
/// of it), with the loop's row induction variables as indices at the same
/// positions each time, so each block touches only its own rows of it.
bool rowGroupIsSafe(llvm::ArrayRef<RowPhase> phases);

/// How a row group keeps each block's row in registers: every thread owns
/// `chunks` vectors of `width` neighbouring columns (columns
/// (t + k * blockSize) * width + e), the same in every phase, so a phase
/// reads what an earlier phase of the same thread loaded or stored from
/// registers instead of memory, and moves 16 bytes per access.
struct RegisterRows {
  int64_t width;
  int64_t blockSize;
  int64_t chunks;
};

/// The register layout of a safe row group (`phases`, as
/// rowGroupIsSafe accepts them) with at most `maxThreads` threads a block,
/// or none: the columns are a static multiple of W (16 bytes over the
/// widest element a phase streams along them); every Columns phase
/// vectorizes with that W (elementwiseVectorWidth) and every Reduction
/// phase reads its columns contiguously from buffers whose offset and
/// strides are multiples of W; and the columns' W-vectors split over
/// whole warps into at most 8 a thread.
std::optional<RegisterRows> registerRows(llvm::ArrayRef<RowPhase> phases,
                                         int64_t maxThreads);

/// Matching a matrix product on buffers (magi-matmul-to-library-call,
/// magi-few-row-matmul-to-gpu). True when the body of `op` is
/// `yield out + a * b` (in either order, the inputs maybe `arith.extf`ed).
bool isMultiplyAccumulate(mlir::linalg::LinalgOp op);

/// True when `memref` holds zeros just before `point`: the last op in the
/// block that writes it is a linalg.fill of zero (set in `fill`), or a copy
/// from a buffer that holds zeros then. Ops in between may read it; any
/// other use makes the answer no.
bool holdsZeros(mlir::Operation *point, mlir::Value memref,
                mlir::linalg::FillOp &fill, unsigned depth = 0);

/// What a product's new executor (a library call, a kernel) writes: `c`,
/// or, for a bf16/f16 product into a fresh f32 `c` that nothing but an
/// elementwise rounding back to `inputType` reads afterwards, that
/// rounding's fresh buffer (its allocation moved above the product; the
/// executor rounds once, as the two ops did); and the fill of `c` that only
/// the product read (`fill`, as holdsZeros found it), dead once it is
/// replaced. `inputs` are the product's inputs (the rounding's buffer must
/// not be one of theirs).
struct ProductOutput {
  mlir::Value target;
  mlir::linalg::GenericOp rounding;
  mlir::linalg::FillOp deadFill;
};
ProductOutput claimProductOutput(mlir::linalg::LinalgOp product, mlir::Value c,
                                 mlir::Type inputType, mlir::ValueRange inputs,
                                 mlir::linalg::FillOp fill);

/// Erases `product` once its new executor is in place, and the rounding and
/// dead fill `output` names (the rounding is added to `erased`: a later
/// candidate of the caller's walk must not be visited).
void eraseReplacedProduct(mlir::linalg::LinalgOp product, const ProductOutput &output,
                          llvm::SmallPtrSetImpl<mlir::Operation *> &erased);

/// Erases fills and copies into local buffers that nothing reads.
void eraseWritesNobodyReads(mlir::func::FuncOp func);

/// An i32 word holding two 16-bit values as the register operand
/// nvvm.mma.sync takes for `element`: the word itself for bf16, a
/// vector<2xf16> for f16.
mlir::Value mmaRegister(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value word, mlir::Type element);

/// acc += A * B for one PTX `mma.sync` m16n8k16 tile, `element` (f16 or
/// bf16) in and f32 accumulated: A four registers and B two (as
/// mmaRegister makes them), acc four f32 values, replaced by the results.
void mmaM16N8K16(mlir::OpBuilder &b, mlir::Location loc, mlir::Type element,
                 llvm::ArrayRef<mlir::Value> a, llvm::ArrayRef<mlir::Value> bRegs,
                 llvm::MutableArrayRef<mlir::Value> acc);

/// Whether `kernel` starts by waiting for the previous grid
/// (magi-wait-for-previous-grid): it may be launched programmatically.
bool waitsForPreviousGrid(mlir::gpu::GPUFuncOp kernel);

} // namespace magi

#endif // MAGI_GPU_PASSES_H
