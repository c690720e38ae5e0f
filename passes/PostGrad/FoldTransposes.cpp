//===- FoldTransposes.cpp - Transposes into matmul operand flags ----------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Transforms/Passes.h"
#include "mlir/IR/Builders.h"

namespace magi {
#define GEN_PASS_DEF_FOLDTRANSPOSES
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;
using namespace magi;

namespace {

// True for a permute that swaps the last two of its dimensions only.
bool swapsLastTwo(PermuteOp permute) {
  ArrayRef<int64_t> dims = permute.getDims();
  int64_t rank = dims.size();
  if (rank < 2)
    return false;
  for (int64_t i = 0; i < rank - 2; ++i)
    if (dims[i] != i)
      return false;
  return dims[rank - 2] == rank - 1 && dims[rank - 1] == rank - 2;
}

class FoldTransposesPass
    : public magi::impl::FoldTransposesBase<FoldTransposesPass> {
public:
  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      // (operand, flag name) pairs of the op's matrix operands.
      SmallVector<std::pair<OpOperand *, StringRef>> operands;
      if (auto mm = dyn_cast<MmOp>(op))
        operands = {{&mm.getSelfMutable(), "transpose_self"},
                    {&mm.getMat2Mutable(), "transpose_mat2"}};
      else if (auto bmm = dyn_cast<BmmOp>(op))
        operands = {{&bmm.getSelfMutable(), "transpose_self"},
                    {&bmm.getMat2Mutable(), "transpose_mat2"}};
      else if (auto grouped = dyn_cast<GroupedMmOp>(op))
        operands = {{&grouped.getMat2Mutable(), "transpose_mat2"}};
      else if (auto addmm = dyn_cast<AddmmOp>(op))
        operands = {{&addmm.getMat1Mutable(), "transpose_mat1"},
                    {&addmm.getMat2Mutable(), "transpose_mat2"}};
      for (auto [operand, flag] : operands) {
        auto permute = operand->get().getDefiningOp<PermuteOp>();
        if (!permute || !swapsLastTwo(permute))
          continue;
        operand->set(permute.getSelf());
        if (op->hasAttr(flag))
          op->removeAttr(flag);
        else
          op->setAttr(flag, UnitAttr::get(op->getContext()));
        ++numFolded;
      }
    });
  }
};

} // namespace
