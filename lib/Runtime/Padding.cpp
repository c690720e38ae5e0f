//===- Padding.cpp - Running a size as the next compile size -------------===//
//
// ExecutorOptions::padToCompileSizes: a size of the graph's symbol that no
// variant is specialized for runs as the next larger compile size. The user
// inputs are padded with zeros along the symbol's dimension, the outputs cut
// back. See docs/runtime.md ("Padding to the compile sizes").
//
//===----------------------------------------------------------------------===//

#include "magi/Runtime/Executor.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace magi::runtime {

namespace {

// Whether `size` is exactly the symbol `name` (not another expression of it).
bool isExactly(const Expr &size, const std::string &name) {
  std::vector<std::string> names = size.names();
  if (names.size() != 1 || names[0] != name)
    return false;
  for (int64_t probe : {int64_t(7), int64_t(1000003)}) {
    auto lookup = [&](const std::string &) -> std::optional<int64_t> { return probe; };
    if (size.evaluate(lookup, "a size") != probe)
      return false;
  }
  return true;
}

bool namesSymbol(const Expr &size, const std::string &name) {
  std::vector<std::string> names = size.names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The one dimension of `shape` that is exactly the symbol, if any. Throws
// when the symbol is in a size otherwise, or in two.
std::optional<size_t> paddedDim(const std::vector<Expr> &shape, const std::string &symbol,
                                const std::string &what) {
  std::optional<size_t> dim;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!namesSymbol(shape[d], symbol))
      continue;
    if (!isExactly(shape[d], symbol))
      throw RuntimeError("cannot pad to the compile sizes: " + what + " has size '" +
                         shape[d].text() + "' in dimension " + std::to_string(d) +
                         ": only a size that is " + symbol + " itself can be padded");
    if (dim)
      throw RuntimeError("cannot pad to the compile sizes: " + what + " has " + symbol +
                         " in dimensions " + std::to_string(*dim) + " and " +
                         std::to_string(d) + ": padding pads one dimension");
    dim = d;
  }
  return dim;
}

// Rows of `dim`: everything before it; a row's bytes: the dimension's
// extent times what is after it.
void rowsOf(const std::vector<int64_t> &shape, size_t dim, int64_t elementBytes,
            int64_t &outer, int64_t &innerBytes) {
  outer = 1;
  for (size_t d = 0; d < dim; ++d)
    outer *= shape[d];
  innerBytes = elementBytes;
  for (size_t d = dim + 1; d < shape.size(); ++d)
    innerBytes *= shape[d];
}

} // namespace

PaddingPlan planPadding(const Manifest &manifest) {
  const Graph &graph = manifest.graph;
  if (graph.symbols.size() != 1)
    throw RuntimeError("cannot pad to the compile sizes: the graph has " +
                       std::to_string(graph.symbols.size()) +
                       " symbols; padding needs exactly one");
  PaddingPlan plan;
  plan.symbol = graph.symbols[0].name;
  std::set<int64_t> sizes;
  for (const Piece &piece : manifest.pieces)
    for (const Variant &variant : piece.variants) {
      auto it = variant.symbols.find(plan.symbol);
      if (it != variant.symbols.end())
        sizes.insert(it->second);
    }
  if (sizes.empty())
    throw RuntimeError("cannot pad to the compile sizes: no variant is specialized for a size "
                       "of " + plan.symbol + " (compile with --compile-sizes)");
  plan.sizes.assign(sizes.begin(), sizes.end());
  // A choice made on the size would be made for the padded length, not the
  // real one: a branch of the runtime on it, or control flow on it inside
  // a piece, folded for each compile size (its piece then has no variant
  // for any size).
  for (size_t b = 0; b < graph.branches.size(); ++b) {
    const Expr &condition = graph.branches[b].condition;
    std::vector<std::string> names = condition.names();
    if (std::find(names.begin(), names.end(), plan.symbol) != names.end())
      throw RuntimeError("cannot pad to the compile sizes: branch " + std::to_string(b) +
                         "'s condition (" + condition.text() + ") reads " + plan.symbol +
                         ", and a padded run would choose for the padded size");
  }
  for (const Piece &piece : manifest.pieces)
    if (std::none_of(piece.variants.begin(), piece.variants.end(),
                     [](const Variant &v) { return v.symbols.empty(); }))
      throw RuntimeError("cannot pad to the compile sizes: piece " + std::to_string(piece.index) +
                         " (" + piece.name + ") has no variant for any size (control flow on " +
                         plan.symbol + " folded for each compile size), and a padded run "
                         "would take the padded size's way");
  if (graph.outputShapes.size() != graph.outputs.size())
    throw RuntimeError("cannot pad to the compile sizes: the artifact records no output "
                       "shapes (graph.output_shapes, format 8): compile it again");

  size_t user = 0;
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const GraphInput &input = graph.inputs[i];
    if (input.isWeight())
      continue;
    std::string what = "user input " + std::to_string(user++) + " ('" + input.name + "')";
    if (std::optional<size_t> dim = paddedDim(input.shape, plan.symbol, what))
      plan.inputDims[i] = *dim;
  }
  // A graph that writes an input (a KV cache at the given positions) would
  // write the padded positions too.
  if (!graph.mutations.empty()) {
    const GraphInput &written = graph.inputs[size_t(graph.mutations[0].input)];
    throw RuntimeError("cannot pad to the compile sizes: the graph writes '" + written.name +
                       "' (graph.mutations): the padded positions would be written too");
  }
  for (size_t o = 0; o < graph.outputs.size(); ++o) {
    std::string what = "output " + std::to_string(o);
    std::optional<size_t> dim = paddedDim(graph.outputShapes[o], plan.symbol, what);
    // An output without the symbol (the last position's logits, a pooled
    // vector) is computed from the padded sequence and cannot be cut back.
    if (!dim)
      throw RuntimeError("cannot pad to the compile sizes: " + what + " has no dimension " +
                         plan.symbol + " to cut back: what it holds for a padded sequence (its "
                         "last position's, a pooled value) is not the unpadded one's");
    plan.outputDims[o] = *dim;
  }
  return plan;
}

std::optional<int64_t> paddedSize(const PaddingPlan &plan, int64_t value) {
  auto it = std::lower_bound(plan.sizes.begin(), plan.sizes.end(), value);
  if (it == plan.sizes.end() || *it == value)
    return std::nullopt;
  return *it;
}

std::string PaddingStats::describe(const std::string &symbol) const {
  std::string text = "padding: " + symbol + " = " + std::to_string(given);
  if (padded)
    return text + " runs as " + std::to_string(size) + " (the next compile size)";
  return text + " runs unpadded (" + why + ")";
}

void Device::copyRows(DevicePtr dst, int64_t dstPitch, DevicePtr src, int64_t srcPitch,
                      int64_t widthBytes, int64_t rows) {
  for (int64_t r = 0; r < rows; ++r)
    copy(dst + DevicePtr(r * dstPitch), src + DevicePtr(r * srcPitch), widthBytes);
}

void Device::zeroRows(DevicePtr dst, int64_t pitch, int64_t widthBytes, int64_t rows) {
  std::vector<unsigned char> zeros(size_t(widthBytes), 0);
  for (int64_t r = 0; r < rows; ++r)
    upload(dst + DevicePtr(r * pitch), zeros.data(), widthBytes);
}

void GraphExecutor::setPadToCompileSizes(bool on) {
  // The plan stays when turned off: the inputs bound last may be padded,
  // and the next run's outputs are cut back by it.
  if (on && !padding_)
    padding_ = planPadding(manifest_);
  options_.padToCompileSizes = on;
}

std::optional<int64_t> GraphExecutor::bindPadded(std::vector<InputSignature> signatures) {
  paddingStats_ = PaddingStats{};
  if (!padding_ || !options_.padToCompileSizes)
    return std::nullopt;
  int64_t value = symbols_.at(padding_->symbol);
  paddingStats_.given = paddingStats_.size = value;
  std::optional<int64_t> size = paddedSize(*padding_, value);
  if (!size) {
    bool compiled = std::binary_search(padding_->sizes.begin(), padding_->sizes.end(), value);
    paddingStats_.why = compiled ? "a compile size" : "above every compile size";
    return std::nullopt;
  }
  size_t u = 0;
  for (size_t i = 0; i < manifest_.graph.inputs.size(); ++i) {
    if (manifest_.graph.inputs[i].isWeight())
      continue;
    auto dim = padding_->inputDims.find(i);
    if (dim != padding_->inputDims.end())
      signatures[u].shape[dim->second] = *size;
    ++u;
  }
  try {
    symbols_ = bindInputs(manifest_.graph, signatures);
  } catch (const RuntimeError &e) {
    // A graph check (torch.export's assertions on the sizes) that holds
    // for the given size but not for the compile size.
    paddingStats_.why = "at " + std::to_string(*size) + ": " + e.what();
    return std::nullopt;
  }
  paddingStats_.padded = true;
  paddingStats_.size = *size;
  return size;
}

std::vector<HostTensor> GraphExecutor::padHostInputs(const std::vector<HostTensor> &userInputs) {
  std::vector<InputSignature> signatures;
  for (const HostTensor &t : userInputs)
    signatures.push_back(InputSignature{t.dtype, t.shape});
  std::optional<int64_t> size = bindPadded(std::move(signatures));
  if (!size)
    return {};
  std::vector<HostTensor> padded = userInputs;
  size_t u = 0;
  for (size_t i = 0; i < manifest_.graph.inputs.size(); ++i) {
    if (manifest_.graph.inputs[i].isWeight())
      continue;
    const HostTensor &given = userInputs[u];
    HostTensor &t = padded[u++];
    auto dim = padding_->inputDims.find(i);
    if (dim == padding_->inputDims.end())
      continue;
    int64_t outer = 0, innerBytes = 0;
    rowsOf(given.shape, dim->second, elementSize(given.dtype), outer, innerBytes);
    int64_t from = given.shape[dim->second] * innerBytes, to = *size * innerBytes;
    t.shape[dim->second] = *size;
    t.bytes.assign(size_t(outer * to), 0);
    for (int64_t r = 0; r < outer; ++r)
      std::memcpy(t.bytes.data() + r * to, given.bytes.data() + r * from, size_t(from));
  }
  return padded;
}

void GraphExecutor::padDeviceInput(size_t input, const DeviceTensor &given, int64_t size) {
  size_t dim = padding_->inputDims.at(input);
  DeviceTensor t = given;
  t.shape[dim] = size;
  t.ptr = grownBuffer(paddedInputs_[input], std::max<int64_t>(t.byteSize(), 1),
                      "a padded input's buffer");
  int64_t outer = 0, innerBytes = 0;
  rowsOf(given.shape, dim, elementSize(given.dtype), outer, innerBytes);
  int64_t from = given.shape[dim] * innerBytes, to = size * innerBytes;
  if (outer > 0 && from > 0)
    device_.copyRows(t.ptr, to, given.ptr, from, from, outer);
  if (outer > 0 && to > from)
    device_.zeroRows(t.ptr + DevicePtr(from), to, to - from, outer);
  inputs_[input] = t;
}

std::vector<DeviceTensor> GraphExecutor::finishOutputs(std::vector<DeviceTensor> outputs) {
  const Graph &graph = manifest_.graph;
  auto lookup = [&](const std::string &name) -> std::optional<int64_t> {
    auto it = symbols_.find(name);
    if (it == symbols_.end())
      return std::nullopt;
    return it->second;
  };
  size_t user = 0;
  for (size_t o = 0; o < graph.outputs.size(); ++o) {
    if (graph.isMutation(o))
      continue;
    DeviceTensor &out = outputs[user];
    if (!graph.outputShapes.empty()) {
      std::vector<int64_t> expected;
      for (const Expr &size : graph.outputShapes[o])
        expected.push_back(size.evaluate(lookup, "shape of output " + std::to_string(o)));
      if (expected != out.shape)
        throw RuntimeError("output " + std::to_string(o) + " has shape " +
                           formatShape(out.shape) + ", but graph.output_shapes says " +
                           formatShape(expected));
    }
    std::optional<size_t> dim;
    if (paddingStats_.padded && padding_->outputDims.count(o))
      dim = padding_->outputDims.at(o);
    if (dim) {
      int64_t outer = 0, innerBytes = 0;
      rowsOf(out.shape, *dim, elementSize(out.dtype), outer, innerBytes);
      int64_t from = out.shape[*dim] * innerBytes;
      out.shape[*dim] = paddingStats_.given;
      int64_t to = out.shape[*dim] * innerBytes;
      // A leading dimension (all before it of size 1): its first rows are
      // the output's beginning. Else every row is cut and packed.
      if (outer > 1 && to > 0) {
        DevicePtr cut = grownBuffer(slicedOutputs_[user], out.byteSize(), "a cut output's buffer");
        device_.copyRows(cut, to, out.ptr, from, to, outer);
        out.ptr = cut;
      }
    }
    ++user;
  }
  return outputs;
}

} // namespace magi::runtime
