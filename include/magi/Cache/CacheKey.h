//===- CacheKey.h - Keys of the compile cache -------------------*- C++ -*-===//
//
// A compiled piece is cached under the SHA-256 of everything that decides
// what the compiler produces for it, and of nothing else: not the cache path,
// not the time, not the machine. `CacheKeyFactors` holds those inputs;
// `computeKey()` hashes a canonical serialization of them. See docs/cache.md.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_CACHE_CACHEKEY_H
#define MAGI_CACHE_CACHEKEY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace magi::cache {

/// A cache key: the SHA-256 of the canonical key factors, as 64 lowercase hex
/// digits. Default-constructed keys are invalid (empty).
class CacheKey {
public:
  CacheKey() = default;
  /// Accepts exactly 64 lowercase hex digits; anything else is std::nullopt.
  static std::optional<CacheKey> fromHex(llvm::StringRef hex);

  const std::string &hex() const { return hex_; }
  /// The first 16 digits, for messages.
  llvm::StringRef shortHex() const {
    return llvm::StringRef(hex_).take_front(16);
  }
  bool isValid() const { return !hex_.empty(); }

  bool operator==(const CacheKey &other) const { return hex_ == other.hex_; }
  bool operator!=(const CacheKey &other) const { return hex_ != other.hex_; }
  bool operator<(const CacheKey &other) const { return hex_ < other.hex_; }

private:
  explicit CacheKey(std::string hex) : hex_(std::move(hex)) {}
  friend class CacheKeyFactors;
  std::string hex_;
};

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os, const CacheKey &k) {
  return os << k.hex();
}

/// One factor in canonical form: its name and the value that enters the key
/// (the piece IR enters as "sha256:<digest>", everything else verbatim).
struct KeyFactor {
  std::string name;
  std::string value;
  bool operator==(const KeyFactor &other) const {
    return name == other.name && value == other.value;
  }
};
using KeyFactorList = std::vector<KeyFactor>;

/// Everything a compiled piece depends on. All fields are plain strings so
/// that the cache does not depend on the compiler's data structures; the
/// caller renders them (the IR printed without locations, the pipeline
/// options as the pipeline prints them, ...).
class CacheKeyFactors {
public:
  /// The piece's IR as text, printed without locations.
  std::string pieceIR;
  /// The pass pipeline and its options, as a string.
  std::string pipelineOptions;
  /// The GPU, e.g. "sm_90a".
  std::string targetChip;
  /// Target features, e.g. "+ptx85".
  std::string targetFeatures;
  /// The PTX ISA version, e.g. "8.5".
  std::string ptxISA;
  /// Magi's version with its git hash (`magi::getMagiVersion()`).
  std::string magiVersion;
  /// LLVM's version (`magi::getLLVMVersion()`).
  std::string llvmVersion;
  /// `ptxas --version`'s version; empty when no cubin is produced.
  std::string ptxasVersion;
  /// The runtime shape the piece was specialized for, or "dynamic".
  std::string runtimeShape = "dynamic";
  /// A free-form salt, to force recompilation (empty by default).
  std::string salt;

  /// Factors with Magi's and LLVM's versions filled in from this build.
  static CacheKeyFactors forThisBuild();

  /// The names of the factors, in key order.
  static llvm::ArrayRef<llvm::StringLiteral> factorNames();
  /// The factor `name`'s field, or nullptr for an unknown name.
  std::string *field(llvm::StringRef name);

  /// The factors in canonical form, in key order.
  KeyFactorList canonical() const;
  /// SHA-256 of the canonical serialization.
  CacheKey computeKey() const;
  /// The key of factors already in canonical form (as an entry's manifest
  /// records them): the same as `computeKey()` of the factors they came from.
  static CacheKey computeKey(const KeyFactorList &canonicalFactors);
  /// One "name: value" line per factor, for --explain.
  std::string describe() const;
  static std::string describe(const KeyFactorList &canonicalFactors);
};

/// SHA-256 of `data` as 64 lowercase hex digits.
std::string sha256Hex(llvm::StringRef data);
/// Lower-case hex BLAKE3 (256-bit) of `data`: the cache's file checksums.
std::string blake3Hex(llvm::StringRef data);

} // namespace magi::cache

#endif // MAGI_CACHE_CACHEKEY_H
