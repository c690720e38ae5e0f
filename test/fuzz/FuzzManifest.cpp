//===- FuzzManifest.cpp - magi-run's manifest parser ----------------------===//
//
// Any text as manifest.json: it must parse or be refused with a
// RuntimeError, never crash; what parses prints and reads back the same,
// and its shape expressions evaluate or are refused.
//
//===----------------------------------------------------------------------===//

#include "magi/Runtime/Manifest.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace magi::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  Manifest manifest;
  try {
    manifest = parseManifest(text, "manifest.json");
  } catch (const RuntimeError &) {
    return 0;
  }
  std::string printed = printManifest(manifest);
  try {
    if (printManifest(parseManifest(printed, "printed")) != printed)
      std::abort(); // what magi-compile writes must read back
  } catch (const RuntimeError &) {
    std::abort();
  }
  auto lookup = [](const std::string &name) -> std::optional<int64_t> {
    return int64_t(name.size()) * 7 - 3;
  };
  for (const GraphInput &input : manifest.graph.inputs)
    for (const Expr &size : input.shape) {
      try {
        size.evaluate(lookup, input.name);
      } catch (const RuntimeError &) {
      }
    }
  return 0;
}
