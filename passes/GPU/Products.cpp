//===- Products.cpp - matching matrix products on buffers ----------------===//
//
// What the passes that give a matrix product its executor (a cuBLASLt call,
// a few-row tensor-core kernel) share: the product's shape of body, the
// zeros its output must hold, and the rounding it may take over.
//
//===----------------------------------------------------------------------===//

#include "magi/GPU/Passes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace magi {

// `v` itself, or what an arith.extf converted.
static Value throughExtF(Value v) {
  if (auto ext = v.getDefiningOp<arith::ExtFOp>())
    return ext.getIn();
  return v;
}

// The body is `yield out + a * b` (in either order, inputs maybe extended).
bool isMultiplyAccumulate(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body->getArgument(2);
  Value product = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  if (add.getLhs() != acc && add.getRhs() != acc)
    return false;
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return false;
  Value x = throughExtF(mul.getLhs()), y = throughExtF(mul.getRhs());
  Value a = body->getArgument(0), b = body->getArgument(1);
  return (x == a && y == b) || (x == b && y == a);
}

// True when `memref` holds zeros just before `point`: the last op in the
// block that writes it is a linalg.fill of zero, or a copy from a buffer
// that holds zeros then (bufferization copies a fill that CSE shared). Ops
// in between may read it; any other use (a view that might be written, a
// call) makes the answer no. `fill` is set to the fill found.
bool holdsZeros(Operation *point, Value memref, linalg::FillOp &fill,
                unsigned depth) {
  if (depth > 4)
    return false;
  for (Operation *prev = point->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (!llvm::is_contained(prev->getOperands(), memref))
      continue;
    if (auto f = dyn_cast<linalg::FillOp>(prev)) {
      if (f.getOutputs()[0] != memref)
        return false;
      FloatAttr value;
      if (!matchPattern(f.getInputs()[0], m_Constant(&value)) ||
          !value.getValue().isZero())
        return false;
      fill = f;
      return true;
    }
    if (auto copy = dyn_cast<memref::CopyOp>(prev)) {
      if (copy.getSource() == memref)
        continue; // a read
      return holdsZeros(copy, copy.getSource(), fill, depth + 1);
    }
    if (auto copy = dyn_cast<linalg::CopyOp>(prev)) {
      if (copy.getOutputs()[0] != memref)
        continue; // a read
      return holdsZeros(copy, copy.getInputs()[0], fill, depth + 1);
    }
    if (auto reader = dyn_cast<linalg::LinalgOp>(prev))
      if (llvm::is_contained(reader.getDpsInputs(), memref) &&
          !llvm::is_contained(reader.getDpsInits(), memref))
        continue; // a read
    return false;
  }
  return false;
}

// True when nothing between `from` and `to` (same block) uses `memref`.
static bool unusedBetween(Operation *from, Operation *to, Value memref) {
  for (Operation *op = from->getNextNode(); op && op != to; op = op->getNextNode())
    if (llvm::is_contained(op->getOperands(), memref))
      return false;
  return true;
}

// The allocation `v` is a view of, or null.
static memref::AllocOp rootAlloc(Value v) {
  return magi::viewedBuffer(v).getDefiningOp<memref::AllocOp>();
}

// True when `generic` is `out = truncf(in)` element by element, from f32 to
// `type`.
static bool isRounding(linalg::GenericOp generic, Type type) {
  if (generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }) ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  Block *body = generic.getBlock();
  if (body->getOperations().size() != 2)
    return false;
  auto trunc = dyn_cast<arith::TruncFOp>(body->front());
  return trunc && trunc.getIn() == body->getArgument(0) &&
         trunc.getType() == type &&
         body->getTerminator()->getOperand(0) == trunc.getResult();
}

// A product into an f32 buffer `c` that nothing but a rounding to the
// inputs' type `type` reads afterwards: returns that rounding, so the call
// can write the rounded result itself (cuBLASLt computes in f32 and rounds
// once, as the two ops do) and no kernel reads the f32 buffer back. The
// rounding's output must be a fresh buffer that nothing touches between the
// product and the rounding, and its allocation must be movable above the
// product.
static linalg::GenericOp roundingOnlyReader(linalg::LinalgOp product, Value c,
                                            Type type, ValueRange inputs) {
  if (!cast<MemRefType>(c.getType()).getElementType().isF32() ||
      !(type.isBF16() || type.isF16()) || !c.getDefiningOp<memref::AllocOp>())
    return nullptr;
  Block *block = product->getBlock();
  linalg::GenericOp rounding;
  for (Operation *user : c.getUsers()) {
    if (user == product.getOperation() || isa<memref::DimOp, memref::DeallocOp>(user))
      continue;
    if (user->getBlock() != block)
      return nullptr;
    if (user->isBeforeInBlock(product))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (rounding || !generic || !isRounding(generic, type) ||
        generic.getDpsInputOperand(0)->get() != c)
      return nullptr;
    rounding = generic;
  }
  if (!rounding)
    return nullptr;
  Value out = rounding.getDpsInitOperand(0)->get();
  auto outType = cast<MemRefType>(out.getType());
  auto alloc = out.getDefiningOp<memref::AllocOp>();
  if (!outType.getLayout().isIdentity() || !alloc || alloc->getBlock() != block)
    return nullptr;
  for (Value size : alloc->getOperands())
    if (Operation *def = size.getDefiningOp())
      if (def->getBlock() == block && !def->isBeforeInBlock(product))
        return nullptr;
  for (Value input : inputs)
    if (rootAlloc(input) == alloc)
      return nullptr;
  for (Operation *op = product->getNextNode(); op && op != rounding.getOperation();
       op = op->getNextNode()) {
    if (isa<memref::DimOp>(op))
      continue;
    for (Value operand : op->getOperands())
      if (rootAlloc(operand) == alloc)
        return nullptr;
  }
  return rounding;
}

ProductOutput claimProductOutput(linalg::LinalgOp product, Value c, Type inputType,
                                 ValueRange inputs, linalg::FillOp fill) {
  ProductOutput output{c, nullptr, nullptr};
  // The product overwrites c, so a fill only it would read is dead.
  if (fill.getOutputs()[0] == c && unusedBetween(fill, product, c))
    output.deadFill = fill;
  output.rounding = roundingOnlyReader(product, c, inputType, inputs);
  if (output.rounding) {
    output.target = output.rounding.getDpsInitOperand(0)->get();
    Operation *alloc = output.target.getDefiningOp();
    if (!alloc->isBeforeInBlock(product))
      alloc->moveBefore(product);
  }
  return output;
}

void eraseReplacedProduct(linalg::LinalgOp product, const ProductOutput &output,
                          llvm::SmallPtrSetImpl<Operation *> &erased) {
  product->erase();
  if (linalg::GenericOp rounding = output.rounding) {
    erased.insert(rounding.getOperation());
    rounding->erase();
  }
  if (linalg::FillOp fill = output.deadFill)
    fill->erase();
}

// Fills and copies into a local buffer that nothing reads are dead: a call
// that now writes elsewhere, or overwrites the buffer, leaves them behind.
void eraseWritesNobodyReads(func::FuncOp func) {
  SmallVector<memref::AllocOp> allocs;
  func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
  bool changed = true;
  while (changed) {
    changed = false;
    for (memref::AllocOp alloc : allocs) {
      SmallVector<Operation *> writers;
      for (Operation *user : alloc->getUsers()) {
        if (isa<memref::DimOp, memref::DeallocOp>(user))
          continue;
        if (auto fill = dyn_cast<linalg::FillOp>(user);
            fill && fill.getOutputs()[0] == alloc.getResult()) {
          writers.push_back(user);
          continue;
        }
        if (auto copy = dyn_cast<linalg::CopyOp>(user);
            copy && copy.getOutputs()[0] == alloc.getResult() &&
            copy.getInputs()[0] != alloc.getResult()) {
          writers.push_back(user);
          continue;
        }
        if (auto copy = dyn_cast<memref::CopyOp>(user);
            copy && copy.getTarget() == alloc.getResult() &&
            copy.getSource() != alloc.getResult()) {
          writers.push_back(user);
          continue;
        }
        writers.clear(); // a read, a view or an escape
        break;
      }
      for (Operation *writer : writers)
        writer->erase();
      changed |= !writers.empty();
    }
  }
}

} // namespace magi
