//===- ItemToTensor.cpp - Keep .item() in tensor arithmetic ---------------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Transforms/Passes.h"
#include "mlir/IR/Builders.h"

namespace magi {
#define GEN_PASS_DEF_ITEMTOTENSOR
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;
using namespace magi;

namespace {

class ItemToTensorPass : public magi::impl::ItemToTensorBase<ItemToTensorPass> {
public:
  void runOnOperation() override {
    SmallVector<ItemOp> items;
    getOperation().walk([&](ItemOp op) { items.push_back(op); });
    OpBuilder b(&getContext());
    for (ItemOp item : items) {
      auto tensorType = dyn_cast<RankedTensorType>(item.getSelf().getType());
      if (!tensorType || !tensorType.hasStaticShape() ||
          tensorType.getNumElements() != 1)
        continue;
      Value scalar = item.getResult();
      for (OpOperand &use : llvm::make_early_inc_range(scalar.getUses())) {
        Operation *user = use.getOwner();
        auto promoting = dyn_cast<PromotesOperandsOpInterface>(user);
        if (!promoting || !llvm::is_contained(promoting.getPromotedOperands(), &use))
          continue;
        b.setInsertionPoint(user);
        Value zeroD = ViewOp::create(
            b, item.getLoc(),
            RankedTensorType::get({}, tensorType.getElementType()),
            item.getSelf(), ValueRange(), b.getDenseI64ArrayAttr({}));
        Type dtype = wrappedNumberDtype(scalar.getType());
        if (dtype != tensorType.getElementType())
          zeroD = ToCopyOp::create(b, item.getLoc(), zeroD, TypeAttr::get(dtype));
        use.set(zeroD);
        // Keep the rewrite only where the op's types still hold.
        if (!declaredTypesHold(user)) {
          use.set(scalar);
          // Drop the view (and cast) made for nothing.
          Operation *made = zeroD.getDefiningOp();
          while (made && made->use_empty()) {
            Operation *next = made->getNumOperands()
                                  ? made->getOperand(0).getDefiningOp()
                                  : nullptr;
            made->erase();
            made = next == item ? nullptr : next;
          }
          continue;
        }
        ++numRewritten;
      }
      if (scalar.use_empty())
        item.erase();
    }
  }
};

} // namespace
