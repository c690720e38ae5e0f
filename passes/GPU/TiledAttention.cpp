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
// the A operand of the product with V for those 16 keys.
//
//===----------------------------------------------------------------------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
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

constexpr int64_t kQueryRows = 64; // per block, 16 per warp
constexpr int64_t kKeyRows = 64;   // per key/value tile
constexpr int64_t kWarps = 4;
constexpr int64_t kThreads = 32 * kWarps;
constexpr int64_t kFragmentRows = 16;
// Elements of padding per shared row: consecutive rows start 16 bytes apart
// in the banks, so the 8 row addresses of one ldmatrix tile hit 32 banks.
constexpr int64_t kPadding = 8;
// Elements one cp.async moves (16 bytes of f16/bf16).
constexpr int64_t kCopyElements = 8;
// What the mask does to a 64 x 64 tile of scores, as the class table says:
// hides all of it, lets all of it through unchanged (additive 0 or true),
// or anything else.
constexpr int64_t kHiddenTile = 0;
constexpr int64_t kPassTile = 1;
constexpr int64_t kMixedTile = 2;

// Builds one kernel's body; every value is an index unless said otherwise.
class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc, magi::TiledAttentionOp op,
                Value query, Value key, Value value, Value mask, Value classes,
                Value out)
      : b(b), loc(loc), query(query), key(key), value(value), mask(mask),
        classes(classes), out(out) {
    auto qType = cast<MemRefType>(query.getType());
    element = qType.getElementType();
    headDim = qType.getShape().back();
    group = qType.getShape()[1] / cast<MemRefType>(key.getType()).getShape()[1];
    causal = op.getIsCausal();
    scaleLog2 = op.getScale().convertToDouble() * M_LOG2E;
    f32 = b.getF32Type();
    i32 = b.getI32Type();
  }

  void build(gpu::LaunchOp launch, Value queries, Value keys, Value sharedK,
             Value sharedV);

private:
  OpBuilder &b;
  Location loc;
  Value query, key, value, mask, classes, out;
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

  // Copies rows [first, first + 64) of (batch, h) of `src` into the shared
  // tile; rows at or past `rows` are zero-filled.
  void copyTile(Value src, Value h, Value first, Value rows, Value shared) {
    int64_t chunksPerRow = headDim / kCopyElements;
    int64_t rowsPerPass = kThreads / chunksPerRow;
    Value row0 = div(tid, chunksPerRow);
    Value col = mul(rem(tid, chunksPerRow), kCopyElements);
    Value zero = idx(0);
    for (int64_t pass = 0; pass < kKeyRows / rowsPerPass; ++pass) {
      Value row = add(row0, pass * rowsPerPass);
      Value globalRow = add(first, row);
      Value inside = lessThan(globalRow, rows);
      Value srcRow = arith::SelectOp::create(b, loc, inside, globalRow, zero);
      Value count = arith::SelectOp::create(b, loc, inside, idx(kCopyElements), zero);
      nvgpu::DeviceAsyncCopyOp::create(
          b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), shared,
          ValueRange{row, col}, src, ValueRange{batch, h, srcRow, col},
          b.getIndexAttr(kCopyElements), count, b.getUnitAttr());
    }
  }
  void commit() { NVVM::CpAsyncCommitGroupOp::create(b, loc); }
  void waitAllBut(int32_t pending) {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, pending);
  }
  void barrier() { gpu::BarrierOp::create(b, loc); }

  // Four 8x8 tiles of 16-bit values from shared memory, as four i32
  // registers (two values each).
  SmallVector<Value> loadFragments(Value shared, Value row, Value col,
                                   bool transpose) {
    auto type = VectorType::get({4, 2}, element);
    Value tiles = nvgpu::LdMatrixOp::create(b, loc, type, shared,
                                            ValueRange{row, col}, transpose, 4);
    SmallVector<Value> regs;
    for (int64_t i = 0; i < 4; ++i) {
      Value pair = vector::ExtractOp::create(b, loc, tiles, ArrayRef<int64_t>{i});
      regs.push_back(asRegister(pair));
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
    auto resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(4, f32));
    NVVM::MMATypes type =
        element.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    Value result = NVVM::MmaOp::create(
        b, loc, resultType, a, bRegs, acc, ArrayRef<int64_t>{16, 8, 16},
        std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{type, type},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    for (int64_t i = 0; i < 4; ++i)
      acc[i] = LLVM::ExtractValueOp::create(b, loc, result, ArrayRef<int64_t>{i});
  }

  // acc[0..8) += A * B for two neighbouring n8 tiles, their B fragments one
  // ldmatrix of four 8x8 tiles at (row, col) of `shared` (see the header).
  void mmaTilePair(ArrayRef<Value> a, Value shared, Value row, Value col,
                   bool transpose, MutableArrayRef<Value> acc) {
    SmallVector<Value> regs = loadFragments(shared, row, col, transpose);
    mma(a, {regs[0], regs[1]}, acc.take_front(4));
    mma(a, {regs[2], regs[3]}, acc.drop_front(4));
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
};

void KernelBuilder::build(gpu::LaunchOp launch, Value queries, Value keys,
                          Value sharedK, Value sharedV) {
  tid = launch.getThreadIds().x;
  // The last query tiles have the most keys under a causal mask: first.
  Value tile = arith::SubIOp::create(
      b, loc, arith::SubIOp::create(b, loc, launch.getGridSize().x, idx(1)),
      launch.getBlockIds().x);
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
  Value firstQuery = mul(tile, kQueryRows);
  Value warpRow = mul(warp, kFragmentRows);
  // Per-lane offsets of the ldmatrix row addresses (see the header).
  Value lane16 = rem(lane, 16);
  Value laneHalf = mul(div(lane, 16), 8);
  Value keyLaneRow = add(rem(lane, 8), laneHalf);
  Value keyLaneCol = mul(rem(div(lane, 8), 2), 8);

  // The query tile through the key buffer, into registers.
  copyTile(query, head, firstQuery, queries, sharedK);
  commit();
  waitAllBut(0);
  barrier();
  int64_t steps = headDim / 16;
  SmallVector<SmallVector<Value>> queryFragments;
  for (int64_t kk = 0; kk < steps; ++kk)
    queryFragments.push_back(loadFragments(sharedK, add(warpRow, lane16),
                                           add(laneHalf, kk * 16), false));
  barrier();

  Value numKeyTiles = arith::CeilDivUIOp::create(b, loc, keys, idx(kKeyRows));
  if (causal)
    numKeyTiles = arith::MinUIOp::create(b, loc, numKeyTiles, add(tile, 1));
  // With a mask, the key tiles it hides from all 64 rows are never visited:
  // `nextTile(j)` is the first tile from j on that it does not (the class
  // table says; every thread of the block reads the same bytes).
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
  Value firstTile = nextTile(idx(0));
  copyTile(key, kvHead, mul(firstTile, kKeyRows), keys, sharedK);
  commit();
  copyTile(value, kvHead, mul(firstTile, kKeyRows), keys, sharedV);
  commit();

  // The two rows of this thread and how many keys each may see.
  Value rows[2] = {add(add(firstQuery, warpRow), quadRow), nullptr};
  rows[1] = add(rows[0], 8);
  Value limits[2];
  for (int r = 0; r < 2; ++r)
    limits[r] = causal ? arith::MinUIOp::create(b, loc, keys, add(rows[r], 1))
                             .getResult()
                       : keys;

  int64_t outTiles = headDim / 8;
  int64_t keyTiles = kKeyRows / 8;
  Value negInf = f32Const(-INFINITY), zero = f32Const(0.0);
  SmallVector<Value> inits(4 * outTiles, zero);
  inits.append({negInf, negInf, zero, zero}); // max, partial sum per row

  // Head dimension 64 without a mask: the tiles every row of the block sees
  // in full run without a comparison per score, and the running max is
  // taken of the raw scores and scaled once (each probability one fma and
  // an exp2: exp2(s * scale - max * scale)). At 128 both cost registers
  // that take the block count per SM from 3 to 2, which measured slower
  // on an H200 (docs/compile.md, "Attention as one tiled kernel").
  bool fastTiles = !mask && headDim == 64;
  bool rawMax = fastTiles && scaleLog2 > 0;
  // One key tile `j` (whose key and value tiles are in flight), given the
  // carried accumulators, max and sums; `next` is the tile to fetch next.
  // `checkKeys`: some key of the tile may be past a row's causal limit or
  // past the last key, so every score is compared with its row's limit.
  auto emitTile = [&](Value j, Value next, ValueRange carried, bool checkKeys) {
    SmallVector<Value> acc(carried.begin(), carried.begin() + 4 * outTiles);
    Value oldMax[2] = {carried[4 * outTiles], carried[4 * outTiles + 1]};
    Value oldSum[2] = {carried[4 * outTiles + 2], carried[4 * outTiles + 3]};
    Value firstKey = mul(j, kKeyRows);
    Value nextKey = mul(next, kKeyRows);
    Value hasNext = lessThan(next, numKeyTiles);
    auto copyNext = [&](Value src, Value shared) {
      auto ifOp = scf::IfOp::create(b, loc, hasNext, /*withElse=*/false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      copyTile(src, kvHead, nextKey, keys, shared);
    };
    // The key of score (n, c) of this thread.
    auto keyOf = [&](int64_t n, int c) {
      return add(add(firstKey, mul(quadCol, 2)), n * 8 + c);
    };

    waitAllBut(1); // this key tile; its value tile may be in flight
    barrier();
    // S = Q K^T over this key tile (8 tiles of 8 keys).
    SmallVector<Value> scores(4 * keyTiles, zero);
    for (int64_t np = 0; np < keyTiles / 2; ++np)
      for (int64_t kk = 0; kk < steps; ++kk)
        mmaTilePair(queryFragments[kk], sharedK, add(keyLaneRow, np * 16),
                    add(keyLaneCol, kk * 16), /*transpose=*/false,
                    MutableArrayRef<Value>(scores).slice(8 * np, 8));
    // The mask at this thread's 32 scores, read only in tiles the class
    // table calls mixed (elsewhere it adds nothing or lets all through);
    // after the products, so that they hold no registers during them.
    SmallVector<Value> maskTerms;
    bool booleanMask = false;
    if (mask) {
      Type maskElement = cast<MemRefType>(mask.getType()).getElementType();
      booleanMask = maskElement.isInteger(1);
      Value mixed = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq, classOf(j),
          arith::ConstantIntOp::create(b, loc, kMixedTile, 32));
      auto loadTerms = [&]() {
        SmallVector<Value> terms;
        Value lastRow = arith::SubIOp::create(b, loc, queries, idx(1));
        Value lastKey = arith::SubIOp::create(b, loc, keys, idx(1));
        for (int64_t n = 0; n < keyTiles; ++n)
          for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 2; ++c) {
              Value row = arith::MinUIOp::create(b, loc, rows[r], lastRow);
              Value col = arith::MinUIOp::create(b, loc, keyOf(n, c), lastKey);
              Value m = memref::LoadOp::create(
                  b, loc, mask, ValueRange{maskBatch, maskHead, row, col});
              if (!booleanMask) {
                if (!maskElement.isF32())
                  m = arith::ExtFOp::create(b, loc, f32, m);
                m = fmul(m, f32Const(M_LOG2E));
              }
              terms.push_back(m);
            }
        return terms;
      };
      Value neutral = booleanMask ? arith::ConstantIntOp::create(b, loc, 1, 1).getResult()
                                  : zero;
      maskTerms = guarded(mixed, loadTerms, SmallVector<Value>(4 * keyTiles, neutral));
    }

    // The online softmax, in log2 units.
    Value scale = f32Const(scaleLog2);
    Value newMax[2], newSum[2];
    for (int r = 0; r < 2; ++r) {
      Value rowMax = negInf;
      for (int64_t n = 0; n < keyTiles; ++n)
        for (int c = 0; c < 2; ++c) {
          Value &s = scores[4 * n + 2 * r + c];
          if (rawMax) {
            if (checkKeys)
              s = arith::SelectOp::create(b, loc, lessThan(keyOf(n, c), limits[r]), s, negInf);
            rowMax = fmax(rowMax, s);
            continue;
          }
          Value x = fmul(s, scale);
          Value visible = lessThan(keyOf(n, c), limits[r]);
          if (mask) {
            Value term = maskTerms[4 * n + 2 * r + c];
            if (booleanMask)
              visible = arith::AndIOp::create(b, loc, visible, term);
            else
              x = fadd(x, term);
          }
          s = arith::SelectOp::create(b, loc, visible, x, negInf);
          rowMax = fmax(rowMax, s);
        }
      Value tileMax = quadReduce(rowMax, /*isMax=*/true);
      newMax[r] = fmax(oldMax[r], rawMax ? fmul(tileMax, scale) : tileMax);
      // While a row has seen only -inf, shift by 0: exp2(-inf) = 0, no NaN.
      Value shift = arith::SelectOp::create(
          b, loc,
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, newMax[r], negInf),
          zero, newMax[r]);
      Value alpha = exp2(arith::SubFOp::create(b, loc, oldMax[r], shift));
      Value negShift = arith::NegFOp::create(b, loc, shift);
      Value sum = zero;
      for (int64_t n = 0; n < keyTiles; ++n)
        for (int c = 0; c < 2; ++c) {
          Value &s = scores[4 * n + 2 * r + c];
          s = rawMax ? exp2(math::FmaOp::create(b, loc, s, scale, negShift))
                     : exp2(arith::SubFOp::create(b, loc, s, shift));
          sum = fadd(sum, s);
        }
      newSum[r] = fadd(fmul(oldSum[r], alpha), sum);
      for (int64_t d = 0; d < outTiles; ++d)
        for (int c = 0; c < 2; ++c) {
          Value &o = acc[4 * d + 2 * r + c];
          o = fmul(o, alpha);
        }
    }
    // P as the A operand, 16 keys per step.
    SmallVector<SmallVector<Value>> probs;
    for (int64_t kk = 0; kk < keyTiles / 2; ++kk) {
      ArrayRef<Value> lo = ArrayRef<Value>(scores).slice(8 * kk, 4);
      ArrayRef<Value> hi = ArrayRef<Value>(scores).slice(8 * kk + 4, 4);
      probs.push_back({packRounded(lo[0], lo[1]), packRounded(lo[2], lo[3]),
                       packRounded(hi[0], hi[1]), packRounded(hi[2], hi[3])});
    }

    // The next key tile once every warp is done with this one (after the
    // softmax: fewer registers live across the copies' address arithmetic).
    barrier();
    copyNext(key, sharedK);
    commit();

    // O += P V over this value tile.
    waitAllBut(1); // the value tile; the next key tile may be in flight
    barrier();
    for (int64_t dp = 0; dp < outTiles / 2; ++dp)
      for (int64_t kk = 0; kk < keyTiles / 2; ++kk)
        mmaTilePair(probs[kk], sharedV, add(lane16, kk * 16),
                    add(laneHalf, dp * 16), /*transpose=*/true,
                    MutableArrayRef<Value>(acc).slice(8 * dp, 8));
    barrier(); // every warp is done with the value tile
    copyNext(value, sharedV);
    commit();

    SmallVector<Value> yields(acc);
    yields.append({newMax[0], newMax[1], newSum[0], newSum[1]});
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
      // The tiles whose keys every row of the block sees (all but the
      // diagonal one under a causal mask, all but a partial last one),
      // then the others.
      Value fewestKeys =
          causal ? arith::MinUIOp::create(b, loc, keys, add(firstQuery, 1)).getResult() : keys;
      Value fullTiles =
          arith::MinUIOp::create(b, loc, div(fewestKeys, kKeyRows), numKeyTiles);
      results = emitLoop(fullTiles, numKeyTiles,
                         emitLoop(idx(0), fullTiles, inits, /*checkKeys=*/false),
                         /*checkKeys=*/true);
    } else {
      results = emitLoop(idx(0), numKeyTiles, inits, /*checkKeys=*/true);
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

  // Each row divided by its sum, rounded, stored where the row exists.
  for (int r = 0; r < 2; ++r) {
    Value sum = quadReduce(results[4 * outTiles + 2 + r], /*isMax=*/false);
    // A row the mask hides entirely has a sum of 0 and gives zeros.
    Value inverse = arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, sum, zero),
        arith::DivFOp::create(b, loc, f32Const(1.0), sum), zero);
    auto ifOp = scf::IfOp::create(b, loc, lessThan(rows[r], queries), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (int64_t d = 0; d < outTiles; ++d) {
      Value lo = fmul(results[4 * d + 2 * r], inverse);
      Value hi = fmul(results[4 * d + 2 * r + 1], inverse);
      Value pair = vector::FromElementsOp::create(
          b, loc, VectorType::get({2}, f32), ValueRange{lo, hi});
      Value rounded = arith::TruncFOp::create(
          b, loc, VectorType::get({2}, element), pair);
      Value col = add(mul(quadCol, 2), d * 8);
      vector::StoreOp::create(b, loc, rounded, out,
                              ValueRange{batch, head, rows[r], col});
    }
  }
}

void KernelBuilder::assertAligned(Value memref, StringRef what) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getLayout().isIdentity())
    return; // dense with a static inner size of 64 or 128: aligned
  auto [strides, offset] = type.getStridesAndOffset();
  SmallVector<int64_t> unknown; // 0..2: strides, 3: the offset
  for (int64_t i = 0; i < 3; ++i)
    if (ShapedType::isDynamic(strides[i]) || strides[i] % kCopyElements != 0)
      unknown.push_back(i);
  if (ShapedType::isDynamic(offset) || offset % kCopyElements != 0)
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
  void runOnOperation() override {
    func::FuncOp func = getOperation();
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

  // The class of every 64 x 64 tile of the mask (kHiddenTile, kPassTile,
  // kMixedTile) in a table [mask batch, mask heads, query tiles, key
  // tiles] of i8, by a kernel of one block of kMaskTileThreads per tile:
  // warp w reads rows 8w .. 8w + 7 of it, its lanes two adjacent keys each,
  // so every load of a warp is one row's 128 contiguous bytes (a lane per
  // row made each load touch 32 rows: 71 us at T = 4096 on an H200, and one
  // warp per tile left the GPU idle at T = 512); the sixteen loads of a
  // thread are independent, and one `gpu.all_reduce or` over the block's
  // flags decides.
  Value classifyMaskTiles(OpBuilder &b, Location loc, Value mask, Value queries,
                          Value keys, FlatSymbolRefAttr kernels, unsigned number) {
    constexpr int64_t kMaskTileThreads = 256;
    constexpr int64_t kRowsPerWarp = kQueryRows / (kMaskTileThreads / 32);
    constexpr int64_t kKeysPerLane = kKeyRows / 32;
    auto maskType = cast<MemRefType>(mask.getType());
    bool boolean = maskType.getElementType().isInteger(1);
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
    Value yes = arith::ConstantIntOp::create(b, loc, 1, 1);
    Value visibleAny = arith::ConstantIntOp::create(b, loc, 0, 1);
    Value changedAny = visibleAny;
    for (int64_t r = 0; r < kRowsPerWarp; ++r) {
      Value row = arith::AddIOp::create(b, loc, firstRow, c(r));
      Value rowInside = ult(row, queries);
      Value clampedRow = arith::MinUIOp::create(b, loc, row, lastRow);
      for (int64_t k = 0; k < kKeysPerLane; ++k) {
        Value key = arith::AddIOp::create(b, loc, firstKey, c(k));
        Value inside = arith::AndIOp::create(b, loc, rowInside, ult(key, keys));
        Value m = memref::LoadOp::create(
            b, loc, mask,
            ValueRange{maskBatch, maskHead, clampedRow,
                       arith::MinUIOp::create(b, loc, key, lastKey)});
        Value visible, unchanged;
        if (boolean) {
          visible = unchanged = m;
        } else {
          Value wide = maskType.getElementType().isF32()
                           ? m
                           : arith::ExtFOp::create(b, loc, b.getF32Type(), m).getResult();
          visible = arith::CmpFOp::create(
              b, loc, arith::CmpFPredicate::ONE, wide,
              arith::ConstantOp::create(b, loc, b.getF32FloatAttr(-INFINITY)));
          unchanged = arith::CmpFOp::create(
              b, loc, arith::CmpFPredicate::OEQ, wide,
              arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0)));
        }
        Value changed = arith::XOrIOp::create(b, loc, unchanged, yes);
        visibleAny = arith::OrIOp::create(
            b, loc, visibleAny, arith::AndIOp::create(b, loc, inside, visible));
        changedAny = arith::OrIOp::create(
            b, loc, changedAny, arith::AndIOp::create(b, loc, inside, changed));
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
    Value query = withContiguousRows(b, loc, op.getQuery(), kernels, number);
    Value key = withContiguousRows(b, loc, op.getKey(), kernels, number);
    Value value = withContiguousRows(b, loc, op.getValue(), kernels, number);
    Value out = op.getInit();

    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value queries = memref::DimOp::create(b, loc, query, 2);
    Value keys = memref::DimOp::create(b, loc, key, 2);
    Value tiles = arith::CeilDivUIOp::create(
        b, loc, queries, arith::ConstantIndexOp::create(b, loc, kQueryRows));
    Value heads = arith::ConstantIndexOp::create(
        b, loc, cast<MemRefType>(query.getType()).getShape()[1]);
    Value batches = memref::DimOp::create(b, loc, query, 0);
    Value threads = arith::ConstantIndexOp::create(b, loc, kThreads);
    Value classes = op.getMask() ? classifyMaskTiles(b, loc, op.getMask(), queries,
                                                     keys, kernels, number)
                                 : Value();
    int64_t headDim = op.getHeadDim();
    Type element = outType.getElementType();
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    auto sharedType = MemRefType::get({kKeyRows, headDim + kPadding}, element,
                                      MemRefLayoutAttrInterface(), workgroup);
    auto name = FlatSymbolRefAttr::get(b.getContext(),
                                       "attention" + std::to_string(number));
    auto launch = gpu::LaunchOp::create(
        b, loc, tiles, heads, batches, threads, one, one,
        /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
        /*asyncDependencies=*/{}, TypeRange{sharedType, sharedType},
        /*privateAttributions=*/{}, nullptr, nullptr, nullptr, kernels, name);
    launch->setAttr(magi::kKernelConfigAttr,
                    b.getDictionaryAttr({
                        b.getNamedAttr("block_size", b.getI64IntegerAttr(kThreads)),
                        b.getNamedAttr("strategy", b.getStringAttr("tiled-attention")),
                        b.getNamedAttr("query_rows", b.getI64IntegerAttr(kQueryRows)),
                        b.getNamedAttr("key_rows", b.getI64IntegerAttr(kKeyRows)),
                    }));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&launch.getBody().front());
      KernelBuilder kernel(b, loc, op, query, key, value, op.getMask(), classes,
                           out);
      kernel.build(launch, queries, keys, launch.getWorkgroupAttributions()[0],
                   launch.getWorkgroupAttributions()[1]);
      gpu::TerminatorOp::create(b, loc);
    }
    op.erase();
    return success();
  }
};

} // namespace
