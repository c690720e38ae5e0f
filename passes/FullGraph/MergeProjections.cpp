//===- MergeProjections.cpp - One product for projections of one input ----===//
//
// Q/K/V and gate/up are separate products of the same activation with
// separate weights. At few tokens each one streams its weight with too few
// blocks to fill the GPU; at many, each is a smaller problem than it needs
// to be. The runtime can lay the weights out one after another, so their
// concatenation along dim 0 costs nothing: a weight argument that is the
// concatenation of others (`magi.concat_of`). One product over it, sliced,
// replaces the group.
//
//===----------------------------------------------------------------------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Import/TorchExport.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace magi {
#define GEN_PASS_DEF_MERGEPROJECTIONS
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;
using namespace magi;

namespace {

// A weight argument of the function with a static shape, used once.
struct WeightArg {
  BlockArgument arg;
  StringAttr kind, name;
};

std::optional<WeightArg> weightArg(func::FuncOp func, Value v, int64_t rank) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != &func.getBody().front() || !arg.hasOneUse())
    return std::nullopt;
  unsigned i = arg.getArgNumber();
  auto kind = func.getArgAttrOfType<StringAttr>(i, kInputKindAttr);
  auto name = func.getArgAttrOfType<StringAttr>(i, kNameAttr);
  auto type = dyn_cast<RankedTensorType>(arg.getType());
  if (!kind || kind.getValue() == "user_input" || !name || !type ||
      !type.hasStaticShape() || type.getRank() != rank ||
      !func.getArgAttr(i, kWeightAttr))
    return std::nullopt;
  return WeightArg{arg, kind, name};
}

// One projection: `mm(x, permute(w, [1, 0]))`, or `addmm(b, x, permute(w,
// [1, 0]))` with unit scales and a 1-d bias weight.
struct Projection {
  Operation *op;
  Value input;
  Operation *transpose; // the weight's magi.permute
  WeightArg weight;
  std::optional<WeightArg> bias;
  int64_t rows; // of the weight: the projection's output features
};

std::optional<Projection> matchProjection(func::FuncOp func, Operation *op,
                                          Value input) {
  Value self, mat2;
  Value biasValue;
  if (auto mm = dyn_cast<MmOp>(op)) {
    if (mm.getTransposeSelf() || mm.getTransposeMat2())
      return std::nullopt;
    self = mm.getSelf();
    mat2 = mm.getMat2();
  } else if (auto addmm = dyn_cast<AddmmOp>(op)) {
    if (addmm.getTransposeMat1() || addmm.getTransposeMat2() ||
        addmm.getBeta().convertToDouble() != 1.0 ||
        addmm.getAlpha().convertToDouble() != 1.0)
      return std::nullopt;
    self = addmm.getMat1();
    mat2 = addmm.getMat2();
    biasValue = addmm.getSelf();
  } else {
    return std::nullopt;
  }
  if (self != input || mat2 == input)
    return std::nullopt;
  auto transpose = mat2.getDefiningOp<PermuteOp>();
  if (!transpose || !transpose->hasOneUse() ||
      transpose.getDims() != ArrayRef<int64_t>{1, 0})
    return std::nullopt;
  std::optional<WeightArg> weight = weightArg(func, transpose.getSelf(), 2);
  if (!weight)
    return std::nullopt;
  auto weightType = cast<RankedTensorType>(weight->arg.getType());
  Projection p{op, input, transpose, *weight, std::nullopt, weightType.getDimSize(0)};
  if (biasValue) {
    p.bias = weightArg(func, biasValue, 1);
    if (!p.bias ||
        cast<RankedTensorType>(p.bias->arg.getType()).getDimSize(0) != p.rows)
      return std::nullopt;
  }
  return p;
}

// Projections merge when they are the same form over the same kinds of
// weights: same op, reduction size, dtypes and result dtype.
std::string groupKey(const Projection &p) {
  std::string key;
  llvm::raw_string_ostream os(key);
  auto weightType = cast<RankedTensorType>(p.weight.arg.getType());
  os << p.op->getName() << "|" << weightType.getDimSize(1) << "|"
     << weightType.getElementType() << "|" << p.weight.kind.getValue() << "|"
     << cast<RankedTensorType>(p.op->getResult(0).getType()).getElementType();
  if (p.bias)
    os << "|" << cast<RankedTensorType>(p.bias->arg.getType()).getElementType()
       << "|" << p.bias->kind.getValue();
  return key;
}

class MergeProjectionsPass
    : public magi::impl::MergeProjectionsBase<MergeProjectionsPass> {
public:
  using MergeProjectionsBase::MergeProjectionsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    // Merging erases ops and adds arguments: find one group, merge it, look
    // again.
    while (std::optional<SmallVector<Projection>> group = findGroup(func))
      if (failed(merge(func, (*group)[0].input, *group)))
        return signalPassFailure();
  }

private:
  // The first input (in block order) with two or more projections of one
  // form, and those projections in block order.
  static std::optional<SmallVector<Projection>> findGroup(func::FuncOp func) {
    SmallVector<Value> inputs(func.getArguments());
    for (Operation &op : func.getBody().front())
      llvm::append_range(inputs, op.getResults());
    for (Value input : inputs) {
      auto type = dyn_cast<RankedTensorType>(input.getType());
      if (!type || type.getRank() != 2)
        continue;
      // By form, in the order the forms first appear.
      SmallVector<std::pair<std::string, SmallVector<Projection>>> groups;
      llvm::SmallPtrSet<Operation *, 8> seen;
      for (Operation *user : input.getUsers())
        if (seen.insert(user).second)
          if (std::optional<Projection> p = matchProjection(func, user, input))
          {
            std::string key = groupKey(*p);
            auto *it = llvm::find_if(groups, [&](auto &g) { return g.first == key; });
            if (it == groups.end())
              it = &groups.emplace_back(key, SmallVector<Projection>());
            it->second.push_back(*p);
          }
      for (auto &entry : groups) {
        SmallVector<Projection> &group = entry.second;
        if (group.size() < 2)
          continue;
        llvm::sort(group, [](const Projection &a, const Projection &b) {
          return a.op->isBeforeInBlock(b.op);
        });
        return group;
      }
    }
    return std::nullopt;
  }

  // A new weight argument after the last of `parts`: their concatenation
  // along dim 0, which the runtime lays out without copying.
  BlockArgument concatArgument(func::FuncOp func,
                               ArrayRef<const WeightArg *> parts) {
    auto first = cast<RankedTensorType>(parts.front()->arg.getType());
    SmallVector<int64_t> shape(first.getShape());
    shape[0] = 0;
    SmallVector<Attribute> names;
    std::string joined;
    unsigned last = 0;
    for (const WeightArg *part : parts) {
      shape[0] += cast<RankedTensorType>(part->arg.getType()).getDimSize(0);
      names.push_back(part->name);
      joined += (joined.empty() ? "" : "+") + part->name.getValue().str();
      last = std::max(last, part->arg.getArgNumber());
    }
    Builder b(func.getContext());
    NamedAttrList attrs;
    attrs.set(kInputKindAttr, parts.front()->kind);
    attrs.set(kNameAttr, b.getStringAttr(joined));
    attrs.set(kConcatOfAttr, b.getArrayAttr(names));
    auto type = RankedTensorType::get(shape, first.getElementType());
    if (failed(func.insertArgument(last + 1, type,
                                   attrs.getDictionary(func.getContext()),
                                   func.getLoc())))
      return {};
    return func.getArgument(last + 1);
  }

  LogicalResult merge(func::FuncOp func, Value input,
                      ArrayRef<Projection> group) {
    SmallVector<const WeightArg *> weights, biases;
    for (const Projection &p : group) {
      weights.push_back(&p.weight);
      if (p.bias)
        biases.push_back(&*p.bias);
    }
    BlockArgument weight = concatArgument(func, weights);
    BlockArgument bias = biases.empty() ? BlockArgument()
                                        : concatArgument(func, biases);
    if (!weight || (!biases.empty() && !bias))
      return func.emitError("cannot add the concatenated weight argument");

    Operation *first = group.front().op;
    OpBuilder b(first);
    Location loc = first->getLoc();
    Value transposed = PermuteOp::create(b, group.front().transpose->getLoc(),
                                         weight, b.getDenseI64ArrayAttr({1, 0}));
    Value merged;
    if (bias)
      merged = AddmmOp::create(b, loc, bias, input, transposed,
                               b.getF64FloatAttr(1.0), b.getF64FloatAttr(1.0),
                               UnitAttr(), UnitAttr());
    else
      merged = MmOp::create(b, loc, input, transposed, UnitAttr(), UnitAttr());
    // The merged result's rows are bound as the first projection's are.
    for (Operation *user : first->getResult(0).getUsers())
      if (auto bind = dyn_cast<BindSymbolicShapeOp>(user)) {
        AffineMap map = bind.getShapeExpressions();
        int64_t columns = cast<RankedTensorType>(merged.getType()).getDimSize(1);
        AffineMap mergedMap = AffineMap::get(
            0, map.getNumSymbols(),
            {map.getResult(0), getAffineConstantExpr(columns, b.getContext())},
            b.getContext());
        BindSymbolicShapeOp::create(b, bind.getLoc(), merged,
                                    bind.getShapeSymbols(), mergedMap);
        break;
      }
    // Every new op goes before the first projection; the projections are
    // erased after.
    SmallVector<Value> parts;
    int64_t offset = 0;
    for (const Projection &p : group) {
      // The projection's declared type (it may know the rows statically).
      Value part = SliceOp::create(
          b, p.op->getLoc(), p.op->getResult(0).getType(), merged,
          b.getI64IntegerAttr(1), ValueRange(),
          b.getDenseI64ArrayAttr({offset, offset + p.rows, 1}));
      offset += p.rows;
      parts.push_back(part);
    }
    for (auto [p, part] : llvm::zip(group, parts)) {
      p.op->getResult(0).replaceAllUsesWith(part);
      p.op->erase();
      p.transpose->erase();
    }
    ++numMerged;
    numProjections += group.size();
    return success();
  }

};

} // namespace
