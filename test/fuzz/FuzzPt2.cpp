//===- FuzzPt2.cpp - the torch.export archive importer --------------------===//
//
// Any bytes as a .pt2 archive, held in memory (a memfd, opened through
// /proc/self/fd): imported into a magi graph that verifies, or refused with
// a diagnostic, never crashing, and never reading a JSON entry over 4 MiB.
// Under libFuzzer, most mutations go inside the archive: one JSON entry
// (model.json, a weights config) is mutated as text and the archive
// written again with correct CRCs, so the mutants get past the zip layer
// to the importer's JSON handling and op converters.
//
//===----------------------------------------------------------------------===//

#include "magi/Import/TorchExport.h"
#include "FuzzContext.h"
#include "mlir/IR/Verifier.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <zip.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext *context = &magi::fuzzContext();
  int fd = ::memfd_create("fuzz.pt2", MFD_CLOEXEC);
  if (fd < 0) {
    std::perror("memfd_create");
    std::abort();
  }
  for (size_t done = 0; done < size;) {
    ssize_t n = ::write(fd, data + done, size - done);
    if (n <= 0) {
      std::perror("write");
      std::abort();
    }
    done += size_t(n);
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  magi::ImportOptions options;
  options.maxJsonBytes = uint64_t(4) << 20;
  {
    mlir::OwningOpRef<mlir::ModuleOp> module = magi::importTorchExport(path, context, options);
    if (module && mlir::failed(mlir::verify(*module)))
      std::abort(); // the importer built a graph that does not verify
  }
  ::close(fd);
  return 0;
}

#ifdef MAGI_LIBFUZZER
extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

// The entries of a zip archive in memory, or false if it is not one.
bool readZip(const uint8_t *data, size_t size, Entries &entries) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t *source = zip_source_buffer_create(data, size, 0, &error);
  if (!source)
    return false;
  zip_t *archive = zip_open_from_source(source, ZIP_RDONLY, &error);
  if (!archive) {
    zip_source_free(source);
    return false;
  }
  bool ok = true;
  zip_int64_t count = zip_get_num_entries(archive, 0);
  for (zip_int64_t i = 0; ok && i < count; ++i) {
    zip_stat_t st;
    zip_file_t *file = nullptr;
    ok = zip_stat_index(archive, zip_uint64_t(i), 0, &st) == 0 && (st.valid & ZIP_STAT_SIZE) &&
         st.size <= (uint64_t(1) << 24) &&
         (file = zip_fopen_index(archive, zip_uint64_t(i), 0)) != nullptr;
    if (!ok)
      break;
    std::string bytes(size_t(st.size), '\0');
    ok = zip_fread(file, bytes.data(), st.size) == zip_int64_t(st.size);
    zip_fclose(file);
    entries.emplace_back(st.name, std::move(bytes));
  }
  zip_discard(archive); // frees the source
  return ok;
}

// `entries` as a deflated zip archive.
std::string writeZip(const Entries &entries) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t *out = zip_source_buffer_create(nullptr, 0, 0, &error);
  if (!out)
    return {};
  zip_source_keep(out);
  zip_t *archive = zip_open_from_source(out, ZIP_TRUNCATE, &error);
  if (!archive) {
    zip_source_free(out);
    return {};
  }
  for (const auto &[name, bytes] : entries) {
    zip_source_t *in = zip_source_buffer(archive, bytes.data(), bytes.size(), 0);
    zip_int64_t index = in ? zip_file_add(archive, name.c_str(), in, ZIP_FL_OVERWRITE) : -1;
    if (index < 0) {
      if (in)
        zip_source_free(in);
      zip_discard(archive);
      zip_source_free(out);
      return {};
    }
    zip_set_file_compression(archive, zip_uint64_t(index), ZIP_CM_DEFLATE, 1);
  }
  std::string written;
  if (zip_close(archive) == 0 && zip_source_open(out) == 0) {
    zip_source_seek(out, 0, SEEK_END);
    zip_int64_t size = zip_source_tell(out);
    zip_source_seek(out, 0, SEEK_SET);
    if (size > 0) {
      written.resize(size_t(size));
      if (zip_source_read(out, written.data(), zip_uint64_t(size)) != size)
        written.clear();
    }
    zip_source_close(out);
  } else {
    zip_discard(archive);
  }
  zip_source_free(out);
  return written;
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize,
                                          unsigned int seed) {
  // MAGI_FUZZ_PT2_RAW=1: raw byte mutations only (about ten times as many
  // executions a second; most die at the zip layer, which they exercise).
  static const bool rawOnly = [] {
    const char *raw = std::getenv("MAGI_FUZZ_PT2_RAW");
    return raw && std::string(raw) == "1";
  }();
  if (rawOnly)
    return LLVMFuzzerMutate(data, size, maxSize);
  Entries entries;
  std::vector<size_t> json;
  if (seed % 8 != 0 && readZip(data, size, entries))
    for (size_t i = 0; i < entries.size(); ++i)
      if (llvm::StringRef(entries[i].first).ends_with(".json"))
        json.push_back(i);
  if (json.empty())
    return LLVMFuzzerMutate(data, size, maxSize);
  // model.json half of the time, another JSON entry otherwise.
  size_t pick = json[(seed / 8) % json.size()];
  for (size_t i : json)
    if (seed % 2 && llvm::StringRef(entries[i].first).ends_with("models/model.json"))
      pick = i;
  std::string &text = entries[pick].second;
  size_t used = text.size();
  text.resize(used + 256);
  used = LLVMFuzzerMutate(reinterpret_cast<uint8_t *>(text.data()), used, text.size());
  text.resize(used);
  std::string written = writeZip(entries);
  if (written.empty() || written.size() > maxSize)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data, written.data(), written.size());
  return written.size();
}
#endif
