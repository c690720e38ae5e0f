//===- FileUtil.h - Durable writes and locks for the cache ------*- C++ -*-===//
//
// Internal to lib/Cache: the POSIX pieces the store needs that llvm::sys::fs
// does not offer whole (fsync of files and directories, create-exclusive
// durable writes, touching a directory's time).
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_LIB_CACHE_FILEUTIL_H
#define MAGI_LIB_CACHE_FILEUTIL_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorOr.h"
#include <string>
#include <system_error>

namespace magi::cache::detail {

/// Creates `path` (which must not exist), writes `data`, fsyncs and closes it.
/// `midpoint`, if given, runs when half of the data is written.
std::error_code writeFileDurably(const llvm::Twine &path, llvm::StringRef data,
                                 llvm::function_ref<void()> midpoint = {});

/// fsync on a directory, so that renames and creations in it are durable.
std::error_code syncDirectory(const llvm::Twine &path);

/// Sets a file's or directory's modification time to now.
std::error_code touch(const llvm::Twine &path);

/// "<pid>-<random>": unique among live processes on this machine.
std::string uniqueSuffix();
/// The pid in a name made with `uniqueSuffix()` after `prefix-`, or 0.
long pidInName(llvm::StringRef name);

/// An exclusive advisory lock on a lock file, held until destruction.
/// Uses llvm::sys::fs::lockFile (POSIX record locks: released when the
/// process dies, even by SIGKILL).
class FileLock {
public:
  FileLock() = default;
  FileLock(FileLock &&other) : fd_(other.fd_) { other.fd_ = -1; }
  FileLock &operator=(FileLock &&other);
  FileLock(const FileLock &) = delete;
  FileLock &operator=(const FileLock &) = delete;
  ~FileLock();

  /// Opens (creating) `path` and waits for the lock.
  static llvm::ErrorOr<FileLock> acquire(const llvm::Twine &path);
  /// Opens an existing `path` and takes the lock if it is free: an error
  /// `no_lock_available` if someone holds it.
  static llvm::ErrorOr<FileLock> tryAcquireExisting(const llvm::Twine &path);
  /// Creates a lock file that is locked from the moment it appears at
  /// `path`: written under a temporary name, locked, then renamed.
  static llvm::ErrorOr<FileLock> createLocked(const llvm::Twine &path,
                                              const llvm::Twine &pendingPath);

  bool held() const { return fd_ >= 0; }
  void release();

private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

} // namespace magi::cache::detail

#endif // MAGI_LIB_CACHE_FILEUTIL_H
