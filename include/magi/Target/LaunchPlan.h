//===- LaunchPlan.h - a host function as a runtime launch plan --*- C++ -*-===//
//
// After kernel outlining, a piece's host function only allocates buffers,
// describes views of them, computes sizes and launches kernels. The launch
// plan is that function written as data (docs/artifact-format.md), so an
// MLIR-free runtime can replay it for any size.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_TARGET_LAUNCHPLAN_H
#define MAGI_TARGET_LAUNCHPLAN_H

#include "magi/Runtime/Manifest.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace magi {

/// The plan of one piece variant, in the artifact's own types: `kernels`
/// (entry names in launch order, without repeats; no configuration yet),
/// `values`, `plan` and `results`. Fails with a diagnostic on a host op the
/// plan cannot express (a load, a store, a call, ...).
using LaunchPlan = runtime::Variant;

mlir::FailureOr<LaunchPlan> extractLaunchPlan(mlir::func::FuncOp host);

/// The number of library calls (`gemm` steps) in a plan.
size_t countLibraryCalls(const std::vector<runtime::PlanOp> &plan);

/// The artifact's name of an element type ("f32", "bf16", "i64", "i1"...),
/// or "" for a type it has no name for.
std::string dtypeName(mlir::Type type);

} // namespace magi

#endif // MAGI_TARGET_LAUNCHPLAN_H
