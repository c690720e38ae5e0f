//===- TiledAttentionLoops.cpp - magi.tiled_attention as CPU loops --------===//
//
// The GPU kernel's algorithm (magi-tiled-attention-to-gpu) as scalar loops,
// so that the CPU can check it against the interpreter: query tiles of 64
// rows, key tiles of 64 keys in order (under a causal mask only those up to
// the query tile's diagonal), the mask's tiles classified as the kernel's
// class table does (hidden tiles skipped, the mask read only in mixed ones),
// the scores in f32 and in log2 units, the online softmax per row (running
// max and sum, rescaled by exp2 of the max's change), the probabilities
// rounded to the element type before the product with V, zeros for a row
// that sees no key, and the same split over keys for few query rows
// (chooseAttentionKeySplits) with the same combination of the splits. What
// it does not reproduce: the order in which the tensor cores and the quad
// of threads add up products and partial sums.
//
//===----------------------------------------------------------------------===//

#include "magi/Conversion/Passes.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Dialect/Magi/IR/TiledAttentionMath.h"
#include "magi/Dialect/Magi/IR/TiledAttentionRules.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <cmath>

namespace magi {
#define GEN_PASS_DEF_TILEDATTENTIONTOLOOPS
#include "magi/Conversion/Passes.h.inc"
} // namespace magi

using namespace mlir;

namespace {

// The kernel's tiling with warpgroup products and its mma.sync tiling for
// masked and causal attention: 64 query rows a block, 64 keys a tile.
constexpr int64_t kQueryRows = 64;
constexpr int64_t kKeyRows = 64;
namespace math_ = magi::tiled_attention;

class LoopBuilder {
public:
  LoopBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value f32(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value i32(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 32); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value minU(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  Value ult(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value fmax(Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  // An element of a memref of f16, bf16 or f32 as f32.
  Value loadF32(Value memref, ValueRange at) {
    Value v = memref::LoadOp::create(b, loc, memref, at);
    return v.getType().isF32()
               ? v
               : arith::ExtFOp::create(b, loc, b.getF32Type(), v).getResult();
  }
  // scf.for from `lb` to `ub` with `inits`, its body `body(iv, carried)`
  // returning what it yields.
  ValueRange loop(Value lb, Value ub, ValueRange inits,
                  function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    auto forOp = scf::ForOp::create(b, loc, lb, ub, idx(1), inits);
    OpBuilder::InsertionGuard guard(b);
    // Without iter_args the builder adds an empty yield: ours replaces it.
    if (!forOp.getBody()->empty())
      forOp.getBody()->getTerminator()->erase();
    b.setInsertionPointToEnd(forOp.getBody());
    scf::YieldOp::create(
        b, loc, body(forOp.getInductionVar(), forOp.getRegionIterArgs()));
    return forOp.getResults();
  }
  void loop(Value lb, Value ub, function_ref<void(Value)> body) {
    loop(lb, ub, {}, [&](Value iv, ValueRange) {
      body(iv);
      return SmallVector<Value>();
    });
  }
  // `then` where `cond` holds, else `otherwise` (values of the same types).
  SmallVector<Value> ifElse(Value cond, function_ref<SmallVector<Value>()> then,
                            function_ref<SmallVector<Value>()> otherwise,
                            TypeRange types) {
    auto ifOp = scf::IfOp::create(b, loc, types, cond, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(b, loc, then());
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, otherwise());
    return SmallVector<Value>(ifOp.getResults());
  }
  void ifThen(Value cond, function_ref<void()> then) {
    auto ifOp =
        scf::IfOp::create(b, loc, TypeRange(), cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    then();
  }

  OpBuilder &b;
  Location loc;
};

class TiledAttentionToLoopsPass
    : public magi::impl::TiledAttentionToLoopsBase<TiledAttentionToLoopsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    if (keySplits < 0 || keySplits > 1024) {
      getOperation().emitError()
          << "magi-tiled-attention-to-loops: key-splits must be "
             "between 0 and 1024, got "
          << keySplits.getValue();
      return signalPassFailure();
    }
    SmallVector<magi::TiledAttentionOp> ops;
    getOperation().walk([&](magi::TiledAttentionOp op) { ops.push_back(op); });
    for (magi::TiledAttentionOp op : ops) {
      if (!isa<MemRefType>(op.getInit().getType())) {
        op.emitOpError(
            "must be bufferized before magi-tiled-attention-to-loops");
        return signalPassFailure();
      }
      lower(op);
    }
  }

private:
  void lower(magi::TiledAttentionOp op);
};

void TiledAttentionToLoopsPass::lower(magi::TiledAttentionOp op) {
  OpBuilder builder(op);
  LoopBuilder l(builder, op.getLoc());
  OpBuilder &b = builder;
  Location loc = op.getLoc();
  Value query = op.getQuery(), key = op.getKey(), value = op.getValue();
  Value mask = op.getMask(), out = op.getInit();
  if (op.isSequenceMajor()) {
    // Layout bshd: [B, H, S, E] views of the buffers, as the kernel reads.
    query = math_::headsFirstView(b, loc, query);
    key = math_::headsFirstView(b, loc, key);
    value = math_::headsFirstView(b, loc, value);
    out = math_::headsFirstView(b, loc, out);
  }
  auto qType = cast<MemRefType>(query.getType());
  auto kType = cast<MemRefType>(key.getType());
  Type element = qType.getElementType();
  Type f32Type = b.getF32Type();
  const int64_t heads = qType.getShape()[1];
  const int64_t headDim = qType.getShape()[3];
  const int64_t group = heads / kType.getShape()[1];
  const bool causal = op.getIsCausal();
  const double scaleLog2 = op.getScale().convertToDouble() * M_LOG2E;
  // Without a mask the kernel takes the running max of the raw scores and
  // scales once; with one it scales every score first.
  const bool rawMax = !mask && scaleLog2 > 0;

  Value batches = memref::DimOp::create(b, loc, query, 0);
  Value queries = memref::DimOp::create(b, loc, query, 2);
  Value keys = memref::DimOp::create(b, loc, key, 2);
  Value zero = l.idx(0), one = l.idx(1);
  Value lastRow = arith::SubIOp::create(b, loc, queries, one);
  Value lastKey = arith::SubIOp::create(b, loc, keys, one);
  Value queryTiles =
      arith::CeilDivUIOp::create(b, loc, queries, l.idx(kQueryRows));
  Value keyTiles = arith::CeilDivUIOp::create(b, loc, keys, l.idx(kKeyRows));
  Value negInf = l.f32(-INFINITY), zeroF = l.f32(0.0), scale = l.f32(scaleLog2);

  magi::AttentionKeySplits rule = magi::chooseAttentionKeySplits(
      qType.getShape()[0], heads, qType.getShape()[2], kType.getShape()[2],
      kQueryRows, kKeyRows, keySplits);
  const bool split = rule.splits > 1;
  Value partOut, partMax, partSum;
  if (split) {
    int64_t batchesStatic = qType.getShape()[0],
            queriesStatic = qType.getShape()[2];
    partOut =
        memref::AllocOp::create(b, loc,
                                MemRefType::get({rule.splits, batchesStatic,
                                                 heads, queriesStatic, headDim},
                                                f32Type));
    auto rowType = MemRefType::get(
        {rule.splits, batchesStatic, heads, queriesStatic}, f32Type);
    partMax = memref::AllocOp::create(b, loc, rowType);
    partSum = memref::AllocOp::create(b, loc, rowType);
  }
  // A row's scores (then probabilities) of one key tile, and its output.
  Value scores =
      memref::AllocaOp::create(b, loc, MemRefType::get({kKeyRows}, f32Type));
  Value acc =
      memref::AllocaOp::create(b, loc, MemRefType::get({headDim}, f32Type));

  Value maskBatch, maskHead;
  // The class of mask tile (query tile qt, key tile j), as the kernel's
  // class table has it: hidden when no score of the tile is visible,
  // passing when none is changed, else mixed.
  auto classOf = [&](Value qt, Value j) -> Value {
    Value firstRow = l.mul(qt, l.idx(kQueryRows)),
          firstKey = l.mul(j, l.idx(kKeyRows));
    Value no = arith::ConstantIntOp::create(b, loc, 0, 1);
    ValueRange flags = l.loop(
        zero, l.idx(kQueryRows), {no, no}, [&](Value r, ValueRange rowFlags) {
          Value row = l.add(firstRow, r);
          return SmallVector<Value>(l.loop(
              zero, l.idx(kKeyRows), rowFlags, [&](Value n, ValueRange f) {
                Value k = l.add(firstKey, n);
                Value inside = arith::AndIOp::create(
                    b, loc, l.ult(row, queries), l.ult(k, keys));
                Value m = memref::LoadOp::create(
                    b, loc, mask,
                    ValueRange{maskBatch, maskHead, l.minU(row, lastRow),
                               l.minU(k, lastKey)});
                auto [visible, changed] = math_::maskTermEffect(b, loc, m);
                return SmallVector<Value>{
                    arith::OrIOp::create(
                        b, loc, f[0],
                        arith::AndIOp::create(b, loc, inside, visible)),
                    arith::OrIOp::create(
                        b, loc, f[1],
                        arith::AndIOp::create(b, loc, inside, changed))};
              }));
        });
    return l.select(
        flags[0],
        l.select(flags[1], l.i32(magi::kMixedTile), l.i32(magi::kPassTile)),
        l.i32(magi::kHiddenTile));
  };

  // One row's walk over its key tiles [begin, end): the online softmax,
  // the output accumulated in `acc`; returns the row's max and sum.
  auto walkRow = [&](Value bi, Value h, Value kvHead, Value qt, Value row,
                     Value begin, Value end) -> ValueRange {
    Value limit = causal ? l.minU(keys, l.add(row, one)) : keys;
    l.loop(zero, l.idx(headDim), [&](Value d) {
      memref::StoreOp::create(b, loc, zeroF, acc, ValueRange{d});
    });
    return l.loop(
        begin, end, {negInf, zeroF}, [&](Value j, ValueRange carried) {
          Value oldMax = carried[0], oldSum = carried[1];
          Value hidden, mixed;
          if (mask) {
            Value cls = classOf(qt, j);
            hidden = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           cls, l.i32(magi::kHiddenTile));
            mixed = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, cls,
                                          l.i32(magi::kMixedTile));
          }
          Value firstKey = l.mul(j, l.idx(kKeyRows));
          auto visitTile = [&]() {
            // Scores in log2 units (-inf where the row may not see the key).
            Value tileMax = l.loop(
                zero, l.idx(kKeyRows), {negInf}, [&](Value n, ValueRange m) {
                  Value k = l.add(firstKey, n);
                  Value inside = l.ult(k, keys);
                  // Rows past the last key are zero-filled in the kernel.
                  Value s = l.ifElse(
                      inside,
                      [&]() {
                        return SmallVector<Value>(l.loop(
                            zero, l.idx(headDim), {zeroF},
                            [&](Value d, ValueRange dot) {
                              Value qv =
                                  l.loadF32(query, ValueRange{bi, h, row, d});
                              Value kv =
                                  l.loadF32(key, ValueRange{bi, kvHead, k, d});
                              return SmallVector<Value>{
                                  math::FmaOp::create(b, loc, qv, kv, dot[0])};
                            }));
                      },
                      [&]() { return SmallVector<Value>{zeroF}; },
                      {f32Type})[0];
                  if (!rawMax)
                    s = l.fmul(s, scale);
                  if (mask) {
                    s = l.ifElse(
                        mixed,
                        [&]() {
                          Value at[] = {maskBatch, maskHead,
                                        l.minU(row, lastRow),
                                        l.minU(k, lastKey)};
                          Value mv = memref::LoadOp::create(b, loc, mask, at);
                          return SmallVector<Value>{
                              math_::applyMaskTerm(b, loc, mv, s)};
                        },
                        [&]() { return SmallVector<Value>{s}; }, {f32Type})[0];
                  }
                  s = l.select(l.ult(k, limit), s, negInf);
                  memref::StoreOp::create(b, loc, s, scores, ValueRange{n});
                  return SmallVector<Value>{l.fmax(m[0], s)};
                })[0];
            math_::OnlineStep step = math_::onlineStep(
                b, loc, oldMax, rawMax ? l.fmul(tileMax, scale) : tileMax);
            Value newMax = step.max, alpha = step.alpha;
            Value tileSum = l.loop(
                zero, l.idx(kKeyRows), {zeroF}, [&](Value n, ValueRange sum) {
                  Value s =
                      memref::LoadOp::create(b, loc, scores, ValueRange{n});
                  Value p = math_::probability(b, loc, s, step,
                                               rawMax ? scale : Value());
                  // The product with V takes P rounded to the element type.
                  Value narrow = arith::TruncFOp::create(b, loc, element, p);
                  Value rounded =
                      arith::ExtFOp::create(b, loc, f32Type, narrow);
                  memref::StoreOp::create(b, loc, rounded, scores,
                                          ValueRange{n});
                  return SmallVector<Value>{l.fadd(sum[0], p)};
                })[0];
            Value lastTileKey = l.minU(
                l.idx(kKeyRows), arith::SubIOp::create(b, loc, keys, firstKey));
            l.loop(zero, l.idx(headDim), [&](Value d) {
              Value start = l.fmul(
                  memref::LoadOp::create(b, loc, acc, ValueRange{d}), alpha);
              Value o = l.loop(
                  zero, lastTileKey, {start}, [&](Value n, ValueRange a) {
                    Value p =
                        memref::LoadOp::create(b, loc, scores, ValueRange{n});
                    Value vv = l.loadF32(
                        value, ValueRange{bi, kvHead, l.add(firstKey, n), d});
                    return SmallVector<Value>{
                        math::FmaOp::create(b, loc, p, vv, a[0])};
                  })[0];
              memref::StoreOp::create(b, loc, o, acc, ValueRange{d});
            });
            return SmallVector<Value>{newMax,
                                      l.fadd(l.fmul(oldSum, alpha), tileSum)};
          };
          if (!mask)
            return visitTile();
          return l.ifElse(hidden,
                          [&]() {
                            return SmallVector<Value>{oldMax, oldSum};
                          },
                          visitTile, {f32Type, f32Type});
        });
  };

  Value splits = l.idx(rule.splits);
  l.loop(zero, batches, [&](Value bi) {
    l.loop(zero, l.idx(heads), [&](Value h) {
      if (mask) {
        auto maskShape = cast<MemRefType>(mask.getType()).getShape();
        maskBatch = maskShape[0] == 1 ? zero : bi;
        maskHead = maskShape[1] == 1 ? zero : h;
      }
      Value kvHead =
          group == 1
              ? h
              : arith::DivUIOp::create(b, loc, h, l.idx(group)).getResult();
      l.loop(zero, queryTiles, [&](Value qt) {
        // The block's key tiles: under a causal mask up to its diagonal.
        Value tiles = causal ? l.minU(keyTiles, l.add(qt, one)) : keyTiles;
        l.loop(zero, splits, [&](Value s) {
          Value begin = zero, end = tiles;
          if (split) {
            begin = l.mul(s, l.idx(rule.tilesPerSplit));
            end = l.minU(tiles, l.add(begin, l.idx(rule.tilesPerSplit)));
          }
          l.loop(zero, l.idx(kQueryRows), [&](Value r) {
            Value row = l.add(l.mul(qt, l.idx(kQueryRows)), r);
            l.ifThen(l.ult(row, queries), [&]() {
              ValueRange result = walkRow(bi, h, kvHead, qt, row, begin, end);
              Value max = result[0], sum = result[1];
              if (split) {
                memref::StoreOp::create(b, loc, max, partMax,
                                        ValueRange{s, bi, h, row});
                memref::StoreOp::create(b, loc, sum, partSum,
                                        ValueRange{s, bi, h, row});
                l.loop(zero, l.idx(headDim), [&](Value d) {
                  Value o = memref::LoadOp::create(b, loc, acc, ValueRange{d});
                  memref::StoreOp::create(b, loc, o, partOut,
                                          ValueRange{s, bi, h, row, d});
                });
                return;
              }
              // A row the mask hides entirely has a sum of 0 and gives zeros.
              Value inverse = l.select(
                  arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, sum,
                                        zeroF),
                  arith::DivFOp::create(b, loc, l.f32(1.0), sum), zeroF);
              l.loop(zero, l.idx(headDim), [&](Value d) {
                Value o =
                    l.fmul(memref::LoadOp::create(b, loc, acc, ValueRange{d}),
                           inverse);
                memref::StoreOp::create(
                    b, loc, arith::TruncFOp::create(b, loc, element, o), out,
                    ValueRange{bi, h, row, d});
              });
            });
          });
        });
      });
    });
  });

  if (split) {
    // The splits combined as the kernel's combine step does: each rescaled
    // to the largest max (a split that saw no key has weight 0).
    l.loop(zero, batches, [&](Value bi) {
      l.loop(zero, l.idx(heads), [&](Value h) {
        l.loop(zero, queries, [&](Value row) {
          Value max =
              l.loop(zero, splits, {negInf}, [&](Value s, ValueRange m) {
                return SmallVector<Value>{l.fmax(
                    m[0], memref::LoadOp::create(b, loc, partMax,
                                                 ValueRange{s, bi, h, row}))};
              })[0];
          l.loop(zero, l.idx(headDim), [&](Value d) {
            ValueRange total = l.loop(
                zero, splits, {zeroF, zeroF}, [&](Value s, ValueRange t) {
                  Value sMax = memref::LoadOp::create(
                      b, loc, partMax, ValueRange{s, bi, h, row});
                  Value weight = math_::splitWeight(b, loc, sMax, max);
                  Value sSum = memref::LoadOp::create(
                      b, loc, partSum, ValueRange{s, bi, h, row});
                  Value sOut = memref::LoadOp::create(
                      b, loc, partOut, ValueRange{s, bi, h, row, d});
                  return SmallVector<Value>{
                      math::FmaOp::create(b, loc, sSum, weight, t[0]),
                      math::FmaOp::create(b, loc, sOut, weight, t[1])};
                });
            Value result = l.select(
                arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                      total[0], zeroF),
                arith::DivFOp::create(b, loc, total[1], total[0]), zeroF);
            memref::StoreOp::create(
                b, loc, arith::TruncFOp::create(b, loc, element, result), out,
                ValueRange{bi, h, row, d});
          });
        });
      });
    });
  }
  op.erase();
}

} // namespace
