//===- KernelConfig.cpp - each future kernel's launch configuration -------===//
//
// One place decides how a loop nest becomes a kernel; magi-map-to-gpu only
// executes the decision (see magi/GPU/Passes.td).
//
//===----------------------------------------------------------------------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/GPU/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

namespace magi {
#define GEN_PASS_DEF_CHOOSEKERNELCONFIG
#include "magi/GPU/Passes.h.inc"
} // namespace magi

using namespace mlir;

namespace magi {

// An integer load whose value the function only returns (through integer
// casts): the host reads it once the piece's work is done (magi.item; the
// launch plan's `read` result).
static bool isHostRead(Operation *op) {
  auto load = dyn_cast<memref::LoadOp>(op);
  if (!load || !load.getType().isIntOrIndex())
    return false;
  SmallVector<Value> work{load.getResult()};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<func::ReturnOp>(user))
        continue;
      if (!isIntegerConversion(user))
        return false;
      work.push_back(user->getResult(0));
    }
  }
  return true;
}

bool isIntegerConversion(Operation *op) {
  return isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp, arith::ExtUIOp,
             arith::BitcastOp>(op);
}

bool isDeviceWork(Operation *op) {
  if (isHostRead(op))
    return false;
  // Kernels already, or made one by their own pass (tiled attention).
  if (isa<func::ReturnOp, gpu::LaunchOp, gpu::LaunchFuncOp,
          magi::TiledAttentionOp>(op))
    return false;
  // A library call is launched by the host (cuBLASLt), not mapped.
  if (isa<func::CallOp>(op) && op->hasAttr(kLibraryCallAttr))
    return false;
  if (op->getNumRegions() != 0)
    return true;
  if (auto memory = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> effects;
    memory.getEffects(effects);
    return llvm::any_of(effects, [](const MemoryEffects::EffectInstance &e) {
      return isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect());
    });
  }
  return !isMemoryEffectFree(op);
}

bool endsLoopRun(Operation *op) {
  return isa<gpu::LaunchOp, magi::TiledAttentionOp>(op) ||
         (isa<func::CallOp>(op) && op->hasAttr(kLibraryCallAttr));
}

Value viewedBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

bool collectBufferAccesses(Operation *op, SmallVectorImpl<Value> &reads,
                           SmallVectorImpl<Value> &writes) {
  WalkResult walk = op->walk([&](Operation *inner) {
    if (auto load = dyn_cast<memref::LoadOp>(inner))
      reads.push_back(viewedBuffer(load.getMemRef()));
    else if (auto store = dyn_cast<memref::StoreOp>(inner))
      writes.push_back(viewedBuffer(store.getMemRef()));
    else if (auto load = dyn_cast<vector::LoadOp>(inner))
      reads.push_back(viewedBuffer(load.getBase()));
    else if (auto store = dyn_cast<vector::StoreOp>(inner))
      writes.push_back(viewedBuffer(store.getBase()));
    else if (inner->getNumRegions() == 0 && !isMemoryEffectFree(inner) &&
             !isa<scf::ReduceOp, scf::ReduceReturnOp, gpu::BarrierOp>(inner))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

bool mayBeOneBuffer(Value a, Value b) {
  return a == b ||
         (!a.getDefiningOp<memref::AllocOp>() && !b.getDefiningOp<memref::AllocOp>());
}

bool canRunSeveralPerThread(scf::ParallelOp loop) {
  bool stored = false;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (op.getNumRegions() != 0)
      return false;
    if (isa<memref::StoreOp, vector::StoreOp>(op)) {
      stored = true;
      continue;
    }
    if (auto memory = dyn_cast<MemoryEffectOpInterface>(op)) {
      if (stored && memory.hasEffect<MemoryEffects::Read>())
        return false;
      if (memory.hasEffect<MemoryEffects::Write>())
        return false;
    } else if (!isMemoryEffectFree(&op)) {
      return false;
    }
  }
  return true;
}

} // namespace magi

namespace {

// The SMs of the largest target (H200: 132) times the threads each keeps
// resident (2048): fewer threads than this leave bandwidth unused, so
// iterations are only packed several to a thread beyond it.
constexpr int64_t kResidentThreads = 132 * 2048;

// Iterations per thread of an elementwise loop of `count` iterations (static
// or not): several, so that each thread has that many independent loads in
// flight (a thread with one 2-byte load cannot cover the memory latency),
// but not so many that the grid no longer fills the GPU. With `oneWave`,
// as many as it takes for the threads to fit in one wave (a grid of one to
// two waves runs its second partly idle: SiLU·mul at T = 512 is 1.45
// waves at 2 a thread).
int64_t elementsPerThread(std::optional<int64_t> count, int64_t most, bool oneWave) {
  if (!count)
    return std::min<int64_t>(most, 4);
  int64_t per = 1;
  if (oneWave) {
    while (per * 2 <= most && *count > per * kResidentThreads)
      per *= 2;
    return per;
  }
  while (per * 2 <= most && *count >= per * 2 * kResidentThreads)
    per *= 2;
  return per;
}

// The number of iterations of `loop` when all its bounds are constants.
std::optional<int64_t> staticIterationCount(scf::ParallelOp loop) {
  int64_t total = 1;
  for (auto [lb, ub, step] : llvm::zip(loop.getLowerBound(),
                                       loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> l = getConstantIntValue(lb);
    std::optional<int64_t> u = getConstantIntValue(ub);
    std::optional<int64_t> s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return std::nullopt;
    total *= llvm::divideCeil(std::max<int64_t>(*u - *l, 0), *s);
  }
  return total;
}

// The threads of one block per row when `loop` is a row reduction worth
// sharing: rows read along the reduced dimension (coalesced) and long, or
// of a length known only at run time. Short static rows (a head dimension
// of 128) stay one thread per row: a block per row would idle.
std::optional<int64_t> blockReductionThreads(scf::ParallelOp loop,
                                            int64_t maxThreads) {
  std::optional<magi::RowAccumulation> acc = magi::matchRowAccumulation(loop);
  if (!acc || !acc->contiguous)
    return std::nullopt;
  std::optional<int64_t> lb = getConstantIntValue(acc->loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(acc->loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(acc->loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::min<int64_t>(maxThreads, 128);
  int64_t length = llvm::divideCeil(std::max<int64_t>(*ub - *lb, 0), *step);
  if (length < 256)
    return std::nullopt;
  // About eight elements a thread, whole warps, at most the limit.
  int64_t threads = int64_t(llvm::PowerOf2Ceil(uint64_t(llvm::divideCeil(length, 8))));
  return std::clamp<int64_t>(threads, std::min<int64_t>(32, maxThreads), maxThreads);
}

// The root buffers `loop` reads and writes (through views), or nothing when
// something in it touches memory otherwise than by loads and stores.
std::optional<std::pair<SmallVector<Value>, SmallVector<Value>>>
buffersOf(scf::ParallelOp loop) {
  SmallVector<Value> reads, writes;
  if (!magi::collectBufferAccesses(loop, reads, writes))
    return std::nullopt;
  return std::make_pair(std::move(reads), std::move(writes));
}

// Whether two loops may touch one buffer, one of them writing it.
bool mayConflict(scf::ParallelOp a, scf::ParallelOp b) {
  auto x = buffersOf(a), y = buffersOf(b);
  if (!x || !y)
    return true;
  auto overlaps = [](ArrayRef<Value> p, ArrayRef<Value> q) {
    return llvm::any_of(p, [&](Value u) {
      return llvm::any_of(q, [&](Value v) { return magi::mayBeOneBuffer(u, v); });
    });
  };
  return overlaps(x->second, y->first) || overlaps(x->second, y->second) ||
         overlaps(x->first, y->second);
}

// A loop before `run[first]` (not just before it) that is a phase of
// `anchor`'s rows and may move down to join the group: every loop between
// touches none of its buffers, and nothing else between touches memory.
// transformers' LLaMA gathers the embedding, computes the RoPE tables, then
// takes the RMSNorm of the embedding: the gather then joins the RMSNorm's
// row group, which reads the table's rows once and writes both results.
std::optional<size_t> earlierRowPhase(ArrayRef<scf::ParallelOp> run, size_t first,
                                      scf::ParallelOp anchor,
                                      const llvm::SmallDenseSet<Operation *> &grouped) {
  auto anchorBuffers = buffersOf(anchor);
  if (!anchorBuffers)
    return std::nullopt;
  // Only a loop that writes what the reduction reads is worth moving (with
  // static sizes, the positions' loops over the same rows match as phases
  // too).
  auto feedsAnchor = [&](scf::ParallelOp loop) {
    auto buffers = buffersOf(loop);
    return buffers && llvm::any_of(buffers->second, [&](Value written) {
             return llvm::is_contained(anchorBuffers->first, written);
           });
  };
  for (size_t k = first; k-- > 0;) {
    if (grouped.contains(scf::ParallelOp(run[k]).getOperation()))
      return std::nullopt;
    if (!magi::matchRowPhase(scf::ParallelOp(run[k]), anchor) ||
        !feedsAnchor(scf::ParallelOp(run[k])))
      continue;
    for (size_t j = k + 1; j < first; ++j)
      if (mayConflict(scf::ParallelOp(run[k]), scf::ParallelOp(run[j])))
        return std::nullopt;
    Operation *end = scf::ParallelOp(run[first]).getOperation();
    for (Operation *op = scf::ParallelOp(run[k])->getNextNode(); op && op != end;
         op = op->getNextNode())
      if (!isa<scf::ParallelOp>(op) &&
          (op->getNumRegions() != 0 || !isMemoryEffectFree(op)) &&
          !isa<memref::AllocOp>(op))
        return std::nullopt;
    return k;
  }
  return std::nullopt;
}

// Row groups: around each loop configured as a block reduction, the
// neighbouring loops over the same rows (fills of the rows' results, other
// reductions over the same columns, elementwise passes over the rows'
// columns) join it when every buffer they write is touched row by row
// (magi::rowGroupIsSafe); each member is then configured
// `{block_size, strategy = "row-group", group = N}` and the group runs as
// one kernel, one block per row. Loops are neighbours when nothing between
// them touches memory (a library call ends a run); one phase further back
// whose buffers the loops between do not touch (earlierRowPhase) is moved
// down to join the group. With vector access, a
// group whose rows fit the registers of a block (magi::registerRows) also
// records `row_chunks` and `vector_width` (and the block size it needs).
void formRowGroups(func::FuncOp func, bool vectorAccess, bool earlierPhases) {
  SmallVector<SmallVector<scf::ParallelOp>> runs(1);
  for (Operation &op : func.getBody().front()) {
    if (auto loop = dyn_cast<scf::ParallelOp>(op);
        loop && op.hasAttr(magi::kKernelConfigAttr)) {
      runs.back().push_back(loop);
      continue;
    }
    if (magi::endsLoopRun(&op) || magi::isDeviceWork(&op))
      runs.emplace_back();
  }
  Builder b(func.getContext());
  int64_t nextGroup = 0;
  auto strategyOf = [](scf::ParallelOp loop) {
    return loop->getAttrOfType<DictionaryAttr>(magi::kKernelConfigAttr)
        .getAs<StringAttr>("strategy")
        .getValue();
  };
  for (SmallVector<scf::ParallelOp> &run : runs) {
    llvm::SmallDenseSet<Operation *> grouped;
    for (size_t i = 0; i < run.size(); ++i) {
      scf::ParallelOp anchor = run[i];
      if (grouped.contains(anchor) || strategyOf(anchor) != "block-reduction")
        continue;
      size_t first = i, last = i;
      while (first > 0 && !grouped.contains(run[first - 1]) &&
             magi::matchRowPhase(run[first - 1], anchor))
        --first;
      std::optional<size_t> earlier;
      if (earlierPhases)
        earlier = earlierRowPhase(run, first, anchor, grouped);
      if (earlier) {
        // Moved next to the group: run[earlier] becomes run[first - 1].
        scf::ParallelOp moved = run[*earlier];
        moved->moveBefore(run[first]);
        run.erase(run.begin() + *earlier);
        run.insert(run.begin() + (first - 1), moved);
        --first;
      }
      while (last + 1 < run.size() && magi::matchRowPhase(run[last + 1], anchor))
        ++last;
      if (first == last)
        continue;
      SmallVector<magi::RowPhase> phases;
      for (size_t k = first; k <= last; ++k)
        phases.push_back(*magi::matchRowPhase(run[k], anchor));
      // A fill and its reduction alone are one kernel already (the fill is
      // folded into the block reduction).
      if (llvm::count_if(phases, [](const magi::RowPhase &p) {
            return p.kind != magi::RowPhase::Kind::Scalar;
          }) < 2 ||
          !magi::rowGroupIsSafe(phases))
        continue;
      int64_t threads = anchor->getAttrOfType<DictionaryAttr>(magi::kKernelConfigAttr)
                            .getAs<IntegerAttr>("block_size")
                            .getInt();
      std::optional<magi::RegisterRows> registers;
      if (vectorAccess)
        registers = magi::registerRows(phases, threads);
      if (registers)
        threads = registers->blockSize;
      SmallVector<NamedAttribute> entries = {
          b.getNamedAttr("block_size", b.getI64IntegerAttr(threads)),
          b.getNamedAttr("group", b.getI64IntegerAttr(nextGroup++)),
          b.getNamedAttr("strategy", b.getStringAttr("row-group"))};
      if (registers) {
        entries.push_back(
            b.getNamedAttr("row_chunks", b.getI64IntegerAttr(registers->chunks)));
        entries.push_back(
            b.getNamedAttr("vector_width", b.getI64IntegerAttr(registers->width)));
      }
      DictionaryAttr config = b.getDictionaryAttr(entries);
      for (size_t k = first; k <= last; ++k) {
        run[k]->setAttr(magi::kKernelConfigAttr, config);
        grouped.insert(run[k]);
      }
      i = last;
    }
  }
}

// A row reduction of a single row (RMSNorm at one token): canonicalization
// folds its one-iteration parallel loop away and leaves the serial loop on
// its own, which would run on one thread (145 us for 4096 elements on an
// H200). Wrapped back into a one-iteration parallel loop, it is a row like
// any other and gets a block that reduces it cooperatively.
void wrapLoneRowReductions(func::FuncOp func) {
  SmallVector<scf::ForOp> loops;
  for (Operation &op : func.getBody().front())
    if (auto loop = dyn_cast<scf::ForOp>(op); loop && loop.getNumResults() == 0)
      loops.push_back(loop);
  for (scf::ForOp loop : loops) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto rows = scf::ParallelOp::create(b, loc, ValueRange{zero}, ValueRange{one},
                                        ValueRange{one});
    loop->moveBefore(rows.getBody()->getTerminator());
    if (magi::matchRowAccumulation(rows))
      continue;
    loop->moveBefore(rows);
    rows.erase();
    one.getDefiningOp()->erase();
    zero.getDefiningOp()->erase();
  }
}

class ChooseKernelConfigPass
    : public magi::impl::ChooseKernelConfigBase<ChooseKernelConfigPass> {
public:
  using ChooseKernelConfigBase::ChooseKernelConfigBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    for (int64_t size : {int64_t(blockSize), int64_t(reductionBlockSize),
                         int64_t(rowReductionBlockSize)}) {
      if (size < 1 || size > 1024) {
        func.emitError() << "block size " << size
                         << " is outside 1..1024 (the CUDA limit)";
        return signalPassFailure();
      }
    }
    if (maxElementsPerThread < 1 || maxElementsPerThread > 64 ||
        !llvm::isPowerOf2_64(maxElementsPerThread)) {
      func.emitError() << "max-elements-per-thread " << int64_t(maxElementsPerThread)
                       << " is not a power of two in 1..64";
      return signalPassFailure();
    }
    wrapLoneRowReductions(func);
    Builder b(&getContext());
    for (Operation &op : func.getBody().front()) {
      if (!magi::isDeviceWork(&op))
        continue;
      int64_t threads = 1;
      int64_t perThread = 1;
      std::optional<int64_t> vectorWidth;
      StringRef strategy = "single-thread";
      if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
        bool serialInner = false;
        loop.getBody()->walk([&](LoopLikeOpInterface) { serialInner = true; });
        strategy = serialInner ? "serial-reduction" : "elementwise";
        threads = serialInner ? reductionBlockSize : blockSize;
        // sin, cos and tan take libdevice's full range reduction (about 500
        // PTX lines each): one element a thread, unvectorized, keeps one
        // copy of it (the rotary tables' module then takes ptxas a third
        // less time). Such loops compute rather than stream, so more
        // elements a thread buy nothing.
        bool rangeReduction = false;
        loop.getBody()->walk([&](Operation *inner) {
          rangeReduction |= isa<math::SinOp, math::CosOp, math::TanOp>(inner);
        });
        if (!serialInner && vectorAccess && !rangeReduction)
          vectorWidth = magi::elementwiseVectorWidth(loop);
        // The iterations the threads share: vectors of W when vectorized.
        std::optional<int64_t> count = staticIterationCount(loop);
        if (count && vectorWidth)
          *count /= *vectorWidth;
        // A small static loop gets a smaller block, whole warps.
        if (count)
          threads = std::min(threads, std::max<int64_t>(
                                          32, llvm::alignTo(*count, 32)));
        if (std::optional<int64_t> rowThreads =
                blockReductionThreads(loop, rowReductionBlockSize)) {
          strategy = "block-reduction";
          threads = *rowThreads;
        }
        if (strategy == "elementwise" && magi::canRunSeveralPerThread(loop) &&
            !rangeReduction)
          perThread = elementsPerThread(count, maxElementsPerThread, oneWave);
        // Eight vectors a thread hold about 90 registers: blocks of 256
        // then fit twice an SM (512 threads), blocks of 128 five times
        // (640). Measured on an H200 (2026-12-03, SiLU·mul at T = 4096):
        // 0.090 against 0.102 ms.
        if (vectorWidth && perThread >= 8)
          threads = std::min<int64_t>(threads, 128);
      }
      SmallVector<NamedAttribute> config = {
          b.getNamedAttr("block_size", b.getI64IntegerAttr(threads)),
          b.getNamedAttr("strategy", b.getStringAttr(strategy))};
      if (perThread > 1)
        config.push_back(b.getNamedAttr("elements_per_thread",
                                        b.getI64IntegerAttr(perThread)));
      if (vectorWidth && strategy == "elementwise")
        config.push_back(b.getNamedAttr("vector_width",
                                        b.getI64IntegerAttr(*vectorWidth)));
      op.setAttr(magi::kKernelConfigAttr, b.getDictionaryAttr(config));
    }
    if (rowGroups)
      formRowGroups(func, vectorAccess, earlierRowPhases);
  }
};

} // namespace
