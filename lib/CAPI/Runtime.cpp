//===- Runtime.cpp - magi-c/Runtime.h over the CUDA executor --------------===//
//
// The C runtime API: a MagiRuntime owns the manifest, the device (primary
// context, stream, cuBLASLt) and one GraphExecutor. C++ exceptions stop
// here and become the runtime's last error.
//
//===----------------------------------------------------------------------===//

#include "magi-c/Runtime.h"
#include "magi/Runtime/CudaDevice.h"
#include "magi/Runtime/Executor.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace magi::runtime;

struct MagiRuntime {
  Manifest manifest;
  std::string artifactDir;
  std::unique_ptr<CudaDevice> device;
  std::unique_ptr<GraphExecutor> executor;
  // Graph input index of each user input.
  std::vector<size_t> userInputs;
  std::vector<std::optional<DeviceTensor>> bound;
  std::vector<DeviceTensor> outputs;
  std::string lastError;
};

namespace {

std::optional<Dtype> toDtype(MagiDtype dtype) {
  switch (dtype) {
  case MAGI_DTYPE_F32: return Dtype::F32;
  case MAGI_DTYPE_F16: return Dtype::F16;
  case MAGI_DTYPE_BF16: return Dtype::BF16;
  case MAGI_DTYPE_F64: return Dtype::F64;
  case MAGI_DTYPE_I64: return Dtype::I64;
  case MAGI_DTYPE_I32: return Dtype::I32;
  case MAGI_DTYPE_I8: return Dtype::I8;
  case MAGI_DTYPE_U8: return Dtype::U8;
  case MAGI_DTYPE_BOOL: return Dtype::I1;
  }
  return std::nullopt;
}

std::optional<MagiDtype> fromDtype(Dtype dtype) {
  switch (dtype) {
  case Dtype::F32: return MAGI_DTYPE_F32;
  case Dtype::F16: return MAGI_DTYPE_F16;
  case Dtype::BF16: return MAGI_DTYPE_BF16;
  case Dtype::F64: return MAGI_DTYPE_F64;
  case Dtype::I64: return MAGI_DTYPE_I64;
  case Dtype::I32: return MAGI_DTYPE_I32;
  case Dtype::I8: return MAGI_DTYPE_I8;
  case Dtype::U8: return MAGI_DTYPE_U8;
  case Dtype::I1: return MAGI_DTYPE_BOOL;
  case Dtype::I16: return std::nullopt;
  }
  return std::nullopt;
}

char *copyString(const std::string &text) {
  char *copy = static_cast<char *>(std::malloc(text.size() + 1));
  if (copy)
    std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

// Runs `body`, turning an exception into the runtime's last error: 0 or 1.
template <typename Body> int guarded(MagiRuntime *runtime, Body body) {
  if (!runtime)
    return 1;
  runtime->lastError.clear();
  try {
    body();
    return 0;
  } catch (const std::exception &e) {
    runtime->lastError = e.what();
  } catch (...) {
    runtime->lastError = "unknown C++ exception";
  }
  return 1;
}

} // namespace

extern "C" {

MagiRuntime *magiRuntimeLoad(const char *artifact_dir, int ordinal, const char *weights_from,
                             char **error) {
  if (error)
    *error = nullptr;
  auto runtime = std::make_unique<MagiRuntime>();
  try {
    if (!artifact_dir)
      throw RuntimeError("no artifact directory given");
    runtime->artifactDir = artifact_dir;
    runtime->manifest = loadManifest(runtime->artifactDir);
    if (weights_from && *weights_from) {
      try {
        rebindWeights(runtime->manifest, weights_from);
      } catch (const RuntimeError &e) {
        throw RuntimeError(std::string("weights_from: ") + e.what());
      }
    }
    const Graph &graph = runtime->manifest.graph;
    for (size_t i = 0; i < graph.inputs.size(); ++i)
      if (!graph.inputs[i].isWeight())
        runtime->userInputs.push_back(i);
    runtime->bound.resize(runtime->userInputs.size());
    runtime->device = std::make_unique<CudaDevice>(ordinal);
    if (!targetRunsOn(runtime->manifest.targetChip, runtime->device->chip()))
      throw RuntimeError("the artifact targets " + runtime->manifest.targetChip +
                         ", the GPU is " + runtime->device->chip());
    runtime->executor = std::make_unique<GraphExecutor>(runtime->manifest, runtime->artifactDir,
                                                        *runtime->device, ExecutorOptions{});
    runtime->executor->uploadWeights();
  } catch (const std::exception &e) {
    if (error)
      *error = copyString(e.what());
    return nullptr;
  }
  return runtime.release();
}

void magiRuntimeDestroy(MagiRuntime *runtime) {
  if (!runtime)
    return;
  // The executor frees its buffers through the device: before it.
  try {
    runtime->executor.reset();
    runtime->device.reset();
  } catch (...) {
  }
  delete runtime;
}

const char *magiRuntimeLastError(const MagiRuntime *runtime) {
  return runtime ? runtime->lastError.c_str() : "no runtime";
}

size_t magiRuntimeNumInputs(const MagiRuntime *runtime) {
  return runtime ? runtime->userInputs.size() : 0;
}

size_t magiRuntimeNumOutputs(const MagiRuntime *runtime) {
  return runtime ? runtime->manifest.graph.numUserOutputs() : 0;
}

int magiRuntimeInputSignature(MagiRuntime *runtime, size_t i, MagiDtype *dtype, size_t *rank) {
  return guarded(runtime, [&] {
    if (i >= runtime->userInputs.size())
      throw RuntimeError("user input " + std::to_string(i) + " does not exist (the graph has " +
                         std::to_string(runtime->userInputs.size()) + ")");
    const GraphInput &input = runtime->manifest.graph.inputs[runtime->userInputs[i]];
    std::optional<MagiDtype> c = fromDtype(input.dtype);
    if (!c)
      throw RuntimeError("user input " + std::to_string(i) + " has a dtype the C API lacks (" +
                         manifestName(input.dtype) + ")");
    if (dtype)
      *dtype = *c;
    if (rank)
      *rank = input.shape.size();
  });
}

int magiRuntimeSetInput(MagiRuntime *runtime, size_t i, uint64_t device_ptr, MagiDtype dtype,
                        const int64_t *sizes, size_t rank) {
  return guarded(runtime, [&] {
    if (i >= runtime->userInputs.size())
      throw RuntimeError("user input " + std::to_string(i) + " does not exist (the graph has " +
                         std::to_string(runtime->userInputs.size()) + ")");
    std::optional<Dtype> type = toDtype(dtype);
    if (!type)
      throw RuntimeError("unknown dtype " + std::to_string(int(dtype)));
    if (rank > 0 && !sizes)
      throw RuntimeError("user input " + std::to_string(i) + ": no sizes given");
    DeviceTensor tensor;
    tensor.ptr = device_ptr;
    tensor.dtype = *type;
    tensor.shape.assign(sizes, sizes + rank);
    for (int64_t size : tensor.shape)
      if (size < 0)
        throw RuntimeError("user input " + std::to_string(i) + " has a negative size");
    runtime->bound[i] = tensor;
  });
}

namespace {
// Checks and binds the inputs, then queues the whole run on the device's
// stream.
void queueRun(MagiRuntime *runtime) {
  std::vector<DeviceTensor> inputs;
  for (size_t i = 0; i < runtime->bound.size(); ++i) {
    if (!runtime->bound[i])
      throw RuntimeError("user input " + std::to_string(i) + " is not bound");
    inputs.push_back(*runtime->bound[i]);
  }
  runtime->outputs.clear();
  // Checks dtypes, shapes and symbol ranges against the graph.
  runtime->executor->setDeviceInputs(inputs);
  runtime->outputs = runtime->executor->run();
}

const DeviceTensor &outputOf(MagiRuntime *runtime, size_t i, size_t bytes) {
  if (i >= runtime->outputs.size())
    throw RuntimeError("output " + std::to_string(i) + " does not exist (the last run gave " +
                       std::to_string(runtime->outputs.size()) + ")");
  const DeviceTensor &t = runtime->outputs[i];
  if (uint64_t(t.byteSize()) > bytes)
    throw RuntimeError("output " + std::to_string(i) + " has " + std::to_string(t.byteSize()) +
                       " bytes, the destination " + std::to_string(bytes));
  return t;
}
} // namespace

int magiRuntimeSetPadToCompileSizes(MagiRuntime *runtime, int on) {
  return guarded(runtime, [&] { runtime->executor->setPadToCompileSizes(on != 0); });
}

int magiRuntimeRun(MagiRuntime *runtime) {
  return guarded(runtime, [&] {
    queueRun(runtime);
    runtime->device->synchronize("the graph");
  });
}

int magiRuntimeRunOnStream(MagiRuntime *runtime, uint64_t stream) {
  return guarded(runtime, [&] {
    CUstream caller = reinterpret_cast<CUstream>(uintptr_t(stream));
    runtime->device->orderAfter(caller);
    try {
      queueRun(runtime);
    } catch (...) {
      // What was queued before the error may still read the inputs: the
      // caller's later work (freeing them) waits for it too.
      runtime->device->orderBefore(caller);
      throw;
    }
    runtime->device->orderBefore(caller);
  });
}

int magiRuntimeOutput(MagiRuntime *runtime, size_t i, MagiDtype *dtype, size_t *rank,
                      int64_t *sizes, size_t max_rank, uint64_t *device_ptr) {
  return guarded(runtime, [&] {
    if (i >= runtime->outputs.size())
      throw RuntimeError("output " + std::to_string(i) + " does not exist (the last run gave " +
                         std::to_string(runtime->outputs.size()) + ")");
    const DeviceTensor &t = runtime->outputs[i];
    std::optional<MagiDtype> c = fromDtype(t.dtype);
    if (!c)
      throw RuntimeError("output " + std::to_string(i) + " has a dtype the C API lacks (" +
                         manifestName(t.dtype) + ")");
    if (sizes && t.shape.size() > max_rank)
      throw RuntimeError("output " + std::to_string(i) + " has rank " +
                         std::to_string(t.shape.size()) + ", more than the " +
                         std::to_string(max_rank) + " sizes given room for");
    if (dtype)
      *dtype = *c;
    if (rank)
      *rank = t.shape.size();
    if (sizes)
      std::copy(t.shape.begin(), t.shape.end(), sizes);
    if (device_ptr)
      *device_ptr = t.ptr;
  });
}

int magiRuntimeCopyOutput(MagiRuntime *runtime, size_t i, void *dst, size_t bytes,
                          int to_host) {
  return guarded(runtime, [&] {
    const DeviceTensor &t = outputOf(runtime, i, bytes);
    int64_t size = t.byteSize();
    if (size == 0)
      return;
    if (to_host) {
      runtime->device->download(dst, t.ptr, size);
    } else {
      checkCuda(cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(dst), t.ptr, size_t(size),
                                  runtime->device->stream()),
                "cuMemcpyDtoDAsync", "output " + std::to_string(i));
      runtime->device->synchronize("copying an output");
    }
  });
}

int magiRuntimeCopyOutputOnStream(MagiRuntime *runtime, size_t i, uint64_t dst, size_t bytes,
                                  uint64_t stream) {
  return guarded(runtime, [&] {
    const DeviceTensor &t = outputOf(runtime, i, bytes);
    if (t.byteSize() == 0)
      return;
    checkCuda(cuMemcpyDtoDAsync(CUdeviceptr(dst), t.ptr, size_t(t.byteSize()),
                                reinterpret_cast<CUstream>(uintptr_t(stream))),
              "cuMemcpyDtoDAsync", "output " + std::to_string(i));
  });
}

} // extern "C"
