//===- SymExpr.h - torch.export's symbolic size expressions -----*- C++ -*-===//
//
// The sizes torch.export writes as sympy `srepr` strings:
//   Symbol('s70', positive=True, integer=True), Integer(1),
//   Add(a, b, ...), Mul(a, b, ...), Mod(a, b), FloorDiv(a, b), ...
// parsed into a tree; the importer turns the affine ones into affine maps.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_IMPORT_SYMEXPR_H
#define MAGI_IMPORT_SYMEXPR_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace magi {

struct SymExpr {
  enum Kind { Symbol, Integer, Call } kind = Integer;
  std::string name; // symbol name, or function name for a call
  int64_t value = 0;
  std::vector<SymExpr> args;
};

class SymExprParser {
public:
  /// Parsing, converting and destroying an expression each recurse once per
  /// level; sizes torch.export writes nest a few levels deep.
  static constexpr unsigned kMaxDepth = 256;

  explicit SymExprParser(llvm::StringRef text) : text(text) {}

  /// The whole text as one expression; none if it is not one.
  std::optional<SymExpr> parse();
  /// True if parse() gave up because the expression nests too deeply.
  bool tooDeep() const { return depthExceeded; }

private:
  void skipSpace();
  bool consume(char c);
  llvm::StringRef identifier();
  std::optional<int64_t> integer();
  std::optional<std::string> quoted();
  bool skipKeyword();
  std::optional<SymExpr> parseExpr();
  std::optional<SymExpr> parseTerm();

  llvm::StringRef text;
  size_t pos = 0;
  unsigned depth = 0;
  bool depthExceeded = false;
};

} // namespace magi

#endif // MAGI_IMPORT_SYMEXPR_H
