//===- Archive.cpp - Read-only zip archives through libzip ----------------===//

#include "magi/Import/TorchExport.h"
#include "llvm/Support/MemoryBuffer.h"
#include <zip.h>

namespace magi {

struct TorchExportArchive::Impl {
  zip_t *zip = nullptr;
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

bool TorchExportArchive::readEntry(llvm::StringRef name, std::string &bytes,
                                   std::string &error) const {
  uint64_t size = 0;
  if (!entrySize(name, size)) {
    error = "the archive has no entry '" + name.str() + "'";
    return false;
  }
  zip_file_t *file = zip_fopen(impl_->zip, name.str().c_str(), 0);
  if (!file) {
    error = "cannot open entry '" + name.str() +
            "': " + zip_strerror(impl_->zip);
    return false;
  }
  bytes.resize(size);
  zip_int64_t read = size ? zip_fread(file, bytes.data(), size) : 0;
  bool ok = read == static_cast<zip_int64_t>(size);
  if (!ok)
    error = "entry '" + name.str() + "' is damaged: read " +
            std::to_string(read) + " of " + std::to_string(size) + " bytes (" +
            zip_file_strerror(file) + ")";
  zip_fclose(file);
  return ok;
}

} // namespace magi
