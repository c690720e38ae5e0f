//===- magi-run.cpp - Run a compiled magi artifact on an NVIDIA GPU -------===//
//
//   magi-run DIR --fixture PREFIX [--tolerance X] [--repeat N] [--verbose]
//            [--cuda-graphs=on|full|off] [--runs N]
//            [--gemm-algorithm=measured|heuristic] [--programmatic-launch=on|off]
//            [--profile-last-run]
//            [--profile] [--trace FILE]
//   magi-run DIR --input a.bin [--input b.bin ...] [--save-outputs OUT]
//            [--weights-from MODEL.pt2]
//
// Loads DIR/manifest.json (docs/artifact-format.md), checks the user inputs
// against the graph, uploads the weights once (from the files the manifest
// names, CRC-checked; or, with --weights-from, from another archive of the
// same model), runs the steps with the CUDA driver API and cuBLASLt
// (compute pieces captured into CUDA graphs and replayed once their
// parameters repeat; or the whole run as one graph), and compares the outputs with the
// fixture's references (one `outN: rel_err=... OK|FAIL` line each) or saves
// them.
// See docs/runtime.md.
//
//===----------------------------------------------------------------------===//

#include "magi/Runtime/CudaDevice.h"
#include "magi/Runtime/Executor.h"

#include <cudaProfiler.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

using namespace magi::runtime;

namespace {

const char *kUsage =
    "usage: magi-run DIR [options]\n"
    "Runs the compiled magi artifact in DIR on an NVIDIA GPU.\n"
    "\n"
    "  --fixture PREFIX     inputs from PREFIX_inN.{bin,json}; compare the outputs with\n"
    "                       PREFIX_outN.{bin,json} (one 'outN: rel_err=... OK|FAIL' line each)\n"
    "  --input FILE.bin     a user input (its .json beside it), in graph order; repeatable\n"
    "  --save-outputs DIR2  write the outputs as DIR2/outN.bin + DIR2/outN.json\n"
    "  --weights-from PATH  read the weights from the torch.export archive PATH (the same\n"
    "                       model, other values) instead of the files the artifact names;\n"
    "                       entries match by name without the archive's top folder\n"
    "  --tolerance X        relative-error bar for float outputs (default 1e-4 for f32/f64,\n"
    "                       3e-2 for bf16/f16; integer and bool outputs must match exactly)\n"
    "  --repeat N           after the warm-up, run N more times and print the median time\n"
    "  --cuda-graphs=on|full|off\n"
    "                       on: capture each compute piece into a CUDA graph and replay it\n"
    "                       when a later run has the same parameters (default); full: the\n"
    "                       whole run, splitting pieces included, as one graph; off: eager\n"
    "  --runs N             run the graph N times (default 1) and check the last run; each\n"
    "                       run after the first fills the plan's buffers with 0xFF again\n"
    "                       (N = 3 checks a CUDA graph replay)\n"
    "  --gemm-algorithm=measured|heuristic\n"
    "                       measured: on a gemm problem's first call, time cuBLASLt's best\n"
    "                       candidates (and split-K variants) from a cold L2 and keep the\n"
    "                       fastest (default); heuristic: cuBLASLt's first answer, the same\n"
    "                       choice on every run\n"
    "  --programmatic-launch=on|off\n"
    "                       on: launch kernels that wait for the previous grid at entry\n"
    "                       (format 7) with programmatic stream serialization, so each\n"
    "                       is scheduled while the kernel before it ends (default); off:\n"
    "                       every launch starts after the previous one has ended\n"
    "  --pad-to-compile-sizes\n"
    "                       run a size that is no compile size as the next larger one:\n"
    "                       inputs padded with zeros, outputs cut back (only for a graph\n"
    "                       whose outputs at a position depend on no later position, a\n"
    "                       causal language model; docs/runtime.md)\n"
    "  --verbose            print each step's piece, variant, how it ran (eager, captured,\n"
    "                       replayed), launches and gemms, and synchronize after each\n"
    "                       launch and gemm (after the whole graph when captured or replayed),\n"
    "                       and each gemm problem's algorithm choice\n"
    "  --sync-each          synchronize and check after each launch and gemm\n"
    "  --profile-last-run   bracket the last run with cuProfilerStart/Stop, so that a profiler\n"
    "                       started with --profile-from-start off (ncu, nsys) sees that run\n"
    "                       only (with --runs 2: not the first run's algorithm timing)\n"
    "  --profile            after the other runs, time one more on the GPU, every launch\n"
    "                       and gemm with its bytes (from the plan) and FLOPs, and print\n"
    "                       them slowest first with their fraction of the copy bandwidth\n"
    "                       and gemm rate measured here (the profiled run is eager, each\n"
    "                       launch timed, unless --cuda-graphs is given)\n"
    "  --trace FILE         write that profiled run as Chrome trace-event JSON (steps,\n"
    "                       launches, gemms), which chrome://tracing and Perfetto open\n"
    "  --print-limit N      values printed per output without --fixture (default 8)\n"
    "  --device N           the CUDA device ordinal (default 0)\n"
    "  --help               this text\n"
    "Exit status: 0 when everything ran (and matched), 1 on a FAIL or an error, 2 on a\n"
    "bad command line.\n";

struct Options {
  std::string artifactDir;
  std::string fixturePrefix;
  std::vector<std::string> inputs;
  std::string saveDir;
  std::string weightsFrom;
  std::optional<double> tolerance;
  int64_t repeat = 0;
  int64_t runs = 1;
  bool cudaGraphs = true;
  bool fullGraph = false;
  bool padToCompileSizes = false;
  GemmAlgorithmChoice gemmChoice = GemmAlgorithmChoice::Measured;
  bool programmaticLaunch = true;
  bool verbose = false;
  bool syncEach = false;
  bool profileLastRun = false;
  bool profile = false;
  std::string traceFile;
  bool cudaGraphsGiven = false;
  int64_t printLimit = 8;
  int device = 0;
};

[[noreturn]] void usageError(const std::string &message) {
  std::cerr << "magi-run: " << message << "\n(magi-run --help lists the options)\n";
  std::exit(2);
}

int64_t parseInteger(const std::string &text, const std::string &option, int64_t min) {
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || value < min)
    usageError(option + " expects an integer >= " + std::to_string(min) + ", got '" + text + "'");
  return value;
}

Options parseCommandLine(int argc, char **argv) {
  Options options;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    std::string value;
    bool hasInlineValue = false;
    if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos) {
      value = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
      hasInlineValue = true;
    }
    auto takeValue = [&]() {
      if (hasInlineValue)
        return value;
      if (i + 1 >= args.size())
        usageError(arg + " needs a value");
      return args[++i];
    };
    auto noValue = [&]() {
      if (hasInlineValue)
        usageError(arg + " takes no value");
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg == "--fixture") {
      options.fixturePrefix = takeValue();
    } else if (arg == "--input") {
      options.inputs.push_back(takeValue());
    } else if (arg == "--save-outputs") {
      options.saveDir = takeValue();
    } else if (arg == "--weights-from") {
      options.weightsFrom = takeValue();
    } else if (arg == "--tolerance") {
      std::string text = takeValue();
      char *end = nullptr;
      double tolerance = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(tolerance >= 0))
        usageError("--tolerance expects a non-negative number, got '" + text + "'");
      options.tolerance = tolerance;
    } else if (arg == "--repeat") {
      options.repeat = parseInteger(takeValue(), "--repeat", 1);
    } else if (arg == "--runs") {
      options.runs = parseInteger(takeValue(), "--runs", 1);
    } else if (arg == "--cuda-graphs") {
      std::string text = takeValue();
      if (text != "on" && text != "off" && text != "full")
        usageError("--cuda-graphs expects on, full or off, got '" + text + "'");
      options.cudaGraphs = text != "off";
      options.fullGraph = text == "full";
      options.cudaGraphsGiven = true;
    } else if (arg == "--gemm-algorithm") {
      std::string text = takeValue();
      if (text != "measured" && text != "heuristic")
        usageError("--gemm-algorithm expects measured or heuristic, got '" + text + "'");
      options.gemmChoice =
          text == "measured" ? GemmAlgorithmChoice::Measured : GemmAlgorithmChoice::Heuristic;
    } else if (arg == "--programmatic-launch") {
      std::string text = takeValue();
      if (text != "on" && text != "off")
        usageError("--programmatic-launch expects on or off, got '" + text + "'");
      options.programmaticLaunch = text == "on";
    } else if (arg == "--print-limit") {
      options.printLimit = parseInteger(takeValue(), "--print-limit", 0);
    } else if (arg == "--device") {
      options.device = int(parseInteger(takeValue(), "--device", 0));
    } else if (arg == "--pad-to-compile-sizes") {
      noValue();
      options.padToCompileSizes = true;
    } else if (arg == "--verbose" || arg == "-v") {
      noValue();
      options.verbose = true;
    } else if (arg == "--profile-last-run") {
      noValue();
      options.profileLastRun = true;
    } else if (arg == "--profile") {
      noValue();
      options.profile = true;
    } else if (arg == "--trace") {
      options.traceFile = takeValue();
      if (options.traceFile.empty())
        usageError("--trace needs a file name");
    } else if (arg == "--sync-each") {
      noValue();
      options.syncEach = true;
    } else if (arg.rfind("-", 0) == 0 && arg != "-") {
      usageError("unknown option '" + arg + "'");
    } else if (options.artifactDir.empty()) {
      options.artifactDir = arg;
    } else {
      usageError("more than one artifact directory ('" + options.artifactDir + "', '" + arg +
                 "')");
    }
  }
  if (options.artifactDir.empty())
    usageError("no artifact directory given");
  if (!options.fixturePrefix.empty() && !options.inputs.empty())
    usageError("give user inputs either with --fixture or with --input, not both");
  return options;
}

bool fileExists(const std::string &path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

// The fixture files PREFIX_<kind>N.json present, N = 0, 1, ...
unsigned countFixtureFiles(const std::string &prefix, const std::string &kind) {
  unsigned n = 0;
  while (fileExists(prefix + "_" + kind + std::to_string(n) + ".json"))
    ++n;
  return n;
}

HostTensor readFixtureTensor(const std::string &prefix, const std::string &kind, unsigned n) {
  std::string base = prefix + "_" + kind + std::to_string(n);
  return readRawTensor(base + ".bin", base + ".json");
}

void printValues(const HostTensor &t, int64_t limit) {
  int64_t n = t.numElements();
  std::cout << "[";
  for (int64_t i = 0; i < n && i < limit; ++i) {
    if (i)
      std::cout << ", ";
    if (isFloat(t.dtype)) {
      char text[32];
      std::snprintf(text, sizeof(text), "%.6g", t.getDouble(i));
      std::cout << text;
    } else {
      std::cout << t.getInt(i);
    }
  }
  std::cout << (n > limit ? ", ...]" : "]");
}

int run(const Options &options) {
  Manifest manifest = loadManifest(options.artifactDir);
  if (!options.weightsFrom.empty()) {
    try {
      rebindWeights(manifest, options.weightsFrom);
    } catch (const RuntimeError &e) {
      throw RuntimeError(std::string("--weights-from: ") + e.what());
    }
  }

  // Everything about the inputs is checked before the GPU is touched.
  std::vector<HostTensor> inputs;
  std::vector<HostTensor> references;
  if (!options.fixturePrefix.empty()) {
    const std::string &prefix = options.fixturePrefix;
    unsigned numInputs = countFixtureFiles(prefix, "in");
    unsigned numRefs = countFixtureFiles(prefix, "out");
    if (numInputs == 0 && numRefs == 0)
      throw RuntimeError("no fixture at '" + prefix + "': neither '" + prefix +
                         "_in0.json' nor '" + prefix + "_out0.json' exists");
    for (unsigned i = 0; i < numInputs; ++i)
      inputs.push_back(readFixtureTensor(prefix, "in", i));
    // Mutated inputs are written back, not returned (or compared).
    if (numRefs != manifest.graph.numUserOutputs())
      throw RuntimeError("the graph has " + std::to_string(manifest.graph.numUserOutputs()) +
                         " output(s), but the fixture has " + std::to_string(numRefs) +
                         " reference output(s) ('" + prefix + "_outN.json')");
    for (unsigned i = 0; i < numRefs; ++i)
      references.push_back(readFixtureTensor(prefix, "out", i));
  }
  for (const std::string &path : options.inputs)
    inputs.push_back(readTensorFile(path));
  bindInputs(manifest.graph, inputs);

  CudaDevice device(options.device);
  device.setGemmAlgorithmChoice(options.gemmChoice, options.verbose ? &std::cerr : nullptr);
  device.setProgrammaticLaunch(options.programmaticLaunch);
  if (options.verbose) {
    std::cerr << "magi-run: " << device.name() << " (" << device.chip() << "); artifact for "
              << manifest.targetChip;
    if (!manifest.producer.describe().empty())
      std::cerr << " by " << manifest.producer.describe();
    std::cerr << "\n";
  }
  if (!targetRunsOn(manifest.targetChip, device.chip()))
    std::cerr << "magi-run: warning: the artifact targets " << manifest.targetChip
              << ", the GPU is " << device.chip() << "\n";

  ExecutorOptions executorOptions;
  executorOptions.verbose = options.verbose ? &std::cerr : nullptr;
  executorOptions.syncEach = options.verbose || options.syncEach;
  executorOptions.cudaGraphs = options.cudaGraphs;
  executorOptions.fullGraph = options.fullGraph;
  executorOptions.padToCompileSizes = options.padToCompileSizes;
  GraphExecutor executor(manifest, options.artifactDir, device, executorOptions);
  executor.uploadWeights();
  // On stderr, where it cannot disturb the lines scripts read on stdout.
  std::cerr << "magi-run: " << executor.weightStats().describe() << "\n";
  executor.setInputs(inputs);
  if (const std::optional<PaddingPlan> &plan = executor.paddingPlan())
    std::cerr << "magi-run: " << executor.paddingStats().describe(plan->symbol) << "\n";

  std::vector<DeviceTensor> deviceOutputs;
  for (int64_t r = 0; r < options.runs; ++r) {
    // What a later run (a replay) fails to write must not pass for the
    // previous run's output.
    if (r > 0)
      executor.poisonPlanBuffers();
    if (options.verbose && options.runs > 1)
      std::cerr << "magi-run: run " << r + 1 << " of " << options.runs << "\n";
    bool profiled = options.profileLastRun && r + 1 == options.runs;
    if (profiled) {
      device.synchronize("the runs before the profiled one");
      checkCuda(cuProfilerStart(), "cuProfilerStart");
    }
    deviceOutputs = executor.run();
    if (profiled) {
      device.synchronize("the profiled run");
      checkCuda(cuProfilerStop(), "cuProfilerStop");
    }
  }
  device.synchronize("the graph");
  std::cerr << "magi-run: " << executor.memoryStats().describe() << "\n";
  if (!manifest.graph.mutations.empty())
    std::cerr << "magi-run: " << executor.mutationStats().describe() << "\n";
  std::vector<HostTensor> outputs;
  for (const DeviceTensor &t : deviceOutputs)
    outputs.push_back(executor.download(t));

  bool allPassed = true;
  if (!options.fixturePrefix.empty()) {
    for (size_t i = 0; i < outputs.size(); ++i)
      allPassed &= compareOutput(unsigned(i), outputs[i], references[i], options.tolerance,
                                 std::cout);
  } else {
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::cout << "out" << i << ": " << fixtureName(outputs[i].dtype) << " "
                << formatShape(outputs[i].shape) << " = ";
      printValues(outputs[i], options.printLimit);
      std::cout << "\n";
    }
  }

  if (!options.saveDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.saveDir, ec);
    if (ec)
      throw RuntimeError("cannot create '" + options.saveDir + "': " + ec.message());
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string base = options.saveDir + "/out" + std::to_string(i);
      writeRawTensor(outputs[i], base + ".bin", base + ".json");
    }
  }

  if (options.repeat > 0) {
    // The checked run's buffers are not needed any more (its outputs are on
    // the host): the timing runs' own would double the GPU memory a large
    // model needs.
    executor.releaseRunState();
    // Timing runs neither print per step nor synchronize inside the graph.
    ExecutorOptions timingOptions;
    timingOptions.cudaGraphs = options.cudaGraphs;
    timingOptions.fullGraph = options.fullGraph;
    timingOptions.padToCompileSizes = options.padToCompileSizes;
    GraphExecutor timed(manifest, options.artifactDir, device, timingOptions);
    timed.shareWeights(executor); // the weights are read once
    timed.setInputs(inputs);
    // Warm-up: modules, cuBLASLt algorithms, buffers; with CUDA graphs a
    // second run captures them, so that the timed runs are replays.
    for (int warmUp = 0; warmUp < (options.cudaGraphs ? 2 : 1); ++warmUp) {
      timed.run();
      device.synchronize("the warm-up run");
    }
    CUevent start = nullptr, stop = nullptr;
    checkCuda(cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
    checkCuda(cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
    std::vector<float> times;
    for (int64_t i = 0; i < options.repeat; ++i) {
      checkCuda(cuEventRecord(start, device.stream()), "cuEventRecord");
      timed.run();
      checkCuda(cuEventRecord(stop, device.stream()), "cuEventRecord");
      checkCuda(cuEventSynchronize(stop), "cuEventSynchronize", "timed run " + std::to_string(i));
      float ms = 0;
      checkCuda(cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
      times.push_back(ms);
    }
    checkCuda(cuEventDestroy(start), "cuEventDestroy");
    checkCuda(cuEventDestroy(stop), "cuEventDestroy");
    std::sort(times.begin(), times.end());
    size_t n = times.size();
    double median = n % 2 ? times[n / 2] : 0.5 * (double(times[n / 2 - 1]) + times[n / 2]);
    const std::vector<StepMode> &modes = timed.lastRunModes();
    long long replayed = std::count(modes.begin(), modes.end(), StepMode::Replay);
    std::printf("time: median %.3f ms over %lld runs (%lld of %lld steps replayed from CUDA "
                "graphs)\n",
                median, static_cast<long long>(n), replayed, static_cast<long long>(modes.size()));
    std::fflush(stdout);
  }
  if (options.profile || !options.traceFile.empty()) {
    executor.releaseRunState();
    // Eager unless asked otherwise: every launch and gemm timed on its own.
    ExecutorOptions profileOptions;
    profileOptions.cudaGraphs = options.cudaGraphsGiven && options.cudaGraphs;
    profileOptions.fullGraph = options.cudaGraphsGiven && options.fullGraph;
    profileOptions.profile = true;
    profileOptions.padToCompileSizes = options.padToCompileSizes;
    GraphExecutor profiled(manifest, options.artifactDir, device, profileOptions);
    profiled.shareWeights(executor);
    profiled.setInputs(inputs);
    // Warm-up (modules, cuBLASLt's choices; with graphs, the capture), so
    // that the profiled run is what a run in use looks like.
    for (int warmUp = 0; warmUp < (profileOptions.cudaGraphs ? 2 : 1); ++warmUp)
      profiled.run();
    profiled.run();
    const RunProfile &profile = profiled.lastProfile();
    if (options.profile) {
      double copy = device.measureCopyGBps();
      double peak = device.measureGemmTflops();
      std::cout << formatProfile(profile, copy, peak);
      std::cout.flush();
    }
    if (!options.traceFile.empty()) {
      std::ofstream trace(options.traceFile, std::ios::binary);
      trace << chromeTrace(profile);
      trace.close();
      if (!trace)
        throw RuntimeError("cannot write the trace '" + options.traceFile + "'");
      std::cerr << "magi-run: trace of the profiled run written to " << options.traceFile << "\n";
    }
  }
  return allPassed ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  Options options = parseCommandLine(argc, argv);
  try {
    return run(options);
  } catch (const RuntimeError &e) {
    std::cout.flush();
    std::cerr << "magi-run: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception &e) {
    std::cout.flush();
    std::cerr << "magi-run: error: " << e.what() << "\n";
    return 1;
  }
}
