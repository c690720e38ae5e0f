//===- Version.h - Magi's version -------------------------------*- C++ -*-===//
#ifndef MAGI_SUPPORT_VERSION_H
#define MAGI_SUPPORT_VERSION_H

#include "llvm/Support/raw_ostream.h"
#include <string>

namespace magi {
/// "magi <version> (git <hash>)": the project version and the source revision
/// the tools were built from.
std::string getMagiVersion();
/// The LLVM/MLIR version Magi was built against.
std::string getLLVMVersion();
/// Prints both, for `--version`.
void printVersion(llvm::raw_ostream &os);
} // namespace magi

#endif // MAGI_SUPPORT_VERSION_H
