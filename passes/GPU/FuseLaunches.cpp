//===- FuseLaunches.cpp - independent elementwise kernels as one launch ---===//
//
// Small elementwise kernels that do not depend on each other (LLaMA's two
// rotary embeddings and the copy of v after the q/k/v product) each pay a
// launch and a tail in which most of the GPU idles; run side by side in one
// grid they pay them once.
//
//===----------------------------------------------------------------------===//

#include "magi/GPU/Passes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace magi {
#define GEN_PASS_DEF_FUSELAUNCHES
#include "magi/GPU/Passes.h.inc"
} // namespace magi

using namespace mlir;

namespace {

// The buffers a launch reads and writes, by what they view.
struct BufferUse {
  llvm::SmallPtrSet<Value, 8> reads, writes;
  bool writesArgument = false, touchesArgument = false;
};

bool isConstantIndex(Value v, int64_t expected) {
  auto constant = v.getDefiningOp<arith::ConstantIndexOp>();
  return constant && constant.value() == expected;
}

StringRef strategyOf(gpu::LaunchOp launch) {
  auto config = launch->getAttrOfType<DictionaryAttr>(magi::kKernelConfigAttr);
  auto strategy = config ? config.getAs<StringAttr>("strategy") : StringAttr();
  return strategy ? strategy.getValue() : StringRef();
}

int64_t fusedCount(gpu::LaunchOp launch) {
  auto config = launch->getAttrOfType<DictionaryAttr>(magi::kKernelConfigAttr);
  auto count = config ? config.getAs<IntegerAttr>("fused_launches") : IntegerAttr();
  return count ? count.getInt() : 1;
}

// A launch this pass may fuse: elementwise, a one-dimensional grid of
// one-dimensional blocks, no shared memory, nothing asynchronous.
bool fusible(gpu::LaunchOp launch) {
  return strategyOf(launch) == "elementwise" && isConstantIndex(launch.getGridSizeY(), 1) &&
         isConstantIndex(launch.getGridSizeZ(), 1) &&
         isConstantIndex(launch.getBlockSizeY(), 1) &&
         isConstantIndex(launch.getBlockSizeZ(), 1) &&
         launch.getBlockSizeX().getDefiningOp<arith::ConstantIndexOp>() &&
         !launch.getDynamicSharedMemorySize() && launch.getAsyncDependencies().empty() &&
         !launch.getAsyncToken() && !launch.hasClusterSize() &&
         launch.getWorkgroupAttributions().empty() && launch.getPrivateAttributions().empty();
}

// What `launch` reads and writes, or nothing when an op's effects are not
// known buffer by buffer.
std::optional<BufferUse> bufferUse(gpu::LaunchOp launch) {
  BufferUse use;
  bool known = true;
  launch.getBody().walk([&](Operation *op) {
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    auto memory = dyn_cast<MemoryEffectOpInterface>(op);
    if (!memory) {
      known = false;
      return WalkResult::interrupt();
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    memory.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      Value value = effect.getValue();
      if (!value) {
        known = false;
        return WalkResult::interrupt();
      }
      Value buffer = magi::viewedBuffer(value);
      // A buffer of the kernel's own.
      if (launch->isProperAncestor(buffer.getParentBlock()->getParentOp()) ||
          buffer.getParentRegion() == &launch.getBody())
        continue;
      bool argument = isa<BlockArgument>(buffer);
      use.touchesArgument |= argument;
      if (isa<MemoryEffects::Write>(effect.getEffect())) {
        use.writes.insert(buffer);
        use.writesArgument |= argument;
      } else if (isa<MemoryEffects::Read>(effect.getEffect())) {
        use.reads.insert(buffer);
      }
    }
    return WalkResult::advance();
  });
  if (!known)
    return std::nullopt;
  return use;
}

bool independent(const BufferUse &a, const BufferUse &b) {
  auto meets = [](const llvm::SmallPtrSet<Value, 8> &x, const llvm::SmallPtrSet<Value, 8> &y) {
    return llvm::any_of(x, [&](Value v) { return y.contains(v); });
  };
  if ((a.writesArgument && b.touchesArgument) || (b.writesArgument && a.touchesArgument))
    return false;
  return !meets(a.writes, b.writes) && !meets(a.writes, b.reads) && !meets(b.writes, a.reads);
}

// Host bookkeeping that may stand between two fused launches (the mapping
// passes' own notion: no device work, nothing that ends a loop run), and
// that frees nothing: the fused launch takes the second's place, so the
// first's buffers must still be there.
bool isBookkeeping(Operation &op) {
  if (magi::isDeviceWork(&op) || magi::endsLoopRun(&op) || op.getNumRegions() != 0)
    return false;
  auto memory = dyn_cast<MemoryEffectOpInterface>(op);
  return !memory || !memory.hasEffect<MemoryEffects::Free>();
}

// `body`'s ops but the terminator, cloned at `b`, with the launch's block
// index x and grid size x replaced.
void cloneBody(OpBuilder &b, gpu::LaunchOp from, Value blockX, Value gridX,
               gpu::LaunchOp into) {
  IRMapping map;
  gpu::KernelDim3 ids = from.getBlockIds(), threads = from.getThreadIds();
  gpu::KernelDim3 grid = from.getGridSize(), block = from.getBlockSize();
  gpu::KernelDim3 newIds = into.getBlockIds(), newThreads = into.getThreadIds();
  gpu::KernelDim3 newBlock = into.getBlockSize();
  map.map(ids.x, blockX);
  map.map(ids.y, newIds.y);
  map.map(ids.z, newIds.z);
  map.map(threads.x, newThreads.x);
  map.map(threads.y, newThreads.y);
  map.map(threads.z, newThreads.z);
  map.map(grid.x, gridX);
  map.map(grid.y, into.getGridSize().y);
  map.map(grid.z, into.getGridSize().z);
  map.map(block.x, newBlock.x);
  map.map(block.y, newBlock.y);
  map.map(block.z, newBlock.z);
  for (Operation &op : from.getBody().front().without_terminator())
    b.clone(op, map);
}

gpu::LaunchOp fuse(gpu::LaunchOp first, gpu::LaunchOp second) {
  OpBuilder b(second);
  Location loc = second.getLoc();
  Value gridX1 = first.getGridSizeX(), gridX2 = second.getGridSizeX();
  Value grid = arith::AddIOp::create(b, loc, gridX1, gridX2);
  auto fused = gpu::LaunchOp::create(
      b, loc, grid, second.getGridSizeY(), second.getGridSizeZ(), second.getBlockSizeX(),
      second.getBlockSizeY(), second.getBlockSizeZ(), /*dynamicSharedMemorySize=*/nullptr,
      /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{}, /*workgroupAttributions=*/{},
      /*privateAttributions=*/{}, nullptr, nullptr, nullptr, first.getModuleAttr(),
      first.getFunctionAttr());
  // The first's attributes (configuration, launch bounds), counting the
  // kernels it now runs.
  for (NamedAttribute attr : first->getDiscardableAttrs())
    fused->setAttr(attr.getName(), attr.getValue());
  auto config = first->getAttrOfType<DictionaryAttr>(magi::kKernelConfigAttr);
  NamedAttrList entries(config);
  entries.set("fused_launches", b.getI64IntegerAttr(fusedCount(first) + fusedCount(second)));
  fused->setAttr(magi::kKernelConfigAttr, entries.getDictionary(b.getContext()));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&fused.getBody().front());
    Value blockX = fused.getBlockIds().x;
    Value inFirst =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, blockX, gridX1);
    auto branch = scf::IfOp::create(b, loc, inFirst, /*withElseRegion=*/true);
    b.setInsertionPointToStart(branch.thenBlock());
    cloneBody(b, first, blockX, gridX1, fused);
    b.setInsertionPointToStart(branch.elseBlock());
    Value secondBlock = arith::SubIOp::create(b, loc, blockX, gridX1);
    cloneBody(b, second, secondBlock, gridX2, fused);
    b.setInsertionPointAfter(branch);
    gpu::TerminatorOp::create(b, loc);
  }
  first.erase();
  second.erase();
  return fused;
}

class FuseLaunchesPass : public magi::impl::FuseLaunchesBase<FuseLaunchesPass> {
public:
  using FuseLaunchesBase::FuseLaunchesBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || maxLaunches < 2)
      return;
    func.walk([&](Block *block) {
      gpu::LaunchOp previous;
      std::optional<BufferUse> previousUse;
      for (Operation &op : llvm::make_early_inc_range(*block)) {
        auto launch = dyn_cast<gpu::LaunchOp>(op);
        if (!launch) {
          if (!isBookkeeping(op))
            previous = nullptr;
          continue;
        }
        std::optional<BufferUse> use = fusible(launch) ? bufferUse(launch) : std::nullopt;
        if (previous && use && previousUse && independent(*previousUse, *use) &&
            previous.getBlockSizeX().getDefiningOp<arith::ConstantIndexOp>().value() ==
                launch.getBlockSizeX().getDefiningOp<arith::ConstantIndexOp>().value() &&
            fusedCount(previous) + fusedCount(launch) <= maxLaunches) {
          BufferUse merged = *previousUse;
          merged.reads.insert(use->reads.begin(), use->reads.end());
          merged.writes.insert(use->writes.begin(), use->writes.end());
          merged.writesArgument |= use->writesArgument;
          merged.touchesArgument |= use->touchesArgument;
          previous = fuse(previous, launch);
          previousUse = merged;
          continue;
        }
        previous = use ? launch : nullptr;
        previousUse = use;
      }
    });
  }
};

} // namespace
