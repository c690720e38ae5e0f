//===- CacheStore.h - Persistent compile cache ------------------*- C++ -*-===//
//
// A content-addressed store of compiled pieces on disk, shared by every model
// and every process that uses the same cache root:
//
//   <root>/store/<aa>/<key>/    one entry: named files + entry.json (manifest)
//   <root>/models/<tag>-<graph-hash>-rank<r>/index.json
//                               (runtime shape, graph index, backend) -> key
//   <root>/tmp/                 entries being written, entries being removed
//
// Entries are written into tmp/ and renamed into place, so a reader sees a
// whole entry or none; every read verifies every file's checksum, so a
// damaged entry is reported and dropped, never returned. docs/cache.md has
// the whole design.
//
// A CacheStore object is used by one thread at a time; any number of
// processes (and threads, each with its own CacheStore) may share a root.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_CACHE_CACHESTORE_H
#define MAGI_CACHE_CACHESTORE_H

#include "magi/Cache/CacheKey.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace magi::cache {

/// How a tool uses the cache.
enum class CacheMode {
  /// Look up, and store what was compiled (the default).
  ReadWrite,
  /// Look up only; never writes anything under the root (not even the LRU
  /// time or an index), so it works on a read-only directory.
  ReadOnly,
  /// Like ReadOnly, and a miss is an error naming the piece: for deployments
  /// that must not compile.
  MustHit,
  /// No cache: lookups miss and nothing is touched on disk.
  Off,
};

/// "readwrite", "readonly", "must-hit", "off".
std::optional<CacheMode> parseCacheMode(llvm::StringRef text);
llvm::StringRef stringifyCacheMode(CacheMode mode);

/// The cache root: `explicitDir` if non-empty, else $MAGI_CACHE_DIR if set and
/// non-empty, else ~/.cache/magi.
std::string resolveCacheRoot(llvm::StringRef explicitDir);

/// "1234", "64K", "10M", "2G", "1T" (powers of 1024; an optional trailing "B"
/// or "iB"); std::nullopt if malformed or too large.
std::optional<uint64_t> parseByteSize(llvm::StringRef text);

/// One named file of an entry. Names are [A-Za-z0-9._-]+, not starting with a
/// dot, and not "entry.json".
struct CacheFile {
  std::string name;
  std::string data;
};
bool isValidCacheFileName(llvm::StringRef name);

/// A verified entry, read whole.
struct CacheEntry {
  CacheKey key;
  /// The entry's directory, relative to the root ("store/ab/ab12...").
  std::string path;
  /// The factors the manifest records (canonical form).
  KeyFactorList factors;
  std::vector<CacheFile> files;
  /// The file `name`, or nullptr.
  const CacheFile *file(llvm::StringRef name) const;
};

/// What one CacheStore object did.
struct CacheCounters {
  uint64_t hits = 0;
  uint64_t misses = 0;
  /// Misses because the entry was damaged (counted in `misses` too).
  uint64_t damaged = 0;
  uint64_t stored = 0;
  /// Stores that found the entry already there (another process won).
  uint64_t alreadyPresent = 0;
  uint64_t storeFailures = 0;
  uint64_t bytesRead = 0;
  uint64_t bytesWritten = 0;
  void print(llvm::raw_ostream &os) const;
};

/// A model's index directory: `<tag>-<graphHash>-rank<rank>`.
struct ModelId {
  std::string tag;
  std::string graphHash;
  unsigned rank = 0;
  std::string dirName() const;
  /// Tags are [A-Za-z0-9._+-]+ not starting with '.'; graph hashes are
  /// [A-Za-z0-9]+. Returns an error message, or "" if valid.
  std::string validate() const;
};

/// One line of a model's index.
struct IndexRecord {
  /// The runtime shape or "dynamic".
  std::string runtimeShape = "dynamic";
  int64_t graphIndex = 0;
  /// E.g. "ptx", "cubin".
  std::string backend;
  CacheKey key;
  /// The entry's directory relative to the root (filled in by the store).
  std::string path;
};

struct ModelIndex {
  ModelId model;
  std::vector<IndexRecord> records;
};

enum class StoreOutcome {
  /// This call wrote the entry.
  Stored,
  /// The entry was already there, whole (same key, same content): kept.
  AlreadyPresent,
  /// The mode does not write (readonly, must-hit, off, or a read-only root).
  NotWritten,
};

/// An entry as listed (not verified).
struct EntryInfo {
  CacheKey key;
  std::string path;
  /// The size of its files, manifest included.
  uint64_t bytes = 0;
  /// The last time it was stored or hit.
  llvm::sys::TimePoint<> lastUse;
};

struct VerifyReport {
  unsigned entriesChecked = 0;
  /// (entry path, what is wrong).
  std::vector<std::pair<std::string, std::string>> damaged;
  /// Index records whose entry is missing or damaged: "<model dir>: <record>".
  std::vector<std::string> danglingRecords;
  /// Index files that cannot be read: (path, why).
  std::vector<std::pair<std::string, std::string>> badIndexes;
  /// Left-overs of writers that died, under tmp/.
  std::vector<std::string> staleTemporaries;
  /// Whether `fix` removed what was reported.
  bool fixed = false;
  /// Nothing a reader could trip over: stale temporaries are not damage (a
  /// writer killed mid-store always leaves one, and the next writer removes
  /// it).
  bool sound() const {
    return damaged.empty() && danglingRecords.empty() && badIndexes.empty();
  }
  bool clean() const { return sound() && staleTemporaries.empty(); }
};

struct PruneReport {
  std::vector<EntryInfo> removed;
  uint64_t bytesBefore = 0;
  uint64_t bytesAfter = 0;
  unsigned indexRecordsDropped = 0;
  unsigned staleTemporariesRemoved = 0;
};

struct ClearReport {
  unsigned entries = 0;
  uint64_t entryBytes = 0;
  unsigned models = 0;
  unsigned temporaries = 0;
};

struct StoreStats {
  unsigned entries = 0;
  uint64_t entryBytes = 0;
  unsigned files = 0;
  unsigned models = 0;
  unsigned indexRecords = 0;
  unsigned temporaries = 0;
  std::optional<llvm::sys::TimePoint<>> oldestUse, newestUse;
};

/// Fault injection for tests: crash and disk-full simulations.
struct CacheTestHooks {
  /// Called when half of an entry's first file has been written to the
  /// temporary directory (the test kills the process there).
  std::function<void(llvm::StringRef tempDir)> afterHalfWritten;
  /// Called before each file write under the root; a non-zero error code makes
  /// that write fail with it (e.g. ENOSPC).
  std::function<std::error_code(llvm::StringRef path)> beforeWrite;
};

class CacheStore {
public:
  /// Receives warnings: damaged entries, a root that cannot be written...
  using WarningHandler = std::function<void(const std::string &message)>;

  /// Opens the cache at `root`. In readwrite mode, creates the directories;
  /// if the root cannot be written, warns and continues read-only. Nothing is
  /// created in the other modes. Fails only on an unusable `root` argument.
  /// (What dead writers left in tmp/ is removed by the first store.)
  static llvm::Expected<std::unique_ptr<CacheStore>>
  open(llvm::StringRef root, CacheMode mode, WarningHandler onWarning = {});
  ~CacheStore();

  /// The mode asked for, and the one in effect (readonly if the root could
  /// not be written).
  CacheMode requestedMode() const { return requestedMode_; }
  CacheMode mode() const { return mode_; }
  bool writable() const { return mode_ == CacheMode::ReadWrite; }
  const std::string &root() const { return root_; }

  /// The entry stored under `key`, with every file verified; std::nullopt on a
  /// miss. A damaged entry is reported, removed (if writable) and misses.
  std::optional<CacheEntry> lookup(const CacheKey &key);
  /// The same for the piece named `pieceName` (for messages) with `factors`;
  /// in must-hit mode a miss is an error naming the piece and explaining the
  /// miss.
  llvm::Expected<std::optional<CacheEntry>>
  lookupPiece(const CacheKeyFactors &factors, llvm::StringRef pieceName);

  /// Stores `files` under `key`, which must be `factors.computeKey()`. Writes
  /// into tmp/, syncs, then renames into place; if the entry appeared in the
  /// meantime, keeps it. On failure (read-only root, disk full...) nothing is
  /// left behind and the error says what failed: the caller reports it and
  /// goes on without caching.
  llvm::Expected<StoreOutcome> store(const CacheKey &key,
                                     const CacheKeyFactors &factors,
                                     llvm::ArrayRef<CacheFile> files);

  /// Adds (or replaces) `record` in `model`'s index, under the index's lock.
  /// A no-op when not writable.
  llvm::Error recordInIndex(const ModelId &model, IndexRecord record);
  /// `model`'s index; an empty one if it has none yet.
  llvm::Expected<ModelIndex> readIndex(const ModelId &model);
  /// The key `model`'s index gives for (shape, graph index, backend).
  std::optional<CacheKey> lookupIndex(const ModelId &model,
                                      llvm::StringRef runtimeShape,
                                      int64_t graphIndex,
                                      llvm::StringRef backend);
  /// Every model index, sorted by directory name. Unreadable ones are
  /// reported through the warning handler and skipped.
  std::vector<ModelIndex> listModels();

  /// Every entry (not verified), sorted by key.
  std::vector<EntryInfo> listEntries();
  /// The factors `key`'s manifest records, without verifying the files.
  llvm::Expected<KeyFactorList> readFactors(const CacheKey &key);
  /// For a miss: the stored entry with the most factors equal to `factors`
  /// and the factors that differ, in words.
  std::string explainMiss(const CacheKeyFactors &factors);

  /// Checks every entry's checksums and every index; with `fix` (and a
  /// writable store) removes what is damaged, dangling or stale.
  VerifyReport verify(bool fix);
  /// Removes least recently used entries until the store holds at most
  /// `maxBytes`, then index records that point nowhere. Entries being written
  /// live in tmp/ and are never touched.
  llvm::Expected<PruneReport> prune(uint64_t maxBytes);
  /// Removes every entry, index and temporary file.
  llvm::Expected<ClearReport> clear();
  StoreStats stats();
  /// Removes what dead writers left in tmp/; returns how many items.
  unsigned removeStaleTemporaries();

  /// The directory of `key`'s entry, relative to the root.
  static std::string entryPath(const CacheKey &key);

  const CacheCounters &counters() const { return counters_; }
  void setTestHooks(CacheTestHooks hooks) { hooks_ = std::move(hooks); }

private:
  CacheStore(std::string root, CacheMode requested, CacheMode mode,
             WarningHandler onWarning);
  void warn(const llvm::Twine &message);
  std::string absolute(llvm::StringRef relative) const;
  struct ReadResult {
    enum class Status {
      Missing,
      Valid,
      /// The entry is wrong: remove it.
      Damaged,
      /// The entry cannot be read here (permissions, I/O): leave it alone.
      Unreadable,
    };
    Status status = Status::Missing;
    std::string why;
    CacheEntry entry;
  };
  /// Reads and verifies the entry at `key` (its file contents only if
  /// `loadData`).
  ReadResult readEntry(const CacheKey &key, bool loadData);
  /// `dirName`'s index; an error if unreadable, an empty index if missing.
  llvm::Expected<ModelIndex> readIndexDir(llvm::StringRef dirName);
  /// Rewrites every index without the records `keep` rejects; the dropped
  /// ones are described in `dropped`. Returns how many were dropped.
  unsigned filterIndexes(llvm::function_ref<bool(const IndexRecord &)> keep,
                         std::vector<std::string> *dropped, bool write);
  /// Renames `absPath` into tmp/ and deletes it there.
  std::error_code discard(llvm::StringRef absPath, llvm::StringRef why);
  /// Writes `files` and the manifest into a fresh temporary directory and
  /// renames it into place.
  llvm::Expected<StoreOutcome> writeEntry(const CacheKey &key,
                                          const KeyFactorList &factors,
                                          llvm::ArrayRef<CacheFile> files);
  std::error_code writeIndex(const ModelIndex &index);
  /// The items dead writers left in tmp/ (removing them if `remove`).
  std::vector<std::string> scanTemporaries(bool remove);

  std::string root_;
  CacheMode requestedMode_;
  CacheMode mode_;
  WarningHandler onWarning_;
  CacheCounters counters_;
  CacheTestHooks hooks_;
  bool cleanedTemporaries_ = false;
};

} // namespace magi::cache

#endif // MAGI_CACHE_CACHESTORE_H
