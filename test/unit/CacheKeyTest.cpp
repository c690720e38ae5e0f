//===- CacheKeyTest.cpp - Compile cache keys ------------------------------===//
//
// The key is stable (a pinned value: changing the serialization must be a
// deliberate schema bump), every factor changes it, and nothing but the
// factors enters it.
//
//===----------------------------------------------------------------------===//

#include "magi/Cache/CacheKey.h"
#include "magi/Support/Version.h"
#include "llvm/ADT/StringSet.h"
#include "gtest/gtest.h"

using namespace magi::cache;

namespace {

CacheKeyFactors sampleFactors() {
  CacheKeyFactors f;
  f.pieceIR = "func.func @p(%arg0: tensor<?x64xbf16>) -> tensor<?x64xbf16> {\n"
              "  return %arg0 : tensor<?x64xbf16>\n}\n";
  f.pipelineOptions = "lower-to-nvvm{opt-level=3}";
  f.targetChip = "sm_90a";
  f.targetFeatures = "+ptx85";
  f.ptxISA = "8.5";
  f.magiVersion = "magi 0.1.0 (git 0123456789ab)";
  f.llvmVersion = "22.1.0";
  f.ptxasVersion = "12.4";
  f.runtimeShape = "dynamic";
  f.salt = "";
  return f;
}

TEST(CacheKeyTest, IsStable) {
  CacheKeyFactors f = sampleFactors();
  CacheKey key = f.computeKey();
  EXPECT_EQ(key, sampleFactors().computeKey());
  EXPECT_EQ(key.hex().size(), 64u);
  // Pinned (and recomputed independently from the serialization that
  // docs/cache.md describes): a different value means every existing cache
  // entry misses. If that is intended, bump the key schema in CacheKey.cpp.
  EXPECT_EQ(key.hex(),
            "1d974e03614de75e6835d11173f6fd7bc7158a64106b7775aee349faae0a1042");
}

TEST(CacheKeyTest, EveryFactorChangesTheKey) {
  CacheKey base = sampleFactors().computeKey();
  llvm::StringSet<> seen;
  seen.insert(base.hex());
  for (llvm::StringLiteral name : CacheKeyFactors::factorNames()) {
    CacheKeyFactors changed = sampleFactors();
    std::string *field = changed.field(name);
    ASSERT_NE(field, nullptr) << name.str();
    field->append("x");
    CacheKey key = changed.computeKey();
    EXPECT_NE(key, base) << "factor " << name.str()
                         << " does not enter the key";
    // And each factor changes it differently.
    EXPECT_TRUE(seen.insert(key.hex()).second) << name.str();
  }
  EXPECT_EQ(seen.size(), CacheKeyFactors::factorNames().size() + 1);
}

TEST(CacheKeyTest, FactorsAreNotConfusedAcrossBoundaries) {
  // Moving a character from one field to the next must change the key.
  CacheKeyFactors a = sampleFactors(), b = sampleFactors();
  a.targetChip = "sm_90";
  a.targetFeatures = "a+ptx85";
  b.targetChip = "sm_90a";
  b.targetFeatures = "+ptx85";
  EXPECT_NE(a.computeKey(), b.computeKey());
  // An empty ptxas version (no cubin) differs from any version.
  CacheKeyFactors c = sampleFactors();
  c.ptxasVersion = "";
  EXPECT_NE(c.computeKey(), sampleFactors().computeKey());
}

TEST(CacheKeyTest, CanonicalFormRecomputesTheKey) {
  CacheKeyFactors f = sampleFactors();
  KeyFactorList canonical = f.canonical();
  ASSERT_EQ(canonical.size(), CacheKeyFactors::factorNames().size());
  // The IR enters by digest, so a manifest can record it compactly.
  EXPECT_EQ(canonical[0].name, "piece_ir");
  EXPECT_EQ(canonical[0].value, "sha256:" + sha256Hex(f.pieceIR));
  EXPECT_EQ(CacheKeyFactors::computeKey(canonical), f.computeKey());
}

TEST(CacheKeyTest, DescribeListsEveryFactor) {
  CacheKeyFactors f = sampleFactors();
  std::string text = f.describe();
  for (llvm::StringLiteral name : CacheKeyFactors::factorNames())
    EXPECT_NE(text.find("  " + name.str() + ": "), std::string::npos)
        << name.str() << " missing from:\n"
        << text;
  EXPECT_NE(text.find("ptxas_version: '12.4'"), std::string::npos) << text;
  EXPECT_NE(text.find("salt: (empty)"), std::string::npos) << text;
}

TEST(CacheKeyTest, ThisBuildsVersions) {
  CacheKeyFactors f = CacheKeyFactors::forThisBuild();
  EXPECT_EQ(f.magiVersion, magi::getMagiVersion());
  EXPECT_EQ(f.llvmVersion, magi::getLLVMVersion());
  EXPECT_EQ(f.runtimeShape, "dynamic");
}

TEST(CacheKeyTest, FromHexValidates) {
  std::string hex = sampleFactors().computeKey().hex();
  ASSERT_TRUE(CacheKey::fromHex(hex).has_value());
  EXPECT_EQ(*CacheKey::fromHex(hex), sampleFactors().computeKey());
  EXPECT_FALSE(CacheKey::fromHex(hex.substr(1)));
  std::string upper = hex;
  upper[0] = 'A';
  EXPECT_FALSE(CacheKey::fromHex(upper));
  EXPECT_FALSE(CacheKey::fromHex(std::string(64, 'g')));
  EXPECT_FALSE(CacheKey().isValid());
}

TEST(CacheKeyTest, Sha256MatchesKnownVector) {
  // FIPS 180-2 test vector.
  EXPECT_EQ(sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

} // namespace
