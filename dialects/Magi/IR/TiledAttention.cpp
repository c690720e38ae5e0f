//===- TiledAttention.cpp - magi.tiled_attention --------------------------===//
//
// The verifier, memory effects and bufferization of the destination-style
// attention op the GPU lowering forms.
//
//===----------------------------------------------------------------------===//

#include "magi/Dialect/Magi/IR/AttentionLayout.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Dialect/Magi/IR/TiledAttentionRules.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

using namespace mlir;
using namespace magi;

AttentionKeySplits magi::chooseAttentionKeySplits(int64_t batches, int64_t heads,
                                                  int64_t queries, int64_t keys,
                                                  int64_t queryRows, int64_t keyRows,
                                                  int64_t requested) {
  constexpr int64_t kTargetBlocks = 4 * 132;
  AttentionKeySplits none;
  if (requested == 1 || ShapedType::isDynamic(batches) || ShapedType::isDynamic(queries) ||
      ShapedType::isDynamic(keys) || queries > queryRows ||
      (requested == 0 && batches * heads >= kTargetBlocks / 2))
    return none;
  int64_t keyTiles = llvm::divideCeilSigned(keys, keyRows);
  int64_t wanted = std::min(keyTiles, requested != 0
                                          ? requested
                                          : llvm::divideCeilSigned(kTargetBlocks, batches * heads));
  if (wanted < 2)
    return none;
  AttentionKeySplits splits;
  splits.tilesPerSplit = llvm::divideCeilSigned(keyTiles, wanted);
  splits.splits = llvm::divideCeilSigned(keyTiles, splits.tilesPerSplit);
  return splits.splits > 1 ? splits : none;
}

std::optional<std::string> magi::tiledAttentionMismatch(ShapedType q, ShapedType k,
                                                       ShapedType v, ShapedType init,
                                                       ShapedType mask, bool sequenceMajor) {
  bool tensors = isa<RankedTensorType>(q);
  for (ShapedType t : {q, k, v, init}) {
    if (!t.hasRank() || t.getRank() != 4)
      return "needs [B, H, L, E] operands of rank 4";
    if (isa<RankedTensorType>(t) != tensors)
      return "needs all operands as tensors or all as memrefs";
    if (t.getElementType() != q.getElementType())
      return "needs one element type for all operands";
  }
  if (!q.getElementType().isF16() && !q.getElementType().isBF16())
    return "needs f16 or bf16 operands";
  int64_t headDim = q.getShape().back();
  if (headDim != 64 && headDim != 128)
    return "needs a static head dimension of 64 or 128";
  for (ShapedType t : {k, v, init})
    if (t.getShape().back() != headDim)
      return "needs one head dimension for q, k, v and init";
  auto mismatch = [](int64_t a, int64_t b) {
    return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
  };
  // In [B, H, L, E] order whatever the layout.
  auto headsFirst = [&](ShapedType t) {
    return sequenceMajor ? swapHeadsAndSequence(t.getShape())
                         : SmallVector<int64_t, 4>(t.getShape());
  };
  SmallVector<int64_t, 4> qs = headsFirst(q), ks = headsFirst(k), vs = headsFirst(v),
                       is = headsFirst(init);
  if (mismatch(qs[0], ks[0]) || mismatch(qs[0], vs[0]) || mismatch(qs[0], is[0]))
    return "needs one batch size";
  if (mismatch(ks[1], vs[1]) || mismatch(ks[2], vs[2]))
    return "needs key and value of one shape";
  if (mismatch(qs[1], is[1]) || mismatch(qs[2], is[2]))
    return "needs init of the query's shape";
  if (ShapedType::isDynamic(qs[1]) || ShapedType::isDynamic(ks[1]) ||
      qs[1] % ks[1] != 0)
    return "needs static head counts, the query's a multiple of the key's";
  if (mask) {
    if (!mask.hasRank() || mask.getRank() != 4 || isa<RankedTensorType>(mask) != tensors)
      return "needs a mask of rank 4, a tensor or memref as the other operands";
    Type el = mask.getElementType();
    if (!el.isInteger(1) && !el.isF16() && !el.isBF16() && !el.isF32())
      return "needs a boolean or an f16, bf16 or f32 mask";
    ArrayRef<int64_t> ms = mask.getShape();
    for (int i = 0; i < 2; ++i)
      if (ms[i] != 1 && (ShapedType::isDynamic(ms[i]) || ms[i] != qs[i]))
        return "needs mask dimensions 0 and 1 of static size 1 or the query's";
    if (mismatch(ms[2], qs[2]) || mismatch(ms[3], ks[2]))
      return "needs a mask of [.., .., L, S]";
  }
  return std::nullopt;
}

LogicalResult TiledAttentionOp::verify() {
  auto q = cast<ShapedType>(getQuery().getType());
  ShapedType mask = getMask() ? cast<ShapedType>(getMask().getType()) : ShapedType();
  if (std::optional<std::string> why =
          tiledAttentionMismatch(q, cast<ShapedType>(getKey().getType()),
                                 cast<ShapedType>(getValue().getType()),
                                 cast<ShapedType>(getInit().getType()), mask,
                                 isSequenceMajor()))
    return emitOpError(*why);
  if (StringAttr layout = getLayoutAttr();
      layout && layout.getValue() != "bhsd" && layout.getValue() != "bshd")
    return emitOpError("has layout '") << layout.getValue() << "'; expected 'bhsd' or 'bshd'";
  bool tensors = isa<RankedTensorType>(q);
  if (tensors != (getResult() != nullptr))
    return emitOpError(tensors ? "on tensors needs a result"
                               : "on memrefs has no result");
  if (tensors && getResult().getType() != getInit().getType())
    return emitOpError("needs a result of the type of init");
  return success();
}

void TiledAttentionOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (!isa<MemRefType>(getInit().getType()))
    return;
  for (OpOperand &operand : getOperation()->getOpOperands())
    if (&operand != &getInitMutable())
      effects.emplace_back(MemoryEffects::Read::get(), &operand, /*stage=*/0,
                           /*effectOnFullRegion=*/true,
                           SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), &getInitMutable(),
                       /*stage=*/0, /*effectOnFullRegion=*/true,
                       SideEffects::DefaultResource::get());
}

bool TiledAttentionOp::bufferizesToMemoryRead(
    OpOperand &operand, const bufferization::AnalysisState &) {
  // Every element of init is written before it is read (it is not read).
  return &operand != &getInitMutable();
}

bool TiledAttentionOp::bufferizesToMemoryWrite(
    OpOperand &operand, const bufferization::AnalysisState &) {
  return &operand == &getInitMutable();
}

bufferization::AliasingValueList TiledAttentionOp::getAliasingValues(
    OpOperand &operand, const bufferization::AnalysisState &) {
  if (&operand != &getInitMutable())
    return {};
  return {{getResult(), bufferization::BufferRelation::Equivalent}};
}

LogicalResult
TiledAttentionOp::bufferize(RewriterBase &rewriter,
                            const bufferization::BufferizationOptions &options,
                            bufferization::BufferizationState &state) {
  auto bufferOf = [&](Value operand) -> FailureOr<Value> {
    if (!operand)
      return Value();
    return bufferization::getBuffer(rewriter, operand, options, state);
  };
  FailureOr<Value> q = bufferOf(getQuery()), k = bufferOf(getKey()),
                   v = bufferOf(getValue()), mask = bufferOf(getMask()),
                   init = bufferOf(getInit());
  if (failed(q) || failed(k) || failed(v) || failed(mask) || failed(init))
    return failure();
  rewriter.setInsertionPoint(*this);
  TiledAttentionOp::create(rewriter, getLoc(), TypeRange(), *q, *k, *v, *mask,
                           *init, getScaleAttr(), getIsCausalAttr(), getLayoutAttr());
  bufferization::replaceOpWithBufferizedValues(rewriter, *this, *init);
  return success();
}
