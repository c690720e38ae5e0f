//===- Version.cpp - Magi's version ---------------------------------------===//

#include "magi/Support/Version.h"
#include "VersionInfo.h"

namespace magi {

std::string getMagiVersion() {
  return std::string("magi ") + MAGI_VERSION_STRING + " (git " +
         MAGI_GIT_HASH + ")";
}

std::string getLLVMVersion() { return MAGI_LLVM_VERSION; }

void printVersion(llvm::raw_ostream &os) {
  os << getMagiVersion() << "\n  built with LLVM/MLIR " << getLLVMVersion()
     << "\n";
}

} // namespace magi
