//===- Archive.cpp - Read-only zip archives through libzip ----------------===//
//
// Archives come from anywhere, so no header is trusted with an allocation:
// every claimed size is checked against what the archive can hold before
// reading, entries are read in bounded chunks up to their end (which is
// where libzip checks the CRC-32), and short or long data is an error.
//
//===----------------------------------------------------------------------===//

#include "magi/Import/TorchExport.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include <zip.h>

namespace magi {

namespace {
// Deflate inflates at most 1032:1 (one 258-byte match per two bits); the
// other methods libzip may read are held to the same bound.
constexpr uint64_t kMaxInflateRatio = 1032;
// What one read may add to an entry's buffer beyond the bytes already read.
constexpr uint64_t kReadChunk = uint64_t(1) << 20;

// libzip refuses an archive with two entries of one name without saying
// which; this walks the central directory to find the name. Only for that
// message: nothing else in the archive is parsed by hand.
std::optional<std::string> findDuplicateName(llvm::StringRef path) {
  using llvm::support::endian::read16le;
  using llvm::support::endian::read32le;
  using llvm::support::endian::read64le;
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return std::nullopt;
  llvm::StringRef data = (*buffer)->getBuffer();
  const char *base = data.data();
  uint64_t size = data.size();
  // The end of central directory record: 22 bytes and a comment of < 64 KiB.
  if (size < 22)
    return std::nullopt;
  uint64_t eocd = size - 22;
  uint64_t lowest = size >= 22 + 0xFFFF ? size - 22 - 0xFFFF : 0;
  while (read32le(base + eocd) != 0x06054B50) {
    if (eocd == lowest)
      return std::nullopt;
    --eocd;
  }
  uint64_t count = read16le(base + eocd + 10);
  uint64_t offset = read32le(base + eocd + 16);
  if ((count == 0xFFFF || offset == 0xFFFFFFFF) && eocd >= 20 &&
      read32le(base + eocd - 20) == 0x07064B50) {
    uint64_t record = read64le(base + eocd - 20 + 8);
    if (record > size || size - record < 56 ||
        read32le(base + record) != 0x06064B50)
      return std::nullopt;
    count = read64le(base + record + 32);
    offset = read64le(base + record + 48);
  }
  llvm::StringSet<> seen;
  for (uint64_t i = 0; i < count; ++i) {
    if (offset > size || size - offset < 46 ||
        read32le(base + offset) != 0x02014B50)
      return std::nullopt;
    uint64_t nameLength = read16le(base + offset + 28);
    uint64_t rest = nameLength + read16le(base + offset + 30) +
                    read16le(base + offset + 32);
    if (size - offset - 46 < rest)
      return std::nullopt;
    llvm::StringRef name(base + offset + 46, nameLength);
    if (!seen.insert(name).second)
      return name.str();
    offset += 46 + rest;
  }
  return std::nullopt;
}
} // namespace

struct TorchExportArchive::Impl {
  zip_t *zip = nullptr;
  uint64_t fileSize = 0;
  ~Impl() {
    if (zip)
      zip_discard(zip); // read-only: nothing to write back
  }
};

TorchExportArchive::~TorchExportArchive() = default;

bool isZipArchive(llvm::StringRef path) {
  if (path.ends_with(".pt2"))
    return true;
  auto buffer = llvm::MemoryBuffer::getFileSlice(path, 4, 0);
  return buffer && (*buffer)->getBuffer() == llvm::StringRef("PK\x03\x04", 4);
}

std::unique_ptr<TorchExportArchive>
TorchExportArchive::open(llvm::StringRef path, std::string &error) {
  int code = 0;
  std::string pathStr = path.str();
  zip_t *zip = zip_open(pathStr.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
  if (!zip) {
    if (code == ZIP_ER_EXISTS) {
      std::optional<std::string> name = findDuplicateName(path);
      error = "cannot open '" + pathStr + "': the archive holds two entries " +
              (name ? "named '" + *name + "'" : std::string("of one name"));
      return nullptr;
    }
    zip_error_t zerr;
    zip_error_init_with_code(&zerr, code);
    error = std::string("cannot open '") + pathStr +
            "' as a zip archive: " + zip_error_strerror(&zerr);
    zip_error_fini(&zerr);
    return nullptr;
  }
  std::unique_ptr<TorchExportArchive> archive(new TorchExportArchive());
  archive->impl_ = std::make_unique<Impl>();
  archive->impl_->zip = zip;
  if (llvm::sys::fs::file_size(path, archive->impl_->fileSize)) {
    error = "cannot open '" + pathStr + "': its size is unknown";
    return nullptr;
  }
  // torch.export.save puts every entry under one folder named after the file.
  std::vector<std::string> names = archive->entryNames();
  if (!names.empty()) {
    llvm::StringRef first = names.front();
    size_t slash = first.find('/');
    if (slash != llvm::StringRef::npos) {
      std::string prefix = first.substr(0, slash + 1).str();
      bool common = llvm::all_of(names, [&](const std::string &n) {
        return llvm::StringRef(n).starts_with(prefix);
      });
      if (common)
        archive->prefix_ = prefix;
    }
  }
  return archive;
}

std::vector<std::string> TorchExportArchive::entryNames() const {
  std::vector<std::string> names;
  zip_int64_t n = zip_get_num_entries(impl_->zip, 0);
  for (zip_int64_t i = 0; i < n; ++i)
    if (const char *name = zip_get_name(impl_->zip, i, 0))
      names.emplace_back(name);
  return names;
}

bool TorchExportArchive::hasEntry(llvm::StringRef name) const {
  return zip_name_locate(impl_->zip, name.str().c_str(), 0) >= 0;
}

bool TorchExportArchive::entrySize(llvm::StringRef name, uint64_t &size) const {
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat(impl_->zip, name.str().c_str(), 0, &stat) != 0 ||
      !(stat.valid & ZIP_STAT_SIZE))
    return false;
  size = stat.size;
  return true;
}

bool TorchExportArchive::checkedEntrySize(llvm::StringRef name, uint64_t &size,
                                          std::string &error) const {
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat(impl_->zip, name.str().c_str(), 0, &stat) != 0 ||
      !(stat.valid & ZIP_STAT_SIZE)) {
    error = "the archive has no entry '" + name.str() + "'";
    return false;
  }
  size = stat.size;
  // No entry's data is larger than the archive, whatever its header says.
  uint64_t compressed = impl_->fileSize;
  if ((stat.valid & ZIP_STAT_COMP_SIZE) && stat.comp_size < compressed)
    compressed = stat.comp_size;
  bool stored =
      (stat.valid & ZIP_STAT_COMP_METHOD) && stat.comp_method == ZIP_CM_STORE;
  if (stored && size > compressed) {
    error = "entry '" + name.str() + "' is truncated: its header claims " +
            std::to_string(size) + " bytes, but it stores only " +
            std::to_string(compressed);
    return false;
  }
  uint64_t most = llvm::SaturatingMultiply(compressed, kMaxInflateRatio);
  if (size > most) {
    error = "entry '" + name.str() + "' claims " + std::to_string(size) +
            " bytes, more than its " + std::to_string(compressed) +
            " compressed bytes can inflate to";
    return false;
  }
  return true;
}

bool TorchExportArchive::readEntry(llvm::StringRef name, std::string &bytes,
                                   std::string &error,
                                   uint64_t maxSize) const {
  uint64_t size = 0;
  if (!checkedEntrySize(name, size, error))
    return false;
  if (size > maxSize) {
    error = "entry '" + name.str() + "' holds " + std::to_string(size) +
            " bytes, more than the limit of " + std::to_string(maxSize);
    return false;
  }
  zip_file_t *file = zip_fopen(impl_->zip, name.str().c_str(), 0);
  if (!file) {
    error = "cannot open entry '" + name.str() +
            "': " + zip_strerror(impl_->zip);
    return false;
  }
  // Grow with the data actually inflated (never past the claimed size), and
  // read on to the end: libzip checks the CRC-32 only when it reaches it.
  bytes.clear();
  bool ok = true;
  while (true) {
    uint64_t have = bytes.size();
    uint64_t want = std::min(kReadChunk, size - have + 1);
    if (bytes.capacity() < have + want)
      bytes.reserve(std::min(size + 1, std::max<uint64_t>(
                                           2 * bytes.capacity(), have + want)));
    bytes.resize(have + want);
    zip_int64_t read = zip_fread(file, bytes.data() + have, want);
    bytes.resize(have + std::max<zip_int64_t>(read, 0));
    if (read < 0) {
      int code = zip_error_code_zip(zip_file_get_error(file));
      if (bytes.size() < size)
        error = "entry '" + name.str() + "' is truncated: it holds " +
                std::to_string(bytes.size()) + " of the " +
                std::to_string(size) + " bytes its header claims (" +
                zip_file_strerror(file) + ")";
      else if (code == ZIP_ER_CRC)
        error = "entry '" + name.str() +
                "' is damaged: its data does not match its CRC-32";
      else
        error = "entry '" + name.str() +
                "' is damaged: " + zip_file_strerror(file);
      ok = false;
      break;
    }
    if (bytes.size() > size) {
      error = "entry '" + name.str() + "' is damaged: it holds more than the " +
              std::to_string(size) + " bytes its header claims";
      ok = false;
      break;
    }
    if (read == 0) {
      if (bytes.size() < size) {
        error = "entry '" + name.str() + "' is truncated: it holds " +
                std::to_string(bytes.size()) + " of the " +
                std::to_string(size) + " bytes its header claims";
        ok = false;
      }
      break;
    }
  }
  zip_fclose(file);
  if (!ok)
    bytes.clear();
  return ok;
}

} // namespace magi
