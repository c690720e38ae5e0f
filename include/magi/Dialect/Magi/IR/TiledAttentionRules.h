//===- TiledAttentionRules.h - What magi.tiled_attention accepts -*- C++ -*-===//
//
// One statement of the operands magi.tiled_attention takes, for its verifier
// and for the lowering that decides whether an attention can become one.
//
//===----------------------------------------------------------------------===//

#ifndef MAGI_DIALECT_MAGI_IR_TILEDATTENTIONRULES_H
#define MAGI_DIALECT_MAGI_IR_TILEDATTENTIONRULES_H

#include "mlir/IR/BuiltinTypes.h"
#include <optional>
#include <string>

namespace magi {

/// Why `query`, `key`, `value`, `init` and `mask` (null: no mask) cannot be
/// the operands of magi.tiled_attention, as its verifier says it ("needs f16
/// or bf16 operands"), or nothing when they can: [B, H, L, E] of rank 4, all
/// tensors or all memrefs, one element type (f16 or bf16), a static head
/// dimension of 64 or 128, static head counts (the query's a multiple of the
/// key's), consistent batch and sequence sizes, and a mask of rank 4 (i1,
/// f16, bf16 or f32) broadcast only over batch and heads. With
/// `sequenceMajor` (`layout = "bshd"`) the query, key, value and init are
/// [B, L, H, E] instead.
std::optional<std::string> tiledAttentionMismatch(mlir::ShapedType query, mlir::ShapedType key,
                                                  mlir::ShapedType value, mlir::ShapedType init,
                                                  mlir::ShapedType mask,
                                                  bool sequenceMajor = false);

/// What a mask does to a tile of scores (query tile x key tile), as both
/// lowerings of magi.tiled_attention classify it: hides all of it, lets all
/// of it through unchanged (additive 0 or true), or anything else.
enum MaskTileClass : int64_t { kHiddenTile = 0, kPassTile = 1, kMixedTile = 2 };

/// How a tiled attention with few query rows (a decode step) splits its
/// keys: `splits` blocks per (head, batch), each `tilesPerSplit` key tiles
/// long; `splits == 1` is no split.
struct AttentionKeySplits {
  int64_t splits = 1;
  int64_t tilesPerSplit = 0;
};

/// The split rule both lowerings of magi.tiled_attention follow (the GPU
/// kernel and the CPU loops): none unless the sizes are static (none of
/// them mlir::ShapedType::kDynamic), the queries fit one query tile of
/// `queryRows` and heads x batch make fewer than 264 blocks (half of four
/// blocks on each of an H200's 132 SMs); then as many splits as make about
/// 528 blocks, or `requested` (>= 2; 1 never splits, 0 chooses), each a
/// whole number of `keyRows`-key tiles.
AttentionKeySplits chooseAttentionKeySplits(int64_t batches, int64_t heads, int64_t queries,
                                            int64_t keys, int64_t queryRows, int64_t keyRows,
                                            int64_t requested);

} // namespace magi

#endif // MAGI_DIALECT_MAGI_IR_TILEDATTENTIONRULES_H
