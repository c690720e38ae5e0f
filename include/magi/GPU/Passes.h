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

} // namespace magi

#endif // MAGI_GPU_PASSES_H
