//===- FileIO.h - Writing files whose every failure is reported -*- C++ -*-===//
#ifndef MAGI_SUPPORT_FILEIO_H
#define MAGI_SUPPORT_FILEIO_H

#include "llvm/Support/Error.h"
#include "llvm/ADT/StringRef.h"

namespace magi {

/// Writes `bytes` to `path`, replacing it: into a temporary file beside it,
/// renamed to `path` once complete, so `path` is never half written (not
/// even by a process killed half-way, which leaves at most a
/// `path.tmp-XXXXXX`). Every failure (cannot create, a full disk) is an
/// error naming the file, and the temporary file is removed: never LLVM's
/// fatal "IO failure on output stream".
llvm::Error writeFileChecked(llvm::StringRef path, llvm::StringRef bytes);

} // namespace magi

#endif // MAGI_SUPPORT_FILEIO_H
