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

bool isGemmType(Type t) { return t.isF32() || t.isBF16() || t.isF16(); }

class MatmulToLibraryCallPass
    : public magi::impl::MatmulToLibraryCallBase<MatmulToLibraryCallPass> {
public:
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal()) // e.g. a gemm declaration this pass added
      return;
    erased.clear();
    SmallVector<linalg::LinalgOp> candidates;
    for (Operation &op : func.getBody().front())
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        candidates.push_back(linalgOp);
    for (linalg::LinalgOp op : candidates)
      if (!erased.contains(op.getOperation()))
        rewrite(op);
    magi::eraseWritesNobodyReads(func);
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
    if (failed(dims) || dims->k.size() != 1)
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
    // Several batch loops (attention's batch and heads) become one batch
    // when each operand holds them contiguously.
    SmallVector<unsigned> batch(dims->batch.begin(), dims->batch.end());
    SmallVector<unsigned> ms(dims->m.begin(), dims->m.end());
    SmallVector<unsigned> ns(dims->n.begin(), dims->n.end());
    // A batch that one operand lacks (a convolution's images, one weight for
    // all of them) counts among m or n: it is the leading dimension of c and
    // of the other operand. The operand without it is read again for each
    // batch (a unit batch, batch stride 0 in the call).
    std::optional<unsigned> shared; // the operand without the batch
    auto leading = [](AffineMap m) {
      return cast<AffineDimExpr>(m.getResult(0)).getPosition();
    };
    if (batch.empty() && maps[2].getNumResults() == 3) {
      unsigned lead = leading(maps[2]);
      for (unsigned owner : {0u, 1u}) {
        SmallVector<unsigned> &group = owner == 0 ? ms : ns;
        if (group.size() == 2 && llvm::is_contained(group, lead) &&
            maps[owner].getNumResults() == 3 && leading(maps[owner]) == lead) {
          batch.push_back(lead);
          llvm::erase(group, lead);
          shared = 1 - owner;
          break;
        }
      }
    }
    if (ms.size() != 1 || ns.size() != 1)
      return;
    Value a = op.getDpsInputOperand(0)->get();
    Value bOperand = op.getDpsInputOperand(1)->get();
    Value c = op.getDpsInitOperand(0)->get();
    for (Value v : {a, bOperand, c}) {
      auto type = dyn_cast<MemRefType>(v.getType());
      if (!type || !type.getLayout().isIdentity())
        return;
    }
    bool batched = !batch.empty();
    unsigned numBatch = batch.size();
    for (auto [i, m] : llvm::enumerate(maps))
      if (m.getNumResults() != (shared == i ? 2 : 2 + numBatch))
        return; // e.g. a batch broadcast: not a plain product
    Type ta = cast<MemRefType>(a.getType()).getElementType();
    Type tb = cast<MemRefType>(bOperand.getType()).getElementType();
    Type tc = cast<MemRefType>(c.getType()).getElementType();
    if (ta != tb || !isGemmType(ta) || !(tc.isF32() || tc == ta) ||
        !magi::isMultiplyAccumulate(op))
      return;
    linalg::FillOp fill;
    if (!magi::holdsZeros(op, c, fill))
      return;
    magi::ProductOutput output =
        magi::claimProductOutput(op, c, ta, ValueRange{a, bOperand}, fill);
    Value target = output.target;

    OpBuilder b(op);
    Location loc = op.getLoc();
    auto with = [&](unsigned operand, std::initializer_list<unsigned> rest) {
      SmallVector<unsigned> loops;
      if (shared != operand)
        loops = batch;
      loops.append(rest.begin(), rest.end());
      return loops;
    };
    unsigned m = ms[0], n = ns[0], k = dims->k[0];
    Value va = view(b, loc, a, maps[0], with(0, {m, k}),
                    !batched || shared == 0u, shared == 0u ? 1 : numBatch);
    Value vb = view(b, loc, bOperand, maps[1], with(1, {k, n}),
                    !batched || shared == 1u, shared == 1u ? 1 : numBatch);
    Value vc = view(b, loc, target, maps[2], with(2, {m, n}), !batched, numBatch);
    if (!va || !vb || !vc) {
      // Views already made stay unused; canonicalization removes them.
      return;
    }
    FlatSymbolRefAttr callee = declareGemm(va, vb, vc);
    auto call = func::CallOp::create(b, loc, callee, TypeRange{},
                                     ValueRange{va, vb, vc});
    call->setAttr(magi::kLibraryCallAttr, b.getStringAttr("gemm"));
    magi::eraseReplacedProduct(op, output, erased);
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
