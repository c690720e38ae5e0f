//===- Manifest.h - entry.json and index.json -------------------*- C++ -*-===//
//
// Internal to lib/Cache: the JSON files of the store, written and read back
// strictly (anything unexpected is damage, not something to guess at).
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_LIB_CACHE_MANIFEST_H
#define MAGI_LIB_CACHE_MANIFEST_H

#include "magi/Cache/CacheStore.h"
#include "llvm/Support/JSON.h"

namespace magi::cache::detail {

inline constexpr llvm::StringLiteral kManifestName = "entry.json";
inline constexpr llvm::StringLiteral kIndexName = "index.json";

struct ManifestFile {
  std::string name;
  uint64_t size = 0;
  std::string checksum; // BLAKE3, hex
};

struct Manifest {
  std::string key;
  KeyFactorList factors;
  std::vector<ManifestFile> files;
};

/// entry.json: format, version, key, factors (canonical), files.
std::string renderManifest(llvm::StringRef key, const KeyFactorList &factors,
                           llvm::ArrayRef<ManifestFile> files);
llvm::Expected<Manifest> parseManifest(llvm::StringRef text);

/// index.json: the model's identity and its records.
std::string renderIndex(const ModelIndex &index);
llvm::Expected<ModelIndex> parseIndex(llvm::StringRef text);

} // namespace magi::cache::detail

#endif // MAGI_LIB_CACHE_MANIFEST_H
