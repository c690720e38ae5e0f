//===- FewRowMatmul.cpp - products of few rows as weight-streaming kernels ===//
//
// At a few tokens a projection reads a weight of tens of megabytes to make a
// few kilobytes: its time is the weight's bytes over the bandwidth. cuBLASLt
// streamed the 7B layer's weights at 0.55-0.89 of the H200's copy bandwidth
// at 16 rows (docs/compile.md, "Few-row products"). Here each warp keeps
// three 64-column stages of its block's weight rows in flight (cp.async into
// a ring in shared memory; loading straight into registers left too few
// bytes in flight), and a lane's 16-byte chunk of a row is its mma.sync
// fragment registers as they are (see the pass description for the
// numbering of k that allows it).
//
//===----------------------------------------------------------------------===//

#include "magi/GPU/Passes.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

namespace magi {
#define GEN_PASS_DEF_FEWROWMATMULTOGPU
#include "magi/GPU/Passes.h.inc"
} // namespace magi

using namespace mlir;

namespace {

constexpr int64_t kWarpSize = 32;
// Rows of an mma.sync A fragment, columns of a B fragment, k of a step.
constexpr int64_t kRowTile = 16;
constexpr int64_t kColumnTile = 8;
constexpr int64_t kStep = 32;
// k of a stage: two steps, 128 bytes of each row (one L2 line).
constexpr int64_t kStageColumns = 2 * kStep;
// Elements of a 16-byte copy or load.
constexpr int64_t kChunk = 8;
constexpr int64_t kChunksPerRow = kStageColumns / kChunk;
// f32 accumulators of one m16n8 tile over a warp.
constexpr int64_t kTileFloats = kRowTile * kColumnTile;
// The most dynamic shared memory a block of an H100/H200 may have.
constexpr int64_t kMaxSharedBytes = 227 * 1024;

struct Tiling {
  int64_t rowTiles, columnTiles, warps, stages;
  int64_t columns() const { return kColumnTile * columnTiles; }
  int64_t threads() const { return kWarpSize * warps; }
  // Rows a stage holds: the block's weight rows, then the rows of `a`.
  int64_t stageRows() const { return columns() + kRowTile * rowTiles; }
  int64_t ringBytes() const { return warps * stages * stageRows() * kStageColumns * 2; }
  // One warp's accumulators, and the block's partial sums after the rings.
  int64_t warpFloats() const { return rowTiles * columnTiles * kTileFloats; }
  int64_t sharedBytes() const { return ringBytes() + warps * warpFloats() * 4; }
};

// The product's operands when `op` is one this pass takes (a [M, K], b
// [N, K], c [M, N]), else nothing.
struct Product {
  Value a, b, c;
  int64_t rows, columns, depth;
  Type element;
};

std::optional<Product> matchProduct(linalg::LinalgOp op, int64_t maxRows) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureBufferSemantics() || op.getNumLoops() != 3)
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(op);
  if (failed(dims) || !dims->batch.empty() || dims->m.size() != 1 ||
      dims->n.size() != 1 || dims->k.size() != 1)
    return std::nullopt;
  unsigned m = dims->m[0], n = dims->n[0], k = dims->k[0];
  MLIRContext *ctx = op.getContext();
  auto map = [&](unsigned x, unsigned y) {
    return AffineMap::get(3, 0, {getAffineDimExpr(x, ctx), getAffineDimExpr(y, ctx)}, ctx);
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[0] != map(m, k) || maps[1] != map(n, k) || maps[2] != map(m, n))
    return std::nullopt;
  Product p{op.getDpsInputOperand(0)->get(), op.getDpsInputOperand(1)->get(),
            op.getDpsInitOperand(0)->get(), 0, 0, 0, Type()};
  for (Value v : {p.a, p.b, p.c}) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.getLayout().isIdentity() || !type.hasStaticShape())
      return std::nullopt;
  }
  auto shape = [](Value v) { return cast<MemRefType>(v.getType()).getShape(); };
  p.rows = shape(p.a)[0];
  p.depth = shape(p.a)[1];
  p.columns = shape(p.b)[0];
  p.element = cast<MemRefType>(p.a.getType()).getElementType();
  Type tb = cast<MemRefType>(p.b.getType()).getElementType();
  Type tc = cast<MemRefType>(p.c.getType()).getElementType();
  if (p.rows < 1 || p.rows > maxRows || p.depth % kChunk != 0 || p.depth == 0 ||
      p.columns < 1 || p.element != tb || !(p.element.isBF16() || p.element.isF16()) ||
      !(tc.isF32() || tc == p.element) || !magi::isMultiplyAccumulate(op))
    return std::nullopt;
  return p;
}

// The kernel's body, inside its launch; every value an index unless said
// otherwise.
class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc, const Product &p, const Tiling &tiling,
                Value out, int64_t prefetchColumns)
      : b(b), loc(loc), p(p), tiling(tiling), out(out), prefetchColumns(prefetchColumns) {}

  // `ring`: the warps' stages, [warps * stages * stageRows, 64] elements;
  // `partials`: [warps * warpFloats] f32.
  void build(gpu::LaunchOp launch, Value ring, Value partials);

private:
  OpBuilder &b;
  Location loc;
  Product p;
  Tiling tiling;
  Value out;
  int64_t prefetchColumns;
  Value lane, warp, firstColumn;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return add(x, idx(y)); }
  Value mul(Value x, int64_t y) { return arith::MulIOp::create(b, loc, x, idx(y)); }
  Value div(Value x, int64_t y) { return arith::DivUIOp::create(b, loc, x, idx(y)); }
  Value rem(Value x, int64_t y) { return arith::RemUIOp::create(b, loc, x, idx(y)); }
  Value min(Value x, int64_t y) { return arith::MinUIOp::create(b, loc, x, idx(y)); }
  Value less(Value x, int64_t y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, idx(y));
  }
  Value select(Value c, Value x, Value y) { return arith::SelectOp::create(b, loc, c, x, y); }
  void syncWarp() {
    NVVM::SyncWarpOp::create(b, loc, arith::ConstantIntOp::create(b, loc, -1, 32));
  }
  // Where chunk `chunk` (16 bytes) of stage row `row` lies: odd rows have
  // their two 64-byte halves swapped, so that the 8 lanes of a shared load
  // phase (rows g, g + 1, four chunks each) hit all 32 banks once. A row's
  // parity is the same counted in its stage or in the whole ring (a stage
  // has an even number of rows), so copies and loads may use either.
  Value swizzled(Value row, Value chunk) {
    Value flip = mul(rem(row, 2), kChunksPerRow / 2);
    return arith::XOrIOp::create(b, loc, chunk, flip);
  }
  // The first row of (warp, slot) in the ring.
  Value slotRow(Value slot) {
    return mul(add(mul(warp, tiling.stages), slot), tiling.stageRows());
  }
  void copyStage(Value ring, Value slot, Value stage);
  SmallVector<Value> loadShared(Value ring, Value row, Value chunk);
  void prefetchThenWait(Value tid);
};

// The first `prefetchColumns` k of each of the block's weight rows into L2
// (one bulk prefetch a row, a thread a row), then the wait for the previous
// kernel and the go-ahead for the next (programmatic dependent launch,
// magi-wait-for-previous-grid's, which leaves a kernel that waits itself
// as it is). A block launched while the previous kernel still runs so
// starts the weight stream during that kernel's tail. Nothing before the
// wait reads memory into a register, and a prefetch only warms the L2,
// which is coherent (a line the previous kernel still writes is updated
// there): safe whatever `b` is.
void KernelBuilder::prefetchThenWait(Value tid) {
  const int64_t N = p.columns, K = p.depth;
  // K is a multiple of 8: every row starts 16-byte aligned (bases are) and
  // the byte count is a multiple of 16, as the bulk copy needs.
  const int64_t bytes = std::min(prefetchColumns, K) * 2;
  auto i32 = [&](Value v) { return arith::IndexCastOp::create(b, loc, b.getI32Type(), v); };
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, p.b);
  auto rows = scf::ForOp::create(b, loc, tid, idx(tiling.columns()), idx(tiling.threads()));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(rows.getBody());
    Value row = add(firstColumn, rows.getInductionVar());
    auto inside = scf::IfOp::create(b, loc, less(row, N), false);
    b.setInsertionPointToStart(inside.thenBlock());
    Value address = add(base, mul(row, K * 2));
    Value generic = LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()),
        arith::IndexCastOp::create(b, loc, b.getI64Type(), address), LLVM::DereferenceableAttr());
    Value global = LLVM::AddrSpaceCastOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), 1), generic);
    NVVM::CpAsyncBulkPrefetchOp::create(b, loc, global, i32(idx(bytes)), Value());
  }
  NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::wait);
  NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::launch_dependents);
}

// The warp's stage `stage` (k from stage * 64, counted over the block's
// warps: stage s of warp w is the block's (s * warps + w)-th 64 columns)
// into its ring slot `slot`: each lane copies 16 bytes per instruction,
// eight lanes a 128-byte row; weight rows past N and rows of `a` past M
// read a valid row, columns past K none (zero-filled).
void KernelBuilder::copyStage(Value ring, Value slot, Value stage) {
  const int64_t M = p.rows, N = p.columns, K = p.depth;
  Value firstK = mul(add(mul(stage, tiling.warps), warp), kStageColumns);
  Value chunk = rem(lane, kChunksPerRow);
  Value column = add(firstK, mul(chunk, kChunk));
  Value inside = less(column, K);
  Value safeColumn = select(inside, column, idx(0));
  Value zero = idx(0);
  Value elements = select(inside, idx(kChunk), zero);
  Value base = slotRow(slot);
  const int64_t rowsPerCopy = kWarpSize / kChunksPerRow;
  for (int64_t r0 = 0; r0 < tiling.stageRows(); r0 += rowsPerCopy) {
    Value row = add(div(lane, kChunksPerRow), r0);
    Value source, sourceRow, count = elements;
    if (r0 < tiling.columns()) {
      source = p.b;
      sourceRow = min(add(firstColumn, row), N - 1);
    } else {
      source = p.a;
      Value aRow = add(div(lane, kChunksPerRow), r0 - tiling.columns());
      if (r0 - tiling.columns() + rowsPerCopy > M) {
        Value rowInside = less(aRow, M);
        count = select(rowInside, elements, zero);
      }
      sourceRow = min(aRow, M - 1);
    }
    Value at = mul(swizzled(row, chunk), kChunk);
    nvgpu::DeviceAsyncCopyOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), ring,
        ValueRange{add(base, row), at}, source, ValueRange{sourceRow, safeColumn},
        b.getIndexAttr(kChunk), count, /*bypassL1=*/b.getUnitAttr());
  }
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
}

// 16 bytes of the ring as four i32 words (chunk `chunk` of ring row `row`).
SmallVector<Value> KernelBuilder::loadShared(Value ring, Value row, Value chunk) {
  Value at = mul(swizzled(row, chunk), kChunk);
  auto vectorType = VectorType::get({kChunk}, p.element);
  Value v = vector::LoadOp::create(b, loc, vectorType, ring, ValueRange{row, at},
                                   /*nontemporal=*/false, llvm::MaybeAlign(16));
  Value words = vector::BitCastOp::create(b, loc, VectorType::get({4}, b.getI32Type()), v);
  SmallVector<Value> result;
  for (int64_t i = 0; i < 4; ++i)
    result.push_back(vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{i}));
  return result;
}

void KernelBuilder::build(gpu::LaunchOp launch, Value ring, Value partials) {
  const int64_t M = p.rows, N = p.columns, K = p.depth;
  const int64_t rowTiles = tiling.rowTiles, columnTiles = tiling.columnTiles;
  const int64_t stages = tiling.stages;
  Value tid = launch.getThreadIds().x;
  lane = rem(tid, kWarpSize);
  warp = div(tid, kWarpSize);
  firstColumn = mul(launch.getBlockIds().x, tiling.columns());
  Value group = div(lane, 4), inGroup = rem(lane, 4);
  if (prefetchColumns > 0)
    prefetchThenWait(tid);

  // The block's 64-column stages, taken by its warps in turn.
  const int64_t blockStages = llvm::divideCeil(K, kStageColumns);
  const int64_t iterations = llvm::divideCeil(blockStages, tiling.warps);
  // The first stages - 1 in flight before the loop.
  for (int64_t s = 0; s + 1 < stages; ++s)
    copyStage(ring, idx(s), idx(s));

  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  SmallVector<Value> init(tiling.warpFloats() / kWarpSize, zero);
  auto loop = scf::ForOp::create(b, loc, idx(0), idx(iterations), idx(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> acc(loop.getRegionIterArgs());
    Value it = loop.getInductionVar();
    // Stage it + stages - 1 into the slot stage it - 1 used (every lane
    // finished reading it before the previous iteration's last syncwarp);
    // past the warp's last stage the copies read nothing.
    Value ahead = add(it, stages - 1);
    copyStage(ring, rem(ahead, stages), ahead);
    // Stage it: its group and all before it complete (stages - 1 groups
    // may be in flight), and every lane's copies visible to the warp.
    NVVM::CpAsyncWaitGroupOp::create(b, loc, stages - 1);
    syncWarp();
    Value base = slotRow(rem(it, stages));
    auto reg = [&](Value word) { return magi::mmaRegister(b, loc, word, p.element); };
    for (int64_t u = 0; u < 2; ++u) {
      // Lane 4g + t: chunk t of the step (16 bytes, k = 8t .. 8t + 7) of
      // weight rows g + 8j and rows g, g + 8 of each row tile of `a`.
      Value chunk = add(inGroup, u * 4);
      SmallVector<SmallVector<Value>> weights;
      for (int64_t j = 0; j < columnTiles; ++j)
        weights.push_back(loadShared(ring, add(add(base, group), kColumnTile * j), chunk));
      for (int64_t i = 0; i < rowTiles; ++i) {
        Value aRow = add(add(base, group), tiling.columns() + kRowTile * i);
        SmallVector<Value> low = loadShared(ring, aRow, chunk);
        SmallVector<Value> high = loadShared(ring, add(aRow, kColumnTile), chunk);
        for (int64_t q = 0; q < 2; ++q) {
          SmallVector<Value> aRegs = {reg(low[2 * q]), reg(high[2 * q]),
                                      reg(low[2 * q + 1]), reg(high[2 * q + 1])};
          for (int64_t j = 0; j < columnTiles; ++j) {
            SmallVector<Value> bRegs = {reg(weights[j][2 * q]), reg(weights[j][2 * q + 1])};
            magi::mmaM16N8K16(b, loc, p.element, aRegs, bRegs,
                              MutableArrayRef<Value>(acc).slice((i * columnTiles + j) * 4, 4));
          }
        }
      }
    }
    // Every lane done with the slot before a lane's next copy refills it.
    syncWarp();
    scf::YieldOp::create(b, loc, acc);
  }
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);

  // Each warp's accumulators to shared memory ([warp][tile][register][lane]:
  // consecutive lanes at consecutive words), then each element of the
  // block's columns summed over the warps by one thread.
  Value warpBase = mul(warp, tiling.warpFloats());
  for (auto [r, value] : llvm::enumerate(loop.getResults()))
    memref::StoreOp::create(b, loc, value, partials,
                            ValueRange{add(add(warpBase, lane), int64_t(r) * kWarpSize)});
  gpu::BarrierOp::create(b, loc);
  Type outElement = cast<MemRefType>(out.getType()).getElementType();
  for (int64_t e0 = 0; e0 < tiling.warpFloats(); e0 += tiling.threads()) {
    Value e = add(tid, e0);
    scf::IfOp inRange;
    if (e0 + tiling.threads() > tiling.warpFloats()) {
      inRange = scf::IfOp::create(b, loc, less(e, tiling.warpFloats()), false);
      b.setInsertionPointToStart(inRange.thenBlock());
    }
    Value sum = zero;
    for (int64_t w = 0; w < tiling.warps; ++w)
      sum = arith::AddFOp::create(
          b, loc, sum,
          memref::LoadOp::create(b, loc, partials, ValueRange{add(e, w * tiling.warpFloats())}));
    // e = ((i * columnTiles + j) * 4 + r) * 32 + lane: the C fragment's
    // register r of lane 4g + t is (row g + 8 (r / 2), column 2t + r % 2).
    // (Each op is made in its own statement: the IR must not depend on the
    // order a C++ compiler evaluates arguments in.)
    Value eLane = rem(e, kWarpSize);
    Value reg = rem(div(e, kWarpSize), 4);
    Value tile = div(e, 4 * kWarpSize);
    Value i = div(tile, columnTiles);
    Value j = rem(tile, columnTiles);
    Value row = add(mul(i, kRowTile), div(eLane, 4));
    row = add(row, mul(div(reg, 2), 8));
    Value column = add(firstColumn, mul(j, kColumnTile));
    column = add(column, mul(rem(eLane, 4), 2));
    column = add(column, rem(reg, 2));
    Value rowInside = less(row, M);
    Value columnInside = less(column, N);
    Value store = arith::AndIOp::create(b, loc, rowInside, columnInside);
    auto ifStore = scf::IfOp::create(b, loc, store, false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifStore.thenBlock());
      Value result = sum;
      if (outElement != b.getF32Type())
        result = arith::TruncFOp::create(b, loc, outElement, sum);
      memref::StoreOp::create(b, loc, result, out, ValueRange{row, column});
    }
    if (inRange)
      b.setInsertionPointAfter(inRange);
  }
}

class FewRowMatmulToGPUPass
    : public magi::impl::FewRowMatmulToGPUBase<FewRowMatmulToGPUPass> {
public:
  using FewRowMatmulToGPUBase::FewRowMatmulToGPUBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (maxRows <= 0 || func.isExternal())
      return;
    for (int64_t option : {int64_t(columnTiles), int64_t(warps), int64_t(stages),
                           int64_t(prefetchColumns)})
      if (option < 0) {
        func.emitError("magi-few-row-matmul-to-gpu: column-tiles, warps, "
                       "stages and prefetch-columns must not be negative");
        return signalPassFailure();
      }
    SmallVector<linalg::LinalgOp> candidates;
    for (Operation &op : func.getBody().front())
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        candidates.push_back(linalgOp);
    llvm::SmallPtrSet<Operation *, 8> erased;
    unsigned number = 0;
    for (linalg::LinalgOp op : candidates) {
      if (erased.contains(op.getOperation()))
        continue;
      if (failed(rewrite(op, func, number, erased)))
        return signalPassFailure();
    }
    if (number > 0)
      magi::eraseWritesNobodyReads(func);
  }

private:
  // The options' tiling, 0s chosen: 4 column tiles (32 weight rows a
  // block), 4 warps, 4 stages (three in flight while one is multiplied:
  // 104 KiB a block at 16 rows, two blocks an SM), fewer (down to 2) where
  // more rows of `a` would not fit.
  FailureOr<Tiling> chooseTiling(const Product &p, Operation *op) const {
    Tiling t;
    t.rowTiles = llvm::divideCeil(p.rows, kRowTile);
    t.columnTiles = columnTiles ? columnTiles : 4;
    t.warps = warps ? warps : 4;
    t.stages = stages ? stages : 4;
    while (!stages && t.stages > 2 && t.sharedBytes() > kMaxSharedBytes)
      --t.stages;
    if (t.stages < 2 || t.threads() > 1024 || t.sharedBytes() > kMaxSharedBytes)
      return op->emitError("magi-few-row-matmul-to-gpu: ")
             << t.warps << " warps of " << t.rowTiles << " x " << t.columnTiles
             << " tiles and " << t.stages << " stages need " << t.threads()
             << " threads and " << t.sharedBytes()
             << " bytes of shared memory (at most 1024 and " << kMaxSharedBytes
             << ", and at least 2 stages)";
    return t;
  }

  LogicalResult rewrite(linalg::LinalgOp op, func::FuncOp func, unsigned &number,
                        llvm::SmallPtrSetImpl<Operation *> &erased) {
    std::optional<Product> product = matchProduct(op, maxRows);
    if (!product)
      return success();
    linalg::FillOp fill;
    if (!magi::holdsZeros(op, product->c, fill))
      return success();
    FailureOr<Tiling> tiling = chooseTiling(*product, op);
    if (failed(tiling))
      return failure();
    magi::ProductOutput output = magi::claimProductOutput(
        op, product->c, product->element, ValueRange{product->a, product->b}, fill);
    Value out = output.target;

    OpBuilder b(op);
    Location loc = op.getLoc();
    auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    Value one = c(1);
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
    auto kernels = FlatSymbolRefAttr::get(b.getContext(),
                                          (func.getSymName() + "_kernels").str());
    auto name = FlatSymbolRefAttr::get(b.getContext(), "gemm" + std::to_string(number++));
    auto launch = gpu::LaunchOp::create(
        b, loc, c(llvm::divideCeil(product->columns, tiling->columns())), one, one,
        c(tiling->threads()), one, one,
        arith::ConstantIntOp::create(b, loc, tiling->sharedBytes(), 32),
        /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{}, /*workgroupAttributions=*/{},
        /*privateAttributions=*/{}, nullptr, nullptr, nullptr, kernels, name);
    SmallVector<NamedAttribute> config{
        b.getNamedAttr("block_size", b.getI64IntegerAttr(tiling->threads())),
        b.getNamedAttr("strategy", b.getStringAttr("few-row-gemm")),
        b.getNamedAttr("row_tiles", b.getI64IntegerAttr(tiling->rowTiles)),
        b.getNamedAttr("column_tiles", b.getI64IntegerAttr(tiling->columnTiles)),
        b.getNamedAttr("warps", b.getI64IntegerAttr(tiling->warps)),
        b.getNamedAttr("stages", b.getI64IntegerAttr(tiling->stages))};
    if (prefetchColumns > 0)
      config.push_back(b.getNamedAttr(
          "prefetch_columns",
          b.getI64IntegerAttr(std::min<int64_t>(prefetchColumns, product->depth))));
    launch->setAttr(magi::kKernelConfigAttr, b.getDictionaryAttr(config));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&launch.getBody().front());
      // The warps' rings, then the partial sums, in dynamic shared memory.
      Value shared = gpu::DynamicSharedMemoryOp::create(
          b, loc, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                  MemRefLayoutAttrInterface(), workgroup));
      auto ringType = MemRefType::get(
          {tiling->warps * tiling->stages * tiling->stageRows(), kStageColumns},
          product->element, MemRefLayoutAttrInterface(), workgroup);
      auto partialsType = MemRefType::get({tiling->warps * tiling->warpFloats()},
                                          b.getF32Type(), MemRefLayoutAttrInterface(),
                                          workgroup);
      Value ring = memref::ViewOp::create(b, loc, ringType, shared, c(0), ValueRange{});
      Value partials = memref::ViewOp::create(b, loc, partialsType, shared,
                                              c(tiling->ringBytes()), ValueRange{});
      KernelBuilder(b, loc, *product, *tiling, out, prefetchColumns)
          .build(launch, ring, partials);
      gpu::TerminatorOp::create(b, loc);
    }
    magi::eraseReplacedProduct(op, output, erased);
    return success();
  }
};

} // namespace
