//===- Passes.h - Magi's graph passes ---------------------------*- C++ -*-===//
#ifndef MAGI_TRANSFORMS_PASSES_H
#define MAGI_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace magi {

#define GEN_PASS_DECL
#include "magi/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "magi/Transforms/Passes.h.inc"

/// Attribute names the split writes on piece functions and their arguments.
inline constexpr llvm::StringLiteral kPieceIndexAttr = "magi.piece_index";
inline constexpr llvm::StringLiteral kGraphIndexAttr = "magi.graph_index";
inline constexpr llvm::StringLiteral kIsSplittingAttr = "magi.is_splitting";
inline constexpr llvm::StringLiteral kSymbolArgAttr = "magi.symbol";
/// Unit attribute on a function that magi-split has split into pieces.
inline constexpr llvm::StringLiteral kSplitAttr = "magi.split";
/// Unit attribute by which any op declares itself a splitting op.
inline constexpr llvm::StringLiteral kSplittingMarkerAttr = "magi.splitting";
/// Unit attribute on the symbolic arithmetic magi-split keeps in the split
/// graph for the runtime to evaluate: a runtime assertion's
/// (`magi.assert_symbolic`) and a branch's condition (graph.checks and
/// graph.branches[].condition).
inline constexpr llvm::StringLiteral kHostArithmeticAttr = "magi.host_arithmetic";
/// Unit attribute on the compare of a top-level while loop's condition with
/// 0 (magi-split): it stays in the loop's region, where the artifact's loop
/// reads it (graph.loops[].condition).
inline constexpr llvm::StringLiteral kLoopConditionAttr = "magi.loop_condition";
/// On a top-level scf.while that magi-split leaves in a piece (the CPU runs
/// it; the GPU path refuses it): why it is no loop of the runtime.
inline constexpr llvm::StringLiteral kNotARuntimeLoopAttr = "magi.not_a_runtime_loop";
/// On a top-level scf.if that magi-split leaves in a piece (the CPU runs
/// it; the GPU path refuses it): why it is no branch of the runtime.
inline constexpr llvm::StringLiteral kNotARuntimeBranchAttr = "magi.not_a_runtime_branch";
/// On a function result that is a value read from the device (magi.item):
/// its upper bound, a number or `argN` (the launch plan's `read` result).
inline constexpr llvm::StringLiteral kReadBoundAttr = "magi.read_bound";
/// Unit attribute on a magi.item without a bound whose value gives no size
/// (magi-split: it reaches only runtime assertions and the conditions of
/// branches and loops), and then on the function result returning it: the
/// value may be any integer, negative too (the launch plan's `read` result
/// without `bound`).
inline constexpr llvm::StringLiteral kReadAnyValueAttr = "magi.read_any_value";
/// Unit attribute on a function result that is a clamped magi.item's value
/// (it gives sizes only as slice bounds, which clamp it to [0, bound]): the
/// memory is planned at 0 and the bound, and any integer may be read (the
/// launch plan's `read` result with `clamped`).
inline constexpr llvm::StringLiteral kReadClampedAttr = "magi.read_clamped";

/// Specializes `func` for `symbol == value`: its declaration (a
/// magi.symbolic_int, or in a piece an argument marked `magi.symbol`)
/// becomes a constant, bound sizes become static and every result type is
/// refolded. Fails on a value outside the declared range or a conflict.
mlir::LogicalResult specializeSymbol(mlir::func::FuncOp func,
                                     llvm::StringRef symbol, int64_t value);

/// The fusions magi-fuse knows, in the order it runs them (its `enable` and
/// `disable` lists and the pipeline's `fusions` option name them).
llvm::ArrayRef<llvm::StringRef> fusionNames();

/// The splitting ops MagiCompiler splits at by default: attention.
llvm::SmallVector<std::string> defaultSplittingOps();

} // namespace magi

#endif // MAGI_TRANSFORMS_PASSES_H
