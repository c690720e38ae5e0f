//===- Passes.h - Magi's GPU mapping passes ---------------------*- C++ -*-===//
#ifndef MAGI_GPU_PASSES_H
#define MAGI_GPU_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
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

/// True for a top-level op of a bufferized host function that must run on
/// the device: it reads or writes memory (other than allocating it or
/// describing views of it) or holds regions.
bool isDeviceWork(mlir::Operation *op);

/// True when the iterations of an elementwise `scf.parallel` can be run
/// several to a thread with every load of all of them issued before any of
/// their stores: the body has no regions and reads nothing after its first
/// store (scf.parallel's iterations are independent, so reordering across
/// iterations is allowed).
bool canRunSeveralPerThread(mlir::scf::ParallelOp loop);

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

} // namespace magi

#endif // MAGI_GPU_PASSES_H
