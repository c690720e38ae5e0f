//===- CudaDevice.cpp - The CUDA driver API and cuBLASLt device -----------===//

#include "magi/Runtime/CudaDevice.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <iostream>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>

namespace magi::runtime {

void checkCuda(CUresult result, const char *call, const std::string &context) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  // The driver names its errors; a stub or broken libcuda may not.
  std::string message = std::string(call) + " failed: " +
                        (name ? std::string(name) : "CUDA error " + std::to_string(int(result))) +
                        " (" + (text ? text : "no description from the driver") + ")";
  if (!context.empty())
    message += " in " + context;
  throw RuntimeError(message);
}

void checkCublas(cublasStatus_t status, const char *call, const std::string &context) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return;
  std::string message = std::string(call) + " failed: " + cublasLtGetStatusName(status) + " (" +
                        cublasLtGetStatusString(status) + ")";
  if (!context.empty())
    message += " in " + context;
  throw RuntimeError(message);
}

CudaDevice::CudaDevice(int ordinal) {
  checkCuda(cuInit(0), "cuInit");
  int count = 0;
  checkCuda(cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (ordinal >= count)
    throw RuntimeError("no CUDA device " + std::to_string(ordinal) + " (" +
                       std::to_string(count) + " found)");
  checkCuda(cuDeviceGet(&device_, ordinal), "cuDeviceGet");
  char name[256] = {};
  checkCuda(cuDeviceGetName(name, sizeof(name), device_), "cuDeviceGetName");
  name_ = name;
  int major = 0, minor = 0;
  checkCuda(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device_),
            "cuDeviceGetAttribute");
  checkCuda(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device_),
            "cuDeviceGetAttribute");
  chip_ = "sm_" + std::to_string(major) + std::to_string(minor);
  int l2 = 0;
  checkCuda(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device_),
            "cuDeviceGetAttribute");
  l2Bytes_ = l2;
  // Each handle goes to its owner as soon as it exists: if a later step
  // throws, the members made so far release it (the destructor does not run).
  // The primary context: cuBLASLt (through the CUDA runtime) uses it too.
  CUcontext context = nullptr;
  checkCuda(cuDevicePrimaryCtxRetain(&context, device_), "cuDevicePrimaryCtxRetain");
  context_ = detail::PrimaryContext(context, detail::ReleasePrimaryContext{device_});
  checkCuda(cuCtxSetCurrent(context_.get()), "cuCtxSetCurrent");
  CUstream stream = nullptr;
  checkCuda(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  stream_.reset(stream);
  cublasLtHandle_t cublas = nullptr;
  checkCublas(cublasLtCreate(&cublas), "cublasLtCreate");
  cublas_.reset(cublas);
  workspaceBytes_ = 32u << 20;
  CUdeviceptr workspace = 0;
  checkCuda(cuMemAlloc(&workspace, workspaceBytes_), "cuMemAlloc", "the cuBLASLt workspace");
  workspace_ = detail::DeviceMemory(workspace);
}

CudaDevice::~CudaDevice() {
  // Errors here would hide the one being reported; nothing is checked. The
  // members then release graphs, modules, workspace, cuBLASLt, stream and
  // context, in that order.
  if (stream_)
    cuStreamSynchronize(stream_.get());
}

DevicePtr CudaDevice::allocate(int64_t bytes) {
  CUdeviceptr ptr = 0;
  checkCuda(cuMemAlloc(&ptr, size_t(bytes)), "cuMemAlloc",
            "an allocation of " + std::to_string(bytes) + " bytes");
  poison(DevicePtr(ptr), bytes);
  return DevicePtr(ptr);
}

void CudaDevice::poison(DevicePtr ptr, int64_t bytes) {
  // 0xFF bytes are NaN for every float type, -1 for integers.
  checkCuda(cuMemsetD8Async(CUdeviceptr(ptr), 0xFF, size_t(bytes), stream_.get()),
            "cuMemsetD8Async");
}

void CudaDevice::release(DevicePtr ptr) {
  checkCuda(cuStreamSynchronize(stream_.get()), "cuStreamSynchronize");
  checkCuda(cuMemFree(CUdeviceptr(ptr)), "cuMemFree");
}

void CudaDevice::upload(DevicePtr dst, const void *src, int64_t bytes) {
  // Small uploads too: a synchronous copy from pageable memory would wait
  // for the copies in flight (a 7B model's 65 norm weights cost 0.1 s so).
  stagedUpload(dst, static_cast<const unsigned char *>(src), bytes);
}

namespace {

// A chunk is copied into its staging buffer by up to this many threads
// (pieces of at least 8 MiB): one thread's memcpy from a freshly mapped file
// (page faults included) is slower than the copy to the GPU. On an H200
// machine, one load of 4.36 GB from the page cache took 1.2-1.3 s with one
// thread, 0.7-0.9 s with 4, and about the same with 8 (docs/runtime.md).
constexpr int kCopyThreads = 4;
constexpr int64_t kCopyPieceBytes = int64_t(8) << 20;

void copyToStaging(unsigned char *dst, const unsigned char *src, int64_t bytes) {
  int64_t pieces = std::min<int64_t>(kCopyThreads, std::max<int64_t>(1, bytes / kCopyPieceBytes));
  int64_t piece = (bytes + pieces - 1) / pieces;
  std::vector<std::thread> threads;
  for (int64_t p = 1; p < pieces; ++p) {
    int64_t begin = p * piece, end = std::min(bytes, begin + piece);
    try {
      threads.emplace_back([=] { std::memcpy(dst + begin, src + begin, size_t(end - begin)); });
    } catch (const std::system_error &) {
      std::memcpy(dst + begin, src + begin, size_t(end - begin)); // no thread: here
    }
  }
  std::memcpy(dst, src, size_t(std::min(bytes, piece)));
  for (std::thread &thread : threads)
    thread.join();
}

} // namespace

void CudaDevice::stagedUpload(DevicePtr dst, const unsigned char *src, int64_t bytes) {
  uploadFilled(dst, bytes, [src](unsigned char *host, int64_t offset, int64_t n) {
    copyToStaging(host, src + offset, n);
  });
}

void CudaDevice::uploadFilled(DevicePtr dst, int64_t bytes, const ChunkFiller &fill) {
  while (staging_.size() < size_t(kStagingBuffers)) {
    StagingBuffer buffer;
    void *memory = nullptr;
    checkCuda(cuMemHostAlloc(&memory, size_t(kStagingBytes), 0), "cuMemHostAlloc",
              "a pinned staging buffer of " + std::to_string(kStagingBytes) + " bytes");
    buffer.memory.reset(memory);
    CUevent event = nullptr;
    checkCuda(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    buffer.copied.reset(event);
    staging_.push_back(std::move(buffer));
  }
  // The buffers are used in turn, across uploads too: the next one is the
  // one whose copy was issued longest ago.
  for (int64_t done = 0; done < bytes;) {
    StagingBuffer &buffer = staging_[nextStaging_];
    nextStaging_ = (nextStaging_ + 1) % staging_.size();
    int64_t chunk = std::min(kStagingBytes, bytes - done);
    if (buffer.inFlight) {
      checkCuda(cuEventSynchronize(buffer.copied.get()), "cuEventSynchronize", "an upload");
      buffer.inFlight = false;
    }
    fill(static_cast<unsigned char *>(buffer.memory.get()), done, chunk);
    checkCuda(cuMemcpyHtoDAsync(CUdeviceptr(dst + DevicePtr(done)), buffer.memory.get(),
                                size_t(chunk), stream_.get()),
              "cuMemcpyHtoDAsync", "an upload");
    checkCuda(cuEventRecord(buffer.copied.get(), stream_.get()), "cuEventRecord", "an upload");
    buffer.inFlight = true;
    done += chunk;
  }
  // The last copies may still run: the source is no longer needed, and
  // what follows on the stream waits for them.
}

void CudaDevice::download(void *dst, DevicePtr src, int64_t bytes) {
  checkCuda(cuMemcpyDtoHAsync(dst, CUdeviceptr(src), size_t(bytes), stream_.get()),
            "cuMemcpyDtoHAsync");
  checkCuda(cuStreamSynchronize(stream_.get()), "cuStreamSynchronize", "a download");
}

void CudaDevice::copy(DevicePtr dst, DevicePtr src, int64_t bytes) {
  checkCuda(cuMemcpyDtoDAsync(CUdeviceptr(dst), CUdeviceptr(src), size_t(bytes), stream_.get()),
            "cuMemcpyDtoDAsync");
}

namespace {
// The largest pitch the 2D copies and fills take on every device we know.
constexpr int64_t kMost2DPitch = int64_t(1) << 30;
} // namespace

void CudaDevice::copyRows(DevicePtr dst, int64_t dstPitch, DevicePtr src, int64_t srcPitch,
                          int64_t widthBytes, int64_t rows) {
  if (rows == 1 || (dstPitch == widthBytes && srcPitch == widthBytes))
    return copy(dst, src, widthBytes * rows);
  if (dstPitch > kMost2DPitch || srcPitch > kMost2DPitch)
    return Device::copyRows(dst, dstPitch, src, srcPitch, widthBytes, rows);
  CUDA_MEMCPY2D copy2D{};
  copy2D.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy2D.srcDevice = CUdeviceptr(src);
  copy2D.srcPitch = size_t(srcPitch);
  copy2D.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy2D.dstDevice = CUdeviceptr(dst);
  copy2D.dstPitch = size_t(dstPitch);
  copy2D.WidthInBytes = size_t(widthBytes);
  copy2D.Height = size_t(rows);
  checkCuda(cuMemcpy2DAsync(&copy2D, stream_.get()), "cuMemcpy2DAsync");
}

void CudaDevice::zeroRows(DevicePtr dst, int64_t pitch, int64_t widthBytes, int64_t rows) {
  if (rows == 1 || pitch == widthBytes) {
    checkCuda(cuMemsetD8Async(CUdeviceptr(dst), 0, size_t(widthBytes * rows), stream_.get()),
              "cuMemsetD8Async");
    return;
  }
  if (pitch > kMost2DPitch)
    return Device::zeroRows(dst, pitch, widthBytes, rows);
  checkCuda(cuMemsetD2D8Async(CUdeviceptr(dst), size_t(pitch), 0, size_t(widthBytes),
                              size_t(rows), stream_.get()),
            "cuMemsetD2D8Async");
}

namespace {

bool isPtxIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}

bool isPtxSpace(char c) { return std::isspace(static_cast<unsigned char>(c)); }

// PTX with its comments and strings (a `.file` path may hold "//") each
// replaced by a space, so that tokens stay apart.
std::string stripPtxComments(const std::string &ptx) {
  // Where a comment or string ends: just past `close`, or at the end.
  auto past = [&](size_t close, size_t closeSize) {
    return close == std::string::npos ? ptx.size() : close + closeSize;
  };
  std::string out;
  out.reserve(ptx.size());
  for (size_t i = 0; i < ptx.size();) {
    size_t end;
    if (ptx.compare(i, 2, "//") == 0)
      end = past(ptx.find('\n', i), 0); // the newline stays
    else if (ptx.compare(i, 2, "/*") == 0)
      end = past(ptx.find("*/", i + 2), 2);
    else if (ptx[i] == '"')
      end = past(ptx.find('"', i + 1), 1);
    else {
      out += ptx[i++];
      continue;
    }
    out += ' ';
    i = end;
  }
  return out;
}

// The number of parameters in the list that follows an entry's name at `i`
// (`(.param .u64 a, .param .align 8 .b8 b[16])`), or none if it is not one.
std::optional<size_t> countEntryParams(const std::string &ptx, size_t i) {
  while (i < ptx.size() && isPtxSpace(ptx[i]))
    ++i;
  if (i == ptx.size())
    return std::nullopt;
  // No list: the body or a performance directive (.maxntid) comes next.
  if (ptx[i] != '(')
    return ptx[i] == '{' || ptx[i] == '.' ? std::optional<size_t>(0) : std::nullopt;
  // Split at the top-level commas, up to the matching ')'.
  std::vector<std::string> items(1);
  int depth = 0;
  for (; i < ptx.size(); ++i) {
    char c = ptx[i];
    if (c == '(' && depth++ == 0)
      continue;
    if (c == ')' && --depth == 0)
      break;
    if (c == ',' && depth == 1)
      items.emplace_back();
    else
      items.back() += c;
  }
  if (depth != 0)
    return std::nullopt; // no matching ')'
  auto trimmed = [](const std::string &item) {
    size_t begin = 0, end = item.size();
    while (begin < end && isPtxSpace(item[begin]))
      ++begin;
    while (end > begin && isPtxSpace(item[end - 1]))
      --end;
    return item.substr(begin, end - begin);
  };
  if (items.size() == 1 && trimmed(items[0]).empty())
    return 0;
  for (const std::string &item : items) {
    std::string declaration = trimmed(item);
    if (declaration.compare(0, 6, ".param") != 0 || declaration.size() == 6 ||
        !isPtxSpace(declaration[6]))
      return std::nullopt;
  }
  return items.size();
}

// The number of parameters of each `.entry` (kernel) in a PTX module. An
// entry whose list cannot be read, or that appears twice with different
// counts, is left out: its launches are then not checked.
std::map<std::string, size_t> ptxEntryParamCounts(const std::string &ptxText) {
  std::string ptx = stripPtxComments(ptxText);
  std::map<std::string, size_t> counts;
  std::set<std::string> unknown;
  const std::string keyword = ".entry";
  for (size_t at = ptx.find(keyword); at != std::string::npos; at = ptx.find(keyword, at + 1)) {
    // The directive itself (after .visible, .weak or nothing), not part of
    // another token.
    size_t i = at + keyword.size();
    if ((at > 0 && (isPtxIdentifierChar(ptx[at - 1]) || ptx[at - 1] == '.')) ||
        i == ptx.size() || !isPtxSpace(ptx[i]))
      continue;
    while (i < ptx.size() && isPtxSpace(ptx[i]))
      ++i;
    size_t nameBegin = i;
    while (i < ptx.size() && isPtxIdentifierChar(ptx[i]))
      ++i;
    if (i == nameBegin)
      continue;
    std::string name = ptx.substr(nameBegin, i - nameBegin);
    std::optional<size_t> count = countEntryParams(ptx, i);
    if (!count) {
      unknown.insert(name);
      continue;
    }
    auto [it, inserted] = counts.emplace(name, *count);
    if (!inserted && it->second != *count)
      unknown.insert(name);
  }
  for (const std::string &name : unknown)
    counts.erase(name);
  return counts;
}

} // namespace

int CudaDevice::loadModule(const std::string &ptxPath, const std::optional<std::string> &cubinPath) {
  Module loaded;
  CUmodule module = nullptr;
  if (cubinPath) {
    std::string cubin = readFileBytes(*cubinPath);
    CUresult result = cuModuleLoadData(&module, cubin.data());
    if (result == CUDA_SUCCESS) {
      loaded.handle.reset(module);
      loaded.loadedFrom = *cubinPath;
    } else {
      // A cubin for another chip: the PTX still works.
      const char *name = nullptr;
      cuGetErrorName(result, &name);
      std::cerr << "magi-run: warning: cannot load '" << *cubinPath << "' ("
                << (name ? name : "?") << "); loading its PTX instead\n";
    }
  }
  std::optional<std::string> ptx;
  if (!loaded.handle) {
    ptx = readFileBytes(ptxPath); // std::string ends in NUL
    char errorLog[8192] = {};
    char infoLog[4096] = {};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {errorLog, reinterpret_cast<void *>(uintptr_t(sizeof(errorLog))), infoLog,
                      reinterpret_cast<void *>(uintptr_t(sizeof(infoLog)))};
    module = nullptr;
    CUresult result = cuModuleLoadDataEx(&module, ptx->c_str(), 4, options, values);
    if (result != CUDA_SUCCESS) {
      std::string log = errorLog;
      checkCuda(result, "cuModuleLoadDataEx",
                "'" + ptxPath + "'" + (log.empty() ? "" : "; the PTX compiler said:\n" + log));
    }
    loaded.handle.reset(module);
    loaded.loadedFrom = ptxPath;
  } else {
    // Only for the parameter counts: without the PTX, launches are not
    // checked.
    try {
      ptx = readFileBytes(ptxPath);
    } catch (const RuntimeError &) {
    }
  }
  if (ptx)
    loaded.paramCounts = ptxEntryParamCounts(*ptx);
  modules_.push_back(std::move(loaded));
  return int(modules_.size() - 1);
}

CudaDevice::Function &CudaDevice::function(int module, const std::string &name) {
  auto key = std::make_pair(module, name);
  auto it = functions_.find(key);
  if (it != functions_.end())
    return it->second;
  const Module &m = modules_[module];
  Function f;
  checkCuda(cuModuleGetFunction(&f.handle, m.handle.get(), name.c_str()), "cuModuleGetFunction",
            "kernel '" + name + "' of '" + m.loadedFrom + "'");
  // The kernel's parameter list, to check each launch against it. The
  // driver cannot count parameters and asking past the last one is an API
  // error (compute-sanitizer reports it), so the count comes from the PTX.
  auto count = m.paramCounts.find(name);
  if (count != m.paramCounts.end()) {
    f.paramSizes.emplace();
    for (size_t i = 0; i < count->second; ++i) {
      size_t offset = 0, size = 0;
      if (cuFuncGetParamInfo(f.handle, i, &offset, &size) != CUDA_SUCCESS) {
        f.paramSizes.reset(); // the driver cannot tell, or a stale PTX: no check
        break;
      }
      f.paramSizes->push_back(size);
    }
  }
  return functions_.emplace(key, f).first->second;
}

void CudaDevice::launch(int module, const LaunchCall &call) {
  Function &f = function(module, call.kernel);
  std::string context = "kernel '" + call.kernel + "'";
  if (f.paramSizes) {
    const std::vector<size_t> &sizes = *f.paramSizes;
    bool same = sizes.size() == call.params.size();
    for (size_t i = 0; same && i < call.params.size(); ++i)
      same = sizes[i] == call.params[i].size;
    if (!same) {
      std::ostringstream os;
      os << context << " takes " << sizes.size() << " parameter(s) of sizes [";
      for (size_t i = 0; i < sizes.size(); ++i)
        os << (i ? ", " : "") << sizes[i];
      os << "], but the plan passes " << call.params.size() << " of sizes [";
      for (size_t i = 0; i < call.params.size(); ++i)
        os << (i ? ", " : "") << call.params[i].size;
      os << "]";
      throw RuntimeError(os.str());
    }
  }
  if (call.sharedBytes > 48 * 1024 && call.sharedBytes > f.sharedLimitSet) {
    // Above 48 KiB of dynamic shared memory a kernel must opt in.
    checkCuda(cuFuncSetAttribute(f.handle, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                 int(call.sharedBytes)),
              "cuFuncSetAttribute", context);
    f.sharedLimitSet = call.sharedBytes;
  }
  std::vector<void *> params;
  for (const KernelParam &p : call.params)
    params.push_back(const_cast<unsigned char *>(p.bytes));
  CUlaunchConfig config = {};
  config.gridDimX = unsigned(call.grid[0]);
  config.gridDimY = unsigned(call.grid[1]);
  config.gridDimZ = unsigned(call.grid[2]);
  config.blockDimX = unsigned(call.block[0]);
  config.blockDimY = unsigned(call.block[1]);
  config.blockDimZ = unsigned(call.block[2]);
  config.sharedMemBytes = unsigned(call.sharedBytes);
  config.hStream = stream_.get();
  // The kernel waits for the previous grid first thing, so it may be
  // scheduled while that grid finishes (also inside a captured graph).
  CUlaunchAttribute early = {};
  early.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  early.value.programmaticStreamSerializationAllowed = 1;
  if (call.programmatic && programmaticLaunch_) {
    config.attrs = &early;
    config.numAttrs = 1;
  }
  checkCuda(cuLaunchKernelEx(&config, f.handle, params.empty() ? nullptr : params.data(),
                             nullptr),
            "cuLaunchKernelEx", context);
}

namespace {

// A gemm operand as cuBLASLt sees it: a column-major matrix in memory
// (rows x cols, leading dimension ld) and whether the product uses it
// transposed.
struct ColumnMajorOperand {
  cublasOperation_t op = CUBLAS_OP_N;
  int64_t rows = 0, cols = 0, ld = 0;
};

// The row-major logical matrix `x` ([rows, cols] with strides) used as
// `wanted` (x itself, or x transposed) in a column-major product.
ColumnMajorOperand columnMajor(const MatrixOperand &x, bool wantTransposed) {
  int64_t r = x.sizes[1], c = x.sizes[2];
  bool rowMajor = x.strides[2] == 1 || c <= 1;
  ColumnMajorOperand out;
  // Row-major memory of x is column-major memory of x^T (ld = row stride).
  if (rowMajor) {
    out.rows = c;
    out.cols = r;
    out.ld = x.strides[1];
    out.op = wantTransposed ? CUBLAS_OP_N : CUBLAS_OP_T;
  } else {
    out.rows = r;
    out.cols = c;
    out.ld = x.strides[2];
    out.op = wantTransposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  }
  // With one column the leading dimension is never used; cuBLASLt still
  // wants it at least the row count.
  if (out.cols <= 1)
    out.ld = std::max<int64_t>(out.ld, std::max<int64_t>(out.rows, 1));
  return out;
}

int64_t alignmentOf(DevicePtr ptr) {
  int64_t alignment = 256;
  while (alignment > 1 && ptr % DevicePtr(alignment) != 0)
    alignment /= 2;
  return alignment;
}

cudaDataType_t cudaType(Dtype dtype) {
  switch (dtype) {
  case Dtype::BF16: return CUDA_R_16BF;
  case Dtype::F16: return CUDA_R_16F;
  default: return CUDA_R_32F;
  }
}

// Owns cuBLASLt descriptors for one call.
struct GemmDescriptors {
  cublasLtMatmulDesc_t matmul = nullptr;
  cublasLtMatrixLayout_t p = nullptr, q = nullptr, d = nullptr;
  cublasLtMatmulPreference_t preference = nullptr;
  ~GemmDescriptors() {
    if (preference) cublasLtMatmulPreferenceDestroy(preference);
    if (d) cublasLtMatrixLayoutDestroy(d);
    if (q) cublasLtMatrixLayoutDestroy(q);
    if (p) cublasLtMatrixLayoutDestroy(p);
    if (matmul) cublasLtMatmulDescDestroy(matmul);
  }
};

} // namespace

struct CudaDevice::GemmPlan {
  GemmDescriptors desc;
  cublasLtMatmulAlgo_t algo = {};
};

void CudaDevice::GemmPlanDeleter::operator()(GemmPlan *plan) const { delete plan; }

struct CudaDevice::GemmOperands {
  DevicePtr p = 0, q = 0, d = 0;
  // Few rows or columns in the result: the product streams its weights.
  bool streamsWeights = false;
};

namespace {

// How many of the heuristic's answers are timed, how many of them get
// split-K variants, and which split counts those try. A product with few
// rows or columns (at most kStreamingSide: a projection of a few tokens)
// streams its weights, and there the heuristic's first answers can be far
// from the copy bandwidth (a 4096 x 4096 projection of 16 tokens at 0.4 of
// it), so more of its answers are timed.
constexpr int kHeuristicCandidates = 8;
constexpr int kStreamingCandidates = 32;
constexpr int64_t kStreamingSide = 64;
constexpr int kSplitKBases = 2;
constexpr int32_t kSplitCounts[] = {2, 4, 8};
// Timed calls per candidate, after one untimed call (which also loads the
// kernel's module); the median counts.
constexpr int kTimedCalls = 5;
// Another algorithm replaces the heuristic's first only below this
// fraction of its time.
constexpr double kClearlyFaster = 0.97;

struct GemmCandidate {
  cublasLtMatmulAlgo_t algo;
  int heuristicRank; // its place in the heuristic's answer
  int32_t splitK;    // 0: as the heuristic gave it
  double microseconds = 0;
};

// Reads `words16` 16-byte words from `buffer` (grid-stride, bypassing L1),
// so that the L2 afterwards holds clean lines of the buffer only: what was
// dirty in it is written back during this kernel, not during the gemm timed
// after it. (Clearing the L2 by writing, a memset, leaves it dirty, and
// every candidate's time then includes writing those lines back.) The
// store, to the buffer itself, only keeps the loads from being removed.
constexpr const char *kL2ClearPtx = R"(.version 7.8
.target sm_70
.address_size 64
.visible .entry magi_clear_l2(.param .u64 buffer, .param .u64 words16)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [buffer];
  ld.param.u64 %rd2, [words16];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  mad.lo.s32 %r5, %r1, %r2, %r3;
  cvt.u64.u32 %rd3, %r5;
  mul.lo.s32 %r6, %r4, %r2;
  cvt.u64.u32 %rd4, %r6;
  mov.u32 %r11, 0;
  setp.ge.u64 %p1, %rd3, %rd2;
  @%p1 bra DONE;
LOOP:
  shl.b64 %rd5, %rd3, 4;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.cg.v4.u32 {%r7, %r8, %r9, %r10}, [%rd6];
  xor.b32 %r11, %r11, %r7;
  xor.b32 %r11, %r11, %r10;
  add.s64 %rd3, %rd3, %rd4;
  setp.lt.u64 %p1, %rd3, %rd2;
  @%p1 bra LOOP;
DONE:
  setp.eq.u32 %p2, %r11, 0x5a17c0de;
  @%p2 st.global.u32 [%rd1], %r11;
  ret;
}
)";

std::string describe(const GemmCandidate &candidate) {
  std::string text = "heuristic #" + std::to_string(candidate.heuristicRank + 1);
  if (candidate.splitK)
    text += " split-K " + std::to_string(candidate.splitK);
  return text;
}

std::string formatMicroseconds(double us) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(1);
  out << us << " us";
  return out.str();
}

} // namespace

// Times each candidate on the problem's own operands. Beta is 0, so the
// repeated calls leave the same result as one. Before each timed call the
// L2 is cleared (magi_clear_l2 reads twice its size): a layer's gemms read
// weights that are not in the L2, and an algorithm that wins from a warm L2
// can lose streaming from memory.
bool CudaDevice::chooseGemmAlgorithm(GemmPlan &plan, const GemmOperands &operands,
                                     const std::string &context) {
  GemmDescriptors &desc = plan.desc;
  int wanted = operands.streamsWeights ? kStreamingCandidates : kHeuristicCandidates;
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<size_t>(wanted));
  int found = 0;
  checkCublas(cublasLtMatmulAlgoGetHeuristic(cublas_.get(), desc.matmul, desc.p, desc.q, desc.d,
                                             desc.d, desc.preference, wanted,
                                             results.data(), &found),
              "cublasLtMatmulAlgoGetHeuristic", context);
  if (found == 0)
    throw RuntimeError(context + ": cuBLASLt found no algorithm for this problem");
  plan.algo = results[0].algo;
  CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
  checkCuda(cuStreamIsCapturing(stream_.get(), &capturing), "cuStreamIsCapturing", context);
  if (gemmChoice_ == GemmAlgorithmChoice::Heuristic ||
      capturing != CU_STREAM_CAPTURE_STATUS_NONE) {
    // Nothing can be timed inside a capture. A problem first met there
    // (the executor runs eagerly before it captures, so only a problem
    // whose operands' alignment changed) keeps the heuristic's choice.
    if (gemmLog_)
      *gemmLog_ << context << ": cuBLASLt's heuristic choice"
                << (gemmChoice_ == GemmAlgorithmChoice::Heuristic
                        ? ""
                        : " (first met during a CUDA graph capture, where nothing can be timed)")
                << "\n";
    return false;
  }

  std::vector<GemmCandidate> candidates;
  for (int i = 0; i < found; ++i)
    if (results[i].state == CUBLAS_STATUS_SUCCESS)
      candidates.push_back({results[i].algo, i, 0});
  for (int i = 0; i < std::min(found, kSplitKBases); ++i) {
    int32_t splitSupport = 0, current = 1;
    size_t written = 0;
    if (cublasLtMatmulAlgoCapGetAttribute(&results[i].algo, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT,
                                          &splitSupport, sizeof(splitSupport),
                                          &written) != CUBLAS_STATUS_SUCCESS ||
        !splitSupport)
      continue;
    if (cublasLtMatmulAlgoConfigGetAttribute(&results[i].algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
                                             &current, sizeof(current),
                                             &written) != CUBLAS_STATUS_SUCCESS ||
        current != 1)
      continue;
    uint32_t schemes = 0;
    if (cublasLtMatmulAlgoCapGetAttribute(&results[i].algo,
                                          CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK, &schemes,
                                          sizeof(schemes), &written) != CUBLAS_STATUS_SUCCESS)
      continue;
    // Partial sums in f32 when the algorithm can, else in the output.
    uint32_t scheme = (schemes & CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE)
                          ? CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE
                          : (schemes & CUBLASLT_REDUCTION_SCHEME_INPLACE)
                                ? CUBLASLT_REDUCTION_SCHEME_INPLACE
                                : CUBLASLT_REDUCTION_SCHEME_NONE;
    if (scheme == CUBLASLT_REDUCTION_SCHEME_NONE)
      continue;
    for (int32_t split : kSplitCounts) {
      GemmCandidate candidate{results[i].algo, i, split};
      cublasLtMatmulHeuristicResult_t checked = {};
      if (cublasLtMatmulAlgoConfigSetAttribute(&candidate.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
                                               &split, sizeof(split)) != CUBLAS_STATUS_SUCCESS ||
          cublasLtMatmulAlgoConfigSetAttribute(&candidate.algo,
                                               CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &scheme,
                                               sizeof(scheme)) != CUBLAS_STATUS_SUCCESS ||
          cublasLtMatmulAlgoCheck(cublas_.get(), desc.matmul, desc.p, desc.q, desc.d, desc.d,
                                  &candidate.algo, &checked) != CUBLAS_STATUS_SUCCESS ||
          checked.workspaceSize > workspaceBytes_)
        continue;
      candidates.push_back(candidate);
    }
  }
  if (candidates.size() <= 1) {
    if (gemmLog_)
      *gemmLog_ << context << ": cuBLASLt offers one algorithm\n";
    return true;
  }

  // Twice the L2, read before each timed call; freed when done.
  CUdeviceptr flushMemory = 0;
  size_t flushBytes = size_t(std::max<int64_t>(l2Bytes_, 1 << 20)) * 2;
  checkCuda(cuMemAlloc(&flushMemory, flushBytes), "cuMemAlloc",
            context + " (the buffer that clears the L2 while timing algorithms)");
  detail::DeviceMemory flush(flushMemory);
  if (!l2Clear_) {
    CUmodule module = nullptr;
    checkCuda(cuModuleLoadData(&module, kL2ClearPtx), "cuModuleLoadData",
              "the kernel that clears the L2 while timing gemm algorithms");
    l2ClearModule_.reset(module);
    checkCuda(cuModuleGetFunction(&l2Clear_, module, "magi_clear_l2"), "cuModuleGetFunction",
              "magi_clear_l2");
  }
  CUdeviceptr flushBase = flush.get();
  uint64_t flushWords = flushBytes / 16;
  void *clearParams[] = {&flushBase, &flushWords};
  auto makeEvent = [&] {
    CUevent event = nullptr;
    checkCuda(cuEventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate", context);
    return detail::Event(event);
  };
  detail::Event start = makeEvent(), stop = makeEvent();
  float alpha = 1.0f, beta = 0.0f;
  void *d = reinterpret_cast<void *>(uintptr_t(operands.d));
  auto call = [&](const cublasLtMatmulAlgo_t &algo) {
    return cublasLtMatmul(cublas_.get(), desc.matmul, &alpha,
                          reinterpret_cast<const void *>(uintptr_t(operands.p)), desc.p,
                          reinterpret_cast<const void *>(uintptr_t(operands.q)), desc.q, &beta, d,
                          desc.d, d, desc.d, &algo,
                          reinterpret_cast<void *>(uintptr_t(workspace_.get())), workspaceBytes_,
                          stream_.get());
  };
  std::vector<GemmCandidate> timed;
  for (GemmCandidate &candidate : candidates) {
    // An algorithm that refuses these operands is left out; one that fails
    // on the GPU is an error (the stream would be unusable).
    if (call(candidate.algo) != CUBLAS_STATUS_SUCCESS)
      continue;
    std::vector<float> times;
    for (int i = 0; i < kTimedCalls; ++i) {
      checkCuda(cuLaunchKernel(l2Clear_, 4 * 132, 1, 1, 256, 1, 1, 0, stream_.get(),
                               clearParams, nullptr),
                "cuLaunchKernel", context + " (clearing the L2)");
      checkCuda(cuEventRecord(start.get(), stream_.get()), "cuEventRecord", context);
      checkCublas(call(candidate.algo), "cublasLtMatmul", context + " (timing " +
                                                              describe(candidate) + ")");
      checkCuda(cuEventRecord(stop.get(), stream_.get()), "cuEventRecord", context);
      checkCuda(cuEventSynchronize(stop.get()), "cuEventSynchronize", context);
      float ms = 0;
      checkCuda(cuEventElapsedTime(&ms, start.get(), stop.get()), "cuEventElapsedTime", context);
      times.push_back(ms);
    }
    std::nth_element(times.begin(), times.begin() + kTimedCalls / 2, times.end());
    candidate.microseconds = double(times[kTimedCalls / 2]) * 1000.0;
    timed.push_back(candidate);
  }
  if (timed.empty())
    throw RuntimeError(context + ": no cuBLASLt algorithm accepted these operands");
  const GemmCandidate *best =
      &*std::min_element(timed.begin(), timed.end(), [](const auto &x, const auto &y) {
        return x.microseconds < y.microseconds;
      });
  // The heuristic's first answer stays unless another is clearly faster:
  // closer times are within the timing's noise, and switching on noise
  // would make runs choose differently for nothing.
  const GemmCandidate &first = timed.front();
  bool firstIsHeuristics = first.heuristicRank == 0 && first.splitK == 0;
  if (firstIsHeuristics && best->microseconds > first.microseconds * kClearlyFaster)
    best = &first;
  plan.algo = best->algo;
  if (gemmLog_) {
    *gemmLog_ << context << ": " << timed.size() << " cuBLASLt algorithms timed; chose "
              << describe(*best) << ", " << formatMicroseconds(best->microseconds);
    if (firstIsHeuristics && best != &first)
      *gemmLog_ << " (heuristic #1: " << formatMicroseconds(first.microseconds) << ")";
    *gemmLog_ << "\n";
    // The fastest few, to tell how far cuBLASLt's best is from the others.
    std::vector<const GemmCandidate *> ranked;
    for (const GemmCandidate &candidate : timed)
      ranked.push_back(&candidate);
    std::sort(ranked.begin(), ranked.end(),
              [](const auto *x, const auto *y) { return x->microseconds < y->microseconds; });
    *gemmLog_ << "  fastest:";
    for (size_t i = 0; i < std::min<size_t>(ranked.size(), 6); ++i)
      *gemmLog_ << (i ? ", " : " ") << describe(*ranked[i]) << " "
                << formatMicroseconds(ranked[i]->microseconds);
    *gemmLog_ << "\n";
  }
  return true;
}

void CudaDevice::gemm(const GemmCall &call) {
  const MatrixOperand &a = call.a, &b = call.b, &c = call.c;
  int64_t batch = c.sizes[0], m = a.sizes[1], k = a.sizes[2], n = b.sizes[2];
  std::ostringstream problem;
  problem << "gemm " << manifestName(call.dtype)
          << (call.cDtype != call.dtype ? std::string("->") + manifestName(call.cDtype) : "")
          << " [" << batch << ", " << m << ", " << k
          << "] x [" << b.sizes[0] << ", " << k << ", " << n << "]";
  std::string context = problem.str();

  // cuBLASLt is column-major. When c is row-major (the usual case), compute
  // c^T = b^T a^T, whose rows are c's columns: then the epilogue's bias,
  // one value per row of the result, is one value per column n of c.
  bool cRowMajor = c.strides[2] == 1 || n <= 1;
  ColumnMajorOperand p, q;
  DevicePtr pPtr, qPtr;
  int64_t pBatchStride, qBatchStride, dRows, dCols, ldd;
  if (cRowMajor) {
    p = columnMajor(b, /*wantTransposed=*/true);
    q = columnMajor(a, /*wantTransposed=*/true);
    pPtr = b.ptr;
    qPtr = a.ptr;
    pBatchStride = b.strides[0];
    qBatchStride = a.strides[0];
    dRows = n;
    dCols = m;
    ldd = c.strides[1];
  } else {
    if (call.hasBias)
      throw RuntimeError(context + ": a bias needs a row-major c (last stride 1)");
    p = columnMajor(a, false);
    q = columnMajor(b, false);
    pPtr = a.ptr;
    qPtr = b.ptr;
    pBatchStride = a.strides[0];
    qBatchStride = b.strides[0];
    dRows = m;
    dCols = n;
    ldd = c.strides[2];
  }
  if (dCols <= 1)
    ldd = std::max<int64_t>(ldd, std::max<int64_t>(dRows, 1));

  // The heuristic assumes 256-byte aligned pointers unless told otherwise;
  // operands at an offset can be less aligned.
  int64_t alignP = alignmentOf(pPtr), alignQ = alignmentOf(qPtr), alignD = alignmentOf(c.ptr);
  std::ostringstream key;
  key << int(call.dtype) << ' ' << int(call.cDtype) << ' ' << batch << ' ' << p.op << ' '
      << p.rows << ' ' << p.cols << ' ' << p.ld << ' ' << pBatchStride << ' ' << q.op << ' '
      << q.rows << ' ' << q.cols << ' ' << q.ld << ' ' << qBatchStride << ' ' << dRows << ' ' << dCols << ' ' << ldd << ' '
      << c.strides[0] << ' ' << alignP << ' ' << alignQ << ' ' << alignD << ' ' << call.hasBias
      << ' ' << (call.hasBias ? alignmentOf(call.bias) : 0) << ' ' << (call.hasBias ? call.bias : 0);
  auto cached = gemmPlans_.find(key.str());
  if (cached == gemmPlans_.end()) {
    cudaDataType_t type = cudaType(call.dtype), cType = cudaType(call.cDtype);
    std::unique_ptr<GemmPlan, GemmPlanDeleter> made(new GemmPlan);
    GemmDescriptors &desc = made->desc;
    // f32 stays f32 (no TF32); bf16/f16 accumulate in f32.
    checkCublas(cublasLtMatmulDescCreate(&desc.matmul, CUBLAS_COMPUTE_32F, CUDA_R_32F),
                "cublasLtMatmulDescCreate", context);
    checkCublas(cublasLtMatmulDescSetAttribute(desc.matmul, CUBLASLT_MATMUL_DESC_TRANSA, &p.op,
                                               sizeof(p.op)),
                "cublasLtMatmulDescSetAttribute(TRANSA)", context);
    checkCublas(cublasLtMatmulDescSetAttribute(desc.matmul, CUBLASLT_MATMUL_DESC_TRANSB, &q.op,
                                               sizeof(q.op)),
                "cublasLtMatmulDescSetAttribute(TRANSB)", context);
    if (call.hasBias) {
      cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
      checkCublas(cublasLtMatmulDescSetAttribute(desc.matmul, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                                 &epilogue, sizeof(epilogue)),
                  "cublasLtMatmulDescSetAttribute(EPILOGUE)", context);
      const void *biasPtr = reinterpret_cast<const void *>(uintptr_t(call.bias));
      checkCublas(cublasLtMatmulDescSetAttribute(desc.matmul, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                 &biasPtr, sizeof(biasPtr)),
                  "cublasLtMatmulDescSetAttribute(BIAS_POINTER)", context);
      int32_t biasType = cType; // the bias has c's dtype
      checkCublas(cublasLtMatmulDescSetAttribute(desc.matmul, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                                                 &biasType, sizeof(biasType)),
                  "cublasLtMatmulDescSetAttribute(BIAS_DATA_TYPE)", context);
      int64_t biasBatchStride = 0; // the same bias for every batch
      checkCublas(cublasLtMatmulDescSetAttribute(desc.matmul,
                                                 CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE,
                                                 &biasBatchStride, sizeof(biasBatchStride)),
                  "cublasLtMatmulDescSetAttribute(BIAS_BATCH_STRIDE)", context);
    }

    auto makeLayout = [&](cublasLtMatrixLayout_t &layout, cudaDataType_t layoutType, int64_t rows,
                          int64_t cols, int64_t ld, int64_t batchStride, const char *which) {
      checkCublas(cublasLtMatrixLayoutCreate(&layout, layoutType, uint64_t(rows), uint64_t(cols),
                                             ld),
                  "cublasLtMatrixLayoutCreate", context + " (" + which + ")");
      int32_t count = int32_t(batch);
      checkCublas(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                                   &count, sizeof(count)),
                  "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)", context);
      checkCublas(cublasLtMatrixLayoutSetAttribute(layout,
                                                   CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                   &batchStride, sizeof(batchStride)),
                  "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)", context);
    };
    makeLayout(desc.p, type, p.rows, p.cols, p.ld, pBatchStride, "first operand");
    makeLayout(desc.q, type, q.rows, q.cols, q.ld, qBatchStride, "second operand");
    makeLayout(desc.d, cType, dRows, dCols, ldd, c.strides[0], "result");

    checkCublas(cublasLtMatmulPreferenceCreate(&desc.preference), "cublasLtMatmulPreferenceCreate",
                context);
    uint64_t workspace = workspaceBytes_;
    checkCublas(cublasLtMatmulPreferenceSetAttribute(desc.preference,
                                                     CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                     &workspace, sizeof(workspace)),
                "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)", context);
    std::pair<cublasLtMatmulPreferenceAttributes_t, int64_t> alignments[] = {
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignP},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignQ},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignD},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignD}};
    for (auto &entry : alignments) {
      uint32_t bytes = uint32_t(entry.second);
      checkCublas(cublasLtMatmulPreferenceSetAttribute(desc.preference, entry.first, &bytes,
                                                       sizeof(bytes)),
                  "cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT)", context);
    }
    // Its size class: the problem but for its row count m, rounded up to a
    // power of two. Only for a row-major c of one batch, where m is the
    // tokens and everything else the weights' shape; a problem whose other
    // dimensions or strides follow m has m in its class exactly.
    std::string sizeClass;
    if (cRowMajor && batch == 1 && gemmChoice_ == GemmAlgorithmChoice::Measured) {
      int64_t rowsClass = 1;
      while (rowsClass < m)
        rowsClass *= 2;
      std::ostringstream cls;
      cls << int(call.dtype) << ' ' << int(call.cDtype) << ' ' << p.op << ' ' << p.rows << ' '
          << p.cols << ' ' << p.ld << ' ' << q.op << ' ' << q.rows << ' ' << q.ld << ' ' << dRows
          << ' ' << ldd << ' ' << alignP << ' ' << alignQ << ' ' << alignD << ' ' << call.hasBias
          << ' ' << (call.hasBias ? alignmentOf(call.bias) : 0) << ' ' << rowsClass;
      sizeClass = cls.str();
    }
    auto classChoice = sizeClass.empty() ? sizeClassChoices_.end() : sizeClassChoices_.find(sizeClass);
    cublasLtMatmulHeuristicResult_t checked = {};
    if (call.anySize && classChoice != sizeClassChoices_.end() &&
        cublasLtMatmulAlgoCheck(cublas_.get(), desc.matmul, desc.p, desc.q, desc.d, desc.d,
                                &classChoice->second.algo, &checked) == CUBLAS_STATUS_SUCCESS &&
        checked.workspaceSize <= workspaceBytes_) {
      made->algo = classChoice->second.algo;
      if (gemmLog_)
        *gemmLog_ << context << ": the algorithm timed for " << classChoice->second.problem
                  << " (the same size class)\n";
    } else {
      bool timed = chooseGemmAlgorithm(*made,
                                       GemmOperands{pPtr, qPtr, c.ptr,
                                                    std::min(m, n) <= kStreamingSide},
                                       context);
      if (timed && !sizeClass.empty() && classChoice == sizeClassChoices_.end())
        sizeClassChoices_.emplace(sizeClass, SizeClassChoice{made->algo, context});
    }
    cached = gemmPlans_.emplace(key.str(), std::move(made)).first;
  }
  const GemmPlan &plan = *cached->second;

  float alpha = 1.0f, beta = 0.0f;
  void *d = reinterpret_cast<void *>(uintptr_t(c.ptr));
  checkCublas(cublasLtMatmul(cublas_.get(), plan.desc.matmul, &alpha,
                             reinterpret_cast<const void *>(uintptr_t(pPtr)), plan.desc.p,
                             reinterpret_cast<const void *>(uintptr_t(qPtr)), plan.desc.q, &beta, d,
                             plan.desc.d, d, plan.desc.d, &plan.algo,
                             reinterpret_cast<void *>(uintptr_t(workspace_.get())),
                             workspaceBytes_, stream_.get()),
              "cublasLtMatmul", context);
}

void CudaDevice::synchronize(const std::string &what) {
  checkCuda(cuStreamSynchronize(stream_.get()), "cuStreamSynchronize", what);
}

namespace {
// Records `event` (made on first use) on `from` and makes `to` wait for it.
void orderStreams(detail::Event &event, CUstream from, CUstream to, const char *what) {
  if (!event) {
    CUevent made = nullptr;
    checkCuda(cuEventCreate(&made, CU_EVENT_DISABLE_TIMING), "cuEventCreate", what);
    event.reset(made);
  }
  checkCuda(cuEventRecord(event.get(), from), "cuEventRecord", what);
  checkCuda(cuStreamWaitEvent(to, event.get(), 0), "cuStreamWaitEvent", what);
}
} // namespace

void CudaDevice::orderAfter(CUstream caller) {
  orderStreams(callerReached_, caller, stream_.get(), "ordering the run after the caller's stream");
}

void CudaDevice::orderBefore(CUstream caller) {
  orderStreams(deviceReached_, stream_.get(), caller,
               "ordering the caller's stream after the run");
}

void CudaDevice::beginCapture(const std::string &what) {
  // Global mode: a call that is not allowed while capturing (an allocation,
  // a synchronization) fails instead of silently breaking the graph.
  checkCuda(cuStreamBeginCapture(stream_.get(), CU_STREAM_CAPTURE_MODE_GLOBAL),
            "cuStreamBeginCapture", what);
}

int CudaDevice::endCapture(const std::string &what) {
  CUgraph graph = nullptr;
  checkCuda(cuStreamEndCapture(stream_.get(), &graph), "cuStreamEndCapture", what);
  CUgraphExec exec = nullptr;
  CUresult result = cuGraphInstantiate(&exec, graph, 0);
  // Owned before anything below can throw.
  detail::GraphExec owned(result == CUDA_SUCCESS ? exec : nullptr);
  // The executable graph is independent of the graph it was made from.
  CUresult destroyed = cuGraphDestroy(graph);
  checkCuda(result, "cuGraphInstantiate", what);
  checkCuda(destroyed, "cuGraphDestroy", what);
  graphs_.push_back(std::move(owned));
  return int(graphs_.size() - 1);
}

void CudaDevice::cancelCapture() {
  // Called while reporting another error: nothing here is checked.
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (cuStreamIsCapturing(stream_.get(), &status) != CUDA_SUCCESS ||
      status == CU_STREAM_CAPTURE_STATUS_NONE)
    return;
  CUgraph graph = nullptr;
  cuStreamEndCapture(stream_.get(), &graph);
  if (graph)
    cuGraphDestroy(graph);
}

void CudaDevice::replay(int graph, const std::string &what) {
  checkCuda(cuGraphLaunch(graphs_.at(size_t(graph)).get(), stream_.get()), "cuGraphLaunch", what);
}

void CudaDevice::releaseGraph(int graph) {
  detail::GraphExec &exec = graphs_.at(size_t(graph));
  if (!exec)
    return;
  // A replay still queued keeps the graph in use.
  checkCuda(cuStreamSynchronize(stream_.get()), "cuStreamSynchronize");
  // Destroyed here rather than by the owner, to check the result.
  checkCuda(cuGraphExecDestroy(exec.release()), "cuGraphExecDestroy");
}

} // namespace magi::runtime

namespace magi::runtime {

int CudaDevice::markTime() {
  CUevent event = nullptr;
  checkCuda(cuEventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate", "a profile's time mark");
  timeMarks_.emplace_back(event);
  checkCuda(cuEventRecord(event, stream_.get()), "cuEventRecord", "a profile's time mark");
  return int(timeMarks_.size() - 1);
}

double CudaDevice::millisecondsBetween(int from, int to) {
  float ms = 0;
  checkCuda(cuEventElapsedTime(&ms, timeMarks_.at(size_t(from)).get(),
                               timeMarks_.at(size_t(to)).get()),
            "cuEventElapsedTime", "a profile's time marks");
  return double(ms);
}

double CudaDevice::medianMilliseconds(int calls, const std::function<void()> &work,
                                      const std::string &what) {
  work(); // untimed: loads modules, chooses algorithms
  std::vector<double> times;
  for (int i = 0; i < calls; ++i) {
    int from = markTime();
    work();
    int to = markTime();
    synchronize(what);
    times.push_back(millisecondsBetween(from, to));
  }
  clearTimeMarks();
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

double CudaDevice::measureCopyGBps() {
  constexpr int64_t kBytes = int64_t(1) << 30;
  DevicePtr src = allocate(kBytes), dst = allocate(kBytes);
  double ms = 0;
  try {
    ms = medianMilliseconds(
        10,
        [&] {
          checkCuda(cuMemcpyDtoDAsync(dst, src, size_t(kBytes), stream_.get()), "cuMemcpyDtoDAsync",
                    "measuring the copy bandwidth");
        },
        "measuring the copy bandwidth");
  } catch (...) {
    release(src);
    release(dst);
    throw;
  }
  release(src);
  release(dst);
  return 2.0 * double(kBytes) / (ms * 1e6);
}

double CudaDevice::measureGemmTflops() {
  constexpr int64_t kN = 8192;
  constexpr int64_t kBytes = kN * kN * 2;
  // Random bf16 in [-1, 1): products of zeros (or of the 0xFF fill, NaNs)
  // can run at other speeds than real data.
  std::vector<uint16_t> host(size_t(kN * kN));
  uint32_t state = 12345;
  for (uint16_t &v : host) {
    state = state * 1664525u + 1013904223u;
    float f = float(state >> 8) / float(1u << 24) * 2.0f - 1.0f;
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    v = uint16_t(bits >> 16);
  }
  DevicePtr a = allocate(kBytes), b = allocate(kBytes), c = allocate(kBytes);
  double ms = 0;
  try {
    upload(a, host.data(), kBytes);
    upload(b, host.data(), kBytes);
    GemmCall call;
    call.dtype = call.cDtype = Dtype::BF16;
    auto operand = [&](DevicePtr ptr) {
      MatrixOperand m;
      m.ptr = ptr;
      m.sizes[0] = 1, m.sizes[1] = kN, m.sizes[2] = kN;
      m.strides[0] = 0, m.strides[1] = kN, m.strides[2] = 1;
      return m;
    };
    call.a = operand(a);
    call.b = operand(b);
    call.c = operand(c);
    ms = medianMilliseconds(10, [&] { gemm(call); }, "measuring the gemm rate");
  } catch (...) {
    release(a);
    release(b);
    release(c);
    throw;
  }
  release(a);
  release(b);
  release(c);
  return 2.0 * double(kN) * double(kN) * double(kN) / (ms * 1e9);
}

} // namespace magi::runtime
