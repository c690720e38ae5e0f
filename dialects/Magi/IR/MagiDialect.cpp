//===- MagiDialect.cpp - The magi dialect ---------------------------------===//

#include "magi/Dialect/Magi/IR/MagiDialect.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace magi;

#include "magi/Dialect/Magi/IR/MagiOpsDialect.cpp.inc"

void MagiDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "magi/Dialect/Magi/IR/MagiOps.cpp.inc"
      >();
}

Operation *MagiDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  // Symbolic integers fold to index constants.
  if (auto integer = dyn_cast<IntegerAttr>(value);
      integer && type.isIndex())
    return arith::ConstantIndexOp::create(builder, loc, integer.getInt());
  // SymBools (sym_compare, sym_and, ...) fold to i1 constants.
  if (auto flag = dyn_cast<BoolAttr>(value); flag && type.isInteger(1))
    return arith::ConstantOp::create(builder, loc, flag);
  if (auto elements = dyn_cast<ElementsAttr>(value);
      elements && elements.getType() == type)
    return ConstantOp::create(builder, loc, type, elements);
  return nullptr;
}
