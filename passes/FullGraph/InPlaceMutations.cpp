//===- InPlaceMutations.cpp - mutated inputs written in place -------------===//
//
// torch.export lists a buffer the program updates (a static KV cache's
// index_copy_) as an extra output holding its new value; written as a new
// tensor, each decode step would copy the whole cache. When the new value is
// an index_put or copy of the input itself and nothing else reads the input,
// writing into the input's storage is indistinguishable from the functional
// result: `in_place` says so to the lowering. A new value computed from
// something else, for an input nothing reads, is copied into the input in
// place at the end of the graph.
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
        inPlace = inPlace && put.getSelf() == input;
      else if (auto copy = dyn_cast_or_null<magi::CopyOp>(def))
        inPlace = inPlace && copy.getSelf() == input;
      else
        inPlace = false;
      if (inPlace) {
        def->setAttr("in_place", UnitAttr::get(&getContext()));
        ++numInPlace;
        continue;
      }
      // A new value computed from something else (a counter set from the
      // step's position) into an input nothing reads: one in-place copy
      // into the input at the end of the graph, a kernel inside the step
      // rather than a copy the runtime makes after it.
      // (A magi.copy into the input's shape reads only its type.)
      bool unread = input && result != input && result.getType() == input.getType() &&
                    llvm::all_of(input.getUsers(), [&](Operation *user) {
                      auto copy = dyn_cast<magi::CopyOp>(user);
                      return isa<magi::BindSymbolicShapeOp>(user) ||
                             (copy && copy.getSelf() == input && copy.getSrc() != input);
                    });
      if (!unread) {
        ++numCopied;
        continue;
      }
      OpBuilder b(ret);
      auto copy = magi::CopyOp::create(b, ret.getLoc(), input.getType(), input, result);
      copy.setInPlace(true);
      ret->setOperand(i, copy.getResult());
      ++numInPlace;
    }
  }
};

} // namespace
