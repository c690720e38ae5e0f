//===- CacheKey.cpp - Keys of the compile cache ---------------------------===//

#include "magi/Cache/CacheKey.h"
#include "magi/Support/Version.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/SHA256.h"

using namespace magi::cache;

// Bump when the serialization below changes: old entries then miss instead of
// being matched under a different meaning.
static constexpr llvm::StringLiteral kKeySchema = "magi-cache-key-v1";

static constexpr llvm::StringLiteral kFactorNames[] = {
    "piece_ir",      "pipeline_options",
    "target_chip",   "target_features",
    "ptx_isa",       "magi_version",
    "llvm_version",  "ptxas_version",
    "runtime_shape", "salt"};

std::string magi::cache::sha256Hex(llvm::StringRef data) {
  std::array<uint8_t, 32> digest =
      llvm::SHA256::hash(llvm::arrayRefFromStringRef(data));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

std::string magi::cache::blake3Hex(llvm::StringRef data) {
  return llvm::toHex(llvm::BLAKE3::hash<32>(llvm::arrayRefFromStringRef(data)),
                     /*LowerCase=*/true);
}

std::optional<CacheKey> CacheKey::fromHex(llvm::StringRef hex) {
  if (hex.size() != 64)
    return std::nullopt;
  for (char c : hex)
    if (!llvm::isDigit(c) && !(c >= 'a' && c <= 'f'))
      return std::nullopt;
  return CacheKey(hex.str());
}

CacheKeyFactors CacheKeyFactors::forThisBuild() {
  CacheKeyFactors factors;
  factors.magiVersion = magi::getMagiVersion();
  factors.llvmVersion = magi::getLLVMVersion();
  return factors;
}

llvm::ArrayRef<llvm::StringLiteral> CacheKeyFactors::factorNames() {
  return kFactorNames;
}

// The field of each factor, in the order of kFactorNames.
static std::string CacheKeyFactors::*const kFactorFields[] = {
    &CacheKeyFactors::pieceIR,      &CacheKeyFactors::pipelineOptions,
    &CacheKeyFactors::targetChip,   &CacheKeyFactors::targetFeatures,
    &CacheKeyFactors::ptxISA,       &CacheKeyFactors::magiVersion,
    &CacheKeyFactors::llvmVersion,  &CacheKeyFactors::ptxasVersion,
    &CacheKeyFactors::runtimeShape, &CacheKeyFactors::salt};
static_assert(std::size(kFactorNames) == std::size(kFactorFields));

std::string *CacheKeyFactors::field(llvm::StringRef name) {
  for (auto [factorName, member] : llvm::zip_equal(kFactorNames, kFactorFields))
    if (factorName == name)
      return &(this->*member);
  return nullptr;
}

KeyFactorList CacheKeyFactors::canonical() const {
  KeyFactorList list;
  // The IR enters by its digest so that a manifest can record every factor
  // compactly and still recompute the key.
  for (auto [name, member] : llvm::zip_equal(kFactorNames, kFactorFields)) {
    const std::string &value = this->*member;
    if (member == &CacheKeyFactors::pieceIR)
      list.push_back({name.str(), "sha256:" + sha256Hex(value)});
    else
      list.push_back({name.str(), value});
  }
  return list;
}

CacheKey CacheKeyFactors::computeKey(const KeyFactorList &canonicalFactors) {
  // Length-prefixed fields: no value can be confused with a separator.
  llvm::SHA256 hasher;
  hasher.update(kKeySchema);
  hasher.update("\n");
  for (const KeyFactor &factor : canonicalFactors) {
    hasher.update(factor.name);
    hasher.update("=" + std::to_string(factor.value.size()) + ":");
    hasher.update(factor.value);
    hasher.update("\n");
  }
  std::array<uint8_t, 32> digest = hasher.final();
  return CacheKey(llvm::toHex(digest, /*LowerCase=*/true));
}

CacheKey CacheKeyFactors::computeKey() const { return computeKey(canonical()); }

std::string CacheKeyFactors::describe(const KeyFactorList &canonicalFactors) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (const KeyFactor &factor : canonicalFactors) {
    os << "  " << factor.name << ": ";
    if (factor.value.empty())
      os << "(empty)";
    else
      os << "'" << factor.value << "'";
    os << "\n";
  }
  return text;
}

std::string CacheKeyFactors::describe() const {
  std::string text = describe(canonical());
  text += "  (piece_ir is " + std::to_string(pieceIR.size()) + " bytes)\n";
  return text;
}
