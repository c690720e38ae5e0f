//===- magi-interp.cpp - Run a magi graph on the CPU ----------------------===//
//
//   magi-interp model.pt2 --fixture DIR/case0
//   magi-interp graph.mlir [--weights model.pt2] --input x.npy [--input ...]
//   magi-interp model.pt2 --fixture DIR/case0 --lowered-pieces
//
// Imports a torch.export archive (or parses a magi graph), reads the user
// inputs (a fixture's `caseK_inN.{bin,json}`, or `--input` files), runs the
// graph with the reference interpreter, and either compares the outputs with
// the fixture's `caseK_outN` (one `outN: rel_err=... OK|FAIL` line each; the
// exit status is nonzero on any FAIL) or prints them (the new values of
// mutated inputs, such as a KV cache, are no outputs). With --lowered-pieces
// the graph first goes through the pipeline to post-grad, and every piece the
// split graph calls runs lowered to linalg and compiled for the CPU.
//
//===----------------------------------------------------------------------===//

#include "magi/CpuRun/PieceRunner.h"
#include "magi/Import/TorchExport.h"
#include "magi/InitAllDialects.h"
#include "magi/Interp/Interpreter.h"
#include "magi/Interp/TensorIO.h"
#include "magi/Pipeline/Pipeline.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "magi/Support/Version.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include <cmath>

using namespace mlir;
using namespace magi::interp;
namespace cl = llvm::cl;

static cl::OptionCategory category("magi-interp options");

static cl::opt<std::string> graphPath(cl::Positional, cl::Required,
                                      cl::desc("<model.pt2 | graph.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string>
    weightsPath("weights",
                cl::desc("torch.export archive holding the graph's weights "
                         "(for a .mlir graph)"),
                cl::value_desc("model.pt2"), cl::cat(category));
static cl::opt<std::string> fixturePrefix(
    "fixture",
    cl::desc("Read inputs from PREFIX_inN.{bin,json} and compare the outputs "
             "with PREFIX_outN.{bin,json}"),
    cl::value_desc("PREFIX"), cl::cat(category));
static cl::list<std::string> inputPaths(
    "input",
    cl::desc("A user input, in order: a .npy file, or a .bin with its .json "
             "beside it (repeatable)"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<double> toleranceOverride(
    "tolerance",
    cl::desc("Relative-error bar for floating-point outputs (default 1e-4 "
             "for f32/f64, 3e-2 for bf16/f16); integer and bool outputs must "
             "match exactly"),
    cl::init(-1), cl::cat(category));
static cl::opt<std::string>
    saveDir("save-outputs",
            cl::desc("Write outputs as DIR/outN.bin + DIR/outN.json"),
            cl::value_desc("DIR"), cl::cat(category));
static cl::opt<std::string>
    saveNpyDir("save-outputs-npy",
               cl::desc("Write outputs as DIR/outN.npy (bf16 as float32)"),
               cl::value_desc("DIR"), cl::cat(category));
static cl::opt<std::string>
    functionName("function",
                 cl::desc("The function to run (default: @main of an archive, "
                          "the first public function of a .mlir file)"),
                 cl::cat(category));
static cl::opt<bool> printOutputs(
    "print-outputs",
    cl::desc("Print the outputs' values (the default without --fixture)"),
    cl::cat(category));
static cl::opt<bool> loweredPieces(
    "lowered-pieces",
    cl::desc("Take the graph through the pipeline to post-grad and run every "
             "piece lowered to linalg and compiled for the CPU, while the "
             "split graph itself is interpreted"),
    cl::cat(category));
static cl::opt<std::string> opLibrary(
    "op-library",
    cl::desc("An MLIR file of op definitions (func.func named after the op) "
             "that replace the opaque ops they name before anything runs "
             "(magi-expand-op-library)"),
    cl::cat(category));
static cl::opt<bool> noTiledAttention(
    "no-tiled-attention",
    cl::desc("With --lowered-pieces: lower attention to its six generics "
             "(scores, softmax, products) rather than to magi.tiled_attention, "
             "which runs as the GPU kernel's tiled algorithm in loops (as "
             "magi-compile's --no-tiled-attention)"),
    cl::cat(category));
static cl::opt<int64_t>
    printLimit("print-limit",
               cl::desc("Print at most this many elements per output"),
               cl::init(1000), cl::cat(category));

static constexpr llvm::StringLiteral kTool = "magi-interp";

static int fail(const llvm::Twine &message) {
  llvm::errs() << kTool << ": error: " << message << "\n";
  return 1;
}

// `file:line:col`, a NameLoc's name, the parts of a fused location; empty
// when unknown.
static std::string formatLocation(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    std::string text = file.getFilename().str();
    if (file.getLine() != 0)
      text += ":" + std::to_string(file.getLine()) + ":" +
              std::to_string(file.getColumn());
    return text;
  }
  if (auto name = dyn_cast<NameLoc>(loc)) {
    std::string child = formatLocation(name.getChildLoc());
    std::string text = "'" + name.getName().str() + "'";
    return child.empty() ? text : text + " in " + child;
  }
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return formatLocation(call.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    std::string text;
    for (Location part : fused.getLocations()) {
      std::string s = formatLocation(part);
      if (!s.empty())
        text += (text.empty() ? "" : ", ") + s;
    }
    return text;
  }
  return "";
}

// Prints `magi-interp: error: <message> at <location>` and its notes.
static void printDiagnostic(Diagnostic &diag) {
  auto print = [](DiagnosticSeverity severity, Location loc,
                  const std::string &message) {
    StringRef kind = severity == DiagnosticSeverity::Error     ? "error"
                     : severity == DiagnosticSeverity::Warning ? "warning"
                                                               : "note";
    llvm::errs() << kTool << ": " << kind << ": " << message;
    std::string where = formatLocation(loc);
    if (!where.empty())
      llvm::errs() << " at " << where;
    llvm::errs() << "\n";
  };
  print(diag.getSeverity(), diag.getLocation(), diag.str());
  for (Diagnostic &note : diag.getNotes())
    print(DiagnosticSeverity::Note, note.getLocation(), note.str());
}

// The opaque ops the op library defines, replaced by their definitions.
static LogicalResult expandOpLibrary(ModuleOp module) {
  PassManager pm(module.getContext());
  magi::ExpandOpLibraryOptions options;
  options.library = opLibrary;
  pm.addNestedPass<func::FuncOp>(magi::createExpandOpLibrary(options));
  return pm.run(module);
}

// The pipeline up to post-grad: the graph split into pieces.
static LogicalResult runPipelineToPostGrad(ModuleOp module) {
  PassManager pm(module.getContext());
  magi::PipelineOptions options;
  options.compileTo = "post-grad";
  auto reportError = [](const llvm::Twine &message) {
    fail(message);
    return failure();
  };
  if (failed(magi::buildPipeline(pm, options, reportError)))
    return failure();
  return pm.run(module);
}

// Reads one input file: .npy, or .bin/.json pairs named by either file.
static llvm::Expected<Tensor> readInput(StringRef path, MLIRContext *context) {
  if (path.ends_with(".npy"))
    return readNpy(path, context);
  if (path.ends_with(".bin") || path.ends_with(".json")) {
    SmallString<256> bin(path), json(path);
    llvm::sys::path::replace_extension(bin, "bin");
    llvm::sys::path::replace_extension(json, "json");
    return readRawTensor(bin, json, context);
  }
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "input '" + path +
                                     "' is neither .npy nor .bin/.json");
}

// The fixture files `<prefix>_<kind><N>.json` present, N = 0, 1, ...
static unsigned countFixtureFiles(StringRef prefix, StringRef kind) {
  unsigned n = 0;
  while (
      llvm::sys::fs::exists(prefix + "_" + kind + std::to_string(n) + ".json"))
    ++n;
  return n;
}

static llvm::Expected<Tensor> readFixtureTensor(StringRef prefix,
                                                StringRef kind, unsigned n,
                                                MLIRContext *context) {
  std::string base = (prefix + "_" + kind + std::to_string(n)).str();
  return readRawTensor(base + ".bin", base + ".json", context);
}

// The relative-error bar for an output of `dtype`; nothing for exact
// (integer and bool) outputs.
static std::optional<double> toleranceFor(Type dtype) {
  if (!isa<FloatType>(dtype))
    return std::nullopt;
  if (toleranceOverride >= 0)
    return toleranceOverride.getValue();
  return dtype.isBF16() || dtype.isF16() ? 3e-2 : 1e-4;
}

// Compares output `index` with its reference and prints its line; returns
// whether it passed.
static bool compareOutput(unsigned index, const Tensor &out,
                          const Tensor &ref) {
  llvm::outs() << "out" << index << ": ";
  if (out.getShape() != ref.getShape()) {
    llvm::outs() << "rel_err=inf FAIL (shape " << formatShape(out.getShape())
                 << ", reference " << formatShape(ref.getShape()) << ")\n";
    return false;
  }
  double diff = 0, norm = 0;
  bool exact = true;
  for (int64_t i = 0, e = out.getNumElements(); i < e; ++i) {
    double o = out.getDouble(i), r = ref.getDouble(i);
    diff += (o - r) * (o - r);
    norm += r * r;
    exact &= out.isFloat() || ref.isFloat()
                 ? (o == r || (std::isnan(o) && std::isnan(r)))
                 : out.getInt(i) == ref.getInt(i);
  }
  // Relative to the reference's norm; absolute when the reference is zero.
  double relErr =
      norm > 0 ? std::sqrt(diff) / std::sqrt(norm) : std::sqrt(diff);
  std::optional<double> tolerance = toleranceFor(out.getDtype());
  bool ok = tolerance ? relErr <= *tolerance : exact;
  bool sameDtype = out.getDtype() == ref.getDtype();
  ok &= sameDtype;
  char text[32];
  std::snprintf(text, sizeof(text), "%.3e", relErr);
  llvm::outs() << "rel_err=" << text << (ok ? " OK" : " FAIL");
  if (!sameDtype)
    llvm::outs() << " (dtype " << getDtypeName(out.getDtype()) << ", reference "
                 << getDtypeName(ref.getDtype()) << ")";
  else if (!tolerance && !exact)
    llvm::outs() << " (integer outputs must match exactly)";
  llvm::outs() << "\n";
  return ok;
}

static int saveOutputs(ArrayRef<Tensor> outputs, MLIRContext *context) {
  if (!saveDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(saveDir))
      return fail("cannot create '" + saveDir + "': " + ec.message());
    for (auto [i, out] : llvm::enumerate(outputs)) {
      std::string base = saveDir + "/out" + std::to_string(i);
      if (llvm::Error e = writeRawTensor(out, base + ".bin", base + ".json"))
        return fail(llvm::toString(std::move(e)));
    }
  }
  if (!saveNpyDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(saveNpyDir))
      return fail("cannot create '" + saveNpyDir + "': " + ec.message());
    for (auto [i, out] : llvm::enumerate(outputs)) {
      std::string path = saveNpyDir + "/out" + std::to_string(i) + ".npy";
      Tensor value = out;
      if (out.getKind() == ElementKind::BF16) {
        llvm::errs() << kTool << ": note: out" << i
                     << " is bfloat16, which NumPy lacks; '" << path
                     << "' holds it as float32\n";
        value = out.castTo(Float32Type::get(context));
      }
      if (llvm::Error e = writeNpy(value, path))
        return fail(llvm::toString(std::move(e)));
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { magi::printVersion(os); });
  cl::ParseCommandLineOptions(
      argc, argv,
      "magi-interp: run a magi graph on the CPU with PyTorch's numerics\n");

  DialectRegistry registry;
  magi::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics name the op and its location; the generic op dump adds noise.
  context.printOpOnDiagnostic(false);
  ScopedDiagnosticHandler diagnostics(&context, [](Diagnostic &diag) {
    printDiagnostic(diag);
    return success();
  });

  if (!fixturePrefix.empty() && !inputPaths.empty())
    return fail("give user inputs either with --fixture or with --input, "
                "not both");

  // The graph, and the archive its weights come from.
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<magi::TorchExportArchive> archive;
  std::string archivePath = weightsPath;
  bool fromArchive = magi::isZipArchive(graphPath);
  if (fromArchive) {
    module = magi::importTorchExport(graphPath, &context);
    if (archivePath.empty())
      archivePath = graphPath;
  } else {
    llvm::SourceMgr sourceMgr;
    module =
        parseSourceFile<ModuleOp>(graphPath, sourceMgr, ParserConfig(&context));
  }
  if (!module)
    return 1;
  if (!opLibrary.empty() && failed(expandOpLibrary(*module)))
    return 1;
  if (loweredPieces && failed(runPipelineToPostGrad(*module)))
    return 1;
  if (!archivePath.empty()) {
    std::string error;
    archive = magi::TorchExportArchive::open(archivePath, error);
    if (!archive)
      return fail(error);
  }

  func::FuncOp func;
  if (!functionName.empty())
    func = module->lookupSymbol<func::FuncOp>(functionName);
  else if (fromArchive)
    func = module->lookupSymbol<func::FuncOp>("main");
  if (!func && functionName.empty())
    for (auto f : module->getOps<func::FuncOp>())
      if (f.isPublic() && !f.isExternal()) {
        func = f;
        break;
      }
  if (!func)
    return fail(functionName.empty()
                    ? "'" + graphPath + "' has no public function to run"
                    : "'" + graphPath + "' has no function @" + functionName);

  // User inputs.
  SmallVector<Tensor> userInputs;
  if (!fixturePrefix.empty()) {
    unsigned numInputs = countFixtureFiles(fixturePrefix, "in");
    if (numInputs == 0 && countFixtureFiles(fixturePrefix, "out") == 0)
      return fail("no fixture at '" + fixturePrefix + "': neither '" +
                  fixturePrefix + "_in0.json' nor '" + fixturePrefix +
                  "_out0.json' exists");
    for (unsigned i = 0; i < numInputs; ++i) {
      llvm::Expected<Tensor> t =
          readFixtureTensor(fixturePrefix, "in", i, &context);
      if (!t)
        return fail(llvm::toString(t.takeError()));
      userInputs.push_back(std::move(*t));
    }
  }
  for (const std::string &path : inputPaths) {
    llvm::Expected<Tensor> t = readInput(path, &context);
    if (!t)
      return fail(llvm::toString(t.takeError()));
    userInputs.push_back(std::move(*t));
  }

  FailureOr<SmallVector<Tensor>> args =
      prepareArguments(func, archive.get(), userInputs);
  if (failed(args))
    return 1;
  std::optional<magi::cpurun::PieceRunner> pieceRunner;
  if (loweredPieces)
    pieceRunner.emplace(&context, /*tiledAttention=*/!noTiledAttention);
  auto runPiece = [&](func::FuncOp piece, ArrayRef<Tensor> pieceArgs) {
    return pieceRunner->run(piece, pieceArgs);
  };
  FailureOr<SmallVector<Tensor>> results = interpret(
      func, *args, loweredPieces ? CalleeRunner(runPiece) : CalleeRunner());
  if (failed(results))
    return 1;
  // A mutated input's new value (magi.mutates: a KV cache) is state, not an
  // output, as in PyTorch and magi-run: it is neither compared nor printed.
  SmallVector<Tensor> outputs;
  for (auto [i, result] : llvm::enumerate(*results)) {
    if (auto target = func.getResultAttrOfType<StringAttr>(i, magi::kMutatesAttr)) {
      llvm::errs() << "magi-interp: result " << i << " is the new value of input '"
                   << target.getValue() << "' (a mutation), not an output\n";
      continue;
    }
    outputs.push_back(std::move(result));
  }

  bool allPassed = true;
  if (!fixturePrefix.empty()) {
    unsigned numRefs = countFixtureFiles(fixturePrefix, "out");
    if (numRefs != outputs.size())
      return fail("the graph has " + llvm::Twine(outputs.size()) +
                  " output(s), but the fixture has " + llvm::Twine(numRefs) +
                  " reference output(s) ('" + fixturePrefix + "_outN.json')");
    for (auto [i, out] : llvm::enumerate(outputs)) {
      llvm::Expected<Tensor> ref =
          readFixtureTensor(fixturePrefix, "out", i, &context);
      if (!ref)
        return fail(llvm::toString(ref.takeError()));
      allPassed &= compareOutput(i, out, *ref);
    }
  }
  if (fixturePrefix.empty() || printOutputs) {
    for (auto [i, out] : llvm::enumerate(outputs)) {
      llvm::outs() << "out" << i << ": " << out.getTypeString() << " = ";
      out.printValues(llvm::outs(), printLimit);
      llvm::outs() << "\n";
    }
  }
  if (int status = saveOutputs(outputs, &context))
    return status;
  return allPassed ? 0 : 1;
}
