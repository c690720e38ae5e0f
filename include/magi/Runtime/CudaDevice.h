//===- CudaDevice.h - The CUDA driver API and cuBLASLt device ---*- C++ -*-===//

#ifndef MAGI_RUNTIME_CUDADEVICE_H
#define MAGI_RUNTIME_CUDADEVICE_H

#include "magi/Runtime/Executor.h"

#include <cublasLt.h>
#include <cuda.h>

#include <iosfwd>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace magi::runtime {

// How a gemm problem's cuBLASLt algorithm is chosen on its first call.
enum class GemmAlgorithmChoice {
  // Time cuBLASLt's candidates (its heuristic's best few, plus split-K
  // variants of the first two) on the real operands, from a cold L2, and
  // keep the fastest. Different runs may choose differently.
  Measured,
  // Take cuBLASLt's heuristic's first answer: reproducible, not always fast.
  Heuristic,
};

// Throws RuntimeError "<call> failed: <CUDA_ERROR_NAME> (<description>)".
void checkCuda(CUresult result, const char *call, const std::string &context = "");
void checkCublas(cublasStatus_t status, const char *call, const std::string &context = "");

// Owners of what CudaDevice acquires, so that a throw half-way (in its
// constructor, loadModule, endCapture) releases what was acquired. Releases
// are not checked: they run while unwinding or in the destructor.
namespace detail {

struct ReleasePrimaryContext {
  CUdevice device = 0;
  void operator()(CUcontext) const noexcept { cuDevicePrimaryCtxRelease(device); }
};
struct DestroyStream {
  void operator()(CUstream stream) const noexcept { cuStreamDestroy(stream); }
};
struct DestroyCublas {
  void operator()(cublasLtHandle_t handle) const noexcept { cublasLtDestroy(handle); }
};
struct UnloadModule {
  void operator()(CUmodule module) const noexcept { cuModuleUnload(module); }
};
struct DestroyGraphExec {
  void operator()(CUgraphExec graph) const noexcept { cuGraphExecDestroy(graph); }
};
struct FreePinned {
  void operator()(void *memory) const noexcept { cuMemFreeHost(memory); }
};
struct DestroyEvent {
  void operator()(CUevent event) const noexcept { cuEventDestroy(event); }
};
using PrimaryContext = std::unique_ptr<std::remove_pointer_t<CUcontext>, ReleasePrimaryContext>;
using Stream = std::unique_ptr<std::remove_pointer_t<CUstream>, DestroyStream>;
using CublasHandle = std::unique_ptr<std::remove_pointer_t<cublasLtHandle_t>, DestroyCublas>;
using ModuleHandle = std::unique_ptr<std::remove_pointer_t<CUmodule>, UnloadModule>;
using GraphExec = std::unique_ptr<std::remove_pointer_t<CUgraphExec>, DestroyGraphExec>;
using PinnedMemory = std::unique_ptr<void, FreePinned>;
using Event = std::unique_ptr<std::remove_pointer_t<CUevent>, DestroyEvent>;
// A CUdeviceptr is an integer, which unique_ptr cannot hold.
class DeviceMemory {
public:
  DeviceMemory() = default;
  explicit DeviceMemory(CUdeviceptr ptr) : ptr_(ptr) {}
  DeviceMemory(DeviceMemory &&other) noexcept : ptr_(other.ptr_) { other.ptr_ = 0; }
  DeviceMemory &operator=(DeviceMemory &&other) noexcept {
    if (this != &other) {
      reset();
      ptr_ = std::exchange(other.ptr_, 0);
    }
    return *this;
  }
  ~DeviceMemory() { reset(); }
  void reset() noexcept {
    if (ptr_)
      cuMemFree(std::exchange(ptr_, 0));
  }
  CUdeviceptr get() const { return ptr_; }

private:
  CUdeviceptr ptr_ = 0;
};

} // namespace detail

// One GPU, its primary context, one stream, one cuBLASLt handle.
class CudaDevice : public Device {
public:
  explicit CudaDevice(int ordinal = 0);
  ~CudaDevice() override;
  CudaDevice(const CudaDevice &) = delete;
  CudaDevice &operator=(const CudaDevice &) = delete;

  DevicePtr allocate(int64_t bytes) override;
  void release(DevicePtr ptr) override;
  void upload(DevicePtr dst, const void *src, int64_t bytes) override;
  void uploadFilled(DevicePtr dst, int64_t bytes, const ChunkFiller &fill) override;
  void download(void *dst, DevicePtr src, int64_t bytes) override;
  int loadModule(const std::string &ptxPath, const std::optional<std::string> &cubinPath) override;
  void launch(int module, const LaunchCall &call) override;
  void gemm(const GemmCall &call) override;
  void synchronize(const std::string &what) override;
  void poison(DevicePtr ptr, int64_t bytes) override;
  void copy(DevicePtr dst, DevicePtr src, int64_t bytes) override;
  void copyRows(DevicePtr dst, int64_t dstPitch, DevicePtr src, int64_t srcPitch,
                int64_t widthBytes, int64_t rows) override;
  void zeroRows(DevicePtr dst, int64_t pitch, int64_t widthBytes, int64_t rows) override;
  void beginCapture(const std::string &what) override;
  int endCapture(const std::string &what) override;
  void cancelCapture() override;
  void replay(int graph, const std::string &what) override;
  void releaseGraph(int graph) override;
  int markTime() override;
  double millisecondsBetween(int from, int to) override;
  void clearTimeMarks() override { timeMarks_.clear(); }

  // The ceilings a profile is read against, measured here: device-to-device
  // copy bandwidth (bytes read + written per second, a 1 GiB copy, median
  // of 10) and a bf16 8192^3 cuBLASLt product's TFLOP/s (median of 10, on
  // random data).
  double measureCopyGBps();
  double measureGemmTflops();

  // Applies to problems not seen yet. With a log, each choice is reported
  // there (one line per problem, with the times measured). Measured, a
  // problem of a variant for any size (GemmCall::anySize) whose size class
  // already has a timed algorithm takes it, when cuBLASLt accepts it for
  // the problem: such a variant meets a new row count at nearly every new
  // length, and timing each (some 5 ms a product) costs more than the run.
  void setGemmAlgorithmChoice(GemmAlgorithmChoice choice, std::ostream *log) {
    gemmChoice_ = choice;
    gemmLog_ = log;
  }

  // Whether kernels that wait for the previous grid (LaunchCall::programmatic)
  // are launched with programmatic stream serialization (default on); off,
  // every launch waits for the previous one to end, as before format 7.
  void setProgrammaticLaunch(bool on) { programmaticLaunch_ = on; }

  CUstream stream() const { return stream_.get(); }
  // A caller's stream and this device's, ordered without waiting on the
  // host (an event recorded on one, waited for by the other): after
  // orderAfter(caller), work queued here starts after what was queued on
  // `caller` so far; after orderBefore(caller), work queued on `caller`
  // starts after what was queued here so far.
  void orderAfter(CUstream caller);
  void orderBefore(CUstream caller);
  std::string name() const { return name_; }
  // "sm_90" for compute capability 9.0.
  std::string chip() const { return chip_; }

private:
  bool programmaticLaunch_ = true;
  std::vector<detail::Event> timeMarks_;
  // orderAfter's and orderBefore's events, made on first use.
  detail::Event callerReached_, deviceReached_;
  // Median milliseconds of `calls` of `work` (after one untimed), by events.
  double medianMilliseconds(int calls, const std::function<void()> &work, const std::string &what);
  struct Module {
    detail::ModuleHandle handle;
    std::string loadedFrom;
    // Parameters per kernel, from the PTX; a kernel missing here (no PTX,
    // or one that could not be parsed) is not checked.
    std::map<std::string, size_t> paramCounts;
  };
  struct Function {
    CUfunction handle = nullptr;
    std::optional<std::vector<size_t>> paramSizes; // none when we cannot tell
    int64_t sharedLimitSet = 0;
  };
  Function &function(int module, const std::string &name);

  // Every upload goes through pinned staging buffers: a chunk is filled
  // into one while the previous chunk's cuMemcpyHtoDAsync from another
  // runs; an event per buffer tells when its copy is done and it may be
  // filled again.
  static constexpr int64_t kStagingBytes = int64_t(64) << 20;
  static constexpr int kStagingBuffers = 2;
  struct StagingBuffer {
    detail::PinnedMemory memory;
    detail::Event copied;
    bool inFlight = false; // a copy from it was issued after `copied` was last waited for
  };
  void stagedUpload(DevicePtr dst, const unsigned char *src, int64_t bytes);

  CUdevice device_ = 0;
  std::string name_, chip_;
  size_t workspaceBytes_ = 0;
  std::map<std::pair<int, std::string>, Function> functions_;
  GemmAlgorithmChoice gemmChoice_ = GemmAlgorithmChoice::Measured;
  std::ostream *gemmLog_ = nullptr;
  int64_t l2Bytes_ = 0;
  CUfunction l2Clear_ = nullptr; // loaded at the first algorithm timing
  // Destroyed in reverse order: staging buffers, graphs, modules,
  // workspace, cuBLASLt, stream, context.
  detail::PrimaryContext context_;
  detail::Stream stream_;
  detail::CublasHandle cublas_;
  detail::DeviceMemory workspace_;
  std::vector<Module> modules_;
  detail::ModuleHandle l2ClearModule_;
  std::vector<detail::GraphExec> graphs_; // null once released
  std::vector<StagingBuffer> staging_;    // allocated at the first large upload
  size_t nextStaging_ = 0;
  // cuBLASLt's descriptors and chosen algorithm, by problem (everything but
  // the operand pointers): made on a problem's first call, so that later
  // calls (eager ones between graph replays) only launch. Destroyed first.
  struct GemmPlan;
  struct GemmPlanDeleter {
    void operator()(GemmPlan *plan) const;
  };
  struct GemmOperands;
  // Whether the choice was timed (not the heuristic's first answer alone).
  bool chooseGemmAlgorithm(GemmPlan &plan, const GemmOperands &operands,
                           const std::string &context);
  std::map<std::string, std::unique_ptr<GemmPlan, GemmPlanDeleter>> gemmPlans_;
  // The algorithm timed for the first problem of each size class (the same
  // problem but for its row count, rounded up to a power of two), and that
  // problem: a problem of a variant for any size takes it instead of timing
  // its own (GemmCall::anySize).
  struct SizeClassChoice {
    cublasLtMatmulAlgo_t algo;
    std::string problem;
  };
  std::map<std::string, SizeClassChoice> sizeClassChoices_;
};

} // namespace magi::runtime

#endif // MAGI_RUNTIME_CUDADEVICE_H
