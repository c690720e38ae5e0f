//===- FileIO.cpp - Writing files whose every failure is reported ---------===//

#include "magi/Support/FileIO.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

llvm::Error magi::writeFileChecked(llvm::StringRef path,
                                   llvm::StringRef bytes) {
  auto failure = [&](std::error_code ec) {
    return llvm::createStringError(ec, "cannot write '%s': %s",
                                   path.str().c_str(), ec.message().c_str());
  };
  // Written beside its place and renamed there: a reader (or a process
  // killed half-way) never sees half a file under `path`.
  llvm::Expected<llvm::sys::fs::TempFile> temp =
      llvm::sys::fs::TempFile::create(path + ".tmp-%%%%%%");
  if (!temp)
    return failure(llvm::errorToErrorCode(temp.takeError()));
  llvm::raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
  os << bytes;
  os.flush();
  if (os.has_error()) {
    std::error_code ec = os.error();
    // Cleared, or the stream's destructor aborts the process.
    os.clear_error();
    llvm::consumeError(temp->discard());
    return failure(ec);
  }
  if (llvm::Error e = temp->keep(path)) {
    std::error_code ec = llvm::errorToErrorCode(std::move(e));
    llvm::consumeError(temp->discard());
    return failure(ec);
  }
  return llvm::Error::success();
}
