//===- magi-compile.cpp - a captured graph to a runnable GPU artifact -----===//
//
// Imports a torch.export archive (or reads a .mlir graph), runs the pipeline
// through the lower phase, compiles every piece to PTX (and cubin) with its
// launch plan, and writes the artifact magi-run loads
// (docs/artifact-format.md); the work is magi::compileModel. Prints one
// summary line per piece.
//
//===----------------------------------------------------------------------===//

#include "magi/Compile/CompileModel.h"
#include "magi/Support/Version.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include <chrono>

namespace cl = llvm::cl;

static cl::OptionCategory category("magi-compile options");
// `--stats` (the cache counters) is read before LLVM's parser, which owns
// an option of that name (LLVM's statistics, compiled out of release builds).
static bool stats = false;

static constexpr const char *kTool = "magi-compile";

static int fail(const llvm::Twine &message) {
  llvm::errs() << kTool << ": error: " << message << "\n";
  return 1;
}

// --stats and the summary.
static void printSummary(const magi::CompileOptions &options,
                         const magi::CompileResult &result, bool quiet) {
  const std::vector<magi::PieceReport> &reports = result.pieces;
  if (stats) {
    size_t compiled = 0, hits = 0, reused = 0;
    for (const magi::PieceReport &r : reports) {
      compiled += r.source == "compiled";
      hits += r.source == "hit";
      reused += r.source == "reused";
    }
    llvm::outs() << "pieces: " << reports.size() << " (" << compiled
                 << " compiled, " << hits << " from the cache, " << reused
                 << " identical to an earlier piece)\n";
    if (result.cacheCounters)
      result.cacheCounters->print(llvm::outs());
    else
      llvm::outs() << "cache: off\n";
  }
  if (quiet)
    return;
  size_t kernels = 0;
  for (const magi::PieceReport &r : reports) {
    llvm::outs() << llvm::format(
        "piece %-3zu %-28s %-9s graph %-2lld %3zu kernels %2zu gemms "
        "%2zu variants %7.1f ms  %s\n",
        &r - reports.data(), r.name.c_str(), r.kind.c_str(),
        (long long)r.graphIndex, r.kernels, r.libraryCalls, r.variants,
        r.seconds * 1e3, r.source.c_str());
    kernels += r.kernels;
  }
  llvm::outs() << llvm::format(
      "%s: %zu pieces, %zu kernels, %s -> %s in %.2f s\n", kTool,
      reports.size(), kernels, options.chip.c_str(), options.outputDir.c_str(),
      result.seconds);
  // Whether a mutated input (a KV cache) is written in place or copied back
  // after every run is the difference between a decode step and a copy of
  // the cache per step: said here, not left to be found at run time.
  if (result.mutations.empty())
    return;
  std::vector<std::string> inPlace, copied;
  for (const magi::MutationReport &m : result.mutations)
    (m.inPlace ? inPlace : copied).push_back(m.input);
  // At most four names a list (a 32-layer model mutates 96 inputs).
  auto list = [](const std::vector<std::string> &names) {
    std::string text;
    for (size_t i = 0; i < names.size() && i < 4; ++i)
      text += (i ? ", " : "") + names[i];
    if (names.size() > 4)
      text += ", ... (" + std::to_string(names.size()) + " in all)";
    return text;
  };
  llvm::outs() << kTool << ": " << result.mutations.size() << " mutated input(s): ";
  if (!inPlace.empty())
    llvm::outs() << list(inPlace) << " written in place" << (copied.empty() ? "" : "; ");
  if (!copied.empty())
    llvm::outs() << list(copied) << " copied back after each run";
  llvm::outs() << "\n";
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  std::vector<char *> args;
  for (int i = 0; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (i > 0 && (arg == "--stats" || arg == "-stats"))
      stats = true;
    else
      args.push_back(argv[i]);
  }
  argc = static_cast<int>(args.size());
  argv = args.data();
  magi::CompileOptions options;
  options.programName = kTool;
  magi::CompileCommandLine commandLine(options, category);
  cl::HideUnrelatedOptions(category);
  cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { magi::printVersion(os); });
  cl::ParseCommandLineOptions(
      argc, argv,
      "magi-compile: compile a captured graph for an NVIDIA GPU\n\n"
      "  --stats  print the cache counters (hits, misses, stored, bytes) at "
      "the end\n");
  if (llvm::Error e = commandLine.finish())
    return fail(llvm::toString(std::move(e)));
  bool quiet = commandLine.quiet();

  // Progress on a terminal, once a compile has taken a second; nothing when
  // stderr is a file or a pipe.
  auto start = std::chrono::steady_clock::now();
  bool progressShown = false;
  if (llvm::sys::Process::StandardErrIsDisplayed() && !quiet)
    options.progress = [&](size_t done, size_t total) {
      double elapsed = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      if (elapsed < 1.0 && !progressShown)
        return;
      progressShown = true;
      llvm::errs() << "\r" << kTool << ": compiled " << done << " of "
                   << total << " piece variants";
      if (done == total)
        llvm::errs() << "\n";
      llvm::errs().flush();
    };
  llvm::Expected<magi::CompileResult> result = magi::compileModel(options);
  if (!result)
    return fail(llvm::toString(result.takeError()));
  printSummary(options, *result, quiet);
  return 0;
}
