//===- Zip.cpp - The directory of a zip archive, and its entries' bytes ---===//

#include "magi/Runtime/Zip.h"
#include "magi/Runtime/Json.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

namespace magi::runtime {

const char *zipMethodName(ZipMethod method) {
  return method == ZipMethod::Stored ? "stored" : "deflate";
}

std::optional<ZipMethod> zipMethodFromName(const std::string &name) {
  if (name == "stored")
    return ZipMethod::Stored;
  if (name == "deflate")
    return ZipMethod::Deflate;
  return std::nullopt;
}

const ZipEntry *ZipDirectory::find(const std::string &name) const {
  auto it = byName.find(name);
  return it == byName.end() ? nullptr : &entries[it->second];
}

std::string withoutFolder(const std::string &name) {
  size_t slash = name.find('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

const ZipEntry *ZipDirectory::findIgnoringFolder(const std::string &name) const {
  if (const ZipEntry *exact = find(name))
    return exact;
  for (const std::string &wanted : {name, withoutFolder(name)}) {
    const ZipEntry *found = nullptr;
    for (const ZipEntry &entry : entries) {
      if (withoutFolder(entry.name) != wanted)
        continue;
      if (found)
        return nullptr; // ambiguous
      found = &entry;
    }
    if (found)
      return found;
  }
  return nullptr;
}

namespace {

// More entries than this is not an archive Magi reads (torch.export writes
// one per weight).
constexpr uint64_t kMaxEntries = 1u << 20;

uint64_t le(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

class File {
public:
  explicit File(const std::string &path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0)
      throw RuntimeError("cannot open '" + path + "': " + std::strerror(errno));
    struct stat st;
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd_);
      throw RuntimeError("'" + path + "' is not a regular file");
    }
    size_ = st.st_size;
  }
  ~File() { ::close(fd_); }
  File(const File &) = delete;
  File &operator=(const File &) = delete;

  int64_t size() const { return size_; }

  // Exactly `bytes` bytes at `offset`, inside the file.
  std::vector<unsigned char> read(int64_t offset, int64_t bytes, const std::string &what) const {
    if (offset < 0 || bytes < 0 || offset > size_ || bytes > size_ - offset)
      fail(what + " at byte " + std::to_string(offset) + " (" + std::to_string(bytes) +
           " bytes) lies outside the file (" + std::to_string(size_) + " bytes)");
    std::vector<unsigned char> out(bytes);
    int64_t done = 0;
    while (done < bytes) {
      ssize_t n = ::pread(fd_, out.data() + done, size_t(bytes - done), offset + done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        fail("cannot read " + what + ": " + (n < 0 ? std::strerror(errno) : "unexpected end"));
      done += n;
    }
    return out;
  }

  [[noreturn]] void fail(const std::string &message) const {
    throw RuntimeError(path_ + ": " + message);
  }

private:
  std::string path_;
  int fd_ = -1;
  int64_t size_ = 0;
};

struct Directory {
  uint64_t entries = 0, size = 0, offset = 0;
};

Directory findDirectory(const File &file) {
  int64_t tail = std::min<int64_t>(file.size(), 22 + 65535);
  std::vector<unsigned char> end = file.read(file.size() - tail, tail, "the end of the archive");
  int64_t at = -1;
  for (int64_t i = tail - 22; i >= 0; --i)
    if (le(&end[i], 4) == 0x06054b50 && i + 22 + int64_t(le(&end[i + 20], 2)) == tail) {
      at = i;
      break;
    }
  if (at < 0)
    file.fail("not a zip archive (no end-of-central-directory record)");
  const unsigned char *eocd = &end[at];
  if (le(eocd + 4, 2) != 0 || le(eocd + 6, 2) != 0)
    file.fail("multi-disk zip archives are not supported");
  Directory d{le(eocd + 10, 2), le(eocd + 12, 4), le(eocd + 16, 4)};
  int64_t eocdOffset = file.size() - tail + at;
  bool zip64 = d.entries == 0xFFFF || d.size == 0xFFFFFFFF || d.offset == 0xFFFFFFFF;
  if (eocdOffset >= 20) {
    std::vector<unsigned char> locator = file.read(eocdOffset - 20, 20, "the zip64 locator");
    if (le(locator.data(), 4) == 0x07064b50) {
      uint64_t recordOffset = le(&locator[8], 8);
      if (recordOffset > uint64_t(file.size()))
        file.fail("the zip64 end-of-central-directory record lies outside the file");
      std::vector<unsigned char> record =
          file.read(int64_t(recordOffset), 56, "the zip64 end-of-central-directory record");
      if (le(record.data(), 4) != 0x06064b50)
        file.fail("malformed zip64 end-of-central-directory record");
      d = Directory{le(&record[32], 8), le(&record[40], 8), le(&record[48], 8)};
    } else if (zip64) {
      file.fail("the archive needs zip64 but has no zip64 locator");
    }
  }
  if (d.entries > kMaxEntries)
    file.fail("the central directory claims " + std::to_string(d.entries) + " entries (at most " +
              std::to_string(kMaxEntries) + ")");
  if (d.offset > uint64_t(file.size()) || d.size > uint64_t(file.size()) - d.offset)
    file.fail("the central directory lies outside the file");
  return d;
}

} // namespace

ZipDirectory readZipDirectory(const std::string &path) {
  File file(path);
  ZipDirectory out;
  out.path = path;
  out.fileBytes = file.size();
  Directory d = findDirectory(file);
  std::vector<unsigned char> cd = file.read(int64_t(d.offset), int64_t(d.size), "the central directory");
  size_t pos = 0;
  for (uint64_t i = 0; i < d.entries; ++i) {
    std::string where = "central directory entry " + std::to_string(i);
    if (cd.size() - pos < 46 || le(&cd[pos], 4) != 0x02014b50)
      file.fail(where + " is malformed");
    const unsigned char *h = &cd[pos];
    uint64_t flags = le(h + 8, 2), method = le(h + 10, 2);
    uint64_t nameLen = le(h + 28, 2), extraLen = le(h + 30, 2), commentLen = le(h + 32, 2);
    if (cd.size() - pos - 46 < nameLen + extraLen + commentLen)
      file.fail(where + " runs past the central directory");
    ZipEntry e;
    e.name.assign(reinterpret_cast<const char *>(h + 46), nameLen);
    where = "entry '" + e.name + "'";
    e.crc32 = uint32_t(le(h + 16, 4));
    uint64_t stored = le(h + 20, 4), bytes = le(h + 24, 4), local = le(h + 42, 4);
    // zip64: the fields that read 0xFFFFFFFF follow in the extra field.
    const unsigned char *extra = h + 46 + nameLen;
    for (uint64_t x = 0; x + 4 <= extraLen;) {
      uint64_t id = le(extra + x, 2), size = le(extra + x + 2, 2);
      if (x + 4 + size > extraLen)
        file.fail(where + ": malformed extra field");
      if (id == 0x0001) {
        const unsigned char *f = extra + x + 4;
        uint64_t left = size;
        for (uint64_t *field : {&bytes, &stored, &local}) {
          if (*field != 0xFFFFFFFF)
            continue;
          if (left < 8)
            file.fail(where + ": truncated zip64 extra field");
          *field = le(f, 8);
          f += 8;
          left -= 8;
        }
      }
      x += 4 + size;
    }
    if (flags & 1)
      file.fail(where + " is encrypted");
    if (method == 0)
      e.method = ZipMethod::Stored;
    else if (method == 8)
      e.method = ZipMethod::Deflate;
    else
      file.fail(where + " uses compression method " + std::to_string(method) +
                " (only stored and deflate are read)");
    if (e.method == ZipMethod::Stored && stored != bytes)
      file.fail(where + " is stored but claims " + std::to_string(stored) + " stored and " +
                std::to_string(bytes) + " inflated bytes");
    if (stored > uint64_t(file.size()) || bytes > uint64_t(INT64_MAX) || local > uint64_t(file.size()))
      file.fail(where + " claims sizes or an offset beyond the file");
    std::vector<unsigned char> lh = file.read(int64_t(local), 30, where + "'s local header");
    if (le(lh.data(), 4) != 0x04034b50)
      file.fail(where + ": no local header at byte " + std::to_string(local));
    uint64_t localName = le(&lh[26], 2), localExtra = le(&lh[28], 2);
    std::vector<unsigned char> name = file.read(int64_t(local) + 30, int64_t(localName), where + "'s local name");
    if (std::string(name.begin(), name.end()) != e.name)
      file.fail(where + ": the local header names another entry");
    uint64_t data = local + 30 + localName + localExtra;
    if (data > uint64_t(file.size()) || stored > uint64_t(file.size()) - data)
      file.fail(where + "'s data (" + std::to_string(stored) + " bytes at " + std::to_string(data) +
                ") lies outside the file");
    e.storedBytes = int64_t(stored);
    e.bytes = int64_t(bytes);
    e.dataOffset = int64_t(data);
    if (!out.byName.emplace(e.name, out.entries.size()).second)
      file.fail("the archive holds two entries named '" + e.name + "'");
    out.entries.push_back(std::move(e));
    pos += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

bool tryReadZipDirectory(const std::string &path, ZipDirectory &directory,
                         std::string &error) noexcept {
  try {
    directory = readZipDirectory(path);
    return true;
  } catch (const std::exception &e) {
    error = e.what();
    return false;
  }
}

uint32_t crc32Combine(uint32_t crcA, uint32_t crcB, int64_t bytesB) {
  return uint32_t(::crc32_combine64(crcA, crcB, bytesB));
}

std::string inflateRaw(const void *data, size_t storedBytes, int64_t bytes, const std::string &what) {
  std::string out(size_t(bytes), '\0');
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
    throw RuntimeError(what + ": cannot start inflating");
  const auto *in = static_cast<const Bytef *>(data);
  size_t inLeft = storedBytes, outDone = 0;
  int rc = Z_OK;
  while (rc == Z_OK) {
    uInt inChunk = uInt(std::min<size_t>(inLeft, 1u << 30));
    uInt outChunk = uInt(std::min<size_t>(out.size() - outDone, 1u << 30));
    z.next_in = const_cast<Bytef *>(in);
    z.avail_in = inChunk;
    z.next_out = reinterpret_cast<Bytef *>(out.data()) + outDone;
    z.avail_out = outChunk;
    // One spare byte of output space would be needed to see the end: an
    // entry that inflates to more than `bytes` stops with avail_out == 0.
    rc = ::inflate(&z, Z_NO_FLUSH);
    in += inChunk - z.avail_in;
    inLeft -= inChunk - z.avail_in;
    outDone += outChunk - z.avail_out;
    if (rc == Z_OK && z.avail_out == 0 && outDone == out.size()) {
      unsigned char probe;
      z.next_out = &probe;
      z.avail_out = 1;
      rc = ::inflate(&z, Z_NO_FLUSH);
      if (z.avail_out == 0)
        rc = Z_DATA_ERROR;
    } else if (rc == Z_OK && inChunk == 0) {
      rc = Z_DATA_ERROR;
    }
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END || outDone != out.size())
    throw RuntimeError(what + ": corrupt deflate data, or it does not inflate to the " +
                       std::to_string(bytes) + " bytes the directory claims");
  return out;
}

void streamEntry(const std::string &path, const ZipEntry &entry, size_t chunkBytes,
                 const std::function<void(const char *, size_t)> &sink) {
  File file(path);
  std::string what = path + ": entry '" + entry.name + "'";
  if (entry.dataOffset > file.size() || entry.storedBytes > file.size() - entry.dataOffset)
    throw RuntimeError(what + " lies outside the file (it changed since its directory was read)");
  chunkBytes = std::max<size_t>(chunkBytes, 4096);
  uint32_t crc = 0;
  int64_t produced = 0;
  auto emit = [&](const char *data, size_t n) {
    if (n > size_t(entry.bytes - produced))
      throw RuntimeError(what + " holds more than the " + std::to_string(entry.bytes) +
                         " bytes its directory claims");
    crc = crc32Update(crc, data, n);
    produced += int64_t(n);
    sink(data, n);
  };
  int64_t done = 0;
  if (entry.method == ZipMethod::Stored) {
    while (done < entry.storedBytes) {
      int64_t n = std::min<int64_t>(int64_t(chunkBytes), entry.storedBytes - done);
      std::vector<unsigned char> chunk = file.read(entry.dataOffset + done, n, what);
      emit(reinterpret_cast<const char *>(chunk.data()), size_t(n));
      done += n;
    }
  } else {
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
      throw RuntimeError(what + ": cannot start inflating");
    std::vector<char> out(chunkBytes);
    int rc = Z_OK;
    try {
      while (rc != Z_STREAM_END) {
        if (z.avail_in == 0 && done >= entry.storedBytes)
          throw RuntimeError(what + ": the deflate data ends early");
        std::vector<unsigned char> in;
        if (z.avail_in == 0) {
          int64_t n = std::min<int64_t>(int64_t(chunkBytes), entry.storedBytes - done);
          in = file.read(entry.dataOffset + done, n, what);
          done += n;
          z.next_in = in.data();
          z.avail_in = uInt(n);
        }
        // Until the input is used up and zlib holds no more output.
        do {
          z.next_out = reinterpret_cast<Bytef *>(out.data());
          z.avail_out = uInt(out.size());
          rc = ::inflate(&z, Z_NO_FLUSH);
          if (rc == Z_BUF_ERROR) { // no progress: it needs more input
            rc = Z_OK;
            break;
          }
          if (rc != Z_OK && rc != Z_STREAM_END)
            throw RuntimeError(what + ": corrupt deflate data");
          emit(out.data(), out.size() - z.avail_out);
        } while ((z.avail_in > 0 || z.avail_out == 0) && rc != Z_STREAM_END);
      }
    } catch (...) {
      inflateEnd(&z);
      throw;
    }
    inflateEnd(&z);
  }
  if (produced != entry.bytes)
    throw RuntimeError(what + " holds " + std::to_string(produced) + " bytes, but its directory "
                       "claims " + std::to_string(entry.bytes));
  if (crc != entry.crc32)
    throw RuntimeError(what + ": CRC-32 mismatch (the data is damaged or changed)");
}

bool tryStreamEntry(const std::string &path, const ZipEntry &entry, size_t chunkBytes,
                    const std::function<bool(const char *, size_t)> &sink,
                    std::string &error) noexcept {
  try {
    streamEntry(path, entry, chunkBytes, [&](const char *data, size_t n) {
      if (!sink(data, n))
        throw RuntimeError("cannot write the weights");
    });
    return true;
  } catch (const std::exception &e) {
    error = e.what();
    return false;
  }
}

std::optional<std::string> checkView(int64_t elementSize, const std::vector<int64_t> &shape,
                                     const std::vector<int64_t> &strides, int64_t storageOffset,
                                     int64_t bufferBytes, int64_t &denseBytes) {
  if (shape.size() != strides.size())
    return "has " + std::to_string(strides.size()) + " strides for rank " +
           std::to_string(shape.size());
  if (storageOffset < 0)
    return "has a negative storage offset";
  int64_t elements = 1, lowest = storageOffset, highest = storageOffset;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0)
      return "has a negative size";
    if (__builtin_mul_overflow(elements, shape[d], &elements))
      return "has more elements than 64 bits count";
  }
  if (__builtin_mul_overflow(elements, elementSize, &denseBytes))
    return "has more bytes than 64 bits count";
  if (elements == 0)
    return std::nullopt;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t extent;
    if (__builtin_mul_overflow(shape[d] - 1, strides[d], &extent) ||
        __builtin_add_overflow(extent < 0 ? lowest : highest, extent,
                               extent < 0 ? &lowest : &highest))
      return "has strides whose extent overflows 64 bits";
  }
  int64_t lastByte;
  if (lowest < 0)
    return "reaches before the start of its storage";
  if (__builtin_add_overflow(highest, int64_t(1), &lastByte) ||
      __builtin_mul_overflow(lastByte, elementSize, &lastByte))
    return "reaches beyond 64-bit byte offsets";
  if (lastByte > bufferBytes)
    return "reaches byte " + std::to_string(lastByte) + " of storage that holds " +
           std::to_string(bufferBytes);
  return std::nullopt;
}

} // namespace magi::runtime
