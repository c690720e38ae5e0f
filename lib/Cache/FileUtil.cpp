//===- FileUtil.cpp - Durable writes and locks for the cache --------------===//

#include "FileUtil.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace magi::cache::detail;

static std::error_code lastError() {
  return std::error_code(errno, std::generic_category());
}

static std::error_code writeAll(int fd, llvm::StringRef data) {
  while (!data.empty()) {
    ssize_t n =
        llvm::sys::RetryAfterSignal(-1, ::write, fd, data.data(), data.size());
    if (n < 0)
      return lastError();
    data = data.drop_front(static_cast<size_t>(n));
  }
  return {};
}

std::error_code
magi::cache::detail::writeFileDurably(const llvm::Twine &path,
                                      llvm::StringRef data,
                                      llvm::function_ref<void()> midpoint) {
  llvm::SmallString<256> storage;
  const char *cpath = path.toNullTerminatedStringRef(storage).data();
  int fd = llvm::sys::RetryAfterSignal(
      -1, ::open, cpath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return lastError();
  size_t half = data.size() / 2;
  std::error_code ec = writeAll(fd, data.take_front(half));
  if (!ec && midpoint)
    midpoint();
  if (!ec)
    ec = writeAll(fd, data.drop_front(half));
  // fsync reports the delayed write errors (ENOSPC, EIO) of some filesystems.
  if (!ec && ::fsync(fd) != 0)
    ec = lastError();
  if (::close(fd) != 0 && !ec)
    ec = lastError();
  return ec;
}

std::error_code magi::cache::detail::syncDirectory(const llvm::Twine &path) {
  llvm::SmallString<256> storage;
  const char *cpath = path.toNullTerminatedStringRef(storage).data();
  int fd = llvm::sys::RetryAfterSignal(-1, ::open, cpath,
                                       O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return lastError();
  std::error_code ec;
  // Some filesystems cannot fsync directories (EINVAL): nothing to do there.
  if (::fsync(fd) != 0 && errno != EINVAL)
    ec = lastError();
  ::close(fd);
  return ec;
}

std::error_code magi::cache::detail::touch(const llvm::Twine &path) {
  llvm::SmallString<256> storage;
  const char *cpath = path.toNullTerminatedStringRef(storage).data();
  if (::utimensat(AT_FDCWD, cpath, nullptr, 0) != 0)
    return lastError();
  return {};
}

std::string magi::cache::detail::uniqueSuffix() {
  return std::to_string(llvm::sys::Process::getProcessId()) + "-" +
         llvm::utohexstr(llvm::sys::Process::GetRandomNumber(), true) +
         llvm::utohexstr(llvm::sys::Process::GetRandomNumber(), true);
}

long magi::cache::detail::pidInName(llvm::StringRef name) {
  // "<kind>-<pid>-<random>[.lock]"
  auto [kind, rest] = name.split('-');
  (void)kind;
  llvm::StringRef pidText = rest.split('-').first;
  long pid = 0;
  if (pidText.getAsInteger(10, pid))
    return 0;
  return pid;
}

FileLock &FileLock::operator=(FileLock &&other) {
  if (this != &other) {
    release();
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

FileLock::~FileLock() { release(); }

void FileLock::release() {
  if (fd_ < 0)
    return;
  (void)llvm::sys::fs::unlockFile(fd_);
  ::close(fd_);
  fd_ = -1;
}

llvm::ErrorOr<FileLock> FileLock::acquire(const llvm::Twine &path) {
  llvm::SmallString<256> storage;
  const char *cpath = path.toNullTerminatedStringRef(storage).data();
  int fd = llvm::sys::RetryAfterSignal(-1, ::open, cpath,
                                       O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return lastError();
  if (std::error_code ec = llvm::sys::fs::lockFile(fd)) {
    ::close(fd);
    return ec;
  }
  return FileLock(fd);
}

llvm::ErrorOr<FileLock> FileLock::tryAcquireExisting(const llvm::Twine &path) {
  llvm::SmallString<256> storage;
  const char *cpath = path.toNullTerminatedStringRef(storage).data();
  int fd = llvm::sys::RetryAfterSignal(-1, ::open, cpath, O_RDWR | O_CLOEXEC);
  if (fd < 0)
    return lastError();
  if (std::error_code ec = llvm::sys::fs::tryLockFile(fd)) {
    ::close(fd);
    return ec;
  }
  return FileLock(fd);
}

llvm::ErrorOr<FileLock> FileLock::createLocked(const llvm::Twine &path,
                                               const llvm::Twine &pendingPath) {
  llvm::SmallString<256> pendingStorage;
  llvm::StringRef pending =
      pendingPath.toNullTerminatedStringRef(pendingStorage);
  int fd = llvm::sys::RetryAfterSignal(
      -1, ::open, pending.data(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return lastError();
  FileLock lock(fd);
  if (std::error_code ec = llvm::sys::fs::lockFile(fd)) {
    ::unlink(pending.data());
    return ec;
  }
  if (std::error_code ec = llvm::sys::fs::rename(pending, path)) {
    ::unlink(pending.data());
    return ec;
  }
  return std::move(lock);
}
