//===- Profile.cpp - What a profiled run did, as a table and a trace ------===//

#include "magi/Runtime/Profile.h"
#include "magi/Runtime/Json.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>
#include <sstream>

namespace magi::runtime {

int64_t viewElements(const std::vector<int64_t> &sizes, const std::vector<int64_t> &strides) {
  // Saturating: a profile's byte count must not overflow on any plan.
  constexpr int64_t kMost = std::numeric_limits<int64_t>::max();
  int64_t span = 1, count = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] <= 0)
      return 0;
    int64_t stride = strides[i] < 0 ? -strides[i] : strides[i], step = 0;
    if (__builtin_mul_overflow(sizes[i] - 1, stride, &step) ||
        __builtin_add_overflow(span, step, &span))
      span = kMost;
    if (__builtin_mul_overflow(count, sizes[i], &count))
      count = kMost;
  }
  return count < span ? count : span;
}

namespace {

std::string fixed(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", digits, v);
  return text;
}

std::string dims(const std::array<int64_t, 3> &d) {
  return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) +
         ")";
}

double gigabytesPerSecond(const ProfiledOp &op) {
  return op.bytes >= 0 && op.ms > 0 ? double(op.bytes) / (op.ms * 1e6) : 0;
}

double teraflopsPerSecond(const ProfiledOp &op) {
  return op.ms > 0 ? op.flops / (op.ms * 1e9) : 0;
}

} // namespace

std::string formatProfile(const RunProfile &profile, double copyGBps, double peakTflops) {
  std::ostringstream os;
  double kernelMs = 0, gemmMs = 0;
  size_t kernels = 0, gemms = 0;
  for (const ProfiledOp &op : profile.ops) {
    (op.isGemm ? gemmMs : kernelMs) += op.ms;
    ++(op.isGemm ? gemms : kernels);
  }
  os << "profile: " << profile.steps.size() << " steps, " << kernels << " kernel launches, "
     << gemms << " gemms in " << fixed(profile.totalMs, 3) << " ms";
  if (copyGBps > 0 || peakTflops > 0) {
    os << " (";
    if (copyGBps > 0)
      os << "copy " << fixed(copyGBps, 0) << " GB/s";
    if (copyGBps > 0 && peakTflops > 0)
      os << ", ";
    if (peakTflops > 0)
      os << "gemm " << fixed(peakTflops, 0) << " TFLOP/s";
    os << ", measured here)";
  }
  os << "\n";
  if (!profile.ops.empty()) {
    std::vector<size_t> order(profile.ops.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return profile.ops[a].ms > profile.ops[b].ms;
    });
    os << "| step | kernel or gemm | grid | block | us | MB | GB/s | of copy | TFLOP/s | of probe |\n"
       << "|---|---|---|---|---|---|---|---|---|---|\n";
    for (size_t i : order) {
      const ProfiledOp &op = profile.ops[i];
      double gbps = gigabytesPerSecond(op), tflops = teraflopsPerSecond(op);
      os << "| " << profile.steps[op.step].name << " | " << op.name << " | "
         << (op.isGemm ? "" : dims(op.grid)) << " | " << (op.isGemm ? "" : dims(op.block))
         << " | " << fixed(op.ms * 1000, 1) << " | "
         << (op.bytes >= 0 ? fixed(double(op.bytes) / 1e6, 1) : "?") << " | "
         << (op.bytes >= 0 ? fixed(gbps, 0) : "?") << " | "
         << (op.bytes >= 0 && copyGBps > 0 ? fixed(gbps / copyGBps, 2) : "") << " | "
         << (op.isGemm ? fixed(tflops, 1) : "") << " | "
         << (op.isGemm && peakTflops > 0 ? fixed(tflops / peakTflops, 2) : "") << " |\n";
    }
  }
  os << "kernels: " << kernels << ", " << fixed(kernelMs, 3) << " ms; gemms: " << gemms << ", "
     << fixed(gemmMs, 3) << " ms";
  size_t graphSteps = size_t(std::count_if(profile.steps.begin(), profile.steps.end(),
                                           [](const ProfiledStep &s) { return s.mode != "eager"; }));
  if (graphSteps != 0) {
    double graphMs = 0;
    for (const ProfiledStep &s : profile.steps)
      if (s.mode != "eager")
        graphMs += s.ms;
    os << "; " << graphSteps << " steps from CUDA graphs, " << fixed(graphMs, 3)
       << " ms (their kernels are not timed one by one: --cuda-graphs=off for that)";
  }
  double outside = profile.totalMs - kernelMs - gemmMs;
  for (const ProfiledStep &s : profile.steps)
    if (s.mode != "eager")
      outside -= s.ms;
  os << "; between them " << fixed(std::max(outside, 0.0), 3) << " ms\n";
  return os.str();
}

std::string chromeTrace(const RunProfile &profile) {
  std::vector<JsonValue> events;
  auto meta = [&](int tid, const char *name) {
    events.push_back(JsonValue::makeObject(
        {{"name", JsonValue::makeString("thread_name")},
         {"ph", JsonValue::makeString("M")},
         {"pid", JsonValue::makeInteger(1)},
         {"tid", JsonValue::makeInteger(tid)},
         {"args", JsonValue::makeObject({{"name", JsonValue::makeString(name)}})}}));
  };
  meta(1, "steps");
  meta(2, "kernels and gemms");
  auto slice = [&](const std::string &name, const char *category, int tid, double startMs,
                   double ms, std::vector<std::pair<std::string, JsonValue>> args) {
    events.push_back(JsonValue::makeObject({{"name", JsonValue::makeString(name)},
                                            {"cat", JsonValue::makeString(category)},
                                            {"ph", JsonValue::makeString("X")},
                                            {"pid", JsonValue::makeInteger(1)},
                                            {"tid", JsonValue::makeInteger(tid)},
                                            {"ts", JsonValue::makeDouble(startMs * 1000)},
                                            {"dur", JsonValue::makeDouble(ms * 1000)},
                                            {"args", JsonValue::makeObject(std::move(args))}}));
  };
  for (const ProfiledStep &step : profile.steps)
    slice(step.name, "step", 1, step.startMs, step.ms,
          {{"mode", JsonValue::makeString(step.mode)}});
  for (const ProfiledOp &op : profile.ops) {
    std::vector<std::pair<std::string, JsonValue>> args = {
        {"step", JsonValue::makeString(profile.steps[op.step].name)}};
    if (op.bytes >= 0) {
      args.push_back({"bytes", JsonValue::makeInteger(op.bytes)});
      args.push_back({"GB/s", JsonValue::makeDouble(gigabytesPerSecond(op))});
    }
    if (op.isGemm) {
      args.push_back({"flops", JsonValue::makeDouble(op.flops)});
      args.push_back({"TFLOP/s", JsonValue::makeDouble(teraflopsPerSecond(op))});
    } else {
      args.push_back({"grid", JsonValue::makeString(dims(op.grid))});
      args.push_back({"block", JsonValue::makeString(dims(op.block))});
    }
    slice(op.name, op.isGemm ? "gemm" : "kernel", 2, op.startMs, op.ms, std::move(args));
  }
  return printJson(JsonValue::makeObject({{"displayTimeUnit", JsonValue::makeString("ms")},
                                          {"traceEvents", JsonValue::makeArray(std::move(events))}}),
                   1) +
         "\n";
}

} // namespace magi::runtime
