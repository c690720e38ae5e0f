//===- InitAllDialects.h - Dialects a Magi tool registers -------*- C++ -*-===//
#ifndef MAGI_INITALLDIALECTS_H
#define MAGI_INITALLDIALECTS_H

#include "mlir/IR/DialectRegistry.h"

namespace magi {
/// Registers the magi dialect and the upstream dialects Magi's pipeline uses
/// (func, arith, math, tensor, linalg, scf, memref, bufferization, gpu, nvvm,
/// llvm, affine, vector), with their interface models.
void registerAllDialects(mlir::DialectRegistry &registry);
} // namespace magi

#endif // MAGI_INITALLDIALECTS_H
