//===- Maintenance.cpp - Model indexes, listing, verify, prune, clear -----===//

#include "FileUtil.h"
#include "Manifest.h"
#include "magi/Cache/CacheStore.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <mutex>

using namespace magi::cache;
using namespace magi::cache::detail;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(std::make_error_code(std::errc::io_error),
                                 message);
}

/// The names of the entries of directory `dir` (empty if it cannot be read).
static std::vector<std::string> listDirectory(const llvm::Twine &dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec))
    names.push_back(std::string(path::filename(it->path())));
  llvm::sort(names);
  return names;
}

//===----------------------------------------------------------------------===//
// Model indexes
//===----------------------------------------------------------------------===//

std::string ModelId::dirName() const {
  return tag + "-" + graphHash + "-rank" + std::to_string(rank);
}

std::string ModelId::validate() const {
  if (tag.empty() || tag.front() == '.' || !llvm::all_of(tag, [](char c) {
        return llvm::isAlnum(c) || c == '.' || c == '_' || c == '-' || c == '+';
      }))
    return "invalid model tag '" + tag +
           "': use letters, digits and . _ - +, not starting with '.'";
  if (graphHash.empty() || !llvm::all_of(graphHash, llvm::isAlnum))
    return "invalid graph hash '" + graphHash + "': use letters and digits";
  return "";
}

static std::string describeRecord(const IndexRecord &record) {
  return "graph " + std::to_string(record.graphIndex) + " shape " +
         record.runtimeShape + " backend " + record.backend + " -> " +
         record.path;
}

llvm::Expected<ModelIndex> CacheStore::readIndexDir(llvm::StringRef dirName) {
  std::string file =
      absolute("models/" + dirName.str() + "/" + kIndexName.str());
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer) {
    if (buffer.getError() == std::errc::no_such_file_or_directory)
      return ModelIndex();
    return makeError("cannot read '" + file +
                     "': " + buffer.getError().message());
  }
  llvm::Expected<ModelIndex> index = parseIndex((*buffer)->getBuffer());
  if (!index)
    return makeError("'" + file +
                     "' is damaged: " + llvm::toString(index.takeError()));
  if (index->model.dirName() != dirName)
    return makeError("'" + file + "' is the index of '" +
                     index->model.dirName() + "'");
  return index;
}

llvm::Expected<ModelIndex> CacheStore::readIndex(const ModelId &model) {
  std::string invalid = model.validate();
  if (!invalid.empty())
    return makeError(invalid);
  llvm::Expected<ModelIndex> index = readIndexDir(model.dirName());
  if (index && index->model.tag.empty())
    index->model = model; // No index yet.
  return index;
}

std::optional<CacheKey> CacheStore::lookupIndex(const ModelId &model,
                                                llvm::StringRef runtimeShape,
                                                int64_t graphIndex,
                                                llvm::StringRef backend) {
  if (mode_ == CacheMode::Off)
    return std::nullopt;
  llvm::Expected<ModelIndex> index = readIndex(model);
  if (!index) {
    warn(llvm::toString(index.takeError()));
    return std::nullopt;
  }
  for (const IndexRecord &record : index->records)
    if (record.runtimeShape == runtimeShape &&
        record.graphIndex == graphIndex && record.backend == backend)
      return record.key;
  return std::nullopt;
}

// POSIX record locks are per process: threads of one process are kept apart
// by this mutex instead.
static std::mutex &indexMutex() {
  static std::mutex mutex;
  return mutex;
}

std::error_code CacheStore::writeIndex(const ModelIndex &index) {
  std::string dir = absolute("models/" + index.model.dirName());
  std::string temp = dir + "/" + kIndexName.str() + ".tmp-" + uniqueSuffix();
  std::error_code ec;
  if (hooks_.beforeWrite)
    ec = hooks_.beforeWrite(temp);
  if (!ec)
    ec = writeFileDurably(temp, renderIndex(index));
  if (!ec)
    ec = fs::rename(temp, dir + "/" + kIndexName.str());
  if (ec) {
    (void)fs::remove(temp);
    return ec;
  }
  return syncDirectory(dir);
}

/// Under the index lock: removes what killed writers left.
static void removeIndexTemporaries(llvm::StringRef dir) {
  std::string prefix = kIndexName.str() + ".tmp-";
  for (const std::string &name : listDirectory(dir))
    if (llvm::StringRef(name).starts_with(prefix))
      (void)fs::remove(dir + "/" + name);
}

llvm::Error CacheStore::recordInIndex(const ModelId &model,
                                      IndexRecord record) {
  std::string invalid = model.validate();
  if (!invalid.empty())
    return makeError(invalid);
  if (!record.key.isValid())
    return makeError("cannot record an invalid key in the index");
  if (record.runtimeShape.empty() || !llvm::json::isUTF8(record.runtimeShape))
    return makeError("invalid runtime shape '" + record.runtimeShape + "'");
  if (!isValidCacheFileName(record.backend))
    return makeError("invalid backend '" + record.backend + "'");
  if (!writable())
    return llvm::Error::success();
  record.path = entryPath(record.key);

  std::string dir = absolute("models/" + model.dirName());
  auto failed = [&](const llvm::Twine &what, std::error_code ec) {
    ++counters_.storeFailures;
    return makeError("cannot update the cache index of '" + model.dirName() +
                     "': " + what + ": " + ec.message());
  };
  if (std::error_code ec = fs::create_directories(dir))
    return failed("creating '" + dir + "'", ec);
  std::lock_guard<std::mutex> guard(indexMutex());
  llvm::ErrorOr<FileLock> lock = FileLock::acquire(dir + "/index.lock");
  if (!lock)
    return failed("locking", lock.getError());
  removeIndexTemporaries(dir);

  llvm::Expected<ModelIndex> index = readIndexDir(model.dirName());
  if (!index) {
    // Only the mapping is lost: the entries are still in the store.
    warn(llvm::toString(index.takeError()) + ": starting it afresh");
    index = ModelIndex();
  }
  index->model = model;
  auto sameSlot = [&](const IndexRecord &other) {
    return other.runtimeShape == record.runtimeShape &&
           other.graphIndex == record.graphIndex &&
           other.backend == record.backend;
  };
  llvm::erase_if(index->records, sameSlot);
  index->records.push_back(record);
  llvm::sort(index->records, [](const IndexRecord &a, const IndexRecord &b) {
    return std::tie(a.graphIndex, a.runtimeShape, a.backend) <
           std::tie(b.graphIndex, b.runtimeShape, b.backend);
  });
  if (std::error_code ec = writeIndex(*index))
    return failed("writing index.json", ec);
  return llvm::Error::success();
}

std::vector<ModelIndex> CacheStore::listModels() {
  std::vector<ModelIndex> models;
  if (mode_ == CacheMode::Off)
    return models;
  for (const std::string &name : listDirectory(absolute("models"))) {
    if (!fs::is_directory(absolute("models/" + name)))
      continue;
    llvm::Expected<ModelIndex> index = readIndexDir(name);
    if (!index) {
      warn(llvm::toString(index.takeError()));
      continue;
    }
    if (index->model.tag.empty())
      continue; // A directory whose index was never written.
    models.push_back(std::move(*index));
  }
  return models;
}

unsigned
CacheStore::filterIndexes(llvm::function_ref<bool(const IndexRecord &)> keep,
                          std::vector<std::string> *dropped, bool write) {
  unsigned count = 0;
  for (const std::string &name : listDirectory(absolute("models"))) {
    std::string dir = absolute("models/" + name);
    if (!fs::is_directory(dir))
      continue;
    std::unique_lock<std::mutex> guard(indexMutex(), std::defer_lock);
    llvm::ErrorOr<FileLock> lock = std::error_code();
    if (write) {
      guard.lock();
      lock = FileLock::acquire(dir + "/index.lock");
      if (!lock) {
        warn("cannot lock the cache index of '" + name +
             "': " + lock.getError().message());
        continue;
      }
      removeIndexTemporaries(dir);
    }
    llvm::Expected<ModelIndex> index = readIndexDir(name);
    if (!index) {
      llvm::consumeError(index.takeError());
      continue; // Reported by verify as a bad index.
    }
    size_t before = index->records.size();
    std::vector<IndexRecord> kept;
    for (IndexRecord &record : index->records) {
      if (keep(record)) {
        kept.push_back(std::move(record));
        continue;
      }
      if (dropped)
        dropped->push_back(name + ": " + describeRecord(record));
    }
    count += before - kept.size();
    if (!write || kept.size() == before)
      continue;
    index->records = std::move(kept);
    if (std::error_code ec = writeIndex(*index))
      warn("cannot rewrite the cache index of '" + name + "': " + ec.message());
  }
  return count;
}

//===----------------------------------------------------------------------===//
// Listing and explaining
//===----------------------------------------------------------------------===//

std::vector<EntryInfo> CacheStore::listEntries() {
  std::vector<EntryInfo> entries;
  if (mode_ == CacheMode::Off)
    return entries;
  for (const std::string &shard : listDirectory(absolute("store"))) {
    if (shard.size() != 2)
      continue;
    for (const std::string &name : listDirectory(absolute("store/" + shard))) {
      std::optional<CacheKey> key = CacheKey::fromHex(name);
      if (!key || name.compare(0, 2, shard) != 0)
        continue;
      EntryInfo info;
      info.key = *key;
      info.path = entryPath(*key);
      std::string dir = absolute(info.path);
      fs::file_status status;
      if (fs::status(dir, status) || !fs::is_directory(status))
        continue;
      info.lastUse = status.getLastModificationTime();
      for (const std::string &file : listDirectory(dir)) {
        uint64_t size = 0;
        if (!fs::file_size(dir + "/" + file, size))
          info.bytes += size;
      }
      entries.push_back(std::move(info));
    }
  }
  return entries;
}

llvm::Expected<KeyFactorList> CacheStore::readFactors(const CacheKey &key) {
  std::string file = absolute(entryPath(key) + "/" + kManifestName.str());
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError("cannot read '" + file +
                     "': " + buffer.getError().message());
  llvm::Expected<Manifest> manifest = parseManifest((*buffer)->getBuffer());
  if (!manifest)
    return makeError("'" + file +
                     "' is damaged: " + llvm::toString(manifest.takeError()));
  return manifest->factors;
}

/// A factor's value for a message: quoted, long ones cut.
static std::string showValue(llvm::StringRef value) {
  if (value.empty())
    return "(empty)";
  if (value.size() > 80)
    return "'" + value.take_front(77).str() + "...'";
  return "'" + value.str() + "'";
}

std::string CacheStore::explainMiss(const CacheKeyFactors &factors) {
  KeyFactorList wanted = factors.canonical();
  CacheKey wantedKey = CacheKeyFactors::computeKey(wanted);
  std::optional<EntryInfo> best;
  KeyFactorList bestFactors;
  unsigned bestEqual = 0;
  for (EntryInfo &info : listEntries()) {
    if (info.key == wantedKey)
      continue;
    llvm::Expected<KeyFactorList> stored = readFactors(info.key);
    if (!stored) {
      llvm::consumeError(stored.takeError());
      continue;
    }
    unsigned equal = 0;
    for (auto [a, b] : llvm::zip_equal(wanted, *stored))
      equal += a == b;
    // Most equal factors; among those, the most recently used.
    if (!best || equal > bestEqual ||
        (equal == bestEqual && info.lastUse > best->lastUse)) {
      best = info;
      bestFactors = std::move(*stored);
      bestEqual = equal;
    }
  }
  if (!best)
    return "the cache holds no entry to compare with";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "closest entry " << best->path << " has " << bestEqual << " of "
     << wanted.size() << " key factors equal; differs in ";
  bool first = true;
  for (auto [a, b] : llvm::zip_equal(wanted, bestFactors)) {
    if (a == b)
      continue;
    os << (first ? "" : "; ") << a.name << " (wanted " << showValue(a.value)
       << ", entry has " << showValue(b.value) << ")";
    first = false;
  }
  return text;
}

//===----------------------------------------------------------------------===//
// Verify, prune, clear, stats
//===----------------------------------------------------------------------===//

VerifyReport CacheStore::verify(bool fix) {
  using Status = ReadResult::Status;
  VerifyReport report;
  if (mode_ == CacheMode::Off)
    return report;
  bool remove = fix && writable();
  llvm::StringSet<> valid;
  for (const EntryInfo &info : listEntries()) {
    ReadResult result = readEntry(info.key, /*loadData=*/false);
    if (result.status == Status::Missing)
      continue; // Removed meanwhile.
    ++report.entriesChecked;
    if (result.status == Status::Valid) {
      valid.insert(info.key.hex());
      continue;
    }
    if (result.status == Status::Unreadable) {
      report.damaged.push_back({info.path, result.why + " (left in place)"});
      continue;
    }
    report.damaged.push_back({info.path, result.why});
    if (remove)
      if (std::error_code ec = discard(absolute(info.path), "damaged"))
        warn("cannot remove " + info.path + ": " + ec.message());
  }

  for (const std::string &name : listDirectory(absolute("models"))) {
    if (!fs::is_directory(absolute("models/" + name)))
      continue;
    llvm::Expected<ModelIndex> index = readIndexDir(name);
    if (index)
      continue;
    report.badIndexes.push_back({"models/" + name + "/" + kIndexName.str(),
                                 llvm::toString(index.takeError())});
    // Only a mapping is lost: the entries stay, and the next store of the
    // model rebuilds its index.
    if (remove)
      (void)fs::remove(absolute("models/" + name + "/" + kIndexName.str()));
  }
  filterIndexes(
      [&](const IndexRecord &record) {
        return valid.contains(record.key.hex());
      },
      &report.danglingRecords, remove);
  report.staleTemporaries = scanTemporaries(remove);
  report.fixed = remove;
  return report;
}

llvm::Expected<PruneReport> CacheStore::prune(uint64_t maxBytes) {
  if (!writable())
    return makeError("cannot prune the cache at '" + root_ + "': it is " +
                     stringifyCacheMode(mode_) +
                     (requestedMode_ == CacheMode::ReadWrite
                          ? " (the directory cannot be written)"
                          : ""));
  PruneReport report;
  std::vector<EntryInfo> entries = listEntries();
  for (const EntryInfo &info : entries)
    report.bytesBefore += info.bytes;
  // Least recently used first; the key breaks ties so the order is stable.
  llvm::sort(entries, [](const EntryInfo &a, const EntryInfo &b) {
    return std::tie(a.lastUse, a.key) < std::tie(b.lastUse, b.key);
  });
  uint64_t total = report.bytesBefore;
  for (const EntryInfo &info : entries) {
    if (total <= maxBytes)
      break;
    if (std::error_code ec = discard(absolute(info.path), "pruned")) {
      warn("cannot remove " + info.path + ": " + ec.message());
      continue;
    }
    total -= info.bytes;
    report.removed.push_back(info);
  }
  report.bytesAfter = total;
  report.indexRecordsDropped = filterIndexes(
      [&](const IndexRecord &record) {
        return fs::exists(absolute(record.path));
      },
      nullptr, /*write=*/true);
  report.staleTemporariesRemoved = scanTemporaries(/*remove=*/true).size();
  return report;
}

llvm::Expected<ClearReport> CacheStore::clear() {
  if (!writable())
    return makeError("cannot clear the cache at '" + root_ + "': it is " +
                     stringifyCacheMode(mode_) +
                     (requestedMode_ == CacheMode::ReadWrite
                          ? " (the directory cannot be written)"
                          : ""));
  ClearReport report;
  for (const EntryInfo &info : listEntries()) {
    ++report.entries;
    report.entryBytes += info.bytes;
  }
  for (const std::string &name : listDirectory(absolute("models")))
    report.models += fs::is_directory(absolute("models/" + name));
  // Renamed away whole, then recreated empty; writers still at work in tmp/
  // keep their temporaries (and will store into the new store).
  for (llvm::StringRef sub : {"store", "models"}) {
    std::string dir = absolute(sub);
    if (!fs::exists(dir))
      continue;
    if (std::error_code ec = discard(dir, "cleared"))
      return makeError("cannot remove '" + dir + "': " + ec.message());
    if (std::error_code ec = fs::create_directories(dir))
      return makeError("cannot recreate '" + dir + "': " + ec.message());
  }
  report.temporaries = scanTemporaries(/*remove=*/true).size();
  return report;
}

StoreStats CacheStore::stats() {
  StoreStats stats;
  if (mode_ == CacheMode::Off)
    return stats;
  for (const EntryInfo &info : listEntries()) {
    ++stats.entries;
    stats.entryBytes += info.bytes;
    // Every file but the manifest.
    size_t files = listDirectory(absolute(info.path)).size();
    stats.files += files > 0 ? files - 1 : 0;
    if (!stats.oldestUse || info.lastUse < *stats.oldestUse)
      stats.oldestUse = info.lastUse;
    if (!stats.newestUse || info.lastUse > *stats.newestUse)
      stats.newestUse = info.lastUse;
  }
  for (const ModelIndex &index : listModels()) {
    ++stats.models;
    stats.indexRecords += index.records.size();
  }
  for (const std::string &name : listDirectory(absolute("tmp"))) {
    llvm::StringRef n(name);
    stats.temporaries += !n.ends_with(".lock") && !n.ends_with(".prelock");
  }
  return stats;
}
