//===- ArtifactCache.cpp - whole artifacts in the compile cache -----------===//

#include "magi/Compile/ArtifactCache.h"
#include "magi/Support/FileIO.h"
#include "magi/Target/GpuCompiler.h"
#include "magi/Import/TorchExport.h"
#include "magi/Runtime/Zip.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

namespace magi {

using cache::CacheFile;

// Entry file names are flat: "pieces/piece_0.ptx" is stored as
// "pieces.piece_0.ptx".
static constexpr llvm::StringLiteral kPiecesPrefix = "pieces.";

llvm::Error prepareArtifactDir(llvm::StringRef dir) {
  for (const char *name : {"manifest.json", "weights.bin"}) {
    std::error_code ec = llvm::sys::fs::remove((dir + "/" + name).str());
    if (ec)
      return llvm::createStringError(ec, "cannot remove '" + dir + "/" + name +
                                             "'");
  }
  // What a compile killed while writing left (writeFileChecked's temporary
  // files; those in pieces/ go with it below).
  std::error_code walkError;
  std::vector<std::string> stale;
  for (llvm::sys::fs::directory_iterator it(dir, walkError), end;
       !walkError && it != end; it.increment(walkError)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (name.starts_with("manifest.json.tmp-") &&
        it->type() == llvm::sys::fs::file_type::regular_file)
      stale.push_back(it->path());
  }
  for (const std::string &path : stale)
    if (std::error_code ec = llvm::sys::fs::remove(path))
      return llvm::createStringError(ec, "cannot remove '" + path + "'");
  if (std::error_code ec = llvm::sys::fs::remove_directories(dir + "/pieces"))
    return llvm::createStringError(ec, "cannot remove '" + dir + "/pieces'");
  if (std::error_code ec = llvm::sys::fs::create_directories(dir + "/pieces"))
    return llvm::createStringError(ec, "cannot create '" + dir + "/pieces'");
  return llvm::Error::success();
}

std::string relativePath(llvm::StringRef target, llvm::StringRef fromDir) {
  auto absolute = [](llvm::StringRef path) {
    llvm::SmallString<256> out(path);
    llvm::sys::fs::make_absolute(out);
    llvm::sys::path::remove_dots(out, /*remove_dot_dot=*/true);
    return out;
  };
  llvm::SmallString<256> a = absolute(target), b = absolute(fromDir);
  llvm::SmallVector<llvm::StringRef> ta(llvm::sys::path::begin(a), llvm::sys::path::end(a));
  llvm::SmallVector<llvm::StringRef> tb(llvm::sys::path::begin(b), llvm::sys::path::end(b));
  size_t common = 0;
  while (common < ta.size() && common < tb.size() && ta[common] == tb[common])
    ++common;
  llvm::SmallString<256> out;
  for (size_t i = common; i < tb.size(); ++i)
    llvm::sys::path::append(out, "..");
  for (size_t i = common; i < ta.size(); ++i)
    llvm::sys::path::append(out, ta[i]);
  return out.str().str();
}

llvm::Expected<std::string> inputIdentity(llvm::StringRef path) {
  if (isZipArchive(path)) {
    runtime::ZipDirectory zip;
    std::string error;
    if (!runtime::tryReadZipDirectory(path.str(), zip, error))
      return llvm::createStringError(std::make_error_code(std::errc::invalid_argument), llvm::Twine(error));
    // Entries by name, with their sizes and CRC-32s: what the archive holds,
    // read from its directory alone.
    std::string listing;
    for (const runtime::ZipEntry &e : zip.entries)
      listing += e.name + " " + runtime::zipMethodName(e.method) + " " +
                 std::to_string(e.bytes) + " " + std::to_string(e.crc32) + "\n";
    return "zip-directory-sha256:" + cache::sha256Hex(listing);
  }
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read '" + path + "'");
  return "sha256:" + cache::sha256Hex((*buffer)->getBuffer());
}

llvm::Expected<cache::CacheKeyFactors>
artifactKeyFactors(const ArtifactKeyInputs &inputs) {
  cache::CacheKeyFactors factors = cache::CacheKeyFactors::forThisBuild();
  factors.pieceIR = "artifact";
  for (const std::string &path : inputs.inputFiles) {
    llvm::Expected<std::string> identity = inputIdentity(path);
    if (!identity)
      return identity.takeError();
    factors.pieceIR +=
        "\n" + llvm::sys::path::filename(path).str() + " " + *identity;
  }
  factors.pipelineOptions = "artifact;" + inputs.options;
  factors.targetChip = inputs.chip;
  factors.targetFeatures = inputs.features;
  factors.ptxISA = ptxISAVersion(inputs.features);
  // The toolkit by identity rather than by running ptxas --version, which
  // would cost a process start on every warm compile.
  if (!inputs.cudaPath.empty()) {
    llvm::SmallString<256> ptxas(inputs.cudaPath);
    llvm::sys::path::append(ptxas, "bin", "ptxas");
    llvm::sys::fs::file_status status;
    if (!llvm::sys::fs::status(ptxas, status))
      factors.ptxasVersion =
          ptxas.str().str() + " size " + std::to_string(status.getSize()) +
          " mtime " +
          std::to_string(llvm::sys::toTimeT(status.getLastModificationTime()));
  }
  factors.salt = inputs.salt;
  return factors;
}


llvm::Expected<bool> restoreArtifact(cache::CacheStore &cache,
                                     const cache::CacheKeyFactors &factors,
                                     llvm::StringRef dir) {
  std::optional<cache::CacheEntry> entry = cache.lookup(factors.computeKey());
  if (!entry || !entry->file("manifest.json"))
    return false;
  if (llvm::Error e = prepareArtifactDir(dir))
    return std::move(e);
  for (const CacheFile &file : entry->files) {
    llvm::StringRef name = file.name;
    std::string path = name.starts_with(kPiecesPrefix)
                           ? (dir + "/pieces/" + name.drop_front(kPiecesPrefix.size())).str()
                           : (dir + "/" + name).str();
    if (llvm::Error e = writeFileChecked(path, file.data))
      return std::move(e);
  }
  return true;
}

llvm::Error storeArtifact(cache::CacheStore &cache,
                          const cache::CacheKeyFactors &factors,
                          llvm::StringRef dir) {
  std::vector<CacheFile> files;
  auto add = [&](llvm::StringRef path, std::string name) -> llvm::Error {
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return llvm::createStringError(buffer.getError(),
                                     "cannot read '" + path + "'");
    files.push_back({std::move(name), (*buffer)->getBuffer().str()});
    return llvm::Error::success();
  };
  // Never the weights: an artifact that references them has none, and a
  // packed one (--pack-weights) is not stored whole.
  if (llvm::sys::fs::exists(dir + "/weights.bin"))
    return llvm::createStringError(
        std::make_error_code(std::errc::operation_not_permitted),
        "an artifact with packed weights is not stored whole in the cache");
  if (llvm::Error e = add((dir + "/manifest.json").str(), "manifest.json"))
    return e;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir + "/pieces", ec), end;
       it != end && !ec; it.increment(ec)) {
    std::string name = llvm::sys::path::filename(it->path()).str();
    if (llvm::Error e = add(it->path(), kPiecesPrefix.str() + name))
      return e;
  }
  if (ec)
    return llvm::createStringError(ec, "cannot list '" + dir + "/pieces'");
  // Directory order is not stable; the entry's file list should be.
  llvm::sort(files, [](const CacheFile &a, const CacheFile &b) {
    return a.name < b.name;
  });
  llvm::Expected<cache::StoreOutcome> stored =
      cache.store(factors.computeKey(), factors, files);
  if (!stored)
    return stored.takeError();
  return llvm::Error::success();
}

} // namespace magi
