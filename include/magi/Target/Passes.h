//===- Passes.h - The binary phase's passes ---------------------*- C++ -*-===//
#ifndef MAGI_TARGET_PASSES_H
#define MAGI_TARGET_PASSES_H

#include "magi/Target/LaunchPlan.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include <functional>

namespace magi {

#define GEN_PASS_DECL
#include "magi/Target/Passes.h.inc"

/// The function attributes the binary phase writes.
inline constexpr llvm::StringLiteral kLaunchPlanAttr = "magi.launch_plan";
inline constexpr llvm::StringLiteral kPtxAttr = "magi.ptx";

/// Receives each plan magi-extract-launch-plan reads, typed, with the host
/// function it is of: how a driver takes the plans without reading JSON.
using LaunchPlanSink = std::function<void(mlir::func::FuncOp, LaunchPlan)>;
std::unique_ptr<mlir::Pass> createExtractLaunchPlan(LaunchPlanSink sink);

#define GEN_PASS_REGISTRATION
#include "magi/Target/Passes.h.inc"

} // namespace magi

#endif // MAGI_TARGET_PASSES_H
