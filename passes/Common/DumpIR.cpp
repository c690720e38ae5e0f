//===- DumpIR.cpp - Write the IR of a pipeline phase to files -------------===//

#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace magi {
#define GEN_PASS_DEF_DUMPIR
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;
using namespace magi;

namespace {

class DumpIRPass : public magi::impl::DumpIRBase<DumpIRPass> {
public:
  using DumpIRBase::DumpIRBase;

  void runOnOperation() override {
    markAllAnalysesPreserved();
    ModuleOp module = getOperation();
    if (dir.empty() || phase.empty()) {
      module.emitError("magi-dump-ir needs 'dir' and 'phase'");
      return signalPassFailure();
    }
    if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
      module.emitError("cannot create '") << dir << "': " << ec.message();
      return signalPassFailure();
    }
    std::string stem;
    llvm::raw_string_ostream(stem) << llvm::format("%02u", order.getValue())
                                   << "-" << phase;
    if (failed(write(module, stem + ".mlir")))
      return signalPassFailure();
    if (!perPiece)
      return;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(kPieceIndexAttr) &&
          failed(write(func, stem + "." + func.getName().str() + ".mlir")))
        return signalPassFailure();
  }

private:
  LogicalResult write(Operation *op, const std::string &name) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return op->emitError("cannot write '") << path << "': " << ec.message();
    op->print(os);
    os << "\n";
    return success();
  }
};

} // namespace
