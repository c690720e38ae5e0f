//===- Expr.h - Integer expressions of the artifact format ------*- C++ -*-===//
//
// Sizes, offsets, grids and scalar arguments in a manifest are integers or
// strings such as "arg0.d1 * 128" or "s70 ceildiv 4". They are parsed once
// when the manifest is loaded and evaluated at run time in 64-bit signed
// arithmetic with Python's floor division and modulo; a zero divisor, an
// overflow or an unknown name is an error.
//
//===----------------------------------------------------------------------===//

#ifndef MAGI_RUNTIME_EXPR_H
#define MAGI_RUNTIME_EXPR_H

#include "magi/Runtime/Json.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace magi::runtime {

struct ExprNode;

class Expr {
public:
  // Gives the value of a name, or nothing when the name is unknown.
  using NameLookup = std::function<std::optional<int64_t>(const std::string &)>;

  Expr() = default;
  static Expr constant(int64_t value);
  // Parses the grammar of docs/artifact-format.md; throws RuntimeError.
  static Expr parse(const std::string &text);
  // As parse, for callers built without exceptions (the compiler): nothing
  // on a malformed text, with the reason in `error`.
  static std::optional<Expr> tryParse(const std::string &text, std::string &error) noexcept;
  // A JSON integer or string; `where` names the field in errors.
  static Expr fromJson(const JsonValue &value, const std::string &where);
  // The manifest's form: a JSON integer when the text is one, else the text.
  JsonValue toJson() const;

  // Throws RuntimeError naming `where` on an unknown name, a zero divisor or
  // an overflow.
  int64_t evaluate(const NameLookup &lookup, const std::string &where) const;

  // Every name the expression uses, in order of appearance.
  std::vector<std::string> names() const;
  bool isConstant() const;
  // The text it was parsed from (or the integer).
  const std::string &text() const { return text_; }

private:
  std::shared_ptr<const ExprNode> root_;
  std::string text_;
};

// Python's `a // b` and `a % b`, and ceil division; b must not be 0.
int64_t floorDiv(int64_t a, int64_t b);
int64_t floorMod(int64_t a, int64_t b);
int64_t ceilDiv(int64_t a, int64_t b);

} // namespace magi::runtime

#endif // MAGI_RUNTIME_EXPR_H
