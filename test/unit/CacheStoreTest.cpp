//===- CacheStoreTest.cpp - The persistent compile cache ------------------===//
//
// Store and lookup, damage of every kind, modes, indexes, LRU pruning,
// explain, counters; and, with real processes (fork), concurrent writers, a
// writer killed mid-write, a read-only directory and a full disk.
//
//===----------------------------------------------------------------------===//

#include "magi/Cache/CacheStore.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace magi::cache;
namespace fs = llvm::sys::fs;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Factors of a plausible piece; `piece` varies the IR.
CacheKeyFactors makeFactors(llvm::StringRef piece = "p0") {
  CacheKeyFactors f;
  f.pieceIR = ("func.func @" + piece +
               "(%arg0: tensor<?x64xbf16>) -> tensor<?x64xbf16> {\n"
               "  return %arg0 : tensor<?x64xbf16>\n}\n")
                  .str();
  f.pipelineOptions = "lower-to-nvvm{opt-level=3}";
  f.targetChip = "sm_90a";
  f.targetFeatures = "+ptx85";
  f.ptxISA = "8.5";
  f.magiVersion = "magi 0.1.0 (git 0123456789ab)";
  f.llvmVersion = "22.1.0";
  f.ptxasVersion = "12.4";
  return f;
}

/// Files of an entry, with bytes that any text handling would mangle.
std::vector<CacheFile> makeFiles(llvm::StringRef tag = "a") {
  std::string binary("\x7f"
                     "ELF\0\0\x01\xff\n\r",
                     10);
  return {{"kernel.ptx", ("// ptx for " + tag + "\n.version 8.5\n").str()},
          {"kernel.cubin", binary + tag.str()},
          {"plan.json", ("{\"piece\": \"" + tag + "\"}\n").str()}};
}

uint64_t totalSize(llvm::ArrayRef<CacheFile> files) {
  uint64_t total = 0;
  for (const CacheFile &f : files)
    total += f.data.size();
  return total;
}

/// A fresh directory under the system temp dir, removed at destruction.
class TempDir {
public:
  TempDir() {
    std::error_code ec = fs::createUniqueDirectory("magi-cache-test", path_);
    EXPECT_FALSE(ec) << ec.message();
    // Readable by others: a read-only test may run as another user.
    ::chmod(path_.c_str(), 0755);
  }
  ~TempDir() {
    makeWritable(path_);
    (void)fs::remove_directories(path_, /*IgnoreErrors=*/true);
  }
  std::string str() const { return std::string(path_); }
  std::string sub(llvm::StringRef relative) const {
    llvm::SmallString<256> p(path_);
    llvm::sys::path::append(p, relative);
    return std::string(p);
  }
  /// chmod every directory under `dir` (and `dir`) to `mode`.
  static void chmodDirs(llvm::StringRef dir, mode_t mode) {
    std::vector<std::string> dirs{dir.str()};
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end;
         it.increment(ec))
      if (it->type() == fs::file_type::directory_file)
        dirs.push_back(it->path());
    // Children first when removing rights would stop the walk.
    for (auto it = dirs.rbegin(); it != dirs.rend(); ++it)
      ::chmod(it->c_str(), mode);
  }
  static void makeWritable(llvm::StringRef dir) { chmodDirs(dir, 0755); }

private:
  llvm::SmallString<256> path_;
};

std::string readFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return "<cannot read " + path.str() + ">";
  return (*buffer)->getBuffer().str();
}

void writeFile(llvm::StringRef path, llvm::StringRef data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  ASSERT_FALSE(ec) << ec.message();
  os << data;
}

/// Opens a store that records its warnings in `warnings`.
std::unique_ptr<CacheStore> openStore(llvm::StringRef root, CacheMode mode,
                                      std::vector<std::string> *warnings) {
  llvm::Expected<std::unique_ptr<CacheStore>> store =
      CacheStore::open(root, mode, [warnings](const std::string &message) {
        if (warnings)
          warnings->push_back(message);
      });
  if (!store) {
    ADD_FAILURE() << llvm::toString(store.takeError());
    return nullptr;
  }
  return std::move(*store);
}

/// The names in `dir`, sorted; empty if it cannot be read.
std::vector<std::string> listNames(llvm::StringRef dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec))
    names.push_back(std::string(llvm::sys::path::filename(it->path())));
  std::sort(names.begin(), names.end());
  return names;
}

/// Sets the modification time of `path` to `secondsAgo` seconds ago.
void setAge(llvm::StringRef path, int secondsAgo) {
  struct timespec times[2];
  ::clock_gettime(CLOCK_REALTIME, &times[0]);
  times[0].tv_sec -= secondsAgo;
  times[1] = times[0];
  ASSERT_EQ(::utimensat(AT_FDCWD, path.str().c_str(), times, 0), 0)
      << path.str();
}

struct timespec modificationTime(llvm::StringRef path) {
  struct stat st;
  EXPECT_EQ(::stat(path.str().c_str(), &st), 0) << path.str();
  return st.st_mtim;
}

bool anyContains(llvm::ArrayRef<std::string> messages, llvm::StringRef needle) {
  return llvm::any_of(messages, [&](const std::string &m) {
    return llvm::StringRef(m).contains(needle);
  });
}

/// The message of `err`, or "" for success.
std::string errorOf(llvm::Error err) {
  return err ? llvm::toString(std::move(err)) : "";
}

std::string joinLines(llvm::ArrayRef<std::string> lines) {
  return llvm::join(lines, "\n");
}

/// Stores `files` under `factors`' key, expecting success.
void storeOk(CacheStore &store, const CacheKeyFactors &factors,
             llvm::ArrayRef<CacheFile> files,
             StoreOutcome expected = StoreOutcome::Stored) {
  llvm::Expected<StoreOutcome> outcome =
      store.store(factors.computeKey(), factors, files);
  ASSERT_TRUE(bool(outcome)) << llvm::toString(outcome.takeError());
  EXPECT_EQ(*outcome, expected);
}

void expectSameFiles(const CacheEntry &entry, llvm::ArrayRef<CacheFile> files) {
  ASSERT_EQ(entry.files.size(), files.size());
  for (const CacheFile &file : files) {
    const CacheFile *got = entry.file(file.name);
    ASSERT_NE(got, nullptr) << file.name;
    EXPECT_EQ(got->data, file.data) << file.name;
  }
}

//===----------------------------------------------------------------------===//
// Child processes
//===----------------------------------------------------------------------===//

/// Runs `body` in a forked child and returns its exit status. The child
/// reports problems on the pipe; exit code 77 means "skip", with the reason
/// as its message.
struct ChildResult {
  int exitCode = -1;
  std::string messages;
};

constexpr int kSkipCode = 77;

/// What a child process checks; failures are collected, not thrown.
class ChildChecks {
public:
  explicit ChildChecks(int fd) : fd_(fd) {}
  bool check(bool ok, const llvm::Twine &what) {
    if (!ok) {
      std::string line = "FAILED: " + what.str() + "\n";
      (void)!::write(fd_, line.data(), line.size());
      failed_ = true;
    }
    return ok;
  }
  void note(const llvm::Twine &what) {
    std::string line = what.str() + "\n";
    (void)!::write(fd_, line.data(), line.size());
  }
  int exitCode() const { return failed_ ? 1 : 0; }

private:
  int fd_;
  bool failed_ = false;
};

ChildResult runInChild(llvm::function_ref<int(ChildChecks &)> body) {
  int fds[2];
  ChildResult result;
  if (::pipe(fds) != 0) {
    result.messages = "pipe failed";
    return result;
  }
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    ChildChecks checks(fds[1]);
    int code = body(checks);
    ::_exit(code);
  }
  ::close(fds[1]);
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buffer, sizeof(buffer))) > 0)
    result.messages.append(buffer, n);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  result.exitCode =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

//===----------------------------------------------------------------------===//
// Basics
//===----------------------------------------------------------------------===//

TEST(CacheStoreTest, StoreThenLookupReturnsIdenticalBytes) {
  TempDir dir;
  std::vector<std::string> warnings;
  auto store = openStore(dir.str(), CacheMode::ReadWrite, &warnings);
  ASSERT_TRUE(store);
  CacheKeyFactors factors = makeFactors();
  CacheKey key = factors.computeKey();
  std::vector<CacheFile> files = makeFiles();

  EXPECT_FALSE(store->lookup(key));
  storeOk(*store, factors, files);
  std::optional<CacheEntry> entry = store->lookup(key);
  ASSERT_TRUE(entry);
  expectSameFiles(*entry, files);
  EXPECT_EQ(entry->key, key);
  EXPECT_EQ(entry->path, "store/" + key.hex().substr(0, 2) + "/" + key.hex());
  EXPECT_EQ(entry->factors, factors.canonical());
  // The entry is plain files on disk, byte for byte.
  EXPECT_EQ(readFile(dir.sub(entry->path + "/kernel.cubin")), files[1].data);
  EXPECT_TRUE(warnings.empty()) << joinLines(warnings);

  // A second store of the same key keeps the first.
  storeOk(*store, factors, files, StoreOutcome::AlreadyPresent);

  // Another process (here: another store object) sees it.
  auto other = openStore(dir.str(), CacheMode::ReadWrite, &warnings);
  std::optional<CacheEntry> again = other->lookup(key);
  ASSERT_TRUE(again);
  expectSameFiles(*again, files);
}

TEST(CacheStoreTest, LayoutAndManifest) {
  TempDir dir;
  auto store = openStore(dir.str(), CacheMode::ReadWrite, nullptr);
  CacheKeyFactors factors = makeFactors();
  storeOk(*store, factors, makeFiles());
  EXPECT_EQ(listNames(dir.str()),
            (std::vector<std::string>{"models", "store", "tmp"}));
  std::string entryDir = dir.sub(CacheStore::entryPath(factors.computeKey()));
  EXPECT_EQ(listNames(entryDir),
            (std::vector<std::string>{"entry.json", "kernel.cubin",
                                      "kernel.ptx", "plan.json"}));
  std::string manifest = readFile(entryDir + "/entry.json");
  EXPECT_NE(manifest.find("\"ptxas_version\": \"12.4\""), std::string::npos)
      << manifest;
  EXPECT_NE(manifest.find("\"blake3\": \"" + blake3Hex(makeFiles()[0].data)),
            std::string::npos)
      << manifest;
  // Nothing is left in tmp/ after a store.
  EXPECT_TRUE(listNames(dir.sub("tmp")).empty())
      << joinLines(listNames(dir.sub("tmp")));
}

TEST(CacheStoreTest, CachePathAndTimeDoNotEnterTheKey) {
  TempDir a, b;
  CacheKeyFactors factors = makeFactors();
  auto storeA = openStore(a.sub("one/cache"), CacheMode::ReadWrite, nullptr);
  storeOk(*storeA, factors, makeFiles());
  // Later, elsewhere: the same key, the same manifest, byte for byte.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  auto storeB = openStore(b.sub("two"), CacheMode::ReadWrite, nullptr);
  storeOk(*storeB, makeFactors(), makeFiles());
  std::string rel = CacheStore::entryPath(factors.computeKey());
  EXPECT_EQ(readFile(a.sub("one/cache/" + rel + "/entry.json")),
            readFile(b.sub("two/" + rel + "/entry.json")));
  // And an entry copied to another root is found there.
  TempDir c;
  auto storeC = openStore(c.str(), CacheMode::ReadWrite, nullptr);
  ASSERT_FALSE(fs::create_directories(c.sub(rel)));
  for (const std::string &name : listNames(b.sub("two/" + rel)))
    ASSERT_FALSE(fs::copy_file(b.sub("two/" + rel + "/" + name),
                               c.sub(rel + "/" + name)));
  EXPECT_TRUE(storeC->lookup(factors.computeKey()));
}

TEST(CacheStoreTest, RejectsBadInput) {
  TempDir dir;
  auto store = openStore(dir.str(), CacheMode::ReadWrite, nullptr);
  CacheKeyFactors factors = makeFactors();
  CacheKey key = factors.computeKey();
  auto expectError = [&](const CacheKey &k, std::vector<CacheFile> files,
                         llvm::StringRef message) {
    llvm::Expected<StoreOutcome> outcome = store->store(k, factors, files);
    ASSERT_FALSE(bool(outcome));
    std::string text = llvm::toString(outcome.takeError());
    EXPECT_NE(text.find(message.str()), std::string::npos) << text;
  };
  expectError(makeFactors("other").computeKey(), makeFiles(),
              "the key does not match the key factors");
  expectError(key, {{"../escape", "x"}}, "invalid file name '../escape'");
  expectError(key, {{"entry.json", "x"}}, "invalid file name 'entry.json'");
  expectError(key, {{"a", "x"}, {"a", "y"}}, "file 'a' given twice");
  CacheKeyFactors bad = factors;
  bad.salt = "\xff\xfe";
  llvm::Expected<StoreOutcome> outcome =
      store->store(bad.computeKey(), bad, makeFiles());
  ASSERT_FALSE(bool(outcome));
  EXPECT_NE(
      llvm::toString(outcome.takeError()).find("'salt' is not valid UTF-8"),
      std::string::npos);
  EXPECT_FALSE(store->lookup(key));
  EXPECT_TRUE(listNames(dir.sub("tmp")).empty());
  // An entry of no files is fine (e.g. a piece that compiles to nothing).
  storeOk(*store, factors, {});
  ASSERT_TRUE(store->lookup(key));
}

TEST(CacheStoreTest, Counters) {
  TempDir dir;
  auto store = openStore(dir.str(), CacheMode::ReadWrite, nullptr);
  std::vector<CacheFile> files = makeFiles();
  CacheKeyFactors a = makeFactors("a"), b = makeFactors("b");
  EXPECT_FALSE(store->lookup(a.computeKey()));
  storeOk(*store, a, files);
  storeOk(*store, a, files, StoreOutcome::AlreadyPresent);
  storeOk(*store, b, files);
  EXPECT_TRUE(store->lookup(a.computeKey()));
  EXPECT_TRUE(store->lookup(b.computeKey()));
  EXPECT_TRUE(store->lookup(b.computeKey()));
  const CacheCounters &c = store->counters();
  EXPECT_EQ(c.hits, 3u);
  EXPECT_EQ(c.misses, 1u);
  EXPECT_EQ(c.damaged, 0u);
  EXPECT_EQ(c.stored, 2u);
  EXPECT_EQ(c.alreadyPresent, 1u);
  EXPECT_EQ(c.storeFailures, 0u);
  EXPECT_EQ(c.bytesRead, 3 * totalSize(files));
  // Written: both entries' files and manifests.
  uint64_t manifests =
      readFile(dir.sub(CacheStore::entryPath(a.computeKey()) + "/entry.json"))
          .size() +
      readFile(dir.sub(CacheStore::entryPath(b.computeKey()) + "/entry.json"))
          .size();
  EXPECT_EQ(c.bytesWritten, 2 * totalSize(files) + manifests);
  std::string text;
  llvm::raw_string_ostream os(text);
  c.print(os);
  EXPECT_NE(text.find("hits: 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("misses: 1 (0 damaged)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("stored: 2 (1 already present, 0 failed)\n"),
            std::string::npos)
      << text;
}

//===----------------------------------------------------------------------===//
// Damage
//===----------------------------------------------------------------------===//

struct Damage {
  const char *name;
  /// Damages the entry in `entryDir`.
  std::function<void(const std::string &entryDir)> apply;
  /// What the warning says.
  const char *expected;
};

// For test names and messages (instead of the struct's bytes).
void PrintTo(const Damage &damage, std::ostream *os) { *os << damage.name; }

class CacheDamageTest : public ::testing::TestWithParam<Damage> {};

TEST_P(CacheDamageTest, IsReportedRemovedAndMissesThenRestoreRecovers) {
  TempDir dir;
  std::vector<std::string> warnings;
  auto store = openStore(dir.str(), CacheMode::ReadWrite, &warnings);
  CacheKeyFactors factors = makeFactors();
  CacheKey key = factors.computeKey();
  std::vector<CacheFile> files = makeFiles();
  storeOk(*store, factors, files);
  std::string entryDir = dir.sub(CacheStore::entryPath(key));
  GetParam().apply(entryDir);

  // verify (without --fix) sees it and changes nothing.
  VerifyReport report = store->verify(/*fix=*/false);
  ASSERT_EQ(report.damaged.size(), 1u);
  EXPECT_NE(report.damaged[0].second.find(GetParam().expected),
            std::string::npos)
      << report.damaged[0].second;
  EXPECT_TRUE(fs::exists(entryDir));

  EXPECT_FALSE(store->lookup(key));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(GetParam().expected), std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("is damaged"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("removed, treated as a miss"), std::string::npos)
      << warnings[0];
  EXPECT_EQ(store->counters().damaged, 1u);
  EXPECT_EQ(store->counters().hits, 0u);
  EXPECT_FALSE(fs::exists(entryDir));
  // Removed through tmp/, which is clean again.
  EXPECT_TRUE(listNames(dir.sub("tmp")).empty());

  storeOk(*store, factors, files);
  std::optional<CacheEntry> entry = store->lookup(key);
  ASSERT_TRUE(entry);
  expectSameFiles(*entry, files);
  EXPECT_TRUE(store->verify(false).clean());
}

TEST_P(CacheDamageTest, StoreReplacesADamagedEntry) {
  TempDir dir;
  std::vector<std::string> warnings;
  auto store = openStore(dir.str(), CacheMode::ReadWrite, &warnings);
  CacheKeyFactors factors = makeFactors();
  std::vector<CacheFile> files = makeFiles();
  storeOk(*store, factors, files);
  GetParam().apply(dir.sub(CacheStore::entryPath(factors.computeKey())));
  storeOk(*store, factors, files, StoreOutcome::Stored);
  EXPECT_TRUE(anyContains(warnings, "replacing it")) << joinLines(warnings);
  std::optional<CacheEntry> entry = store->lookup(factors.computeKey());
  ASSERT_TRUE(entry);
  expectSameFiles(*entry, files);
}

void truncateFile(const std::string &path, uint64_t size) {
  ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(size)), 0) << path;
}

void flipByte(const std::string &path, size_t offset) {
  std::string data = readFile(path);
  ASSERT_LT(offset, data.size());
  data[offset] ^= 0x20;
  writeFile(path, data);
}

INSTANTIATE_TEST_SUITE_P(
    Damages, CacheDamageTest,
    ::testing::Values(
        Damage{"TruncatedFile",
               [](const std::string &d) { truncateFile(d + "/kernel.ptx", 5); },
               "file 'kernel.ptx' has 5 bytes, the manifest says"},
        Damage{
            "EmptiedFile",
            [](const std::string &d) { truncateFile(d + "/kernel.cubin", 0); },
            "file 'kernel.cubin' has 0 bytes"},
        Damage{"FlippedByte",
               [](const std::string &d) { flipByte(d + "/kernel.ptx", 3); },
               "file 'kernel.ptx' does not match its checksum"},
        Damage{"FlippedByteInBinary",
               [](const std::string &d) { flipByte(d + "/kernel.cubin", 1); },
               "file 'kernel.cubin' does not match its checksum"},
        Damage{"DeletedFile",
               [](const std::string &d) {
                 ASSERT_FALSE(fs::remove(d + "/plan.json"));
               },
               "file 'plan.json' is missing"},
        Damage{"DeletedManifest",
               [](const std::string &d) {
                 ASSERT_FALSE(fs::remove(d + "/entry.json"));
               },
               "the manifest is missing"},
        Damage{"GarbageManifest",
               [](const std::string &d) {
                 writeFile(d + "/entry.json", "{ not json");
               },
               "bad manifest: not valid JSON"},
        Damage{"TruncatedManifest",
               [](const std::string &d) {
                 std::string text = readFile(d + "/entry.json");
                 writeFile(d + "/entry.json", text.substr(0, text.size() / 2));
               },
               "bad manifest: not valid JSON"},
        Damage{"ManifestWithChangedFactor",
               [](const std::string &d) {
                 std::string text = readFile(d + "/entry.json");
                 size_t at = text.find("\"12.4\"");
                 ASSERT_NE(at, std::string::npos);
                 text.replace(at, 6, "\"12.5\"");
                 writeFile(d + "/entry.json", text);
               },
               "the manifest's factors do not hash to the entry's key"},
        Damage{"ManifestWithChangedChecksum",
               [](const std::string &d) {
                 std::string text = readFile(d + "/entry.json");
                 size_t at = text.find("\"blake3\": \"");
                 ASSERT_NE(at, std::string::npos);
                 at += 11;
                 text[at] = text[at] == '0' ? '1' : '0';
                 writeFile(d + "/entry.json", text);
               },
               "does not match its checksum"},
        Damage{"ManifestMissingAFactor",
               [](const std::string &d) {
                 std::string text = readFile(d + "/entry.json");
                 size_t at = text.find("\"salt\"");
                 ASSERT_NE(at, std::string::npos);
                 text.replace(at, 6, "\"sugar\"");
                 writeFile(d + "/entry.json", text);
               },
               "factor 'salt' is missing"}),
    [](const ::testing::TestParamInfo<Damage> &info) {
      return std::string(info.param.name);
    });

TEST(CacheStoreTest, HalfWrittenTemporaryIsIgnoredAndCleaned) {
  TempDir dir;
  std::vector<std::string> warnings;
  CacheKeyFactors factors = makeFactors();
  CacheKey key = factors.computeKey();
  {
    auto store = openStore(dir.str(), CacheMode::ReadWrite, &warnings);
    ASSERT_TRUE(store);
  }
  // What a writer that died mid-write (without its lock) leaves: a directory
  // with part of an entry, and an orphan lock file of another dead writer.
  std::string half = dir.sub("tmp/entry-999999-deadbeef");
  ASSERT_FALSE(fs::create_directories(half));
  writeFile(half + "/kernel.ptx", "// half of a kern");
  writeFile(dir.sub("tmp/entry-999998-cafe.lock"), "");

  auto store = openStore(dir.str(), CacheMode::ReadOnly, &warnings);
  EXPECT_FALSE(store->lookup(key));
  VerifyReport report = store->verify(/*fix=*/false);
  EXPECT_EQ(report.staleTemporaries,
            (std::vector<std::string>{"tmp/entry-999998-cafe",
                                      "tmp/entry-999999-deadbeef"}));
  EXPECT_TRUE(fs::exists(half)); // read-only: left alone.

  // Opening to write changes nothing yet; the first store cleans up, and
  // works as ever.
  auto writer = openStore(dir.str(), CacheMode::ReadWrite, &warnings);
  EXPECT_TRUE(fs::exists(half));
  storeOk(*writer, factors, makeFiles());
  EXPECT_TRUE(listNames(dir.sub("tmp")).empty())
      << joinLines(listNames(dir.sub("tmp")));
  EXPECT_TRUE(writer->lookup(key));
  EXPECT_TRUE(writer->verify(false).clean());
  EXPECT_TRUE(warnings.empty()) << joinLines(warnings);
}

TEST(CacheStoreTest, InjectedWriteErrorLeavesNothingBehind) {
  TempDir dir;
  auto store = openStore(dir.str(), CacheMode::ReadWrite, nullptr);
  CacheKeyFactors factors = makeFactors();
  CacheKey key = factors.computeKey();
  int writes = 0;
  CacheTestHooks hooks;
  hooks.beforeWrite = [&](llvm::StringRef path) -> std::error_code {
    // The second file fails, as a disk that fills up would.
    if (++writes >= 2)
      return std::make_error_code(std::errc::no_space_on_device);
    return {};
  };
  store->setTestHooks(hooks);
  llvm::Expected<StoreOutcome> outcome =
      store->store(key, factors, makeFiles());
  ASSERT_FALSE(bool(outcome));
  std::string message = llvm::toString(outcome.takeError());
  EXPECT_NE(message.find("cannot store cache entry store/"), std::string::npos)
      << message;
  EXPECT_NE(message.find("writing 'kernel.cubin': No space left on device"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("the entry was not stored"), std::string::npos)
      << message;
  EXPECT_EQ(store->counters().storeFailures, 1u);
  EXPECT_TRUE(listNames(dir.sub("tmp")).empty())
      << joinLines(listNames(dir.sub("tmp")));
  EXPECT_FALSE(store->lookup(key));

  // Index writes fail the same way, cleanly.
  IndexRecord record;
  record.backend = "ptx";
  record.key = key;
  std::string indexError =
      errorOf(store->recordInIndex({"m", "abc", 0}, record));
  EXPECT_NE(indexError.find("cannot update the cache index of 'm-abc-rank0'"),
            std::string::npos)
      << indexError;
  EXPECT_NE(indexError.find("No space left on device"), std::string::npos)
      << indexError;
  EXPECT_EQ(listNames(dir.sub("models/m-abc-rank0")),
            (std::vector<std::string>{"index.lock"}));

  // With space again, the caller's next store works.
  store->setTestHooks({});
  storeOk(*store, factors, makeFiles());
  EXPECT_TRUE(store->lookup(key));
}

//===----------------------------------------------------------------------===//
// Modes
//===----------------------------------------------------------------------===//

TEST(CacheStoreTest, ModeNames) {
  for (CacheMode mode : {CacheMode::ReadWrite, CacheMode::ReadOnly,
                         CacheMode::MustHit, CacheMode::Off})
    EXPECT_EQ(parseCacheMode(stringifyCacheMode(mode)), mode);
  EXPECT_EQ(stringifyCacheMode(CacheMode::MustHit), "must-hit");
  EXPECT_FALSE(parseCacheMode("read-write"));
}

TEST(CacheStoreTest, ReadOnlyModeNeverWrites) {
  TempDir dir;
  CacheKeyFactors a = makeFactors("a"), b = makeFactors("b");
  {
    auto writer = openStore(dir.str(), CacheMode::ReadWrite, nullptr);
    storeOk(*writer, a, makeFiles("a"));
    storeOk(*writer, b, makeFiles("b"));
  }
  std::string dirA = dir.sub(CacheStore::entryPath(a.computeKey()));
  std::string dirB = dir.sub(CacheStore::entryPath(b.computeKey()));
  setAge(dirA, 1000);
  struct timespec before = modificationTime(dirA);
  flipByte(dirB + "/kernel.ptx", 0);

  std::vector<std::string> warnings;
  auto store = openStore(dir.str(), CacheMode::ReadOnly, &warnings);
  EXPECT_EQ(store->mode(), CacheMode::ReadOnly);
  std::optional<CacheEntry> hit = store->lookup(a.computeKey());
  ASSERT_TRUE(hit);
  expectSameFiles(*hit, makeFiles("a"));
  // No LRU touch.
  struct timespec after = modificationTime(dirA);
  EXPECT_EQ(before.tv_sec, after.tv_sec);
  EXPECT_EQ(before.tv_nsec, after.tv_nsec);
  // A damaged entry misses and stays.
  EXPECT_FALSE(store->lookup(b.computeKey()));
  EXPECT_TRUE(anyContains(warnings, "not removed: the cache is read-only"))
      << joinLines(warnings);
  EXPECT_TRUE(fs::exists(dirB));
  // Stores and index records are no-ops.
  CacheKeyFactors c = makeFactors("c");
  storeOk(*store, c, makeFiles("c"), StoreOutcome::NotWritten);
  IndexRecord record;
  record.backend = "ptx";
  record.key = c.computeKey();
  EXPECT_EQ(errorOf(store->recordInIndex({"m", "abc", 0}, record)), "");
  EXPECT_FALSE(fs::exists(dir.sub("models/m-abc-rank0")));
  llvm::Expected<PruneReport> pruned = store->prune(0);
  ASSERT_FALSE(bool(pruned));
  EXPECT_NE(llvm::toString(pruned.takeError()).find("cannot prune the cache"),
            std::string::npos);
  llvm::Expected<ClearReport> cleared = store->clear();
  ASSERT_FALSE(bool(cleared));
  EXPECT_NE(llvm::toString(cleared.takeError()).find("cannot clear the cache"),
            std::string::npos);
  EXPECT_EQ(store->removeStaleTemporaries(), 0u);
  EXPECT_EQ(store->counters().stored, 0u);

  // Opening read-only a root that does not exist creates nothing.
  auto missing = openStore(dir.sub("nowhere"), CacheMode::ReadOnly, nullptr);
  EXPECT_FALSE(missing->lookup(a.computeKey()));
  EXPECT_FALSE(fs::exists(dir.sub("nowhere")));
}

TEST(CacheStoreTest, OffModeTouchesNothing) {
  TempDir dir;
  auto store = openStore(dir.sub("cache"), CacheMode::Off, nullptr);
  CacheKeyFactors f = makeFactors();
  EXPECT_FALSE(store->lookup(f.computeKey()));
  storeOk(*store, f, makeFiles(), StoreOutcome::NotWritten);
  llvm::Expected<std::optional<CacheEntry>> piece =
      store->lookupPiece(f, "graph0");
  ASSERT_TRUE(bool(piece));
  EXPECT_FALSE(*piece);
  EXPECT_FALSE(fs::exists(dir.sub("cache")));
}

TEST(CacheStoreTest, MustHitMissIsAnErrorNamingThePiece) {
  TempDir dir;
  CacheKeyFactors stored = makeFactors("attention_0");
  {
    auto writer = openStore(dir.str(), CacheMode::ReadWrite, nullptr);
    storeOk(*writer, stored, makeFiles());
  }
  auto store = openStore(dir.str(), CacheMode::MustHit, nullptr);
  llvm::Expected<std::optional<CacheEntry>> hit =
      store->lookupPiece(stored, "piece 0 (attention_0)");
  ASSERT_TRUE(bool(hit)) << llvm::toString(hit.takeError());
  ASSERT_TRUE(*hit);
  expectSameFiles(**hit, makeFiles());

  CacheKeyFactors other = stored;
  other.ptxasVersion = "12.8";
  llvm::Expected<std::optional<CacheEntry>> miss =
      store->lookupPiece(other, "piece 0 (attention_0)");
  ASSERT_FALSE(bool(miss));
  std::string message = llvm::toString(miss.takeError());
  EXPECT_NE(message.find("cache miss for piece 'piece 0 (attention_0)' in "
                         "must-hit mode"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("ptxas_version (wanted '12.8', entry has '12.4')"),
            std::string::npos)
      << message;

  // Must-hit never writes either.
  storeOk(*store, other, makeFiles(), StoreOutcome::NotWritten);
  // In readwrite mode the same miss is just a miss.
  auto rw = openStore(dir.str(), CacheMode::ReadWrite, nullptr);
  llvm::Expected<std::optional<CacheEntry>> plain =
      rw->lookupPiece(other, "piece 0");
  ASSERT_TRUE(bool(plain));
  EXPECT_FALSE(*plain);
}

TEST(CacheStoreTest, RootResolution) {
  const char *saved = ::getenv("MAGI_CACHE_DIR");
  std::string savedValue = saved ? saved : "";
  ::setenv("MAGI_CACHE_DIR", "/from/env", 1);
  EXPECT_EQ(resolveCacheRoot("/explicit"), "/explicit");
  EXPECT_EQ(resolveCacheRoot(""), "/from/env");
  ::setenv("MAGI_CACHE_DIR", "", 1);
  std::string fallback = resolveCacheRoot("");
  EXPECT_TRUE(llvm::StringRef(fallback).ends_with("/.cache/magi")) << fallback;
  ::unsetenv("MAGI_CACHE_DIR");
  EXPECT_EQ(resolveCacheRoot(""), fallback);
  if (saved)
    ::setenv("MAGI_CACHE_DIR", savedValue.c_str(), 1);

  llvm::Expected<std::unique_ptr<CacheStore>> none =
      CacheStore::open("", CacheMode::ReadWrite);
  ASSERT_FALSE(bool(none));
  EXPECT_NE(llvm::toString(none.takeError()).find("no cache directory"),
            std::string::npos);
}

TEST(CacheStoreTest, ByteSizes) {
  EXPECT_EQ(parseByteSize("0"), 0u);
  EXPECT_EQ(parseByteSize("1234"), 1234u);
  EXPECT_EQ(parseByteSize("64K"), 64u << 10);
  EXPECT_EQ(parseByteSize("64k"), 64u << 10);
  EXPECT_EQ(parseByteSize("10M"), 10u << 20);
  EXPECT_EQ(parseByteSize("10MB"), 10u << 20);
  EXPECT_EQ(parseByteSize("10MiB"), 10u << 20);
  EXPECT_EQ(parseByteSize("2G"), uint64_t(2) << 30);
  EXPECT_EQ(parseByteSize("1T"), uint64_t(1) << 40);
  EXPECT_EQ(parseByteSize("100B"), 100u);
  EXPECT_FALSE(parseByteSize(""));
  EXPECT_FALSE(parseByteSize("M"));
  EXPECT_FALSE(parseByteSize("10X"));
  EXPECT_FALSE(parseByteSize("1.5G"));
  EXPECT_FALSE(parseByteSize("-1"));
  EXPECT_FALSE(parseByteSize("100000000000T"));
}

//===----------------------------------------------------------------------===//
// Model indexes
//===----------------------------------------------------------------------===//

TEST(CacheStoreTest, ModelIndexRecordsAndLooksUp) {
  TempDir dir;
  std::vector<std::string> warnings;
  auto store = openStore(dir.str(), CacheMode::ReadWrite, &warnings);
  ModelId model{"llama-3.1-8b", "9f8e7d", 1};
  EXPECT_EQ(model.dirName(), "llama-3.1-8b-9f8e7d-rank1");
  CacheKeyFactors dyn = makeFactors("p0"), s128 = makeFactors("p0");
  s128.runtimeShape = "s0=128";
  storeOk(*store, dyn, makeFiles());
  storeOk(*store, s128, makeFiles());

  IndexRecord record;
  record.backend = "ptx";
  record.graphIndex = 3;
  record.key = dyn.computeKey();
  ASSERT_EQ(errorOf(store->recordInIndex(model, record)), "");
  record.runtimeShape = "s0=128";
  record.key = s128.computeKey();
  ASSERT_EQ(errorOf(store->recordInIndex(model, record)), "");

  EXPECT_EQ(store->lookupIndex(model, "dynamic", 3, "ptx"), dyn.computeKey());
  EXPECT_EQ(store->lookupIndex(model, "s0=128", 3, "ptx"), s128.computeKey());
  EXPECT_FALSE(store->lookupIndex(model, "dynamic", 4, "ptx"));
  EXPECT_FALSE(store->lookupIndex(model, "dynamic", 3, "cubin"));
  EXPECT_FALSE(
      store->lookupIndex({"llama-3.1-8b", "9f8e7d", 0}, "dynamic", 3, "ptx"));

  // The same slot is replaced, not duplicated.
  record.key = dyn.computeKey();
  ASSERT_EQ(errorOf(store->recordInIndex(model, record)), "");
  llvm::Expected<ModelIndex> index = store->readIndex(model);
  ASSERT_TRUE(bool(index));
  ASSERT_EQ(index->records.size(), 2u);
  EXPECT_EQ(index->records[1].key, dyn.computeKey());
  EXPECT_EQ(index->records[1].path, CacheStore::entryPath(dyn.computeKey()));

  // Human-readable JSON, no leftovers.
  std::string json =
      readFile(dir.sub("models/" + model.dirName() + "/index.json"));
  EXPECT_NE(json.find("\"model_tag\": \"llama-3.1-8b\""), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"runtime_shape\": \"s0=128\""), std::string::npos)
      << json;
  EXPECT_EQ(listNames(dir.sub("models/" + model.dirName())),
            (std::vector<std::string>{"index.json", "index.lock"}));

  std::vector<ModelIndex> models = store->listModels();
  ASSERT_EQ(models.size(), 1u);
  EXPECT_EQ(models[0].model.tag, "llama-3.1-8b");
  EXPECT_EQ(models[0].model.rank, 1u);

  // Bad identities are refused.
  EXPECT_NE(errorOf(store->recordInIndex({"../x", "abc", 0}, record))
                .find("invalid model tag '../x'"),
            std::string::npos);
  EXPECT_NE(errorOf(store->recordInIndex({"m", "a-b", 0}, record))
                .find("invalid graph hash 'a-b'"),
            std::string::npos);
  EXPECT_TRUE(warnings.empty()) << joinLines(warnings);
}

TEST(CacheStoreTest, DamagedIndexIsReportedAndRebuilt) {
  TempDir dir;
  std::vector<std::string> warnings;
  auto store = openStore(dir.str(), CacheMode::ReadWrite, &warnings);
  ModelId model{"m", "abc", 0};
  CacheKeyFactors f = makeFactors();
  storeOk(*store, f, makeFiles());
  IndexRecord record;
  record.backend = "ptx";
  record.key = f.computeKey();
  ASSERT_EQ(errorOf(store->recordInIndex(model, record)), "");
  std::string indexFile = dir.sub("models/m-abc-rank0/index.json");
  writeFile(indexFile, "{\"format\": \"magi-cache-index\", \"vers");

  VerifyReport report = store->verify(false);
  ASSERT_EQ(report.badIndexes.size(), 1u);
  EXPECT_NE(report.badIndexes[0].second.find("is damaged: not valid JSON"),
            std::string::npos)
      << report.badIndexes[0].second;
  EXPECT_FALSE(store->lookupIndex(model, "dynamic", 0, "ptx"));
  EXPECT_TRUE(anyContains(warnings, "index.json' is damaged"));
  // The entry itself is fine, and recording again rebuilds the index.
  EXPECT_TRUE(store->lookup(f.computeKey()));
  ASSERT_EQ(errorOf(store->recordInIndex(model, record)), "");
  EXPECT_EQ(store->lookupIndex(model, "dynamic", 0, "ptx"), f.computeKey());
  EXPECT_TRUE(store->verify(false).clean());
}

//===----------------------------------------------------------------------===//
// Verify, prune, clear, explain
//===----------------------------------------------------------------------===//

TEST(CacheStoreTest, VerifyFixRemovesDamageAndDanglingRecords) {
  TempDir dir;
  auto store = openStore(dir.str(), CacheMode::ReadWrite, nullptr);
  CacheKeyFactors good = makeFactors("good"), bad = makeFactors("bad");
  storeOk(*store, good, makeFiles("good"));
  storeOk(*store, bad, makeFiles("bad"));
  ModelId model{"m", "abc", 0};
  IndexRecord record;
  record.backend = "ptx";
  record.key = good.computeKey();
  ASSERT_EQ(errorOf(store->recordInIndex(model, record)), "");
  record.graphIndex = 1;
  record.key = bad.computeKey();
  ASSERT_EQ(errorOf(store->recordInIndex(model, record)), "");
  EXPECT_TRUE(store->verify(false).clean());

  flipByte(dir.sub(CacheStore::entryPath(bad.computeKey()) + "/plan.json"), 2);
  VerifyReport report = store->verify(/*fix=*/true);
  EXPECT_EQ(report.entriesChecked, 2u);
  ASSERT_EQ(report.damaged.size(), 1u);
  EXPECT_EQ(report.damaged[0].first, CacheStore::entryPath(bad.computeKey()));
  ASSERT_EQ(report.danglingRecords.size(), 1u);
  EXPECT_NE(
      report.danglingRecords[0].find("m-abc-rank0: graph 1 shape dynamic"),
      std::string::npos)
      << report.danglingRecords[0];
  EXPECT_TRUE(report.fixed);

  VerifyReport after = store->verify(false);
  EXPECT_TRUE(after.clean());
  EXPECT_EQ(after.entriesChecked, 1u);
  EXPECT_EQ(store->lookupIndex(model, "dynamic", 0, "ptx"), good.computeKey());
  EXPECT_FALSE(store->lookupIndex(model, "dynamic", 1, "ptx"));
}

TEST(CacheStoreTest, PruneRemovesLeastRecentlyUsedFirst) {
  TempDir dir;
  auto store = openStore(dir.str(), CacheMode::ReadWrite, nullptr);
  CacheKeyFactors a = makeFactors("a"), b = makeFactors("b"),
                  c = makeFactors("c");
  storeOk(*store, a, makeFiles("a"));
  storeOk(*store, b, makeFiles("b"));
  storeOk(*store, c, makeFiles("c"));
  // Stored in the order a, b, c, long ago...
  setAge(dir.sub(CacheStore::entryPath(a.computeKey())), 300);
  setAge(dir.sub(CacheStore::entryPath(b.computeKey())), 200);
  setAge(dir.sub(CacheStore::entryPath(c.computeKey())), 100);
  // ...then a is used again: b is now the least recently used.
  ASSERT_TRUE(store->lookup(a.computeKey()));

  std::vector<EntryInfo> entries = store->listEntries();
  ASSERT_EQ(entries.size(), 3u);
  uint64_t entrySize = entries[0].bytes;
  uint64_t total = 0;
  for (const EntryInfo &e : entries)
    total += e.bytes;
  EXPECT_EQ(store->stats().entryBytes, total);

  // Nothing to do under a generous limit.
  llvm::Expected<PruneReport> none = store->prune(total);
  ASSERT_TRUE(bool(none));
  EXPECT_TRUE(none->removed.empty());

  llvm::Expected<PruneReport> first = store->prune(total - 1);
  ASSERT_TRUE(bool(first));
  ASSERT_EQ(first->removed.size(), 1u);
  EXPECT_EQ(first->removed[0].key, b.computeKey());
  EXPECT_EQ(first->bytesBefore, total);
  EXPECT_LE(first->bytesAfter, total - 1);

  llvm::Expected<PruneReport> second = store->prune(entrySize + 1);
  ASSERT_TRUE(bool(second));
  ASSERT_EQ(second->removed.size(), 1u);
  EXPECT_EQ(second->removed[0].key, c.computeKey());
  EXPECT_TRUE(store->lookup(a.computeKey()));
  EXPECT_FALSE(store->lookup(b.computeKey()));
  EXPECT_FALSE(store->lookup(c.computeKey()));

  llvm::Expected<PruneReport> all = store->prune(0);
  ASSERT_TRUE(bool(all));
  EXPECT_EQ(all->removed.size(), 1u);
  EXPECT_EQ(all->bytesAfter, 0u);
  EXPECT_TRUE(store->listEntries().empty());
}

TEST(CacheStoreTest, PruneDropsIndexRecordsOfRemovedEntries) {
  TempDir dir;
  auto store = openStore(dir.str(), CacheMode::ReadWrite, nullptr);
  CacheKeyFactors a = makeFactors("a"), b = makeFactors("b");
  storeOk(*store, a, makeFiles("a"));
  storeOk(*store, b, makeFiles("b"));
  setAge(dir.sub(CacheStore::entryPath(a.computeKey())), 100);
  ModelId model{"m", "abc", 0};
  IndexRecord record;
  record.backend = "ptx";
  record.key = a.computeKey();
  ASSERT_EQ(errorOf(store->recordInIndex(model, record)), "");
  record.graphIndex = 1;
  record.key = b.computeKey();
  ASSERT_EQ(errorOf(store->recordInIndex(model, record)), "");

  std::vector<EntryInfo> entries = store->listEntries();
  llvm::Expected<PruneReport> report =
      store->prune(entries[0].bytes + entries[1].bytes - 1);
  ASSERT_TRUE(bool(report));
  ASSERT_EQ(report->removed.size(), 1u);
  EXPECT_EQ(report->removed[0].key, a.computeKey());
  EXPECT_EQ(report->indexRecordsDropped, 1u);
  EXPECT_FALSE(store->lookupIndex(model, "dynamic", 0, "ptx"));
  EXPECT_EQ(store->lookupIndex(model, "dynamic", 1, "ptx"), b.computeKey());
  EXPECT_TRUE(store->verify(false).clean());
}

TEST(CacheStoreTest, PruneLeavesEntriesBeingWritten) {
  TempDir dir;
  auto store = openStore(dir.str(), CacheMode::ReadWrite, nullptr);
  CacheKeyFactors a = makeFactors("a"), b = makeFactors("b");
  storeOk(*store, a, makeFiles("a"));
  // Prune from inside another store's write: the entry in progress lives in
  // tmp/ under a held lock, and is neither counted nor removed.
  auto pruner = openStore(dir.str(), CacheMode::ReadWrite, nullptr);
  std::string seenTemp;
  CacheTestHooks hooks;
  hooks.afterHalfWritten = [&](llvm::StringRef tempDir) {
    seenTemp = tempDir.str();
    llvm::Expected<PruneReport> report = pruner->prune(0);
    ASSERT_TRUE(bool(report));
    EXPECT_EQ(report->removed.size(), 1u);
    EXPECT_EQ(report->staleTemporariesRemoved, 0u);
    EXPECT_TRUE(fs::exists(tempDir));
  };
  store->setTestHooks(hooks);
  storeOk(*store, b, makeFiles("b"));
  EXPECT_FALSE(seenTemp.empty());
  EXPECT_FALSE(store->lookup(a.computeKey()));
  EXPECT_TRUE(store->lookup(b.computeKey()));
}

TEST(CacheStoreTest, ClearRemovesEverything) {
  TempDir dir;
  auto store = openStore(dir.str(), CacheMode::ReadWrite, nullptr);
  CacheKeyFactors a = makeFactors("a"), b = makeFactors("b");
  storeOk(*store, a, makeFiles("a"));
  storeOk(*store, b, makeFiles("b"));
  IndexRecord record;
  record.backend = "ptx";
  record.key = a.computeKey();
  ASSERT_EQ(errorOf(store->recordInIndex({"m", "abc", 0}, record)), "");
  ASSERT_FALSE(fs::create_directories(dir.sub("tmp/entry-999999-dead")));

  StoreStats before = store->stats();
  llvm::Expected<ClearReport> report = store->clear();
  ASSERT_TRUE(bool(report));
  EXPECT_EQ(report->entries, 2u);
  EXPECT_EQ(report->entryBytes, before.entryBytes);
  EXPECT_EQ(report->models, 1u);
  EXPECT_EQ(report->temporaries, 1u);
  EXPECT_TRUE(store->listEntries().empty());
  EXPECT_TRUE(store->listModels().empty());
  EXPECT_TRUE(listNames(dir.sub("tmp")).empty());
  EXPECT_TRUE(listNames(dir.sub("store")).empty());
  // Still usable.
  storeOk(*store, a, makeFiles("a"));
  EXPECT_TRUE(store->lookup(a.computeKey()));
}

TEST(CacheStoreTest, StatsCountWhatIsThere) {
  TempDir dir;
  auto store = openStore(dir.str(), CacheMode::ReadWrite, nullptr);
  StoreStats empty = store->stats();
  EXPECT_EQ(empty.entries, 0u);
  EXPECT_FALSE(empty.oldestUse);
  storeOk(*store, makeFactors("a"), makeFiles("a"));
  storeOk(*store, makeFactors("b"), {{"kernel.ptx", "x"}});
  IndexRecord record;
  record.backend = "ptx";
  record.key = makeFactors("a").computeKey();
  ASSERT_EQ(errorOf(store->recordInIndex({"m", "abc", 0}, record)), "");
  ASSERT_EQ(errorOf(store->recordInIndex({"n", "abc", 0}, record)), "");
  StoreStats stats = store->stats();
  EXPECT_EQ(stats.entries, 2u);
  EXPECT_EQ(stats.files, 4u);
  EXPECT_EQ(stats.models, 2u);
  EXPECT_EQ(stats.indexRecords, 2u);
  EXPECT_EQ(stats.temporaries, 0u);
  EXPECT_TRUE(stats.oldestUse && stats.newestUse);
}

TEST(CacheStoreTest, ExplainNamesTheDifferingFactor) {
  TempDir dir;
  auto store = openStore(dir.str(), CacheMode::ReadWrite, nullptr);
  CacheKeyFactors query = makeFactors("rms_norm");
  EXPECT_EQ(store->explainMiss(query),
            "the cache holds no entry to compare with");

  // The same piece compiled with another ptxas, and an unrelated piece.
  CacheKeyFactors oldPtxas = query;
  oldPtxas.ptxasVersion = "12.3";
  CacheKeyFactors unrelated = makeFactors("softmax");
  unrelated.targetChip = "sm_80";
  storeOk(*store, oldPtxas, makeFiles());
  storeOk(*store, unrelated, makeFiles());

  std::string text = store->explainMiss(query);
  EXPECT_NE(text.find("closest entry " +
                      CacheStore::entryPath(oldPtxas.computeKey()) +
                      " has 9 of 10 key factors equal"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("differs in ptxas_version (wanted '12.4', entry has "
                      "'12.3')"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("piece_ir"), std::string::npos) << text;

  // Two factors apart: both are named.
  CacheKeyFactors twoOff = query;
  twoOff.ptxasVersion = "12.5";
  twoOff.salt = "retry";
  text = store->explainMiss(twoOff);
  EXPECT_NE(text.find("has 8 of 10"), std::string::npos) << text;
  EXPECT_NE(text.find("differs in ptxas_version (wanted '12.5', entry has "
                      "'12.3'); salt (wanted 'retry', entry has (empty))"),
            std::string::npos)
      << text;

  CacheKeyFactors newPiece = oldPtxas;
  newPiece.pieceIR += "// changed\n";
  text = store->explainMiss(newPiece);
  EXPECT_NE(text.find("differs in piece_ir (wanted 'sha256:"),
            std::string::npos)
      << text;
}

//===----------------------------------------------------------------------===//
// Processes: concurrency, a killed writer, read-only directory, full disk
//===----------------------------------------------------------------------===//

TEST(CacheProcessTest, EightProcessesStoreAtOnce) {
  TempDir dir;
  constexpr int kProcesses = 8, kShared = 12, kOwn = 6;
  int start[2];
  ASSERT_EQ(::pipe(start), 0);
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid != 0) {
      children.push_back(pid);
      continue;
    }
    // Child: wait for the start signal so that all write at once.
    ::close(start[1]);
    char go;
    (void)!::read(start[0], &go, 1);
    int failures = 0;
    auto store = CacheStore::open(dir.str(), CacheMode::ReadWrite,
                                  [&](const std::string &) { ++failures; });
    if (!store)
      ::_exit(2);
    for (int i = 0; i < kShared + kOwn; ++i) {
      // Alternate the order so that processes collide on shared keys.
      int k = (i + p) % (kShared + kOwn);
      std::string name =
          k < kShared ? "shared" + std::to_string(k)
                      : "own" + std::to_string(p) + "_" + std::to_string(k);
      CacheKeyFactors f = makeFactors(name);
      llvm::Expected<StoreOutcome> outcome =
          (*store)->store(f.computeKey(), f, makeFiles(name));
      if (!outcome) {
        llvm::consumeError(outcome.takeError());
        ::_exit(3);
      }
      IndexRecord record;
      record.backend = "ptx";
      record.graphIndex = p * 100 + k;
      record.key = f.computeKey();
      if (llvm::Error err =
              (*store)->recordInIndex({"model", "abc", 0}, record)) {
        llvm::consumeError(std::move(err));
        ::_exit(4);
      }
      std::optional<CacheEntry> entry = (*store)->lookup(f.computeKey());
      if (!entry || entry->file("plan.json")->data != makeFiles(name)[2].data)
        ::_exit(5);
    }
    ::_exit(failures == 0 ? 0 : 6);
  }
  ::close(start[0]);
  ::close(start[1]); // Go.
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "child exited with " << status;
  }

  std::vector<std::string> warnings;
  auto store = openStore(dir.str(), CacheMode::ReadOnly, &warnings);
  VerifyReport report = store->verify(false);
  EXPECT_TRUE(report.clean());
  EXPECT_EQ(report.entriesChecked, unsigned(kShared + kProcesses * kOwn));
  llvm::Expected<ModelIndex> index = store->readIndex({"model", "abc", 0});
  ASSERT_TRUE(bool(index));
  // No index update was lost.
  EXPECT_EQ(index->records.size(), size_t(kProcesses * (kShared + kOwn)));
  EXPECT_TRUE(listNames(dir.sub("tmp")).empty())
      << joinLines(listNames(dir.sub("tmp")));
  for (int k = 0; k < kShared; ++k) {
    std::string name = "shared" + std::to_string(k);
    std::optional<CacheEntry> entry =
        store->lookup(makeFactors(name).computeKey());
    ASSERT_TRUE(entry) << name;
    expectSameFiles(*entry, makeFiles(name));
  }
  EXPECT_TRUE(warnings.empty()) << joinLines(warnings);
}

TEST(CacheProcessTest, WriterKilledMidWriteIsRecoveredFrom) {
  TempDir dir;
  CacheKeyFactors factors = makeFactors();
  CacheKey key = factors.computeKey();
  // A big first file, so that "half written" is a real partial file.
  std::vector<CacheFile> files = makeFiles();
  files[0].data.append(std::string(1 << 20, 'k'));
  {
    auto store = openStore(dir.str(), CacheMode::ReadWrite, nullptr);
    ASSERT_TRUE(store);
  }

  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(ready[0]);
    auto store = CacheStore::open(dir.str(), CacheMode::ReadWrite);
    if (!store)
      ::_exit(2);
    CacheTestHooks hooks;
    hooks.afterHalfWritten = [&](llvm::StringRef) {
      (void)!::write(ready[1], "h", 1);
      for (;;)
        ::pause(); // Killed here.
    };
    (*store)->setTestHooks(hooks);
    (void)(*store)->store(key, factors, files);
    ::_exit(3); // Never reached.
  }
  ::close(ready[1]);
  char signal;
  ASSERT_EQ(::read(ready[0], &signal, 1), 1);
  ::close(ready[0]);

  // Mid-write: the entry exists only in tmp/, half written, under a held lock.
  std::vector<std::string> temps = listNames(dir.sub("tmp"));
  ASSERT_EQ(temps.size(), 2u) << joinLines(temps);
  std::string tempDir = dir.sub("tmp/" + temps[0]);
  EXPECT_EQ(temps[1], temps[0] + ".lock");
  uint64_t partial = 0;
  ASSERT_FALSE(fs::file_size(tempDir + "/kernel.ptx", partial));
  EXPECT_EQ(partial, files[0].data.size() / 2);
  {
    // Another process that stores (and so cleans tmp/) leaves a live writer
    // alone, and does not see its entry.
    std::vector<std::string> warnings;
    auto other = openStore(dir.str(), CacheMode::ReadWrite, &warnings);
    EXPECT_FALSE(other->lookup(key));
    storeOk(*other, makeFactors("other"), makeFiles("other"));
    EXPECT_EQ(other->removeStaleTemporaries(), 0u);
    EXPECT_TRUE(fs::exists(tempDir));
    EXPECT_TRUE(other->verify(false).clean());
    EXPECT_TRUE(warnings.empty()) << joinLines(warnings);
  }

  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  // Dead: verify reports the left-over, the next store recovers.
  std::vector<std::string> warnings;
  auto reader = openStore(dir.str(), CacheMode::ReadOnly, &warnings);
  EXPECT_FALSE(reader->lookup(key));
  EXPECT_EQ(reader->verify(false).staleTemporaries,
            (std::vector<std::string>{"tmp/" + temps[0]}));
  auto store = openStore(dir.str(), CacheMode::ReadWrite, &warnings);
  EXPECT_FALSE(store->lookup(key));
  storeOk(*store, factors, files);
  EXPECT_TRUE(listNames(dir.sub("tmp")).empty())
      << joinLines(listNames(dir.sub("tmp")));
  std::optional<CacheEntry> entry = store->lookup(key);
  ASSERT_TRUE(entry);
  expectSameFiles(*entry, files);
  EXPECT_TRUE(store->verify(false).clean());
  EXPECT_TRUE(warnings.empty()) << joinLines(warnings);
}

/// Makes `dir` read-only for this (child) process: chmod for an ordinary
/// user; as root, whom chmod does not stop, a read-only bind mount in a
/// private mount namespace. Returns "" on success, else why not.
std::string makeReadOnlyInChild(const std::string &dir) {
  if (::geteuid() != 0) {
    TempDir::chmodDirs(dir, 0555);
    return "";
  }
  if (::unshare(CLONE_NEWNS) != 0)
    return std::string("unshare(CLONE_NEWNS) failed: ") + strerror(errno);
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return std::string("making / private failed: ") + strerror(errno);
  if (::mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND | MS_REC, nullptr) !=
      0)
    return std::string("bind mount failed: ") + strerror(errno);
  if (::mount(nullptr, dir.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY,
              nullptr) != 0)
    return std::string("read-only remount failed: ") + strerror(errno);
  return "";
}

TEST(CacheProcessTest, ReadOnlyDirectory) {
  TempDir dir;
  CacheKeyFactors a = makeFactors("a"), b = makeFactors("b");
  {
    auto writer = openStore(dir.str(), CacheMode::ReadWrite, nullptr);
    storeOk(*writer, a, makeFiles("a"));
    storeOk(*writer, b, makeFiles("b"));
    IndexRecord record;
    record.backend = "ptx";
    record.key = a.computeKey();
    ASSERT_EQ(errorOf(writer->recordInIndex({"m", "abc", 0}, record)), "");
  }
  flipByte(dir.sub(CacheStore::entryPath(b.computeKey()) + "/kernel.ptx"), 0);

  ChildResult result = runInChild([&](ChildChecks &checks) -> int {
    std::string why = makeReadOnlyInChild(dir.str());
    if (!why.empty()) {
      checks.note(why);
      return kSkipCode;
    }
    // The directory really is read-only now.
    std::string probe = dir.sub("probe");
    int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT, 0644);
    if (!checks.check(fd < 0, "a file could be created in the read-only dir"))
      return 1;
    checks.note(::geteuid() == 0 ? "method: read-only bind mount (root)"
                                 : "method: chmod 0555");

    std::vector<std::string> warnings;
    for (CacheMode mode : {CacheMode::ReadOnly, CacheMode::MustHit}) {
      auto store = CacheStore::open(dir.str(), mode, [&](const std::string &m) {
        warnings.push_back(m);
      });
      if (!checks.check(bool(store), "open failed"))
        return 1;
      std::optional<CacheEntry> hit = (*store)->lookup(a.computeKey());
      checks.check(hit && hit->file("plan.json") &&
                       hit->file("plan.json")->data == makeFiles("a")[2].data,
                   "readonly lookup did not hit");
      checks.check(!(*store)->lookup(b.computeKey()),
                   "a damaged entry was returned");
      checks.check((*store)->lookupIndex({"m", "abc", 0}, "dynamic", 0,
                                         "ptx") == a.computeKey(),
                   "the index could not be read");
      checks.check((*store)->verify(false).damaged.size() == 1,
                   "verify did not report the damaged entry");
    }
    checks.check(anyContains(warnings, "not removed: the cache is read-only"),
                 "no warning for the damaged entry: " + joinLines(warnings));

    // Readwrite on a read-only directory: a warning, then read-only.
    warnings.clear();
    auto store =
        CacheStore::open(dir.str(), CacheMode::ReadWrite,
                         [&](const std::string &m) { warnings.push_back(m); });
    if (!checks.check(bool(store), "readwrite open failed"))
      return 1;
    checks.check((*store)->mode() == CacheMode::ReadOnly,
                 "readwrite on a read-only dir did not fall back");
    checks.check(anyContains(warnings, "cannot be written") &&
                     anyContains(warnings, "using it read-only"),
                 "no clear warning: " + joinLines(warnings));
    checks.check(bool((*store)->lookup(a.computeKey())), "fallback lookup");
    CacheKeyFactors c = makeFactors("c");
    llvm::Expected<StoreOutcome> outcome =
        (*store)->store(c.computeKey(), c, makeFiles("c"));
    checks.check(outcome && *outcome == StoreOutcome::NotWritten,
                 "store on a read-only dir did not skip");
    if (!outcome)
      llvm::consumeError(outcome.takeError());
    return checks.exitCode();
  });
  if (result.exitCode == kSkipCode)
    GTEST_SKIP() << "cannot make a directory read-only here: "
                 << result.messages;
  EXPECT_EQ(result.exitCode, 0) << result.messages;
  // Nothing changed: the damaged entry is still there, nothing was added.
  EXPECT_TRUE(fs::exists(dir.sub(CacheStore::entryPath(b.computeKey()))));
  EXPECT_FALSE(fs::exists(dir.sub("probe")));
  auto store = openStore(dir.str(), CacheMode::ReadOnly, nullptr);
  EXPECT_EQ(store->listEntries().size(), 2u);
}

TEST(CacheProcessTest, FullDisk) {
  TempDir dir;
  std::string root = dir.sub("tiny");
  ASSERT_FALSE(fs::create_directories(root));
  ChildResult result = runInChild([&](ChildChecks &checks) -> int {
    if (::geteuid() != 0) {
      checks.note("mounting a small tmpfs needs root (the injected-error "
                  "test covers this path)");
      return kSkipCode;
    }
    if (::unshare(CLONE_NEWNS) != 0 ||
        ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("tmpfs", root.c_str(), "tmpfs", 0, "size=64k") != 0) {
      checks.note(std::string("cannot mount a 64 KiB tmpfs: ") +
                  strerror(errno));
      return kSkipCode;
    }
    std::vector<std::string> warnings;
    auto store =
        CacheStore::open(root, CacheMode::ReadWrite,
                         [&](const std::string &m) { warnings.push_back(m); });
    if (!checks.check(bool(store), "open failed"))
      return 1;
    checks.check((*store)->mode() == CacheMode::ReadWrite, "not writable");
    CacheKeyFactors big = makeFactors("big");
    std::vector<CacheFile> files = makeFiles("big");
    files[1].data = std::string(256 << 10, 'c'); // 256 KiB > 64 KiB.
    llvm::Expected<StoreOutcome> outcome =
        (*store)->store(big.computeKey(), big, files);
    if (checks.check(!outcome, "a 256 KiB entry fit in 64 KiB")) {
      std::string message = llvm::toString(outcome.takeError());
      checks.check(
          llvm::StringRef(message).contains("No space left on device") &&
              llvm::StringRef(message).contains("was not stored"),
          "unclear message: " + message);
    } else {
      llvm::consumeError(outcome.takeError());
    }
    checks.check(listNames(root + "/tmp").empty(),
                 "left-overs in tmp/: " + joinLines(listNames(root + "/tmp")));
    checks.check(!(*store)->lookup(big.computeKey()), "half an entry hit");
    // The space was given back: a small entry fits.
    CacheKeyFactors small = makeFactors("small");
    llvm::Expected<StoreOutcome> smallOutcome =
        (*store)->store(small.computeKey(), small, makeFiles("small"));
    checks.check(smallOutcome && *smallOutcome == StoreOutcome::Stored,
                 "a small entry did not fit afterwards");
    if (!smallOutcome)
      llvm::consumeError(smallOutcome.takeError());
    checks.check(bool((*store)->lookup(small.computeKey())), "small lookup");
    checks.check((*store)->verify(false).clean(), "verify not clean");
    return checks.exitCode();
  });
  if (result.exitCode == kSkipCode)
    GTEST_SKIP() << result.messages;
  EXPECT_EQ(result.exitCode, 0) << result.messages;
}

} // namespace
