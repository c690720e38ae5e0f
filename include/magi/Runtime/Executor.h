//===- Executor.h - Run an artifact on an abstract device -------*- C++ -*-===//
//
// Everything of magi-run that is not CUDA: checking the user inputs against
// the graph, choosing each step's variant, evaluating its values, walking
// its plan (alloc, launch, gemm) and its results, and passing values between
// steps; and loading the weights (mapping the files they are read from,
// checking their CRC-32s, gathering strided views, rebinding them to another
// archive). The device (CUDA in tools/magi-run, a host imitation in the unit
// tests) only allocates, copies, loads modules, launches and multiplies.
//
//===----------------------------------------------------------------------===//

#ifndef MAGI_RUNTIME_EXECUTOR_H
#define MAGI_RUNTIME_EXECUTOR_H

#include "magi/Runtime/Manifest.h"
#include "magi/Runtime/Profile.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <tuple>

namespace magi::runtime {

using DevicePtr = uint64_t;

// One kernel parameter, as cuLaunchKernel takes it: `size` bytes at `bytes`.
struct KernelParam {
  alignas(8) unsigned char bytes[8] = {};
  unsigned size = 8;

  static KernelParam i64(int64_t v) { return make(&v, 8); }
  static KernelParam i32(int32_t v) { return make(&v, 4); }
  static KernelParam f32(float v) { return make(&v, 4); }
  static KernelParam f64(double v) { return make(&v, 8); }
  static KernelParam pointer(DevicePtr v) { return make(&v, 8); }
  int64_t asI64() const { int64_t v; std::memcpy(&v, bytes, 8); return v; }
  int32_t asI32() const { int32_t v; std::memcpy(&v, bytes, 4); return v; }
  float asF32() const { float v; std::memcpy(&v, bytes, 4); return v; }
  double asF64() const { double v; std::memcpy(&v, bytes, 8); return v; }

private:
  static KernelParam make(const void *v, unsigned size) {
    KernelParam p;
    std::memcpy(p.bytes, v, size);
    p.size = size;
    return p;
  }
};

struct LaunchCall {
  std::string kernel;
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {1, 1, 1};
  int64_t sharedBytes = 0;
  std::vector<KernelParam> params;
  // The kernel waits for the previous grid at entry: a device may launch it
  // while that grid still runs (programmatic dependent launch).
  bool programmatic = false;
};

// A gemm operand [batch, rows, cols]; `ptr` already includes the offset.
struct MatrixOperand {
  DevicePtr ptr = 0;
  int64_t sizes[3] = {0, 0, 0};
  int64_t strides[3] = {0, 0, 0};
};

// c[b] = a[b] x b[b] (+ bias on every row); see checkGemm for the rules.
struct GemmCall {
  Dtype dtype = Dtype::F32;  // of a and b
  Dtype cDtype = Dtype::F32; // of c and the bias
  MatrixOperand a, b, c;
  bool hasBias = false;
  DevicePtr bias = 0; // n contiguous elements
  // From a piece's variant for any size of a symbol: its row count changes
  // with the sizes a run is given, so an algorithm chosen for another row
  // count of the same size class may serve (CudaDevice::gemm).
  bool anySize = false;
};

// One launch or gemm of a piece call, evaluated on the host before any of
// the call's work is issued (so that it can be compared with the previous
// call's, and captured or replayed as a whole).
struct DeviceOp {
  enum class Kind { Launch, Gemm };
  Kind kind = Kind::Launch;
  LaunchCall launch;
  int module = -1; // launch only
  GemmCall gemm;
  bool skipped = false; // an empty grid or an empty gemm: nothing to issue
  std::string where;    // "plan[3] (kernel k0)", for errors after a launch
  // For profiles: the bytes its views span (ProfiledOp::bytes; -1 when the
  // artifact gives no dtypes) and a gemm's floating-point operations.
  int64_t bytes = -1;
  double flops = 0;
};

// Whether `variant` of `piece` serves any size of the piece's symbols: the
// piece takes symbols (index arguments) and the variant fixes none.
bool isVariantForAnySize(const Piece &piece, const Variant &variant);

// The bytes that decide whether a piece call's captured CUDA graph can be
// replayed: the variant and, for every launch and gemm, everything the
// device is given (kernel, grid, block, shared bytes, each parameter's
// bytes; dtypes, operand pointers, sizes, strides, bias).
std::string deviceWorkSignature(size_t variantIndex, const std::vector<DeviceOp> &ops);

enum class StepMode { Eager, Capture, Replay };
const char *stepModeName(StepMode mode); // "eager", "captured", "replayed"

// One step's CUDA graphs: one per signature it was called with and
// captured for (a server alternating between a few sizes replays each),
// and the signature of its last eager call.
struct StepGraphState {
  struct Captured {
    std::string signature;
    int graph; // the device's graph handle
  };
  // The signatures of the last eager calls (at most kMostGraphsPerStep,
  // the oldest first): a call whose signature is among them captures.
  std::vector<std::string> eagerSignatures;
  std::vector<Captured> graphs;         // the least recently used first
};

// The most graphs a step keeps: capturing another releases the least
// recently used one.
constexpr size_t kMostGraphsPerStep = 8;

// How a step whose piece may use CUDA graphs runs now: replayed when a
// graph was captured for this signature; captured when one of its recent
// eager calls had this signature (the second call with it, also when
// calls of other signatures came between: sizes that alternate); eagerly
// otherwise (the first call with a signature: errors are then reported per
// launch).
StepMode chooseStepMode(const StepGraphState &state, const std::string &signature);
// Records an eager call with `signature` (StepGraphState::eagerSignatures).
void rememberEagerCall(StepGraphState &state, std::string signature);

class Device {
public:
  virtual ~Device() = default;
  // At least 256-byte aligned, filled with 0xFF bytes so that what no
  // kernel writes is visible; never returns 0.
  virtual DevicePtr allocate(int64_t bytes) = 0;
  virtual void release(DevicePtr ptr) = 0;
  // Copies `bytes` bytes to the device. Returns once `src` may be reused;
  // the copy itself may still be under way, ordered before all later work
  // (its errors then surface at the next synchronize).
  virtual void upload(DevicePtr dst, const void *src, int64_t bytes) = 0;
  // Copies `bytes` bytes that `fill` produces to the device, in chunks:
  // `fill(host, offset, n)` writes bytes [offset, offset + n) of the source
  // into `host`, a buffer of the device's (pinned memory on a GPU), chunk by
  // chunk in order. A chunk's copy may run while the next one is filled.
  // Returns once the last chunk is filled, like upload. An exception from
  // `fill` ends the upload and passes on. This one fills a host buffer of
  // at most 64 MiB and uploads it, chunk by chunk.
  using ChunkFiller = std::function<void(unsigned char *host, int64_t offset, int64_t bytes)>;
  virtual void uploadFilled(DevicePtr dst, int64_t bytes, const ChunkFiller &fill);
  virtual void download(void *dst, DevicePtr src, int64_t bytes) = 0;
  // Copies `bytes` bytes between device buffers, ordered after the work
  // queued so far (a mutated input written back).
  virtual void copy(DevicePtr dst, DevicePtr src, int64_t bytes) = 0;
  // Loads a piece variant's module (cubin when given, else PTX); returns a
  // handle for launch.
  virtual int loadModule(const std::string &ptxPath, const std::optional<std::string> &cubinPath) = 0;
  virtual void launch(int module, const LaunchCall &call) = 0;
  virtual void gemm(const GemmCall &call) = 0;
  // Waits for the work queued so far and reports its errors, naming `what`.
  virtual void synchronize(const std::string &what) = 0;
  // Fills a buffer with 0xFF bytes again (what allocate does).
  virtual void poison(DevicePtr ptr, int64_t bytes) = 0;
  // Copies `rows` rows of `widthBytes` bytes between device buffers, row r
  // from src + r * srcPitch to dst + r * dstPitch, ordered like copy. This
  // one copies row by row.
  virtual void copyRows(DevicePtr dst, int64_t dstPitch, DevicePtr src, int64_t srcPitch,
                        int64_t widthBytes, int64_t rows);
  // Sets `rows` rows of `widthBytes` bytes, `pitch` apart from dst on, to
  // zero, ordered like copy. This one uploads zeros row by row.
  virtual void zeroRows(DevicePtr dst, int64_t pitch, int64_t widthBytes, int64_t rows);

  // CUDA graphs. Between beginCapture and endCapture, launches and gemms
  // are recorded, not run; endCapture returns a graph that runs nothing
  // until replayed. cancelCapture ends a capture that failed half-way and
  // drops what it recorded. `what` names the step in errors.
  virtual void beginCapture(const std::string &what) = 0;
  virtual int endCapture(const std::string &what) = 0;
  virtual void cancelCapture() = 0;
  virtual void replay(int graph, const std::string &what) = 0;
  virtual void releaseGraph(int graph) = 0;

  // Profiling (ExecutorOptions::profile). markTime queues a mark after the
  // work queued so far and returns its handle; millisecondsBetween reads
  // the time between two marks once that work is done (after synchronize);
  // clearTimeMarks frees them all. A device that cannot time its work
  // throws from markTime.
  virtual int markTime();
  virtual double millisecondsBetween(int from, int to);
  virtual void clearTimeMarks() {}
};

struct DeviceTensor {
  DevicePtr ptr = 0;
  Dtype dtype = Dtype::F32;
  std::vector<int64_t> shape;
  int64_t byteSize() const { return numElements(shape) * elementSize(dtype); }
};

struct ExecutorOptions {
  // Per step: piece, variant, kernels launched and gemms.
  std::ostream *verbose = nullptr;
  // Synchronize and check after every launch and gemm (after the whole
  // graph for a captured or replayed step).
  bool syncEach = false;
  // Capture the compute pieces (cuda_graph: true) into CUDA graphs and
  // replay them while their parameters stay the same.
  bool cudaGraphs = true;
  // With cudaGraphs: capture the whole run instead, every step in one graph
  // (splitting pieces included: MagiCompiler's FULL mode), replayed while
  // no step's parameters change.
  bool fullGraph = false;
  // Time every step of each run on the device, and every launch and gemm of
  // the steps that run eagerly (GraphExecutor::lastProfile). The marks are
  // queued between the work; they are not inside captured graphs.
  bool profile = false;
  // Run a size that is no compile size as the next larger one (vLLM's
  // padding to capture sizes): the user inputs are padded with zeros along
  // the symbol's dimension, the specialized variants run (and replay), and
  // the outputs are cut back. Only right for a graph whose outputs at a
  // position depend on no later position (a causal language model); see
  // docs/runtime.md. The constructor refuses an artifact it cannot pad.
  bool padToCompileSizes = false;
};

// What ExecutorOptions::padToCompileSizes may pad in an artifact: its one
// symbol, the sizes its variants are specialized for, and the one dimension
// of each user input and output that is exactly the symbol.
struct PaddingPlan {
  std::string symbol;
  std::vector<int64_t> sizes;          // increasing
  std::map<size_t, size_t> inputDims;  // graph input index -> dimension
  std::map<size_t, size_t> outputDims; // graph output index -> dimension
};
// Throws RuntimeError saying why the artifact cannot be padded: not one
// symbol, no compile sizes, no output shapes (format < 8), a user input or
// output whose size is another expression of the symbol or that has it in
// two dimensions, an output without it (nothing to cut back), a graph
// that writes an input (graph.mutations), or one that chooses on the size
// (a branch whose condition reads it, a piece without a variant for any
// size: control flow folded for each compile size).
PaddingPlan planPadding(const Manifest &manifest);
// The size a run with the symbol at `value` pads to: the smallest compile
// size above it; none when `value` is a compile size or above them all.
std::optional<int64_t> paddedSize(const PaddingPlan &plan, int64_t value);

// How the last setInputs/setDeviceInputs bound the symbol under
// ExecutorOptions::padToCompileSizes.
struct PaddingStats {
  bool padded = false;
  int64_t given = 0; // the symbol's value in the inputs
  int64_t size = 0;  // what the run uses (given when not padded)
  std::string why;   // when not padded: why
  // "padding: s70 = 100 runs as 512 (the next compile size)"
  std::string describe(const std::string &symbol) const;
};

// Reads each symbol from its user input, checks its range, then every user
// input's dtype, rank and sizes; errors name the input. Returns the symbols'
// values.
// A user input as bindInputs sees it: its dtype and sizes.
struct InputSignature {
  Dtype dtype = Dtype::F32;
  std::vector<int64_t> shape;
};
// Throws on the first of graph.checks that fails among those whose symbols
// are all in `symbols` (and, unless empty, that use `using_`).
void checkAssertions(const Graph &graph, const std::map<std::string, int64_t> &symbols,
                     const std::string &using_);
std::map<std::string, int64_t> bindInputs(const Graph &graph,
                                          const std::vector<InputSignature> &userInputs);
std::map<std::string, int64_t> bindInputs(const Graph &graph,
                                          const std::vector<HostTensor> &userInputs);

// Checks a gemm's shapes and strides (the rules of docs/artifact-format.md);
// `where` names the plan step in errors.
void checkGemm(const GemmCall &call, int64_t biasSize, const std::string &where);

// What GraphExecutor::uploadWeights did.
struct WeightLoadStats {
  int64_t tensors = 0;       // weights uploaded
  int64_t storages = 0;      // distinct storages read and checked
  int64_t files = 0;         // files they were read from
  int64_t bytesRead = 0;     // stored bytes of those storages
  int64_t bytesUploaded = 0; // dense bytes copied to the device
  int64_t inflated = 0;      // storages inflated (method deflate)
  int64_t gathered = 0;      // weights with a non-dense view, gathered on the host
  int64_t streamed = 0;      // storages read from their file straight into upload chunks
  double seconds = 0;        // opening the first file to the last byte on the device
  double prepareSeconds = 0; // of those: opening and mapping the files, allocating
  double fillSeconds = 0;    // and reading + checking streamed storages into upload chunks
  // "weights: 291 tensors, 13.477 GB from 1 file(s) in 2.310 s (5.83 GB/s)"
  std::string describe() const;
};

// How the last run wrote back the inputs the graph mutates
// (GraphExecutor::mutationStats): in place (a piece wrote the new value into
// the input's memory) or copied there after the run.
struct MutationStats {
  int64_t inPlace = 0;
  int64_t copied = 0;
  int64_t copiedBytes = 0;
  // "mutations: 2 written in place, 1 copied back (8 bytes)"
  std::string describe() const;
};

// How the last setDeviceInputs bound the inputs: those copied into the
// executor's own buffers because they moved (GraphExecutor::inputStats).
struct InputStats {
  int64_t staged = 0;
  int64_t stagedBytes = 0;
};

// How a run's plan buffers were placed (GraphExecutor::memoryStats).
struct RunMemoryStats {
  int64_t buffers = 0;     // plan buffers (alloc ops) of all steps
  int64_t bufferBytes = 0; // their sizes (each rounded up to 256 bytes) added up
  int64_t peakLiveBytes = 0; // the most of them live at once: no placement needs less
  int64_t arenaBytes = 0;  // the one device allocation they share
  // "run buffers: 1310 buffers, 52.100 GB in all, live at most 0.580 GB,
  //  placed in 0.612 GB"
  std::string describe() const;
};

// Where each buffer goes: offsets (multiples of 256) into one arena such that
// two buffers whose live ranges [start, end] overlap never overlap in
// bytes. Greedy: the largest first, each at the lowest offset free for its
// whole range. `offsets` is filled in the order of `bytes`.
struct BufferLifetime {
  int64_t bytes = 0;
  int64_t start = 0, end = 0; // inclusive, in any unit of time
};
RunMemoryStats placeBuffers(const std::vector<BufferLifetime> &buffers,
                            std::vector<int64_t> &offsets);

// CRC-32 (crc32Update's) of `bytes` bytes, computed in `chunkBytes` pieces
// on up to `threads` std::threads (0: hardware_concurrency) and combined
// with crc32Combine; one thread for less than two chunks.
uint32_t crc32Parallel(const void *data, size_t bytes, size_t chunkBytes = size_t(16) << 20,
                       unsigned threads = 0);

// The size of the pieces `bytes` bytes are cut into for `threads` threads
// (each takes pieces in turn): about `targetBytes`, but as many pieces as a
// whole number of rounds of `threads`, so no round runs with most threads
// idle (a 33.5 MB storage in 2 MB pieces is 17 pieces: two rounds on 16
// threads, the second with one piece), and no smaller than `minBytes`. A
// multiple of 4 KiB; at least 1.
int64_t balancedPieceBytes(int64_t bytes, unsigned threads, int64_t targetBytes,
                           int64_t minBytes);

// Whether a view of `shape` with `strides` (in elements) is dense
// row-major: its elements are contiguous in order (sizes of 1 may have any
// stride; an empty view is dense).
bool isDenseView(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides);

// Copies the elements of a strided view of `storage` (elements of
// `elementSize` bytes; `storageOffset` and `strides` in elements, checked
// beforehand with checkView) to `out`, dense row-major: row by row, or in
// 64x64-element blocks for a transpose (a dimension other than the last
// with stride 1).
void gatherView(const unsigned char *storage, int64_t elementSize,
                const std::vector<int64_t> &shape, const std::vector<int64_t> &strides,
                int64_t storageOffset, unsigned char *out);

// Where a weight file lies: `file.path` when absolute, else inside
// `artifactDir`.
std::string weightFilePath(const std::string &artifactDir, const WeightFile &file);

// magi-run --weights-from: points every weight of `manifest` at the entry
// of the torch.export archive `archivePath` with the same name once the
// first path component (the archive's folder, named after its file) is
// stripped from both, taking that entry's method, offset, sizes and CRC-32
// from the archive's directory and keeping each weight's view, which must
// fit the new storage. Every missing entry and too short storage is listed,
// then it throws RuntimeError; on success `manifest.weightFiles` is the
// archive alone (its absolute path and size). A packed artifact (weights in
// its own weights.bin, entry "") cannot be rebound. Weights without a
// reference (--no-weights) are left as they are.
void rebindWeights(Manifest &manifest, const std::string &archivePath);

class GraphExecutor {
public:
  GraphExecutor(const Manifest &manifest, std::string artifactDir, Device &device,
                ExecutorOptions options = {});
  ~GraphExecutor();

  // Uploads every weight once, into one device allocation (each weight
  // dense at a 256-byte aligned offset): maps each weight file (its size
  // must be the one recorded), reads each distinct storage (in place when
  // stored, inflated when deflated), checks its CRC-32, and uploads each
  // weight's view of it (a dense view straight from the storage, any other
  // gathered on the host first). Errors name the weight, the entry and the
  // file. Ends with the device synchronized; weightStats() tells what it did.
  void uploadWeights();
  // Uses the weights that `other` (an executor of the same manifest, which
  // must outlive this one) uploaded, instead of uploading them again.
  void shareWeights(const GraphExecutor &other);
  const WeightLoadStats &weightStats() const { return weightStats_; }
  // Checks and uploads the user inputs (in graph order). An input of the
  // same byte size as before is uploaded into the same device buffer, so
  // that captured graphs stay valid.
  void setInputs(const std::vector<HostTensor> &userInputs);
  // Checks the user inputs (in graph order) and reads them where they are
  // on the device, without a copy: they must stay valid and unchanged
  // until the runs that read them are done. Buffers setInputs uploaded
  // before are freed. An input that moves (is given at another address
  // than at the previous call) is copied into a buffer of the executor's
  // own from then on, so that the steps' CUDA graphs replay; not one the
  // graph mutates, nor one larger than kMostStagedInputBytes.
  void setDeviceInputs(const std::vector<DeviceTensor> &userInputs);
  static constexpr int64_t kMostStagedInputBytes = int64_t(16) << 20;
  const InputStats &inputStats() const { return inputStats_; }
  // Turns ExecutorOptions::padToCompileSizes on or off from the next
  // setInputs/setDeviceInputs on; turning it on throws (planPadding) when
  // the artifact cannot be padded.
  void setPadToCompileSizes(bool on);
  // With ExecutorOptions::padToCompileSizes: what the last bind padded.
  const PaddingStats &paddingStats() const { return paddingStats_; }
  const std::optional<PaddingPlan> &paddingPlan() const { return padding_; }
  // Runs every step and writes the graph's mutations back into their
  // inputs (Graph::mutations); returns the other outputs, in graph order,
  // valid until the next run.
  std::vector<DeviceTensor> run();
  const MutationStats &mutationStats() const { return mutationStats_; }
  HostTensor download(const DeviceTensor &tensor);
  // Fills the plan buffers (the whole arena) with 0xFF bytes again: what a
  // later run (or a replay) does not write then shows, as on the first run.
  void poisonPlanBuffers();
  // Frees what runs hold on the device (the arena, CUDA graphs) and
  // forgets the steps' evaluations; weights and inputs stay. The outputs
  // of earlier runs are gone with it; a later run allocates again.
  void releaseRunState();
  // How the last run's plan buffers were placed.
  const RunMemoryStats &memoryStats() const { return memoryPlan_.stats; }

  const std::map<std::string, int64_t> &symbols() const { return symbols_; }
  // How each step ran in the last run.
  const std::vector<StepMode> &lastRunModes() const { return lastRunModes_; }
  // How many times a step was evaluated on the host (not taken from the
  // previous call's evaluation).
  int64_t numStepEvaluations() const { return numStepEvaluations_; }
  // How many times each loop's body ran in the last run (graph.loops' order;
  // a loop inside another: over all of the outer one's iterations).
  const std::vector<int64_t> &lastLoopIterations() const { return lastLoopIterations_; }
  // Which part each branch took in the last run (graph.branches' order):
  // true for its then part (a branch inside a loop: the last time it ran).
  const std::vector<bool> &lastBranchesTaken() const { return lastBranchesTaken_; }
  // With ExecutorOptions::profile: the last run's times (the run ends with
  // the device synchronized to read them).
  const RunProfile &lastProfile() const { return profile_; }

private:
  // setDeviceInputs' copy of an input that moved (see there).
  void stageIfMoving(size_t input, const DeviceTensor &given);
  // With padding on and symbols_ bound to the user inputs (`signatures`):
  // the size the symbol pads to, symbols_ bound again to the inputs padded
  // to it; none when the run is not padded (paddingStats_ says why: a
  // compile size, above them all, or a graph check that refuses it).
  std::optional<int64_t> bindPadded(std::vector<InputSignature> signatures);
  // The user inputs padded as bindPadded decides; empty when not padded.
  std::vector<HostTensor> padHostInputs(const std::vector<HostTensor> &userInputs);
  // Copies user input `input` (given) into its padded buffer, zeros after.
  void padDeviceInput(size_t input, const DeviceTensor &given, int64_t size);
  // Checks the outputs' shapes against graph.output_shapes and, when the
  // run was padded, cuts each back to the given size.
  std::vector<DeviceTensor> finishOutputs(std::vector<DeviceTensor> outputs);
  struct Value {
    bool isTensor = false;
    DeviceTensor tensor;
    int64_t index = 0;
  };
  // A step evaluated on the host: what it will issue, its signature
  // (deviceWorkSignature) and its results.
  // A result read from device memory once the step's work is done: its
  // element's address and dtype, and the most it may be (the value the
  // memory plan assumes; results holds it until the read).
  struct DeviceRead {
    size_t result = 0;
    DevicePtr ptr = 0;
    Dtype dtype = Dtype::I64;
    std::optional<int64_t> bound; // none: the value gives no size
    bool clamped = false;         // planned at 0 and bound, any value valid
  };
  struct PreparedStep {
    std::string name;
    size_t variantIndex = 0;
    std::vector<DeviceOp> ops;
    std::string signature;
    std::vector<Value> results;
    std::vector<DeviceRead> reads;
  };
  // Waits for the device and reads a step's `reads` into `results`.
  void readResults(const PreparedStep &step, std::vector<Value> &results);
  // Binds the symbols step `stepIndex` defines from its results; with
  // `check`, their ranges and the runtime assertions that use them.
  void bindStepSymbols(size_t stepIndex, const std::vector<Value> &results, bool check);
  // Forgets the symbols steps defined (a new run reads them again); with
  // a range, only those steps [first, end) define (before a loop's part or
  // a branch runs again: an assertion must not see a value an earlier
  // iteration left).
  void forgetStepSymbols(int64_t first = 0, int64_t end = INT64_MAX);
  // Whether some step reads a value on the host (graphReads_).
  bool graphReads_ = false;
  Value resolve(const ValueRef &ref, const std::vector<std::vector<Value>> &stepResults) const;
  // Each loop's carried values: the current iteration's while it runs, the
  // last ones after (resolve's {"carried"} and {"loop"} references).
  std::vector<std::vector<Value>> loopValues_;
  std::vector<int64_t> lastLoopIterations_;
  // Runs step `s` (eagerly or from its graph), reads and binds what it
  // defines; its results go to stepResults[s].
  void runStep(size_t s, std::vector<std::vector<Value>> &stepResults);
  // Runs loop `l` to its end: its carried values live in plan buffers of
  // their own, where each iteration's next values are copied (through a
  // second set when a next value lies in the first), so that every
  // iteration's steps read the same addresses and replay their graphs.
  void runLoop(size_t l, std::vector<std::vector<Value>> &stepResults);
  // Each branch's results in the last run (resolve's {"branch"}
  // references), and which part it took.
  std::vector<std::vector<Value>> branchValues_;
  std::vector<bool> lastBranchesTaken_;
  // Whether branch `b` takes its then part, from the symbols bound now.
  bool takesThen(size_t b) const;
  // After branch `b`'s taken part ran: its results are that part's.
  void finishBranch(size_t b, bool then, const std::vector<std::vector<Value>> &stepResults);
  // The steps a run takes, in order: `step` for each step outside loops
  // and in each branch's taken part, `loop` for each loop outside loops.
  void walkSteps(std::vector<std::vector<Value>> &stepResults,
                 const std::function<void(size_t)> &step, const std::function<void(size_t)> &loop);
  // The same for one part of the graph (a loop's condition or body, say).
  void walkPart(const GraphPart &part, std::vector<std::vector<Value>> &stepResults,
                const std::function<void(size_t)> &step, const std::function<void(size_t)> &loop);
  // What each part runs (Graph::items), by Graph::partId.
  std::vector<std::vector<GraphItem>> partItems_;
  // The step evaluated for `args`; the previous evaluation when the
  // arguments and symbols are those of the previous call (the evaluation is
  // a function of them: plan buffers keep their addresses), so a replay
  // costs the host almost nothing.
  const PreparedStep &prepareStep(size_t stepIndex, const std::vector<Value> &args);
  // Where a step's next alloc op (buffer number, bytes) puts its buffer.
  using BufferAddress = std::function<DevicePtr(int64_t buffer, int64_t bytes)>;
  PreparedStep evaluateStep(size_t stepIndex, const std::vector<Value> &args,
                            const BufferAddress &address);
  // Plans the run's buffers (planMemory) unless the plan of the previous
  // run holds for these symbols and input shapes; grows the arena to it.
  void ensureMemoryPlan();
  // Issues a prepared step on its own: eagerly, or captured or replayed
  // from its own graph (piecewise CUDA graphs).
  void issueStep(size_t stepIndex, const PreparedStep &step);
  // The whole run as one graph (ExecutorOptions::fullGraph).
  std::vector<DeviceTensor> runWhole();
  void printStep(size_t stepIndex, const PreparedStep &step, StepMode mode,
                 const std::string &why) const;
  const Variant &chooseVariant(const Piece &piece, size_t &variantIndex) const;
  // `profileStep`: the step's place in the profile when its ops are timed.
  void issue(const std::vector<DeviceOp> &ops, bool syncEach, const std::string &stepName,
             std::optional<size_t> profileStep = std::nullopt);
  std::vector<DeviceTensor> runSteps();
  // Writes each mutation's new value into its input (a copy unless it is
  // there already) and returns the outputs that are no mutation.
  std::vector<DeviceTensor> writeBackMutations(std::vector<DeviceTensor> outputs);
  // The profile's marks, queued during a run and read at its end.
  struct ProfileMarks {
    int start = -1;
    struct Step {
      ProfiledStep step;
      int begin = -1, end = -1;
    };
    struct Op {
      ProfiledOp op;
      int begin = -1, end = -1;
    };
    std::vector<Step> steps;
    std::vector<Op> ops;
  };
  void finishProfile();

  struct Allocation {
    int64_t bytes = 0;
    DevicePtr ptr = 0;
  };

  const Manifest &manifest_;
  std::string dir_;
  Device &device_;
  ExecutorOptions options_;
  DevicePtr weights_ = 0; // owned; 0 when none, or shared from another executor
  WeightLoadStats weightStats_;
  std::vector<DeviceTensor> inputs_; // one per graph input; weights point into weights_
  std::map<size_t, Allocation> inputAllocations_; // by graph input
  // setDeviceInputs: each input's address at the previous call, the inputs
  // that moved, and the buffers those are copied into (grown only).
  std::map<size_t, DevicePtr> boundAddresses_;
  std::set<size_t> movingInputs_;
  std::map<size_t, Allocation> stagedInputs_;
  InputStats inputStats_;
  std::optional<PaddingPlan> padding_;
  PaddingStats paddingStats_;
  // `buffer`, holding at least `bytes` bytes: grown only (the old one freed
  // after the queued work), so that its address stays while sizes do not
  // grow and captured graphs replay. `what` names it in errors.
  DevicePtr grownBuffer(Allocation &buffer, int64_t bytes, const char *what);
  std::map<size_t, Allocation> paddedInputs_;  // by graph input, grown only
  std::map<size_t, Allocation> slicedOutputs_; // by user output, grown only
  std::map<std::string, int64_t> symbols_;
  std::map<std::string, int> modules_; // (ptx file, cubin file) -> module
  // Every plan buffer of a run lives in one arena, at an offset planned
  // from its live range (from its alloc to the last plan op of any step
  // that reads it or a view of it; to the end for the graph's outputs):
  // memory is reused across steps and within a piece. The plan is a
  // function of the symbols and input shapes (its key), so a buffer keeps
  // its address from run to run, which is what lets a captured graph be
  // replayed. A new plan advances memoryGeneration_, part of each step's
  // evaluation key.
  struct MemoryPlan {
    std::vector<int64_t> key;
    std::vector<size_t> variants;                  // per step
    std::vector<std::vector<int64_t>> offsets, bytes; // per step, per alloc op in plan order
    // Per loop: the offsets of its carried values' two sets (set 0's, then set 1's).
    std::vector<std::vector<int64_t>> loopOffsets;
    RunMemoryStats stats;
  };
  std::vector<int64_t> memoryPlanKey() const; // the symbols, the inputs' dtypes and shapes
  // The plan for `key`; for a graph that reads values on the host, made
  // with them at each combination of their bounds and 0, each buffer the
  // largest.
  MemoryPlan planMemory(std::vector<int64_t> key);
  // One plan; `atLeast` (per step, per alloc op) raises buffers' sizes.
  MemoryPlan planMemoryOnce(std::vector<int64_t> key,
                            const std::vector<std::vector<int64_t>> *atLeast);
  // While planning (planMemory): bit k set, the k-th value read on the host
  // (in plan order) is at 0, else at its bound; planReadCount_ counts them.
  uint64_t planReadsAtZero_ = 0;
  size_t planReadCount_ = 0;
  // Up to this many reads, every combination of them at 0 and at their
  // bounds is planned (2^n plans); beyond, all at their bounds and all at 0.
  static constexpr size_t kMaxReadsPlannedAtEachEnd = 8;
  MemoryPlan memoryPlan_;
  bool hasMemoryPlan_ = false;
  Allocation arena_;
  int64_t memoryGeneration_ = 0;
  std::vector<StepGraphState> stepGraphs_; // one per step
  StepGraphState wholeGraph_;              // the run's, with fullGraph
  struct CachedStep {
    std::vector<int64_t> key; // the arguments and symbols it was evaluated for
    PreparedStep step;
  };
  std::vector<std::optional<CachedStep>> preparedSteps_; // one per step
  int64_t numStepEvaluations_ = 0;
  std::vector<StepMode> lastRunModes_;
  std::optional<ProfileMarks> marks_; // during a profiled run
  RunProfile profile_;
  MutationStats mutationStats_;
};

} // namespace magi::runtime

#endif // MAGI_RUNTIME_EXECUTOR_H
