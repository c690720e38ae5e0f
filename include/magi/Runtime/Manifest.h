//===- Manifest.h - The artifact's manifest.json ----------------*- C++ -*-===//
//
// The typed form of docs/artifact-format.md, for both sides: magi-compile
// fills these structs and writes them with `printManifest`; magi-run (and
// magi-compile, reading a cached artifact back) reads them with
// `parseManifest`, which checks every field and every cross-reference
// (piece and step indices, argument kinds, dtypes and ranks, the names each
// expression may use, buffers allocated before use, weight ranges) so that
// a bad artifact is refused with a message naming the field before anything
// runs. A field added or renamed here changes both sides at once.
//
//===----------------------------------------------------------------------===//

#ifndef MAGI_RUNTIME_MANIFEST_H
#define MAGI_RUNTIME_MANIFEST_H

#include "magi/Runtime/Expr.h"
#include "magi/Runtime/Tensor.h"
#include "magi/Runtime/Zip.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace magi::runtime {

constexpr int64_t kArtifactVersion = 14;
// Version 13 is version 14 without clamped reads (a read's "clamped");
// version 12 is version 13 without loops and branches inside others
// (graph.loops[l].in, graph.branches[b].in); version 11 is version 12
// without reads that have no bound; version 10 is version 11 without
// branches (graph.branches); version 9 is version 10 without loops
// (graph.loops); version 8 is version 9 without values read on the host
// (results {"read": ...}, symbols defined by a step); version 7 is version 8
// without graph.output_shapes; version 3 is version 4 without the dtypes of
// kernels' memref arguments, version 2 version 3 without concatenated
// weights: all still read.
constexpr int64_t kOldestArtifactVersion = 2;
// How deep loops and branches may nest (format 13): a run recurses once
// per level.
constexpr size_t kMaxControlNesting = 64;

enum class InputKind { Parameter, Buffer, Constant, UserInput };

// A file the weights are read from: a torch.export archive the weights are
// referenced in (its path relative to the artifact directory), or the
// artifact's own weights.bin (--pack-weights).
struct WeightFile {
  std::string path;
  int64_t bytes = 0; // the file's size when compiled
};

// Where one weight's bytes are: a storage (a zip entry, or a range of a
// packed file) and the tensor's strided view of it.
struct WeightRef {
  int64_t file = 0;            // index into Manifest::weightFiles
  std::string entry;           // the zip entry; "" in a packed file
  ZipMethod method = ZipMethod::Stored;
  int64_t offset = 0;          // where the stored bytes start in the file
  int64_t storedBytes = 0;     // their length in the file
  int64_t bytes = 0;           // the storage's length once inflated
  uint32_t crc32 = 0;          // CRC-32 of the inflated storage
  int64_t storageOffset = 0;   // of the view, in elements
  std::vector<int64_t> strides; // of the view, in elements

  // The storage is zip entry `entry` of weight file `file` (the view stays).
  void setStorage(int64_t fileIndex, const ZipEntry &zipEntry) {
    file = fileIndex;
    entry = zipEntry.name;
    method = zipEntry.method;
    offset = zipEntry.dataOffset;
    storedBytes = zipEntry.storedBytes;
    bytes = zipEntry.bytes;
    crc32 = zipEntry.crc32;
  }
};

struct GraphInput {
  std::string name;
  InputKind kind = InputKind::UserInput;
  Dtype dtype = Dtype::F32;
  std::vector<Expr> shape;           // over the graph's symbols
  // Weights only: where the bytes are. A weight without them comes from an
  // artifact compiled with --no-weights, which describes kernels but cannot
  // run.
  std::optional<WeightRef> weight;
  // A concatenated weight (magi-merge-projections): these graph inputs,
  // plain weights of the same dtype and trailing sizes, one after another
  // along dim 0. It has no `weight`; the runtime lays its parts out
  // adjacently and points it at the first.
  std::vector<int64_t> concatOf;
  bool isWeight() const { return kind != InputKind::UserInput; }
  bool isConcatenation() const { return !concatOf.empty(); }
};

// A symbol is read from a user input's dimension (`input`, `dim`) or, from
// format 9, from what a step gave (`step`, `result`, and `dim` for a
// tensor result's size; without it an index result): a size of the data,
// such as nonzero's count, known once that step has run.
struct GraphSymbol {
  std::string name;
  // None: unbounded (from format 12, a value read on the host that gives no
  // size has no minimum).
  std::optional<int64_t> min = 0;
  std::optional<int64_t> max;
  bool inRange(int64_t value) const {
    return (!min || value >= *min) && (!max || value <= *max);
  }
  // "[0, 12]", "[-inf, inf]".
  std::string rangeText() const {
    return "[" + (min ? std::to_string(*min) : std::string("-inf")) + ", " +
           (max ? std::to_string(*max) : std::string("inf")) + "]";
  }
  int64_t input = 0;
  int64_t dim = 0;
  std::optional<int64_t> step;
  int64_t result = 0;
  bool fromStep() const { return step.has_value(); }
};

// {"input": i}, {"step": j, "result": k}, {"symbol": name}, {"int": n},
// from format 10 {"loop": l, "result": k} (loop l's carried value k once
// it has ended) and {"carried": k} (in a loop's steps: its carried value k
// in the current iteration), and from format 11 {"branch": b, "result": k}
// (branch b's result k: the taken part's).
struct ValueRef {
  enum class Kind { Input, StepResult, Symbol, Int, LoopResult, Carried, BranchResult };
  Kind kind = Kind::Int;
  int64_t index = 0;   // input, step, loop (Carried too) or branch index
  int64_t result = 0;  // step result index, or carried value index
  std::string symbol;
  int64_t value = 0;   // Int
  bool namesLoop = false; // Carried: written {"carried": k, "loop": l} (format 13)
};

struct GraphStep {
  int64_t piece = 0;
  std::vector<ValueRef> args;
};

// The part of the graph a step, loop or branch is in: the graph itself,
// or part 0 (condition, then part) or 1 (body, else part) of a loop or
// branch (format 13: loops and branches nest).
struct GraphPart {
  enum class Owner { Graph, Loop, Branch };
  Owner owner = Owner::Graph;
  int64_t index = 0;
  int64_t part = 0;
  bool operator==(const GraphPart &o) const {
    return owner == o.owner && (owner == Owner::Graph || (index == o.index && part == o.part));
  }
  bool operator!=(const GraphPart &o) const { return !(*this == o); }
};

// What a part runs, in order: a step, or a whole loop or branch in it.
struct GraphItem {
  enum class Kind { Step, Loop, Branch };
  Kind kind = Kind::Step;
  int64_t index = 0;
};

// A while loop (format 10; torch.while_loop): steps [first, first +
// condSteps) compute the condition, the next bodySteps steps the body. Each
// iteration runs the condition's steps on the carried values; while
// `condition` (an index result of one of them) is not 0, the body's steps
// run and `next` becomes the carried values. `carried` are the initial
// values, tensors whose dtype and shape every iteration keeps.
struct GraphLoop {
  int64_t first = 0;
  int64_t condSteps = 0;
  int64_t bodySteps = 0;
  std::vector<ValueRef> carried;
  ValueRef condition;
  std::vector<ValueRef> next;
  GraphPart in; // the part holding the loop
  int64_t end() const { return first + condSteps + bodySteps; }
  bool contains(int64_t step) const { return step >= first && step < end(); }
};

// A branch (format 11; torch.cond that cannot run as a select): when
// `condition`, an expression over the symbols, is not 0 the run takes steps
// [first, first + thenSteps) and its results are `thenResults`; otherwise
// the next elseSteps steps and `elseResults`. Either part may have no steps
// (a branch that gives a value from before it).
struct GraphBranch {
  int64_t first = 0;
  int64_t thenSteps = 0;
  int64_t elseSteps = 0;
  Expr condition;
  std::vector<ValueRef> thenResults;
  std::vector<ValueRef> elseResults;
  GraphPart in; // the part holding the branch
  int64_t end() const { return first + thenSteps + elseSteps; }
  bool contains(int64_t step) const { return step >= first && step < end(); }
};

// A graph output that is the new value of a graph input (torch.export's
// buffer and user input mutations, such as a KV cache): the runtime writes it
// back into the input's memory (nothing to do when a piece wrote it there in
// place) and does not return it (format 5).
struct GraphMutation {
  int64_t output = 0;
  int64_t input = 0;
};

// A runtime assertion over the symbols (format 6): the run fails with
// `message` when `expr` is 0.
struct GraphCheck {
  Expr expr;
  std::string message;
};

struct Graph {
  std::vector<GraphInput> inputs;
  std::vector<GraphSymbol> symbols;
  std::vector<GraphCheck> checks;
  std::vector<GraphStep> steps;
  // Each by first step; one that holds another is listed before it.
  std::vector<GraphLoop> loops;
  std::vector<GraphBranch> branches;
  std::vector<ValueRef> outputs;
  // Each output's shape over the symbols (format 8; empty when read from
  // an older artifact).
  std::vector<std::vector<Expr>> outputShapes;
  std::vector<GraphMutation> mutations; // by output, increasing
  bool isMutation(size_t output) const {
    for (const GraphMutation &m : mutations)
      if (m.output == int64_t(output))
        return true;
    return false;
  }
  // Steps [first, end) of a part.
  std::pair<int64_t, int64_t> extent(const GraphPart &part) const;
  // The part holding a loop's or branch's part (the graph's holds itself).
  GraphPart parentOf(const GraphPart &part) const;
  // Whether `outer` is `inner` or holds it, however deep.
  bool encloses(const GraphPart &outer, GraphPart inner) const;
  // The innermost part holding `step`.
  GraphPart partOfStep(int64_t step) const;
  // The innermost loop that is `part`'s owner or holds it, if any.
  std::optional<int64_t> loopAround(GraphPart part) const;
  // What `part` runs, in order: its steps, and the loops and branches it
  // holds as one item each (a branch of no steps before whatever starts
  // where it is). Expects a checked manifest.
  std::vector<GraphItem> items(const GraphPart &part) const;
  // A number for each part: 0 the graph's, then two per loop, two per
  // branch.
  size_t partId(const GraphPart &part) const;
  size_t numParts() const { return 1 + 2 * (loops.size() + branches.size()); }
  // The outputs a run returns: those that are no mutation.
  size_t numUserOutputs() const { return outputs.size() - mutations.size(); }
};

// A piece argument or result: a tensor (dtype, rank) or an index.
struct ValueType {
  bool isTensor = false;
  Dtype dtype = Dtype::F32;
  int64_t rank = 0;
};

// A tensor in memory: base pointer plus offset/sizes/strides in elements.
struct Descriptor {
  enum class Base { Arg, Buffer };
  Base base = Base::Arg;
  int64_t baseIndex = 0;
  std::string baseName; // "arg3" or "b0", for messages
  Expr offset;
  std::vector<Expr> sizes;
  std::vector<Expr> strides;
};

struct KernelArg {
  enum class Kind { Memref, I64, I32, F32, F64 };
  Kind kind = Kind::I64;
  Descriptor memref;
  // A memref's element type (format 4): what its view's bytes are counted
  // in (magi-run --profile). Absent in older artifacts.
  std::optional<Dtype> dtype;
  Expr integer;
  double floating = 0;
};

struct PlanOp {
  enum class Kind { Alloc, Launch, Gemm };
  Kind kind = Kind::Alloc;
  // alloc
  int64_t buffer = 0;
  Expr bytes;
  // launch
  std::string kernel;
  Expr grid[3], block[3];
  Expr sharedBytes;
  std::vector<KernelArg> args;
  // The kernel waits for the previous grid at entry (format 7,
  // "programmatic"): it may be launched before that grid ends.
  bool programmatic = false;
  // gemm
  Dtype gemmDtype = Dtype::F32;  // of a and b
  Dtype gemmCDtype = Dtype::F32; // of c and the bias ("c_dtype", default gemmDtype)
  bool cDtypeGiven = false;      // "c_dtype" is written (it differs from dtype)
  Descriptor a, b, c;
  std::optional<Descriptor> bias;
};

// A tensor, an index computed on the host (`index`), or (format 9) an
// index read from device memory once the piece's work is done (`read`: one
// integer element of dtype `readDtype`, in [0, readBound]; from format 12
// without a bound when the value gives no size: any value; from format 14
// `readClamped`: any value, which gives sizes only as slice bounds, where
// it acts as its clamp to [0, readBound]).
struct PieceResult {
  bool isTensor = false;
  Descriptor tensor;
  Expr index;
  bool isRead = false;
  Descriptor read;
  Dtype readDtype = Dtype::I64;
  std::optional<Expr> readBound;
  bool readClamped = false;
};

struct Kernel {
  std::string name;
  // What the compiler chose ({"block_size": 256, "strategy": ...}): a JSON
  // object, informative only, or null.
  JsonValue config;
};

struct Variant {
  std::map<std::string, int64_t> symbols; // empty: any size
  std::string ptx;
  std::optional<std::string> cubin;
  std::vector<Kernel> kernels;
  std::vector<Expr> values;
  std::vector<PlanOp> plan;
  std::vector<PieceResult> results;
  int64_t numBuffers = 0; // buffers are b0 .. b(numBuffers-1)
};

struct Piece {
  int64_t index = 0;
  std::string name;
  bool isSplitting = false;
  /// -1 for a splitting piece (its graph_index is null).
  int64_t graphIndex = 0;
  bool cudaGraph = false;
  std::vector<ValueType> args;
  std::vector<ValueType> results;
  std::vector<Variant> variants;
};

struct Producer {
  std::optional<std::string> magi, llvm, ptxas;
  // "magi <describe>, llvm <v>, ptxas <v>" for --verbose.
  std::string describe() const;
};

struct Manifest {
  int64_t version = kArtifactVersion;
  Producer producer;
  std::string targetChip;
  std::string targetFeatures;
  std::string targetTriple = "nvptx64-nvidia-cuda";
  std::string sourceFile;
  std::optional<std::string> sourceSha256;
  std::vector<WeightFile> weightFiles;
  Graph graph;
  std::vector<Piece> pieces;

  // The type of a graph value reference (inputs are tensors).
  ValueType typeOf(const ValueRef &ref) const;
};

// Parses and checks `manifest.json` text; `sourceName` starts error
// messages. Throws RuntimeError.
Manifest parseManifest(const std::string &text, const std::string &sourceName);
// Reads DIR/manifest.json.
Manifest loadManifest(const std::string &artifactDir);

// The manifest as magi-compile writes it: JSON with two-space indentation,
// members sorted by key, and a final newline. parseManifest reads it back
// to an equal manifest.
std::string printManifest(const Manifest &manifest);

// A variant's "kernels", "values", "plan" and "results" as compact JSON:
// what the compile cache keeps of a compiled piece variant.
std::string printVariantBody(const Variant &variant);
// Reads what printVariantBody wrote, checked against the piece's signature
// (`piece.args`, `piece.results`). Throws RuntimeError.
Variant parseVariantBody(const std::string &text, const std::string &sourceName,
                         const Piece &piece);

// For callers built without exceptions (the compiler): the same parsers,
// returning false with the message in `error`.
bool tryParseManifest(const std::string &text, const std::string &sourceName, Manifest &manifest,
                      std::string &error) noexcept;
bool tryParseVariantBody(const std::string &text, const std::string &sourceName,
                         const Piece &piece, Variant &variant, std::string &error) noexcept;

std::string describe(const ValueRef &ref);

// Whether code for `targetChip` (the manifest's target.chip) runs on a GPU
// of `deviceChip` ("sm_90" for compute capability 9.0): the same chip, or
// its arch-specific variant ("sm_90a", Hopper's wgmma), which runs on that
// chip only.
bool targetRunsOn(const std::string &targetChip, const std::string &deviceChip);

// Parses "<prefix><N>" (e.g. "arg3" with prefix "arg"); nothing when
// malformed.
std::optional<int64_t> parseNumbered(const std::string &text, const std::string &prefix);

// What a name in a piece-variant expression refers to: argN (an index
// argument), argN.dD (size D of a tensor argument) or vN (a value).
struct VariantName {
  enum class Kind { ScalarArg, ArgDim, Value };
  Kind kind;
  int64_t index = 0;
  int64_t dim = 0;
};
std::optional<VariantName> parseVariantName(const std::string &name);

} // namespace magi::runtime

#endif // MAGI_RUNTIME_MANIFEST_H
