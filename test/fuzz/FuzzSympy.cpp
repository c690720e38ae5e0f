//===- FuzzSympy.cpp - the importer's sympy expression parser -------------===//
//
// Any text as a torch.export size expression (`expr_str`): it parses to a
// tree or to nothing, within the depth limit, never crashing.
//
//===----------------------------------------------------------------------===//

#include "magi/Import/SymExpr.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  magi::SymExprParser parser(text);
  std::optional<magi::SymExpr> expr = parser.parse();
  if (expr && parser.tooDeep())
    std::abort(); // a result past the depth limit
  return 0;
}
