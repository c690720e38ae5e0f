//===- CudaDevice.h - The CUDA driver API and cuBLASLt device ---*- C++ -*-===//

#ifndef MAGI_RUN_CUDADEVICE_H
#define MAGI_RUN_CUDADEVICE_H

#include "magi/Runtime/Executor.h"

#include <cublasLt.h>
#include <cuda.h>

#include <map>
#include <memory>

namespace magi::runtime {

// Throws RuntimeError "<call> failed: <CUDA_ERROR_NAME> (<description>)".
void checkCuda(CUresult result, const char *call, const std::string &context = "");
void checkCublas(cublasStatus_t status, const char *call, const std::string &context = "");

// One GPU, its primary context, one stream, one cuBLASLt handle.
class CudaDevice : public Device {
public:
  explicit CudaDevice(int ordinal = 0);
  ~CudaDevice() override;

  DevicePtr allocate(int64_t bytes) override;
  void release(DevicePtr ptr) override;
  void upload(DevicePtr dst, const void *src, int64_t bytes) override;
  void download(void *dst, DevicePtr src, int64_t bytes) override;
  int loadModule(const std::string &ptxPath, const std::optional<std::string> &cubinPath) override;
  void launch(int module, const LaunchCall &call) override;
  void gemm(const GemmCall &call) override;
  void synchronize(const std::string &what) override;
  void poison(DevicePtr ptr, int64_t bytes) override;
  void beginCapture(const std::string &what) override;
  int endCapture(const std::string &what) override;
  void cancelCapture() override;
  void replay(int graph, const std::string &what) override;
  void releaseGraph(int graph) override;

  CUstream stream() const { return stream_; }
  std::string name() const { return name_; }
  // "sm_90" for compute capability 9.0.
  std::string chip() const { return chip_; }

private:
  struct Function {
    CUfunction handle = nullptr;
    std::vector<size_t> paramSizes; // empty when the driver cannot tell
    int64_t sharedLimitSet = 0;
  };
  Function &function(int module, const std::string &name);

  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  cublasLtHandle_t cublas_ = nullptr;
  CUdeviceptr workspace_ = 0;
  size_t workspaceBytes_ = 0;
  std::string name_, chip_;
  std::vector<CUmodule> modules_;
  std::vector<std::string> moduleNames_;
  std::map<std::pair<int, std::string>, Function> functions_;
  std::map<std::string, cublasLtMatmulAlgo_t> algorithms_; // by problem
  std::vector<CUgraphExec> graphs_;                         // null once released
};

} // namespace magi::runtime

#endif // MAGI_RUN_CUDADEVICE_H
