//===- RowAccumulation.cpp - row reductions that blocks can share ---------===//
//
// The one matcher that magi-choose-kernel-config (to choose the strategy)
// and magi-map-to-gpu (to execute it) agree on.
//
//===----------------------------------------------------------------------===//

#include "magi/GPU/Passes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/APFloat.h"

using namespace mlir;

namespace magi {
namespace {

// The all-reduce kind and identity of `op` used as `acc = op(acc, v)`.
std::optional<std::pair<gpu::AllReduceOperation, TypedAttr>>
combineKind(Operation *op) {
  Type type = op->getResult(0).getType();
  Builder b(op->getContext());
  auto floatInf = [&](bool negative) -> TypedAttr {
    auto ft = cast<FloatType>(type);
    return b.getFloatAttr(ft, llvm::APFloat::getInf(ft.getFloatSemantics(), negative));
  };
  using K = gpu::AllReduceOperation;
  // Shuffles move 32-bit values.
  if (type.isF32()) {
    if (isa<arith::AddFOp>(op)) return {{K::ADD, b.getF32FloatAttr(0)}};
    if (isa<arith::MulFOp>(op)) return {{K::MUL, b.getF32FloatAttr(1)}};
    if (isa<arith::MaximumFOp>(op)) return {{K::MAXIMUMF, floatInf(true)}};
    if (isa<arith::MinimumFOp>(op)) return {{K::MINIMUMF, floatInf(false)}};
    if (isa<arith::MaxNumFOp>(op)) return {{K::MAXNUMF, floatInf(true)}};
    if (isa<arith::MinNumFOp>(op)) return {{K::MINNUMF, floatInf(false)}};
  }
  if (type.isInteger(32)) {
    if (isa<arith::AddIOp>(op)) return {{K::ADD, b.getI32IntegerAttr(0)}};
    if (isa<arith::MaxSIOp>(op))
      return {{K::MAXSI, b.getI32IntegerAttr(std::numeric_limits<int32_t>::min())}};
    if (isa<arith::MinSIOp>(op))
      return {{K::MINSI, b.getI32IntegerAttr(std::numeric_limits<int32_t>::max())}};
  }
  return std::nullopt;
}

// True if `v` depends on `root` through the ops of `block`.
bool dependsOn(Value v, Value root, Block *block) {
  SmallVector<Value> work = {v};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Value cur = work.pop_back_val();
    if (cur == root)
      return true;
    Operation *def = cur.getDefiningOp();
    if (!def || def->getBlock() != block || !seen.insert(def).second)
      continue;
    llvm::append_range(work, def->getOperands());
  }
  return false;
}

} // namespace

std::optional<RowAccumulation> matchRowAccumulation(scf::ParallelOp parallel) {
  if (parallel.getNumReductions() != 0)
    return std::nullopt;
  RowAccumulation acc;
  // The rows' body: index work, then the loop, then nothing.
  for (Operation &op : parallel.getBody()->without_terminator()) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      if (acc.loop || loop.getNumResults() != 0)
        return std::nullopt;
      acc.loop = loop;
      continue;
    }
    if (acc.loop || !isMemoryEffectFree(&op) || op.getNumRegions() != 0)
      return std::nullopt;
  }
  if (!acc.loop)
    return std::nullopt;
  Block *body = acc.loop.getBody();
  for (Operation &op : body->without_terminator()) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      if (acc.store)
        return std::nullopt;
      acc.store = store;
    } else if (op.getNumRegions() != 0 ||
               !(isMemoryEffectFree(&op) || isa<memref::LoadOp>(op))) {
      return std::nullopt;
    }
  }
  if (!acc.store)
    return std::nullopt;
  Value out = acc.store.getMemRef();
  for (Operation &op : body->without_terminator()) {
    auto load = dyn_cast<memref::LoadOp>(op);
    if (!load || load.getMemRef() != out)
      continue;
    if (acc.load || !llvm::equal(load.getIndices(), acc.store.getIndices()))
      return std::nullopt;
    acc.load = load;
  }
  if (!acc.load || !acc.load->hasOneUse())
    return std::nullopt;
  // The place is the same for every iteration.
  for (Value index : acc.store.getIndices())
    if (!acc.loop.isDefinedOutsideOfLoop(index))
      return std::nullopt;
  acc.combine = acc.store.getValueToStore().getDefiningOp();
  if (!acc.combine || acc.combine->getBlock() != body ||
      acc.combine->getNumOperands() != 2 || !acc.combine->hasOneUse() ||
      *acc.load->getUsers().begin() != acc.combine)
    return std::nullopt;
  Value loaded = acc.load.getResult();
  acc.value = acc.combine->getOperand(0) == loaded ? acc.combine->getOperand(1)
                                                   : acc.combine->getOperand(0);
  if (acc.value == loaded || dependsOn(acc.value, loaded, body))
    return std::nullopt;
  auto kind = combineKind(acc.combine);
  if (!kind)
    return std::nullopt;
  acc.kind = kind->first;
  acc.identity = kind->second;
  Value iv = acc.loop.getInductionVar();
  acc.contiguous = true;
  bool any = false;
  for (Operation &op : body->without_terminator())
    if (auto load = dyn_cast<memref::LoadOp>(op); load && load != acc.load) {
      bool uses = llvm::any_of(load.getIndices(),
                               [&](Value i) { return dependsOn(i, iv, body); });
      if (!uses)
        continue;
      any = true;
      ValueRange indices = load.getIndices();
      acc.contiguous &= !indices.empty() && indices.back() == iv &&
                        llvm::none_of(indices.drop_back(), [&](Value i) {
                          return dependsOn(i, iv, body);
                        });
    }
  acc.contiguous &= any;
  return acc;
}

} // namespace magi
