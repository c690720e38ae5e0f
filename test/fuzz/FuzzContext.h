//===- FuzzContext.h - The MLIR context of the MLIR fuzz targets -*- C++ -*-===//
#ifndef MAGI_TEST_FUZZ_FUZZCONTEXT_H
#define MAGI_TEST_FUZZ_FUZZCONTEXT_H

#include "magi/InitAllDialects.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

namespace magi {

/// One context for every input (made on the first): Magi's dialects loaded,
/// one thread, diagnostics dropped (for most inputs they are the expected
/// outcome).
inline mlir::MLIRContext &fuzzContext() {
  static mlir::MLIRContext *context = [] {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    auto *ctx = new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    ctx->getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
    return ctx;
  }();
  return *context;
}

} // namespace magi

#endif // MAGI_TEST_FUZZ_FUZZCONTEXT_H
