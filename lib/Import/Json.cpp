//===- Json.cpp - JSON parsing with a nesting limit -----------------------===//

#include "magi/Import/Json.h"

namespace magi {

llvm::Error checkJsonDepth(llvm::StringRef text, unsigned maxDepth) {
  // Brackets inside strings do not nest; a backslash escapes the next
  // character. Unbalanced brackets are left to the parser to report.
  unsigned depth = 0;
  bool inString = false;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "nests arrays and objects deeper than " + llvm::Twine(maxDepth) +
                " levels (at byte " + llvm::Twine(i) + ")");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return llvm::Error::success();
}

llvm::Expected<llvm::json::Value> parseJson(llvm::StringRef text,
                                            unsigned maxDepth) {
  if (llvm::Error deep = checkJsonDepth(text, maxDepth))
    return std::move(deep);
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  if (!value)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "is not valid JSON: " +
                                       llvm::toString(value.takeError()));
  return value;
}

} // namespace magi
