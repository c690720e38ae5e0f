//===- Profile.h - What a profiled run did, as a table and a trace -*- C++ -*-===//
//
// magi-run --profile and --trace: every step of a run timed on the device,
// and every launch and gemm of the steps that ran eagerly, with the bytes
// the plan says each moves and, for gemms, their floating-point operations.
//
//===----------------------------------------------------------------------===//

#ifndef MAGI_RUNTIME_PROFILE_H
#define MAGI_RUNTIME_PROFILE_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace magi::runtime {

// The elements of a view a kernel moves when it touches each element once:
// the fewer of the elements from its first to its last (its span) and of
// its element count. A column slice of a wider buffer (a gate or up half
// of a merged product) counts its own elements, not the rows between; a
// broadcast (stride 0) counts what it reads, not what it repeats.
int64_t viewElements(const std::vector<int64_t> &sizes, const std::vector<int64_t> &strides);

// One launch or gemm of a profiled run.
struct ProfiledOp {
  size_t step = 0;  // index into RunProfile::steps
  std::string name; // the kernel's, or the gemm's problem
  bool isGemm = false;
  std::array<int64_t, 3> grid = {1, 1, 1}, block = {1, 1, 1};
  // The bytes of its memref arguments' views (viewElements), each argument
  // counted once (a buffer read and written in place counts twice); a
  // gemm's a, b and c
  // (and bias). -1 when the artifact does not say (format 3 and older).
  int64_t bytes = -1;
  double flops = 0;               // a gemm's 2 * batch * m * n * k
  double startMs = 0, ms = 0;     // from the run's start
};

// One step (piece call) of a profiled run.
struct ProfiledStep {
  std::string name;
  std::string mode; // "eager", "captured", "replayed", or "one graph" (the whole run)
  double startMs = 0, ms = 0;
};

struct RunProfile {
  std::vector<ProfiledStep> steps;
  // In issue order; a step run from a CUDA graph has none (its kernels run
  // inside the graph, which times as a whole).
  std::vector<ProfiledOp> ops;
  double totalMs = 0; // from the run's first work to its last
};

// The profile as Markdown, the slowest launch or gemm first: step, name,
// grid and block, time, bytes, bandwidth as a fraction of `copyGBps`,
// TFLOP/s as a fraction of `peakTflops` (a measured probe gemm's rate,
// which other shapes may beat; either may be 0: no fraction),
// then the totals by kind and the time outside launches and gemms.
std::string formatProfile(const RunProfile &profile, double copyGBps, double peakTflops);

// The run as Chrome trace-event JSON (chrome://tracing, Perfetto): one
// track of steps and one of launches and gemms, times in microseconds from
// the run's start, each event's bytes, rates and grid in its args.
std::string chromeTrace(const RunProfile &profile);

} // namespace magi::runtime

#endif // MAGI_RUNTIME_PROFILE_H
