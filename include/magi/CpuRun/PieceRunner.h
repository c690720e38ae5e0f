//===- PieceRunner.h - Run lowered pieces on the CPU ------------*- C++ -*-===//
//
// Checks the lower phase end to end: a piece function is cloned into a module
// of its own, taken through the lower phase (linalg on tensors), bufferized
// and lowered to LLVM with upstream passes, JIT-compiled with MLIR's
// ExecutionEngine and called on the interpreter's tensors. magi-interp's
// `--lowered-pieces` runs every piece of a split graph this way while it
// interprets the split graph itself, so the outputs compare the lowering with
// the reference interpreter.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_CPURUN_PIECERUNNER_H
#define MAGI_CPURUN_PIECERUNNER_H

#include "magi/Interp/Tensor.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include <memory>

namespace magi::cpurun {

/// Compiles piece functions for the host CPU, each once, and runs them.
class PieceRunner {
public:
  /// Registers what the CPU lowering needs in `context` (bufferization
  /// models, LLVM conversion interfaces and translations) and initializes the
  /// native target. With `tiledAttention` (as magi-compile lowers for the
  /// GPU), attention that fits the tiled kernel becomes magi.tiled_attention
  /// and runs as the kernel's algorithm in loops
  /// (magi-tiled-attention-to-loops); without it, the six generics.
  explicit PieceRunner(mlir::MLIRContext *context, bool tiledAttention = true);
  ~PieceRunner();

  /// Runs `piece` on `args` (one per argument: tensors, and 0-d i64 tensors
  /// for `index` scalars) and returns its results as contiguous tensors.
  /// The first call compiles the piece. The interpreter runs the piece first
  /// (the lowered code checks no index, size or shape): arguments it
  /// refuses are not run lowered, and lowered results must have the shapes
  /// it gives. Fails with a diagnostic naming the piece when it cannot be
  /// lowered or compiled, when `args` do not match its signature, or in
  /// those two cases.
  mlir::FailureOr<llvm::SmallVector<interp::Tensor>>
  run(mlir::func::FuncOp piece, llvm::ArrayRef<interp::Tensor> args);

private:
  struct CompiledPiece;
  mlir::FailureOr<CompiledPiece *> getOrCompile(mlir::func::FuncOp piece);

  llvm::DenseMap<mlir::Operation *, std::unique_ptr<CompiledPiece>> compiled;
  bool tiledAttention;
};

} // namespace magi::cpurun

#endif // MAGI_CPURUN_PIECERUNNER_H
