//===- magi-import.cpp - torch.export archive to magi IR ------------------===//
//
//   magi-import model.pt2 [-o graph.mlir] [--emit-bytecode]
//
// Writes nothing unless the whole import succeeds.
//
//===----------------------------------------------------------------------===//

#include "magi/Import/TorchExport.h"
#include "magi/InitAllDialects.h"
#include "magi/Support/Version.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "mlir/Support/FileUtilities.h"

namespace cl = llvm::cl;

static cl::OptionCategory importCategory("magi-import options");
static cl::opt<std::string> inputPath(cl::Positional, cl::Required,
                                      cl::desc("<model.pt2>"),
                                      cl::cat(importCategory));
static cl::opt<std::string> outputPath("o", cl::desc("Output file ('-' for stdout)"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(importCategory));
static cl::opt<bool> emitBytecode("emit-bytecode",
                                  cl::desc("Write MLIR bytecode instead of text"),
                                  cl::cat(importCategory));
static cl::opt<std::string> functionName("function-name",
                                         cl::desc("Name of the graph function"),
                                         cl::init("main"),
                                         cl::cat(importCategory));
static cl::opt<uint64_t> maxJsonBytes(
    "max-json-bytes",
    cl::desc("Refuse JSON entries of the archive larger than this (bytes)"),
    cl::init(magi::ImportOptions().maxJsonBytes), cl::cat(importCategory));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { magi::printVersion(os); });
  // --help lists Magi's options, not every LLVM backend's.
  cl::HideUnrelatedOptions(importCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "magi-import: torch.export archive (.pt2) to magi IR\n");

  mlir::DialectRegistry registry;
  magi::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  magi::ImportOptions options;
  options.functionName = functionName;
  options.maxJsonBytes = maxJsonBytes;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      magi::importTorchExport(inputPath, &context, options);
  if (!module)
    return 1;

  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputPath, &error);
  if (!output) {
    llvm::errs() << "magi-import: " << error << "\n";
    return 1;
  }
  if (emitBytecode) {
    if (mlir::failed(mlir::writeBytecodeToFile(*module, output->os())))
      return 1;
  } else {
    module->print(output->os());
  }
  output->keep();
  return 0;
}
