//===- FewRowMatmul.cpp - products of few rows as weight-streaming kernels ===//
//
// At a few tokens a projection reads a weight of tens of megabytes to make a
// few kilobytes: its time is the weight's bytes over the bandwidth. cuBLASLt
// streamed a 4096 x 4096 weight at 0.55 of the H200's copy bandwidth at 16
// rows (docs/compile.md). This kernel loads each weight row 16 bytes a lane
// straight into mma.sync's B registers (see the pass description for the
// numbering of k that allows it) and splits K over a block's warps.
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
// Elements of a 16-byte load.
constexpr int64_t kChunk = 8;
// f32 accumulators of one m16n8 tile over a warp.
constexpr int64_t kTileFloats = kRowTile * kColumnTile;
constexpr int64_t kStaticSharedBytes = 48 * 1024;
// An H200's multiprocessors.
constexpr int64_t kMultiprocessors = 132;

struct Tiling {
  int64_t rowTiles, columnTiles, warps, unroll;
  int64_t columns() const { return kColumnTile * columnTiles; }
  int64_t threads() const { return kWarpSize * warps; }
  // One warp's accumulators, and the block's shared partial sums.
  int64_t warpFloats() const { return rowTiles * columnTiles * kTileFloats; }
  int64_t sharedBytes() const { return warps * warpFloats() * 4; }
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
                Value out)
      : b(b), loc(loc), p(p), tiling(tiling), out(out) {}

  void build(gpu::LaunchOp launch, Value shared);

private:
  OpBuilder &b;
  Location loc;
  Product p;
  Tiling tiling;
  Value out;

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
  Value i32(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 32); }

  // The address of `memref`'s first element, as an i64.
  Value baseAddress(Value memref) {
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), base);
  }
  // 16 bytes at `base` + `offset` bytes, as four i32 words: read-only
  // (`.nc`); `streamed` data (read once) is not kept in L1. (L2's eviction
  // priorities take 32-byte loads before sm_100, or a cache policy.)
  SmallVector<Value> load16(Value base, Value offset, bool streamed) {
    Value address = arith::AddIOp::create(
        b, loc, base, arith::IndexCastUIOp::create(b, loc, b.getI64Type(), offset));
    std::string text = std::string("ld.global.nc") +
                       (streamed ? ".L1::no_allocate" : "") +
                       ".v4.u32 {$0, $1, $2, $3}, [$4];";
    Type word = b.getI32Type();
    auto resultType =
        LLVM::LLVMStructType::getLiteral(b.getContext(), SmallVector<Type>(4, word));
    Value loaded =
        LLVM::InlineAsmOp::create(
            b, loc, resultType, ValueRange{address}, b.getStringAttr(text),
            b.getStringAttr("=r,=r,=r,=r,l"), /*has_side_effects=*/nullptr,
            /*is_align_stack=*/nullptr, /*tail_call_kind=*/nullptr,
            LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
            /*operand_attrs=*/nullptr)
            .getResult(0);
    SmallVector<Value> words;
    for (int64_t i = 0; i < 4; ++i)
      words.push_back(LLVM::ExtractValueOp::create(b, loc, loaded, ArrayRef<int64_t>{i}));
    return words;
  }
  void zeroUnless(Value keep, MutableArrayRef<Value> words) {
    for (Value &w : words)
      w = arith::SelectOp::create(b, loc, keep, w, i32(0));
  }
};

void KernelBuilder::build(gpu::LaunchOp launch, Value shared) {
  const int64_t M = p.rows, N = p.columns, K = p.depth;
  const int64_t rowTiles = tiling.rowTiles, columnTiles = tiling.columnTiles;
  const int64_t elementBytes = 2;
  Value tid = launch.getThreadIds().x;
  Value lane = rem(tid, kWarpSize), warp = div(tid, kWarpSize);
  Value group = div(lane, 4), inGroup = rem(lane, 4);
  Value firstColumn = mul(launch.getBlockIds().x, tiling.columns());
  Value aBase = baseAddress(p.a), bBase = baseAddress(p.b);
  Value laneBytes = mul(inGroup, kChunk * elementBytes);

  // The lane's weight rows (clamped: rows past N are read but not stored)
  // and rows of `a` (clamped, their values zeroed past M), as byte offsets
  // of the lane's chunk in a step's first 32 columns.
  SmallVector<Value> weightRow;
  for (int64_t j = 0; j < columnTiles; ++j) {
    Value row = min(add(add(firstColumn, group), kColumnTile * j), N - 1);
    weightRow.push_back(add(mul(row, K * elementBytes), laneBytes));
  }
  // Per row tile, the halves g and g + 8; `rowValid` null when every lane's
  // row is inside, `rowAbsent` when none is.
  struct Half {
    Value offset, valid;
    bool absent = false;
  };
  SmallVector<std::array<Half, 2>> halves(rowTiles);
  for (int64_t i = 0; i < rowTiles; ++i)
    for (int64_t h = 0; h < 2; ++h) {
      int64_t first = kRowTile * i + kColumnTile * h;
      Half &half = halves[i][h];
      if (first >= M) {
        half.absent = true;
        continue;
      }
      Value row = add(group, first);
      if (first + kColumnTile > M)
        half.valid = less(row, M);
      half.offset = add(mul(min(row, M - 1), K * elementBytes), laneBytes);
    }

  const int64_t chunkElements = kStep * tiling.unroll;
  const int64_t chunks = llvm::divideCeil(K, chunkElements);
  const int64_t iterations = llvm::divideCeil(chunks, tiling.warps);
  // Whether some lane's 8 columns of some step lie past K (K not a
  // multiple of the chunk, or warps without a chunk in the last round).
  const bool guardK = iterations * tiling.warps * chunkElements != K;

  Type f32 = b.getF32Type();
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  SmallVector<Value> init(tiling.warpFloats() / kWarpSize, zero);
  auto loop = scf::ForOp::create(b, loc, idx(0), idx(iterations), idx(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> acc(loop.getRegionIterArgs());
    Value chunk = add(mul(loop.getInductionVar(), tiling.warps), warp);
    Value chunkFirst = mul(chunk, chunkElements);
    // All loads of the chunk first, then its products.
    SmallVector<SmallVector<SmallVector<Value>>> weights(tiling.unroll);
    SmallVector<SmallVector<std::array<SmallVector<Value>, 2>>> rows(tiling.unroll);
    for (int64_t u = 0; u < tiling.unroll; ++u) {
      Value column = add(chunkFirst, kStep * u);
      Value inside;
      if (guardK) {
        inside = less(add(column, mul(inGroup, kChunk)), K);
        column = arith::SelectOp::create(b, loc, inside, column, idx(0));
      }
      Value columnBytes = mul(column, elementBytes);
      for (int64_t j = 0; j < columnTiles; ++j) {
        weights[u].push_back(load16(bBase, add(weightRow[j], columnBytes), true));
        if (inside)
          zeroUnless(inside, weights[u].back());
      }
      rows[u].resize(rowTiles);
      for (int64_t i = 0; i < rowTiles; ++i)
        for (int64_t h = 0; h < 2; ++h) {
          const Half &half = halves[i][h];
          SmallVector<Value> &words = rows[u][i][h];
          if (half.absent) {
            words.assign(4, i32(0));
            continue;
          }
          words = load16(aBase, add(half.offset, columnBytes), false);
          if (half.valid)
            zeroUnless(half.valid, words);
          if (inside)
            zeroUnless(inside, words);
        }
    }
    auto reg = [&](Value word) { return magi::mmaRegister(b, loc, word, p.element); };
    for (int64_t u = 0; u < tiling.unroll; ++u)
      for (int64_t q = 0; q < 2; ++q)
        for (int64_t i = 0; i < rowTiles; ++i) {
          const auto &x = rows[u][i];
          SmallVector<Value> aRegs = {reg(x[0][2 * q]), reg(x[1][2 * q]),
                                      reg(x[0][2 * q + 1]), reg(x[1][2 * q + 1])};
          for (int64_t j = 0; j < columnTiles; ++j) {
            SmallVector<Value> bRegs = {reg(weights[u][j][2 * q]),
                                        reg(weights[u][j][2 * q + 1])};
            magi::mmaM16N8K16(b, loc, p.element, aRegs, bRegs,
                              MutableArrayRef<Value>(acc).slice((i * columnTiles + j) * 4, 4));
          }
        }
    scf::YieldOp::create(b, loc, acc);
  }

  // Each warp's accumulators to shared memory ([warp][tile][register][lane]:
  // consecutive lanes at consecutive words), then each element of the
  // block's columns summed over the warps by one thread.
  Value warpBase = mul(warp, tiling.warpFloats());
  for (auto [r, value] : llvm::enumerate(loop.getResults()))
    memref::StoreOp::create(b, loc, value, shared,
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
          memref::LoadOp::create(b, loc, shared, ValueRange{add(e, w * tiling.warpFloats())}));
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
      if (outElement != f32)
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
    for (int64_t option : {int64_t(columnTiles), int64_t(warps), int64_t(unroll)})
      if (option < 0) {
        func.emitError("magi-few-row-matmul-to-gpu: column-tiles, warps and "
                       "unroll must not be negative");
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
  FailureOr<Tiling> chooseTiling(const Product &p, Operation *op) const {
    Tiling t;
    t.rowTiles = llvm::divideCeil(p.rows, kRowTile);
    t.columnTiles = columnTiles ? columnTiles : 4;
    t.unroll = unroll ? unroll : 2;
    if (warps) {
      t.warps = warps;
    } else {
      int64_t blocks = llvm::divideCeil(p.columns, t.columns());
      t.warps = blocks < 2 * kMultiprocessors ? 16 : 8;
      while (t.warps > 1 && t.sharedBytes() > kStaticSharedBytes)
        t.warps /= 2;
    }
    if (t.threads() > 1024 || t.sharedBytes() > kStaticSharedBytes)
      return op->emitError("magi-few-row-matmul-to-gpu: ")
             << t.warps << " warps of " << t.rowTiles << " x " << t.columnTiles
             << " tiles need " << t.threads() << " threads and "
             << t.sharedBytes() << " bytes of shared memory (at most 1024 and "
             << kStaticSharedBytes << ")";
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
    bool fillIsDead = fill.getOutputs()[0] == product->c &&
                      magi::unusedBetween(fill, op, product->c);
    linalg::GenericOp rounding = magi::roundingOnlyReader(
        op, product->c, product->element, ValueRange{product->a, product->b});
    Value out = product->c;
    if (rounding) {
      out = rounding.getDpsInitOperand(0)->get();
      Operation *alloc = out.getDefiningOp();
      if (!alloc->isBeforeInBlock(op))
        alloc->moveBefore(op);
    }

    OpBuilder b(op);
    Location loc = op.getLoc();
    auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    Value one = c(1);
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
    auto sharedType = MemRefType::get({tiling->warps * tiling->warpFloats()}, b.getF32Type(),
                                      MemRefLayoutAttrInterface(), workgroup);
    auto kernels = FlatSymbolRefAttr::get(b.getContext(),
                                          (func.getSymName() + "_kernels").str());
    auto name = FlatSymbolRefAttr::get(b.getContext(), "gemm" + std::to_string(number++));
    auto launch = gpu::LaunchOp::create(
        b, loc, c(llvm::divideCeil(product->columns, tiling->columns())), one, one,
        c(tiling->threads()), one, one, /*dynamicSharedMemorySize=*/nullptr,
        /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{}, TypeRange{sharedType},
        /*privateAttributions=*/{}, nullptr, nullptr, nullptr, kernels, name);
    launch->setAttr(
        magi::kKernelConfigAttr,
        b.getDictionaryAttr(
            {b.getNamedAttr("block_size", b.getI64IntegerAttr(tiling->threads())),
             b.getNamedAttr("strategy", b.getStringAttr("few-row-gemm")),
             b.getNamedAttr("row_tiles", b.getI64IntegerAttr(tiling->rowTiles)),
             b.getNamedAttr("column_tiles", b.getI64IntegerAttr(tiling->columnTiles)),
             b.getNamedAttr("warps", b.getI64IntegerAttr(tiling->warps)),
             b.getNamedAttr("unroll", b.getI64IntegerAttr(tiling->unroll))}));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&launch.getBody().front());
      KernelBuilder(b, loc, *product, *tiling, out)
          .build(launch, launch.getWorkgroupAttributions()[0]);
      gpu::TerminatorOp::create(b, loc);
    }
    op->erase();
    if (rounding) {
      erased.insert(rounding.getOperation());
      rounding->erase();
    }
    if (fillIsDead)
      fill->erase();
    return success();
  }
};

} // namespace
