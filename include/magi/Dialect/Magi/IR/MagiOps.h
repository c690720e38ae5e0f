//===- MagiOps.h - Ops of the magi dialect ----------------------*- C++ -*-===//
#ifndef MAGI_DIALECT_MAGI_IR_MAGIOPS_H
#define MAGI_DIALECT_MAGI_IR_MAGIOPS_H

#include "magi/Dialect/Magi/IR/MagiDialect.h"
#include "magi/Dialect/Magi/IR/TypeInference.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "magi/Dialect/Magi/IR/MagiInterfaces.h.inc"

namespace magi {
/// The C++ trait behind ODS's `Magi_Torch<[...]>`: it carries no behaviour;
/// the names themselves are the op's static `getTorchOpNames`, generated
/// from the list.
template <typename ConcreteType>
class TorchOpNames
    : public mlir::OpTrait::TraitBase<ConcreteType, TorchOpNames> {};

/// The torch ops `name` stands for (TorchOpInterface), none when it is no
/// registered op or declares none.
llvm::ArrayRef<llvm::StringRef> torchOpNamesOf(mlir::OperationName name);
} // namespace magi

#define GET_OP_CLASSES
#include "magi/Dialect/Magi/IR/MagiOps.h.inc"

#endif // MAGI_DIALECT_MAGI_IR_MAGIOPS_H
