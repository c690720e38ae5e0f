//===- magi-opt.cpp - mlir-opt with Magi's dialect and passes -------------===//

#include "magi/InitAllDialects.h"
#include "magi/Support/Version.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();

  mlir::DialectRegistry registry;
  magi::registerAllDialects(registry);

  llvm::cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { magi::printVersion(os); });
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Magi optimizer driver\n", registry));
}
