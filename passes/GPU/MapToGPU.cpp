//===- MapToGPU.cpp - configured top-level loops to gpu.launch ------------===//
//
// Linearized mapping: one thread per iteration of a whole scf.parallel,
// whatever its rank and whether its bounds are static or symbolic, so the
// grid is one expression of the sizes that the runtime evaluates. Static
// loops with long rows are numbered by row instead (grid.y is the row), so
// that an iteration's indices need no division.
//
//===----------------------------------------------------------------------===//

#include "magi/GPU/Passes.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace magi {
#define GEN_PASS_DEF_MAPTOGPU
#include "magi/GPU/Passes.h.inc"
} // namespace magi

using namespace mlir;

namespace {

// CUDA's limit on grid.y (and grid.z).
constexpr int64_t kMaxGridY = 65535;

// A serial loop that accumulates into one element of a buffer (load it,
// combine, store it back, every iteration) keeps the element in a register
// instead: one load before the loop, one store after. Without this the
// GPU serializes on the store-to-load round trip through memory each
// iteration (a cumsum's 4096-long rows: 55 ns an iteration), since nothing
// tells LLVM that the buffer does not alias the loop's inputs. Legal when
// the element is the only place the loop touches that buffer, the buffer
// is a fresh allocation (so no input is a view of it), and the body has no
// other side effects.
void keepAccumulatorsInRegisters(Operation *root) {
  SmallVector<scf::ForOp> loops;
  root->walk([&](scf::ForOp loop) {
    if (loop.getNumResults() == 0)
      loops.push_back(loop);
  });
  for (scf::ForOp loop : loops) {
    Block *body = loop.getBody();
    memref::StoreOp store;
    bool ok = true;
    for (Operation &op : body->without_terminator()) {
      if (auto s = dyn_cast<memref::StoreOp>(op)) {
        ok &= !store;
        store = s;
      } else if (op.getNumRegions() != 0 ||
                 !(isMemoryEffectFree(&op) || isa<memref::LoadOp>(op))) {
        ok = false;
      }
    }
    if (!ok || !store)
      continue;
    Value buffer = magi::viewedBuffer(store.getMemRef());
    if (!isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(buffer.getDefiningOp()) ||
        llvm::any_of(store.getIndices(),
                     [&](Value i) { return !loop.isDefinedOutsideOfLoop(i); }) ||
        !loop.isDefinedOutsideOfLoop(store.getMemRef()))
      continue;
    memref::LoadOp load;
    for (Operation &op : body->without_terminator()) {
      auto l = dyn_cast<memref::LoadOp>(op);
      if (!l || magi::viewedBuffer(l.getMemRef()) != buffer)
        continue;
      if (load || l.getMemRef() != store.getMemRef() ||
          !llvm::equal(l.getIndices(), store.getIndices()) ||
          !l->isBeforeInBlock(store))
        ok = false;
      load = l;
    }
    if (!ok || !load)
      continue;
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Value initial = memref::LoadOp::create(b, loc, store.getMemRef(), store.getIndices());
    auto promoted = scf::ForOp::create(
        b, loc, loop.getLowerBound(), loop.getUpperBound(), loop.getStep(),
        ValueRange{initial},
        [&](OpBuilder &nb, Location l, Value iv, ValueRange carried) {
          IRMapping mapping;
          mapping.map(loop.getInductionVar(), iv);
          mapping.map(load.getResult(), carried[0]);
          for (Operation &op : body->without_terminator())
            if (&op != load.getOperation() && &op != store.getOperation())
              nb.clone(op, mapping);
          scf::YieldOp::create(nb, l, mapping.lookupOrDefault(store.getValueToStore()));
        });
    memref::StoreOp::create(b, loc, promoted.getResult(0), store.getMemRef(),
                            store.getIndices());
    loop.erase();
  }
}

struct KernelConfig {
  int64_t blockSize;
  StringRef strategy;
  int64_t elementsPerThread = 1;
  int64_t vectorWidth = 1;
};

FailureOr<KernelConfig> readConfig(Operation *op) {
  auto dict = op->getAttrOfType<DictionaryAttr>(magi::kKernelConfigAttr);
  auto size = dict ? dict.getAs<IntegerAttr>("block_size") : IntegerAttr();
  auto strategy = dict ? dict.getAs<StringAttr>("strategy") : StringAttr();
  if (!size || !strategy)
    return op->emitError() << "has no '" << magi::kKernelConfigAttr
                           << "' with block_size and strategy (run "
                              "magi-choose-kernel-config first)";
  if (size.getInt() < 1 || size.getInt() > 1024)
    return op->emitError() << "block size " << size.getInt()
                           << " is outside 1..1024 (the CUDA limit)";
  int64_t perThread = 1;
  if (auto per = dict.getAs<IntegerAttr>("elements_per_thread")) {
    perThread = per.getInt();
    if (perThread < 1 || perThread > 64)
      return op->emitError() << "elements_per_thread " << perThread
                             << " is outside 1..64";
  }
  int64_t vectorWidth = 1;
  if (auto width = dict.getAs<IntegerAttr>("vector_width")) {
    vectorWidth = width.getInt();
    if (vectorWidth < 2 || vectorWidth > 16 || !llvm::isPowerOf2_64(vectorWidth))
      return op->emitError() << "vector_width " << vectorWidth
                             << " is not a power of two in 2..16";
  }
  return KernelConfig{size.getInt(), strategy.getValue(), perThread, vectorWidth};
}

// Values defined in `ops` must not be used after them on the host: a kernel
// cannot return values.
LogicalResult checkNoEscapingValues(ArrayRef<Operation *> ops) {
  llvm::SmallPtrSet<Operation *, 8> inside(ops.begin(), ops.end());
  for (Operation *op : ops)
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers())
        if (!inside.contains(user) &&
            !llvm::any_of(ops, [&](Operation *o) {
              return o->isAncestor(user);
            }))
          return op->emitError()
                 << "computes a value the host uses; a kernel cannot "
                    "return values";
  return success();
}

class MapToGPUPass : public magi::impl::MapToGPUBase<MapToGPUPass> {
public:
  using MapToGPUBase::MapToGPUBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    kernelsModule = FlatSymbolRefAttr::get(
        &getContext(), (func.getSymName() + "_kernels").str());
    // Row groups first: each becomes one launch where its last loop was.
    SmallVector<scf::ParallelOp> groupStarts;
    llvm::DenseSet<int64_t> seenGroups;
    for (Operation &op : func.getBody().front()) {
      auto loop = dyn_cast<scf::ParallelOp>(op);
      auto dict = loop ? loop->getAttrOfType<DictionaryAttr>(magi::kKernelConfigAttr)
                       : DictionaryAttr();
      auto strategy = dict ? dict.getAs<StringAttr>("strategy") : StringAttr();
      auto group = dict ? dict.getAs<IntegerAttr>("group") : IntegerAttr();
      if (!strategy || strategy.getValue() != "row-group")
        continue;
      if (!group) {
        loop.emitError("strategy 'row-group' needs a 'group' number");
        return signalPassFailure();
      }
      if (seenGroups.insert(group.getInt()).second)
        groupStarts.push_back(loop);
    }
    for (scf::ParallelOp start : groupStarts) {
      FailureOr<KernelConfig> config = readConfig(start);
      if (failed(config))
        return signalPassFailure();
      FailureOr<SmallVector<scf::ParallelOp>> members = rowGroupMembers(start);
      if (failed(members) || failed(mapRowGroup(*members, config->blockSize)))
        return signalPassFailure();
    }
    foldInitializations(func);
    SmallVector<Operation *> singleThreadRun;
    auto flushRun = [&]() -> LogicalResult {
      if (singleThreadRun.empty())
        return success();
      LogicalResult result = mapSingleThread(singleThreadRun);
      singleThreadRun.clear();
      return result;
    };
    for (Operation &op : llvm::make_early_inc_range(func.getBody().front())) {
      if (magi::endsLoopRun(&op) && failed(flushRun()))
        return signalPassFailure();
      if (!magi::isDeviceWork(&op)) {
        // A side-effect-free op on a value the current single-thread run
        // computes (a loaded scalar) is part of that kernel's work; other
        // host bookkeeping may sit between the run's ops.
        if (!singleThreadRun.empty() &&
            !op.hasTrait<OpTrait::IsTerminator>() && isMemoryEffectFree(&op) &&
            llvm::any_of(op.getOperands(), [&](Value v) {
              Operation *def = v.getDefiningOp();
              return def && llvm::is_contained(singleThreadRun, def);
            }))
          singleThreadRun.push_back(&op);
        continue;
      }
      FailureOr<KernelConfig> config = readConfig(&op);
      if (failed(config))
        return signalPassFailure();
      if (config->strategy == "single-thread") {
        singleThreadRun.push_back(&op);
        continue;
      }
      if (failed(flushRun()))
        return signalPassFailure();
      auto loop = dyn_cast<scf::ParallelOp>(op);
      if (!loop) {
        op.emitError() << "strategy '" << config->strategy
                       << "' needs an scf.parallel";
        return signalPassFailure();
      }
      if (config->strategy == "block-reduction") {
        if (failed(mapBlockReduction(loop, config->blockSize)))
          return signalPassFailure();
        continue;
      }
      if (config->strategy == "row-group") {
        loop.emitError("is in a row group whose first loop is not before it");
        return signalPassFailure();
      }
      if (config->vectorWidth > 1) {
        if (config->strategy != "elementwise") {
          loop.emitError("vector_width needs the elementwise strategy");
          return signalPassFailure();
        }
        FailureOr<scf::ParallelOp> vectorized =
            magi::vectorizeElementwise(loop, config->vectorWidth);
        if (failed(vectorized))
          return signalPassFailure();
        loop = *vectorized;
      }
      if (config->elementsPerThread > 1) {
        if (config->strategy != "elementwise" ||
            !magi::canRunSeveralPerThread(loop)) {
          loop.emitError() << "elements_per_thread needs an elementwise loop "
                              "whose body has no regions and reads nothing "
                              "after its first store";
          return signalPassFailure();
        }
        if (failed(mapSeveralPerThread(loop, config->blockSize,
                                       config->elementsPerThread)))
          return signalPassFailure();
        continue;
      }
      if (config->strategy == "serial-reduction")
        keepAccumulatorsInRegisters(loop);
      if (failed(mapParallel(loop, config->blockSize)))
        return signalPassFailure();
    }
    if (failed(flushRun()))
      return signalPassFailure();
    // Launches formed before this pass (magi-few-row-matmul-to-gpu's) had
    // their constants hoisted to the function by canonicalization.
    func.walk([](gpu::LaunchOp launch) { sinkConstants(launch); });
  }

private:
  // The loops of the row group `first` starts: it and the following
  // device work with the same `group`, with only host bookkeeping between
  // them.
  static FailureOr<SmallVector<scf::ParallelOp>>
  rowGroupMembers(scf::ParallelOp first) {
    auto groupOf = [](Operation *op) -> std::optional<int64_t> {
      auto dict = op->getAttrOfType<DictionaryAttr>(magi::kKernelConfigAttr);
      auto group = dict ? dict.getAs<IntegerAttr>("group") : IntegerAttr();
      if (!group)
        return std::nullopt;
      return group.getInt();
    };
    std::optional<int64_t> group = groupOf(first);
    if (!group)
      return first.emitError("strategy 'row-group' needs a 'group' number");
    SmallVector<scf::ParallelOp> members = {first};
    for (Operation *op = first->getNextNode(); op; op = op->getNextNode()) {
      bool ends = magi::endsLoopRun(op);
      if (!magi::isDeviceWork(op) && !ends)
        continue;
      auto loop = dyn_cast<scf::ParallelOp>(op);
      if (ends || !loop || groupOf(loop) != group)
        break;
      members.push_back(loop);
    }
    if (members.size() < 2)
      return first.emitError("row group ") << *group << " has one loop";
    for (Operation &op : *first->getBlock())
      if (groupOf(&op) == group && !llvm::is_contained(members, &op))
        return op.emitError("row group ")
               << *group << " is not a run of consecutive loops";
    return members;
  }

  FlatSymbolRefAttr kernelsModule;
  unsigned nextKernel = 0;
  /// Block reductions whose output was filled with this constant by the
  /// kernel just before them (that kernel is gone: thread 0 stores the
  /// total combined with the constant).
  llvm::DenseMap<Operation *, Value> initialValues;

  // A block reduction right after the kernel that fills its output with a
  // constant needs no such kernel: one launch fewer, one pass over the
  // output fewer (at small sizes, launches are the cost).
  void foldInitializations(func::FuncOp func) {
    Operation *previous = nullptr;
    for (Operation &op : llvm::make_early_inc_range(func.getBody().front())) {
      if (magi::endsLoopRun(&op))
        previous = nullptr;
      if (!magi::isDeviceWork(&op))
        continue;
      Operation *fill = previous;
      previous = &op;
      auto loop = dyn_cast<scf::ParallelOp>(op);
      FailureOr<KernelConfig> config =
          loop ? readConfig(loop) : FailureOr<KernelConfig>(failure());
      if (!loop || failed(config) || config->strategy != "block-reduction")
        continue;
      auto fillLoop = dyn_cast_or_null<scf::ParallelOp>(fill);
      std::optional<magi::RowAccumulation> acc = magi::matchRowAccumulation(loop);
      if (!fillLoop || !acc)
        continue;
      if (Value init = fillValue(fillLoop, loop, acc->store)) {
        initialValues[loop] = init;
        fillLoop.erase();
      }
    }
  }

  // The constant `fill` stores into every element `reduction` accumulates
  // into (same iteration space, the same places), or null.
  static Value fillValue(scf::ParallelOp fill, scf::ParallelOp reduction,
                         memref::StoreOp accumulated) {
    if (fill.getNumReductions() != 0 ||
        !llvm::equal(fill.getLowerBound(), reduction.getLowerBound()) ||
        !llvm::equal(fill.getUpperBound(), reduction.getUpperBound()) ||
        !llvm::equal(fill.getStep(), reduction.getStep()))
      return nullptr;
    Block *body = fill.getBody();
    if (body->getOperations().size() != 2)
      return nullptr; // the store and scf.reduce
    auto store = dyn_cast<memref::StoreOp>(body->front());
    if (!store || store.getMemRef() != accumulated.getMemRef() ||
        !store.getValueToStore().getDefiningOp<arith::ConstantOp>())
      return nullptr;
    if (store.getIndices().size() != accumulated.getIndices().size())
      return nullptr;
    for (auto [a, b] : llvm::zip_equal(store.getIndices(), accumulated.getIndices())) {
      if (a == b)
        continue; // the same value, from outside both loops
      auto ia = dyn_cast<BlockArgument>(a);
      auto ib = dyn_cast<BlockArgument>(b);
      if (!ia || !ib || ia.getOwner() != body ||
          ib.getOwner() != reduction.getBody() ||
          ia.getArgNumber() != ib.getArgNumber())
        return nullptr;
    }
    return store.getValueToStore();
  }

  gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, Value grid,
                             Value block, DictionaryAttr config,
                             Value gridY = nullptr) {
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    if (!gridY)
      gridY = one;
    auto name = FlatSymbolRefAttr::get(b.getContext(),
                                       "k" + std::to_string(nextKernel++));
    auto launch = gpu::LaunchOp::create(
        b, loc, grid, gridY, one, block, one, one,
        /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
        /*asyncDependencies=*/{}, /*workgroupAttributions=*/{},
        /*privateAttributions=*/{}, nullptr, nullptr, nullptr, kernelsModule,
        name);
    // Kept on the launch so the configuration can be reported per kernel.
    launch->setAttr(magi::kKernelConfigAttr, config);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(&launch.getBody().front());
    gpu::TerminatorOp::create(b, loc);
    return launch;
  }

  // Constants used in a kernel are rematerialized inside it, so they are
  // not kernel parameters (and a bf16 constant needs no parameter type).
  // So is a constant global's address (a tensor literal's buffer):
  // outlining copies the global into the kernel module, where it is device
  // memory, and the host, which a launch plan keeps free of globals, no
  // longer reads it.
  static void sinkConstants(gpu::LaunchOp launch) {
    Block &body = launch.getBody().front();
    OpBuilder b(&body, body.begin());
    IRMapping sunk;
    auto isConstantGlobal = [&](Operation *def) {
      auto get = dyn_cast<memref::GetGlobalOp>(def);
      if (!get)
        return false;
      auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          launch, get.getNameAttr());
      return global && global.getConstant();
    };
    // Also pure scalar arithmetic on constants that did not fold: a bf16
    // scalar rounded from an f64 constant that bf16 cannot hold exactly
    // (float16's lowest, -65504, in a bf16 mask) stays an `arith.truncf`.
    std::function<bool(Operation *)> sinkable = [&](Operation *def) {
      if (!def || launch->isAncestor(def))
        return false;
      if (def->hasTrait<OpTrait::ConstantLike>() || isConstantGlobal(def))
        return true;
      return isa_and_nonnull<arith::ArithDialect>(def->getDialect()) &&
             isPure(def) && def->getNumResults() == 1 &&
             def->getResult(0).getType().isIntOrIndexOrFloat() &&
             llvm::all_of(def->getOperands(), [&](Value v) {
               return sinkable(v.getDefiningOp());
             });
    };
    std::function<Value(Value)> sink = [&](Value v) -> Value {
      if (Value inside = sunk.lookupOrNull(v))
        return inside;
      Operation *def = v.getDefiningOp();
      for (Value operand : def->getOperands())
        sink(operand);
      Value inside = b.clone(*def, sunk)->getResult(0);
      sunk.map(v, inside);
      return inside;
    };
    launch.getBody().walk([&](Operation *op) {
      for (OpOperand &use : op->getOpOperands())
        if (sinkable(use.get().getDefiningOp()))
          use.set(sink(use.get()));
    });
  }

  LogicalResult mapSingleThread(ArrayRef<Operation *> ops) {
    if (failed(checkNoEscapingValues(ops)))
      return failure();
    // After the run's last op: host values its ops use (allocations, views
    // made between them) are defined by then, and host bookkeeping never
    // reads what the run writes.
    OpBuilder b(ops.front()->getContext());
    b.setInsertionPointAfter(ops.back());
    Value one = arith::ConstantIndexOp::create(b, ops.front()->getLoc(), 1);
    gpu::LaunchOp launch =
        createLaunch(b, ops.front()->getLoc(), one, one,
                     ops.front()->getAttrOfType<DictionaryAttr>(
                         magi::kKernelConfigAttr));
    Operation *terminator = launch.getBody().front().getTerminator();
    for (Operation *op : ops) {
      op->removeAttr(magi::kKernelConfigAttr);
      op->moveBefore(terminator);
    }
    sinkConstants(launch);
    return success();
  }

  // The loop's trip counts, and their product (emitted before `loop`),
  // folded to constants where the bounds are: a constant is rematerialized
  // inside the kernel, so its divisions become multiplications and shifts
  // instead of divisions by a parameter.
  static Value tripCounts(OpBuilder &b, scf::ParallelOp loop,
                          SmallVectorImpl<Value> &counts) {
    Location loc = loop.getLoc();
    Value total = arith::ConstantIndexOp::create(b, loc, 1);
    for (auto [lb, ub, step] : llvm::zip(loop.getLowerBound(),
                                         loop.getUpperBound(), loop.getStep())) {
      Value extent = b.createOrFold<arith::SubIOp>(loc, ub, lb);
      Value count = b.createOrFold<arith::CeilDivSIOp>(loc, extent, step);
      counts.push_back(count);
      total = b.createOrFold<arith::MulIOp>(loc, total, count);
    }
    return total;
  }

  // Maps `id` (< `total`, the product of `counts`) to the loop's induction
  // variables: the last loop varies fastest, as the row-major data does.
  // The divisions are 32-bit when `total` fits (a uniform branch; folded
  // when `total` is static): 64-bit division is emulated on the GPU and
  // dominated the index work of memory-bound kernels.
  static void delinearize(OpBuilder &b, scf::ParallelOp loop, Value id,
                          ArrayRef<Value> counts, Value total,
                          IRMapping &mapping) {
    Location loc = loop.getLoc();
    auto positions = [&](OpBuilder &nb, Type type) {
      auto cast = [&](Value v) -> Value {
        return type.isIndex() ? v
                              : arith::IndexCastUIOp::create(nb, loc, type, v)
                                    .getResult();
      };
      SmallVector<Value> result(counts.size());
      Value rest = cast(id);
      for (int64_t i = counts.size() - 1; i >= 0; --i) {
        Value count = cast(counts[i]);
        Value index = i == 0 ? rest : arith::RemUIOp::create(nb, loc, rest, count);
        if (i != 0)
          rest = arith::DivUIOp::create(nb, loc, rest, count);
        result[i] = type.isIndex()
                        ? index
                        : arith::IndexCastUIOp::create(nb, loc, nb.getIndexType(),
                                                       index)
                              .getResult();
      }
      return result;
    };
    SmallVector<Value> index;
    if (counts.size() == 1) {
      index = {id};
    } else {
      Value limit =
          arith::ConstantIndexOp::create(b, loc, std::numeric_limits<int32_t>::max());
      Value fits = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ule,
                                                 total, limit);
      SmallVector<Type> types(counts.size(), b.getIndexType());
      auto branch = scf::IfOp::create(b, loc, types, fits, /*withElse=*/true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(branch.thenBlock());
        scf::YieldOp::create(b, loc, positions(b, b.getI32Type()));
        b.setInsertionPointToStart(branch.elseBlock());
        scf::YieldOp::create(b, loc, positions(b, b.getIndexType()));
      }
      index.assign(branch.getResults().begin(), branch.getResults().end());
    }
    for (auto [i, position] : llvm::enumerate(index)) {
      Value iv = arith::AddIOp::create(
          b, loc, loop.getLowerBound()[i],
          arith::MulIOp::create(b, loc, position, loop.getStep()[i]));
      mapping.map(loop.getInductionVars()[i], iv);
    }
  }

  // One block per row: the threads split the row's loop, each accumulating
  // from the identity; gpu.all_reduce combines them; thread 0 folds the
  // total into the output element.
  LogicalResult mapBlockReduction(scf::ParallelOp loop, int64_t blockSize) {
    std::optional<magi::RowAccumulation> acc = magi::matchRowAccumulation(loop);
    if (!acc)
      return loop.emitError("strategy 'block-reduction' needs a row "
                            "reduction (an inner scf.for accumulating into "
                            "one output element)");
    if (failed(checkNoEscapingValues({loop.getOperation()})))
      return failure();
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    SmallVector<Value> counts;
    Value rows = tripCounts(b, loop, counts);
    Value block = arith::ConstantIndexOp::create(b, loc, blockSize);
    gpu::LaunchOp launch = createLaunch(
        b, loc, rows, block,
        loop->getAttrOfType<DictionaryAttr>(magi::kKernelConfigAttr));
    b.setInsertionPoint(launch.getBody().front().getTerminator());
    IRMapping mapping;
    delinearize(b, loop, launch.getBlockIds().x, counts, rows, mapping);
    emitRowReduction(b, loop, *acc, mapping, launch.getThreadIds().x, block,
                     initialValues.lookup(loop));
    loop.erase();
    sinkConstants(launch);
    return success();
  }

  // The work of one block for one row of the row reduction `loop` (its row
  // induction variables already in `mapping`): the row's index work, each
  // thread's strided share of the inner loop from the combine's identity,
  // gpu.all_reduce, and thread 0 folding the total into the output element
  // (into `initial` when the output's fill was folded away, else into what
  // the element holds).
  static void emitRowReduction(OpBuilder &b, scf::ParallelOp loop,
                               magi::RowAccumulation acc,
                               IRMapping &mapping, Value tid, Value block,
                               Value initial) {
    Location loc = loop.getLoc();
    for (Operation &op : loop.getBody()->without_terminator())
      if (&op != acc.loop.getOperation())
        b.clone(op, mapping);
    scf::ForOp inner = acc.loop;
    Value step = mapping.lookupOrDefault(inner.getStep());
    Value start = arith::AddIOp::create(
        b, loc, mapping.lookupOrDefault(inner.getLowerBound()),
        arith::MulIOp::create(b, loc, tid, step));
    Value stride = arith::MulIOp::create(b, loc, step, block);
    Value identity = arith::ConstantOp::create(b, loc, acc.identity);
    auto partial = scf::ForOp::create(
        b, loc, start, mapping.lookupOrDefault(inner.getUpperBound()), stride,
        ValueRange{identity});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(partial.getBody());
      IRMapping body = mapping;
      body.map(inner.getInductionVar(), partial.getInductionVar());
      for (Operation &op : inner.getBody()->without_terminator())
        if (&op != acc.load.getOperation() && &op != acc.combine &&
            &op != acc.store.getOperation())
          b.clone(op, body);
      Operation *combined = b.clone(*acc.combine, body);
      combined->setOperands({partial.getRegionIterArgs()[0],
                             body.lookupOrDefault(acc.value)});
      scf::YieldOp::create(b, loc, combined->getResult(0));
    }
    foldRowTotal(b, loc, acc, mapping, tid, initial, partial.getResult(0),
                 /*everyThread=*/false);
  }

  // The block's partial results of a row reduction combined
  // (gpu.all_reduce), and thread 0 folding the total into the output
  // element (into `initial` when the output's fill was folded away, else
  // into what the element holds). With `initial` and `everyThread`, every
  // thread folds (the total is uniform) and the folded value is returned:
  // what thread 0 stores, which later phases may take from registers. Null
  // otherwise.
  static Value foldRowTotal(OpBuilder &b, Location loc, magi::RowAccumulation acc,
                            IRMapping &mapping, Value tid, Value initial,
                            Value partial, bool everyThread) {
    auto total = gpu::AllReduceOp::create(
        b, loc, partial,
        gpu::AllReduceOperationAttr::get(b.getContext(), acc.kind),
        /*uniform=*/true);
    Value uniform;
    if (initial && everyThread) {
      Operation *folded = b.clone(*acc.combine);
      folded->setOperands({initial, total.getResult()});
      uniform = folded->getResult(0);
    }
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
    auto onlyFirst = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(onlyFirst.thenBlock()->getTerminator());
    SmallVector<Value> indices;
    for (Value i : acc.store.getIndices())
      indices.push_back(mapping.lookupOrDefault(i));
    Value out = mapping.lookupOrDefault(acc.store.getMemRef());
    Value value = uniform;
    if (!value) {
      Value old = initial ? initial : memref::LoadOp::create(b, loc, out, indices);
      Operation *folded = b.clone(*acc.combine);
      folded->setOperands({old, total.getResult()});
      value = folded->getResult(0);
    }
    memref::StoreOp::create(b, loc, value, out, indices);
    return uniform;
  }

  // Clones `count` iterations of `body` (each with its own mapping): the
  // loads and arithmetic of all of them first, then their stores. Legal for
  // iterations of an scf.parallel whose body reads nothing after its first
  // store (magi::canRunSeveralPerThread).
  static void cloneLoadsFirst(OpBuilder &b, Block *body,
                              MutableArrayRef<IRMapping> mappings) {
    for (IRMapping &mapping : mappings)
      for (Operation &op : body->without_terminator())
        if (!isa<memref::StoreOp, vector::StoreOp>(op))
          b.clone(op, mapping);
    for (IRMapping &mapping : mappings)
      for (Operation &op : body->without_terminator())
        if (isa<memref::StoreOp, vector::StoreOp>(op))
          b.clone(op, mapping);
  }

  // The threads of a block split the last loop (the columns) of `loop` for
  // one row (its row induction variables already in `mapping`): thread t
  // runs columns t, t + block, ..., four at a time with their loads first.
  static void emitColumns(OpBuilder &b, scf::ParallelOp loop,
                          const IRMapping &mapping, Value tid, Value block) {
    constexpr int64_t kUnroll = 4;
    Location loc = loop.getLoc();
    unsigned last = loop.getNumLoops() - 1;
    Value lb = mapping.lookupOrDefault(loop.getLowerBound()[last]);
    Value ub = mapping.lookupOrDefault(loop.getUpperBound()[last]);
    Value step = mapping.lookupOrDefault(loop.getStep()[last]);
    Value column = loop.getInductionVars()[last];
    Value start =
        arith::AddIOp::create(b, loc, lb, arith::MulIOp::create(b, loc, tid, step));
    Value stride = arith::MulIOp::create(b, loc, step, block);
    Value chunk = arith::MulIOp::create(
        b, loc, stride, arith::ConstantIndexOp::create(b, loc, kUnroll));
    auto each = scf::ForOp::create(b, loc, start, ub, chunk);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(each.getBody()->getTerminator());
    Value base = each.getInductionVar();
    SmallVector<Value> columns;
    for (int64_t u = 0; u < kUnroll; ++u)
      columns.push_back(arith::AddIOp::create(
          b, loc, base,
          arith::MulIOp::create(b, loc, stride,
                                arith::ConstantIndexOp::create(b, loc, u))));
    Value whole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        columns.back(), ub);
    auto branch = scf::IfOp::create(b, loc, whole, /*withElseRegion=*/true);
    Block *body = loop.getBody();
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(branch.thenBlock()->getTerminator());
      SmallVector<IRMapping> mappings(kUnroll, mapping);
      for (int64_t u = 0; u < kUnroll; ++u)
        mappings[u].map(column, columns[u]);
      cloneLoadsFirst(b, body, mappings);
    }
    b.setInsertionPoint(branch.elseBlock()->getTerminator());
    for (int64_t u = 0; u < kUnroll; ++u) {
      Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                            columns[u], ub);
      auto guarded = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(guarded.thenBlock()->getTerminator());
      IRMapping one = mapping;
      one.map(column, columns[u]);
      for (Operation &op : body->without_terminator())
        b.clone(op, one);
    }
  }

  // What each thread of a register row group (`row_chunks`) holds: for a
  // buffer, a chunk k and the row indices, the vector of the chunk's W
  // columns last loaded from or stored into it. Thread t's chunk k starts
  // at column chunkStarts[k] = (t + k * block) * W in every phase, so a
  // later phase's read of those columns is that vector: only this thread
  // touches them (magi::rowGroupIsSafe keeps other blocks to other rows).
  //
  // A store of a chunk that a later phase stores again, with nothing read
  // from memory of that buffer in between, is erased: the buffer ends with
  // the later vector either way (an RMSNorm whose sum and result share one
  // buffer wrote the row twice).
  struct RowRegisters {
    int64_t width = 0;
    SmallVector<Value> chunkStarts;
    struct Entry {
      Value memref;
      int64_t chunk;
      SmallVector<Value> rowIndices;
      Value vector;
      // The store that wrote `vector` while nothing has read the buffer
      // from memory since; null otherwise.
      Operation *unreadStore = nullptr;
    };
    SmallVector<Entry> entries;
    // Elements every thread of the block holds (a row reduction's folded
    // total): loads of them take the value instead of reading memory.
    struct Scalar {
      Value memref;
      SmallVector<Value> indices;
      Value value;
    };
    SmallVector<Scalar> scalars;

    // Whether two index lists name the same element: the same values, or
    // equal constants.
    static bool sameIndices(ValueRange a, ValueRange b) {
      return a.size() == b.size() &&
             llvm::all_of(llvm::zip(a, b), [](auto pair) {
               auto [x, y] = pair;
               if (x == y)
                 return true;
               std::optional<int64_t> cx = getConstantIntValue(x), cy = getConstantIntValue(y);
               return cx && cy && *cx == *cy;
             });
    }
    void recordScalar(Value memref, ValueRange indices, Value value) {
      forget(memref);
      scalars.push_back({memref, llvm::to_vector(indices), value});
    }
    Value findScalar(Value memref, ValueRange indices) const {
      for (const Scalar &e : scalars)
        if (e.memref == memref && sameIndices(e.indices, indices))
          return e.value;
      return {};
    }

    Entry *find(Value memref, int64_t chunk, ValueRange rowIndices) {
      for (Entry &e : entries)
        if (e.memref == memref && e.chunk == chunk &&
            llvm::equal(e.rowIndices, rowIndices))
          return &e;
      return nullptr;
    }
    void record(Value memref, int64_t chunk, ValueRange rowIndices, Value vector) {
      if (Entry *e = find(memref, chunk, rowIndices)) {
        e->vector = vector;
        return;
      }
      entries.push_back({memref, chunk, llvm::to_vector(rowIndices), vector});
    }
    // A store of the chunk: other row indices (other values, which may be
    // equal at run time) may name the same elements, so their entries go.
    void recordStore(Value memref, int64_t chunk, ValueRange rowIndices, Value vector,
                     Operation *store) {
      llvm::erase_if(scalars, [&](const Scalar &e) { return e.memref == memref; });
      llvm::erase_if(entries, [&](const Entry &e) {
        return e.memref == memref && e.chunk == chunk && !llvm::equal(e.rowIndices, rowIndices);
      });
      if (Entry *e = find(memref, chunk, rowIndices); e && e->unreadStore)
        e->unreadStore->erase();
      record(memref, chunk, rowIndices, vector);
      find(memref, chunk, rowIndices)->unreadStore = store;
    }
    // A read of the buffer from memory: its stores so far are needed.
    void readFromMemory(Value memref) {
      for (Entry &e : entries)
        if (e.memref == memref)
          e.unreadStore = nullptr;
    }
    // Clones `op` (under `mapping`); a load it is counts as a read from
    // memory. A load of a scalar the block holds is not cloned: its result
    // maps to the value (and null is returned).
    Operation *clone(OpBuilder &b, Operation &op, IRMapping &mapping) {
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        SmallVector<Value> indices;
        for (Value i : load.getIndices())
          indices.push_back(mapping.lookupOrDefault(i));
        if (Value value = findScalar(mapping.lookupOrDefault(load.getMemRef()), indices)) {
          mapping.map(load.getResult(), value);
          return nullptr;
        }
      }
      Operation *made = b.clone(op, mapping);
      if (auto load = dyn_cast<memref::LoadOp>(made))
        readFromMemory(load.getMemRef());
      else if (auto load = dyn_cast<vector::LoadOp>(made))
        readFromMemory(load.getBase());
      return made;
    }
    // A store the table does not describe: nothing of that buffer is known.
    void forget(Value memref) {
      llvm::erase_if(entries, [&](const Entry &e) { return e.memref == memref; });
      llvm::erase_if(scalars, [&](const Scalar &e) { return e.memref == memref; });
    }
  };

  // The mapped indices of an access, split into the row indices and the
  // last (column) one.
  static std::pair<SmallVector<Value>, Value> splitIndices(ValueRange indices,
                                                           const IRMapping &mapping) {
    SmallVector<Value> rows;
    for (Value i : indices.drop_back())
      rows.push_back(mapping.lookupOrDefault(i));
    return {rows, mapping.lookupOrDefault(indices.back())};
  }

  // A vectorized Columns phase (magi::vectorizeElementwise) of a register
  // row group: the loads and arithmetic of every chunk first, then their
  // stores (so each chunk's loads are in flight together; legal as the
  // body reads nothing after its first store and chunks are disjoint
  // columns), the vector of a buffer's chunk taken from the registers when
  // an earlier phase loaded or stored it.
  static void emitColumnChunks(OpBuilder &b, scf::ParallelOp loop,
                               const IRMapping &rowMapping, Value tid, int64_t blockSize,
                               RowRegisters &regs) {
    Location loc = loop.getLoc();
    Value chunkIv = loop.getInductionVars().back();
    SmallVector<IRMapping> mappings;
    for (auto [k, start] : llvm::enumerate(regs.chunkStarts)) {
      IRMapping &m = mappings.emplace_back(rowMapping);
      m.map(chunkIv, arith::AddIOp::create(
                         b, loc, tid,
                         arith::ConstantIndexOp::create(b, loc, int64_t(k) * blockSize)));
      for (Operation &op : loop.getBody()->without_terminator()) {
        if (isa<vector::StoreOp, memref::StoreOp>(op))
          continue;
        if (auto mul = dyn_cast<arith::MulIOp>(op);
            mul && mul.getLhs() == chunkIv &&
            getConstantIntValue(mul.getRhs()) == regs.width) {
          m.map(mul.getResult(), start);
          continue;
        }
        if (auto load = dyn_cast<vector::LoadOp>(op)) {
          auto [rows, column] = splitIndices(load.getIndices(), m);
          Value memref = m.lookupOrDefault(load.getBase());
          if (column == start) {
            if (RowRegisters::Entry *e = regs.find(memref, k, rows)) {
              m.map(load.getResult(), e->vector);
              continue;
            }
            Operation *made = regs.clone(b, op, m);
            regs.record(memref, k, rows, made->getResult(0));
            continue;
          }
        }
        regs.clone(b, op, m);
      }
    }
    for (auto [k, start] : llvm::enumerate(regs.chunkStarts)) {
      IRMapping &m = mappings[k];
      for (Operation &op : loop.getBody()->without_terminator()) {
        if (auto store = dyn_cast<vector::StoreOp>(op)) {
          auto [rows, column] = splitIndices(store.getIndices(), m);
          Value memref = m.lookupOrDefault(store.getBase());
          Operation *made = b.clone(op, m);
          if (column == start)
            regs.recordStore(memref, k, rows, m.lookupOrDefault(store.getValueToStore()), made);
          else
            regs.forget(memref);
        } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
          regs.forget(m.lookupOrDefault(store.getMemRef()));
          b.clone(op, m);
        }
      }
    }
  }

  // A Reduction phase of a register row group: the thread's W x chunks
  // columns one by one, each column's element of a buffer read as a lane
  // of the chunk's vector (from the registers, else one vector load for
  // the chunk), then the block's total folded as emitRowReduction does.
  static void emitRegisterReduction(OpBuilder &b, scf::ParallelOp loop,
                                    magi::RowAccumulation acc, IRMapping &mapping,
                                    Value tid, Value initial, RowRegisters &regs,
                                    bool totalInRegisters) {
    Location loc = loop.getLoc();
    for (Operation &op : loop.getBody()->without_terminator())
      if (&op != acc.loop.getOperation())
        regs.clone(b, op, mapping);
    scf::ForOp inner = acc.loop;
    Value iv = inner.getInductionVar();
    Value partial = arith::ConstantOp::create(b, loc, acc.identity);
    for (auto [k, start] : llvm::enumerate(regs.chunkStarts)) {
      for (int64_t lane = 0; lane < regs.width; ++lane) {
        IRMapping m = mapping;
        m.map(iv, lane == 0 ? start
                            : arith::AddIOp::create(
                                  b, loc, start, arith::ConstantIndexOp::create(b, loc, lane))
                                  .getResult());
        for (Operation &op : inner.getBody()->without_terminator()) {
          if (&op == acc.load.getOperation() || &op == acc.combine ||
              &op == acc.store.getOperation())
            continue;
          auto load = dyn_cast<memref::LoadOp>(op);
          if (!load || load.getIndices().empty() || load.getIndices().back() != iv) {
            regs.clone(b, op, m);
            continue;
          }
          auto [rows, column] = splitIndices(load.getIndices(), m);
          Value memref = m.lookupOrDefault(load.getMemRef());
          RowRegisters::Entry *e = regs.find(memref, k, rows);
          Value vector;
          if (e) {
            vector = e->vector;
          } else {
            MemRefType type = load.getMemRefType();
            SmallVector<Value> indices = rows;
            indices.push_back(start);
            vector = vector::LoadOp::create(
                b, loc, VectorType::get({regs.width}, type.getElementType()), memref,
                indices, /*nontemporal=*/false,
                llvm::MaybeAlign(regs.width * (type.getElementTypeBitWidth() / 8)));
            regs.readFromMemory(memref);
            regs.record(memref, k, rows, vector);
          }
          m.map(load.getResult(), vector::ExtractOp::create(b, loc, vector, lane));
        }
        Operation *combined = b.clone(*acc.combine, m);
        combined->setOperands({partial, m.lookupOrDefault(acc.value)});
        partial = combined->getResult(0);
      }
    }
    Value out = mapping.lookupOrDefault(acc.store.getMemRef());
    regs.forget(out);
    if (Value total = foldRowTotal(b, loc, acc, mapping, tid, initial, partial,
                                   totalInRegisters)) {
      SmallVector<Value> indices;
      for (Value i : acc.store.getIndices())
        indices.push_back(mapping.lookupOrDefault(i));
      regs.recordScalar(out, indices, total);
    }
  }

  // A row group (magi-choose-kernel-config's `row-group`): its loops, in
  // order, as the phases of one kernel of one block per row, a barrier
  // between phases. Placed where the last of them was: the host ops between
  // them only allocate and describe views.
  LogicalResult mapRowGroup(SmallVector<scf::ParallelOp> loops, int64_t blockSize) {
    // The rows and columns are those of the first row reduction.
    scf::ParallelOp anchor;
    for (scf::ParallelOp loop : loops)
      if (!anchor && magi::matchRowAccumulation(loop))
        anchor = loop;
    SmallVector<magi::RowPhase> phases;
    for (scf::ParallelOp loop : loops) {
      std::optional<magi::RowPhase> phase =
          anchor ? magi::matchRowPhase(loop, anchor) : std::nullopt;
      if (!phase)
        return loop.emitError("is in a row group but not a phase over the "
                              "rows and columns of its row reduction");
      phases.push_back(*phase);
    }
    if (!magi::rowGroupIsSafe(phases))
      return loops.front().emitError(
          "row group accesses a buffer it writes outside each block's row");
    SmallVector<Operation *> ops(loops.begin(), loops.end());
    if (failed(checkNoEscapingValues(ops)))
      return failure();
    // Rows in registers (magi::registerRows): the Columns phases over
    // vectors first.
    std::optional<RowRegisters> regs;
    auto config = loops.front()->getAttrOfType<DictionaryAttr>(magi::kKernelConfigAttr);
    if (auto chunks = config.getAs<IntegerAttr>("row_chunks")) {
      auto width = config.getAs<IntegerAttr>("vector_width");
      std::optional<magi::RegisterRows> layout = magi::registerRows(phases, blockSize);
      if (!width || !layout || layout->width != width.getInt() ||
          layout->chunks != chunks.getInt() || layout->blockSize != blockSize)
        return loops.front().emitError()
               << "row_chunks " << chunks.getInt() << " with vector_width "
               << (width ? width.getInt() : 0) << " and block_size " << blockSize
               << " does not fit this row group (its columns must split into "
                  "whole 16-byte vectors, the same number for every thread)";
      for (magi::RowPhase &phase : phases) {
        if (phase.kind != magi::RowPhase::Kind::Columns)
          continue;
        auto *member = llvm::find(loops, phase.loop);
        FailureOr<scf::ParallelOp> vectorized =
            magi::vectorizeElementwise(phase.loop, layout->width);
        if (failed(vectorized))
          return failure();
        phase.loop = *member = *vectorized;
      }
      regs.emplace();
      regs->width = layout->width;
    }
    Location loc = anchor.getLoc();
    OpBuilder b(loops.back());
    SmallVector<Value> counts;
    Value rows = tripCounts(b, anchor, counts);
    Value block = arith::ConstantIndexOp::create(b, loc, blockSize);
    gpu::LaunchOp launch = createLaunch(
        b, loc, rows, block,
        loops.front()->getAttrOfType<DictionaryAttr>(magi::kKernelConfigAttr));
    b.setInsertionPoint(launch.getBody().front().getTerminator());
    IRMapping rowMapping;
    delinearize(b, anchor, launch.getBlockIds().x, counts, rows, rowMapping);
    Value tid = launch.getThreadIds().x;
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    if (regs) {
      int64_t chunks = config.getAs<IntegerAttr>("row_chunks").getInt();
      for (int64_t k = 0; k < chunks; ++k)
        regs->chunkStarts.push_back(arith::MulIOp::create(
            b, loc,
            arith::AddIOp::create(b, loc, tid,
                                  arith::ConstantIndexOp::create(b, loc, k * blockSize)),
            arith::ConstantIndexOp::create(b, loc, regs->width)));
    }
    bool first = true;
    SmallVector<gpu::BarrierOp> barriers;
    for (auto [i, phase] : llvm::enumerate(phases)) {
      // A fill of the row's result right before the reduction into it is
      // folded into the reduction, as outside groups.
      Value initial;
      if (phase.kind == magi::RowPhase::Kind::Reduction && i > 0 &&
          phases[i - 1].kind == magi::RowPhase::Kind::Scalar)
        initial = fillValue(phases[i - 1].loop, phase.loop, phase.acc->store);
      if (phase.kind == magi::RowPhase::Kind::Scalar && i + 1 < phases.size() &&
          phases[i + 1].kind == magi::RowPhase::Kind::Reduction &&
          fillValue(phase.loop, phases[i + 1].loop, phases[i + 1].acc->store))
        continue;
      if (!first)
        barriers.push_back(gpu::BarrierOp::create(b, loc));
      first = false;
      IRMapping mapping;
      for (unsigned r = 0; r < anchor.getNumLoops(); ++r)
        mapping.map(phase.loop.getInductionVars()[r],
                    rowMapping.lookup(anchor.getInductionVars()[r]));
      switch (phase.kind) {
      case magi::RowPhase::Kind::Scalar: {
        Value first =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
        auto onlyFirst = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(onlyFirst.thenBlock()->getTerminator());
        for (Operation &op : phase.loop.getBody()->without_terminator()) {
          if (auto store = dyn_cast<memref::StoreOp>(op); store && regs)
            regs->forget(mapping.lookupOrDefault(store.getMemRef()));
          if (regs)
            regs->clone(b, op, mapping);
          else
            b.clone(op, mapping);
        }
        break;
      }
      case magi::RowPhase::Kind::Reduction:
        if (regs)
          emitRegisterReduction(b, phase.loop, *phase.acc, mapping, tid, initial, *regs,
                                leanRowGroups);
        else
          emitRowReduction(b, phase.loop, *phase.acc, mapping, tid, block, initial);
        break;
      case magi::RowPhase::Kind::Columns:
        if (regs)
          emitColumnChunks(b, phase.loop, mapping, tid, blockSize, *regs);
        else
          emitColumns(b, phase.loop, mapping, tid, block);
        break;
      }
    }
    if (leanRowGroups) {
      dropNeedlessBarriers(barriers);
      hoistReadOnlyLoads(launch.getBody().front());
    }
    for (scf::ParallelOp loop : loops)
      loop.erase();
    sinkConstants(launch);
    return success();
  }

  // The buffers the ops in [begin, end) of one block load and store
  // (magi::collectBufferAccesses), or false when one of them touches memory
  // otherwise.
  static bool accessesIn(Block::iterator begin, Block::iterator end,
                         SmallVectorImpl<Value> &reads, SmallVectorImpl<Value> &writes) {
    return llvm::all_of(llvm::make_range(begin, end), [&](Operation &op) {
      return magi::collectBufferAccesses(&op, reads, writes);
    });
  }

  // Removes the barriers between a row group's phases that order nothing:
  // where no buffer written on one side (since the last barrier kept) is
  // read or written on the other (up to the next barrier). Phases that take
  // what earlier ones computed from registers (RowRegisters) then run
  // without waiting for the block.
  static void dropNeedlessBarriers(ArrayRef<gpu::BarrierOp> barriers) {
    if (barriers.empty())
      return;
    Block *body = barriers.front()->getBlock();
    Block::iterator since = body->begin();
    for (auto [i, barrier] : llvm::enumerate(barriers)) {
      Block::iterator until =
          i + 1 < barriers.size() ? barriers[i + 1]->getIterator() : body->end();
      SmallVector<Value> readsBefore, writesBefore, readsAfter, writesAfter;
      bool known =
          accessesIn(since, barrier->getIterator(), readsBefore, writesBefore) &&
          accessesIn(std::next(barrier->getIterator()), until, readsAfter, writesAfter);
      auto overlap = [](ArrayRef<Value> xs, ArrayRef<Value> ys) {
        return llvm::any_of(xs, [&](Value x) {
          return llvm::any_of(ys, [&](Value y) { return magi::mayBeOneBuffer(x, y); });
        });
      };
      if (!known || overlap(writesBefore, readsAfter) || overlap(writesBefore, writesAfter) ||
          overlap(readsBefore, writesAfter)) {
        since = std::next(barrier->getIterator());
        continue;
      }
      barrier->erase();
    }
  }

  // Moves each load (at the top of a row group's kernel) of a buffer the
  // kernel does not write up to just after its operands are defined, so
  // that, e.g., the RMSNorm weight's load is in flight during the
  // reduction before it instead of starting after the block's totals
  // (whose barriers no load crosses once issued after them).
  static void hoistReadOnlyLoads(Block &body) {
    SmallVector<Value> reads, writes;
    if (!accessesIn(body.begin(), body.end(), reads, writes))
      return;
    auto readOnly = [&](Value memref) {
      Value root = magi::viewedBuffer(memref);
      return llvm::none_of(writes, [&](Value w) { return magi::mayBeOneBuffer(root, w); });
    };
    SmallVector<Operation *> loads;
    for (Operation &op : body) {
      if (auto load = dyn_cast<vector::LoadOp>(op); load && readOnly(load.getBase()))
        loads.push_back(&op);
      else if (auto load = dyn_cast<memref::LoadOp>(op); load && readOnly(load.getMemRef()))
        loads.push_back(&op);
    }
    // Loads moved behind one op keep their order: each goes after the last
    // one moved there.
    llvm::DenseMap<Operation *, Operation *> lastMoved;
    for (Operation *load : loads) {
      // The latest of its operands defined in this block, else the start.
      Operation *after = nullptr;
      for (Value operand : load->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || def->getBlock() != &body)
          continue;
        if (!after || after->isBeforeInBlock(def))
          after = def;
      }
      Operation *&last = lastMoved[after];
      if (last)
        load->moveAfter(last);
      else if (after)
        load->moveAfter(after);
      else
        load->moveBefore(&body, body.begin());
      last = load;
    }
  }

  // How the threads of an elementwise loop's launch number its iterations.
  // Linear: thread ids run over all iterations, delinearized into every
  // induction variable. By row: when the last loop's trip count is static,
  // fills the blocks (at most 1/8 of a row's threads idle) and the rows
  // fit in grid.y, blockIdx.y is the row (delinearized once, uniform) and
  // the ids run over one row's columns, so an iteration needs no division
  // (index division per element slowed a memory-bound kernel over column
  // slices of a wider buffer).
  struct ThreadNumbering {
    SmallVector<Value> counts; // every loop's trip count
    Value total;               // the ids' range: all iterations or a row's
    Value block;
    std::optional<int64_t> columns; // set when by row
  };

  static std::optional<int64_t> rowNumberingColumns(ArrayRef<Value> counts,
                                                    int64_t chunk) {
    if (counts.size() < 2)
      return std::nullopt;
    std::optional<int64_t> columns = getConstantIntValue(counts.back());
    if (!columns || *columns < chunk)
      return std::nullopt;
    int64_t blocks = llvm::divideCeil(*columns, chunk);
    if ((blocks * chunk - *columns) * 8 > blocks * chunk)
      return std::nullopt;
    int64_t rows = 1;
    for (Value count : counts.drop_back()) {
      std::optional<int64_t> c = getConstantIntValue(count);
      if (!c)
        return std::nullopt;
      rows *= *c;
      if (rows > kMaxGridY)
        return std::nullopt;
    }
    return columns;
  }

  // Maps iteration `id` (< numbering.total) into `mapping`; by row, `rowBase`
  // already holds the leading induction variables.
  static void mapIteration(OpBuilder &b, scf::ParallelOp loop, Value id,
                           const ThreadNumbering &numbering,
                           const IRMapping &rowBase, IRMapping &mapping) {
    if (!numbering.columns) {
      delinearize(b, loop, id, numbering.counts, numbering.total, mapping);
      return;
    }
    mapping = rowBase;
    Location loc = loop.getLoc();
    unsigned last = loop.getNumLoops() - 1;
    Value iv = arith::AddIOp::create(
        b, loc, loop.getLowerBound()[last],
        arith::MulIOp::create(b, loc, id, loop.getStep()[last]));
    mapping.map(loop.getInductionVars()[last], iv);
  }

  // The block's first id (`blockStart`) and the thread's, and by row the
  // leading induction variables.
  static Value firstId(OpBuilder &b, scf::ParallelOp loop, gpu::LaunchOp launch,
                       const ThreadNumbering &numbering, int64_t chunkSize,
                       IRMapping &rowBase, Value *blockStartOut = nullptr) {
    Location loc = loop.getLoc();
    if (numbering.columns) {
      ArrayRef<Value> leading = ArrayRef<Value>(numbering.counts).drop_back();
      Value rows = arith::ConstantIndexOp::create(b, loc, 1);
      for (Value count : leading)
        rows = b.createOrFold<arith::MulIOp>(loc, rows, count);
      delinearize(b, loop, launch.getBlockIds().y, leading, rows, rowBase);
    }
    Value chunk = arith::ConstantIndexOp::create(b, loc, chunkSize);
    Value blockStart =
        arith::MulIOp::create(b, loc, launch.getBlockIds().x, chunk);
    if (blockStartOut)
      *blockStartOut = blockStart;
    return arith::AddIOp::create(b, loc, blockStart, launch.getThreadIds().x);
  }

  // `perThread` iterations a thread, `blockSize` apart. A block whose
  // iterations are all in range issues every load before any store, so the
  // loads overlap; the last block runs them one by one, each guarded.
  LogicalResult mapSeveralPerThread(scf::ParallelOp loop, int64_t blockSize,
                                    int64_t perThread) {
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    ThreadNumbering numbering;
    FailureOr<gpu::LaunchOp> launched =
        launchForThreads(b, loop, blockSize, perThread, numbering);
    if (failed(launched))
      return failure();
    gpu::LaunchOp launch = *launched;

    b.setInsertionPoint(launch.getBody().front().getTerminator());
    IRMapping rowBase;
    Value blockStart;
    Value first = firstId(b, loop, launch, numbering, blockSize * perThread, rowBase,
                          &blockStart);
    Value chunk = arith::ConstantIndexOp::create(b, loc, blockSize * perThread);
    Value blockEnd = arith::AddIOp::create(b, loc, blockStart, chunk);
    Value whole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                        blockEnd, numbering.total);
    auto branch = scf::IfOp::create(b, loc, whole, /*withElseRegion=*/true);
    Block *body = loop.getBody();
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(branch.thenBlock()->getTerminator());
      SmallVector<IRMapping> mappings(perThread);
      for (int64_t j = 0; j < perThread; ++j) {
        Value offset = arith::ConstantIndexOp::create(b, loc, j * blockSize);
        Value id = arith::AddIOp::create(b, loc, first, offset);
        mapIteration(b, loop, id, numbering, rowBase, mappings[j]);
      }
      cloneLoadsFirst(b, body, mappings);
    }
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(branch.elseBlock()->getTerminator());
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value count = arith::ConstantIndexOp::create(b, loc, perThread);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      auto each = scf::ForOp::create(b, loc, zero, count, one);
      b.setInsertionPoint(each.getBody()->getTerminator());
      Value id = arith::AddIOp::create(
          b, loc, first,
          arith::MulIOp::create(b, loc, each.getInductionVar(), numbering.block));
      Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            id, numbering.total);
      auto guarded = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
      b.setInsertionPoint(guarded.thenBlock()->getTerminator());
      IRMapping mapping;
      mapIteration(b, loop, id, numbering, rowBase, mapping);
      for (Operation &op : body->without_terminator())
        b.clone(op, mapping);
    }
    loop.erase();
    sinkConstants(launch);
    return success();
  }

  // The launch for an elementwise `loop` run `perThread` iterations a
  // thread: its trip counts (emitted before it), the numbering, and
  // `ceildiv(ids, blockSize * perThread)` blocks of `block` threads (times
  // the rows in grid.y when numbered by row).
  FailureOr<gpu::LaunchOp> launchForThreads(OpBuilder &b, scf::ParallelOp loop,
                                            int64_t blockSize, int64_t perThread,
                                            ThreadNumbering &numbering) {
    if (loop.getNumReductions() != 0)
      return loop.emitError() << "has reductions; only loops whose "
                                 "iterations are independent map to threads";
    if (failed(checkNoEscapingValues({loop.getOperation()})))
      return failure();
    Location loc = loop.getLoc();
    Value all = tripCounts(b, loop, numbering.counts);
    numbering.block = arith::ConstantIndexOp::create(b, loc, blockSize);
    int64_t chunkSize = blockSize * perThread;
    numbering.columns = rowNumberingColumns(numbering.counts, chunkSize);
    Value rows = arith::ConstantIndexOp::create(b, loc, 1);
    if (numbering.columns) {
      numbering.total = arith::ConstantIndexOp::create(b, loc, *numbering.columns);
      for (Value count : ArrayRef<Value>(numbering.counts).drop_back())
        rows = b.createOrFold<arith::MulIOp>(loc, rows, count);
    } else {
      numbering.total = all;
    }
    Value chunk = perThread == 1
                      ? numbering.block
                      : arith::ConstantIndexOp::create(b, loc, chunkSize);
    Value grid = b.createOrFold<arith::CeilDivSIOp>(loc, numbering.total, chunk);
    return createLaunch(b, loc, grid, numbering.block,
                        loop->getAttrOfType<DictionaryAttr>(magi::kKernelConfigAttr),
                        rows);
  }

  LogicalResult mapParallel(scf::ParallelOp loop, int64_t blockSize) {
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    ThreadNumbering numbering;
    FailureOr<gpu::LaunchOp> launched =
        launchForThreads(b, loop, blockSize, /*perThread=*/1, numbering);
    if (failed(launched))
      return failure();
    gpu::LaunchOp launch = *launched;

    b.setInsertionPoint(launch.getBody().front().getTerminator());
    IRMapping rowBase;
    Value id = firstId(b, loop, launch, numbering, blockSize, rowBase);
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          id, numbering.total);
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
    b.setInsertionPoint(guard.thenBlock()->getTerminator());
    IRMapping mapping;
    mapIteration(b, loop, id, numbering, rowBase, mapping);
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, mapping);
    loop.erase();
    sinkConstants(launch);
    return success();
  }
};

} // namespace
