//===- InPlaceMutations.cpp - mutated inputs written in place -------------===//
//
// torch.export lists a buffer the program updates (a static KV cache's
// index_copy_) as an extra output holding its new value; written as a new
// tensor, each decode step would copy the whole cache. When the new value is
// an index_put or copy of the input itself and nothing else reads the input,
// writing into the input's storage is indistinguishable from the functional
// result: `in_place` says so to the lowering.
//
//===----------------------------------------------------------------------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Import/TorchExport.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace magi {
#define GEN_PASS_DEF_MARKINPLACEMUTATIONS
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;

namespace {

class MarkInPlaceMutationsPass
    : public magi::impl::MarkInPlaceMutationsBase<MarkInPlaceMutationsPass> {
public:
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    llvm::StringMap<BlockArgument> byName;
    for (BlockArgument arg : func.getArguments())
      if (auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                        magi::kNameAttr))
        byName[name.getValue()] = arg;
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    for (auto [i, result] : llvm::enumerate(ret.getOperands())) {
      auto target = func.getResultAttrOfType<StringAttr>(i, magi::kMutatesAttr);
      if (!target)
        continue;
      BlockArgument input = byName.lookup(target.getValue());
      Operation *def = result.getDefiningOp();
      // Shape bindings only describe the input; any other use reads it.
      bool inPlace = input && def && llvm::all_of(input.getUsers(), [&](Operation *user) {
                       return user == def || isa<magi::BindSymbolicShapeOp>(user);
                     });
      if (auto put = dyn_cast_or_null<magi::IndexPutOp>(def))
        inPlace = inPlace && put.getSelf() == input && !put.getAccumulate();
      else if (auto copy = dyn_cast_or_null<magi::CopyOp>(def))
        inPlace = inPlace && copy.getSelf() == input;
      else
        inPlace = false;
      if (!inPlace) {
        ++numCopied;
        continue;
      }
      def->setAttr("in_place", UnitAttr::get(&getContext()));
      ++numInPlace;
    }
  }
};

} // namespace
