//===- CacheStore.cpp - Persistent compile cache: entries -----------------===//
//
// Opening a store, looking entries up, storing them, and the clean-up of
// what dead writers leave in tmp/. The model indexes and the maintenance
// commands are in Maintenance.cpp.
//
//===----------------------------------------------------------------------===//

#include "magi/Cache/CacheStore.h"
#include "FileUtil.h"
#include "Manifest.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"

using namespace magi::cache;
using namespace magi::cache::detail;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

// A `.prelock` file older than this belongs to a writer that died between
// creating its lock file and publishing it.
static constexpr std::chrono::minutes kPrelockGrace(10);

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

std::optional<CacheMode> magi::cache::parseCacheMode(llvm::StringRef text) {
  return llvm::StringSwitch<std::optional<CacheMode>>(text)
      .Case("readwrite", CacheMode::ReadWrite)
      .Case("readonly", CacheMode::ReadOnly)
      .Case("must-hit", CacheMode::MustHit)
      .Case("off", CacheMode::Off)
      .Default(std::nullopt);
}

llvm::StringRef magi::cache::stringifyCacheMode(CacheMode mode) {
  switch (mode) {
  case CacheMode::ReadWrite:
    return "readwrite";
  case CacheMode::ReadOnly:
    return "readonly";
  case CacheMode::MustHit:
    return "must-hit";
  case CacheMode::Off:
    return "off";
  }
  llvm_unreachable("unknown cache mode");
}

std::string magi::cache::resolveCacheRoot(llvm::StringRef explicitDir) {
  if (!explicitDir.empty())
    return explicitDir.str();
  if (std::optional<std::string> env =
          llvm::sys::Process::GetEnv("MAGI_CACHE_DIR");
      env && !env->empty())
    return *env;
  llvm::SmallString<256> home;
  if (!path::home_directory(home))
    return "";
  path::append(home, ".cache", "magi");
  return std::string(home);
}

std::optional<uint64_t> magi::cache::parseByteSize(llvm::StringRef text) {
  text = text.trim();
  size_t digits = 0;
  while (digits < text.size() && llvm::isDigit(text[digits]))
    ++digits;
  if (digits == 0)
    return std::nullopt;
  uint64_t value = 0;
  if (text.take_front(digits).getAsInteger(10, value))
    return std::nullopt;
  llvm::StringRef suffix = text.drop_front(digits);
  unsigned shift = 0;
  if (!suffix.empty()) {
    switch (llvm::toLower(suffix.front())) {
    case 'k':
      shift = 10;
      break;
    case 'm':
      shift = 20;
      break;
    case 'g':
      shift = 30;
      break;
    case 't':
      shift = 40;
      break;
    case 'b':
      break;
    default:
      return std::nullopt;
    }
    if (shift != 0)
      suffix = suffix.drop_front();
    if (!suffix.empty() && !suffix.equals_insensitive("b") &&
        !(shift != 0 && suffix.equals_insensitive("ib")))
      return std::nullopt;
  }
  if (shift != 0 && value > (UINT64_MAX >> shift))
    return std::nullopt;
  return value << shift;
}

bool magi::cache::isValidCacheFileName(llvm::StringRef name) {
  if (name.empty() || name.front() == '.' || name == kManifestName ||
      name.size() > 200)
    return false;
  return llvm::all_of(name, [](char c) {
    return llvm::isAlnum(c) || c == '.' || c == '_' || c == '-';
  });
}

const CacheFile *CacheEntry::file(llvm::StringRef name) const {
  for (const CacheFile &f : files)
    if (f.name == name)
      return &f;
  return nullptr;
}

void CacheCounters::print(llvm::raw_ostream &os) const {
  os << "hits: " << hits << "\n"
     << "misses: " << misses << " (" << damaged << " damaged)\n"
     << "stored: " << stored << " (" << alreadyPresent << " already present, "
     << storeFailures << " failed)\n"
     << "bytes read: " << bytesRead << "\n"
     << "bytes written: " << bytesWritten << "\n";
}

std::string CacheStore::entryPath(const CacheKey &key) {
  return "store/" + key.hex().substr(0, 2) + "/" + key.hex();
}

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(std::make_error_code(std::errc::io_error),
                                 message);
}

//===----------------------------------------------------------------------===//
// Opening
//===----------------------------------------------------------------------===//

CacheStore::CacheStore(std::string root, CacheMode requested, CacheMode mode,
                       WarningHandler onWarning)
    : root_(std::move(root)), requestedMode_(requested), mode_(mode),
      onWarning_(std::move(onWarning)) {}

CacheStore::~CacheStore() = default;

void CacheStore::warn(const llvm::Twine &message) {
  if (onWarning_)
    onWarning_(message.str());
  else
    llvm::WithColor::warning() << message << "\n";
}

std::string CacheStore::absolute(llvm::StringRef relative) const {
  llvm::SmallString<256> p(root_);
  path::append(p, relative);
  return std::string(p);
}

llvm::Expected<std::unique_ptr<CacheStore>>
CacheStore::open(llvm::StringRef root, CacheMode mode,
                 WarningHandler onWarning) {
  if (root.empty())
    return makeError("no cache directory: pass --cache-dir or set "
                     "MAGI_CACHE_DIR (HOME is not set either)");
  llvm::SmallString<256> absRoot(root);
  if (std::error_code ec = fs::make_absolute(absRoot))
    return makeError("cannot resolve cache directory '" + root +
                     "': " + ec.message());
  path::remove_dots(absRoot, /*remove_dot_dot=*/true);

  std::unique_ptr<CacheStore> store(
      new CacheStore(std::string(absRoot), mode, mode, std::move(onWarning)));
  if (mode != CacheMode::ReadWrite)
    return std::move(store);

  // Readwrite needs the three directories and the right to write in them; a
  // root that cannot be written is still good for lookups.
  std::error_code ec;
  std::string failed;
  for (llvm::StringRef sub : {"store", "models", "tmp"}) {
    failed = store->absolute(sub);
    ec = fs::create_directories(failed);
    if (!ec)
      ec = fs::access(failed, fs::AccessMode::Write);
    if (ec)
      break;
  }
  if (ec) {
    store->mode_ = CacheMode::ReadOnly;
    store->warn("cache directory '" + store->root_ + "' cannot be written ('" +
                failed + "': " + ec.message() +
                "): using it read-only, nothing will be stored");
  }
  return std::move(store);
}

//===----------------------------------------------------------------------===//
// Reading entries
//===----------------------------------------------------------------------===//

CacheStore::ReadResult CacheStore::readEntry(const CacheKey &key,
                                             bool loadData) {
  using Status = ReadResult::Status;
  ReadResult result;
  auto fail = [&](Status status, const llvm::Twine &why) {
    result.status = status;
    result.why = why.str();
    result.entry = CacheEntry();
    return std::move(result);
  };
  // An I/O error that is not about the entry's content is no reason to
  // delete it (another user's entry, a flaky disk).
  auto readFailure = [&](std::error_code ec, const llvm::Twine &what) {
    if (ec == std::errc::no_such_file_or_directory ||
        ec == std::errc::not_a_directory)
      return fail(Status::Damaged, what + " is missing");
    return fail(Status::Unreadable,
                "cannot read " + what + ": " + ec.message());
  };

  std::string rel = entryPath(key);
  std::string dir = absolute(rel);
  fs::file_status status;
  if (std::error_code ec = fs::status(dir, status)) {
    if (ec == std::errc::no_such_file_or_directory ||
        ec == std::errc::not_a_directory)
      return result; // Missing.
    return fail(Status::Unreadable,
                "cannot read '" + dir + "': " + ec.message());
  }
  if (!fs::is_directory(status))
    return fail(Status::Damaged, "'" + rel + "' is not a directory");

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> manifestBuffer =
      llvm::MemoryBuffer::getFile(dir + "/" + kManifestName.str(),
                                  /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!manifestBuffer)
    return readFailure(manifestBuffer.getError(), "the manifest");
  llvm::Expected<Manifest> manifest =
      parseManifest((*manifestBuffer)->getBuffer());
  if (!manifest)
    return fail(Status::Damaged,
                "bad manifest: " + llvm::toString(manifest.takeError()));
  if (manifest->key != key.hex())
    return fail(Status::Damaged, "the manifest is for key " + manifest->key);
  if (CacheKeyFactors::computeKey(manifest->factors) != key)
    return fail(Status::Damaged,
                "the manifest's factors do not hash to the entry's key");

  result.entry.key = key;
  result.entry.path = rel;
  result.entry.factors = manifest->factors;
  for (const ManifestFile &file : manifest->files) {
    std::string what = "file '" + file.name + "'";
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(dir + "/" + file.name, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!buffer)
      return readFailure(buffer.getError(), what);
    llvm::StringRef data = (*buffer)->getBuffer();
    if (data.size() != file.size)
      return fail(Status::Damaged, what + " has " + llvm::Twine(data.size()) +
                                       " bytes, the manifest says " +
                                       llvm::Twine(file.size));
    if (blake3Hex(data) != file.checksum)
      return fail(Status::Damaged, what + " does not match its checksum");
    result.entry.files.push_back(
        {file.name, loadData ? data.str() : std::string()});
  }
  result.status = Status::Valid;
  return result;
}

std::error_code CacheStore::discard(llvm::StringRef absPath,
                                    llvm::StringRef why) {
  // Renamed out of the store first, so that no reader ever sees an entry half
  // deleted; then deleted at leisure.
  std::string trash = absolute("tmp/" + why.str() + "-" + uniqueSuffix());
  if (std::error_code ec = fs::rename(absPath, trash)) {
    if (!fs::exists(absPath))
      return {}; // Someone else removed it.
    return fs::remove_directories(absPath, /*IgnoreErrors=*/false);
  }
  (void)fs::remove_directories(trash, /*IgnoreErrors=*/true);
  return {};
}

std::optional<CacheEntry> CacheStore::lookup(const CacheKey &key) {
  using Status = ReadResult::Status;
  if (mode_ == CacheMode::Off || !key.isValid())
    return std::nullopt;
  ReadResult result = readEntry(key, /*loadData=*/true);
  std::string rel = entryPath(key);
  switch (result.status) {
  case Status::Missing:
    ++counters_.misses;
    return std::nullopt;
  case Status::Unreadable:
    ++counters_.misses;
    warn("cache entry " + rel + " " + result.why + ": treated as a miss");
    return std::nullopt;
  case Status::Damaged:
    ++counters_.misses;
    ++counters_.damaged;
    if (!writable()) {
      warn("cache entry " + rel + " is damaged (" + result.why +
           "): treated as a miss (not removed: the cache is read-only)");
    } else if (std::error_code ec = discard(absolute(rel), "damaged")) {
      warn("cache entry " + rel + " is damaged (" + result.why +
           "): treated as a miss; removing it failed: " + ec.message());
    } else {
      warn("cache entry " + rel + " is damaged (" + result.why +
           "): removed, treated as a miss");
    }
    return std::nullopt;
  case Status::Valid:
    break;
  }
  ++counters_.hits;
  for (const CacheFile &file : result.entry.files)
    counters_.bytesRead += file.data.size();
  // The directory's time is the entry's last use, for LRU pruning. Failing to
  // set it (another user's entry) only makes pruning less accurate.
  if (writable())
    (void)touch(absolute(rel));
  return std::move(result.entry);
}

llvm::Expected<std::optional<CacheEntry>>
CacheStore::lookupPiece(const CacheKeyFactors &factors,
                        llvm::StringRef pieceName) {
  CacheKey key = factors.computeKey();
  std::optional<CacheEntry> entry = lookup(key);
  if (entry || mode_ != CacheMode::MustHit)
    return std::move(entry);
  return makeError("cache miss for piece '" + pieceName +
                   "' in must-hit mode (key " + key.shortHex() + ", cache '" +
                   root_ + "'): " + explainMiss(factors));
}

//===----------------------------------------------------------------------===//
// Storing entries
//===----------------------------------------------------------------------===//

static bool isValidUTF8(llvm::StringRef text) {
  return llvm::json::isUTF8(text);
}

llvm::Expected<StoreOutcome>
CacheStore::store(const CacheKey &key, const CacheKeyFactors &factors,
                  llvm::ArrayRef<CacheFile> files) {
  if (!writable())
    return StoreOutcome::NotWritten;

  // Caller errors first: nothing is written for them.
  if (!key.isValid() || key != factors.computeKey())
    return makeError("cannot store cache entry: the key does not match the "
                     "key factors");
  KeyFactorList canonical = factors.canonical();
  for (const KeyFactor &factor : canonical)
    if (!isValidUTF8(factor.value))
      return makeError("cannot store cache entry: factor '" + factor.name +
                       "' is not valid UTF-8");
  llvm::StringSet<> names;
  for (const CacheFile &file : files) {
    if (!isValidCacheFileName(file.name))
      return makeError("cannot store cache entry: invalid file name '" +
                       file.name + "'");
    if (!names.insert(file.name).second)
      return makeError("cannot store cache entry: file '" + file.name +
                       "' given twice");
  }

  // A writer cleans up after dead writers once; readers never need to.
  if (!cleanedTemporaries_) {
    cleanedTemporaries_ = true;
    removeStaleTemporaries();
  }

  using Status = ReadResult::Status;
  std::string rel = entryPath(key);
  ReadResult existing = readEntry(key, /*loadData=*/false);
  switch (existing.status) {
  case Status::Valid:
    ++counters_.alreadyPresent;
    (void)touch(absolute(rel));
    return StoreOutcome::AlreadyPresent;
  case Status::Unreadable:
    ++counters_.storeFailures;
    return makeError("cannot store cache entry " + rel + ": an entry is " +
                     "there but " + existing.why);
  case Status::Damaged:
    warn("cache entry " + rel + " is damaged (" + existing.why +
         "): replacing it");
    if (std::error_code ec = discard(absolute(rel), "damaged")) {
      ++counters_.storeFailures;
      return makeError("cannot store cache entry " + rel +
                       ": removing the damaged entry failed: " + ec.message());
    }
    break;
  case Status::Missing:
    break;
  }

  llvm::Expected<StoreOutcome> outcome = writeEntry(key, canonical, files);
  if (!outcome) {
    ++counters_.storeFailures;
    return makeError("cannot store cache entry " + rel + " under '" + root_ +
                     "': " + llvm::toString(outcome.takeError()) +
                     "; the entry was not stored");
  }
  return outcome;
}

llvm::Expected<StoreOutcome>
CacheStore::writeEntry(const CacheKey &key, const KeyFactorList &factors,
                       llvm::ArrayRef<CacheFile> files) {
  auto failed = [](const llvm::Twine &what, std::error_code ec) {
    return makeError(what + ": " + ec.message());
  };
  std::string tmpRoot = absolute("tmp");
  if (std::error_code ec = fs::create_directories(tmpRoot))
    return failed("creating '" + tmpRoot + "'", ec);

  // The lock file appears locked before the directory exists and goes after
  // it: a directory in tmp/ without a held lock is a dead writer's.
  std::string name = "entry-" + uniqueSuffix();
  std::string tmpDir = tmpRoot + "/" + name;
  std::string lockPath = tmpDir + ".lock";
  llvm::ErrorOr<FileLock> lock =
      FileLock::createLocked(lockPath, tmpDir + ".prelock");
  if (!lock)
    return failed("creating '" + lockPath + "'", lock.getError());
  bool renamed = false;
  llvm::scope_exit cleanup([&] {
    if (!renamed)
      (void)fs::remove_directories(tmpDir, /*IgnoreErrors=*/true);
    (void)fs::remove(lockPath);
    lock->release();
  });

  if (std::error_code ec = fs::create_directory(tmpDir))
    return failed("creating '" + tmpDir + "'", ec);

  auto writeOne = [&](llvm::StringRef fileName, llvm::StringRef data,
                      llvm::function_ref<void()> midpoint) -> llvm::Error {
    std::string filePath = tmpDir + "/" + fileName.str();
    std::error_code ec;
    if (hooks_.beforeWrite)
      ec = hooks_.beforeWrite(filePath);
    if (!ec)
      ec = writeFileDurably(filePath, data, midpoint);
    if (ec)
      return failed("writing '" + fileName + "'", ec);
    return llvm::Error::success();
  };

  uint64_t written = 0;
  std::vector<ManifestFile> manifestFiles;
  for (auto [index, file] : llvm::enumerate(files)) {
    auto pause = [&] { hooks_.afterHalfWritten(tmpDir); };
    llvm::function_ref<void()> midpoint;
    if (index == 0 && hooks_.afterHalfWritten)
      midpoint = pause;
    if (llvm::Error err = writeOne(file.name, file.data, midpoint))
      return std::move(err);
    written += file.data.size();
    manifestFiles.push_back(
        {file.name, file.data.size(), blake3Hex(file.data)});
  }
  std::string manifest = renderManifest(key.hex(), factors, manifestFiles);
  if (llvm::Error err = writeOne(kManifestName, manifest, {}))
    return std::move(err);
  written += manifest.size();
  if (std::error_code ec = syncDirectory(tmpDir))
    return failed("syncing '" + tmpDir + "'", ec);

  std::string finalDir = absolute(entryPath(key));
  std::string shardDir = std::string(path::parent_path(finalDir));
  if (std::error_code ec = fs::create_directories(shardDir))
    return failed("creating '" + shardDir + "'", ec);
  if (std::error_code ec = fs::rename(tmpDir, finalDir)) {
    // Another writer put the same key in place first: same key, same
    // content, so theirs is as good as ours.
    if (ec == std::errc::directory_not_empty || ec == std::errc::file_exists) {
      ++counters_.alreadyPresent;
      return StoreOutcome::AlreadyPresent;
    }
    return failed("moving the entry into '" + finalDir + "'", ec);
  }
  renamed = true;
  if (std::error_code ec = syncDirectory(shardDir))
    return failed("syncing '" + shardDir + "'", ec);
  ++counters_.stored;
  counters_.bytesWritten += written;
  return StoreOutcome::Stored;
}

//===----------------------------------------------------------------------===//
// Temporaries of dead writers
//===----------------------------------------------------------------------===//

std::vector<std::string> CacheStore::scanTemporaries(bool remove) {
  std::vector<std::string> stale;
  std::string tmpRoot = absolute("tmp");
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(tmpRoot, ec), end; !ec && it != end;
       it.increment(ec))
    names.push_back(std::string(path::filename(it->path())));
  llvm::sort(names);
  llvm::StringSet<> present;
  for (const std::string &n : names)
    present.insert(n);

  long self = static_cast<long>(llvm::sys::Process::getProcessId());
  for (llvm::StringRef name : names) {
    // Our own process's items may belong to another thread's store; POSIX
    // locks do not tell threads apart, so leave them.
    if (pidInName(name) == self)
      continue;
    std::string item = tmpRoot + "/" + name.str();
    if (name.ends_with(".prelock")) {
      fs::file_status st;
      if (fs::status(item, st) ||
          std::chrono::system_clock::now() - st.getLastModificationTime() <
              kPrelockGrace)
        continue;
      stale.push_back("tmp/" + name.str());
      if (remove)
        (void)fs::remove(item);
      continue;
    }
    if (name.ends_with(".lock")) {
      llvm::ErrorOr<FileLock> lock = FileLock::tryAcquireExisting(item);
      if (!lock)
        continue; // Held: its writer is alive (or it just went away).
      std::string base = item.substr(0, item.size() - 5);
      stale.push_back("tmp/" + name.drop_back(5).str());
      if (remove) {
        (void)fs::remove_directories(base, /*IgnoreErrors=*/true);
        (void)fs::remove(item);
      }
      continue;
    }
    if (present.contains(name.str() + ".lock"))
      continue; // Decided through its lock file above.
    stale.push_back("tmp/" + name.str());
    if (remove) {
      if (fs::is_directory(item))
        (void)fs::remove_directories(item, /*IgnoreErrors=*/true);
      else
        (void)fs::remove(item);
    }
  }
  return stale;
}

unsigned CacheStore::removeStaleTemporaries() {
  if (!writable())
    return 0;
  return scanTemporaries(/*remove=*/true).size();
}
