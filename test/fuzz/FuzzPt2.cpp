//===- FuzzPt2.cpp - the torch.export archive importer --------------------===//
//
// Any bytes as a .pt2 archive, held in memory (a memfd, opened through
// /proc/self/fd): imported into a magi graph that verifies, or refused with
// a diagnostic, never crashing, and never reading a JSON entry over 4 MiB.
//
//===----------------------------------------------------------------------===//

#include "magi/Import/TorchExport.h"
#include "FuzzContext.h"
#include "mlir/IR/Verifier.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <sys/mman.h>
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
