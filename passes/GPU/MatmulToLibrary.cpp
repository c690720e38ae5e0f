//===- MatmulToLibrary.cpp - matrix products as cuBLASLt calls ------------===//
//
// A matrix product as one thread per output element is correct but far from
// the hardware; cuBLASLt is not. The rewrite keeps the linalg op's exact
// meaning (c = a · b over a zero-filled c), only its executor changes.
//
//===----------------------------------------------------------------------===//

#include "magi/GPU/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace magi {
#define GEN_PASS_DEF_MATMULTOLIBRARYCALL
#include "magi/GPU/Passes.h.inc"
} // namespace magi

using namespace mlir;

namespace {

// `v` itself, or what an arith.extf converted.
Value throughExtF(Value v) {
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

bool isGemmType(Type t) { return t.isF32() || t.isBF16() || t.isF16(); }

// True when `memref` holds zeros just before `point`: the last op in the
// block that writes it is a linalg.fill of zero, or a copy from a buffer
// that holds zeros then (bufferization copies a fill that CSE shared). Ops
// in between may read it; any other use (a view that might be written, a
// call) makes the answer no. `fill` is set to the fill found.
bool holdsZeros(Operation *point, Value memref, linalg::FillOp &fill,
                unsigned depth = 0) {
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
bool unusedBetween(Operation *from, Operation *to, Value memref) {
  for (Operation *op = from->getNextNode(); op && op != to; op = op->getNextNode())
    if (llvm::is_contained(op->getOperands(), memref))
      return false;
  return true;
}

// The allocation `v` is a view of, or null.
memref::AllocOp rootAlloc(Value v) {
  return magi::viewedBuffer(v).getDefiningOp<memref::AllocOp>();
}

// True when `generic` is `out = truncf(in)` element by element, from f32 to
// `type`.
bool isRounding(linalg::GenericOp generic, Type type) {
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
linalg::GenericOp roundingOnlyReader(linalg::LinalgOp product, Value c,
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

class MatmulToLibraryCallPass
    : public magi::impl::MatmulToLibraryCallBase<MatmulToLibraryCallPass> {
public:
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    erased.clear();
    SmallVector<linalg::LinalgOp> candidates;
    for (Operation &op : func.getBody().front())
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        candidates.push_back(linalgOp);
    for (linalg::LinalgOp op : candidates)
      if (!erased.contains(op.getOperation()))
        rewrite(op);
    eraseWritesNobodyReads(func);
  }

private:
  llvm::SmallPtrSet<Operation *, 8> erased; // roundings the calls took over

  // The view of `memref` whose dimensions are `loops` in that order: a unit
  // batch first when `addBatch`, or its first `collapseBatch` dimensions
  // (several batch loops) collapsed into one when they are contiguous;
  // null when they are not.
  Value view(OpBuilder &b, Location loc, Value memref, AffineMap map,
             ArrayRef<unsigned> loops, bool addBatch,
             unsigned collapseBatch = 1) {
    SmallVector<int64_t> perm;
    for (unsigned loop : loops)
      for (auto [i, expr] : llvm::enumerate(map.getResults()))
        if (cast<AffineDimExpr>(expr).getPosition() == loop)
          perm.push_back(i);
    Value result = memref;
    if (!llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
      result = memref::TransposeOp::create(
          b, loc, memref,
          AffineMapAttr::get(AffineMap::getPermutationMap(
              SmallVector<unsigned>(perm.begin(), perm.end()),
              b.getContext())));
    if (collapseBatch > 1) {
      auto type = cast<MemRefType>(result.getType());
      ReassociationIndices batchGroup;
      for (unsigned i = 0; i < collapseBatch; ++i)
        batchGroup.push_back(i);
      SmallVector<ReassociationIndices> groups = {batchGroup};
      for (int64_t d = collapseBatch; d < type.getRank(); ++d)
        groups.push_back({d});
      if (!memref::CollapseShapeOp::isGuaranteedCollapsible(type, groups))
        return nullptr;
      return memref::CollapseShapeOp::create(b, loc, result, groups);
    }
    if (!addBatch)
      return result;
    auto type = cast<MemRefType>(result.getType());
    SmallVector<int64_t> shape = {1};
    llvm::append_range(shape, type.getShape());
    SmallVector<ReassociationIndices> groups = {{0, 1}, {2}};
    FailureOr<MemRefType> expanded = memref::ExpandShapeOp::computeExpandedType(
        type, shape, groups);
    if (failed(expanded))
      return nullptr;
    SmallVector<OpFoldResult> outputShape = {b.getIndexAttr(1)};
    for (int64_t d = 0; d < type.getRank(); ++d)
      outputShape.push_back(
          type.isDynamicDim(d)
              ? OpFoldResult(memref::DimOp::create(b, loc, result, d).getResult())
              : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
    return memref::ExpandShapeOp::create(b, loc, *expanded, result, groups,
                                         outputShape);
  }

  void rewrite(linalg::LinalgOp op) {
    if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
        !op.hasPureBufferSemantics())
      return;
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    // Several batch loops (attention's batch and heads) become one batch
    // when each operand holds them contiguously.
    if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
        dims->k.size() != 1)
      return;
    // Over one k it is an outer product, one multiply an element: a kernel
    // of a few microseconds, where a cuBLASLt call took 16-21 us on an H200
    // (LLaMA's RoPE table, [64, 1] x [1, T]).
    if (op.getStaticLoopRanges()[dims->k.front()] == 1)
      return;
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    if (!llvm::all_of(maps, [](AffineMap m) { return m.isPermutation() ||
                                                     m.isProjectedPermutation(); }))
      return;
    Value a = op.getDpsInputOperand(0)->get();
    Value bOperand = op.getDpsInputOperand(1)->get();
    Value c = op.getDpsInitOperand(0)->get();
    for (Value v : {a, bOperand, c}) {
      auto type = dyn_cast<MemRefType>(v.getType());
      if (!type || !type.getLayout().isIdentity())
        return;
    }
    bool batched = !dims->batch.empty();
    unsigned numBatch = dims->batch.size();
    unsigned expectedRank = 2 + numBatch;
    for (AffineMap m : maps)
      if (m.getNumResults() != expectedRank)
        return; // e.g. a batch broadcast: not a plain product
    Type ta = cast<MemRefType>(a.getType()).getElementType();
    Type tb = cast<MemRefType>(bOperand.getType()).getElementType();
    Type tc = cast<MemRefType>(c.getType()).getElementType();
    if (ta != tb || !isGemmType(ta) || !(tc.isF32() || tc == ta) ||
        !isMultiplyAccumulate(op))
      return;
    linalg::FillOp fill;
    if (!holdsZeros(op, c, fill))
      return;
    // The call overwrites c, so a fill only it would read is dead.
    bool fillIsDead = fill.getOutputs()[0] == c && unusedBetween(fill, op, c);
    linalg::GenericOp rounding =
        roundingOnlyReader(op, c, ta, ValueRange{a, bOperand});
    Value target = c;
    if (rounding) {
      target = rounding.getDpsInitOperand(0)->get();
      Operation *alloc = target.getDefiningOp();
      if (!alloc->isBeforeInBlock(op))
        alloc->moveBefore(op);
    }

    OpBuilder b(op);
    Location loc = op.getLoc();
    SmallVector<unsigned> batch(dims->batch.begin(), dims->batch.end());
    auto with = [&](std::initializer_list<unsigned> rest) {
      SmallVector<unsigned> loops = batch;
      loops.append(rest.begin(), rest.end());
      return loops;
    };
    unsigned m = dims->m[0], n = dims->n[0], k = dims->k[0];
    Value va = view(b, loc, a, maps[0], with({m, k}), !batched, numBatch);
    Value vb = view(b, loc, bOperand, maps[1], with({k, n}), !batched, numBatch);
    Value vc = view(b, loc, target, maps[2], with({m, n}), !batched, numBatch);
    if (!va || !vb || !vc) {
      // Views already made stay unused; canonicalization removes them.
      return;
    }
    FlatSymbolRefAttr callee = declareGemm(va, vb, vc);
    auto call = func::CallOp::create(b, loc, callee, TypeRange{},
                                     ValueRange{va, vb, vc});
    call->setAttr(magi::kLibraryCallAttr, b.getStringAttr("gemm"));
    op->erase();
    if (rounding) {
      // A later candidate: it must not be visited once erased.
      erased.insert(rounding.getOperation());
      rounding->erase();
    }
    if (fillIsDead)
      fill->erase();
  }

  // A private declaration per operand signature (a symbol's type is fixed).
  FlatSymbolRefAttr declareGemm(Value a, Value b, Value c) {
    ModuleOp module = getOperation()->getParentOfType<ModuleOp>();
    auto type = FunctionType::get(&getContext(),
                                  {a.getType(), b.getType(), c.getType()}, {});
    SymbolTable symbols(module);
    for (unsigned i = 0;; ++i) {
      std::string name = std::string(magi::kGemmCallee) + "_" + std::to_string(i);
      auto existing = symbols.lookup<func::FuncOp>(name);
      if (existing && existing.getFunctionType() == type)
        return FlatSymbolRefAttr::get(&getContext(), name);
      if (existing)
        continue;
      OpBuilder b(module.getBodyRegion());
      b.setInsertionPointToEnd(module.getBody());
      auto decl = func::FuncOp::create(b, module.getLoc(), name, type);
      decl.setPrivate();
      return FlatSymbolRefAttr::get(&getContext(), name);
    }
  }
};

} // namespace
