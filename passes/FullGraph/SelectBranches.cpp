//===- SelectBranches.cpp - torch.cond on a tensor as a select ------------===//
//
// A launch plan cannot branch on a value on the device. A torch.cond on a
// bool tensor whose branches cannot fault (nothing reads memory at an
// address a value computes, nothing asserts) is computed as both branches
// and an elementwise select of their results, which every later phase
// handles like any other graph.
//
//===----------------------------------------------------------------------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Dialect/Magi/IR/TypeInference.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"

namespace magi {
#define GEN_PASS_DEF_SELECTBRANCHES
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;
using namespace magi;

namespace {

// Whether `op` may run even when its branch is not taken: an op that reads
// memory at an index a value gives (a gather, an embedding, a scatter, a
// grouped product's offsets) could read out of bounds on values meant for
// the other branch, an assertion could fail, and an op Magi does not know
// (or a call) could do anything.
bool safeToSpeculate(Operation *op) {
  if (op->getNumRegions() != 0)
    return false;
  if (isa<EmbeddingOp, GatherOp, IndexOp, IndexSelectOp, IndexPutOp, ScatterOp,
          GroupedMmOp, OpaqueOp, AssertSymbolicOp, AssertTensorMetadataOp>(op))
    return false;
  // A scalar integer division traps on the CPU when its divisor is 0 (the
  // magi ops' lowerings guard theirs; arith's do not).
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
          arith::FloorDivSIOp, arith::CeilDivSIOp, arith::CeilDivUIOp>(op))
    return false;
  // An element read at constant indices within static sizes is in bounds
  // whichever branch is taken.
  if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
    auto type = cast<RankedTensorType>(extract.getTensor().getType());
    for (auto [index, size] : llvm::zip(extract.getIndices(), type.getShape())) {
      std::optional<int64_t> at = getConstantIntValue(index);
      if (!at || ShapedType::isDynamic(size) || *at < 0 || *at >= size)
        return false;
    }
    return true;
  }
  return isa<MagiDialect, arith::ArithDialect>(op->getDialect()) || isa<tensor::CastOp>(op);
}

// The one-element bool tensor `cond` reads, when it is a tensor.extract of
// one; null otherwise (a SymBool on the sizes folds once specialized).
Value predicateTensor(Value cond) {
  auto extract = cond.getDefiningOp<tensor::ExtractOp>();
  if (!extract)
    return nullptr;
  auto type = cast<RankedTensorType>(extract.getTensor().getType());
  if (!type.hasStaticShape() || type.getNumElements() != 1 ||
      !type.getElementType().isInteger(1))
    return nullptr;
  return extract.getTensor();
}

class SelectBranchesPass
    : public magi::impl::SelectBranchesBase<SelectBranchesPass> {
public:
  void runOnOperation() override {
    // Inner ifs first (post-order), so that an outer branch holding a
    // converted inner one can be converted too.
    SmallVector<scf::IfOp> ifs;
    getOperation().walk([&](scf::IfOp op) { ifs.push_back(op); });
    for (scf::IfOp op : ifs)
      if (succeeded(select(op)))
        ++numSelected;
    // A cond whose branches only give values from above is folded by the
    // canonicalizer into an arith.select of whole tensors on the element
    // read: the same select, on the device.
    SmallVector<arith::SelectOp> selects;
    getOperation().walk([&](arith::SelectOp op) {
      if (isa<RankedTensorType>(op.getType()) && predicateTensor(op.getCondition()))
        selects.push_back(op);
    });
    for (arith::SelectOp op : selects) {
      OpBuilder b(op);
      Value flag = zeroDimFlag(b, op.getLoc(), predicateTensor(op.getCondition()));
      auto where = WhereOp::create(b, op.getLoc(), op.getType(), flag, op.getTrueValue(),
                                   op.getFalseValue());
      Operation *extract = op.getCondition().getDefiningOp();
      op.getResult().replaceAllUsesWith(where.getResult());
      op.erase();
      if (extract->use_empty())
        extract->erase();
      ++numSelected;
    }
  }

private:
  // The predicate as a 0-d tensor, which `where` broadcasts.
  static Value zeroDimFlag(OpBuilder &b, Location loc, Value predicate) {
    if (cast<RankedTensorType>(predicate.getType()).getRank() == 0)
      return predicate;
    return ViewOp::create(b, loc, RankedTensorType::get({}, b.getI1Type()), predicate,
                          ValueRange(), b.getDenseI64ArrayAttr({}));
  }

  LogicalResult select(scf::IfOp op) {
    Value predicate = predicateTensor(op.getCondition());
    if (!predicate || op.getNumResults() == 0 || op.getElseRegion().empty())
      return failure();
    if (!llvm::all_of(op.getResultTypes(), llvm::IsaPred<RankedTensorType>))
      return failure();
    for (Region *region : {&op.getThenRegion(), &op.getElseRegion()})
      for (Operation &inner : region->front().without_terminator())
        if (!safeToSpeculate(&inner))
          return failure();

    OpBuilder b(op);
    Location loc = op.getLoc();
    Value flag = zeroDimFlag(b, loc, predicate);
    auto thenYield = cast<scf::YieldOp>(op.thenBlock()->getTerminator());
    auto elseYield = cast<scf::YieldOp>(op.elseBlock()->getTerminator());
    SmallVector<Value> selected;
    for (auto [type, onTrue, onFalse] :
         llvm::zip(op.getResultTypes(), thenYield.getOperands(), elseYield.getOperands())) {
      auto where = WhereOp::create(b, loc, type, flag, onTrue, onFalse);
      // The select must have the if's type (the branches' types join in it).
      if (!declaredTypesHold(where)) {
        for (Value made : selected)
          made.getDefiningOp()->erase();
        where->erase();
        if (flag != predicate)
          flag.getDefiningOp()->erase();
        return failure();
      }
      selected.push_back(where.getResult());
    }
    // Both branches' ops, then branch before else, ahead of the selects.
    Operation *firstSelect = selected.front().getDefiningOp();
    for (Block *block : {op.thenBlock(), op.elseBlock()})
      for (Operation &inner : llvm::make_early_inc_range(block->without_terminator()))
        inner.moveBefore(firstSelect);
    op.replaceAllUsesWith(selected);
    Operation *extract = op.getCondition().getDefiningOp();
    op.erase();
    if (extract->use_empty())
      extract->erase();
    return success();
  }
};

} // namespace
