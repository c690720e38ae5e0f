//===- MagiDialect.h - The magi dialect -------------------------*- C++ -*-===//
#ifndef MAGI_DIALECT_MAGI_IR_MAGIDIALECT_H
#define MAGI_DIALECT_MAGI_IR_MAGIDIALECT_H

#include "mlir/IR/Dialect.h"

#include "magi/Dialect/Magi/IR/MagiOpsDialect.h.inc"

#endif // MAGI_DIALECT_MAGI_IR_MAGIDIALECT_H
