//===- Executor.cpp - Run an artifact on an abstract device ---------------===//

#include "magi/Runtime/Executor.h"

#include <algorithm>
#include <limits>

namespace magi::runtime {

namespace {

std::string inputLabel(const GraphInput &input, size_t userIndex) {
  return "user input " + std::to_string(userIndex) + " ('" + input.name + "')";
}

} // namespace

std::map<std::string, int64_t> bindInputs(const Graph &graph,
                                          const std::vector<HostTensor> &userInputs) {
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
    const HostTensor &given = userInputs[u];
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
    size_t u = userPosition[symbol.input];
    int64_t value = userInputs[u].shape[symbol.dim];
    const GraphInput &input = graph.inputs[symbol.input];
    if (value < symbol.min || (symbol.max && value > *symbol.max))
      throw RuntimeError(inputLabel(input, u) + ": size " + std::to_string(value) +
                         " of dimension " + std::to_string(symbol.dim) + " (symbol " +
                         symbol.name + ") is outside [" + std::to_string(symbol.min) + ", " +
                         (symbol.max ? std::to_string(*symbol.max) : std::string("inf")) + "]");
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
    const HostTensor &given = userInputs[u];
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
  return symbols;
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

GraphExecutor::GraphExecutor(const Manifest &manifest, std::string artifactDir, Device &device,
                             ExecutorOptions options)
    : manifest_(manifest), dir_(std::move(artifactDir)), device_(device), options_(options) {
  inputs_.resize(manifest_.graph.inputs.size());
}

GraphExecutor::~GraphExecutor() {
  // Device errors while tearing down are not worth a second report.
  try {
    releaseRunBuffers();
    for (auto &entry : freeBuffers_)
      device_.release(entry.second);
    for (DevicePtr ptr : inputAllocations_)
      device_.release(ptr);
    if (weights_)
      device_.release(weights_);
  } catch (const std::exception &) {
  }
}

void GraphExecutor::uploadWeights() {
  std::string path = dir_ + "/" + manifest_.weightsFile;
  std::string bytes = readFileBytes(path);
  if (int64_t(bytes.size()) != manifest_.weightsBytes)
    throw RuntimeError(path + ": holds " + std::to_string(bytes.size()) +
                       " bytes, but the manifest's weights.bytes is " +
                       std::to_string(manifest_.weightsBytes));
  if (manifest_.weightsBytes > 0) {
    weights_ = device_.allocate(manifest_.weightsBytes);
    device_.upload(weights_, bytes.data(), manifest_.weightsBytes);
  }
  for (size_t i = 0; i < manifest_.graph.inputs.size(); ++i) {
    const GraphInput &input = manifest_.graph.inputs[i];
    if (!input.isWeight())
      continue;
    DeviceTensor &t = inputs_[i];
    t.ptr = weights_ + DevicePtr(input.weightOffset);
    t.dtype = input.dtype;
    t.shape.clear();
    for (const Expr &size : input.shape)
      t.shape.push_back(size.evaluate(nullptr, "weight " + input.name));
  }
}

void GraphExecutor::setInputs(const std::vector<HostTensor> &userInputs) {
  symbols_ = bindInputs(manifest_.graph, userInputs);
  for (DevicePtr ptr : inputAllocations_)
    device_.release(ptr);
  inputAllocations_.clear();
  size_t u = 0;
  for (size_t i = 0; i < manifest_.graph.inputs.size(); ++i) {
    if (manifest_.graph.inputs[i].isWeight())
      continue;
    const HostTensor &host = userInputs[u++];
    DeviceTensor &t = inputs_[i];
    t.dtype = host.dtype;
    t.shape = host.shape;
    // Empty tensors still get a distinct, valid pointer.
    t.ptr = device_.allocate(std::max<int64_t>(int64_t(host.bytes.size()), 1));
    inputAllocations_.push_back(t.ptr);
    if (!host.bytes.empty())
      device_.upload(t.ptr, host.bytes.data(), int64_t(host.bytes.size()));
  }
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

DevicePtr GraphExecutor::allocateBuffer(int64_t bytes) {
  // Reuse a buffer of exactly this size from an earlier run: repeated runs
  // then allocate nothing. Fresh buffers come poisoned from the device.
  bytes = std::max<int64_t>(bytes, 1);
  DevicePtr ptr;
  auto it = freeBuffers_.find(bytes);
  if (it != freeBuffers_.end()) {
    ptr = it->second;
    freeBuffers_.erase(it);
  } else {
    ptr = device_.allocate(bytes);
  }
  runBuffers_.emplace_back(bytes, ptr);
  return ptr;
}

void GraphExecutor::releaseRunBuffers() {
  for (auto &entry : runBuffers_)
    freeBuffers_.emplace(entry.first, entry.second);
  runBuffers_.clear();
}

std::vector<DeviceTensor> GraphExecutor::run() {
  releaseRunBuffers();
  const Graph &graph = manifest_.graph;
  std::vector<std::vector<Value>> stepResults;
  for (size_t s = 0; s < graph.steps.size(); ++s) {
    std::vector<Value> args;
    for (const ValueRef &ref : graph.steps[s].args)
      args.push_back(resolve(ref, stepResults));
    stepResults.push_back(runStep(s, args));
  }
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

} // namespace

std::vector<GraphExecutor::Value> GraphExecutor::runStep(size_t stepIndex,
                                                         const std::vector<Value> &args) {
  const GraphStep &step = manifest_.graph.steps[stepIndex];
  const Piece &piece = manifest_.pieces[step.piece];
  size_t variantIndex = 0;
  const Variant &variant = chooseVariant(piece, variantIndex);
  std::string stepName = "step " + std::to_string(stepIndex) + " (piece " +
                         std::to_string(piece.index) + " '" + piece.name + "', variant " +
                         std::to_string(variantIndex) + ")";
  if (options_.verbose) {
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
    *options_.verbose << "\n";
  }

  std::vector<int64_t> values;
  std::vector<DevicePtr> buffers(size_t(variant.numBuffers), 0);
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
    return out;
  };

  for (size_t i = 0; i < variant.values.size(); ++i)
    values.push_back(eval(variant.values[i], "values[" + std::to_string(i) + "]"));

  for (size_t p = 0; p < variant.plan.size(); ++p) {
    const PlanOp &op = variant.plan[p];
    std::string opName = "plan[" + std::to_string(p) + "]";
    switch (op.kind) {
    case PlanOp::Kind::Alloc: {
      int64_t bytes = eval(op.bytes, opName + " bytes");
      if (bytes < 0)
        throw RuntimeError(stepName + ": " + opName + ": negative allocation size " +
                           std::to_string(bytes));
      buffers[op.buffer] = allocateBuffer(bytes);
      break;
    }
    case PlanOp::Kind::Launch: {
      LaunchCall call;
      call.kernel = op.kernel;
      bool empty = false;
      for (int i = 0; i < 3; ++i) {
        call.grid[i] = eval(op.grid[i], opName + " grid[" + std::to_string(i) + "]");
        call.block[i] = eval(op.block[i], opName + " block[" + std::to_string(i) + "]");
        if (call.grid[i] < 0 || call.block[i] < 0 || call.grid[i] > 0xFFFFFFFFLL ||
            call.block[i] > 0xFFFFFFFFLL)
          throw RuntimeError(stepName + ": " + opName + ": grid or block size out of range");
        empty |= call.grid[i] == 0 || call.block[i] == 0;
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
      if (options_.verbose)
        *options_.verbose << "  launch " << call.kernel << " grid [" << call.grid[0] << ", "
                          << call.grid[1] << ", " << call.grid[2] << "] block [" << call.block[0]
                          << ", " << call.block[1] << ", " << call.block[2] << "] shared "
                          << call.sharedBytes << (empty ? " (empty, skipped)" : "") << "\n";
      if (empty)
        break;
      auto key = std::make_pair(piece.index, variantIndex);
      auto module = modules_.find(key);
      if (module == modules_.end()) {
        std::optional<std::string> cubin;
        if (variant.cubin)
          cubin = dir_ + "/" + *variant.cubin;
        module = modules_.emplace(key, device_.loadModule(dir_ + "/" + variant.ptx, cubin)).first;
      }
      device_.launch(module->second, call);
      if (options_.syncEach)
        device_.synchronize(stepName + ": " + opName + " (kernel " + call.kernel + ")");
      break;
    }
    case PlanOp::Kind::Gemm: {
      GemmCall call;
      call.dtype = op.gemmDtype;
      int64_t elt = elementSize(op.gemmDtype);
      auto operand = [&](const Descriptor &d, const char *name) {
        EvaluatedDescriptor e = evalDescriptor(d, opName + " " + name);
        MatrixOperand m;
        m.ptr = e.base + DevicePtr(e.offset * elt);
        for (int i = 0; i < 3; ++i) {
          m.sizes[i] = e.sizes[i];
          m.strides[i] = e.strides[i];
        }
        // A batch of one has no stride that matters.
        if (m.sizes[0] == 1)
          m.strides[0] = 0;
        return m;
      };
      call.a = operand(op.a, "a");
      call.b = operand(op.b, "b");
      call.c = operand(op.c, "c");
      int64_t biasSize = 0;
      if (op.bias) {
        EvaluatedDescriptor bias = evalDescriptor(*op.bias, opName + " bias");
        if (bias.strides[0] != 1 && bias.sizes[0] > 1)
          throw RuntimeError(stepName + ": " + opName + ": the bias must be contiguous (stride 1)");
        call.hasBias = true;
        call.bias = bias.base + DevicePtr(bias.offset * elt);
        biasSize = bias.sizes[0];
      }
      checkGemm(call, biasSize, stepName + ": " + opName);
      if (options_.verbose)
        *options_.verbose << "  gemm " << manifestName(call.dtype) << " [" << call.c.sizes[0]
                          << ", " << call.a.sizes[1] << ", " << call.a.sizes[2] << "] x ["
                          << call.b.sizes[0] << ", " << call.b.sizes[1] << ", "
                          << call.b.sizes[2] << "]" << (call.hasBias ? " + bias" : "") << "\n";
      if (call.c.sizes[0] == 0 || call.c.sizes[1] == 0 || call.c.sizes[2] == 0)
        break;
      device_.gemm(call);
      if (options_.syncEach)
        device_.synchronize(stepName + ": " + opName + " (gemm)");
      break;
    }
    }
  }

  std::vector<Value> results;
  for (size_t r = 0; r < variant.results.size(); ++r) {
    const PieceResult &result = variant.results[r];
    std::string what = "results[" + std::to_string(r) + "]";
    Value v;
    if (!result.isTensor) {
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
  return results;
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
