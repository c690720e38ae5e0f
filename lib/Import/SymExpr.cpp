//===- SymExpr.cpp - torch.export's symbolic size expressions -------------===//

#include "magi/Import/SymExpr.h"
#include "llvm/ADT/StringExtras.h"

namespace magi {

using llvm::StringRef;

std::optional<SymExpr> SymExprParser::parse() {
  std::optional<SymExpr> e = parseExpr();
  skipSpace();
  if (!e || pos != text.size())
    return std::nullopt;
  return e;
}

void SymExprParser::skipSpace() {
  while (pos < text.size() && text[pos] == ' ')
    ++pos;
}

bool SymExprParser::consume(char c) {
  skipSpace();
  if (pos < text.size() && text[pos] == c) {
    ++pos;
    return true;
  }
  return false;
}

llvm::StringRef SymExprParser::identifier() {
  skipSpace();
  size_t start = pos;
  while (pos < text.size() && (llvm::isAlnum(text[pos]) || text[pos] == '_'))
    ++pos;
  return text.slice(start, pos);
}

std::optional<int64_t> SymExprParser::integer() {
  skipSpace();
  size_t start = pos;
  if (pos < text.size() && text[pos] == '-')
    ++pos;
  while (pos < text.size() && llvm::isDigit(text[pos]))
    ++pos;
  int64_t v;
  if (text.slice(start, pos).getAsInteger(10, v))
    return std::nullopt;
  return v;
}

std::optional<std::string> SymExprParser::quoted() {
  skipSpace();
  if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
    return std::nullopt;
  char q = text[pos++];
  size_t start = pos;
  while (pos < text.size() && text[pos] != q)
    ++pos;
  if (pos >= text.size())
    return std::nullopt;
  return text.slice(start, pos++).str();
}

// Skips `key=value` keyword arguments (assumptions such as positive=True).
bool SymExprParser::skipKeyword() {
  size_t save = pos;
  StringRef key = identifier();
  if (!key.empty() && consume('=')) {
    identifier();
    return true;
  }
  pos = save;
  return false;
}

std::optional<SymExpr> SymExprParser::parseExpr() {
  if (depth >= kMaxDepth) {
    depthExceeded = true;
    return std::nullopt;
  }
  ++depth;
  std::optional<SymExpr> e = parseTerm();
  --depth;
  return e;
}

std::optional<SymExpr> SymExprParser::parseTerm() {
  skipSpace();
  if (pos < text.size() && (llvm::isDigit(text[pos]) || text[pos] == '-')) {
    std::optional<int64_t> v = integer();
    if (!v)
      return std::nullopt;
    SymExpr e;
    e.value = *v;
    return e;
  }
  StringRef fn = identifier();
  if (fn.empty())
    return std::nullopt;
  if (!consume('(')) {
    // A bare name is a symbol (older serializations write `s0`).
    SymExpr e;
    e.kind = SymExpr::Symbol;
    e.name = fn.str();
    return e;
  }
  SymExpr e;
  if (fn == "Symbol") {
    std::optional<std::string> name = quoted();
    if (!name)
      return std::nullopt;
    e.kind = SymExpr::Symbol;
    e.name = *name;
    while (consume(','))
      if (!skipKeyword())
        return std::nullopt;
  } else if (fn == "Integer") {
    std::optional<int64_t> v = integer();
    if (!v)
      return std::nullopt;
    e.value = *v;
  } else {
    e.kind = SymExpr::Call;
    e.name = fn.str();
    if (!consume(')')) {
      do {
        if (skipKeyword())
          continue;
        std::optional<SymExpr> arg = parseExpr();
        if (!arg)
          return std::nullopt;
        e.args.push_back(std::move(*arg));
      } while (consume(','));
    } else {
      return e;
    }
  }
  if (!consume(')'))
    return std::nullopt;
  return e;
}

} // namespace magi
