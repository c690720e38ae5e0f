//===- Zip.h - The directory of a zip archive, and its entries' bytes ----*- C++ -*-===//
//
// What both sides need of a torch.export archive's weights without reading
// them: each entry's name, method, sizes, CRC-32 and where its data starts,
// read from the central directory (zip64 included) and checked with
// overflow-checked arithmetic against the file's size. magi-compile records
// these in the manifest; magi-run checks them again and reads the bytes
// (stored entries in place, deflated ones inflated with zlib).
//
//===----------------------------------------------------------------------===//

#ifndef MAGI_RUNTIME_ZIP_H
#define MAGI_RUNTIME_ZIP_H

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace magi::runtime {

enum class ZipMethod { Stored, Deflate };
const char *zipMethodName(ZipMethod method); // "stored", "deflate"
std::optional<ZipMethod> zipMethodFromName(const std::string &name);

struct ZipEntry {
  std::string name;
  ZipMethod method = ZipMethod::Stored;
  uint32_t crc32 = 0;
  int64_t storedBytes = 0; // in the file (compressed size)
  int64_t bytes = 0;       // inflated
  int64_t dataOffset = 0;  // where the stored bytes start in the file
};

struct ZipDirectory {
  std::string path;
  int64_t fileBytes = 0;
  std::vector<ZipEntry> entries;
  std::map<std::string, size_t> byName;
  const ZipEntry *find(const std::string &name) const;
  // A torch.export archive's entries sit in one folder named after its file
  // ("model/data/weights/weight_3"), which another export of the model names
  // otherwise: the entry named `name`, else the only one whose name without
  // that folder is `name`, or is `name` without its own first component.
  // Null when there is none, or more than one.
  const ZipEntry *findIgnoringFolder(const std::string &name) const;
};

// `name` without its first path component ("model/data/x" -> "data/x").
std::string withoutFolder(const std::string &name);

// Reads and checks the central directory of `path` and every entry's local
// header (never the data). Refuses entries of other methods, encrypted
// entries, duplicate names, and any range outside the file. Throws
// RuntimeError naming the file and the entry.
ZipDirectory readZipDirectory(const std::string &path);
// The same for callers built without exceptions.
bool tryReadZipDirectory(const std::string &path, ZipDirectory &directory,
                         std::string &error) noexcept;

// CRC-32 (zlib's) of `bytes` bytes at `data`, continuing from `crc`; with
// carry-less multiplication where the CPU has it (lib/Runtime/Crc32.cpp).
uint32_t crc32Update(uint32_t crc, const void *data, size_t bytes);
// The CRC of A followed by B from CRC(A), CRC(B) and B's length.
uint32_t crc32Combine(uint32_t crcA, uint32_t crcB, int64_t bytesB);

// Inflates raw deflate data to exactly `bytes` bytes; throws RuntimeError
// (naming `what`) when the data is corrupt or inflates to another size.
std::string inflateRaw(const void *data, size_t storedBytes, int64_t bytes, const std::string &what);

// Streams the inflated bytes of `entry` of the archive at `path` to `sink`
// in chunks of at most `chunkBytes`, checking the length and the CRC-32
// against the directory's; memory stays bounded by the chunk size. Throws
// RuntimeError naming the entry.
void streamEntry(const std::string &path, const ZipEntry &entry, size_t chunkBytes,
                 const std::function<void(const char *, size_t)> &sink);
bool tryStreamEntry(const std::string &path, const ZipEntry &entry, size_t chunkBytes,
                    const std::function<bool(const char *, size_t)> &sink,
                    std::string &error) noexcept;

// Overflow-checked sizes of a strided view (elements of `elementSize` bytes,
// `storageOffset` and `strides` in elements) into a buffer of `bufferBytes`:
// nothing when it fits, else the reason. `denseBytes` gets the view's dense
// size (elements times elementSize).
std::optional<std::string> checkView(int64_t elementSize, const std::vector<int64_t> &shape,
                                     const std::vector<int64_t> &strides, int64_t storageOffset,
                                     int64_t bufferBytes, int64_t &denseBytes);

} // namespace magi::runtime

#endif // MAGI_RUNTIME_ZIP_H
