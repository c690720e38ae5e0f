//===- FuzzIR.cpp - magi IR: parse and verify -----------------------------===//
//
// Any text as MLIR with Magi's dialects registered (what magi-opt reads):
// it parses and verifies, or is refused with diagnostics, never crashing.
//
//===----------------------------------------------------------------------===//

#include "FuzzContext.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext *context = &magi::fuzzContext();
  // MLIR's parser reads its source as tools give it: null-terminated
  // (MemoryBuffer::getFile); without the terminator it reads past the end.
  std::string text(reinterpret_cast<const char *>(data), size);
  mlir::ParserConfig config(context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, config, "fuzz.mlir");
  if (module)
    (void)mlir::verify(*module);
  return 0;
}
