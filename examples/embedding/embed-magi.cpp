//===- embed-magi.cpp - Magi's pipeline inside another MLIR tool ----------===//
//
// What a compiler that embeds Magi does: its own MLIRContext, its own
// dialects plus Magi's, Magi's pipeline added to its own PassManager. Reads
// a graph, splits it at attention, prints one line per piece and then the
// IR.
//
//   embed-magi GRAPH.mlir [--compile-to=PHASE]
//
//===----------------------------------------------------------------------===//

#include "magi/InitAllDialects.h"
#include "magi/Pipeline/Pipeline.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

int main(int argc, char **argv) {
  if (argc < 2) {
    llvm::errs() << "usage: embed-magi GRAPH.mlir [--compile-to=PHASE]\n";
    return 2;
  }
  std::string compileTo = "split";
  for (int i = 2; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (!arg.consume_front("--compile-to=")) {
      llvm::errs() << "embed-magi: unknown option '" << argv[i] << "'\n";
      return 2;
    }
    compileTo = arg.str();
  }

  // The host's context: its dialects (here only func) and Magi's.
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect>();
  magi::registerAllDialects(registry);
  mlir::MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], sourceMgr,
                                            mlir::ParserConfig(&context));
  if (!module)
    return 1;

  // Magi's phases, in the host's own pass manager.
  magi::PipelineOptions options;
  options.compileTo = compileTo;
  mlir::PassManager pm(&context);
  if (mlir::failed(magi::buildPipeline(pm, options, [](const llvm::Twine &msg) {
        llvm::errs() << "embed-magi: " << msg << "\n";
        return mlir::failure();
      })))
    return 1;
  if (mlir::failed(pm.run(*module)))
    return 1;

  // One line per piece: what the host would hand to its own back end.
  int pieces = 0;
  std::string kinds;
  module->walk([&](mlir::func::FuncOp func) {
    auto splitting = func->getAttrOfType<mlir::BoolAttr>("magi.is_splitting");
    if (!splitting)
      return;
    llvm::outs() << "piece " << pieces++ << ": @" << func.getSymName() << " ("
                 << (splitting.getValue() ? "splitting" : "compute") << ")\n";
    kinds += kinds.empty() ? "" : ", ";
    kinds += splitting.getValue() ? "splitting" : "compute";
  });
  llvm::outs() << pieces << " pieces: " << kinds << "\n";
  module->print(llvm::outs());
  return 0;
}
