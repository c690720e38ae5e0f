//===- RowGroup.cpp - consecutive row loops that share one block per row -===//
//
// An RMSNorm is a reduction over each row and then an elementwise pass over
// the same rows; attention's softmax is two reductions and an elementwise
// pass. Run as one kernel with one block per row, the row is read from DRAM
// once and the later phases find it in the caches. The matcher here is the
// one both magi-choose-kernel-config and magi-map-to-gpu use.
//
//===----------------------------------------------------------------------===//

#include "magi/GPU/Passes.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace magi {
namespace {

bool sameBounds(ValueRange a, ValueRange b) {
  return a.size() == b.size() &&
         llvm::all_of(llvm::zip(a, b), [](auto pair) {
           return isEqualConstantIntOrValue(std::get<0>(pair), std::get<1>(pair));
         });
}

bool sameBound(Value a, Value b) { return isEqualConstantIntOrValue(a, b); }

// The memrefs `loop` loads from and stores into, with their indices.
void collectAccesses(scf::ParallelOp loop,
                     SmallVectorImpl<std::pair<Value, Operation *>> &accesses) {
  loop.getBody()->walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      accesses.push_back({load.getMemRef(), op});
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      accesses.push_back({store.getMemRef(), op});
  });
}

ValueRange indicesOf(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return load.getIndices();
  return cast<memref::StoreOp>(op).getIndices();
}

} // namespace

std::optional<RowPhase> matchRowPhase(scf::ParallelOp loop,
                                      scf::ParallelOp anchor) {
  std::optional<RowAccumulation> anchorAcc = matchRowAccumulation(anchor);
  if (!anchorAcc || loop.getNumReductions() != 0)
    return std::nullopt;
  unsigned rows = anchor.getNumLoops();
  auto rowBoundsMatch = [&]() {
    return sameBounds(loop.getLowerBound().take_front(rows), anchor.getLowerBound()) &&
           sameBounds(loop.getUpperBound().take_front(rows), anchor.getUpperBound()) &&
           sameBounds(loop.getStep().take_front(rows), anchor.getStep());
  };
  if (loop.getNumLoops() < rows || !rowBoundsMatch())
    return std::nullopt;
  scf::ForOp columns = anchorAcc->loop;
  if (loop.getNumLoops() == rows) {
    if (std::optional<RowAccumulation> acc = matchRowAccumulation(loop)) {
      if (!acc->contiguous ||
          !sameBound(acc->loop.getLowerBound(), columns.getLowerBound()) ||
          !sameBound(acc->loop.getUpperBound(), columns.getUpperBound()) ||
          !sameBound(acc->loop.getStep(), columns.getStep()))
        return std::nullopt;
      return RowPhase{loop, RowPhase::Kind::Reduction, acc};
    }
    if (!canRunSeveralPerThread(loop))
      return std::nullopt;
    return RowPhase{loop, RowPhase::Kind::Scalar, std::nullopt};
  }
  if (loop.getNumLoops() != rows + 1 || !canRunSeveralPerThread(loop) ||
      !sameBound(loop.getLowerBound()[rows], columns.getLowerBound()) ||
      !sameBound(loop.getUpperBound()[rows], columns.getUpperBound()) ||
      !sameBound(loop.getStep()[rows], columns.getStep()))
    return std::nullopt;
  return RowPhase{loop, RowPhase::Kind::Columns, std::nullopt};
}

bool rowGroupIsSafe(ArrayRef<RowPhase> phases) {
  if (phases.empty())
    return false;
  scf::ParallelOp front = phases.front().loop;
  unsigned rows = front.getNumLoops();
  if (phases.front().kind == RowPhase::Kind::Columns)
    rows -= 1;
  SmallVector<std::pair<Value, Operation *>> accesses;
  SmallVector<unsigned> owner; // the phase of each access
  for (auto [i, phase] : llvm::enumerate(phases)) {
    size_t before = accesses.size();
    collectAccesses(phase.loop, accesses);
    owner.append(accesses.size() - before, i);
  }
  llvm::SmallDenseMap<Value, Value> writtenThrough; // root -> memref value
  for (auto [memref, op] : accesses)
    if (isa<memref::StoreOp>(op)) {
      Value root = viewedBuffer(memref);
      auto [it, inserted] = writtenThrough.try_emplace(root, memref);
      if (!inserted && it->second != memref)
        return false; // written through two views
    }
  llvm::SmallDenseMap<Value, SmallVector<int64_t>> positions;
  for (auto [k, access] : llvm::enumerate(accesses)) {
    auto [memref, op] = access;
    auto written = writtenThrough.find(viewedBuffer(memref));
    if (written == writtenThrough.end())
      continue; // read only: any element may be read
    if (written->second != memref)
      return false; // read through another view of a written buffer
    scf::ParallelOp loop = phases[owner[k]].loop;
    ValueRange ivs = loop.getBody()->getArguments().take_front(rows);
    ValueRange indices = indicesOf(op);
    SmallVector<int64_t> where;
    for (Value iv : ivs) {
      auto it = llvm::find(indices, iv);
      if (it == indices.end() || std::count(indices.begin(), indices.end(), iv) != 1)
        return false;
      where.push_back(it - indices.begin());
    }
    // The other indices must not mix the rows in (say, row + 1).
    for (Value index : indices) {
      if (llvm::is_contained(ivs, index))
        continue;
      Operation *def = index.getDefiningOp();
      if (isa<BlockArgument>(index) || !def ||
          loop->isProperAncestor(def)) {
        // A column index (another induction variable, or computed inside
        // the loop): it must not depend on a row variable.
        SmallVector<Value> work = {index};
        llvm::SmallPtrSet<Operation *, 8> seen;
        while (!work.empty()) {
          Value v = work.pop_back_val();
          if (llvm::is_contained(ivs, v))
            return false;
          Operation *d = v.getDefiningOp();
          if (d && loop->isProperAncestor(d) && seen.insert(d).second)
            llvm::append_range(work, d->getOperands());
        }
      }
    }
    auto [it, inserted] = positions.try_emplace(memref, where);
    if (!inserted && it->second != where)
      return false;
  }
  return true;
}

std::optional<RegisterRows> registerRows(ArrayRef<RowPhase> phases,
                                         int64_t maxThreads) {
  constexpr int64_t kVectorBytes = 16;
  constexpr int64_t kMostChunks = 8;
  const RowPhase *anchor = llvm::find_if(phases, [](const RowPhase &p) {
    return p.kind == RowPhase::Kind::Reduction;
  });
  if (anchor == phases.end())
    return std::nullopt;
  scf::ForOp columns = anchor->acc->loop;
  std::optional<int64_t> lb = getConstantIntValue(columns.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(columns.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(columns.getStep());
  if (!lb || !ub || !step || *lb != 0 || *step != 1 || *ub <= 0)
    return std::nullopt;
  int64_t widest = 0;
  SmallVector<int64_t> columnWidths;
  SmallVector<Value> reductionStreams;
  for (const RowPhase &phase : phases) {
    switch (phase.kind) {
    case RowPhase::Kind::Scalar:
      break;
    case RowPhase::Kind::Columns: {
      std::optional<int64_t> width = elementwiseVectorWidth(phase.loop);
      if (!width)
        return std::nullopt;
      columnWidths.push_back(*width);
      widest = std::max(widest, kVectorBytes / *width);
      break;
    }
    case RowPhase::Kind::Reduction: {
      if (!phase.acc->contiguous)
        return std::nullopt;
      RowAccumulation acc = *phase.acc;
      Value iv = acc.loop.getInductionVar();
      for (Operation &op : acc.loop.getBody()->without_terminator()) {
        auto load = dyn_cast<memref::LoadOp>(op);
        if (!load || load == acc.load || load.getIndices().empty() ||
            load.getIndices().back() != iv)
          continue;
        Type element = load.getMemRefType().getElementType();
        if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
          return std::nullopt;
        widest = std::max<int64_t>(widest, element.getIntOrFloatBitWidth() / 8);
        reductionStreams.push_back(load.getMemRef());
      }
      break;
    }
    }
  }
  if (widest == 0 || kVectorBytes % widest != 0)
    return std::nullopt;
  int64_t width = kVectorBytes / widest;
  if (width < 2 || *ub % width != 0 ||
      llvm::any_of(columnWidths, [&](int64_t w) { return w != width; }))
    return std::nullopt;
  if (!llvm::all_of(reductionStreams,
                    [&](Value memref) { return vectorAligned(memref, width); }))
    return std::nullopt;
  int64_t vectors = *ub / width;
  for (int64_t threads = maxThreads / 32 * 32; threads >= 32; threads -= 32)
    if (vectors % threads == 0 && vectors / threads <= kMostChunks)
      return RegisterRows{width, threads, vectors / threads};
  return std::nullopt;
}

} // namespace magi
