//===- FuzzIR.cpp - magi IR: parse and verify -----------------------------===//
//
// Any text as MLIR with Magi's dialects registered (what magi-opt reads):
// it parses and verifies, or is refused with diagnostics, never crashing.
//
//===----------------------------------------------------------------------===//

#include "magi/InitAllDialects.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::MLIRContext *context = [] {
    mlir::DialectRegistry registry;
    magi::registerAllDialects(registry);
    auto *ctx = new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    // Diagnostics are the expected outcome for most inputs: dropped.
    ctx->getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
    return ctx;
  }();
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  mlir::ParserConfig config(context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, config, "fuzz.mlir");
  if (module)
    (void)mlir::verify(*module);
  return 0;
}
