//===- Manifest.h - The artifact's manifest.json ----------------*- C++ -*-===//
//
// The in-memory form of docs/artifact-format.md (version 1). `loadManifest`
// checks every field and every cross-reference (piece and step indices,
// argument kinds, dtypes and ranks, the names each expression may use,
// buffers allocated before use, weight ranges) so that a bad artifact is
// refused with a message naming the field before anything runs.
//
//===----------------------------------------------------------------------===//

#ifndef MAGI_RUNTIME_MANIFEST_H
#define MAGI_RUNTIME_MANIFEST_H

#include "magi/Runtime/Expr.h"
#include "magi/Runtime/Tensor.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace magi::runtime {

constexpr int64_t kArtifactVersion = 1;

enum class InputKind { Parameter, Buffer, Constant, UserInput };

struct GraphInput {
  std::string name;
  InputKind kind = InputKind::UserInput;
  Dtype dtype = Dtype::F32;
  std::vector<Expr> shape;           // over the graph's symbols
  int64_t weightOffset = 0;          // weights only
  int64_t weightBytes = 0;
  bool isWeight() const { return kind != InputKind::UserInput; }
};

struct GraphSymbol {
  std::string name;
  int64_t min = 0;
  std::optional<int64_t> max;
  int64_t input = 0;
  int64_t dim = 0;
};

// {"input": i}, {"step": j, "result": k}, {"symbol": name} or {"int": n}.
struct ValueRef {
  enum class Kind { Input, StepResult, Symbol, Int };
  Kind kind = Kind::Int;
  int64_t index = 0;   // input index, or step index
  int64_t result = 0;  // step result index
  std::string symbol;
  int64_t value = 0;   // Int
};

struct GraphStep {
  int64_t piece = 0;
  std::vector<ValueRef> args;
};

struct Graph {
  std::vector<GraphInput> inputs;
  std::vector<GraphSymbol> symbols;
  std::vector<GraphStep> steps;
  std::vector<ValueRef> outputs;
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
  // gemm
  Dtype gemmDtype = Dtype::F32;  // of a and b
  Dtype gemmCDtype = Dtype::F32; // of c and the bias ("c_dtype", default gemmDtype)
  Descriptor a, b, c;
  std::optional<Descriptor> bias;
};

struct PieceResult {
  bool isTensor = false;
  Descriptor tensor;
  Expr index;
};

struct Kernel {
  std::string name;
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

struct Manifest {
  int64_t version = 0;
  std::string producer; // "magi <describe>, llvm <v>" for --verbose
  std::string targetChip;
  std::string weightsFile;
  int64_t weightsBytes = 0;
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

std::string describe(const ValueRef &ref);

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
