//===- Json.h - JSON parsing with a nesting limit ---------------*- C++ -*-===//
//
// llvm::json::parse recurses once per nested array or object, so a document
// nested a hundred thousand deep overflows the stack. Files that Magi reads
// (archive entries, tensor descriptions) are checked by a linear scan first.
// llvm::json suits small documents only: every object is a DenseMap of at
// least 64 buckets (about 4 KB), so torch.export's model.json is read with
// nlohmann::json instead (lib/Import).
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_IMPORT_JSON_H
#define MAGI_IMPORT_JSON_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace magi {

/// The deepest nesting of arrays and objects Magi parses. torch.export's
/// documents nest about 10 deep.
inline constexpr unsigned kMaxJsonDepth = 512;

/// An error when `text` nests arrays and objects deeper than `maxDepth`
/// (found without recursing): "nests arrays and objects deeper than 512
/// levels (at byte N)".
llvm::Error checkJsonDepth(llvm::StringRef text,
                           unsigned maxDepth = kMaxJsonDepth);

/// Parses `text` as JSON; an error when it nests arrays and objects deeper
/// than `maxDepth` (found without recursing) or is not valid JSON. The
/// error's message reads after the file's name: "nests arrays and objects
/// deeper than 512 levels (at byte N)", "is not valid JSON: ...".
llvm::Expected<llvm::json::Value> parseJson(llvm::StringRef text,
                                            unsigned maxDepth = kMaxJsonDepth);

} // namespace magi

#endif // MAGI_IMPORT_JSON_H
