//===- magi-cache.cpp - Inspect and maintain Magi's compile cache ---------===//
//
//   magi-cache [--cache-dir=D] ls | stats | verify [--fix]
//            | prune --max-size=N[K|M|G|T] | clear | explain <model-tag>
//            | put ... | get ...
//
// `put` and `get` insert and fetch entries by hand: the way tests (and tools
// without a compiler of their own) put entries in a cache. See docs/cache.md.
//
//===----------------------------------------------------------------------===//

#include "magi/Cache/CacheStore.h"
#include "magi/Support/Version.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace magi::cache;
namespace cl = llvm::cl;

static cl::OptionCategory category("magi-cache options");

static cl::list<std::string> positional(cl::Positional,
                                        cl::desc("<command> [arguments...]"),
                                        cl::cat(category));
static cl::opt<std::string>
    cacheDir("cache-dir",
             cl::desc("Cache root (default: $MAGI_CACHE_DIR, else "
                      "~/.cache/magi)"),
             cl::value_desc("dir"), cl::cat(category));
static cl::opt<bool> fix("fix", cl::desc("verify: remove what is damaged"),
                         cl::cat(category));
static cl::opt<std::string> maxSize(
    "max-size",
    cl::desc("prune: the size to prune to (bytes; K, M, G, T suffixes)"),
    cl::value_desc("size"), cl::cat(category));
// put / get
static cl::opt<std::string> model("model",
                                  cl::desc("put: the model tag to index under"),
                                  cl::value_desc("tag"), cl::cat(category));
static cl::opt<std::string> graphHash("graph-hash",
                                      cl::desc("put: the model's graph hash"),
                                      cl::value_desc("hex"), cl::init("0"),
                                      cl::cat(category));
static cl::opt<unsigned> rank("rank", cl::desc("put: the model's rank"),
                              cl::init(0), cl::cat(category));
static cl::opt<int64_t> graphIndex("graph-index",
                                   cl::desc("put: the piece's graph index"),
                                   cl::init(0), cl::cat(category));
static cl::opt<std::string> backend("backend",
                                    cl::desc("put: the index's backend"),
                                    cl::init("ptx"), cl::cat(category));
static cl::opt<std::string>
    shape("shape", cl::desc("put/get: the runtime shape, or 'dynamic'"),
          cl::init("dynamic"), cl::cat(category));
static cl::list<std::string>
    factorArgs("factor",
               cl::desc("put/get: a key factor, name=value (repeatable)"),
               cl::value_desc("name=value"), cl::cat(category));
static cl::opt<std::string>
    irFile("ir-file", cl::desc("put/get: read the piece_ir factor from a file"),
           cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string>
    pieceName("piece", cl::desc("get: the piece's name, for messages"),
              cl::init("(unnamed)"), cl::cat(category));
static cl::opt<std::string>
    modeName("mode",
             cl::desc("get: readwrite (as a compiler would: a hit refreshes "
                      "the entry's last use, a damaged entry is removed), "
                      "readonly or must-hit"),
             cl::init("readwrite"), cl::cat(category));
static cl::opt<std::string>
    extractDir("o",
               cl::desc("get: write the entry's files into this directory"),
               cl::value_desc("dir"), cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "magi-cache: error: " << message << "\n";
  return 1;
}

static std::string formatTime(llvm::sys::TimePoint<> time) {
  return llvm::formatv("{0:%Y-%m-%d %H:%M:%S}", time).str();
}

static void warnHandler(const std::string &message) {
  llvm::errs() << "magi-cache: warning: " << message << "\n";
}

static llvm::Expected<std::unique_ptr<CacheStore>> openStore(CacheMode mode) {
  std::string root = resolveCacheRoot(cacheDir);
  return CacheStore::open(root, mode, warnHandler);
}

/// Checks that the command got exactly `count` operands.
static bool expectOperands(llvm::StringRef command, size_t count,
                           llvm::StringRef usage) {
  if (positional.size() - 1 == count)
    return true;
  fail("'" + command + "' takes " + (count ? usage : "no arguments") +
       "; usage: magi-cache " + command + (count ? " " + usage.str() : ""));
  return false;
}

//===----------------------------------------------------------------------===//
// Commands
//===----------------------------------------------------------------------===//

static int runList(CacheStore &store) {
  llvm::outs() << "cache: " << store.root() << "\n";
  std::vector<ModelIndex> models = store.listModels();
  llvm::outs() << "models: " << models.size() << "\n";
  for (const ModelIndex &index : models) {
    llvm::outs() << "  " << index.model.dirName() << " ("
                 << index.records.size() << " entries)\n";
    for (const IndexRecord &record : index.records) {
      bool present = llvm::sys::fs::exists(store.root() + "/" + record.path);
      llvm::outs() << "    graph " << record.graphIndex << " shape "
                   << record.runtimeShape << " backend " << record.backend
                   << " -> " << record.key.shortHex()
                   << (present ? "" : " (missing)") << "\n";
    }
  }
  std::vector<EntryInfo> entries = store.listEntries();
  llvm::outs() << "entries: " << entries.size() << "\n";
  for (const EntryInfo &info : entries)
    llvm::outs() << "  " << info.path << " " << info.bytes << " bytes, used "
                 << formatTime(info.lastUse) << "\n";
  return 0;
}

static int runStats(CacheStore &store) {
  StoreStats stats = store.stats();
  llvm::outs() << "cache: " << store.root() << "\n"
               << "entries: " << stats.entries << "\n"
               << "files: " << stats.files << "\n"
               << "bytes: " << stats.entryBytes << "\n"
               << "models: " << stats.models << "\n"
               << "index records: " << stats.indexRecords << "\n"
               << "temporaries: " << stats.temporaries << "\n";
  if (stats.oldestUse)
    llvm::outs() << "oldest use: " << formatTime(*stats.oldestUse) << "\n"
                 << "newest use: " << formatTime(*stats.newestUse) << "\n";
  return 0;
}

static int runVerify(CacheStore &store) {
  VerifyReport report = store.verify(fix);
  for (const auto &[entry, why] : report.damaged)
    llvm::outs() << "damaged: " << entry << ": " << why << "\n";
  for (const auto &[file, why] : report.badIndexes)
    llvm::outs() << "bad index: " << why << "\n";
  for (const std::string &record : report.danglingRecords)
    llvm::outs() << "dangling index record: " << record << "\n";
  for (const std::string &temp : report.staleTemporaries)
    llvm::outs() << "stale temporary: " << temp << "\n";
  size_t problems = report.damaged.size() + report.badIndexes.size() +
                    report.danglingRecords.size();
  size_t leftovers = report.staleTemporaries.size();
  llvm::outs() << "verified " << report.entriesChecked << " entries: ";
  if (report.clean()) {
    llvm::outs() << "all good\n";
    return 0;
  }
  if (report.sound()) {
    // A dead writer's left-overs: nothing a reader sees, so not a failure.
    llvm::outs() << "no damage, " << leftovers << " stale temporar"
                 << (leftovers == 1 ? "y" : "ies")
                 << (report.fixed ? ", removed" : "") << "\n";
    if (fix && !report.fixed)
      return fail("cannot fix: the cache is read-only");
    return 0;
  }
  llvm::outs() << problems << " problems";
  if (leftovers)
    llvm::outs() << ", " << leftovers << " stale temporar"
                 << (leftovers == 1 ? "y" : "ies");
  llvm::outs() << (report.fixed ? ", removed" : "") << "\n";
  if (fix && !report.fixed)
    return fail("cannot fix: the cache is read-only");
  // Damage was found, even if --fix removed it: scripts should know.
  return 1;
}

static int runPrune(CacheStore &store) {
  if (maxSize.getNumOccurrences() == 0)
    return fail("'prune' needs --max-size=N (bytes; K, M, G, T suffixes)");
  std::optional<uint64_t> limit = parseByteSize(maxSize);
  if (!limit)
    return fail("invalid --max-size '" + maxSize +
                "': expected a number of bytes with an optional K, M, G or T "
                "suffix");
  llvm::Expected<PruneReport> report = store.prune(*limit);
  if (!report)
    return fail(llvm::toString(report.takeError()));
  for (const EntryInfo &info : report->removed)
    llvm::outs() << "removed " << info.path << " (" << info.bytes
                 << " bytes, used " << formatTime(info.lastUse) << ")\n";
  llvm::outs() << "pruned " << report->removed.size()
               << " entries: " << report->bytesBefore << " -> "
               << report->bytesAfter << " bytes (limit " << *limit << ")";
  if (report->indexRecordsDropped)
    llvm::outs() << ", " << report->indexRecordsDropped
                 << " index records dropped";
  llvm::outs() << "\n";
  return 0;
}

static int runClear(CacheStore &store) {
  llvm::Expected<ClearReport> report = store.clear();
  if (!report)
    return fail(llvm::toString(report.takeError()));
  llvm::outs() << "removed " << report->entries << " entries ("
               << report->entryBytes << " bytes), " << report->models
               << " model indexes, " << report->temporaries
               << " stale temporaries from " << store.root() << "\n";
  return 0;
}

static int runExplain(CacheStore &store, llvm::StringRef tag) {
  unsigned found = 0;
  for (const ModelIndex &index : store.listModels()) {
    if (index.model.tag != tag)
      continue;
    ++found;
    llvm::outs() << "model " << index.model.dirName() << "\n";
    for (const IndexRecord &record : index.records) {
      llvm::outs() << "  graph " << record.graphIndex << " shape "
                   << record.runtimeShape << " backend " << record.backend
                   << "\n    key " << record.key << "\n    path " << record.path
                   << "\n";
      llvm::Expected<KeyFactorList> factors = store.readFactors(record.key);
      if (!factors) {
        llvm::outs() << "    (no factors: "
                     << llvm::toString(factors.takeError()) << ")\n";
        continue;
      }
      for (const KeyFactor &factor : *factors)
        llvm::outs() << "    " << factor.name << ": "
                     << (factor.value.empty() ? "(empty)"
                                              : "'" + factor.value + "'")
                     << "\n";
    }
  }
  if (!found)
    return fail("no model tagged '" + tag + "' in " + store.root());
  return 0;
}

/// The key factors given by --factor, --ir-file and --shape; the versions
/// default to this build's.
static llvm::Expected<CacheKeyFactors> factorsFromFlags() {
  CacheKeyFactors factors = CacheKeyFactors::forThisBuild();
  factors.runtimeShape = shape;
  for (const std::string &arg : factorArgs) {
    auto [name, value] = llvm::StringRef(arg).split('=');
    if (name.size() == arg.size())
      return llvm::createStringError("--factor '" + arg +
                                     "' is not name=value");
    std::string *field = factors.field(name);
    if (!field)
      return llvm::createStringError(
          "unknown key factor '" + name + "'; the factors are: " +
          llvm::join(CacheKeyFactors::factorNames(), ", "));
    *field = value.str();
  }
  if (!irFile.empty()) {
    auto buffer = llvm::MemoryBuffer::getFile(irFile, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return llvm::createStringError("cannot read '" + irFile +
                                     "': " + buffer.getError().message());
    factors.pieceIR = (*buffer)->getBuffer().str();
  }
  return factors;
}

static int runPut(CacheStore &store) {
  if (positional.size() < 2)
    return fail("'put' needs the files to store: magi-cache put [--model=TAG "
                "--graph-index=N --shape=S ...] [--factor name=value...] "
                "file...");
  if (!store.writable())
    return fail("cannot put into '" + store.root() + "': it cannot be written");
  ModelId id{model, graphHash, rank};
  if (!model.empty()) {
    std::string invalid = id.validate();
    if (!invalid.empty())
      return fail(invalid);
  }
  llvm::Expected<CacheKeyFactors> factors = factorsFromFlags();
  if (!factors)
    return fail(llvm::toString(factors.takeError()));
  std::vector<CacheFile> files;
  for (llvm::StringRef arg :
       llvm::ArrayRef<std::string>(positional).drop_front()) {
    // "name=path" stores `path` as `name`; a plain path keeps its file name.
    auto [name, file] = arg.split('=');
    if (file.empty()) {
      file = arg;
      name = llvm::sys::path::filename(arg);
    }
    auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return fail("cannot read '" + file + "': " + buffer.getError().message());
    files.push_back({name.str(), (*buffer)->getBuffer().str()});
  }
  CacheKey key = factors->computeKey();
  llvm::Expected<StoreOutcome> outcome = store.store(key, *factors, files);
  if (!outcome)
    return fail(llvm::toString(outcome.takeError()));
  llvm::outs() << (*outcome == StoreOutcome::Stored ? "stored " : "present ")
               << CacheStore::entryPath(key) << "\n";
  if (model.empty())
    return 0;
  IndexRecord record;
  record.runtimeShape = shape;
  record.graphIndex = graphIndex;
  record.backend = backend;
  record.key = key;
  if (llvm::Error err = store.recordInIndex(id, record))
    return fail(llvm::toString(std::move(err)));
  llvm::outs() << "indexed in models/" << id.dirName() << "\n";
  return 0;
}

static int runGet(CacheStore &store) {
  if (positional.size() != 1)
    return fail("'get' takes no operands: the key comes from --factor, "
                "--ir-file and --shape");
  llvm::Expected<CacheKeyFactors> factors = factorsFromFlags();
  if (!factors)
    return fail(llvm::toString(factors.takeError()));
  CacheKey key = factors->computeKey();
  llvm::Expected<std::optional<CacheEntry>> found =
      store.lookupPiece(*factors, pieceName);
  if (!found)
    return fail(llvm::toString(found.takeError()));
  std::optional<CacheEntry> &entry = *found;
  if (!entry) {
    llvm::outs() << "miss " << CacheStore::entryPath(key) << ": "
                 << store.explainMiss(*factors) << "\n";
    return 1;
  }
  llvm::outs() << "hit " << entry->path << "\n";
  for (const CacheFile &file : entry->files)
    llvm::outs() << "  " << file.name << " " << file.data.size() << " bytes\n";
  if (extractDir.empty())
    return 0;
  if (std::error_code ec = llvm::sys::fs::create_directories(extractDir))
    return fail("cannot create '" + extractDir + "': " + ec.message());
  for (const CacheFile &file : entry->files) {
    llvm::SmallString<256> out(extractDir);
    llvm::sys::path::append(out, file.name);
    std::error_code ec;
    llvm::raw_fd_ostream os(out, ec);
    if (!ec) {
      os << file.data;
      os.close();
      ec = os.error();
    }
    if (ec)
      return fail("cannot write '" + out + "': " + ec.message());
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { magi::printVersion(os); });
  cl::ParseCommandLineOptions(
      argc, argv,
      "magi-cache: inspect and maintain Magi's compile cache\n\n"
      "commands:\n"
      "  ls                    list the models and the entries\n"
      "  stats                 count entries, files, bytes\n"
      "  verify [--fix]        check every checksum; --fix removes damage\n"
      "  prune --max-size=N    remove least recently used entries down to N\n"
      "  clear                 remove every entry and index\n"
      "  explain <model-tag>   print the key factors of a model's entries\n"
      "  put [--model=T ...] [--factor k=v...] [name=]file...\n"
      "                        store files as an entry (for tests and tools)\n"
      "  get [--factor k=v...] [-o dir]\n"
      "                        look an entry up; explain a miss\n");

  if (positional.empty())
    return fail("no command; run 'magi-cache --help'");
  llvm::StringRef command = positional.front();

  // Commands that only read open the cache read-only, so that they work on a
  // directory that cannot be written and never change it.
  bool writes = command == "prune" || command == "clear" || command == "put" ||
                (command == "verify" && fix);
  bool known = llvm::is_contained(
      {"ls", "stats", "verify", "prune", "clear", "explain", "put", "get"},
      command);
  if (!known)
    return fail("unknown command '" + command +
                "'; the commands are ls, stats, verify, prune, clear, "
                "explain, put, get");
  CacheMode mode = writes ? CacheMode::ReadWrite : CacheMode::ReadOnly;
  if (command == "get") {
    std::optional<CacheMode> parsed = parseCacheMode(modeName);
    if (!parsed || *parsed == CacheMode::Off)
      return fail("invalid --mode '" + modeName +
                  "': expected readwrite, readonly or must-hit");
    mode = *parsed;
  }
  // An option of another command is a mistake, not something to ignore.
  struct CommandOption {
    const cl::Option &option;
    std::vector<llvm::StringRef> commands;
  };
  CommandOption commandOptions[] = {{fix, {"verify"}},
                                    {maxSize, {"prune"}},
                                    {model, {"put"}},
                                    {graphHash, {"put"}},
                                    {rank, {"put"}},
                                    {graphIndex, {"put"}},
                                    {backend, {"put"}},
                                    {shape, {"put", "get"}},
                                    {factorArgs, {"put", "get"}},
                                    {irFile, {"put", "get"}},
                                    {pieceName, {"get"}},
                                    {modeName, {"get"}},
                                    {extractDir, {"get"}}};
  for (const CommandOption &o : commandOptions)
    if (o.option.getNumOccurrences() &&
        !llvm::is_contained(o.commands, command))
      return fail("-" + std::string(o.option.ArgStr.size() > 1 ? "-" : "") +
                  o.option.ArgStr + " is an option of '" +
                  llvm::join(o.commands, "' and '") + "', not of '" + command +
                  "'");
  llvm::Expected<std::unique_ptr<CacheStore>> store = openStore(mode);
  if (!store)
    return fail(llvm::toString(store.takeError()));
  if (command != "put" && command != "get" && command != "explain" &&
      !expectOperands(command, 0, ""))
    return 1;

  if (command == "ls")
    return runList(**store);
  if (command == "stats")
    return runStats(**store);
  if (command == "verify")
    return runVerify(**store);
  if (command == "prune")
    return runPrune(**store);
  if (command == "clear")
    return runClear(**store);
  if (command == "explain") {
    if (!expectOperands(command, 1, "<model-tag>"))
      return 1;
    return runExplain(**store, positional[1]);
  }
  if (command == "put")
    return runPut(**store);
  return runGet(**store);
}
