//===- AttentionLayout.h - Attention's two layouts --------------*- C++ -*-===//
//
// magi.attention and magi.tiled_attention take q, k, v and the result either
// heads first, [B, H, S, D] (layout "bhsd"), or sequence first, [B, S, H, D]
// ("bshd"). One swap of dimensions 1 and 2 turns either into the other; every
// place that moves between them (the fusion that forms bshd, the
// decomposition, both lowerings, the interpreter, the verifiers) spells the
// swap through these helpers.
//
//===----------------------------------------------------------------------===//

#ifndef MAGI_DIALECT_MAGI_IR_ATTENTIONLAYOUT_H
#define MAGI_DIALECT_MAGI_IR_ATTENTIONLAYOUT_H

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "mlir/IR/Builders.h"

#include <array>
#include <utility>

namespace magi {

/// The permutation between the layouts, dimensions 1 and 2 swapped: its own
/// inverse.
inline llvm::ArrayRef<int64_t> headsSequenceSwap() {
  static constexpr std::array<int64_t, 4> swap = {0, 2, 1, 3};
  return swap;
}

/// `shape` (or strides) of rank 4 in the other layout.
inline llvm::SmallVector<int64_t, 4> swapHeadsAndSequence(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t, 4> swapped(shape);
  std::swap(swapped[1], swapped[2]);
  return swapped;
}

/// `value` (a rank-4 tensor) in the other layout, as a magi.permute.
inline mlir::Value swapHeadsAndSequence(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Value value) {
  return PermuteOp::create(b, loc, value, b.getDenseI64ArrayAttr(headsSequenceSwap()));
}

/// Whether `permute` swaps the layouts.
inline bool swapsHeadsAndSequence(PermuteOp permute) {
  return permute && permute.getDims() == headsSequenceSwap();
}

} // namespace magi

#endif // MAGI_DIALECT_MAGI_IR_ATTENTIONLAYOUT_H
