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
    getOperation().walk([&](PromotesOperandsOpInterface op) {
      Type dtype = op.getPromotedDtype();
      SmallVector<OpOperand *> operands = op.getPromotedOperands();
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
