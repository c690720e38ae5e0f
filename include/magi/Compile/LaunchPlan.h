//===- LaunchPlan.h - a host function as a runtime launch plan --*- C++ -*-===//
//
// After kernel outlining, a piece's host function only allocates buffers,
// describes views of them, computes sizes and launches kernels. The launch
// plan is that function written as data (docs/artifact-format.md), so an
// MLIR-free runtime can replay it for any size.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_COMPILE_LAUNCHPLAN_H
#define MAGI_COMPILE_LAUNCHPLAN_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/JSON.h"

namespace magi {

/// The plan of one piece variant: `values`, `plan` and `results` of the
/// artifact format. Fails with a diagnostic on a host op the plan cannot
/// express (a load, a store, a call, ...).
struct LaunchPlan {
  llvm::json::Array values;
  llvm::json::Array steps;
  llvm::json::Array results;
  /// Kernel entry names, in launch order, without repeats.
  std::vector<std::string> kernels;
  /// Library calls (gemm steps).
  size_t libraryCalls = 0;
};

mlir::FailureOr<LaunchPlan> extractLaunchPlan(mlir::func::FuncOp host);

/// The number of library calls (`gemm` steps) in a plan's `steps`, as the
/// manifest or a cache entry holds them.
size_t countLibraryCalls(const llvm::json::Array &steps);

/// The artifact's name of an element type ("f32", "bf16", "i64", "i1"...),
/// or "" for a type it has no name for.
std::string dtypeName(mlir::Type type);

} // namespace magi

#endif // MAGI_COMPILE_LAUNCHPLAN_H
