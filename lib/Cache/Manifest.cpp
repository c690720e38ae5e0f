//===- Manifest.cpp - entry.json and index.json ---------------------------===//

#include "Manifest.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace magi::cache;
using namespace magi::cache::detail;
namespace json = llvm::json;

// The manifest's format and the key schema change together (CacheKey.cpp),
// so an entry never holds a manifest of another version under a valid key.
static constexpr llvm::StringLiteral kManifestFormat = "magi-cache-entry";
// Version 2: file checksums are BLAKE3 ("blake3"), several times faster to
// verify than SHA-256, which a warm compile of a large model pays for.
static constexpr int64_t kManifestVersion = 2;
static constexpr llvm::StringLiteral kIndexFormat = "magi-cache-index";
static constexpr int64_t kIndexVersion = 1;

static llvm::Error bad(const llvm::Twine &message) {
  return llvm::createStringError(
      std::make_error_code(std::errc::invalid_argument), message);
}

static std::string pretty(json::Value value) {
  return llvm::formatv("{0:2}", value).str() + "\n";
}

static bool isHexDigest(llvm::StringRef text) {
  return text.size() == 64 && llvm::all_of(text, [](char c) {
           return llvm::isDigit(c) || (c >= 'a' && c <= 'f');
         });
}

std::string
magi::cache::detail::renderManifest(llvm::StringRef key,
                                    const KeyFactorList &factors,
                                    llvm::ArrayRef<ManifestFile> files) {
  json::Object factorObject;
  for (const KeyFactor &factor : factors)
    factorObject[factor.name] = factor.value;
  json::Array fileArray;
  for (const ManifestFile &file : files)
    fileArray.push_back(json::Object{{"name", file.name},
                                     {"size", static_cast<int64_t>(file.size)},
                                     {"blake3", file.checksum}});
  return pretty(json::Object{{"format", kManifestFormat},
                             {"version", kManifestVersion},
                             {"key", key},
                             {"factors", std::move(factorObject)},
                             {"files", std::move(fileArray)}});
}

llvm::Expected<Manifest>
magi::cache::detail::parseManifest(llvm::StringRef text) {
  llvm::Expected<json::Value> value = json::parse(text);
  if (!value)
    return bad("not valid JSON: " + llvm::toString(value.takeError()));
  const json::Object *root = value->getAsObject();
  if (!root)
    return bad("not a JSON object");
  if (root->getString("format") != kManifestFormat)
    return bad("'format' is not \"" + kManifestFormat + "\"");
  std::optional<int64_t> version = root->getInteger("version");
  if (!version)
    return bad("no 'version'");
  if (*version != kManifestVersion)
    return bad("version " + llvm::Twine(*version) + ", this build reads " +
               llvm::Twine(kManifestVersion));

  Manifest manifest;
  std::optional<llvm::StringRef> key = root->getString("key");
  if (!key || !isHexDigest(*key))
    return bad("no valid 'key'");
  manifest.key = key->str();

  const json::Object *factors = root->getObject("factors");
  if (!factors)
    return bad("no 'factors' object");
  for (llvm::StringLiteral name : CacheKeyFactors::factorNames()) {
    std::optional<llvm::StringRef> factor = factors->getString(name);
    if (!factor)
      return bad("factor '" + name + "' is missing");
    manifest.factors.push_back({name.str(), factor->str()});
  }
  if (factors->size() != CacheKeyFactors::factorNames().size())
    return bad("unknown factors in 'factors'");

  const json::Array *files = root->getArray("files");
  if (!files)
    return bad("no 'files' array");
  llvm::StringSet<> seen;
  for (const json::Value &fileValue : *files) {
    const json::Object *file = fileValue.getAsObject();
    if (!file)
      return bad("a file record is not an object");
    std::optional<llvm::StringRef> name = file->getString("name");
    std::optional<int64_t> size = file->getInteger("size");
    std::optional<llvm::StringRef> sha = file->getString("blake3");
    if (!name || !isValidCacheFileName(*name))
      return bad("a file record has no valid 'name'");
    if (!seen.insert(*name).second)
      return bad("file '" + *name + "' is listed twice");
    if (!size || *size < 0)
      return bad("file '" + *name + "' has no valid 'size'");
    if (!sha || !isHexDigest(*sha))
      return bad("file '" + *name + "' has no valid 'blake3'");
    manifest.files.push_back(
        {name->str(), static_cast<uint64_t>(*size), sha->str()});
  }
  return manifest;
}

std::string magi::cache::detail::renderIndex(const ModelIndex &index) {
  json::Array records;
  for (const IndexRecord &record : index.records)
    records.push_back(json::Object{{"runtime_shape", record.runtimeShape},
                                   {"graph_index", record.graphIndex},
                                   {"backend", record.backend},
                                   {"key", record.key.hex()},
                                   {"path", record.path}});
  return pretty(json::Object{{"format", kIndexFormat},
                             {"version", kIndexVersion},
                             {"model_tag", index.model.tag},
                             {"graph_hash", index.model.graphHash},
                             {"rank", static_cast<int64_t>(index.model.rank)},
                             {"entries", std::move(records)}});
}

llvm::Expected<ModelIndex>
magi::cache::detail::parseIndex(llvm::StringRef text) {
  llvm::Expected<json::Value> value = json::parse(text);
  if (!value)
    return bad("not valid JSON: " + llvm::toString(value.takeError()));
  const json::Object *root = value->getAsObject();
  if (!root)
    return bad("not a JSON object");
  if (root->getString("format") != kIndexFormat)
    return bad("'format' is not \"" + kIndexFormat + "\"");
  if (root->getInteger("version") != kIndexVersion)
    return bad("unsupported or missing 'version'");

  ModelIndex index;
  std::optional<llvm::StringRef> tag = root->getString("model_tag");
  std::optional<llvm::StringRef> graphHash = root->getString("graph_hash");
  std::optional<int64_t> rank = root->getInteger("rank");
  if (!tag || !graphHash || !rank || *rank < 0 || *rank > UINT32_MAX)
    return bad("no valid 'model_tag', 'graph_hash' and 'rank'");
  index.model = {tag->str(), graphHash->str(), static_cast<unsigned>(*rank)};
  std::string invalid = index.model.validate();
  if (!invalid.empty())
    return bad(invalid);

  const json::Array *records = root->getArray("entries");
  if (!records)
    return bad("no 'entries' array");
  for (const json::Value &recordValue : *records) {
    const json::Object *record = recordValue.getAsObject();
    if (!record)
      return bad("an entry is not an object");
    std::optional<llvm::StringRef> shape = record->getString("runtime_shape");
    std::optional<int64_t> graphIndex = record->getInteger("graph_index");
    std::optional<llvm::StringRef> backend = record->getString("backend");
    std::optional<llvm::StringRef> key = record->getString("key");
    std::optional<llvm::StringRef> entryPath = record->getString("path");
    if (!shape || !graphIndex || !backend || !key || !entryPath)
      return bad("an entry lacks one of 'runtime_shape', 'graph_index', "
                 "'backend', 'key', 'path'");
    std::optional<CacheKey> parsedKey = CacheKey::fromHex(*key);
    if (!parsedKey)
      return bad("an entry has an invalid key '" + *key + "'");
    IndexRecord parsed;
    parsed.runtimeShape = shape->str();
    parsed.graphIndex = *graphIndex;
    parsed.backend = backend->str();
    parsed.key = *parsedKey;
    parsed.path = entryPath->str();
    if (parsed.path != CacheStore::entryPath(parsed.key))
      return bad("an entry's path '" + parsed.path + "' is not its key's");
    index.records.push_back(std::move(parsed));
  }
  return index;
}
