//===- TiledAttention.cpp - magi.tiled_attention as one tensor-core kernel ===//
//
// FlashAttention-2's algorithm on mma.sync: a block of four warps owns 64
// query rows of one head, each warp 16 of them; key and value tiles of 64
// rows pass through shared memory (cp.async), scores and the product with V
// are m16n8k16 tensor-core products with f32 accumulators, and the softmax
// is online (running max and sum in registers). The fragment layouts are
// PTX's for mma.m16n8k16 (thread lane = 4 g + t):
//   A (16x16): regs {(g, 2t), (g+8, 2t), (g, 2t+8), (g+8, 2t+8)}, 2 values each
//   B (16x8):  regs {(k 2t, n g), (k 2t+8, n g)}, 2 values along k each
//   C (16x8):  {(g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1)}
// so the scores' accumulators of two neighbouring 8-key tiles are, rounded,
// the A operand of the product with V for those 16 keys. With warpgroup
// products (sm_90a) the four warps are one warpgroup and both products are
// wgmma m64nNk16 sequences whose A (the query's fragments, then P) is in
// these same register layouts, B read from 128-byte swizzled shared tiles
// by descriptor, and whose accumulators are laid out as C above.
//
//===----------------------------------------------------------------------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Dialect/Magi/IR/TiledAttentionMath.h"
#include "magi/Dialect/Magi/IR/TiledAttentionRules.h"
#include "magi/GPU/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

#include <cmath>

namespace magi {
#define GEN_PASS_DEF_TILEDATTENTIONTOGPU
#include "magi/GPU/Passes.h.inc"
} // namespace magi

using namespace mlir;

namespace {

constexpr int64_t kWarps = 4;
constexpr int64_t kThreads = 32 * kWarps;
constexpr int64_t kFragmentRows = 16;
// Shared memory a kernel may declare statically; beyond it the tiles are
// views of dynamic shared memory (the runtime opts the kernel in).
constexpr int64_t kStaticSharedBytes = 48 * 1024;
// Elements of padding per shared row: consecutive rows start 16 bytes apart
// in the banks, so the 8 row addresses of one ldmatrix tile hit 32 banks.
constexpr int64_t kPadding = 8;
// Elements one cp.async moves (16 bytes of f16/bf16).
constexpr int64_t kCopyElements = 8;
// The class table holds a magi::MaskTileClass per tile.
using magi::kHiddenTile;
using magi::kMixedTile;
using magi::kPassTile;

// The kernel's tiling: query rows a warp (16 or 32: one or two m16
// fragments, each key and value fragment loaded once for both), key rows a
// tile (32 or 64), and whether the query fragments are loaded from shared
// memory for each key tile instead of held in registers.
struct AttentionTiles {
  int64_t rowsPerWarp;
  int64_t keyRows;
  bool queryInShared;
  // Blocks an SM must hold at once (nvvm.minctasm); 0: ptxas chooses.
  int64_t minBlocksPerSM = 0;
  // Hopper's warpgroup products (sm_90a): the block's four warps are one
  // warpgroup, S = Q K^T and O += P V are `wgmma.mma_async` m64nNk16 with
  // Q and P from registers and K and V read from shared memory by
  // descriptor, once for all 64 query rows (mma.sync reads them once a
  // warp). Needs 16 rows a warp and the query in registers.
  bool warpgroupMma = false;
  int64_t fragments() const { return rowsPerWarp / kFragmentRows; }
  int64_t queryRows() const { return kWarps * rowsPerWarp; }
};

// Attention for few query rows over many keys (a decode step: one query
// tile) splits the keys over `splits` blocks per head, each `tilesPerSplit`
// key tiles long. Each block writes its rows' unnormalized output (f32),
// running max (log2 units) and sum to these buffers ([split, batch, head,
// row(, column)]); a second kernel combines the splits.
struct KeySplits {
  int64_t splits = 1;
  int64_t tilesPerSplit = 0;
  Value output, max, sum;
  explicit operator bool() const { return splits > 1; }
};

// Builds one kernel's body; every value is an index unless said otherwise.
class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc, magi::TiledAttentionOp op,
                const AttentionTiles &tiles, Value query, Value key,
                Value value, Value mask, Value classes, Value out,
                KeySplits keySplits = {})
      : b(b), loc(loc), tiles(tiles), query(query), key(key), value(value),
        mask(mask), classes(classes), out(out), keySplits(keySplits) {
    auto qType = cast<MemRefType>(query.getType());
    element = qType.getElementType();
    headDim = qType.getShape().back();
    group = qType.getShape()[1] / cast<MemRefType>(key.getType()).getShape()[1];
    causal = op.getIsCausal();
    scaleLog2 = op.getScale().convertToDouble() * M_LOG2E;
    f32 = b.getF32Type();
    i32 = b.getI32Type();
  }

  // `sharedQ`: the query tile's buffer when it has one (else the key
  // buffer carries the query tile into registers).
  void build(gpu::LaunchOp launch, Value queries, Value keys, Value sharedQ,
             Value sharedK, Value sharedV);

private:
  OpBuilder &b;
  Location loc;
  AttentionTiles tiles;
  Value query, key, value, mask, classes, out;
  // The shared buffer the query tile is copied into (padded rows).
  Value queryBuffer;
  KeySplits keySplits;
  Type element, f32, i32;
  int64_t headDim, group;
  bool causal;
  double scaleLog2;
  // Per-thread values of the kernel.
  Value tid, lane, batch, head, kvHead, maskBatch, maskHead;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return add(x, idx(y)); }
  Value mul(Value x, int64_t y) { return mul(x, idx(y)); }
  Value div(Value x, int64_t y) {
    return arith::DivUIOp::create(b, loc, x, idx(y));
  }
  Value rem(Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, idx(y));
  }
  Value lessThan(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value f32Const(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value fmax(Value x, Value y) { return arith::MaximumFOp::create(b, loc, x, y); }
  Value exp2(Value x) { return math::Exp2Op::create(b, loc, x); }

  // Copies rows [first, first + count) of (batch, h) of `src` into the
  // shared tile; rows at or past `rows` are zero-filled.
  void copyTile(Value src, Value h, Value first, Value rows, Value shared,
                int64_t count) {
    int64_t chunksPerRow = headDim / kCopyElements;
    int64_t rowsPerPass = kThreads / chunksPerRow;
    Value row0 = div(tid, chunksPerRow);
    Value col = mul(rem(tid, chunksPerRow), kCopyElements);
    Value zero = idx(0);
    for (int64_t pass = 0; pass < count / rowsPerPass; ++pass) {
      Value row = add(row0, pass * rowsPerPass);
      Value globalRow = add(first, row);
      Value inside = lessThan(globalRow, rows);
      Value srcRow = arith::SelectOp::create(b, loc, inside, globalRow, zero);
      Value bytes = arith::SelectOp::create(b, loc, inside, idx(kCopyElements), zero);
      // Padded rows, or (key and value tiles for warpgroup products)
      // 128-byte swizzled rows.
      SmallVector<Value> at = {row, col};
      if (tiles.warpgroupMma && shared != queryBuffer)
        at = swizzledAt(row, col, count);
      nvgpu::DeviceAsyncCopyOp::create(
          b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), shared, at,
          src, ValueRange{batch, h, srcRow, col}, b.getIndexAttr(kCopyElements),
          bytes, b.getUnitAttr());
    }
  }

  // Warpgroup products read key and value tiles in the 128-byte swizzle
  // layout a wgmma descriptor describes: the tile's columns in blocks of 64
  // (128 bytes), each block `rows` rows of 128 bytes, and in row r the 16-byte
  // chunk c stored at c xor (r mod 8). A warp's cp.async then writes whole
  // 128-byte rows (no bank conflicts; the padded rows of the mma.sync path
  // and unswizzled 8 x 8 core matrices put consecutive chunks 128 bytes
  // apart, in the same banks). The shared buffer is [D / 64 * rows, 64],
  // its base 1024-byte aligned (the swizzle repeats every 8 rows).
  SmallVector<Value> swizzledAt(Value row, Value col, int64_t rows) {
    Value block = div(col, 64);
    Value chunk = rem(div(col, kCopyElements), 8);
    Value swizzled = arith::XOrIOp::create(b, loc, chunk, rem(row, 8));
    return {add(mul(block, rows), row), mul(swizzled, kCopyElements)};
  }
  // The descriptor (PTX's wgmma shared-memory matrix descriptor) of such a
  // tile: start address, leading and stride byte offsets in units of 16
  // bytes, and the 128-byte swizzle mode. Offsets from the start are added
  // to the low bits (the shared window is below 2^18 bytes: no carry into
  // the next field).
  Value tileDescriptor(Value shared, int64_t leadingBytes, int64_t strideBytes) {
    Type i64 = b.getI64Type();
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, shared);
    Value address = arith::IndexCastUIOp::create(b, loc, i64, base);
    Value start = arith::AndIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc, address, arith::ConstantIntOp::create(b, loc, 4, 64)),
        arith::ConstantIntOp::create(b, loc, 0x3FFF, 64));
    constexpr uint64_t kSwizzle128B = uint64_t(1) << 62;
    uint64_t fields = (uint64_t(leadingBytes >> 4) << 16) |
                      (uint64_t(strideBytes >> 4) << 32) | kSwizzle128B;
    return arith::OrIOp::create(
        b, loc, start, arith::ConstantIntOp::create(b, loc, int64_t(fields), 64));
  }
  Value descriptorAt(Value descriptor, int64_t byteOffset) {
    return arith::AddIOp::create(
        b, loc, descriptor,
        arith::ConstantIntOp::create(b, loc, byteOffset >> 4, 64));
  }
  // A register of two 16-bit values as the i32 inline PTX takes.
  Value asWord(Value v) {
    if (v.getType().isInteger(32))
      return v;
    Value word = vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), v);
    return vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0});
  }
  // acc += sum over steps of A_i * B_i for the warpgroup's 64 rows: one
  // `wgmma.mma_async` m64nNk16 a step, A_i this warp's 16 rows as four
  // registers (mma.sync's A layout), B_i by descriptor (K-major, or N-major
  // with `transposeB`), acc N / 2 f32 values a thread in mma.sync's C
  // layout, one n8 tile after another. One inline PTX statement from
  // `wgmma.fence` to `wgmma.wait_group 0`: the accumulators may not be read
  // while the products are in flight, and as an asm's results they exist
  // for LLVM only once it has waited. (NVVM's wgmma op takes A only from
  // shared memory.)
  void warpgroupMma(ArrayRef<SmallVector<Value>> a, ArrayRef<Value> descriptors,
                    bool transposeB, MutableArrayRef<Value> acc) {
    int64_t n = 2 * int64_t(acc.size());
    std::string type = element.isBF16() ? "bf16" : "f16";
    std::string accList;
    for (size_t i = 0; i < acc.size(); ++i)
      accList += (i ? ", $" : "$") + std::to_string(i);
    // Operands: the accumulators' results, then per step four A registers
    // and a descriptor, then the accumulators' inputs (tied).
    std::string text = "{\nwgmma.fence.sync.aligned;\n";
    std::string constraints;
    for (size_t i = 0; i < acc.size(); ++i)
      constraints += "=f,";
    SmallVector<Value> operands;
    size_t next = acc.size();
    for (size_t step = 0; step < a.size(); ++step) {
      text += "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32." +
              type + "." + type + " {" + accList + "}, {";
      for (int r = 0; r < 4; ++r) {
        text += (r ? ", $" : "$") + std::to_string(next++);
        operands.push_back(asWord(a[step][r]));
        constraints += "r,";
      }
      text += "}, $" + std::to_string(next++) + ", 1, 1, 1, " +
              (transposeB ? "1" : "0") + ";\n";
      operands.push_back(descriptors[step]);
      constraints += "l,";
    }
    text += "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n}";
    for (size_t i = 0; i < acc.size(); ++i) {
      operands.push_back(acc[i]);
      constraints += (i ? "," : "") + std::to_string(i);
    }
    auto resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(acc.size(), f32));
    Value result =
        LLVM::InlineAsmOp::create(
            b, loc, resultType, operands, b.getStringAttr(text),
            b.getStringAttr(constraints), b.getUnitAttr(),
            /*is_align_stack=*/nullptr, /*tail_call_kind=*/nullptr,
            LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
            /*operand_attrs=*/nullptr)
            .getResult(0);
    for (size_t i = 0; i < acc.size(); ++i)
      acc[i] = LLVM::ExtractValueOp::create(b, loc, result,
                                            ArrayRef<int64_t>{int64_t(i)});
  }
  // cp.async's writes (generic proxy) made visible to wgmma's reads (async
  // proxy); before the barrier that publishes the tile.
  void fenceForWarpgroup() {
    if (tiles.warpgroupMma)
      NVVM::FenceProxyOp::create(
          b, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
  }
  void commit() { NVVM::CpAsyncCommitGroupOp::create(b, loc); }
  void waitAllBut(int32_t pending) {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, pending);
  }
  void barrier() { gpu::BarrierOp::create(b, loc); }

  // The address (bytes in the shared window, 32 bits) of element
  // (row, col) of a shared tile: one value per lane and tile, from which
  // every fragment load of the tile is a constant offset.
  Value sharedAddress(Value shared, Value row, Value col) {
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, shared);
    Value offset = mul(add(mul(row, headDim + kPadding), col), 2);
    return arith::IndexCastUIOp::create(b, loc, i32, add(base, offset));
  }
  // Bytes between element (row, col) and (row + rows, col + cols) of a
  // shared tile.
  int64_t sharedOffset(int64_t rows, int64_t cols) {
    return (rows * (headDim + kPadding) + cols) * 2;
  }

  // Four 8x8 tiles of 16-bit values from shared memory, as the four
  // registers nvvm.mma.sync takes (two values each): `ldmatrix` at
  // `address` + `offset` bytes. Inline PTX rather than nvgpu.ldmatrix: the
  // fragment addresses of a tile are loop-invariant, and LLVM hoists each
  // one (64 bits) out of the key loop, 32 to 48 of them, which cost 64 to
  // 96 registers; here the offset is the instruction's immediate and a
  // lane holds one address per tile. Side effects keep the load in the
  // loop, after the barrier that makes the tile visible.
  SmallVector<Value> loadFragments(Value address, int64_t offset, bool transpose) {
    std::string text = std::string("ldmatrix.sync.aligned.m8n8.x4") +
                       (transpose ? ".trans" : "") +
                       ".shared.b16 {$0, $1, $2, $3}, [$4+" +
                       std::to_string(offset) + "];";
    auto resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(4, i32));
    Value fragments =
        LLVM::InlineAsmOp::create(
            b, loc, resultType, ValueRange{address}, b.getStringAttr(text),
            b.getStringAttr("=r,=r,=r,=r,r"), b.getUnitAttr(),
            /*is_align_stack=*/nullptr, /*tail_call_kind=*/nullptr,
            LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
            /*operand_attrs=*/nullptr)
            .getResult(0);
    SmallVector<Value> regs;
    for (int64_t i = 0; i < 4; ++i) {
      Value word = LLVM::ExtractValueOp::create(b, loc, fragments,
                                                ArrayRef<int64_t>{i});
      regs.push_back(magi::mmaRegister(b, loc, word, element));
    }
    return regs;
  }
  // A vector<2 x f16/bf16> as the register operand nvvm.mma.sync takes:
  // vector<2xf16> for f16, an i32 for bf16.
  Value asRegister(Value pair) {
    if (element.isF16())
      return pair;
    Value word = vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), pair);
    return vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0});
  }
  // Two f32 values rounded to the element type, as one register (the first
  // in the low half).
  Value packRounded(Value lo, Value hi) {
    Value pair = vector::FromElementsOp::create(
        b, loc, VectorType::get({2}, f32), ValueRange{lo, hi});
    Value rounded = arith::TruncFOp::create(
        b, loc, VectorType::get({2}, element), pair);
    return asRegister(rounded);
  }

  // acc += A * B for one m16n8k16 tile: A four registers, B two, acc four
  // f32 values.
  void mma(ArrayRef<Value> a, ArrayRef<Value> bRegs, MutableArrayRef<Value> acc) {
    magi::mmaM16N8K16(b, loc, element, a, bRegs, acc);
  }

  // For each fragment f: acc[f][offset, offset + 8) += A[f] * B for two
  // neighbouring n8 tiles, their B fragments one ldmatrix of four 8x8
  // tiles (see the header), loaded once for all fragments.
  void mmaTilePair(ArrayRef<SmallVector<Value>> a, Value address,
                   int64_t byteOffset, bool transpose,
                   MutableArrayRef<SmallVector<Value>> acc, int64_t offset) {
    SmallVector<Value> regs = loadFragments(address, byteOffset, transpose);
    for (int64_t f = 0; f < tiles.fragments(); ++f) {
      MutableArrayRef<Value> pair = MutableArrayRef<Value>(acc[f]).slice(offset, 8);
      mma(a[f], {regs[0], regs[1]}, pair.take_front(4));
      mma(a[f], {regs[2], regs[3]}, pair.drop_front(4));
    }
  }

  // `v` combined over the four threads of a quad (the threads of one row).
  Value quadReduce(Value v, bool isMax) {
    for (int32_t offset : {1, 2}) {
      Value other = gpu::ShuffleOp::create(
                        b, loc, v, offset, 32, gpu::ShuffleMode::XOR)
                        .getShuffleResult();
      v = isMax ? fmax(v, other) : fadd(v, other);
    }
    return v;
  }

  // `body`'s values, computed only where `cond` holds (else `otherwise`);
  // unconditionally when there is no condition.
  SmallVector<Value> guarded(Value cond, function_ref<SmallVector<Value>()> body,
                             ArrayRef<Value> otherwise) {
    if (!cond)
      return body();
    auto ifOp = scf::IfOp::create(b, loc, ValueRange(otherwise).getTypes(), cond,
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(b, loc, body());
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, otherwise);
    return SmallVector<Value>(ifOp.getResults());
  }

  // A multiple of 8 elements, checked in the kernel unless known.
  void assertAligned(Value memref, StringRef what);
  // Split over keys: each row's unnormalized output, max and sum into the
  // split's partials (`results` as the key loop yields them).
  void writePartials(ValueRange results, ArrayRef<Value> rows, Value split);
};

void KernelBuilder::writePartials(ValueRange results, ArrayRef<Value> rows,
                                  Value split) {
  const int64_t fragments = tiles.fragments(), rowCount = 2 * fragments;
  const int64_t outTiles = headDim / 8, accPerFragment = 4 * outTiles;
  Value quadCol = rem(lane, 4);
  Value firstOfQuad = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            quadCol, idx(0));
  for (int64_t f = 0; f < fragments; ++f)
    for (int r = 0; r < 2; ++r) {
      int64_t row = 2 * f + r;
      Value sum = quadReduce(results[accPerFragment * fragments + rowCount + row],
                             /*isMax=*/false);
      Value max = results[accPerFragment * fragments + row];
      auto ifOp = scf::IfOp::create(
          b, loc, lessThan(rows[row], memref::DimOp::create(b, loc, keySplits.max, 3)),
          false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      for (int64_t d = 0; d < outTiles; ++d) {
        Value pair = vector::FromElementsOp::create(
            b, loc, VectorType::get({2}, f32),
            ValueRange{results[f * accPerFragment + 4 * d + 2 * r],
                       results[f * accPerFragment + 4 * d + 2 * r + 1]});
        Value col = add(mul(quadCol, 2), d * 8);
        vector::StoreOp::create(b, loc, pair, keySplits.output,
                                ValueRange{split, batch, head, rows[row], col});
      }
      auto first = scf::IfOp::create(b, loc, firstOfQuad, false);
      b.setInsertionPointToStart(first.thenBlock());
      memref::StoreOp::create(b, loc, max, keySplits.max,
                              ValueRange{split, batch, head, rows[row]});
      memref::StoreOp::create(b, loc, sum, keySplits.sum,
                              ValueRange{split, batch, head, rows[row]});
    }
}

void KernelBuilder::build(gpu::LaunchOp launch, Value queries, Value keys,
                          Value sharedQ, Value sharedK, Value sharedV) {
  const int64_t fragments = tiles.fragments();
  const int64_t queryRows = tiles.queryRows();
  const int64_t keyRows = tiles.keyRows;
  tid = launch.getThreadIds().x;
  // The last query tiles have the most keys under a causal mask: first.
  // Split over keys, there is one query tile and x is the split.
  Value tile = keySplits
                   ? idx(0)
                   : arith::SubIOp::create(
                         b, loc, arith::SubIOp::create(b, loc, launch.getGridSize().x, idx(1)),
                         launch.getBlockIds().x)
                         .getResult();
  Value split = keySplits ? launch.getBlockIds().x : Value();
  head = launch.getBlockIds().y;
  batch = launch.getBlockIds().z;
  kvHead = group == 1 ? head : div(head, group);
  if (mask) {
    auto maskShape = cast<MemRefType>(mask.getType()).getShape();
    maskBatch = maskShape[0] == 1 ? idx(0) : batch;
    maskHead = maskShape[1] == 1 ? idx(0) : head;
  }
  for (auto [operand, what] : {std::pair{query, "query"}, {key, "key"},
                               {value, "value"}})
    assertAligned(operand, what);

  Value warp = div(tid, 32);
  lane = rem(tid, 32);
  Value quadRow = div(lane, 4); // g
  Value quadCol = rem(lane, 4); // t
  Value firstQuery = mul(tile, queryRows);
  Value warpRow = mul(warp, tiles.rowsPerWarp);
  // Per-lane offsets of the ldmatrix row addresses (see the header).
  Value lane16 = rem(lane, 16);
  Value laneHalf = mul(div(lane, 16), 8);
  Value keyLaneRow = add(rem(lane, 8), laneHalf);
  Value keyLaneCol = mul(rem(div(lane, 8), 2), 8);

  // The query tile into its own buffer, or through the key buffer into
  // registers.
  Value queryTile = sharedQ ? sharedQ : sharedK;
  queryBuffer = queryTile;
  copyTile(query, head, firstQuery, queries, queryTile, queryRows);
  commit();
  waitAllBut(0);
  barrier();
  int64_t steps = headDim / 16;
  // Each lane's ldmatrix addresses (see the header) in the query, key and
  // value tiles.
  Value queryAddress = sharedAddress(queryTile, add(warpRow, lane16), laneHalf);
  // With warpgroup products: the key and value tiles' descriptors (see
  // swizzledAt). K is B of S = Q K^T, its rows (keys) N and the head
  // dimension the reduction (K-major): 8-row groups 1024 bytes apart; a step
  // of 16 head columns is 32 bytes into a 128-byte row, or the next column
  // block. V is B of O = P V stored along N (the head dimension, "MN-major"):
  // column blocks `keyRows` x 128 bytes apart (leading), 8-key groups 1024
  // (stride); a step of 16 keys is 2048 bytes.
  Value keyAddress, valueAddress, keyDescriptor, valueDescriptor;
  const int64_t columnBlockBytes = keyRows * 128;
  if (tiles.warpgroupMma) {
    keyDescriptor = tileDescriptor(sharedK, /*leadingBytes=*/16, /*strideBytes=*/1024);
    valueDescriptor = tileDescriptor(sharedV, /*leadingBytes=*/columnBlockBytes,
                                     /*strideBytes=*/1024);
  } else {
    keyAddress = sharedAddress(sharedK, keyLaneRow, keyLaneCol);
    valueAddress = sharedAddress(sharedV, lane16, laneHalf);
  }
  // The A fragments of query fragment f for head columns [16 kk, 16 kk + 16).
  auto loadQuery = [&](int64_t f, int64_t kk) {
    return loadFragments(queryAddress, sharedOffset(f * kFragmentRows, kk * 16),
                         false);
  };
  // Without a mask, at head dimension 64, the tiles every row of the block
  // sees in full run in a loop of their own (see emitTile's users).
  bool fastTiles = !mask && headDim == 64 && !keySplits;
  // With warpgroup products at head dimension 64 and one key loop, ptxas
  // (CUDA 13, -O1 and up) gave the query's fragments, loaded once before
  // the loop, the registers P takes after the first product: every later
  // key tile multiplied P's values as the query (the SASS of
  // docs/compile.md, "Warpgroup products at head dimension 64"). There the
  // fragments are loaded from the query's shared tile for every key tile.
  bool reloadQuery = tiles.warpgroupMma && headDim == 64 && !fastTiles;
  SmallVector<SmallVector<SmallVector<Value>>> queryFragments; // [kk][f]
  if (!tiles.queryInShared && !reloadQuery) {
    for (int64_t kk = 0; kk < steps; ++kk) {
      queryFragments.emplace_back();
      for (int64_t f = 0; f < fragments; ++f)
        queryFragments.back().push_back(loadQuery(f, kk));
    }
    if (!sharedQ)
      barrier(); // the key buffer is free again
  }

  Value numKeyTiles = arith::CeilDivUIOp::create(b, loc, keys, idx(keyRows));
  // Under a causal mask the block's last row sees keys up to its own index.
  if (causal)
    numKeyTiles = arith::MinUIOp::create(b, loc, numKeyTiles,
                                         mul(add(tile, 1), queryRows / keyRows));
  // This block's key tiles: all, or its split's.
  Value beginTile = idx(0);
  if (keySplits) {
    beginTile = mul(split, keySplits.tilesPerSplit);
    numKeyTiles = arith::MinUIOp::create(b, loc, numKeyTiles,
                                         add(beginTile, keySplits.tilesPerSplit));
  }
  // With a mask, the key tiles it hides from all the block's rows are never
  // visited: `nextTile(j)` is the first tile from j on that it does not
  // (the class table says; every thread of the block reads the same bytes).
  auto classOf = [&](Value j) -> Value {
    Value c = memref::LoadOp::create(b, loc, classes,
                                     ValueRange{maskBatch, maskHead, tile, j});
    return arith::ExtUIOp::create(b, loc, i32, c);
  };
  auto nextTile = [&](Value from) -> Value {
    if (!classes)
      return from;
    auto search = scf::WhileOp::create(b, loc, TypeRange{b.getIndexType()},
                                       ValueRange{from});
    {
      OpBuilder::InsertionGuard g(b);
      Block *before = b.createBlock(&search.getBefore(), {}, {b.getIndexType()}, {loc});
      Value j = before->getArgument(0);
      Value inRange = lessThan(j, numKeyTiles);
      auto hidden = scf::IfOp::create(b, loc, TypeRange{b.getI1Type()}, inRange, true);
      b.setInsertionPointToStart(hidden.thenBlock());
      scf::YieldOp::create(
          b, loc,
          ValueRange{arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           classOf(j),
                                           arith::ConstantIntOp::create(b, loc, kHiddenTile, 32))
                         .getResult()});
      b.setInsertionPointToStart(hidden.elseBlock());
      scf::YieldOp::create(b, loc, ValueRange{arith::ConstantIntOp::create(b, loc, 0, 1).getResult()});
      b.setInsertionPointAfter(hidden);
      scf::ConditionOp::create(b, loc, hidden.getResult(0), ValueRange{j});
      Block *after = b.createBlock(&search.getAfter(), {}, {b.getIndexType()}, {loc});
      scf::YieldOp::create(b, loc, ValueRange{add(after->getArgument(0), 1)});
    }
    return search.getResult(0);
  };
  Value firstTile = nextTile(beginTile);
  copyTile(key, kvHead, mul(firstTile, keyRows), keys, sharedK, keyRows);
  commit();
  copyTile(value, kvHead, mul(firstTile, keyRows), keys, sharedV, keyRows);
  commit();

  // The rows of this thread (two a fragment: g and g + 8) and how many
  // keys each may see; row index 2 f + r.
  SmallVector<Value> rows, limits;
  for (int64_t f = 0; f < fragments; ++f)
    for (int64_t r = 0; r < 2; ++r) {
      rows.push_back(add(add(firstQuery, warpRow),
                         add(quadRow, f * kFragmentRows + r * 8)));
      limits.push_back(causal ? arith::MinUIOp::create(b, loc, keys,
                                                       add(rows.back(), 1))
                                    .getResult()
                              : keys);
    }
  const int64_t rowCount = 2 * fragments;
  // This thread's first key in a tile, relative to the tile (32 bits).
  Value laneKey = arith::IndexCastOp::create(b, loc, i32, mul(quadCol, 2));

  int64_t outTiles = headDim / 8;
  int64_t keyTiles = keyRows / 8;
  int64_t accPerFragment = 4 * outTiles;
  Value negInf = f32Const(-INFINITY), zero = f32Const(0.0);
  // Carried: the accumulators of each fragment, then each row's running
  // max, then each row's partial sum.
  SmallVector<Value> inits(accPerFragment * fragments, zero);
  inits.append(rowCount, negInf);
  inits.append(rowCount, zero);

  // Without a mask the running max is taken of the raw scores and scaled
  // once (each probability one fma and an exp2: exp2(s * scale - max *
  // scale)). At head dimension 64 the tiles every row of the block sees in
  // full also run in a loop of their own without a comparison per score; at
  // 128 that loop measured slower on an H200, with or without a launch
  // bound (docs/compile.md, "Attention as one tiled kernel" and "Attention
  // tilings").
  bool rawMax = !mask && scaleLog2 > 0;
  // One key tile `j` (whose key and value tiles are in flight), given the
  // carried accumulators, max and sums; `next` is the tile to fetch next.
  // `checkKeys`: some key of the tile may be past a row's causal limit or
  // past the last key, so every score is compared with its row's limit.
  auto emitTile = [&](Value j, Value next, ValueRange carried, bool checkKeys) {
    SmallVector<SmallVector<Value>> acc;
    for (int64_t f = 0; f < fragments; ++f)
      acc.emplace_back(carried.begin() + f * accPerFragment,
                       carried.begin() + (f + 1) * accPerFragment);
    ValueRange oldMax = carried.slice(accPerFragment * fragments, rowCount);
    ValueRange oldSum = carried.slice(accPerFragment * fragments + rowCount, rowCount);
    Value firstKey = mul(j, keyRows);
    Value nextKey = mul(next, keyRows);
    Value hasNext = lessThan(next, numKeyTiles);
    auto copyNext = [&](Value src, Value shared) {
      auto ifOp = scf::IfOp::create(b, loc, hasNext, /*withElse=*/false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      copyTile(src, kvHead, nextKey, keys, shared, keyRows);
    };
    // The key of score (n, c) of this thread.
    auto keyOf = [&](int64_t n, int c) {
      return add(add(firstKey, mul(quadCol, 2)), n * 8 + c);
    };
    // Score (n, c) of row 2 f + r of this thread sits at
    // scores[f][4 n + 2 r + c].
    // Whether the key at 8 n + c past this thread's first key of the tile
    // is before the row's limit: per row one 32-bit difference, per score
    // one comparison with a constant (64-bit index arithmetic per score
    // kept the integer pipe the busiest).
    SmallVector<Value> keysLeft(rowCount);
    auto keyVisible = [&](int64_t row, int64_t keyOffset) -> Value {
      if (!keysLeft[row]) {
        Value left = arith::IndexCastOp::create(
            b, loc, i32, arith::SubIOp::create(b, loc, limits[row], firstKey));
        keysLeft[row] = arith::SubIOp::create(b, loc, left, laneKey);
      }
      return arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::sgt, keysLeft[row],
          arith::ConstantIntOp::create(b, loc, keyOffset, 32));
    };

    waitAllBut(1); // this key tile; its value tile may be in flight
    fenceForWarpgroup();
    barrier();
    // S = Q K^T over this key tile (tiles of 8 keys), the head dimension
    // outermost: consecutive products accumulate into different tiles.
    SmallVector<SmallVector<Value>> scores(fragments,
                                           SmallVector<Value>(4 * keyTiles, zero));
    if (tiles.warpgroupMma) {
      SmallVector<SmallVector<Value>> a;
      SmallVector<Value> descriptors;
      for (int64_t kk = 0; kk < steps; ++kk) {
        a.push_back(reloadQuery ? loadQuery(0, kk) : queryFragments[kk][0]);
        descriptors.push_back(descriptorAt(
            keyDescriptor, (kk / 4) * columnBlockBytes + (kk % 4) * 32));
      }
      warpgroupMma(a, descriptors, /*transposeB=*/false, scores[0]);
    } else {
      for (int64_t kk = 0; kk < steps; ++kk) {
        SmallVector<SmallVector<Value>> a;
        for (int64_t f = 0; f < fragments; ++f)
          a.push_back(tiles.queryInShared ? loadQuery(f, kk) : queryFragments[kk][f]);
        for (int64_t np = 0; np < keyTiles / 2; ++np)
          mmaTilePair(a, keyAddress, sharedOffset(np * 16, kk * 16),
                      /*transpose=*/false, scores, 8 * np);
      }
    }

    // In log2 units, -inf where a row may not see the key.
    Value scale = f32Const(scaleLog2);
    if (!rawMax)
      for (SmallVector<Value> &fragmentScores : scores)
        for (Value &s : fragmentScores)
          s = fmul(s, scale);
    if (mask) {
      // The mask at this thread's scores, read only in tiles the class
      // table calls mixed (elsewhere it adds nothing or lets all through),
      // applied as each term is read: no register holds a term for long.
      Value mixed = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq, classOf(j),
          arith::ConstantIntOp::create(b, loc, kMixedTile, 32));
      SmallVector<Value> flat;
      for (int64_t f = 0; f < fragments; ++f)
        llvm::append_range(flat, scores[f]);
      // In the order of `flat`: fragment, then 4 n + 2 r + c.
      auto applyMask = [&]() {
        SmallVector<Value> masked;
        Value lastRow = arith::SubIOp::create(b, loc, queries, idx(1));
        Value lastKey = arith::SubIOp::create(b, loc, keys, idx(1));
        for (int64_t f = 0; f < fragments; ++f)
          for (int64_t n = 0; n < keyTiles; ++n)
            for (int r = 0; r < 2; ++r)
              for (int c = 0; c < 2; ++c) {
                Value s = scores[f][4 * n + 2 * r + c];
                Value row = arith::MinUIOp::create(b, loc, rows[2 * f + r], lastRow);
                Value col = arith::MinUIOp::create(b, loc, keyOf(n, c), lastKey);
                Value m = memref::LoadOp::create(
                    b, loc, mask, ValueRange{maskBatch, maskHead, row, col});
                masked.push_back(magi::tiled_attention::applyMaskTerm(b, loc, m, s));
              }
        return masked;
      };
      SmallVector<Value> result = guarded(mixed, applyMask, flat);
      for (int64_t f = 0; f < fragments; ++f)
        for (int64_t i = 0; i < 4 * keyTiles; ++i)
          scores[f][i] = result[f * 4 * keyTiles + i];
    }

    // The online softmax, per row.
    SmallVector<Value> newMax(rowCount), newSum(rowCount);
    for (int64_t f = 0; f < fragments; ++f)
      for (int r = 0; r < 2; ++r) {
        int64_t row = 2 * f + r;
        Value rowMax = negInf;
        for (int64_t n = 0; n < keyTiles; ++n)
          for (int c = 0; c < 2; ++c) {
            Value &s = scores[f][4 * n + 2 * r + c];
            if (checkKeys)
              s = arith::SelectOp::create(b, loc, keyVisible(row, n * 8 + c), s,
                                          negInf);
            rowMax = fmax(rowMax, s);
          }
        Value tileMax = quadReduce(rowMax, /*isMax=*/true);
        magi::tiled_attention::OnlineStep step = magi::tiled_attention::onlineStep(
            b, loc, oldMax[row], rawMax ? fmul(tileMax, scale) : tileMax);
        newMax[row] = step.max;
        Value alpha = step.alpha;
        Value sum = zero;
        for (int64_t n = 0; n < keyTiles; ++n)
          for (int c = 0; c < 2; ++c) {
            Value &s = scores[f][4 * n + 2 * r + c];
            s = magi::tiled_attention::probability(b, loc, s, step,
                                                   rawMax ? scale : Value());
            sum = fadd(sum, s);
          }
        newSum[row] = fadd(fmul(oldSum[row], alpha), sum);
        for (int64_t d = 0; d < outTiles; ++d)
          for (int c = 0; c < 2; ++c) {
            Value &o = acc[f][4 * d + 2 * r + c];
            o = fmul(o, alpha);
          }
      }
    // P as the A operand, 16 keys per step: probs[kk][f].
    SmallVector<SmallVector<SmallVector<Value>>> probs;
    for (int64_t kk = 0; kk < keyTiles / 2; ++kk) {
      probs.emplace_back();
      for (int64_t f = 0; f < fragments; ++f) {
        ArrayRef<Value> lo = ArrayRef<Value>(scores[f]).slice(8 * kk, 4);
        ArrayRef<Value> hi = ArrayRef<Value>(scores[f]).slice(8 * kk + 4, 4);
        probs.back().push_back({packRounded(lo[0], lo[1]), packRounded(lo[2], lo[3]),
                                packRounded(hi[0], hi[1]), packRounded(hi[2], hi[3])});
      }
    }

    // The next key tile once every warp is done with this one (after the
    // softmax: fewer registers live across the copies' address arithmetic).
    barrier();
    copyNext(key, sharedK);
    commit();

    // O += P V over this value tile, the keys outermost: consecutive
    // products accumulate into different tiles.
    waitAllBut(1); // the value tile; the next key tile may be in flight
    fenceForWarpgroup();
    barrier();
    if (tiles.warpgroupMma) {
      SmallVector<SmallVector<Value>> a;
      SmallVector<Value> descriptors;
      for (int64_t kk = 0; kk < keyTiles / 2; ++kk) {
        a.push_back(probs[kk][0]);
        descriptors.push_back(descriptorAt(valueDescriptor, kk * 2048));
      }
      warpgroupMma(a, descriptors, /*transposeB=*/true, acc[0]);
    } else {
      for (int64_t kk = 0; kk < keyTiles / 2; ++kk)
        for (int64_t dp = 0; dp < outTiles / 2; ++dp)
          mmaTilePair(probs[kk], valueAddress, sharedOffset(kk * 16, dp * 16),
                      /*transpose=*/true, acc, 8 * dp);
    }
    barrier(); // every warp is done with the value tile
    copyNext(value, sharedV);
    commit();

    SmallVector<Value> yields;
    for (int64_t f = 0; f < fragments; ++f)
      llvm::append_range(yields, acc[f]);
    llvm::append_range(yields, newMax);
    llvm::append_range(yields, newSum);
    return yields;
  };

  ValueRange results;
  if (!classes) {
    auto emitLoop = [&](Value from, Value to, ValueRange carried, bool checkKeys) {
      auto loop = scf::ForOp::create(b, loc, from, to, idx(1), carried);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value j = loop.getInductionVar();
      scf::YieldOp::create(b, loc,
                           emitTile(j, add(j, 1), loop.getRegionIterArgs(), checkKeys));
      return loop.getResults();
    };
    if (fastTiles) {
      // The tiles whose keys every row of the block sees (all before the
      // first row's under a causal mask, all but a partial last one), then
      // the others.
      Value fewestKeys =
          causal ? arith::MinUIOp::create(b, loc, keys, add(firstQuery, 1)).getResult() : keys;
      Value fullTiles =
          arith::MinUIOp::create(b, loc, div(fewestKeys, keyRows), numKeyTiles);
      results = emitLoop(fullTiles, numKeyTiles,
                         emitLoop(idx(0), fullTiles, inits, /*checkKeys=*/false),
                         /*checkKeys=*/true);
    } else {
      results = emitLoop(beginTile, numKeyTiles, inits, /*checkKeys=*/true);
    }
  } else {
    SmallVector<Value> whileInits = {firstTile};
    whileInits.append(inits);
    auto loop = scf::WhileOp::create(b, loc, ValueRange(whileInits).getTypes(),
                                     whileInits);
    OpBuilder::InsertionGuard guard(b);
    SmallVector<Location> locs(whileInits.size(), loc);
    Block *before = b.createBlock(&loop.getBefore(), {},
                                  ValueRange(whileInits).getTypes(), locs);
    scf::ConditionOp::create(b, loc, lessThan(before->getArgument(0), numKeyTiles),
                             before->getArguments());
    Block *after = b.createBlock(&loop.getAfter(), {},
                                 ValueRange(whileInits).getTypes(), locs);
    Value j = after->getArgument(0);
    Value next = nextTile(add(j, 1));
    SmallVector<Value> yields = {next};
    llvm::append_range(yields,
                       emitTile(j, next, after->getArguments().drop_front(), /*checkKeys=*/true));
    scf::YieldOp::create(b, loc, yields);
    results = loop.getResults().drop_front();
  }
  waitAllBut(0);

  if (keySplits) {
    writePartials(results, rows, split);
    return;
  }
  // Each row divided by its sum, rounded, stored where the row exists.
  for (int64_t f = 0; f < fragments; ++f)
    for (int r = 0; r < 2; ++r) {
      int64_t row = 2 * f + r;
      Value sum = quadReduce(results[accPerFragment * fragments + rowCount + row],
                             /*isMax=*/false);
      // A row the mask hides entirely has a sum of 0 and gives zeros.
      Value inverse = arith::SelectOp::create(
          b, loc,
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, sum, zero),
          arith::DivFOp::create(b, loc, f32Const(1.0), sum), zero);
      auto ifOp = scf::IfOp::create(b, loc, lessThan(rows[row], queries), false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      for (int64_t d = 0; d < outTiles; ++d) {
        Value lo = fmul(results[f * accPerFragment + 4 * d + 2 * r], inverse);
        Value hi = fmul(results[f * accPerFragment + 4 * d + 2 * r + 1], inverse);
        Value pair = vector::FromElementsOp::create(
            b, loc, VectorType::get({2}, f32), ValueRange{lo, hi});
        Value rounded = arith::TruncFOp::create(
            b, loc, VectorType::get({2}, element), pair);
        Value col = add(mul(quadCol, 2), d * 8);
        vector::StoreOp::create(b, loc, rounded, out,
                                ValueRange{batch, head, rows[row], col});
      }
    }
}

void KernelBuilder::assertAligned(Value memref, StringRef what) {
  // Known from how the host makes the view (a dense tensor's transposed
  // view, say: its dynamic batch stride is T x 4096) needs no check. The
  // check is a call (__assertfail), and a call in the kernel makes ptxas
  // serialize every wgmma of it (C7510).
  auto type = cast<MemRefType>(memref.getType());
  magi::KnownLayout known = magi::knownLayout(memref);
  SmallVector<int64_t> unknown; // 0..2: strides, 3: the offset
  for (int64_t i = 0; i < 3; ++i)
    if (type.getDimSize(i) != 1 && known.strides[i] % kCopyElements != 0)
      unknown.push_back(i);
  if (known.offset % kCopyElements != 0)
    unknown.push_back(3);
  if (unknown.empty())
    return;
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value bits = idx(0);
  for (int64_t i : unknown) {
    Value v = i == 3 ? Value(metadata.getOffset()) : Value(metadata.getStrides()[i]);
    bits = arith::OrIOp::create(b, loc, bits, v);
  }
  Value aligned = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        rem(bits, kCopyElements), idx(0));
  cf::AssertOp::create(b, loc, aligned,
                       ("magi.tiled_attention: the " + what +
                        " view's strides and offset must be multiples of 8 "
                        "elements")
                           .str());
}

class TiledAttentionToGPUPass
    : public magi::impl::TiledAttentionToGPUBase<TiledAttentionToGPUPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (rowsPerWarp != 0 && rowsPerWarp != 16 && rowsPerWarp != 32) {
      func.emitError() << "magi-tiled-attention-to-gpu: rows-per-warp must be "
                          "0 (chosen per attention), 16 or 32, got "
                       << rowsPerWarp.getValue();
      return signalPassFailure();
    }
    if (minBlocksPerSM < 0 || minBlocksPerSM > 32) {
      func.emitError() << "magi-tiled-attention-to-gpu: min-blocks-per-sm must "
                          "be between 0 and 32, got "
                       << minBlocksPerSM.getValue();
      return signalPassFailure();
    }
    if (keySplits < 0 || keySplits > 1024) {
      func.emitError() << "magi-tiled-attention-to-gpu: key-splits must be "
                          "between 0 and 1024, got "
                       << keySplits.getValue();
      return signalPassFailure();
    }
    if (keyRows != 32 && keyRows != 64) {
      func.emitError() << "magi-tiled-attention-to-gpu: key-rows must be 32 or "
                          "64, got "
                       << keyRows.getValue();
      return signalPassFailure();
    }
    SmallVector<magi::TiledAttentionOp> ops;
    func.walk([&](magi::TiledAttentionOp op) { ops.push_back(op); });
    unsigned next = 0;
    for (magi::TiledAttentionOp op : ops)
      if (failed(lower(op, func, next++)))
        return signalPassFailure();
  }

private:
  // `v` itself when its rows are contiguous, else a dense copy made by a
  // kernel of its own (the mapping passes have run: one thread an element).
  Value withContiguousRows(OpBuilder &b, Location loc, Value v,
                           FlatSymbolRefAttr kernels, unsigned number) {
    auto type = cast<MemRefType>(v.getType());
    if (type.getStridesAndOffset().first.back() == 1)
      return v;
    SmallVector<Value> sizes, dynamicSizes;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      sizes.push_back(memref::DimOp::create(b, loc, v, i));
      if (type.isDynamicDim(i))
        dynamicSizes.push_back(sizes.back());
    }
    auto dense = MemRefType::get(type.getShape(), type.getElementType());
    Value copy = memref::AllocOp::create(b, loc, dense, dynamicSizes);
    Value count = sizes[0];
    for (Value size : ArrayRef<Value>(sizes).drop_front())
      count = arith::MulIOp::create(b, loc, count, size);
    constexpr int64_t kCopyBlock = 256;
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value blocks = arith::CeilDivUIOp::create(
        b, loc, count, arith::ConstantIndexOp::create(b, loc, kCopyBlock));
    auto launch = gpu::LaunchOp::create(
        b, loc, blocks, one, one,
        arith::ConstantIndexOp::create(b, loc, kCopyBlock), one, one,
        nullptr, nullptr, {}, {}, {}, nullptr, nullptr, nullptr, kernels,
        FlatSymbolRefAttr::get(b.getContext(),
                               "attention" + std::to_string(number) + "_dense_rows" +
                                   std::to_string(nextCopy++)));
    launch->setAttr(magi::kKernelConfigAttr,
                    b.getDictionaryAttr(
                        {b.getNamedAttr("block_size", b.getI64IntegerAttr(kCopyBlock)),
                         b.getNamedAttr("strategy", b.getStringAttr("elementwise"))}));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    Value linear = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, launch.getBlockIds().x,
                              arith::ConstantIndexOp::create(b, loc, kCopyBlock)),
        launch.getThreadIds().x);
    auto inside = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, linear, count),
        /*withElseRegion=*/false);
    b.setInsertionPointToStart(inside.thenBlock());
    SmallVector<Value> indices(type.getRank());
    for (int64_t i = type.getRank() - 1; i >= 0; --i) {
      indices[i] = arith::RemUIOp::create(b, loc, linear, sizes[i]);
      linear = arith::DivUIOp::create(b, loc, linear, sizes[i]);
    }
    Value element = memref::LoadOp::create(b, loc, v, indices);
    memref::StoreOp::create(b, loc, element, copy, indices);
    b.setInsertionPointToEnd(&launch.getBody().front());
    gpu::TerminatorOp::create(b, loc);
    return copy;
  }
  unsigned nextCopy = 0;

  static constexpr int64_t kMaskVectorBytes = 16;

  // The terms a 16-byte load of the mask takes when the classification may
  // read it that way, else 0: whole-byte terms (a vector of i1 would be
  // bits, the buffer holds bytes), rows of aligned contiguous vectors
  // (vectorAligned), a static key count that is a multiple of the width (a
  // vector is inside or past the last key as a whole), and tiles whose rows
  // of vectors split evenly over the block's threads.
  static int64_t maskVectorWidth(MemRefType maskType, MemRefType keyType, int64_t keyRows,
                                 int64_t queryRows, int64_t threads) {
    Type element = maskType.getElementType();
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
      return 0;
    int64_t width = kMaskVectorBytes / (element.getIntOrFloatBitWidth() / 8);
    int64_t keys = keyType.getShape()[2];
    if (ShapedType::isDynamic(keys) || keys <= 0 || keys % width != 0 || keyRows % width != 0 ||
        !magi::vectorAligned(maskType, width))
      return 0;
    int64_t chunksPerRow = keyRows / width;
    if (threads % chunksPerRow != 0 || queryRows % (threads / chunksPerRow) != 0)
      return 0;
    return width;
  }

  // The class of every tile of the mask the kernel visits (query rows a
  // block x key rows a tile; kHiddenTile, kPassTile, kMixedTile) in a table
  // [mask batch, mask heads, query tiles, key tiles] of i8, by a kernel of
  // one block of kMaskTileThreads per tile: warp w reads rows
  // [w R, w R + R) of it (R = query rows / 8), its lanes adjacent keys
  // (one or two each), so every load of a warp is one row's 64 or 128
  // contiguous bytes (a lane per row made each load touch 32 rows: 71 us at
  // T = 4096 on an H200, and one warp per tile left the GPU idle at
  // T = 512); the loads of a thread are independent, and one
  // `gpu.all_reduce or` over the block's flags decides. Where
  // maskVectorWidth allows, each thread loads 16-byte vectors of a row
  // instead (scalar loads left the kernel at 0.36 of the copy bandwidth
  // at T = 4096 on an H200).
  Value classifyMaskTiles(OpBuilder &b, Location loc, Value mask, Value queries,
                          Value keys, MemRefType keyType, const AttentionTiles &tiles,
                          FlatSymbolRefAttr kernels, unsigned number) {
    constexpr int64_t kMaskTileThreads = 256;
    const int64_t kQueryRows = tiles.queryRows(), kKeyRows = tiles.keyRows;
    const int64_t kRowsPerWarp = kQueryRows / (kMaskTileThreads / 32);
    const int64_t kKeysPerLane = kKeyRows / 32;
    auto maskType = cast<MemRefType>(mask.getType());
    int64_t maskBatches = maskType.getShape()[0], maskHeads = maskType.getShape()[1];
    auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    Value queryTiles = arith::CeilDivUIOp::create(b, loc, queries, c(kQueryRows));
    Value keyTiles = arith::CeilDivUIOp::create(b, loc, keys, c(kKeyRows));
    auto tableType = MemRefType::get(
        {maskBatches, maskHeads, ShapedType::kDynamic, ShapedType::kDynamic},
        b.getI8Type());
    Value table = memref::AllocOp::create(b, loc, tableType,
                                          ValueRange{queryTiles, keyTiles});
    Value one = c(1);
    auto launch = gpu::LaunchOp::create(
        b, loc, keyTiles, queryTiles, c(maskBatches * maskHeads),
        c(kMaskTileThreads), one, one, nullptr, nullptr, {}, {}, {}, nullptr,
        nullptr, nullptr, kernels,
        FlatSymbolRefAttr::get(b.getContext(), "attention" + std::to_string(number) +
                                                   "_mask_tiles"));
    launch->setAttr(magi::kKernelConfigAttr,
                    b.getDictionaryAttr(
                        {b.getNamedAttr("block_size", b.getI64IntegerAttr(kMaskTileThreads)),
                         b.getNamedAttr("strategy", b.getStringAttr("attention-mask-tiles"))}));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    Value tid = launch.getThreadIds().x;
    Value warp = arith::DivUIOp::create(b, loc, tid, c(32));
    Value lane = arith::RemUIOp::create(b, loc, tid, c(32));
    Value keyTile = launch.getBlockIds().x, queryTile = launch.getBlockIds().y;
    Value maskBatch = arith::DivUIOp::create(b, loc, launch.getBlockIds().z, c(maskHeads));
    Value maskHead = arith::RemUIOp::create(b, loc, launch.getBlockIds().z, c(maskHeads));
    Value lastRow = arith::SubIOp::create(b, loc, queries, c(1));
    Value lastKey = arith::SubIOp::create(b, loc, keys, c(1));
    Value firstRow = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, queryTile, c(kQueryRows)),
        arith::MulIOp::create(b, loc, warp, c(kRowsPerWarp)));
    Value firstKey = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, keyTile, c(kKeyRows)),
        arith::MulIOp::create(b, loc, lane, c(kKeysPerLane)));
    auto ult = [&](Value x, Value y) {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
    };
    Value visibleAny = arith::ConstantIntOp::create(b, loc, 0, 1);
    Value changedAny = visibleAny;
    auto addTerm = [&](Value inside, Value m) {
      auto [visible, changed] = magi::tiled_attention::maskTermEffect(b, loc, m);
      visibleAny = arith::OrIOp::create(
          b, loc, visibleAny, arith::AndIOp::create(b, loc, inside, visible));
      changedAny = arith::OrIOp::create(
          b, loc, changedAny, arith::AndIOp::create(b, loc, inside, changed));
    };
    if (int64_t width = maskVectorWidth(maskType, keyType, kKeyRows, kQueryRows,
                                        kMaskTileThreads)) {
      // 16-byte loads: a row's kKeyRows terms are chunksPerRow vectors of
      // adjacent threads, the block covers 256 / chunksPerRow rows a pass.
      // Keys are a multiple of the width, so a vector is inside or past the
      // last key as a whole (then clamped to the last vector, and ignored).
      const int64_t chunksPerRow = kKeyRows / width;
      const int64_t rowsPerPass = kMaskTileThreads / chunksPerRow;
      Value rowInPass = arith::DivUIOp::create(b, loc, tid, c(chunksPerRow));
      Value vectorKey = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, keyTile, c(kKeyRows)),
          arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, tid, c(chunksPerRow)),
                                c(width)));
      Value keyInside = ult(vectorKey, keys);
      Value clampedKey = arith::MinUIOp::create(
          b, loc, vectorKey, arith::SubIOp::create(b, loc, keys, c(width)));
      auto vectorType = VectorType::get({width}, maskType.getElementType());
      for (int64_t pass = 0; pass < kQueryRows / rowsPerPass; ++pass) {
        Value row = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, queryTile, c(kQueryRows)),
            arith::AddIOp::create(b, loc, rowInPass, c(pass * rowsPerPass)));
        Value inside = arith::AndIOp::create(b, loc, ult(row, queries), keyInside);
        Value terms = vector::LoadOp::create(
            b, loc, vectorType, mask,
            ValueRange{maskBatch, maskHead, arith::MinUIOp::create(b, loc, row, lastRow),
                       clampedKey},
            /*nontemporal=*/false, llvm::MaybeAlign(kMaskVectorBytes));
        for (int64_t i = 0; i < width; ++i)
          addTerm(inside, vector::ExtractOp::create(b, loc, terms, ArrayRef<int64_t>{i}));
      }
    } else {
    for (int64_t r = 0; r < kRowsPerWarp; ++r) {
      Value row = arith::AddIOp::create(b, loc, firstRow, c(r));
      Value rowInside = ult(row, queries);
      Value clampedRow = arith::MinUIOp::create(b, loc, row, lastRow);
      for (int64_t k = 0; k < kKeysPerLane; ++k) {
        Value key = arith::AddIOp::create(b, loc, firstKey, c(k));
        Value inside = arith::AndIOp::create(b, loc, rowInside, ult(key, keys));
        addTerm(inside, memref::LoadOp::create(
                            b, loc, mask,
                            ValueRange{maskBatch, maskHead, clampedRow,
                                       arith::MinUIOp::create(b, loc, key, lastKey)}));
      }
    }
    }
    // Bit 0: some score visible; bit 1: some visible score changed.
    Type i32 = b.getI32Type();
    Value flags = arith::OrIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i32, visibleAny),
        arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i32, changedAny),
                              arith::ConstantIntOp::create(b, loc, 1, 32)));
    Value all = gpu::AllReduceOp::create(
        b, loc, flags,
        gpu::AllReduceOperationAttr::get(b.getContext(), gpu::AllReduceOperation::OR),
        /*uniform=*/true);
    auto bit = [&](int64_t v) {
      return arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne,
          arith::AndIOp::create(b, loc, all, arith::ConstantIntOp::create(b, loc, v, 32)),
          arith::ConstantIntOp::create(b, loc, 0, 32));
    };
    auto i8 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 8); };
    Value cls = arith::SelectOp::create(
        b, loc, bit(1),
        arith::SelectOp::create(b, loc, bit(2), i8(kMixedTile), i8(kPassTile)),
        i8(kHiddenTile));
    auto first = scf::IfOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, c(0)),
        /*withElseRegion=*/false);
    b.setInsertionPointToStart(first.thenBlock());
    memref::StoreOp::create(b, loc, cls, table,
                            ValueRange{maskBatch, maskHead, queryTile, keyTile});
    b.setInsertionPointToEnd(&launch.getBody().front());
    gpu::TerminatorOp::create(b, loc);
    return table;
  }

  // The options' tiling when `rows-per-warp` is given (warpgroup products
  // where it asks for 16 rows a warp, 64-row key tiles and the query in
  // registers); else, with warpgroup products, 16 rows a warp, 64-row key
  // tiles and the query in registers; else the mma.sync tiling measured
  // fastest for the op's kind on an H200 at T = 4096 (docs/compile.md,
  // "Attention tilings"): with a mask, 16 rows a warp, the query in shared
  // memory, 3 blocks an SM; causal without one, 16 rows a warp, the query in
  // registers, 3 blocks an SM; neither, 32 rows a warp (each key and value
  // fragment serves two query fragments), the query in shared memory.
  AttentionTiles chooseTiles(magi::TiledAttentionOp op) const {
    if (rowsPerWarp != 0)
      return {rowsPerWarp, keyRows, queryInShared, minBlocksPerSM,
              warpgroupMma && rowsPerWarp == 16 && keyRows == 64 && !queryInShared};
    if (warpgroupMma)
      return {16, 64, /*queryInShared=*/false, minBlocksPerSM, /*warpgroupMma=*/true};
    if (op.getMask())
      return {16, 64, /*queryInShared=*/true, /*minBlocksPerSM=*/3};
    if (op.getIsCausal())
      return {16, 64, /*queryInShared=*/false, /*minBlocksPerSM=*/3};
    return {32, 64, /*queryInShared=*/true, /*minBlocksPerSM=*/0};
  }

  LogicalResult lower(magi::TiledAttentionOp op, func::FuncOp func,
                      unsigned number) {
    if (!isa<MemRefType>(op.getInit().getType()))
      return op.emitOpError("must be bufferized before "
                            "magi-tiled-attention-to-gpu");
    if (op->getParentOp() != func)
      return op.emitOpError("must be at the top level of the host function");
    auto outType = cast<MemRefType>(op.getInit().getType());
    if (outType.getStridesAndOffset().first.back() != 1)
      return op.emitOpError("needs an output with contiguous rows");
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto kernels = FlatSymbolRefAttr::get(
        b.getContext(), (func.getSymName() + "_kernels").str());
    // Layout bshd: the kernel reads and writes [B, H, S, E] views of the
    // buffers (their rows stay contiguous).
    auto headsFirst = [&](Value v) {
      return op.isSequenceMajor() ? magi::tiled_attention::headsFirstView(b, loc, v) : v;
    };
    Value query = withContiguousRows(b, loc, headsFirst(op.getQuery()), kernels, number);
    Value key = withContiguousRows(b, loc, headsFirst(op.getKey()), kernels, number);
    Value value = withContiguousRows(b, loc, headsFirst(op.getValue()), kernels, number);
    Value out = headsFirst(op.getInit());

    const AttentionTiles tiles = chooseTiles(op);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value queries = memref::DimOp::create(b, loc, query, 2);
    Value keys = memref::DimOp::create(b, loc, key, 2);
    Value queryTiles = arith::CeilDivUIOp::create(
        b, loc, queries, arith::ConstantIndexOp::create(b, loc, tiles.queryRows()));
    Value heads = arith::ConstantIndexOp::create(
        b, loc, cast<MemRefType>(query.getType()).getShape()[1]);
    Value batches = memref::DimOp::create(b, loc, query, 0);
    Value threads = arith::ConstantIndexOp::create(b, loc, kThreads);
    Value classes = op.getMask() ? classifyMaskTiles(b, loc, op.getMask(), queries, keys,
                                                     cast<MemRefType>(key.getType()), tiles,
                                                     kernels, number)
                                 : Value();
    int64_t headDim = op.getHeadDim();
    Type element = outType.getElementType();
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    // The key and value tiles, and the query tile when it stays in shared
    // memory or does not fit the key buffer on its way to registers.
    // With warpgroup products the key and value tiles are swizzled rows
    // (KernelBuilder::swizzledAt), which ldmatrix cannot read the query's
    // fragments from; they come first in dynamic shared memory, from a
    // 1024-byte boundary.
    bool queryBuffer = tiles.queryInShared || tiles.queryRows() > tiles.keyRows ||
                       tiles.warpgroupMma;
    SmallVector<MemRefType> sharedTypes; // key, value(, query)
    SmallVector<Type> attributionTypes;
    SmallVector<int64_t> keyTileShape = {tiles.keyRows, headDim + kPadding};
    if (tiles.warpgroupMma)
      keyTileShape = {headDim / 64 * tiles.keyRows, 64};
    for (int i = 0; i < 2; ++i)
      sharedTypes.push_back(MemRefType::get(keyTileShape, element,
                                            MemRefLayoutAttrInterface(), workgroup));
    if (queryBuffer)
      sharedTypes.push_back(MemRefType::get({tiles.queryRows(), headDim + kPadding},
                                            element, MemRefLayoutAttrInterface(),
                                            workgroup));
    constexpr int64_t kSwizzleAlignment = 1024;
    int64_t sharedBytes = tiles.warpgroupMma ? kSwizzleAlignment : 0;
    for (MemRefType type : sharedTypes)
      sharedBytes += type.getNumElements() * 2;
    bool dynamicShared = sharedBytes > kStaticSharedBytes || tiles.warpgroupMma;
    if (!dynamicShared)
      attributionTypes.assign(sharedTypes.begin(), sharedTypes.end());
    auto name = FlatSymbolRefAttr::get(b.getContext(),
                                       "attention" + std::to_string(number));
    KeySplits keySplits = chooseKeySplits(b, loc, op, query, key, tiles);
    Value gridX = keySplits ? arith::ConstantIndexOp::create(b, loc, keySplits.splits).getResult()
                            : queryTiles;
    auto launch = gpu::LaunchOp::create(
        b, loc, gridX, heads, batches, threads, one, one,
        dynamicShared ? arith::ConstantIntOp::create(b, loc, sharedBytes, 32).getResult()
                      : Value(),
        /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{},
        attributionTypes,
        /*privateAttributions=*/{}, nullptr, nullptr, nullptr, kernels, name);
    SmallVector<NamedAttribute> config = {
        b.getNamedAttr("block_size", b.getI64IntegerAttr(kThreads)),
        b.getNamedAttr("strategy", b.getStringAttr("tiled-attention")),
        b.getNamedAttr("query_rows", b.getI64IntegerAttr(tiles.queryRows())),
        b.getNamedAttr("key_rows", b.getI64IntegerAttr(tiles.keyRows)),
        b.getNamedAttr("query_in_shared", b.getI64IntegerAttr(tiles.queryInShared))};
    if (tiles.warpgroupMma)
      config.push_back(b.getNamedAttr("warpgroup_mma", b.getI64IntegerAttr(1)));
    if (keySplits)
      config.push_back(b.getNamedAttr("key_splits", b.getI64IntegerAttr(keySplits.splits)));
    launch->setAttr(magi::kKernelConfigAttr, b.getDictionaryAttr(config));
    if (tiles.minBlocksPerSM > 0)
      launch->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                      b.getI32IntegerAttr(tiles.minBlocksPerSM));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&launch.getBody().front());
      SmallVector<Value> shared;
      if (dynamicShared) {
        // The tiles one after another in the block's dynamic shared memory
        // (each a multiple of 16 bytes long, so each stays 16-byte aligned).
        Value base = gpu::DynamicSharedMemoryOp::create(
            b, loc, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                    MemRefLayoutAttrInterface(), workgroup));
        // With warpgroup products, from the first 1024-byte boundary.
        Value start;
        if (tiles.warpgroupMma) {
          Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, base);
          Value alignment = arith::ConstantIndexOp::create(b, loc, kSwizzleAlignment);
          start = arith::RemUIOp::create(
              b, loc,
              arith::SubIOp::create(b, loc, alignment,
                                    arith::RemUIOp::create(b, loc, address, alignment)),
              alignment);
        }
        int64_t offset = 0;
        for (MemRefType type : sharedTypes) {
          Value at = arith::ConstantIndexOp::create(b, loc, offset);
          if (start)
            at = arith::AddIOp::create(b, loc, start, at);
          shared.push_back(memref::ViewOp::create(b, loc, type, base, at, ValueRange{}));
          offset += type.getNumElements() * 2;
        }
      } else {
        llvm::append_range(shared, launch.getWorkgroupAttributions());
      }
      KernelBuilder kernel(b, loc, op, tiles, query, key, value, op.getMask(),
                           classes, out, keySplits);
      kernel.build(launch, queries, keys, queryBuffer ? shared[2] : Value(), shared[0],
                   shared[1]);
      gpu::TerminatorOp::create(b, loc);
    }
    if (keySplits)
      combineKeySplits(b, loc, keySplits, out, kernels, number);
    op.erase();
    return success();
  }

  // The split over keys (chooseAttentionKeySplits: a decode step's one
  // query tile against many keys), with its partial buffers.
  KeySplits chooseKeySplits(OpBuilder &b, Location loc, magi::TiledAttentionOp op,
                            Value query, Value key, const AttentionTiles &tiles) {
    auto queryType = cast<MemRefType>(query.getType());
    auto keyType = cast<MemRefType>(key.getType());
    int64_t batches = queryType.getShape()[0], heads = queryType.getShape()[1];
    int64_t queries = queryType.getShape()[2], keys = keyType.getShape()[2];
    magi::AttentionKeySplits rule = magi::chooseAttentionKeySplits(
        batches, heads, queries, keys, tiles.queryRows(), tiles.keyRows, keySplits);
    KeySplits splits;
    if (rule.splits == 1)
      return splits;
    splits.splits = rule.splits;
    splits.tilesPerSplit = rule.tilesPerSplit;
    Type f32 = b.getF32Type();
    splits.output = memref::AllocOp::create(
        b, loc, MemRefType::get({splits.splits, batches, heads, queries, op.getHeadDim()}, f32));
    auto rowType = MemRefType::get({splits.splits, batches, heads, queries}, f32);
    splits.max = memref::AllocOp::create(b, loc, rowType);
    splits.sum = memref::AllocOp::create(b, loc, rowType);
    return splits;
  }

  // The splits combined: per (row, head, batch) a block of one thread a
  // column rescales each split's output and sum to the largest max, adds
  // them up, divides, rounds and stores (zeros for a row no split saw).
  void combineKeySplits(OpBuilder &b, Location loc, const KeySplits &splits, Value out,
                        FlatSymbolRefAttr kernels, unsigned number) {
    auto partType = cast<MemRefType>(splits.output.getType());
    int64_t batches = partType.getShape()[1], heads = partType.getShape()[2];
    int64_t queries = partType.getShape()[3], headDim = partType.getShape()[4];
    auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    Value one = c(1);
    auto launch = gpu::LaunchOp::create(
        b, loc, c(queries), c(heads), c(batches), c(headDim), one, one, nullptr, nullptr,
        {}, {}, {}, nullptr, nullptr, nullptr, kernels,
        FlatSymbolRefAttr::get(b.getContext(),
                               "attention" + std::to_string(number) + "_combine"));
    launch->setAttr(magi::kKernelConfigAttr,
                    b.getDictionaryAttr(
                        {b.getNamedAttr("block_size", b.getI64IntegerAttr(headDim)),
                         b.getNamedAttr("strategy", b.getStringAttr("attention-combine")),
                         b.getNamedAttr("key_splits", b.getI64IntegerAttr(splits.splits))}));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    Value row = launch.getBlockIds().x, head = launch.getBlockIds().y;
    Value batch = launch.getBlockIds().z, col = launch.getThreadIds().x;
    auto f32c = [&](double v) {
      return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v)).getResult();
    };
    Value negInf = f32c(-INFINITY), zero = f32c(0.0);
    SmallVector<Value> maxes;
    Value max = negInf;
    for (int64_t s = 0; s < splits.splits; ++s) {
      maxes.push_back(memref::LoadOp::create(b, loc, splits.max,
                                             ValueRange{c(s), batch, head, row}));
      max = arith::MaximumFOp::create(b, loc, max, maxes.back());
    }
    Value sum = zero, acc = zero;
    for (int64_t s = 0; s < splits.splits; ++s) {
      Value weight = magi::tiled_attention::splitWeight(b, loc, maxes[s], max);
      Value l = memref::LoadOp::create(b, loc, splits.sum, ValueRange{c(s), batch, head, row});
      Value o = memref::LoadOp::create(b, loc, splits.output,
                                       ValueRange{c(s), batch, head, row, col});
      sum = math::FmaOp::create(b, loc, l, weight, sum);
      acc = math::FmaOp::create(b, loc, o, weight, acc);
    }
    Value result = arith::SelectOp::create(
        b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, sum, zero),
        arith::DivFOp::create(b, loc, acc, sum), zero);
    Type element = cast<MemRefType>(out.getType()).getElementType();
    memref::StoreOp::create(b, loc, arith::TruncFOp::create(b, loc, element, result), out,
                            ValueRange{batch, head, row, col});
    gpu::TerminatorOp::create(b, loc);
  }
};

} // namespace
