//===- ControlFlow.cpp - Import cond and while_loop as scf regions --------===//
//
// torch.export writes `torch.ops.higher_order.cond(pred, true_graph,
// false_graph, operands)` and `while_loop(cond_fn, body_fn, carried_inputs,
// additional_inputs)` with their subgraphs inline (`as_graph`: a graph of
// its own, with its own tensor metadata, whose inputs are the operands).
// They become `scf.if` and `scf.while` whose regions hold the subgraphs'
// ops: a subgraph reads the values it is given through its inputs, never
// the outer graph's names.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;

namespace magi::torch_import {

namespace {

/// The tensor names of an `as_tensors` argument; nullopt when it is another
/// kind or malformed.
std::optional<SmallVector<StringRef>> tensorNames(const Json *arg) {
  const Json *list = getArray(arg, "as_tensors");
  if (!list)
    return std::nullopt;
  SmallVector<StringRef> names;
  for (const Json &t : *list) {
    std::optional<StringRef> n = getString(asObject(t), "name");
    if (!n)
      return std::nullopt;
    names.push_back(*n);
  }
  return names;
}

} // namespace

FailureOr<SmallVector<Value>>
Importer::importSubgraph(const Json *arg, StringRef role, ValueRange operands,
                         Location loc) {
  const Json *graphArg = getObject(arg, "as_graph");
  const Json *sub = getObject(graphArg, "graph");
  if (!sub)
    return error(loc) << "expected a subgraph (as_graph) for the " << role;
  std::string name = getString(graphArg, "name").value_or(role).str();
  const Json *inputs = getArray(sub, "inputs");
  const Json *outputs = getArray(sub, "outputs");
  if (!inputs || !outputs)
    return error(loc) << "subgraph '" << name << "' has no inputs or outputs";
  if (inputs->size() != operands.size())
    return error(loc) << "subgraph '" << name << "' takes " << inputs->size()
                      << " inputs, but is given " << operands.size();

  // The subgraph's names and metadata replace the outer graph's while it is
  // imported; symbols stay shared (their bindings hold everywhere).
  std::map<std::string, Value> scope;
  for (auto [i, input] : llvm::enumerate(*inputs)) {
    std::optional<StringRef> n =
        getString(getObject(&input, "as_tensor"), "name");
    if (!n)
      return error(loc) << "input " << i << " of subgraph '" << name
                        << "' is not a tensor (" << unionKind(&input)
                        << "); Magi passes only tensors into subgraphs";
    scope[n->str()] = operands[i];
  }
  std::swap(values, scope);
  const Json *outerTensors = tensorValues, *outerSymInts = symIntValues;
  tensorValues = getObject(sub, "tensor_values");
  symIntValues = getObject(sub, "sym_int_values");
  std::string outerNode = currentNode;
  llvm::scope_exit restore([&] {
    std::swap(values, scope);
    tensorValues = outerTensors;
    symIntValues = outerSymInts;
    currentNode = outerNode;
  });

  if (const Json *nodes = getArray(sub, "nodes"))
    for (const Json &node : *nodes) {
      const Json *n = asObject(node);
      if (!n)
        return error(loc) << "a node of subgraph '" << name
                          << "' is not a JSON object";
      unsigned errorsBefore = errorCount;
      if (succeeded(importNode(*n)))
        continue;
      if (errorCount == errorsBefore)
        error(loc) << "cannot import a node of subgraph '" << name << "'";
      return failure();
    }
  SmallVector<Value> results;
  for (auto [i, out] : llvm::enumerate(*outputs)) {
    std::optional<StringRef> n = getString(getObject(&out, "as_tensor"), "name");
    if (!n)
      return error(loc) << "output " << i << " of subgraph '" << name
                        << "' is not a tensor (" << unionKind(&out) << ")";
    FailureOr<Value> v = lookup(*n, loc);
    if (failed(v))
      return failure();
    results.push_back(*v);
  }
  return results;
}

FailureOr<Value> Importer::predicate(Value tensor, StringRef role,
                                     Location loc) {
  auto type = dyn_cast<RankedTensorType>(tensor.getType());
  if (!type || !type.getElementType().isInteger(1) ||
      !type.hasStaticShape() || type.getNumElements() != 1)
    return error(loc) << "the " << role
                      << " must be a bool tensor of one element, got "
                      << tensor.getType();
  SmallVector<Value> zeros;
  if (type.getRank() > 0)
    zeros.assign(type.getRank(), indexConstant(0, loc));
  return tensor::ExtractOp::create(b, loc, tensor, zeros).getResult();
}

LogicalResult Importer::yieldAs(ValueRange values, TypeRange types,
                                StringRef what, Location loc,
                                SmallVectorImpl<Value> &out) {
  if (values.size() != types.size())
    return error(loc) << what << " gives " << values.size() << " values for "
                      << types.size();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(values, types))) {
    auto [v, type] = pair;
    if (v.getType() == type) {
      out.push_back(v);
      continue;
    }
    // A size one side knows statically and the other does not.
    if (!tensor::CastOp::areCastCompatible(v.getType(), type))
      return error(loc) << "value " << i << " of " << what << " has type "
                        << v.getType() << ", but " << type << " is expected";
    out.push_back(tensor::CastOp::create(b, loc, type, v));
  }
  return success();
}

LogicalResult Importer::convertCond(const NodeArgs &args, TypeRange resultTypes,
                                    Location loc,
                                    SmallVectorImpl<Value> &results) {
  const Json *pred = args.get("arg0");
  std::optional<SmallVector<StringRef>> operandNames =
      tensorNames(args.get("arg3"));
  if (!pred || !operandNames)
    return error(loc) << "expected cond(pred, true_graph, false_graph, "
                         "operands) with a tensor list of operands";
  SmallVector<Value> operands;
  for (StringRef n : *operandNames) {
    FailureOr<Value> v = lookup(n, loc);
    if (failed(v))
      return failure();
    operands.push_back(*v);
  }
  Value condition;
  StringRef predKind = unionKind(pred);
  if (predKind == "as_bool") {
    condition = arith::ConstantOp::create(
        b, loc, b.getBoolAttr(*asBoolean(*member(pred, predKind))));
  } else if (predKind == "as_sym_bool") {
    // A predicate on sizes (x.shape[0] > 4): a SymBool node's i1.
    FailureOr<Value> c = scalarValue(pred, loc, "arg0");
    if (failed(c))
      return failure();
    condition = *c;
  } else if (predKind == "as_tensor") {
    FailureOr<Value> p = tensorArg(args, "arg0", loc);
    if (failed(p))
      return failure();
    FailureOr<Value> c = predicate(*p, "predicate of cond", loc);
    if (failed(c))
      return failure();
    condition = *c;
  } else {
    return error(loc) << "a predicate of kind '" << predKind
                      << "' is not supported (a bool tensor, a SymBool or a "
                         "constant is)";
  }

  auto ifOp = scf::IfOp::create(b, loc, resultTypes, condition,
                                /*withElseRegion=*/true);
  for (auto [region, graphArg, role] :
       {std::tuple{&ifOp.getThenRegion(), "arg1", "true branch"},
        std::tuple{&ifOp.getElseRegion(), "arg2", "false branch"}}) {
    OpBuilder::InsertionGuard guard(b);
    Block &block = region->front();
    if (!block.empty())
      block.back().erase(); // an implicit empty yield
    b.setInsertionPointToEnd(&block);
    FailureOr<SmallVector<Value>> outs =
        importSubgraph(args.get(graphArg), role, operands, loc);
    if (failed(outs))
      return failure();
    SmallVector<Value> yielded;
    if (failed(yieldAs(*outs, resultTypes, (Twine("the ") + role).str(), loc,
                       yielded)))
      return failure();
    scf::YieldOp::create(b, loc, yielded);
  }
  results.append(ifOp.result_begin(), ifOp.result_end());
  return success();
}

LogicalResult Importer::convertWhileLoop(const NodeArgs &args,
                                         TypeRange resultTypes, Location loc,
                                         SmallVectorImpl<Value> &results) {
  std::optional<SmallVector<StringRef>> carriedNames =
      tensorNames(args.get("arg2"));
  std::optional<SmallVector<StringRef>> additionalNames =
      args.get("arg3") ? tensorNames(args.get("arg3"))
                       : std::optional<SmallVector<StringRef>>(
                             SmallVector<StringRef>());
  if (!carriedNames || !additionalNames)
    return error(loc) << "expected while_loop(cond_fn, body_fn, "
                         "carried_inputs, additional_inputs) with tensor "
                         "lists of inputs (Magi carries only tensors)";
  auto lookupAll = [&](ArrayRef<StringRef> names,
                       SmallVectorImpl<Value> &out) -> LogicalResult {
    for (StringRef n : names) {
      FailureOr<Value> v = lookup(n, loc);
      if (failed(v))
        return failure();
      out.push_back(*v);
    }
    return success();
  };
  SmallVector<Value> carried, additional;
  if (failed(lookupAll(*carriedNames, carried)) ||
      failed(lookupAll(*additionalNames, additional)))
    return failure();
  SmallVector<Value> inits;
  if (failed(yieldAs(carried, resultTypes, "the carried inputs", loc, inits)))
    return failure();

  auto whileOp = scf::WhileOp::create(b, loc, resultTypes, inits);
  SmallVector<Location> locs(resultTypes.size(), loc);
  {
    OpBuilder::InsertionGuard guard(b);
    Block *before = b.createBlock(&whileOp.getBefore(), {}, resultTypes, locs);
    SmallVector<Value> inputs(before->getArguments());
    llvm::append_range(inputs, additional);
    FailureOr<SmallVector<Value>> outs =
        importSubgraph(args.get("arg0"), "condition", inputs, loc);
    if (failed(outs))
      return failure();
    if (outs->size() != 1)
      return error(loc) << "the condition of while_loop gives " << outs->size()
                        << " values, not one";
    FailureOr<Value> c = predicate(outs->front(), "condition of while_loop", loc);
    if (failed(c))
      return failure();
    scf::ConditionOp::create(b, loc, *c, before->getArguments());

    Block *after = b.createBlock(&whileOp.getAfter(), {}, resultTypes, locs);
    inputs.assign(after->getArguments().begin(), after->getArguments().end());
    llvm::append_range(inputs, additional);
    outs = importSubgraph(args.get("arg1"), "body", inputs, loc);
    if (failed(outs))
      return failure();
    SmallVector<Value> next;
    if (failed(yieldAs(*outs, resultTypes, "the body", loc, next)))
      return failure();
    scf::YieldOp::create(b, loc, next);
  }
  results.append(whileOp.result_begin(), whileOp.result_end());
  return success();
}

} // namespace magi::torch_import
