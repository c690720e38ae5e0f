//===- ExplicitPromotion.cpp - Make dtype promotion explicit --------------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Transforms/Passes.h"
#include "mlir/IR/Builders.h"

namespace magi {
#define GEN_PASS_DEF_EXPLICITPROMOTION
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;
using namespace magi;

namespace {

class ExplicitPromotionPass
    : public magi::impl::ExplicitPromotionBase<ExplicitPromotionPass> {
public:
  void runOnOperation() override {
    OpBuilder b(&getContext());
    getOperation().walk([&](Operation *op) {
      Type dtype;
      SmallVector<OpOperand *> operands;
      if (isa<EqOp, NeOp, LtOp, LeOp, GtOp, GeOp>(op)) {
        // Comparisons compute in the promoted dtype.
        dtype = resultDtype(op->getOperandTypes());
        for (OpOperand &o : op->getOpOperands())
          operands.push_back(&o);
      } else if (isa<AddOp, SubOp, MulOp, DivOp, PowOp, RemainderOp, MaximumOp,
                     MinimumOp, SiluAndMulOp, RotaryEmbeddingOp>(op)) {
        dtype = cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
        for (OpOperand &o : op->getOpOperands())
          operands.push_back(&o);
      } else if (auto where = dyn_cast<WhereOp>(op)) {
        dtype = where.getType().getElementType();
        operands = {&where.getSelfMutable(), &where.getOtherMutable()};
      } else {
        return;
      }
      for (OpOperand *operand : operands) {
        auto type = dyn_cast<RankedTensorType>(operand->get().getType());
        if (!type || type.getElementType() == dtype)
          continue;
        b.setInsertionPoint(op);
        Value cast = ToCopyOp::create(b, op->getLoc(), operand->get(),
                                      TypeAttr::get(dtype));
        operand->set(cast);
        ++numCasts;
      }
    });
  }
};

} // namespace
