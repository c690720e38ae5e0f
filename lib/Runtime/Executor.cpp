//===- Executor.cpp - Run an artifact on an abstract device ---------------===//

#include "magi/Runtime/Executor.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <future>
#include <limits>
#include <memory>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>
#include <type_traits>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace magi::runtime {

namespace {

// The alignment every buffer a kernel receives must have.
constexpr int64_t kKernelBufferAlignment = 16;

std::string inputLabel(const GraphInput &input, size_t userIndex) {
  return "user input " + std::to_string(userIndex) + " ('" + input.name + "')";
}

} // namespace

std::map<std::string, int64_t> bindInputs(const Graph &graph,
                                          const std::vector<HostTensor> &userInputs) {
  std::vector<InputSignature> signatures;
  for (const HostTensor &t : userInputs)
    signatures.push_back(InputSignature{t.dtype, t.shape});
  return bindInputs(graph, signatures);
}

std::map<std::string, int64_t> bindInputs(const Graph &graph,
                                          const std::vector<InputSignature> &userInputs) {
  // Graph input index -> position among the user inputs.
  std::vector<size_t> userPosition(graph.inputs.size(), 0);
  std::vector<size_t> userIndices;
  for (size_t i = 0; i < graph.inputs.size(); ++i)
    if (!graph.inputs[i].isWeight()) {
      userPosition[i] = userIndices.size();
      userIndices.push_back(i);
    }
  if (userInputs.size() != userIndices.size())
    throw RuntimeError("the graph takes " + std::to_string(userIndices.size()) +
                       " user input(s), but " + std::to_string(userInputs.size()) +
                       " were given");

  // Dtypes and ranks first: a symbol's dimension must exist to be read.
  for (size_t u = 0; u < userIndices.size(); ++u) {
    const GraphInput &input = graph.inputs[userIndices[u]];
    const InputSignature &given = userInputs[u];
    if (given.dtype != input.dtype)
      throw RuntimeError(inputLabel(input, u) + " must be " + manifestName(input.dtype) + " (" +
                         fixtureName(input.dtype) + "), but " + fixtureName(given.dtype) +
                         " was given");
    if (given.shape.size() != input.shape.size())
      throw RuntimeError(inputLabel(input, u) + " must have rank " +
                         std::to_string(input.shape.size()) + ", but " +
                         formatShape(given.shape) + " was given");
  }

  std::map<std::string, int64_t> symbols;
  for (const GraphSymbol &symbol : graph.symbols) {
    if (symbol.fromStep())
      continue; // bound when its step has run
    size_t u = userPosition[symbol.input];
    int64_t value = userInputs[u].shape[symbol.dim];
    const GraphInput &input = graph.inputs[symbol.input];
    if (!symbol.inRange(value))
      throw RuntimeError(inputLabel(input, u) + ": size " + std::to_string(value) +
                         " of dimension " + std::to_string(symbol.dim) + " (symbol " +
                         symbol.name + ") is outside " + symbol.rangeText());
    symbols[symbol.name] = value;
  }

  auto lookup = [&](const std::string &name) -> std::optional<int64_t> {
    auto it = symbols.find(name);
    if (it == symbols.end())
      return std::nullopt;
    return it->second;
  };
  for (size_t u = 0; u < userIndices.size(); ++u) {
    const GraphInput &input = graph.inputs[userIndices[u]];
    const InputSignature &given = userInputs[u];
    std::vector<int64_t> expected;
    for (const Expr &size : input.shape)
      expected.push_back(size.evaluate(lookup, "shape of " + inputLabel(input, u)));
    if (expected != given.shape) {
      std::string wanted = "[";
      for (size_t d = 0; d < input.shape.size(); ++d)
        wanted += (d ? ", " : "") + input.shape[d].text() +
                  (input.shape[d].isConstant() ? "" : " = " + std::to_string(expected[d]));
      throw RuntimeError(inputLabel(input, u) + " must have shape " + wanted + "], but " +
                         formatShape(given.shape) + " was given");
    }
  }
  // torch.export's runtime assertions on the sizes (format 6); those over
  // a symbol a step defines wait for it.
  checkAssertions(graph, symbols, "");
  return symbols;
}

void checkAssertions(const Graph &graph, const std::map<std::string, int64_t> &symbols,
                     const std::string &using_) {
  for (const GraphCheck &check : graph.checks) {
    std::vector<std::string> names = check.expr.names();
    bool bound = std::all_of(names.begin(), names.end(),
                             [&](const std::string &n) { return symbols.count(n) != 0; });
    if (!bound || (!using_.empty() && std::find(names.begin(), names.end(), using_) == names.end()))
      continue;
    auto lookup = [&](const std::string &name) -> std::optional<int64_t> {
      return symbols.at(name);
    };
    if (check.expr.evaluate(lookup, "graph check") != 0)
      continue;
    std::string values;
    std::set<std::string> named;
    for (const std::string &name : names)
      if (named.insert(name).second)
        values += (values.empty() ? " with " : ", ") + name + " = " +
                  std::to_string(symbols.at(name));
    throw RuntimeError("runtime assertion failed: " + check.message + " (" +
                       check.expr.text() + values + ")");
  }
}

void checkGemm(const GemmCall &call, int64_t biasSize, const std::string &where) {
  auto fail = [&](const std::string &message) { throw RuntimeError(where + ": gemm: " + message); };
  const MatrixOperand *operands[] = {&call.a, &call.b, &call.c};
  const char *names[] = {"a", "b", "c"};
  for (int i = 0; i < 3; ++i) {
    const MatrixOperand &m = *operands[i];
    for (int d = 0; d < 3; ++d)
      if (m.sizes[d] < 0)
        fail(std::string(names[i]) + " has a negative size");
    bool rowMajor = m.strides[2] == 1 || m.sizes[2] <= 1;
    bool colMajor = m.strides[1] == 1 || m.sizes[1] <= 1;
    if (!rowMajor && !colMajor)
      fail(std::string(names[i]) + " has strides [" + std::to_string(m.strides[0]) + ", " +
           std::to_string(m.strides[1]) + ", " + std::to_string(m.strides[2]) +
           "]: its last or second-to-last stride must be 1");
    if (m.strides[1] < 0 || m.strides[2] < 0 || m.strides[0] < 0)
      fail(std::string(names[i]) + " has a negative stride");
  }
  const MatrixOperand &a = call.a, &b = call.b, &c = call.c;
  int64_t batch = c.sizes[0];
  if ((a.sizes[0] != batch && a.sizes[0] != 1) || (b.sizes[0] != batch && b.sizes[0] != 1))
    fail("batch sizes a " + std::to_string(a.sizes[0]) + ", b " + std::to_string(b.sizes[0]) +
         ", c " + std::to_string(batch) + " do not agree");
  if (a.sizes[2] != b.sizes[1])
    fail("a is [.., " + std::to_string(a.sizes[1]) + ", " + std::to_string(a.sizes[2]) +
         "] but b is [.., " + std::to_string(b.sizes[1]) + ", " + std::to_string(b.sizes[2]) + "]");
  if (c.sizes[1] != a.sizes[1] || c.sizes[2] != b.sizes[2])
    fail("c is [.., " + std::to_string(c.sizes[1]) + ", " + std::to_string(c.sizes[2]) +
         "] but a x b is [.., " + std::to_string(a.sizes[1]) + ", " + std::to_string(b.sizes[2]) +
         "]");
  if (batch > 1 && c.strides[0] == 0)
    fail("c has batch stride 0: the batches would overwrite each other");
  if (call.hasBias && biasSize != c.sizes[2])
    fail("the bias has " + std::to_string(biasSize) + " elements, but n = " +
         std::to_string(c.sizes[2]));
}

namespace {

// Appends values to a signature as raw bytes; strings with their length, so
// that no two different sequences give the same bytes.
class SignatureWriter {
public:
  template <typename T> void add(const T &value) {
    static_assert(std::is_trivially_copyable<T>::value, "raw bytes only");
    bytes_.append(reinterpret_cast<const char *>(&value), sizeof(value));
  }
  void addString(const std::string &text) {
    add(uint64_t(text.size()));
    bytes_ += text;
  }
  void addOperand(const MatrixOperand &m) {
    add(m.ptr);
    for (int i = 0; i < 3; ++i) {
      add(m.sizes[i]);
      add(m.strides[i]);
    }
  }
  std::string take() { return std::move(bytes_); }

private:
  std::string bytes_;
};

} // namespace

bool isVariantForAnySize(const Piece &piece, const Variant &variant) {
  return variant.symbols.empty() &&
         std::any_of(piece.args.begin(), piece.args.end(),
                     [](const ValueType &arg) { return !arg.isTensor; });
}

std::string deviceWorkSignature(size_t variantIndex, const std::vector<DeviceOp> &ops) {
  SignatureWriter w;
  w.add(uint64_t(variantIndex));
  w.add(uint64_t(ops.size()));
  for (const DeviceOp &op : ops) {
    w.add(int32_t(op.kind));
    w.add(op.skipped);
    if (op.kind == DeviceOp::Kind::Launch) {
      const LaunchCall &call = op.launch;
      w.add(int32_t(op.module));
      w.addString(call.kernel);
      for (int i = 0; i < 3; ++i) {
        w.add(call.grid[i]);
        w.add(call.block[i]);
      }
      w.add(call.sharedBytes);
      w.add(uint64_t(call.params.size()));
      for (const KernelParam &param : call.params) {
        w.add(param.size);
        w.addString(std::string(reinterpret_cast<const char *>(param.bytes), param.size));
      }
    } else {
      const GemmCall &call = op.gemm;
      w.add(int32_t(call.dtype));
      w.add(int32_t(call.cDtype));
      w.addOperand(call.a);
      w.addOperand(call.b);
      w.addOperand(call.c);
      w.add(call.hasBias);
      w.add(call.bias);
    }
  }
  return w.take();
}

const char *stepModeName(StepMode mode) {
  switch (mode) {
  case StepMode::Eager: return "eager";
  case StepMode::Capture: return "captured";
  case StepMode::Replay: return "replayed";
  }
  return "?";
}

StepMode chooseStepMode(const StepGraphState &state, const std::string &signature) {
  for (const StepGraphState::Captured &captured : state.graphs)
    if (captured.signature == signature)
      return StepMode::Replay;
  const std::vector<std::string> &recent = state.eagerSignatures;
  return std::find(recent.begin(), recent.end(), signature) != recent.end() ? StepMode::Capture
                                                                            : StepMode::Eager;
}

void rememberEagerCall(StepGraphState &state, std::string signature) {
  std::vector<std::string> &recent = state.eagerSignatures;
  recent.erase(std::remove(recent.begin(), recent.end(), signature), recent.end());
  recent.push_back(std::move(signature));
  if (recent.size() > kMostGraphsPerStep)
    recent.erase(recent.begin());
}

namespace {

void releaseGraphs(Device &device, StepGraphState &state) {
  for (const StepGraphState::Captured &captured : state.graphs)
    device.releaseGraph(captured.graph);
  state = StepGraphState{};
}

// Keeps a graph captured for `signature`, releasing the least recently used
// one beyond kMostGraphsPerStep.
void rememberGraph(Device &device, StepGraphState &state, std::string signature, int graph) {
  state.graphs.push_back({std::move(signature), graph});
  if (state.graphs.size() > kMostGraphsPerStep) {
    device.releaseGraph(state.graphs.front().graph);
    state.graphs.erase(state.graphs.begin());
  }
}

// The graph captured for `signature` (chooseStepMode said Replay), now the
// most recently used.
int usedGraph(StepGraphState &state, const std::string &signature) {
  auto it = std::find_if(state.graphs.begin(), state.graphs.end(),
                         [&](const StepGraphState::Captured &c) { return c.signature == signature; });
  std::rotate(it, it + 1, state.graphs.end());
  return state.graphs.back().graph;
}

} // namespace

GraphExecutor::GraphExecutor(const Manifest &manifest, std::string artifactDir, Device &device,
                             ExecutorOptions options)
    : manifest_(manifest), dir_(std::move(artifactDir)), device_(device), options_(options) {
  inputs_.resize(manifest_.graph.inputs.size());
  stepGraphs_.resize(manifest_.graph.steps.size());
  preparedSteps_.resize(manifest_.graph.steps.size());
  loopValues_.resize(manifest_.graph.loops.size());
  branchValues_.resize(manifest_.graph.branches.size());
  partItems_.resize(manifest_.graph.numParts());
  partItems_[0] = manifest_.graph.items(GraphPart{});
  for (size_t l = 0; l < manifest_.graph.loops.size(); ++l)
    for (int64_t p : {0, 1}) {
      GraphPart part{GraphPart::Owner::Loop, int64_t(l), p};
      partItems_[manifest_.graph.partId(part)] = manifest_.graph.items(part);
    }
  for (size_t b = 0; b < manifest_.graph.branches.size(); ++b)
    for (int64_t p : {0, 1}) {
      GraphPart part{GraphPart::Owner::Branch, int64_t(b), p};
      partItems_[manifest_.graph.partId(part)] = manifest_.graph.items(part);
    }
  for (const Piece &piece : manifest_.pieces)
    for (const Variant &variant : piece.variants)
      for (const PieceResult &result : variant.results)
        graphReads_ |= result.isRead;
  if (options_.padToCompileSizes)
    padding_ = planPadding(manifest_);
}

GraphExecutor::~GraphExecutor() {
  // Device errors while tearing down are not worth a second report.
  try {
    for (StepGraphState &state : stepGraphs_)
      releaseGraphs(device_, state);
    releaseGraphs(device_, wholeGraph_);
    if (arena_.ptr)
      device_.release(arena_.ptr);
    for (auto &entry : inputAllocations_)
      device_.release(entry.second.ptr);
    for (auto &entry : stagedInputs_)
      device_.release(entry.second.ptr);
    for (auto &entry : paddedInputs_)
      device_.release(entry.second.ptr);
    for (auto &entry : slicedOutputs_)
      device_.release(entry.second.ptr);
    if (weights_)
      device_.release(weights_);
  } catch (const std::exception &) {
  }
}

namespace {

// A weight file mapped read-only for the duration of uploadWeights.
class MappedFile {
public:
  MappedFile(const std::string &path, const WeightFile &file, size_t index,
             const std::string &firstWeight)
      : path_(path) {
    std::string which = "weights.files[" + std::to_string(index) + "], whose first weight is '" +
                        firstWeight + "'";
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      throw RuntimeError("cannot open '" + path + "' (" + which + "): " + std::strerror(errno));
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      throw RuntimeError("'" + path + "' (" + which + ") is not a regular file");
    }
    size_ = int64_t(st.st_size);
    if (size_ != file.bytes) {
      ::close(fd);
      throw RuntimeError("'" + path + "' changed since it was compiled: it holds " +
                         std::to_string(size_) + " bytes, but the artifact recorded " +
                         std::to_string(file.bytes) + " (" + which + ")");
    }
    if (size_ > 0) {
      void *map = ::mmap(nullptr, size_t(size_), PROT_READ, MAP_PRIVATE, fd, 0);
      int error = errno;
      if (map == MAP_FAILED) {
        ::close(fd);
        throw RuntimeError("cannot map '" + path + "' (" + which + "): " + std::strerror(error));
      }
      data_ = static_cast<const unsigned char *>(map);
      // Storages are read in file order; the advice is only a hint.
      ::madvise(map, size_t(size_), MADV_SEQUENTIAL);
    }
    fd_ = fd; // kept for readInto
  }
  ~MappedFile() {
    if (data_)
      ::munmap(const_cast<unsigned char *>(data_), size_t(size_));
    ::close(fd_);
  }
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;

  const unsigned char *data() const { return data_; }
  int64_t size() const { return size_; }
  const std::string &path() const { return path_; }

  // Reads bytes [offset, offset + bytes) into `dst` with pread: from the
  // page cache, without faulting the mapping's pages in one by one. Safe
  // to call from several threads at once. `what` names the weight and
  // where it is (the file included).
  void readInto(unsigned char *dst, int64_t offset, int64_t bytes, const std::string &what) const {
    while (bytes > 0) {
      ssize_t got = ::pread(fd_, dst, size_t(bytes), off_t(offset));
      int error = errno;
      if (got < 0 && error == EINTR)
        continue;
      if (got <= 0)
        throw RuntimeError("cannot read " + what + " at byte " + std::to_string(offset) + ": " +
                           (got < 0 ? std::string(std::strerror(error))
                                    : std::string("the file ended early (it changed while loading)")));
      dst += got;
      offset += got;
      bytes -= got;
    }
  }

private:
  std::string path_;
  const unsigned char *data_ = nullptr;
  int64_t size_ = 0;
  int fd_ = -1;
};

// A few threads that run the pieces of one job at a time, the calling
// thread among them: weight loading hands them every chunk of every large
// storage, too many jobs for a thread start each.
class WorkerPool {
public:
  explicit WorkerPool(unsigned threads) {
    try {
      for (unsigned t = 1; t < threads; ++t)
        workers_.emplace_back([this] { work(); });
    } catch (const std::system_error &) {
      // No more threads: the ones started and the caller do the work.
    }
  }
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread &worker : workers_)
      worker.join();
  }
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;

  // The threads that run pieces: the workers and the caller of run().
  unsigned threads() const { return unsigned(workers_.size()) + 1; }

  // Runs piece(0) .. piece(count - 1), in any order and on any thread, and
  // returns when all are done; the first exception thrown is rethrown here
  // (the pieces not yet started are then skipped).
  void run(size_t count, const std::function<void(size_t)> &piece) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      piece_ = &piece;
      count_ = count;
      next_ = 0;
      unfinished_ = count;
      error_ = nullptr;
      ++job_;
    }
    wake_.notify_all();
    runPieces();
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return unfinished_ == 0; });
    piece_ = nullptr;
    if (error_)
      std::rethrow_exception(error_);
  }

private:
  void work() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || job_ != seen; });
        if (stopping_)
          return;
        seen = job_;
      }
      runPieces();
    }
  }
  void runPieces() {
    for (;;) {
      size_t index;
      const std::function<void(size_t)> *piece;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!piece_ || next_ >= count_)
          return;
        index = next_++;
        piece = piece_;
      }
      std::exception_ptr error;
      try {
        (*piece)(index);
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mutex_);
      if (error && !error_) {
        error_ = error;
        unfinished_ -= count_ - next_; // the rest are skipped
        next_ = count_;
      }
      if (--unfinished_ == 0)
        done_.notify_all();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(size_t)> *piece_ = nullptr;
  size_t count_ = 0, next_ = 0, unfinished_ = 0;
  uint64_t job_ = 0;
  std::exception_ptr error_;
  bool stopping_ = false;
};

// Storages at least this large have their CRC-32 computed on worker
// threads while their weights are uploaded, in pieces of kCrcChunkBytes: a
// LLaMA layer's storages (32-90 MB) then keep 16 threads busy. On an H200
// machine (16 cores, zlib's CRC at 3 GB/s a thread) 16 MB pieces loaded the
// 4-layer model at 5.6 GB/s, 2 MB pieces at 9.1, no CRC at all at 11
// (docs/runtime.md).
constexpr int64_t kOverlappedCrcBytes = int64_t(4) << 20;
constexpr size_t kCrcChunkBytes = size_t(2) << 20;

// A stored storage at least this large that is exactly one dense weight
// (every storage of a Hugging Face model) is streamed instead: worker
// threads pread its 2 MB pieces straight into the device's upload chunks
// and take each piece's CRC-32 there, while the piece is still in the CPU's
// cache, so the bytes cross memory once for both; the mapping is never
// touched. Copying was never the cost (load_probe: 74-100 GB/s on 16
// cores), the CRC was (docs/runtime.md).
constexpr int64_t kStreamedStorageBytes = int64_t(4) << 20;
// The pieces of an upload chunk are about kCrcChunkBytes, balanced over
// the pool's threads (balancedPieceBytes), but not below this.
constexpr int64_t kMinPieceBytes = int64_t(256) << 10;

} // namespace

int64_t balancedPieceBytes(int64_t bytes, unsigned threads, int64_t targetBytes,
                           int64_t minBytes) {
  constexpr int64_t kPage = 4096;
  if (bytes <= 0)
    return 1;
  int64_t perRound = int64_t(std::max(1u, threads));
  int64_t roundBytes = std::max<int64_t>(1, targetBytes) * perRound;
  int64_t rounds = (bytes + roundBytes - 1) / roundBytes;
  int64_t pieces = rounds * perRound;
  int64_t piece = (bytes + pieces - 1) / pieces;
  piece = std::max(piece, minBytes);
  return std::max<int64_t>(kPage, (piece + kPage - 1) / kPage * kPage);
}

namespace {

std::string hex32(uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08x", v);
  return text;
}

std::vector<int64_t> staticShape(const GraphInput &input) {
  std::vector<int64_t> shape;
  for (const Expr &size : input.shape)
    shape.push_back(size.evaluate(nullptr, "weight " + input.name));
  return shape;
}

} // namespace

std::string WeightLoadStats::describe() const {
  char text[160];
  double gb = double(bytesUploaded) / 1e9;
  double rate = seconds > 0 ? gb / seconds : 0.0;
  std::snprintf(text, sizeof(text), "weights: %lld tensors, %.3f GB from %lld file(s) in %.3f s (%.2f GB/s)",
                static_cast<long long>(tensors), gb, static_cast<long long>(files), seconds, rate);
  return text;
}

std::string RunMemoryStats::describe() const {
  char text[200];
  std::snprintf(text, sizeof(text),
                "run buffers: %lld buffers, %.3f GB in all, live at most %.3f GB, placed in %.3f GB",
                static_cast<long long>(buffers), double(bufferBytes) / 1e9,
                double(peakLiveBytes) / 1e9, double(arenaBytes) / 1e9);
  return text;
}

void Device::uploadFilled(DevicePtr dst, int64_t bytes, const ChunkFiller &fill) {
  constexpr int64_t kChunkBytes = int64_t(64) << 20;
  std::vector<unsigned char> host(size_t(std::min(bytes, kChunkBytes)));
  for (int64_t done = 0; done < bytes;) {
    int64_t chunk = std::min(kChunkBytes, bytes - done);
    fill(host.data(), done, chunk);
    upload(dst + DevicePtr(done), host.data(), chunk);
    done += chunk;
  }
}

RunMemoryStats placeBuffers(const std::vector<BufferLifetime> &buffers,
                            std::vector<int64_t> &offsets) {
  constexpr int64_t kAlignment = 256;
  RunMemoryStats stats;
  stats.buffers = int64_t(buffers.size());
  std::vector<int64_t> sizes;
  for (const BufferLifetime &b : buffers) {
    // An empty buffer still gets an address of its own.
    int64_t bytes = std::max<int64_t>(b.bytes, 1);
    if (bytes > std::numeric_limits<int64_t>::max() - kAlignment)
      throw RuntimeError("a plan buffer of " + std::to_string(b.bytes) + " bytes is too large");
    sizes.push_back((bytes + kAlignment - 1) / kAlignment * kAlignment);
    // Every offset is below this sum, so nothing further can overflow.
    if (__builtin_add_overflow(stats.bufferBytes, sizes.back(), &stats.bufferBytes))
      throw RuntimeError("the run's plan buffers add up to more than 2^63 bytes");
  }
  // The lower bound: the most bytes live at one time (a sweep over starts
  // and ends; an end at t frees after everything that starts at t).
  std::vector<std::pair<int64_t, int64_t>> events; // (time, +bytes at a start, -bytes at an end)
  for (size_t i = 0; i < buffers.size(); ++i) {
    events.push_back({buffers[i].start, sizes[i]});
    events.push_back({buffers[i].end, -sizes[i]});
  }
  std::sort(events.begin(), events.end(), [](const auto &a, const auto &b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  });
  int64_t live = 0;
  for (const auto &event : events) {
    live += event.second;
    stats.peakLiveBytes = std::max(stats.peakLiveBytes, live);
  }

  std::vector<size_t> order(buffers.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return sizes[a] != sizes[b] ? sizes[a] > sizes[b] : buffers[a].start < buffers[b].start;
  });
  offsets.assign(buffers.size(), 0);
  std::vector<size_t> placed;
  std::vector<std::pair<int64_t, int64_t>> taken; // [begin, end) of the overlapping placed ones
  for (size_t i : order) {
    taken.clear();
    for (size_t j : placed)
      if (buffers[j].start <= buffers[i].end && buffers[i].start <= buffers[j].end)
        taken.push_back({offsets[j], offsets[j] + sizes[j]});
    std::sort(taken.begin(), taken.end());
    int64_t offset = 0;
    for (const auto &range : taken) {
      if (offset + sizes[i] <= range.first)
        break;
      offset = std::max(offset, range.second);
    }
    offsets[i] = offset;
    stats.arenaBytes = std::max(stats.arenaBytes, offset + sizes[i]);
    placed.push_back(i);
  }
  return stats;
}

uint32_t crc32Parallel(const void *data, size_t bytes, size_t chunkBytes, unsigned threads) {
  chunkBytes = std::max<size_t>(chunkBytes, 1);
  size_t chunks = bytes / chunkBytes + (bytes % chunkBytes != 0);
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  threads = unsigned(std::min<size_t>(threads, chunks));
  if (chunks < 2 || threads < 2)
    return crc32Update(0, data, bytes);
  const auto *base = static_cast<const unsigned char *>(data);
  std::vector<uint32_t> crcs(chunks, 0);
  // Chunks are handed out in order, so that the workers read the data
  // roughly front to back together (what a sequential mapping reads ahead).
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t c; (c = next.fetch_add(1)) < chunks;) {
      size_t begin = c * chunkBytes;
      crcs[c] = crc32Update(0, base + begin, std::min(chunkBytes, bytes - begin));
    }
  };
  std::vector<std::thread> workers;
  workers.reserve(threads - 1);
  try {
    for (unsigned t = 1; t < threads; ++t)
      workers.emplace_back(work);
  } catch (const std::system_error &) {
    // No more threads: the ones started and this one do the rest.
  }
  work();
  for (std::thread &worker : workers)
    worker.join();
  uint32_t crc = crcs[0];
  for (size_t c = 1; c < chunks; ++c)
    crc = crc32Combine(crc, crcs[c], int64_t(std::min(chunkBytes, bytes - c * chunkBytes)));
  return crc;
}

bool isDenseView(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides) {
  if (shape.size() != strides.size())
    return false;
  int64_t expected = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0)
      return true;
    if (shape[d] != 1 && strides[d] != expected)
      return false;
    expected *= shape[d];
  }
  return true;
}

namespace {

template <typename T>
void copyStridedRow(unsigned char *out, const unsigned char *src, int64_t count, int64_t stride) {
  for (int64_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, src + i * stride * int64_t(sizeof(T)), sizeof(T));
    std::memcpy(out + i * int64_t(sizeof(T)), &v, sizeof(T));
  }
}

// One block of a transposed copy: rows [i0, i1) of dimension p (source
// stride 1, destination stride `outStride`) by columns [j0, j1) of the last
// dimension (source stride `srcStride`, destination stride 1), in elements.
template <typename T>
void copyBlock(unsigned char *out, const unsigned char *src, int64_t i0, int64_t i1, int64_t j0,
               int64_t j1, int64_t outStride, int64_t srcStride) {
  constexpr int64_t size = int64_t(sizeof(T));
  for (int64_t j = j0; j < j1; ++j)
    for (int64_t i = i0; i < i1; ++i) {
      T v;
      std::memcpy(&v, src + (i + j * srcStride) * size, sizeof(T));
      std::memcpy(out + (i * outStride + j) * size, &v, sizeof(T));
    }
}

// Calls `f(srcOffset, outOffset)` (in elements) for every index of the
// dimensions of `shape` other than those in `skip`, in row-major order.
template <typename F>
void forEachOuterIndex(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides,
                       const std::vector<int64_t> &outStrides, const std::vector<bool> &skip,
                       int64_t storageOffset, F f) {
  size_t rank = shape.size();
  std::vector<int64_t> index(rank, 0);
  int64_t at = storageOffset, outAt = 0;
  while (true) {
    f(at, outAt);
    size_t d = rank;
    while (d-- > 0) {
      if (skip[d])
        continue;
      if (++index[d] < shape[d]) {
        at += strides[d];
        outAt += outStrides[d];
        break;
      }
      at -= (shape[d] - 1) * strides[d];
      outAt -= (shape[d] - 1) * outStrides[d];
      index[d] = 0;
    }
    if (d == size_t(-1))
      return;
  }
}

} // namespace

void gatherView(const unsigned char *storage, int64_t elementSize,
                const std::vector<int64_t> &shape, const std::vector<int64_t> &strides,
                int64_t storageOffset, unsigned char *out) {
  int64_t elements = numElements(shape);
  if (elements == 0)
    return;
  size_t rank = shape.size();
  if (rank == 0) {
    std::memcpy(out, storage + storageOffset * elementSize, size_t(elementSize));
    return;
  }
  std::vector<int64_t> outStrides(rank, 1);
  for (size_t d = rank - 1; d-- > 0;)
    outStrides[d] = outStrides[d + 1] * shape[d + 1];
  int64_t inner = shape[rank - 1], innerStride = strides[rank - 1];

  // A transpose (another dimension p has stride 1): copied in blocks of
  // kBlock x kBlock elements, each reading kBlock runs along p and writing
  // kBlock rows, so that neither side touches a new page per element.
  constexpr int64_t kBlock = 64;
  size_t p = rank;
  if (innerStride != 1 && inner > 1 && elementSize <= 8 &&
      (elementSize & (elementSize - 1)) == 0)
    for (size_t d = 0; d + 1 < rank; ++d)
      if (strides[d] == 1 && shape[d] > 1)
        p = d;
  if (p < rank) {
    std::vector<bool> skip(rank, false);
    skip[p] = skip[rank - 1] = true;
    int64_t rows = shape[p], outStride = outStrides[p];
    forEachOuterIndex(shape, strides, outStrides, skip, storageOffset,
                      [&](int64_t at, int64_t outAt) {
      const unsigned char *src = storage + at * elementSize;
      unsigned char *dst = out + outAt * elementSize;
      for (int64_t i0 = 0; i0 < rows; i0 += kBlock)
        for (int64_t j0 = 0; j0 < inner; j0 += kBlock) {
          int64_t i1 = std::min(rows, i0 + kBlock), j1 = std::min(inner, j0 + kBlock);
          switch (elementSize) {
          case 1: copyBlock<uint8_t>(dst, src, i0, i1, j0, j1, outStride, innerStride); break;
          case 2: copyBlock<uint16_t>(dst, src, i0, i1, j0, j1, outStride, innerStride); break;
          case 4: copyBlock<uint32_t>(dst, src, i0, i1, j0, j1, outStride, innerStride); break;
          default: copyBlock<uint64_t>(dst, src, i0, i1, j0, j1, outStride, innerStride); break;
          }
        }
    });
    return;
  }

  // Otherwise row by row along the last dimension.
  std::vector<bool> skip(rank, false);
  skip[rank - 1] = true;
  int64_t rowBytes = inner * elementSize;
  forEachOuterIndex(shape, strides, outStrides, skip, storageOffset,
                    [&](int64_t at, int64_t outAt) {
    const unsigned char *src = storage + at * elementSize;
    unsigned char *dst = out + outAt * elementSize;
    if (innerStride == 1 || inner == 1) {
      std::memcpy(dst, src, size_t(rowBytes));
      return;
    }
    switch (elementSize) {
    case 1: copyStridedRow<uint8_t>(dst, src, inner, innerStride); break;
    case 2: copyStridedRow<uint16_t>(dst, src, inner, innerStride); break;
    case 4: copyStridedRow<uint32_t>(dst, src, inner, innerStride); break;
    case 8: copyStridedRow<uint64_t>(dst, src, inner, innerStride); break;
    default:
      for (int64_t i = 0; i < inner; ++i)
        std::memcpy(dst + i * elementSize, src + i * innerStride * elementSize,
                    size_t(elementSize));
    }
  });
}

std::string weightFilePath(const std::string &artifactDir, const WeightFile &file) {
  if (!file.path.empty() && file.path[0] == '/')
    return file.path;
  return artifactDir + "/" + file.path;
}

void rebindWeights(Manifest &manifest, const std::string &archivePath) {
  std::vector<GraphInput> &inputs = manifest.graph.inputs;
  for (const GraphInput &input : inputs)
    if (input.weight && input.weight->entry.empty()) {
      const WeightRef &w = *input.weight;
      std::string file = w.file >= 0 && w.file < int64_t(manifest.weightFiles.size())
                             ? manifest.weightFiles[size_t(w.file)].path
                             : "its weights file";
      throw RuntimeError("the artifact's weights are packed into its own " + file +
                         " (magi-compile --pack-weights), not read from zip entries: weight '" +
                         input.name +
                         "' has no entry name to look up in another archive, so the artifact "
                         "cannot be rebound to '" + archivePath +
                         "' (compile it without --pack-weights)");
    }

  ZipDirectory directory = readZipDirectory(archivePath);
  // A torch.export archive's entries all sit in one folder named after the
  // file ("llama7b-1l-zero/data/weights/weight_3"): names are compared
  // without it.
  std::map<std::string, const ZipEntry *> byName;
  std::set<std::string> ambiguous;
  for (const ZipEntry &entry : directory.entries)
    if (!byName.emplace(withoutFolder(entry.name), &entry).second)
      ambiguous.insert(withoutFolder(entry.name));

  std::vector<std::string> problems;
  std::vector<std::optional<WeightRef>> rebound(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const GraphInput &input = inputs[i];
    if (!input.weight)
      continue;
    const WeightRef &old = *input.weight;
    std::string name = withoutFolder(old.entry);
    std::string what = "weight '" + input.name + "' (entry '" + old.entry + "')";
    if (ambiguous.count(name)) {
      problems.push_back(what + ": more than one entry of the archive is named '<folder>/" +
                         name + "'");
      continue;
    }
    auto found = byName.find(name);
    if (found == byName.end()) {
      problems.push_back(what + ": the archive has no entry '<folder>/" + name + "'");
      continue;
    }
    const ZipEntry &entry = *found->second;
    std::vector<int64_t> shape = staticShape(input);
    int64_t dense = 0;
    if (std::optional<std::string> bad = checkView(elementSize(input.dtype), shape, old.strides,
                                                   old.storageOffset, entry.bytes, dense)) {
      problems.push_back(what + ": its view (" + manifestName(input.dtype) + " " +
                         formatShape(shape) + ", storage offset " +
                         std::to_string(old.storageOffset) + ", strides " +
                         formatShape(old.strides) + ") does not fit entry '" + entry.name +
                         "', which holds " + std::to_string(entry.bytes) + " bytes: it " + *bad);
      continue;
    }
    WeightRef w = old;
    w.setStorage(0, entry);
    rebound[i] = std::move(w);
  }
  if (!problems.empty()) {
    std::string message = "'" + archivePath + "' does not hold the artifact's weights (" +
                          std::to_string(problems.size()) + " problem(s)):";
    for (const std::string &problem : problems)
      message += "\n  " + problem;
    throw RuntimeError(message);
  }

  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(archivePath, ec);
  manifest.weightFiles = {WeightFile{ec ? archivePath : absolute.string(), directory.fileBytes}};
  for (size_t i = 0; i < inputs.size(); ++i)
    if (rebound[i])
      inputs[i].weight = std::move(rebound[i]);
}

void GraphExecutor::uploadWeights() {
  for (const GraphInput &input : manifest_.graph.inputs)
    if (input.isWeight() && !input.isConcatenation() && !input.weight)
      throw RuntimeError("the artifact has no bytes for weight " + input.name +
                         " (it was compiled with --no-weights: it describes the kernels but "
                         "cannot run)");
  auto start = std::chrono::steady_clock::now();
  weightStats_ = WeightLoadStats{};

  // The plan: each weight dense at a 256-byte aligned offset of one
  // allocation, and the distinct storages they view.
  struct Planned {
    size_t input = 0;
    std::vector<int64_t> shape;
    int64_t denseBytes = 0;
    int64_t deviceOffset = 0;
  };
  using StorageKey = std::tuple<int64_t, int64_t, int64_t, int64_t, int, uint32_t>;
  struct Storage {
    const WeightRef *ref = nullptr;    // its first weight's reference
    std::vector<size_t> weights;       // into `planned`
  };
  std::vector<Planned> planned;
  std::map<StorageKey, Storage> storages; // in file, then offset order
  std::vector<std::optional<size_t>> firstWeightOfFile(manifest_.weightFiles.size());
  int64_t totalBytes = 0;
  // The parts of each concatenation first, one right after another (the
  // manifest reader checked that each is a part once), then the rest.
  std::vector<std::pair<size_t, bool>> order; // (input, follows the previous)
  std::vector<bool> isPart(manifest_.graph.inputs.size(), false);
  for (const GraphInput &input : manifest_.graph.inputs)
    for (size_t k = 0; k < input.concatOf.size(); ++k) {
      order.emplace_back(size_t(input.concatOf[k]), k > 0);
      isPart[size_t(input.concatOf[k])] = true;
    }
  for (size_t i = 0; i < manifest_.graph.inputs.size(); ++i)
    if (manifest_.graph.inputs[i].isWeight() && !manifest_.graph.inputs[i].isConcatenation() &&
        !isPart[i])
      order.emplace_back(i, false);
  for (auto [i, follows] : order) {
    const GraphInput &input = manifest_.graph.inputs[i];
    const WeightRef &w = *input.weight;
    if (w.file < 0 || w.file >= int64_t(manifest_.weightFiles.size()))
      throw RuntimeError("weight '" + input.name + "' refers to weight file " +
                         std::to_string(w.file) + ", which does not exist");
    Planned p;
    p.input = i;
    p.shape = staticShape(input);
    // The view must lie inside its storage (rebinding may have changed it).
    if (std::optional<std::string> bad = checkView(elementSize(input.dtype), p.shape, w.strides,
                                                   w.storageOffset, w.bytes, p.denseBytes))
      throw RuntimeError("weight '" + input.name + "': its view (" + manifestName(input.dtype) +
                         " " + formatShape(p.shape) + ", storage offset " +
                         std::to_string(w.storageOffset) + ", strides " + formatShape(w.strides) +
                         ") " + *bad);
    int64_t aligned = follows ? totalBytes : (totalBytes + 255) / 256 * 256;
    if (aligned < totalBytes || p.denseBytes > std::numeric_limits<int64_t>::max() - aligned)
      throw RuntimeError("the weights need more bytes than 64 bits count");
    p.deviceOffset = aligned;
    totalBytes = aligned + p.denseBytes;
    if (!firstWeightOfFile[size_t(w.file)])
      firstWeightOfFile[size_t(w.file)] = planned.size();
    Storage &storage = storages[StorageKey(w.file, w.offset, w.storedBytes, w.bytes,
                                           int(w.method), w.crc32)];
    if (!storage.ref)
      storage.ref = &w;
    storage.weights.push_back(planned.size());
    planned.push_back(std::move(p));
  }
  if (planned.empty())
    return;

  // Every file is opened, checked and mapped before anything is uploaded.
  std::vector<std::unique_ptr<MappedFile>> files(manifest_.weightFiles.size());
  for (size_t f = 0; f < files.size(); ++f) {
    if (!firstWeightOfFile[f])
      continue;
    const GraphInput &first = manifest_.graph.inputs[planned[*firstWeightOfFile[f]].input];
    files[f] = std::make_unique<MappedFile>(weightFilePath(dir_, manifest_.weightFiles[f]),
                                            manifest_.weightFiles[f], f, first.name);
    ++weightStats_.files;
  }

  if (weights_) {
    device_.release(weights_);
    weights_ = 0;
  }
  weights_ = device_.allocate(std::max<int64_t>(totalBytes, 1));
  for (const Planned &p : planned) {
    const GraphInput &input = manifest_.graph.inputs[p.input];
    DeviceTensor &t = inputs_[p.input];
    t.ptr = weights_ + DevicePtr(p.deviceOffset);
    t.dtype = input.dtype;
    t.shape = p.shape;
  }
  for (size_t i = 0; i < manifest_.graph.inputs.size(); ++i) {
    const GraphInput &input = manifest_.graph.inputs[i];
    if (!input.isConcatenation())
      continue;
    DeviceTensor &t = inputs_[i];
    t.ptr = inputs_[size_t(input.concatOf[0])].ptr;
    t.dtype = input.dtype;
    t.shape = staticShape(input);
  }

  auto secondsSince = [](std::chrono::steady_clock::time_point from) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
  };
  weightStats_.prepareSeconds = secondsSince(start);
  std::vector<unsigned char> gathered;
  std::optional<WorkerPool> pool; // started by the first streamed storage
  // A stored storage that is exactly one dense weight (every large storage
  // of a Hugging Face model) is streamed (kStreamedStorageBytes).
  auto streamed = [&](const Storage &storage) {
    const WeightRef &ref = *storage.ref;
    const Planned &only = planned[storage.weights[0]];
    return ref.method == ZipMethod::Stored && ref.storedBytes == ref.bytes &&
           ref.bytes >= kStreamedStorageBytes && storage.weights.size() == 1 &&
           ref.storageOffset == 0 && only.denseBytes == ref.bytes &&
           isDenseView(only.shape, ref.strides);
  };
  // The others first: an upload that waits for its staging buffer waits
  // for the copy of the last 64 MiB chunk in flight, and a LLaMA's 65 norm
  // weights, each between two streamed storages, cost 0.1 s so.
  std::vector<const Storage *> uploadOrder;
  for (bool second : {false, true})
    for (const auto &entry : storages)
      if (streamed(entry.second) == second)
        uploadOrder.push_back(&entry.second);
  for (const Storage *next : uploadOrder) {
    const Storage &storage = *next;
    const WeightRef &ref = *storage.ref;
    const MappedFile &file = *files[size_t(ref.file)];
    const GraphInput &firstInput = manifest_.graph.inputs[planned[storage.weights[0]].input];
    std::string where = (ref.entry.empty() ? "bytes " + std::to_string(ref.offset) + ".." +
                                                 std::to_string(ref.offset + ref.storedBytes)
                                           : "entry '" + ref.entry + "'") +
                        " of '" + file.path() + "'";
    // The manifest's ranges were checked against the recorded file size,
    // which the file still has.
    if (ref.offset < 0 || ref.storedBytes < 0 || ref.offset > file.size() ||
        ref.storedBytes > file.size() - ref.offset)
      throw RuntimeError("weight '" + firstInput.name + "': " + where + " lies outside the file (" +
                         std::to_string(file.size()) + " bytes)");
    auto checkCrc = [&](uint32_t got) {
      if (got != ref.crc32)
        throw RuntimeError("weight '" + firstInput.name + "': the CRC-32 of " + where + " is " +
                           hex32(got) + ", but the artifact recorded " + hex32(ref.crc32) +
                           ": the file changed since it was compiled, or is corrupt");
    };

    const Planned &only = planned[storage.weights[0]];
    if (streamed(storage)) {
      if (!pool)
        pool.emplace(std::max(1u, std::thread::hardware_concurrency()));
      std::string what = "weight '" + firstInput.name + "' (" + where + ")";
      std::vector<std::pair<int64_t, uint32_t>> pieceCrcs; // (bytes, CRC-32), in order
      device_.uploadFilled(
          weights_ + DevicePtr(only.deviceOffset), ref.bytes,
          [&](unsigned char *host, int64_t offset, int64_t bytes) {
            auto fillStart = std::chrono::steady_clock::now();
            int64_t pieceBytes = balancedPieceBytes(bytes, pool->threads(),
                                                    int64_t(kCrcChunkBytes), kMinPieceBytes);
            size_t pieces = size_t((bytes + pieceBytes - 1) / pieceBytes);
            size_t first = pieceCrcs.size();
            pieceCrcs.resize(first + pieces);
            pool->run(pieces, [&](size_t i) {
              int64_t begin = int64_t(i) * pieceBytes;
              int64_t length = std::min<int64_t>(pieceBytes, bytes - begin);
              file.readInto(host + begin, ref.offset + offset + begin, length, what);
              pieceCrcs[first + i] = {length, crc32Update(0, host + begin, size_t(length))};
            });
            weightStats_.fillSeconds += secondsSince(fillStart);
          });
      uint32_t crc = pieceCrcs.empty() ? 0 : pieceCrcs[0].second;
      for (size_t i = 1; i < pieceCrcs.size(); ++i)
        crc = crc32Combine(crc, pieceCrcs[i].second, pieceCrcs[i].first);
      checkCrc(crc);
      ++weightStats_.storages;
      ++weightStats_.streamed;
      ++weightStats_.tensors;
      weightStats_.bytesRead += ref.storedBytes;
      weightStats_.bytesUploaded += only.denseBytes;
      continue;
    }

    const unsigned char *stored = file.data() + ref.offset;
    std::string inflated; // outlives `crc` below, which may still read it
    const unsigned char *bytes = stored;
    if (ref.method == ZipMethod::Deflate) {
      inflated = inflateRaw(stored, size_t(ref.storedBytes), ref.bytes,
                            "weight '" + firstInput.name + "' (" + where + ")");
      bytes = reinterpret_cast<const unsigned char *>(inflated.data());
      ++weightStats_.inflated;
    } else if (ref.storedBytes != ref.bytes) {
      throw RuntimeError("weight '" + firstInput.name + "': " + where + " is stored, but has " +
                         std::to_string(ref.storedBytes) + " stored and " +
                         std::to_string(ref.bytes) + " inflated bytes");
    }
    ++weightStats_.storages;
    weightStats_.bytesRead += ref.storedBytes;

    // A large storage's CRC is computed on worker threads while its
    // weights are uploaded (both read the same pages); a mismatch still
    // fails the load, after the copy.
    std::future<uint32_t> crc;
    std::optional<uint32_t> crcNow;
    if (ref.bytes >= kOverlappedCrcBytes)
      crc = std::async(std::launch::async, [bytes, &ref] {
        return crc32Parallel(bytes, size_t(ref.bytes), kCrcChunkBytes);
      });
    else
      crcNow = crc32Update(0, bytes, size_t(ref.bytes));
    if (crcNow)
      checkCrc(*crcNow);

    for (size_t index : storage.weights) {
      const Planned &p = planned[index];
      const GraphInput &input = manifest_.graph.inputs[p.input];
      const WeightRef &w = *input.weight;
      int64_t size = elementSize(input.dtype);
      if (p.denseBytes > 0) {
        DevicePtr dst = weights_ + DevicePtr(p.deviceOffset);
        if (isDenseView(p.shape, w.strides)) {
          device_.upload(dst, bytes + w.storageOffset * size, p.denseBytes);
        } else {
          gathered.resize(size_t(p.denseBytes));
          gatherView(bytes, size, p.shape, w.strides, w.storageOffset, gathered.data());
          device_.upload(dst, gathered.data(), p.denseBytes);
          ++weightStats_.gathered;
        }
      }
      ++weightStats_.tensors;
      weightStats_.bytesUploaded += p.denseBytes;
    }
    if (crc.valid())
      checkCrc(crc.get());
  }
  device_.synchronize("uploading the weights");
  weightStats_.seconds = secondsSince(start);

  if (options_.verbose) {
    *options_.verbose << "weights: " << weightStats_.storages << " storage(s) ("
                      << weightStats_.inflated << " inflated, " << weightStats_.streamed
                      << " streamed), " << weightStats_.bytesRead
                      << " bytes read, " << weightStats_.gathered
                      << " weight(s) gathered from non-dense views\n"
                      << "weights: " << weightStats_.prepareSeconds
                      << " s opening, mapping and allocating, " << weightStats_.fillSeconds
                      << " s reading and checking streamed storages into upload chunks, the rest "
                         "copying the others and waiting for copies\n";
    for (size_t f = 0; f < files.size(); ++f)
      if (files[f])
        *options_.verbose << "weights: file " << f << ": " << files[f]->path() << " ("
                          << files[f]->size() << " bytes)\n";
  }
}

void GraphExecutor::shareWeights(const GraphExecutor &other) {
  if (&other.manifest_ != &manifest_ &&
      other.manifest_.graph.inputs.size() != manifest_.graph.inputs.size())
    throw RuntimeError("shareWeights: the executors run different graphs");
  for (size_t i = 0; i < manifest_.graph.inputs.size(); ++i)
    if (manifest_.graph.inputs[i].isWeight())
      inputs_[i] = other.inputs_[i];
  weightStats_ = other.weightStats_;
}

void GraphExecutor::setInputs(const std::vector<HostTensor> &userInputs) {
  symbols_ = bindInputs(manifest_.graph, userInputs);
  std::vector<HostTensor> padded = padHostInputs(userInputs);
  const std::vector<HostTensor> &bound = padded.empty() ? userInputs : padded;
  size_t u = 0;
  for (size_t i = 0; i < manifest_.graph.inputs.size(); ++i) {
    if (manifest_.graph.inputs[i].isWeight())
      continue;
    const HostTensor &host = bound[u++];
    DeviceTensor &t = inputs_[i];
    t.dtype = host.dtype;
    t.shape = host.shape;
    // Empty tensors still get a distinct, valid pointer. Grows only, as the
    // arena does: an input keeps its address across calls of other sizes,
    // so the graphs captured for each size replay.
    t.ptr = grownBuffer(inputAllocations_[i], std::max<int64_t>(int64_t(host.bytes.size()), 1),
                        "an input's buffer");
    if (!host.bytes.empty())
      device_.upload(t.ptr, host.bytes.data(), int64_t(host.bytes.size()));
  }
}

void GraphExecutor::setDeviceInputs(const std::vector<DeviceTensor> &userInputs) {
  inputStats_ = InputStats{};
  std::vector<InputSignature> signatures;
  for (const DeviceTensor &t : userInputs)
    signatures.push_back(InputSignature{t.dtype, t.shape});
  symbols_ = bindInputs(manifest_.graph, signatures);
  std::optional<int64_t> paddedTo = bindPadded(std::move(signatures));
  size_t u = 0;
  for (size_t i = 0; i < manifest_.graph.inputs.size(); ++i) {
    if (manifest_.graph.inputs[i].isWeight())
      continue;
    const DeviceTensor &given = userInputs[u++];
    if (given.ptr == 0 && given.byteSize() > 0)
      throw RuntimeError("user input " + std::to_string(u - 1) + " has no device memory");
    if (paddedTo && padding_->inputDims.count(i)) {
      // Read from the padded copy, whose address stays.
      padDeviceInput(i, given, *paddedTo);
      continue;
    }
    inputs_[i] = given;
    auto owned = inputAllocations_.find(i);
    if (given.ptr == 0) {
      // An empty tensor (PyTorch gives those no memory) still gets a
      // distinct, valid pointer.
      if (owned == inputAllocations_.end())
        owned = inputAllocations_.emplace(i, Allocation{1, device_.allocate(1)}).first;
      inputs_[i].ptr = owned->second.ptr;
    } else {
      if (owned != inputAllocations_.end()) {
        device_.synchronize("freeing an input's buffer");
        device_.release(owned->second.ptr);
        inputAllocations_.erase(owned);
      }
      stageIfMoving(i, given);
    }
  }
}

DevicePtr GraphExecutor::grownBuffer(Allocation &buffer, int64_t bytes, const char *what) {
  if (buffer.ptr && buffer.bytes < bytes) {
    device_.synchronize(std::string("freeing ") + what);
    device_.release(buffer.ptr);
    buffer = Allocation{};
  }
  if (!buffer.ptr)
    buffer = Allocation{bytes, device_.allocate(bytes)};
  return buffer.ptr;
}

void GraphExecutor::stageIfMoving(size_t input, const DeviceTensor &given) {
  // A step's signature holds its arguments' addresses, so an input at a new
  // address every call (a fresh tensor of token ids) would make every step
  // run eagerly. Copied into a buffer that stays, it replays (vLLM's static
  // input buffers). A mutated input's new value belongs where the caller
  // has it; a large one costs more to copy than the launches replays save.
  const Graph &graph = manifest_.graph;
  bool mutated = std::any_of(graph.mutations.begin(), graph.mutations.end(),
                             [&](const GraphMutation &m) { return m.input == int64_t(input); });
  int64_t bytes = given.byteSize();
  auto previous = boundAddresses_.find(input);
  if (previous != boundAddresses_.end() && previous->second != given.ptr && !mutated &&
      bytes <= kMostStagedInputBytes)
    movingInputs_.insert(input);
  boundAddresses_[input] = given.ptr;
  if (!movingInputs_.count(input) || bytes > kMostStagedInputBytes)
    return;
  DevicePtr staged = grownBuffer(stagedInputs_[input], bytes, "a staged input's buffer");
  device_.copy(staged, given.ptr, bytes);
  inputs_[input].ptr = staged;
  ++inputStats_.staged;
  inputStats_.stagedBytes += bytes;
}

void GraphExecutor::poisonPlanBuffers() {
  if (arena_.ptr)
    device_.poison(arena_.ptr, arena_.bytes);
}

void GraphExecutor::releaseRunState() {
  for (StepGraphState &state : stepGraphs_)
    releaseGraphs(device_, state);
  releaseGraphs(device_, wholeGraph_);
  if (arena_.ptr) {
    device_.synchronize("freeing the run's buffers");
    device_.release(arena_.ptr);
  }
  arena_ = Allocation{};
  hasMemoryPlan_ = false;
  memoryPlan_ = MemoryPlan{};
  ++memoryGeneration_;
  for (std::optional<CachedStep> &cached : preparedSteps_)
    cached.reset();
}

GraphExecutor::Value
GraphExecutor::resolve(const ValueRef &ref,
                       const std::vector<std::vector<Value>> &stepResults) const {
  Value v;
  switch (ref.kind) {
  case ValueRef::Kind::Input:
    v.isTensor = true;
    v.tensor = inputs_[ref.index];
    if (v.tensor.ptr == 0)
      throw RuntimeError("graph input " + std::to_string(ref.index) + " ('" +
                         manifest_.graph.inputs[ref.index].name + "') has no data");
    break;
  case ValueRef::Kind::StepResult:
    v = stepResults[ref.index][ref.result];
    break;
  case ValueRef::Kind::Symbol:
    v.index = symbols_.at(ref.symbol);
    break;
  case ValueRef::Kind::Int:
    v.index = ref.value;
    break;
  case ValueRef::Kind::LoopResult:
  case ValueRef::Kind::Carried:
    v = loopValues_[ref.index][ref.result];
    break;
  case ValueRef::Kind::BranchResult:
    v = branchValues_[ref.index][ref.result];
    break;
  }
  return v;
}

const Variant &GraphExecutor::chooseVariant(const Piece &piece, size_t &variantIndex) const {
  for (size_t i = 0; i < piece.variants.size(); ++i) {
    const Variant &v = piece.variants[i];
    if (v.symbols.empty())
      continue;
    bool matches = true;
    for (const auto &entry : v.symbols) {
      auto it = symbols_.find(entry.first);
      matches &= it != symbols_.end() && it->second == entry.second;
    }
    if (matches) {
      variantIndex = i;
      return v;
    }
  }
  for (size_t i = 0; i < piece.variants.size(); ++i)
    if (piece.variants[i].symbols.empty()) {
      variantIndex = i;
      return piece.variants[i];
    }
  std::string current;
  for (const auto &entry : symbols_)
    current += (current.empty() ? "" : ", ") + entry.first + "=" + std::to_string(entry.second);
  throw RuntimeError("piece " + std::to_string(piece.index) + " (" + piece.name +
                     ") has no variant for " + current + " and no general variant ({})");
}

std::vector<int64_t> GraphExecutor::memoryPlanKey() const {
  // The inputs' symbols: those of the data are planned at their bounds.
  std::vector<int64_t> key;
  for (const GraphSymbol &symbol : manifest_.graph.symbols)
    if (!symbol.fromStep())
      key.push_back(symbols_.at(symbol.name));
  for (const DeviceTensor &input : inputs_) {
    key.push_back(int64_t(input.dtype));
    key.push_back(int64_t(input.shape.size()));
    key.insert(key.end(), input.shape.begin(), input.shape.end());
  }
  return key;
}

GraphExecutor::MemoryPlan GraphExecutor::planMemory(std::vector<int64_t> key) {
  planReadsAtZero_ = 0;
  planReadCount_ = 0;
  MemoryPlan atBounds = planMemoryOnce(key, nullptr);
  size_t reads = planReadCount_;
  if (reads == 0)
    return atBounds;
  // A size may shrink as a value read on the host grows (x[k.item():]), or
  // grow with one value and shrink with another (x[a.item():b.item()]): it
  // is largest with some values at 0 and the others at their bounds. Plan
  // every such combination (all of them up to kMaxReadsPlannedAtEachEnd
  // reads, else all at 0 besides all at their bounds), and give each buffer
  // the largest of its sizes. A combination that cannot be planned (a size
  // the plan refuses there) or plans other buffers is left out; a run that
  // needs more than the plan gives is refused (prepareStep).
  uint64_t combinations = reads <= kMaxReadsPlannedAtEachEnd ? uint64_t(1) << reads : 2;
  std::vector<std::vector<int64_t>> larger = atBounds.bytes;
  bool grows = false;
  for (uint64_t atZero = 1; atZero < combinations; ++atZero) {
    MemoryPlan plan;
    try {
      planReadsAtZero_ = combinations == 2 ? ~uint64_t(0) : atZero;
      planReadCount_ = 0;
      plan = planMemoryOnce(key, nullptr);
    } catch (const std::exception &) {
      continue;
    }
    bool same = plan.bytes.size() == larger.size();
    for (size_t s = 0; same && s < larger.size(); ++s)
      same = plan.bytes[s].size() == larger[s].size();
    if (!same)
      continue;
    for (size_t s = 0; s < larger.size(); ++s)
      for (size_t k = 0; k < larger[s].size(); ++k)
        if (plan.bytes[s][k] > larger[s][k]) {
          larger[s][k] = plan.bytes[s][k];
          grows = true;
        }
  }
  planReadsAtZero_ = 0;
  return grows ? planMemoryOnce(std::move(key), &larger) : atBounds;
}

GraphExecutor::MemoryPlan
GraphExecutor::planMemoryOnce(std::vector<int64_t> key,
                              const std::vector<std::vector<int64_t>> *atLeast) {
  // Every step is evaluated once with stand-in addresses (distinct, far
  // apart, never dereferenced): that gives each alloc op's bytes, and the
  // plan ops and results that use each buffer. Time counts plan ops over
  // the whole run.
  const Graph &graph = manifest_.graph;
  MemoryPlan plan;
  plan.key = std::move(key);
  std::vector<BufferLifetime> lifetimes;
  std::vector<size_t> stepOf; // lifetime -> its step (lifetimes are in plan order)
  std::vector<std::vector<Value>> stepResults(graph.steps.size());
  // Per step, per result: the buffers (lifetimes) its tensor is a view of.
  std::vector<std::vector<std::vector<size_t>>> resultOwners(graph.steps.size());
  // Per loop, per carried value: the lifetimes of its two copies.
  std::vector<std::vector<std::vector<size_t>>> carriedOwners(graph.loops.size());
  std::vector<std::vector<size_t>> loopLifetimes(graph.loops.size());
  // Per branch, per result: the lifetimes of both parts' values (either
  // may be the one a run takes).
  std::vector<std::vector<std::vector<size_t>>> branchOwners(graph.branches.size());
  constexpr size_t kLoopState = ~size_t(0); // stepOf for a loop's carried values
  auto ownersOf = [&](const ValueRef &ref) {
    switch (ref.kind) {
    case ValueRef::Kind::StepResult:
      return resultOwners[size_t(ref.index)][size_t(ref.result)];
    case ValueRef::Kind::LoopResult:
    case ValueRef::Kind::Carried:
      return carriedOwners[size_t(ref.index)][size_t(ref.result)];
    case ValueRef::Kind::BranchResult:
      return branchOwners[size_t(ref.index)][size_t(ref.result)];
    default:
      return std::vector<size_t>{};
    }
  };
  // Both parts of a branch are planned, one after the other (a run takes
  // one); its results must have one shape whichever it takes, since what
  // follows is planned once.
  auto planBranchEnd = [&](size_t b) {
    const GraphBranch &branch = graph.branches[b];
    branchValues_[b].clear();
    branchOwners[b].clear();
    for (size_t k = 0; k < branch.thenResults.size(); ++k) {
      Value then = resolve(branch.thenResults[k], stepResults);
      Value otherwise = resolve(branch.elseResults[k], stepResults);
      const DeviceTensor &t = then.tensor, &e = otherwise.tensor;
      if (t.shape != e.shape || t.dtype != e.dtype)
        throw RuntimeError("branch " + std::to_string(b) + " gives result " +
                           std::to_string(k) + " as a " + std::string(manifestName(t.dtype)) +
                           " " + formatShape(t.shape) + " tensor in its then part, but a " +
                           std::string(manifestName(e.dtype)) + " " + formatShape(e.shape) +
                           " one in its else part: what follows a branch is planned once");
      std::vector<size_t> owners = ownersOf(branch.thenResults[k]);
      for (size_t owner : ownersOf(branch.elseResults[k]))
        owners.push_back(owner);
      branchValues_[b].push_back(then);
      branchOwners[b].push_back(std::move(owners));
    }
  };
  auto use = [&](size_t lifetime, int64_t now) {
    lifetimes[lifetime].end = std::max(lifetimes[lifetime].end, now);
  };
  // The stand-in address of lifetime i: distinct, far apart, never
  // dereferenced.
  auto standInAddress = [](size_t lifetime) { return DevicePtr(lifetime + 1) << 40; };
  int64_t time = 0;
  auto planLoopStart = [&](size_t l) {
    const GraphLoop &loop = graph.loops[l];
    // The carried values' two sets (the state, and where next values
    // in the state wait: runLoop), live from the copy of the initial
    // values on; set 0 is every iteration's.
    loopValues_[l].clear();
    for (const ValueRef &ref : loop.carried) {
      Value init = resolve(ref, stepResults);
      for (size_t owner : ownersOf(ref))
        use(owner, time);
      std::vector<size_t> owners;
      for (int set = 0; set < 2; ++set) {
        stepOf.push_back(kLoopState);
        lifetimes.push_back(BufferLifetime{init.tensor.byteSize(), time, time});
        owners.push_back(lifetimes.size() - 1);
        loopLifetimes[l].push_back(lifetimes.size() - 1);
      }
      init.tensor.ptr = standInAddress(owners[0]);
      loopValues_[l].push_back(init);
      carriedOwners[l].push_back(std::move(owners));
    }
  };
  auto planStep = [&](size_t s) {
    std::vector<Value> args;
    std::vector<std::vector<size_t>> argOwners;
    for (const ValueRef &ref : graph.steps[s].args) {
      args.push_back(resolve(ref, stepResults));
      argOwners.push_back(ownersOf(ref));
    }
    size_t first = lifetimes.size();
    auto standIn = [&](int64_t, int64_t bytes) {
      size_t ordinal = lifetimes.size() - first;
      if (atLeast && ordinal < (*atLeast)[s].size())
        bytes = std::max(bytes, (*atLeast)[s][ordinal]);
      stepOf.push_back(s);
      lifetimes.push_back(BufferLifetime{bytes, 0, 0});
      return standInAddress(lifetimes.size() - 1);
    };
    PreparedStep step = evaluateStep(s, args, standIn);
    const Variant &variant =
        manifest_.pieces[size_t(graph.steps[s].piece)].variants[step.variantIndex];
    plan.variants.push_back(step.variantIndex);
    plan.offsets.emplace_back();
    plan.bytes.emplace_back();
    // Which lifetime each buffer number holds at this point of the plan.
    std::map<int64_t, size_t> current;
    size_t nextAlloc = first;
    // The lifetimes a view is into: its buffer's, or its argument's owners.
    auto ownersOfDescriptor = [&](const Descriptor &d) {
      std::vector<size_t> owners;
      if (d.base == Descriptor::Base::Buffer) {
        auto it = current.find(d.baseIndex);
        if (it != current.end())
          owners.push_back(it->second);
      } else if (d.baseIndex >= 0 && size_t(d.baseIndex) < argOwners.size()) {
        owners = argOwners[size_t(d.baseIndex)];
      }
      return owners;
    };
    auto useDescriptor = [&](const Descriptor &d, int64_t now) {
      for (size_t owner : ownersOfDescriptor(d))
        use(owner, now);
    };
    for (size_t p = 0; p < variant.plan.size(); ++p) {
      const PlanOp &op = variant.plan[p];
      int64_t now = time + int64_t(p);
      switch (op.kind) {
      case PlanOp::Kind::Alloc:
        lifetimes[nextAlloc].start = lifetimes[nextAlloc].end = now;
        plan.bytes.back().push_back(lifetimes[nextAlloc].bytes);
        current[op.buffer] = nextAlloc++;
        break;
      case PlanOp::Kind::Launch:
        for (const KernelArg &arg : op.args)
          if (arg.kind == KernelArg::Kind::Memref)
            useDescriptor(arg.memref, now);
        break;
      case PlanOp::Kind::Gemm:
        for (const Descriptor *d : {&op.a, &op.b, &op.c})
          useDescriptor(*d, now);
        if (op.bias)
          useDescriptor(*op.bias, now);
        break;
      }
    }
    // A value read on the host is read after the step's work: the buffer
    // it is in lives to the step's end, so that nothing the step allocates
    // after its last write reuses (and overwrites) it before the read.
    for (const PieceResult &result : variant.results)
      if (result.isRead)
        useDescriptor(result.read, time + int64_t(variant.plan.size()));
    std::vector<std::vector<size_t>> owners;
    for (const PieceResult &result : variant.results)
      owners.push_back(result.isTensor ? ownersOfDescriptor(result.tensor)
                                       : std::vector<size_t>{});
    resultOwners[s] = std::move(owners);
    bindStepSymbols(s, step.results, /*check=*/false);
    stepResults[s] = std::move(step.results);
    time += std::max<int64_t>(int64_t(variant.plan.size()), 1);
  };
  auto planLoopEnd = [&](size_t l) {
    const GraphLoop &loop = graph.loops[l];
    // Every iteration reads what its steps read, so all of it lives
    // until the last iteration ends (its next values are copied then).
    for (int64_t t = loop.first; t < loop.end(); ++t)
      for (const ValueRef &ref : graph.steps[size_t(t)].args)
        for (size_t owner : ownersOf(ref))
          use(owner, time);
    for (const ValueRef &ref : loop.next)
      for (size_t owner : ownersOf(ref))
        use(owner, time);
    for (size_t owner : loopLifetimes[l])
      use(owner, time);
  };
  // The graph in the order a run meets it, each loop's steps once and
  // both parts of each branch.
  std::function<void(const GraphPart &)> planPart = [&](const GraphPart &part) {
    for (const GraphItem &item : partItems_[graph.partId(part)]) {
      switch (item.kind) {
      case GraphItem::Kind::Step:
        planStep(size_t(item.index));
        break;
      case GraphItem::Kind::Loop:
        planLoopStart(size_t(item.index));
        planPart(GraphPart{GraphPart::Owner::Loop, item.index, 0});
        planPart(GraphPart{GraphPart::Owner::Loop, item.index, 1});
        planLoopEnd(size_t(item.index));
        break;
      case GraphItem::Kind::Branch:
        planPart(GraphPart{GraphPart::Owner::Branch, item.index, 0});
        planPart(GraphPart{GraphPart::Owner::Branch, item.index, 1});
        planBranchEnd(size_t(item.index));
        break;
      }
    }
  };
  planPart(GraphPart{});
  // The outputs outlive the run.
  for (const ValueRef &ref : graph.outputs)
    for (size_t owner : ownersOf(ref))
      use(owner, time);

  std::vector<int64_t> offsets;
  plan.stats = placeBuffers(lifetimes, offsets);
  for (size_t i = 0; i < lifetimes.size(); ++i)
    if (stepOf[i] != kLoopState)
      plan.offsets[stepOf[i]].push_back(offsets[i]);
  // Set 0's offsets, then set 1's (loopLifetimes alternates them).
  for (const std::vector<size_t> &owned : loopLifetimes) {
    std::vector<int64_t> loopOffsets;
    for (int set = 0; set < 2; ++set)
      for (size_t k = size_t(set); k < owned.size(); k += 2)
        loopOffsets.push_back(offsets[owned[k]]);
    plan.loopOffsets.push_back(std::move(loopOffsets));
  }
  return plan;
}

void GraphExecutor::ensureMemoryPlan() {
  std::vector<int64_t> key = memoryPlanKey();
  if (hasMemoryPlan_ && memoryPlan_.key == key)
    return;
  // Forget the old plan first: if planning throws, none is kept.
  hasMemoryPlan_ = false;
  MemoryPlan plan = planMemory(std::move(key));
  if (plan.stats.arenaBytes > arena_.bytes) {
    if (arena_.ptr) {
      // Work of the previous run may still use it.
      device_.synchronize("growing the run's buffers");
      device_.release(arena_.ptr);
      arena_ = Allocation{};
    }
    arena_ = Allocation{plan.stats.arenaBytes, device_.allocate(plan.stats.arenaBytes)};
  }
  memoryPlan_ = std::move(plan);
  hasMemoryPlan_ = true;
  ++memoryGeneration_;
}

std::vector<DeviceTensor> GraphExecutor::run() {
  lastRunModes_.clear();
  if (options_.verbose && padding_ && options_.padToCompileSizes)
    *options_.verbose << paddingStats_.describe(padding_->symbol) << "\n";
  if (!manifest_.graph.loops.empty() && options_.cudaGraphs && options_.fullGraph)
    throw RuntimeError("the graph has a loop (torch.while_loop) whose every iteration waits "
                       "for its condition on the host: one CUDA graph for the whole run cannot "
                       "hold the wait; run with piecewise CUDA graphs");
  if (graphReads_ && options_.cudaGraphs && options_.fullGraph)
    throw RuntimeError("the graph reads values on the host (a nonzero's count, an .item()), "
                       "and the work after each read depends on it: one CUDA graph for the "
                       "whole run cannot hold the wait; run with piecewise CUDA graphs");
  forgetStepSymbols();
  ensureMemoryPlan();
  // Planning bound them at their bounds; the run binds them as they come.
  forgetStepSymbols();
  marks_.reset();
  if (options_.profile) {
    marks_.emplace();
    marks_->start = device_.markTime();
  }
  std::vector<DeviceTensor> outputs =
      options_.cudaGraphs && options_.fullGraph ? runWhole() : runSteps();
  outputs = finishOutputs(writeBackMutations(std::move(outputs)));
  if (marks_)
    finishProfile();
  return outputs;
}

std::vector<DeviceTensor> GraphExecutor::writeBackMutations(std::vector<DeviceTensor> outputs) {
  const Graph &graph = manifest_.graph;
  mutationStats_ = MutationStats{};
  for (const GraphMutation &m : graph.mutations) {
    const DeviceTensor &value = outputs[m.output];
    const DeviceTensor &input = inputs_[m.input];
    if (value.shape != input.shape || value.dtype != input.dtype)
      throw RuntimeError("graph output " + std::to_string(m.output) + ", the new value of input '" +
                         graph.inputs[m.input].name + "', is a " +
                         std::string(manifestName(value.dtype)) + " " + formatShape(value.shape) +
                         " tensor, the input a " + std::string(manifestName(input.dtype)) + " " +
                         formatShape(input.shape) + " one");
    if (value.ptr == input.ptr) {
      ++mutationStats_.inPlace;
      continue;
    }
    device_.copy(input.ptr, value.ptr, value.byteSize());
    ++mutationStats_.copied;
    mutationStats_.copiedBytes += value.byteSize();
  }
  std::vector<DeviceTensor> user;
  for (size_t i = 0; i < outputs.size(); ++i)
    if (!graph.isMutation(i))
      user.push_back(std::move(outputs[i]));
  return user;
}

std::string MutationStats::describe() const {
  return "mutations: " + std::to_string(inPlace) + " written in place, " +
         std::to_string(copied) + " copied back (" + std::to_string(copiedBytes) + " bytes)";
}

void GraphExecutor::finishProfile() {
  device_.synchronize("the profiled run");
  int start = marks_->start, last = start;
  profile_ = RunProfile{};
  for (ProfileMarks::Step &step : marks_->steps) {
    step.step.startMs = device_.millisecondsBetween(start, step.begin);
    step.step.ms = device_.millisecondsBetween(step.begin, step.end);
    profile_.steps.push_back(std::move(step.step));
    last = step.end;
  }
  for (ProfileMarks::Op &op : marks_->ops) {
    op.op.startMs = device_.millisecondsBetween(start, op.begin);
    op.op.ms = device_.millisecondsBetween(op.begin, op.end);
    profile_.ops.push_back(std::move(op.op));
  }
  profile_.totalMs = device_.millisecondsBetween(start, last);
  marks_.reset();
  device_.clearTimeMarks();
}

int Device::markTime() {
  throw RuntimeError("this device cannot time its work (profiling)");
}

double Device::millisecondsBetween(int, int) {
  throw RuntimeError("this device cannot time its work (profiling)");
}

void GraphExecutor::runStep(size_t s, std::vector<std::vector<Value>> &stepResults) {
  std::vector<Value> args;
  for (const ValueRef &ref : manifest_.graph.steps[s].args)
    args.push_back(resolve(ref, stepResults));
  const PreparedStep &step = prepareStep(s, args);
  issueStep(s, step);
  std::vector<Value> results = step.results;
  if (!step.reads.empty())
    readResults(step, results);
  bindStepSymbols(s, results, /*check=*/true);
  stepResults[s] = std::move(results);
}

void GraphExecutor::runLoop(size_t l, std::vector<std::vector<Value>> &stepResults) {
  const GraphLoop &loop = manifest_.graph.loops[l];
  const std::vector<int64_t> &offsets = memoryPlan_.loopOffsets[l];
  const size_t numCarried = loop.carried.size();
  std::string name = "loop " + std::to_string(l);
  // Carried value k in set 0 (the loop's state, where every iteration's
  // steps read it: their arguments, and so their graphs, stay the same) or
  // set 1 (where a next value that lies in the state waits while the state
  // is written), shaped as `like`.
  auto inSet = [&](int set, size_t k, const DeviceTensor &like) {
    DeviceTensor t = like;
    t.ptr = arena_.ptr + DevicePtr(offsets[size_t(set) * numCarried + k]);
    return t;
  };
  std::vector<Value> state;
  for (size_t k = 0; k < numCarried; ++k) {
    const DeviceTensor &init = resolve(loop.carried[k], stepResults).tensor;
    Value v;
    v.isTensor = true;
    v.tensor = inSet(0, k, init);
    if (init.byteSize() > 0)
      device_.copy(v.tensor.ptr, init.ptr, init.byteSize());
    state.push_back(std::move(v));
  }
  loopValues_[l] = state;
  auto overlapsState = [&](const DeviceTensor &t) {
    for (const Value &s : state)
      if (t.ptr < s.tensor.ptr + DevicePtr(s.tensor.byteSize()) &&
          s.tensor.ptr < t.ptr + DevicePtr(t.byteSize()))
        return true;
    return false;
  };
  int64_t iterations = 0;
  auto step = [&](size_t s) { runStep(s, stepResults); };
  auto innerLoop = [&](size_t inner) { runLoop(inner, stepResults); };
  const int64_t bodyStart = loop.first + loop.condSteps;
  while (true) {
    // Each part's symbols are the current iteration's (after the loop,
    // the last body's and the last condition's).
    forgetStepSymbols(loop.first, bodyStart);
    walkPart(GraphPart{GraphPart::Owner::Loop, int64_t(l), 0}, stepResults, step, innerLoop);
    // The condition was read on the host by its step (readResults).
    if (resolve(loop.condition, stepResults).index == 0)
      break;
    forgetStepSymbols(bodyStart, loop.end());
    walkPart(GraphPart{GraphPart::Owner::Loop, int64_t(l), 1}, stepResults, step, innerLoop);
    std::vector<DeviceTensor> next;
    for (size_t k = 0; k < numCarried; ++k) {
      next.push_back(resolve(loop.next[k], stepResults).tensor);
      const DeviceTensor &before = state[k].tensor;
      if (next[k].shape != before.shape || next[k].dtype != before.dtype)
        throw RuntimeError(name + ": iteration " + std::to_string(iterations) +
                           " gives carried value " + std::to_string(k) + " as a " +
                           std::string(manifestName(next[k].dtype)) + " " +
                           formatShape(next[k].shape) + " tensor, but it came in as a " +
                           std::string(manifestName(before.dtype)) + " " +
                           formatShape(before.shape) + " one");
    }
    // A next value in the state (a carried value passed on to another
    // place, or a view of one) is set aside first: the copies into the
    // state would overwrite it. One already where it belongs stays.
    std::vector<bool> staged(numCarried, false);
    for (size_t k = 0; k < numCarried; ++k) {
      if (next[k].ptr == state[k].tensor.ptr || !overlapsState(next[k]) ||
          next[k].byteSize() == 0)
        continue;
      DeviceTensor aside = inSet(1, k, next[k]);
      device_.copy(aside.ptr, next[k].ptr, next[k].byteSize());
      next[k] = aside;
      staged[k] = true;
    }
    for (bool stagedPass : {false, true})
      for (size_t k = 0; k < numCarried; ++k)
        if (staged[k] == stagedPass && next[k].ptr != state[k].tensor.ptr &&
            next[k].byteSize() > 0)
          device_.copy(state[k].tensor.ptr, next[k].ptr, next[k].byteSize());
    ++iterations;
  }
  lastLoopIterations_[l] += iterations;
  if (options_.verbose)
    *options_.verbose << "  " << name << ": " << iterations << " iteration(s)\n";
}

bool GraphExecutor::takesThen(size_t b) const {
  auto lookup = [&](const std::string &name) -> std::optional<int64_t> {
    auto it = symbols_.find(name);
    if (it == symbols_.end())
      return std::nullopt;
    return it->second;
  };
  return manifest_.graph.branches[b].condition.evaluate(
             lookup, "the condition of branch " + std::to_string(b)) != 0;
}

void GraphExecutor::finishBranch(size_t b, bool then,
                                 const std::vector<std::vector<Value>> &stepResults) {
  const GraphBranch &branch = manifest_.graph.branches[b];
  branchValues_[b].clear();
  for (const ValueRef &ref : then ? branch.thenResults : branch.elseResults)
    branchValues_[b].push_back(resolve(ref, stepResults));
  lastBranchesTaken_[b] = then;
  if (options_.verbose)
    *options_.verbose << "  branch " << b << ": " << (then ? "then" : "else") << " part ("
                      << branch.condition.text() << (then ? " is not 0" : " is 0") << ")\n";
}

void GraphExecutor::walkSteps(std::vector<std::vector<Value>> &stepResults,
                              const std::function<void(size_t)> &step,
                              const std::function<void(size_t)> &loop) {
  lastBranchesTaken_.assign(manifest_.graph.branches.size(), false);
  walkPart(GraphPart{}, stepResults, step, loop);
}

void GraphExecutor::walkPart(const GraphPart &part, std::vector<std::vector<Value>> &stepResults,
                             const std::function<void(size_t)> &step,
                             const std::function<void(size_t)> &loop) {
  for (const GraphItem &item : partItems_[manifest_.graph.partId(part)]) {
    switch (item.kind) {
    case GraphItem::Kind::Step:
      step(size_t(item.index));
      break;
    case GraphItem::Kind::Loop:
      loop(size_t(item.index));
      break;
    case GraphItem::Kind::Branch: {
      size_t b = size_t(item.index);
      bool then = takesThen(b);
      forgetStepSymbols(manifest_.graph.branches[b].first, manifest_.graph.branches[b].end());
      walkPart(GraphPart{GraphPart::Owner::Branch, item.index, then ? 0 : 1}, stepResults, step,
               loop);
      finishBranch(b, then, stepResults);
      break;
    }
    }
  }
}

std::vector<DeviceTensor> GraphExecutor::runSteps() {
  const Graph &graph = manifest_.graph;
  std::vector<std::vector<Value>> stepResults(graph.steps.size());
  lastLoopIterations_.assign(graph.loops.size(), 0);
  walkSteps(
      stepResults, [&](size_t s) { runStep(s, stepResults); },
      [&](size_t l) { runLoop(l, stepResults); });
  std::vector<DeviceTensor> outputs;
  for (const ValueRef &ref : graph.outputs)
    outputs.push_back(resolve(ref, stepResults).tensor);
  return outputs;
}

std::vector<DeviceTensor> GraphExecutor::runWhole() {
  // Every step's work is known on the host before anything is issued (the
  // sizes are expressions of the inputs), so the run is one graph.
  // A branch's condition is over the inputs' symbols (a value read on
  // the host refuses this mode: run), so the steps taken are known too.
  const Graph &graph = manifest_.graph;
  std::vector<const PreparedStep *> steps;
  std::vector<size_t> stepIndices; // of steps[i]
  std::vector<std::vector<Value>> stepResults(graph.steps.size());
  walkSteps(
      stepResults,
      [&](size_t s) {
        std::vector<Value> args;
        for (const ValueRef &ref : graph.steps[s].args)
          args.push_back(resolve(ref, stepResults));
        steps.push_back(&prepareStep(s, args));
        stepIndices.push_back(s);
        stepResults[s] = steps.back()->results;
      },
      [&](size_t) { throw RuntimeError("a loop in one CUDA graph for the whole run"); });
  std::string signature;
  for (const PreparedStep *step : steps)
    signature += step->signature;
  StepMode mode = chooseStepMode(wholeGraph_, signature);
  std::string why;
  if (mode == StepMode::Eager) {
    why = !wholeGraph_.eagerSignatures.empty() || !wholeGraph_.graphs.empty()
              ? "no graph for these parameters yet"
              : "first run with these parameters";
  }
  if (options_.verbose) {
    *options_.verbose << "run: one CUDA graph for all " << steps.size() << " steps: "
                      << stepModeName(mode) << (why.empty() ? "" : " (" + why + ")") << "\n";
    for (size_t i = 0; i < steps.size(); ++i)
      printStep(stepIndices[i], *steps[i], mode, "");
  }
  lastRunModes_.assign(steps.size(), mode);
  // Profiled: each step and op when eager; the graph as one step else.
  int begin = marks_ ? device_.markTime() : -1;
  switch (mode) {
  case StepMode::Eager:
    for (const PreparedStep *step : steps) {
      std::optional<size_t> profileStep;
      int stepBegin = -1;
      if (marks_) {
        profileStep = marks_->steps.size();
        stepBegin = device_.markTime();
      }
      issue(step->ops, options_.syncEach, step->name, profileStep);
      if (marks_)
        marks_->steps.push_back(
            {ProfiledStep{step->name, stepModeName(mode)}, stepBegin, device_.markTime()});
    }
    rememberEagerCall(wholeGraph_, std::move(signature));
    break;
  case StepMode::Capture:
    device_.beginCapture("the whole run");
    try {
      for (const PreparedStep *step : steps)
        issue(step->ops, /*syncEach=*/false, step->name);
      rememberGraph(device_, wholeGraph_, signature, device_.endCapture("the whole run"));
    } catch (...) {
      device_.cancelCapture();
      throw;
    }
    device_.replay(wholeGraph_.graphs.back().graph, "the whole run");
    break;
  case StepMode::Replay:
    device_.replay(usedGraph(wholeGraph_, signature), "the whole run");
    break;
  }
  if (mode != StepMode::Eager && options_.syncEach)
    device_.synchronize("the whole run's CUDA graph");
  if (marks_ && mode != StepMode::Eager)
    marks_->steps.push_back({ProfiledStep{"the whole run", std::string(stepModeName(mode)) +
                                                               " (one CUDA graph)"},
                             begin, device_.markTime()});
  std::vector<DeviceTensor> outputs;
  for (const ValueRef &ref : graph.outputs)
    outputs.push_back(resolve(ref, stepResults).tensor);
  return outputs;
}

namespace {

struct EvaluatedDescriptor {
  DevicePtr base = 0;
  int64_t offset = 0;
  std::vector<int64_t> sizes, strides;
};

// The elements a view spans: from its first element to its last (none when
// a size is 0). Sizes and strides are checked against the buffer already.
} // namespace

const GraphExecutor::PreparedStep &GraphExecutor::prepareStep(size_t stepIndex,
                                                              const std::vector<Value> &args) {
  std::vector<int64_t> key = {memoryGeneration_};
  for (const auto &entry : symbols_)
    key.push_back(entry.second);
  for (const Value &arg : args) {
    key.push_back(arg.isTensor);
    if (!arg.isTensor) {
      key.push_back(arg.index);
      continue;
    }
    key.push_back(int64_t(arg.tensor.ptr));
    key.push_back(int64_t(arg.tensor.dtype));
    key.push_back(int64_t(arg.tensor.shape.size()));
    key.insert(key.end(), arg.tensor.shape.begin(), arg.tensor.shape.end());
  }
  std::optional<CachedStep> &cached = preparedSteps_[stepIndex];
  if (!cached || cached->key != key) {
    // Forget the old evaluation first: if this one throws, none is kept.
    cached.reset();
    size_t ordinal = 0;
    auto address = [&](int64_t buffer, int64_t bytes) {
      // The plan was made from an evaluation of the same step with the
      // same sizes: anything else is a bug of the runtime.
      // A size that follows a value read on the host was planned at the
      // value's bound, which nothing above the bound gets past.
      const std::vector<int64_t> &planned = memoryPlan_.bytes[stepIndex];
      if (graphReads_ && ordinal < planned.size() && planned[ordinal] < bytes)
        throw RuntimeError("step " + std::to_string(stepIndex) + ": buffer b" +
                           std::to_string(buffer) + " needs " + std::to_string(bytes) +
                           " bytes, more than the " + std::to_string(planned[ordinal]) +
                           " the memory plan gave it with the values read on the host at "
                           "their bounds and at 0: a size largest between them cannot be "
                           "planned so");
      if (ordinal >= planned.size() || planned[ordinal] < bytes ||
          (!graphReads_ && planned[ordinal] != bytes))
        throw RuntimeError("step " + std::to_string(stepIndex) + ": buffer b" +
                           std::to_string(buffer) + " (" + std::to_string(bytes) +
                           " bytes) differs from the memory plan");
      return arena_.ptr + DevicePtr(memoryPlan_.offsets[stepIndex][ordinal++]);
    };
    PreparedStep step = evaluateStep(stepIndex, args, address);
    if (step.variantIndex != memoryPlan_.variants[stepIndex])
      throw RuntimeError(step.name + ": not the variant the memory plan was made for");
    ++numStepEvaluations_;
    cached = CachedStep{std::move(key), std::move(step)};
  }
  return cached->step;
}

GraphExecutor::PreparedStep GraphExecutor::evaluateStep(size_t stepIndex,
                                                        const std::vector<Value> &args,
                                                        const BufferAddress &address) {
  const GraphStep &step = manifest_.graph.steps[stepIndex];
  const Piece &piece = manifest_.pieces[step.piece];
  size_t variantIndex = 0;
  const Variant &variant = chooseVariant(piece, variantIndex);
  const bool variantForAnySize = isVariantForAnySize(piece, variant);
  std::string stepName = "step " + std::to_string(stepIndex) + " (piece " +
                         std::to_string(piece.index) + " '" + piece.name + "', variant " +
                         std::to_string(variantIndex) + ")";

  std::vector<int64_t> values;
  std::vector<DevicePtr> buffers(size_t(variant.numBuffers), 0);
  std::vector<int64_t> bufferBytes(size_t(variant.numBuffers), 0);
  auto lookup = [&](const std::string &name) -> std::optional<int64_t> {
    std::optional<VariantName> ref = parseVariantName(name);
    if (!ref)
      return std::nullopt;
    switch (ref->kind) {
    case VariantName::Kind::Value:
      if (ref->index < int64_t(values.size()))
        return values[ref->index];
      return std::nullopt;
    case VariantName::Kind::ScalarArg:
      if (ref->index < int64_t(args.size()) && !args[ref->index].isTensor)
        return args[ref->index].index;
      return std::nullopt;
    case VariantName::Kind::ArgDim:
      if (ref->index < int64_t(args.size()) && args[ref->index].isTensor &&
          ref->dim < int64_t(args[ref->index].tensor.shape.size()))
        return args[ref->index].tensor.shape[ref->dim];
      return std::nullopt;
    }
    return std::nullopt;
  };
  auto eval = [&](const Expr &e, const std::string &what) {
    return e.evaluate(lookup, stepName + ": " + what);
  };
  auto evalDescriptor = [&](const Descriptor &d, const std::string &what) {
    EvaluatedDescriptor out;
    if (d.base == Descriptor::Base::Arg) {
      out.base = args[d.baseIndex].tensor.ptr;
    } else {
      out.base = buffers[d.baseIndex];
      if (!out.base)
        throw RuntimeError(stepName + ": " + what + ": buffer " + d.baseName +
                           " is not allocated");
    }
    out.offset = eval(d.offset, what + " offset");
    for (size_t i = 0; i < d.sizes.size(); ++i) {
      out.sizes.push_back(eval(d.sizes[i], what + " sizes[" + std::to_string(i) + "]"));
      out.strides.push_back(eval(d.strides[i], what + " strides[" + std::to_string(i) + "]"));
      if (out.sizes.back() < 0)
        throw RuntimeError(stepName + ": " + what + ": negative size " +
                           std::to_string(out.sizes.back()));
    }
    // The elements the view reaches must lie inside its base. A kernel's
    // descriptor has no dtype, so each element counts as at least one byte:
    // a negative or huge offset or stride is refused, not dereferenced.
    int64_t baseBytes = 0;
    if (d.base == Descriptor::Base::Arg) {
      const DeviceTensor &t = args[d.baseIndex].tensor;
      baseBytes = numElements(t.shape) * elementSize(t.dtype);
    } else {
      baseBytes = bufferBytes[d.baseIndex];
    }
    int64_t dense = 0;
    if (std::optional<std::string> bad =
            checkView(1, out.sizes, out.strides, out.offset, baseBytes, dense))
      throw RuntimeError(stepName + ": " + what + ": the view (offset " +
                         std::to_string(out.offset) + ", sizes " + formatShape(out.sizes) +
                         ", strides " + formatShape(out.strides) + ") of " + d.baseName +
                         " (" + std::to_string(baseBytes) + " bytes) " + *bad);
    return out;
  };

  for (size_t i = 0; i < variant.values.size(); ++i)
    values.push_back(eval(variant.values[i], "values[" + std::to_string(i) + "]"));
  // First everything on the host: buffers, parameters, checks. Nothing is
  // issued until the whole call is known, so that it can be compared with
  // the previous call of this step and captured or replayed as a whole.
  std::vector<DeviceOp> ops;
  for (size_t p = 0; p < variant.plan.size(); ++p) {
    const PlanOp &op = variant.plan[p];
    std::string opName = "plan[" + std::to_string(p) + "]";
    switch (op.kind) {
    case PlanOp::Kind::Alloc: {
      int64_t bytes = eval(op.bytes, opName + " bytes");
      if (bytes < 0)
        throw RuntimeError(stepName + ": " + opName + ": negative allocation size " +
                           std::to_string(bytes));
      buffers[op.buffer] = address(op.buffer, bytes);
      bufferBytes[op.buffer] = bytes;
      break;
    }
    case PlanOp::Kind::Launch: {
      DeviceOp device;
      device.kind = DeviceOp::Kind::Launch;
      device.bytes = 0;
      LaunchCall &call = device.launch;
      call.kernel = op.kernel;
      call.programmatic = op.programmatic;
      for (int i = 0; i < 3; ++i) {
        call.grid[i] = eval(op.grid[i], opName + " grid[" + std::to_string(i) + "]");
        call.block[i] = eval(op.block[i], opName + " block[" + std::to_string(i) + "]");
        if (call.grid[i] < 0 || call.block[i] < 0 || call.grid[i] > 0xFFFFFFFFLL ||
            call.block[i] > 0xFFFFFFFFLL)
          throw RuntimeError(stepName + ": " + opName + ": grid or block size out of range");
        device.skipped |= call.grid[i] == 0 || call.block[i] == 0;
      }
      call.sharedBytes = eval(op.sharedBytes, opName + " shared_bytes");
      if (call.sharedBytes < 0 || call.sharedBytes > 0xFFFFFFFFLL)
        throw RuntimeError(stepName + ": " + opName + ": shared_bytes out of range");
      for (size_t a = 0; a < op.args.size(); ++a) {
        const KernelArg &arg = op.args[a];
        std::string argName = opName + " args[" + std::to_string(a) + "]";
        switch (arg.kind) {
        case KernelArg::Kind::Memref: {
          EvaluatedDescriptor d = evalDescriptor(arg.memref, argName);
          if (!arg.dtype)
            device.bytes = -1;
          else if (device.bytes >= 0)
            device.bytes += viewElements(d.sizes, d.strides) * elementSize(*arg.dtype);
          // Kernels move streamed elements 16 bytes at a time from their
          // buffers' starts (magi-choose-kernel-config's vector_width).
          if (d.base % DevicePtr(kKernelBufferAlignment) != 0)
            throw RuntimeError(stepName + ": " + argName + ": buffer at " +
                               std::to_string(d.base) + " is not " +
                               std::to_string(kKernelBufferAlignment) +
                               "-byte aligned, which the kernels assume");
          // MLIR's expanded memref descriptor: allocated and aligned
          // pointers (both the base), offset, sizes, strides.
          call.params.push_back(KernelParam::pointer(d.base));
          call.params.push_back(KernelParam::pointer(d.base));
          call.params.push_back(KernelParam::i64(d.offset));
          for (int64_t size : d.sizes)
            call.params.push_back(KernelParam::i64(size));
          for (int64_t stride : d.strides)
            call.params.push_back(KernelParam::i64(stride));
          break;
        }
        case KernelArg::Kind::I64:
          call.params.push_back(KernelParam::i64(eval(arg.integer, argName)));
          break;
        case KernelArg::Kind::I32: {
          int64_t v = eval(arg.integer, argName);
          if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
            throw RuntimeError(stepName + ": " + argName + ": " + std::to_string(v) +
                               " does not fit in i32");
          call.params.push_back(KernelParam::i32(int32_t(v)));
          break;
        }
        case KernelArg::Kind::F32:
          call.params.push_back(KernelParam::f32(float(arg.floating)));
          break;
        case KernelArg::Kind::F64:
          call.params.push_back(KernelParam::f64(arg.floating));
          break;
        }
      }
      if (!device.skipped) {
        // Identical pieces name the same files: one module for all.
        std::string key = variant.ptx + "\n" + variant.cubin.value_or("");
        auto module = modules_.find(key);
        if (module == modules_.end()) {
          std::optional<std::string> cubin;
          if (variant.cubin)
            cubin = dir_ + "/" + *variant.cubin;
          module =
              modules_.emplace(key, device_.loadModule(dir_ + "/" + variant.ptx, cubin)).first;
        }
        device.module = module->second;
      }
      device.where = opName + " (kernel " + call.kernel + ")";
      ops.push_back(std::move(device));
      break;
    }
    case PlanOp::Kind::Gemm: {
      DeviceOp device;
      device.kind = DeviceOp::Kind::Gemm;
      GemmCall &call = device.gemm;
      call.dtype = op.gemmDtype;
      call.cDtype = op.gemmCDtype;
      call.anySize = variantForAnySize;
      // Offsets are in elements of the operand's own dtype.
      auto operand = [&](const Descriptor &d, const char *name, Dtype dtype) {
        EvaluatedDescriptor e = evalDescriptor(d, opName + " " + name);
        MatrixOperand m;
        m.ptr = e.base + DevicePtr(e.offset * elementSize(dtype));
        for (int i = 0; i < 3; ++i) {
          m.sizes[i] = e.sizes[i];
          m.strides[i] = e.strides[i];
        }
        // A batch of one has no stride that matters.
        if (m.sizes[0] == 1)
          m.strides[0] = 0;
        return m;
      };
      call.a = operand(op.a, "a", call.dtype);
      call.b = operand(op.b, "b", call.dtype);
      call.c = operand(op.c, "c", call.cDtype);
      int64_t biasSize = 0;
      if (op.bias) {
        EvaluatedDescriptor bias = evalDescriptor(*op.bias, opName + " bias");
        if (bias.strides[0] != 1 && bias.sizes[0] > 1)
          throw RuntimeError(stepName + ": " + opName + ": the bias must be contiguous (stride 1)");
        call.hasBias = true;
        call.bias = bias.base + DevicePtr(bias.offset * elementSize(call.cDtype));
        biasSize = bias.sizes[0];
      }
      checkGemm(call, biasSize, stepName + ": " + opName);
      // a and b read, c (and the bias) written or read once each; an operand
      // of one batch (a convolution's weight) is read once for all.
      int64_t batch = call.c.sizes[0], m = call.a.sizes[1], k = call.a.sizes[2],
              n = call.b.sizes[2];
      device.bytes = (call.a.sizes[0] * m * k + call.b.sizes[0] * k * n) * elementSize(call.dtype) +
                     (batch * m * n + biasSize) * elementSize(call.cDtype);
      device.flops = 2.0 * double(batch) * double(m) * double(n) * double(k);
      device.skipped = call.c.sizes[0] == 0 || call.c.sizes[1] == 0 || call.c.sizes[2] == 0;
      device.where = opName + " (gemm)";
      ops.push_back(std::move(device));
      break;
    }
    }
  }

  std::vector<Value> results;
  std::vector<DeviceRead> reads;
  for (size_t r = 0; r < variant.results.size(); ++r) {
    const PieceResult &result = variant.results[r];
    std::string what = "results[" + std::to_string(r) + "]";
    Value v;
    if (result.isRead) {
      // Until the read, the bound (or 0, for some of the memory plans:
      // planMemory).
      EvaluatedDescriptor d = evalDescriptor(result.read, what + " read");
      DeviceRead read;
      read.result = r;
      read.dtype = result.readDtype;
      read.ptr = d.base + DevicePtr(d.offset * elementSize(read.dtype));
      // A value without a bound gives no size: any value plans the same.
      if (result.readBound)
        read.bound = eval(*result.readBound, what + " bound");
      read.clamped = result.readClamped;
      // While planning, the bounded reads planReadsAtZero_ names are at 0.
      bool atZero = true;
      if (read.bound) {
        size_t ordinal = planReadCount_++;
        atZero = ordinal < 64 ? (planReadsAtZero_ >> ordinal) & 1 : planReadsAtZero_ != 0;
      }
      v.index = atZero ? 0 : *read.bound;
      reads.push_back(read);
    } else if (!result.isTensor) {
      v.index = eval(result.index, what);
    } else {
      EvaluatedDescriptor d = evalDescriptor(result.tensor, what);
      v.isTensor = true;
      v.tensor.dtype = piece.results[r].dtype;
      v.tensor.shape = d.sizes;
      v.tensor.ptr = d.base + DevicePtr(d.offset * elementSize(v.tensor.dtype));
      // Results are dense row-major: the next piece sees only a pointer and sizes.
      int64_t expected = 1;
      for (size_t i = d.sizes.size(); i-- > 0;) {
        if (d.sizes[i] != 1 && d.strides[i] != expected)
          throw RuntimeError(stepName + ": " + what + " is not dense row-major (sizes " +
                             formatShape(d.sizes) + ", strides " + formatShape(d.strides) + ")");
        expected *= d.sizes[i];
      }
    }
    results.push_back(std::move(v));
  }

  PreparedStep prepared;
  prepared.name = stepName;
  prepared.variantIndex = variantIndex;
  prepared.signature = deviceWorkSignature(variantIndex, ops);
  prepared.ops = std::move(ops);
  prepared.results = std::move(results);
  prepared.reads = std::move(reads);
  return prepared;
}

void GraphExecutor::readResults(const PreparedStep &step, std::vector<Value> &results) {
  for (const DeviceRead &read : step.reads) {
    // download waits for the work queued before it.
    HostTensor element;
    element.dtype = read.dtype;
    element.bytes.resize(size_t(elementSize(read.dtype)));
    device_.download(element.bytes.data(), read.ptr, elementSize(read.dtype));
    int64_t value = element.getInt(0);
    // A clamped value acts as its clamp to [0, bound] wherever it gives a
    // size: the plan holds for any.
    if (read.bound && !read.clamped && (value < 0 || value > *read.bound))
      throw RuntimeError(step.name + ": result " + std::to_string(read.result) + " read " +
                         std::to_string(value) + " from the device, outside [0, " +
                         std::to_string(*read.bound) +
                         "], the range the memory plan was made for");
    results[read.result].index = value;
    if (options_.verbose) {
      *options_.verbose << "  " << step.name << ": result " << read.result << " read " << value;
      if (read.bound)
        *options_.verbose << (read.clamped ? " (clamped to " : " (bound ") << *read.bound << ")";
      *options_.verbose << "\n";
    }
  }
}

void GraphExecutor::bindStepSymbols(size_t stepIndex, const std::vector<Value> &results,
                                    bool check) {
  for (const GraphSymbol &symbol : manifest_.graph.symbols) {
    if (!symbol.fromStep() || size_t(*symbol.step) != stepIndex)
      continue;
    const Value &v = results[size_t(symbol.result)];
    int64_t value = symbol.dim < 0 ? v.index : v.tensor.shape[size_t(symbol.dim)];
    if (check && !symbol.inRange(value))
      throw RuntimeError("step " + std::to_string(stepIndex) + ": symbol " + symbol.name +
                         " = " + std::to_string(value) + " is outside " + symbol.rangeText());
    symbols_[symbol.name] = value;
    if (check)
      checkAssertions(manifest_.graph, symbols_, symbol.name);
  }
}

void GraphExecutor::forgetStepSymbols(int64_t first, int64_t end) {
  for (const GraphSymbol &symbol : manifest_.graph.symbols)
    if (symbol.fromStep() && *symbol.step >= first && *symbol.step < end)
      symbols_.erase(symbol.name);
}

void GraphExecutor::issueStep(size_t stepIndex, const PreparedStep &prepared) {
  const GraphStep &step = manifest_.graph.steps[stepIndex];
  const Piece &piece = manifest_.pieces[step.piece];
  const std::vector<DeviceOp> &ops = prepared.ops;
  const std::string &stepName = prepared.name;
  // How to run it: replay, capture or eagerly.
  StepGraphState &state = stepGraphs_[stepIndex];
  StepMode mode = StepMode::Eager;
  std::string why;
  std::optional<std::string> newSignature; // recorded once the eager call has run
  bool graphable = options_.cudaGraphs && piece.cudaGraph && !piece.isSplitting;
  if (!options_.cudaGraphs) {
    why = "CUDA graphs off";
  } else if (!graphable) {
    why = piece.isSplitting ? "splitting piece" : "cuda_graph is false";
  } else {
    const std::string &signature = prepared.signature;
    mode = chooseStepMode(state, signature);
    if (mode == StepMode::Eager) {
      // The graphs of other signatures stay for when they come back; the
      // next call with this one captures.
      why = !state.eagerSignatures.empty() || !state.graphs.empty()
                ? "no graph for these parameters yet"
                : "first run with these parameters";
      newSignature = signature;
    }
  }
  lastRunModes_.push_back(mode);

  if (options_.verbose)
    printStep(stepIndex, prepared, mode, why);

  std::optional<size_t> profileStep;
  int begin = -1;
  if (marks_) {
    profileStep = marks_->steps.size();
    begin = device_.markTime();
  }
  switch (mode) {
  case StepMode::Eager:
    issue(ops, options_.syncEach, stepName, profileStep);
    if (newSignature)
      rememberEagerCall(state, std::move(*newSignature));
    break;
  case StepMode::Capture:
    device_.beginCapture(stepName);
    try {
      issue(ops, /*syncEach=*/false, stepName);
      rememberGraph(device_, state, prepared.signature, device_.endCapture(stepName));
    } catch (...) {
      // Leave the stream usable for the error report and what follows.
      device_.cancelCapture();
      throw;
    }
    device_.replay(state.graphs.back().graph, stepName);
    break;
  case StepMode::Replay:
    device_.replay(usedGraph(state, prepared.signature), stepName);
    break;
  }
  if (mode != StepMode::Eager && options_.syncEach)
    device_.synchronize(stepName + ": its CUDA graph");
  if (marks_)
    marks_->steps.push_back({ProfiledStep{stepName, stepModeName(mode)}, begin,
                             device_.markTime()});
}

void GraphExecutor::printStep(size_t stepIndex, const PreparedStep &prepared, StepMode mode,
                            const std::string &why) const {
  const Piece &piece = manifest_.pieces[manifest_.graph.steps[stepIndex].piece];
  size_t variantIndex = prepared.variantIndex;
  const Variant &variant = piece.variants[variantIndex];
  const std::vector<DeviceOp> &ops = prepared.ops;
  *options_.verbose << "step " << stepIndex << ": piece " << piece.index << " (" << piece.name
                    << ", " << (piece.isSplitting ? "splitting" : "compute") << "), variant "
                    << variantIndex;
  if (!variant.symbols.empty()) {
    *options_.verbose << " {";
    bool first = true;
    for (const auto &entry : variant.symbols) {
      *options_.verbose << (first ? "" : ", ") << entry.first << "=" << entry.second;
      first = false;
    }
    *options_.verbose << "}";
  }
  *options_.verbose << ": " << stepModeName(mode) << (why.empty() ? "" : " (" + why + ")")
                    << "\n";
  for (const DeviceOp &op : ops) {
    if (op.kind == DeviceOp::Kind::Launch) {
      const LaunchCall &call = op.launch;
      *options_.verbose << "  launch " << call.kernel << " grid [" << call.grid[0] << ", "
                        << call.grid[1] << ", " << call.grid[2] << "] block [" << call.block[0]
                        << ", " << call.block[1] << ", " << call.block[2] << "] shared "
                        << call.sharedBytes << (op.skipped ? " (empty, skipped)" : "") << "\n";
    } else {
      const GemmCall &call = op.gemm;
      *options_.verbose << "  gemm " << manifestName(call.dtype);
      if (call.cDtype != call.dtype)
        *options_.verbose << "->" << manifestName(call.cDtype);
      *options_.verbose << " [" << call.c.sizes[0] << ", " << call.a.sizes[1] << ", "
                        << call.a.sizes[2] << "] x [" << call.b.sizes[0] << ", "
                        << call.b.sizes[1] << ", " << call.b.sizes[2] << "]"
                        << (call.hasBias ? " + bias" : "") << (op.skipped ? " (empty, skipped)" : "")
                        << "\n";
    }
  }
}

void GraphExecutor::issue(const std::vector<DeviceOp> &ops, bool syncEach,
                          const std::string &stepName, std::optional<size_t> profileStep) {
  for (const DeviceOp &op : ops) {
    if (op.skipped)
      continue;
    int begin = profileStep ? device_.markTime() : -1;
    if (op.kind == DeviceOp::Kind::Launch)
      device_.launch(op.module, op.launch);
    else
      device_.gemm(op.gemm);
    if (profileStep) {
      ProfiledOp timed;
      timed.step = *profileStep;
      timed.isGemm = op.kind == DeviceOp::Kind::Gemm;
      if (timed.isGemm) {
        const GemmCall &g = op.gemm;
        timed.name = "gemm " + std::string(manifestName(g.dtype)) + " [" +
                     std::to_string(g.c.sizes[0]) + ", " + std::to_string(g.a.sizes[1]) + ", " +
                     std::to_string(g.a.sizes[2]) + "] x [" + std::to_string(g.b.sizes[0]) +
                     ", " + std::to_string(g.b.sizes[1]) + ", " + std::to_string(g.b.sizes[2]) +
                     "]";
      } else {
        timed.name = op.launch.kernel;
        for (int i = 0; i < 3; ++i) {
          timed.grid[i] = op.launch.grid[i];
          timed.block[i] = op.launch.block[i];
        }
      }
      timed.bytes = op.bytes;
      timed.flops = op.flops;
      marks_->ops.push_back({std::move(timed), begin, device_.markTime()});
    }
    if (syncEach)
      device_.synchronize(stepName + ": " + op.where);
  }
}

HostTensor GraphExecutor::download(const DeviceTensor &tensor) {
  HostTensor host;
  host.dtype = tensor.dtype;
  host.shape = tensor.shape;
  host.bytes.resize(size_t(tensor.byteSize()));
  if (!host.bytes.empty())
    device_.download(host.bytes.data(), tensor.ptr, int64_t(host.bytes.size()));
  return host;
}

} // namespace magi::runtime
