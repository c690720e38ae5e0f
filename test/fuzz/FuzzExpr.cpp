//===- FuzzExpr.cpp - magi-run's size expressions -------------------------===//
//
// Any text as a size expression (docs/artifact-format.md's grammar): it
// parses or is refused with a RuntimeError; what parses evaluates (or
// is refused: an unknown name, a zero divisor, an overflow), and reads back
// from its own text.
//
//===----------------------------------------------------------------------===//

#include "magi/Runtime/Expr.h"
#include "magi/Runtime/Json.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace magi::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  std::string error;
  std::optional<Expr> expr = Expr::tryParse(text, error);
  if (!expr)
    return 0;
  auto lookup = [](const std::string &name) -> std::optional<int64_t> {
    if (name.size() % 3 == 0)
      return std::nullopt;
    return name.size() % 2 ? INT64_MAX - int64_t(name.size()) : int64_t(name.size()) - 5;
  };
  std::optional<int64_t> value;
  try {
    value = expr->evaluate(lookup, "fuzz");
  } catch (const RuntimeError &) {
  }
  std::optional<Expr> again = Expr::tryParse(expr->text(), error);
  if (!again)
    std::abort();
  try {
    if (again->evaluate(lookup, "fuzz") != value)
      std::abort();
  } catch (const RuntimeError &) {
    if (value)
      std::abort();
  }
  return 0;
}
