//===- OpLibrary.cpp - Opaque ops replaced by user definitions -----------===//
//
// magi-expand-op-library: a `magi.opaque` whose name a library function
// carries becomes that function's body (include/magi/Transforms/Passes.td
// has the rules), its result types inferred again from the operands it
// now has.
//
//===----------------------------------------------------------------------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Dialect/Magi/IR/TypeInference.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

namespace magi {
#define GEN_PASS_DEF_EXPANDOPLIBRARY
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;
using namespace magi;

namespace {

constexpr llvm::StringLiteral kAttrArg = "magi.attr";

class ExpandOpLibraryPass : public magi::impl::ExpandOpLibraryBase<ExpandOpLibraryPass> {
public:
  using ExpandOpLibraryBase::ExpandOpLibraryBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (library.empty())
      return success();
    // Shared by the pass's clones (one per thread), which only read it.
    module = std::make_shared<OwningOpRef<ModuleOp>>(
        parseSourceFile<ModuleOp>(library, ParserConfig(context)));
    if (!*module)
      return emitError(UnknownLoc::get(context))
             << "cannot read the op library '" << library << "'";
    for (auto func : (*module)->getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.getBody().hasOneBlock())
        return func.emitError("an op definition needs a body of one block");
      definitions[func.getSymName()] = func;
    }
    return success();
  }

  void runOnOperation() override {
    SmallVector<OpaqueOp> opaques;
    getOperation().walk([&](OpaqueOp op) {
      if (definitions.count(op.getOpName()))
        opaques.push_back(op);
    });
    for (OpaqueOp op : opaques)
      if (failed(expand(op, definitions.lookup(op.getOpName()))))
        return signalPassFailure();
  }

private:
  LogicalResult expand(OpaqueOp op, func::FuncOp definition) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Block &body = definition.getBody().front();
    IRMapping map;
    unsigned next = 0;
    for (BlockArgument arg : body.getArguments()) {
      Type type = arg.getType();
      if (auto name = definition.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kAttrArg)) {
        Attribute value = op->getAttr(name.getValue());
        Value constant;
        if (auto i = dyn_cast_or_null<IntegerAttr>(value); i && isa<IntegerType>(type))
          constant = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, i.getInt()));
        else if (auto f = dyn_cast_or_null<FloatAttr>(value); f && isa<FloatType>(type))
          constant = arith::ConstantOp::create(b, loc, b.getFloatAttr(type, f.getValueAsDouble()));
        else if (auto v = dyn_cast_or_null<BoolAttr>(value); v && type.isInteger(1))
          constant = arith::ConstantOp::create(b, loc, b.getBoolAttr(v.getValue()));
        if (!constant) {
          InFlightDiagnostic d = op.emitError("the op library's '")
                                 << definition.getSymName() << "' takes attribute '"
                                 << name.getValue() << "' as " << type << ", but the op has ";
          if (value)
            d << "it as " << value;
          else
            d << "no such attribute";
          return d;
        }
        map.map(arg, constant);
        continue;
      }
      if (next >= op.getArgs().size())
        return op.emitError("the op library's '")
               << definition.getSymName() << "' takes more operands than the op's "
               << op.getArgs().size();
      Value operand = op.getArgs()[next++];
      if (!meetTypes(operand.getType(), type))
        return op.emitError("operand ")
               << next - 1 << " of type " << operand.getType()
               << " does not fit argument " << arg.getArgNumber() << " of the op library's '"
               << definition.getSymName() << "', of type " << type;
      map.map(arg, operand);
    }
    if (next != op.getArgs().size())
      return op.emitError("the op has ")
             << op.getArgs().size() << " operands, the op library's '"
             << definition.getSymName() << "' takes " << next;
    // The body, each op's result types inferred again from its operands
    // (static sizes where the definition has `?`).
    llvm::SmallPtrSet<Operation *, 16> cloned;
    for (Operation &inner : body.without_terminator()) {
      Operation *clone = b.clone(inner, map);
      cloned.insert(clone);
      if (failed(refineResultTypes(clone)))
        return op.emitError("in the op library's '")
               << definition.getSymName() << "': cannot infer the types of '"
               << clone->getName() << "' for these operands";
    }
    auto terminator = cast<func::ReturnOp>(body.getTerminator());
    if (terminator.getNumOperands() != op.getNumResults())
      return op.emitError("the op has ")
             << op.getNumResults() << " results, the op library's '"
             << definition.getSymName() << "' returns " << terminator.getNumOperands();
    for (auto [i, pair] : llvm::enumerate(llvm::zip(terminator.getOperands(), op.getResults()))) {
      auto [returned, result] = pair;
      Value value = map.lookupOrDefault(returned);
      if (!meetTypes(value.getType(), result.getType()))
        return op.emitError("result ")
               << i << " of type " << result.getType() << " does not fit the op library's '"
               << definition.getSymName() << "' result of type " << value.getType();
      // The op's declared type: its users (a return, say) were built for
      // it. A value the body did not compute (an operand returned as it
      // is) must have that type already.
      if (value.getType() != result.getType()) {
        if (!cloned.contains(value.getDefiningOp()))
          return op.emitError("result ")
                 << i << " is operand of type " << value.getType()
                 << ", returned by the op library's '" << definition.getSymName()
                 << "' as it is, where the op's result has type " << result.getType();
        value.setType(result.getType());
      }
      result.replaceAllUsesWith(value);
    }
    op.erase();
    ++numExpanded;
    return success();
  }

  std::shared_ptr<OwningOpRef<ModuleOp>> module;
  llvm::StringMap<func::FuncOp> definitions;
};

} // namespace
