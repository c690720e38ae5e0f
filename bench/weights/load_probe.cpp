// load_probe: what each part of magi-run's weight load can do on this
// machine, one part at a time, from a file in the page cache: zlib's CRC-32,
// pread and memcpy out of a mapping on 1-16 threads, pread + CRC together,
// pinned host-to-device copies, and registering the mapped file itself
// (cuMemHostRegister, read-only) so the GPU copies straight from the page
// cache: a private and a shared mapping of the file just written, then
// every kind of mapping after the reads; a registration that takes over
// 30 s prints where each thread waits and ends the probe (exit 3). Numbers
// only; magi-run does not depend on it.
//
// On a GPU machine:
//   g++ -O2 -std=c++17 bench/weights/load_probe.cpp -I/usr/local/cuda/include
//       -L/usr/local/cuda/lib64/stubs -lcuda -lz -pthread -o load_probe
//   ./load_probe /tmp/probe.bin 4      (writes a 4 GB file first)
#include <cuda.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace {

constexpr size_t kPiece = size_t(2) << 20;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void check(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS) {
    const char *s = nullptr;
    cuGetErrorString(r, &s);
    std::fprintf(stderr, "%s: %s\n", what, s ? s : "?");
    std::exit(1);
  }
}

// Runs piece(i) for i in [0, count) on `threads` threads; returns seconds.
double parallel(size_t count, int threads, const std::function<void(size_t, int)> &piece) {
  std::atomic<size_t> next{0};
  double start = now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (size_t i; (i = next.fetch_add(1)) < count;)
        piece(i, t);
    });
  for (std::thread &th : pool)
    th.join();
  return now() - start;
}

// Prints where each of this process's threads waits in the kernel.
void printWaits() {
  std::error_code error;
  for (const auto &task : std::filesystem::directory_iterator("/proc/self/task", error)) {
    std::ifstream comm(task.path() / "comm"), wchan(task.path() / "wchan");
    std::string name, where;
    std::getline(comm, name);
    std::getline(wchan, where);
    std::printf("  thread %s (%s): waits in %s\n", task.path().filename().c_str(), name.c_str(),
                where.empty() ? "-" : where.c_str());
  }
}

// Maps the file (`shared`: MAP_SHARED, else MAP_PRIVATE as magi-run's
// MappedFile does), registers it read-only, copies it to `dptr` and
// unregisters it. A registration that takes over 30 s prints where the
// threads wait and ends the process.
void registeredCopy(int fd, size_t bytes, bool shared, bool populate, CUdeviceptr dptr,
                    CUstream stream, size_t chunk, const char *when) {
  int flags = (shared ? MAP_SHARED : MAP_PRIVATE) | (populate ? MAP_POPULATE : 0);
  auto *map = static_cast<unsigned char *>(::mmap(nullptr, bytes, PROT_READ, flags, fd, 0));
  char what[128];
  std::snprintf(what, sizeof(what), "%s, %s, %s", shared ? "MAP_SHARED" : "MAP_PRIVATE",
                populate ? "MAP_POPULATE" : "lazy", when);
  std::mutex mutex;
  std::condition_variable done;
  bool registered = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(mutex);
    if (!done.wait_for(lock, std::chrono::seconds(30), [&] { return registered; })) {
      std::printf("cuMemHostRegister(read-only, %s) still running after 30 s\n", what);
      printWaits();
      std::fflush(stdout);
      std::_Exit(3);
    }
  });
  double t = now();
  CUresult r = cuMemHostRegister(map, bytes, CU_MEMHOSTREGISTER_READ_ONLY);
  double reg = now() - t;
  {
    std::lock_guard<std::mutex> lock(mutex);
    registered = true;
  }
  done.notify_all();
  watchdog.join();
  if (r != CUDA_SUCCESS) {
    const char *s = nullptr;
    cuGetErrorString(r, &s);
    std::printf("cuMemHostRegister(read-only, %s): %s\n", what, s);
    ::munmap(map, bytes);
    return;
  }
  t = now();
  for (size_t done = 0; done < bytes; done += chunk)
    check(cuMemcpyHtoDAsync(dptr + done, map + done, std::min(chunk, bytes - done), stream), "h2d");
  check(cuStreamSynchronize(stream), "sync");
  double copy = now() - t;
  t = now();
  check(cuMemHostUnregister(map), "unregister");
  std::printf("registered mapping (%s): register %.3f s, copy %.2f GB/s, unregister %.3f s, "
              "all %.2f GB/s\n",
              what, reg, bytes / copy / 1e9, now() - t, bytes / (reg + copy) / 1e9);
  ::munmap(map, bytes);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: load_probe FILE GB\n");
    return 2;
  }
  const char *path = argv[1];
  size_t bytes = size_t(std::atof(argv[2]) * 1e9) / kPiece * kPiece;
  size_t pieces = bytes / kPiece;
  int fd = ::open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  std::vector<unsigned char> block(size_t(64) << 20);
  for (size_t i = 0; i < block.size(); ++i)
    block[i] = (unsigned char)(i * 2654435761u >> 13);
  for (size_t done = 0; done < bytes; done += block.size())
    if (::write(fd, block.data(), std::min(block.size(), bytes - done)) < 0)
      return 1;
  std::printf("file: %.2f GB written (page cache)\n", bytes / 1e9);

  // CRC-32 on one thread: a piece already in the cache, and 64 MB.
  {
    double t = now();
    uLong crc = 0;
    for (int r = 0; r < 32; ++r)
      crc = crc32(crc, block.data(), kPiece);
    double hot = 32 * kPiece / (now() - t) / 1e9;
    t = now();
    crc = crc32(0, block.data(), block.size());
    std::printf("crc32 1 thread: %.2f GB/s on a cached 2 MB piece, %.2f GB/s over 64 MB (%lx)\n",
                hot, block.size() / (now() - t) / 1e9, crc);
  }

  check(cuInit(0), "cuInit");
  CUdevice dev;
  CUcontext ctx;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "retain");
  check(cuCtxSetCurrent(ctx), "current");
  CUstream stream;
  check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "stream");
  CUdeviceptr dptr;
  check(cuMemAlloc(&dptr, bytes), "cuMemAlloc");
  void *pinned = nullptr;
  size_t ring = size_t(16) * kPiece * 4; // 128 MB
  check(cuMemHostAlloc(&pinned, ring, 0), "cuMemHostAlloc");
  auto *pin = static_cast<unsigned char *>(pinned);

  // Registering the file just written, before anything reads it (its pages
  // may still be dirty): magi-run's private mapping first. A pinned load
  // of such a file in magi-run (commit 96fe2d7) did not finish in 300 s.
  registeredCopy(fd, bytes, /*shared=*/false, /*populate=*/false, dptr, stream, ring / 2,
                 "fresh file");
  registeredCopy(fd, bytes, /*shared=*/true, /*populate=*/false, dptr, stream, ring / 2,
                 "fresh file");

  // Pinned host-to-device, 64 MB copies.
  {
    double t = now();
    for (size_t done = 0; done < bytes; done += ring / 2)
      check(cuMemcpyHtoDAsync(dptr + done, pin, std::min(ring / 2, bytes - done), stream), "h2d");
    check(cuStreamSynchronize(stream), "sync");
    std::printf("h2d pinned, 64 MB copies: %.2f GB/s\n", bytes / (now() - t) / 1e9);
  }

  for (int threads : {1, 4, 8, 16}) {
    // Each thread has its own slots of the ring.
    auto slot = [&](size_t i, int t) { return pin + (size_t(t) * 4 + i % 4) * kPiece % ring; };
    double s = parallel(pieces, threads, [&](size_t i, int t) {
      if (::pread(fd, slot(i, t), kPiece, off_t(i * kPiece)) != ssize_t(kPiece))
        std::abort();
    });
    double s2 = parallel(pieces, threads, [&](size_t i, int t) {
      unsigned char *dst = slot(i, t);
      if (::pread(fd, dst, kPiece, off_t(i * kPiece)) != ssize_t(kPiece))
        std::abort();
      (void)crc32(0, dst, kPiece);
    });
    auto *map = static_cast<unsigned char *>(::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, 0));
    double s3 = parallel(pieces, threads, [&](size_t i, int t) {
      std::memcpy(slot(i, t), map + i * kPiece, kPiece);
    });
    double s4 = parallel(pieces, threads, [&](size_t i, int) { (void)crc32(0, map + i * kPiece, kPiece); });
    ::munmap(map, bytes);
    std::printf("%2d threads: pread %.2f GB/s, pread+crc %.2f, memcpy from a new mapping %.2f, "
                "crc of the mapping %.2f\n",
                threads, bytes / s / 1e9, bytes / s2 / 1e9, bytes / s3 / 1e9, bytes / s4 / 1e9);
  }

  // The mapping registered: the GPU reads the page cache itself. Both
  // kinds of mapping, once the file has been read several times.
  for (bool shared : {true, false})
    for (bool populate : {false, true})
      registeredCopy(fd, bytes, shared, populate, dptr, stream, ring / 2, "after the reads");
  ::close(fd);
  ::unlink(path);
  return 0;
}
