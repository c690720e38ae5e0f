//===- VectorAccess.cpp - elementwise loops over 16-byte vectors ----------===//
//
// The matcher magi-choose-kernel-config uses to record `vector_width` and
// the rewrite magi-map-to-gpu runs for it: a thread loads, computes and
// stores W neighbouring elements with one 16-byte access per buffer instead
// of W scalar ones.
//
//===----------------------------------------------------------------------===//

#include "magi/GPU/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace magi {
namespace {

// The bytes one vector access moves for the widest element.
constexpr int64_t kVectorBytes = 16;

// How each op of the body takes part.
// LaneIndex: an index that, over the W iterations of a vector, runs
// through W consecutive values from a multiple of W (the last induction
// variable, or an affine function of it such as rotary embedding's
// (j + 64) mod 128); LaneUniform: a value the same for all W (j < 64).
// Both are computed once, for the vector's first iteration.
// LaneValue: other index arithmetic on the last induction variable (an
// im2col's `position + tap`, its bounds), computed for each of the W
// iterations; a vector op may take an i1 one as a vector of its W values;
// GatherLoad: a load with LaneValue indices (the others uniform or the
// last induction variable): W scalar loads made one vector (a vector's
// stores stay one access).
enum class Role {
  Uniform,
  Vector,
  StreamLoad,
  StreamStore,
  UniformLoad,
  LaneIndex,
  LaneUniform,
  LaneValue,
  GatherLoad
};

// What a LaneValue may be, computed again for each iteration: index
// arithmetic, comparisons of indices, and their conjunctions (a padded
// im2col's bounds and clamped position).
bool isLaneArithmetic(Operation &op) {
  if (isa<affine::AffineApplyOp>(op))
    return true;
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::MinSIOp, arith::MaxSIOp>(op))
    return op.getResult(0).getType().isIndex();
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    return cmp.getLhs().getType().isIndex();
  if (isa<arith::AndIOp, arith::OrIOp>(op))
    return op.getResult(0).getType().isInteger(1);
  return false;
}

// The most iterations of the last loop whose index functions are checked
// by evaluating them at every iteration.
constexpr int64_t kMostCheckedIterations = 1 << 16;

struct Analysis {
  int64_t width = 0;
  llvm::DenseMap<Operation *, Role> roles;
};

// An element type a vector access may move: whole bytes, int or float.
std::optional<int64_t> elementBytes(Type type) {
  if (!type.isIntOrFloat() || type.getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt;
  return type.getIntOrFloatBitWidth() / 8;
}

// Indices of an access that streams along the last loop: the last index is
// the last induction variable itself, the others do not depend on it (nor
// on any vector value).
bool streams(ValueRange indices, const llvm::DenseSet<Value> &lanes,
             const llvm::DenseSet<Value> &varying) {
  if (indices.empty() || !lanes.contains(indices.back()))
    return false;
  return llvm::none_of(indices.drop_back(), [&](Value i) {
    return varying.contains(i) || lanes.contains(i);
  });
}

// True when `map` (one dim, one result) takes each run of W iterations
// j = W k .. W k + W - 1 of [0, count) to W consecutive values from a
// multiple of W: checked at every iteration.
bool runsInLanes(AffineMap map, int64_t count, int64_t width) {
  if (map.getNumDims() != 1 || map.getNumSymbols() != 0 || map.getNumResults() != 1 ||
      count > kMostCheckedIterations)
    return false;
  Builder b(map.getContext());
  int64_t base = 0;
  for (int64_t j = 0; j < count; ++j) {
    SmallVector<Attribute> folded;
    if (failed(map.constantFold({b.getIndexAttr(j)}, folded)))
      return false;
    int64_t value = cast<IntegerAttr>(folded[0]).getInt();
    if (j % width == 0) {
      if (value % width != 0)
        return false;
      base = value;
    } else if (value != base + j % width) {
      return false;
    }
  }
  return true;
}

// True when `cmp` of the last induction variable with the constant `bound`
// (in either order) has one value over each run of W iterations.
bool uniformInLanes(arith::CmpIPredicate predicate, bool lastOnLeft, int64_t bound,
                    int64_t count, int64_t width) {
  if (count > kMostCheckedIterations)
    return false;
  for (int64_t j = 0; j < count; j += width) {
    auto at = [&](int64_t i) {
      llvm::APInt x(64, uint64_t(i), true), y(64, uint64_t(bound), true);
      return lastOnLeft ? arith::applyCmpPredicate(predicate, x, y)
                        : arith::applyCmpPredicate(predicate, y, x);
    };
    bool first = at(j);
    for (int64_t l = 1; l < width; ++l)
      if (at(j + l) != first)
        return false;
  }
  return true;
}

// The bytes of the widest element that an access depending on the last
// loop moves (every such access must stream): W = 16 / it.
std::optional<int64_t> widestStreamedElement(scf::ParallelOp loop, Value last) {
  llvm::DenseSet<Value> dependsOnLast = {last};
  int64_t widest = 0;
  for (Operation &op : loop.getBody()->without_terminator()) {
    bool depends = llvm::any_of(op.getOperands(),
                                [&](Value v) { return dependsOnLast.contains(v); });
    if (!depends)
      continue;
    for (Value result : op.getResults())
      dependsOnLast.insert(result);
    Type element;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      element = load.getMemRefType().getElementType();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      element = store.getMemRefType().getElementType();
    else
      continue;
    std::optional<int64_t> bytes = elementBytes(element);
    if (!bytes)
      return std::nullopt;
    widest = std::max(widest, *bytes);
  }
  if (widest == 0)
    return std::nullopt;
  return widest;
}


FailureOr<Analysis> analyze(scf::ParallelOp loop) {
  if (loop.getNumReductions() != 0 || loop.getNumLoops() == 0)
    return failure();
  unsigned lastDim = loop.getNumLoops() - 1;
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[lastDim]);
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound()[lastDim]);
  std::optional<int64_t> step = getConstantIntValue(loop.getStep()[lastDim]);
  if (!lb || !ub || !step || *lb != 0 || *step != 1 || *ub <= 0)
    return failure();
  Value last = loop.getInductionVars()[lastDim];
  std::optional<int64_t> widest = widestStreamedElement(loop, last);
  if (!widest)
    return failure();
  int64_t width = kVectorBytes / *widest;
  if (width < 2 || *ub % width != 0)
    return failure();

  Analysis result;
  // Indices that run through W consecutive values over a vector's
  // iterations, and values that differ between those iterations (what
  // the streaming loads feed).
  llvm::DenseSet<Value> lanes = {last};
  llvm::DenseSet<Value> varying;
  llvm::DenseSet<Value> laneValues;
  auto involves = [&](Value v) {
    return varying.contains(v) || lanes.contains(v) || laneValues.contains(v);
  };
  auto isLaneValue = [&](Value v) { return laneValues.contains(v); };
  SmallVector<Value> streamed;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (op.getNumRegions() != 0)
      return failure();
    if (auto apply = dyn_cast<affine::AffineApplyOp>(op);
        apply && apply.getMapOperands().size() == 1 && apply.getMapOperands()[0] == last &&
        runsInLanes(apply.getAffineMap(), *ub, width)) {
      result.roles[&op] = Role::LaneIndex;
      lanes.insert(apply.getResult());
      continue;
    }
    if (auto cmp = dyn_cast<arith::CmpIOp>(op);
        cmp && (cmp.getLhs() == last || cmp.getRhs() == last)) {
      bool lastOnLeft = cmp.getLhs() == last;
      std::optional<int64_t> bound = getConstantIntValue(lastOnLeft ? cmp.getRhs() : cmp.getLhs());
      if (bound && uniformInLanes(cmp.getPredicate(), lastOnLeft, *bound, *ub, width)) {
        result.roles[&op] = Role::LaneUniform;
        continue;
      }
    }
    if (isLaneArithmetic(op) &&
        llvm::any_of(op.getOperands(),
                     [&](Value v) { return lanes.contains(v) || laneValues.contains(v); })) {
      // Of the lane indices only the induction variable itself, whose value
      // in each iteration the rewrite knows.
      if (llvm::any_of(op.getOperands(), [&](Value v) {
            return varying.contains(v) || (lanes.contains(v) && v != last);
          }))
        return failure();
      result.roles[&op] = Role::LaneValue;
      laneValues.insert(op.getResult(0));
      continue;
    }
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      if (llvm::none_of(load.getIndices(), involves)) {
        result.roles[&op] = Role::UniformLoad;
        continue;
      }
      if (llvm::any_of(load.getIndices(), isLaneValue) &&
          llvm::none_of(load.getIndices(), [&](Value v) {
            return varying.contains(v) || (lanes.contains(v) && v != last);
          })) {
        result.roles[&op] = Role::GatherLoad;
        varying.insert(load.getResult());
        continue;
      }
      if (llvm::any_of(load.getIndices(), isLaneValue) ||
          !streams(load.getIndices(), lanes, varying))
        return failure();
      result.roles[&op] = Role::StreamLoad;
      varying.insert(load.getResult());
      streamed.push_back(load.getMemRef());
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      // Every iteration stores its own element: the store streams.
      if (llvm::any_of(store.getIndices(), isLaneValue) ||
          llvm::any_of(store.getOperands(), isLaneValue) ||
          !streams(store.getIndices(), lanes, varying))
        return failure();
      result.roles[&op] = Role::StreamStore;
      streamed.push_back(store.getMemRef());
      continue;
    }
    if (!isMemoryEffectFree(&op) || op.getNumResults() != 1)
      return failure();
    if (llvm::none_of(op.getOperands(), involves)) {
      result.roles[&op] = Role::Uniform;
      continue;
    }
    // Lane indices and index-typed lane values are only indices: as values
    // their W elements would differ (an iota), which this rewrite does not
    // build. An i1 lane value (a padded im2col's bounds) becomes the vector
    // of its W values.
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) {
                       return lanes.contains(v) ||
                              (laneValues.contains(v) && v.getType().isIndex());
                     }) ||
        !op.hasTrait<OpTrait::Elementwise>() || !op.hasTrait<OpTrait::Vectorizable>() ||
        !op.getResult(0).getType().isIntOrFloat() ||
        llvm::any_of(op.getOperandTypes(), [](Type t) { return !t.isIntOrFloat(); }))
      return failure();
    result.roles[&op] = Role::Vector;
    varying.insert(op.getResult(0));
  }
  if (streamed.empty())
    return failure();

  for (Value memref : streamed)
    if (!vectorAligned(memref, width))
      return failure();
  result.width = width;
  return result;
}

} // namespace

bool vectorAligned(MemRefType type, int64_t width) {
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1 || ShapedType::isDynamic(offset) || offset % width != 0)
    return false;
  for (auto [size, stride] : llvm::zip(type.getShape().drop_back(),
                                       ArrayRef<int64_t>(strides).drop_back()))
    if (size != 1 && (ShapedType::isDynamic(stride) || stride % width != 0))
      return false;
  return true;
}

namespace {

// Multiples, kept small enough to multiply: a product that would overflow
// keeps its first factor (still a divisor of it); 0 is the value 0.
int64_t multiplyMultiples(int64_t a, int64_t b) {
  int64_t product;
  if (a == 0 || b == 0)
    return 0;
  return llvm::MulOverflow(a, b, product) ? a : product;
}

int64_t knownMultipleOf(Value v, unsigned depth) {
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant))) {
    if (constant.getSignificantBits() > 63)
      return 1;
    int64_t c = constant.getSExtValue();
    return c < 0 ? -c : c;
  }
  Operation *def = v.getDefiningOp();
  if (!def || depth == 0)
    return 1;
  if (isa<arith::MulIOp>(def))
    return multiplyMultiples(knownMultipleOf(def->getOperand(0), depth - 1),
                             knownMultipleOf(def->getOperand(1), depth - 1));
  if (isa<arith::AddIOp, arith::SubIOp>(def))
    return std::gcd(knownMultipleOf(def->getOperand(0), depth - 1),
                    knownMultipleOf(def->getOperand(1), depth - 1));
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp, arith::ExtUIOp>(def))
    return knownMultipleOf(def->getOperand(0), depth - 1);
  return 1;
}

int64_t knownMultipleOf(OpFoldResult value, unsigned depth) {
  if (std::optional<int64_t> c = getConstantIntValue(value))
    return *c < 0 ? (*c == INT64_MIN ? 1 : -*c) : *c;
  return knownMultipleOf(cast<Value>(value), depth);
}

KnownLayout knownLayout(Value memref, unsigned depth) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t rank = type.getRank();
  KnownLayout known;
  known.strides.assign(rank, 1);
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return known;
  // What the value's making tells of the dynamic ones.
  KnownLayout made;
  made.strides.assign(rank, 1);
  Operation *def = memref.getDefiningOp();
  if (type.getLayout().isIdentity()) {
    int64_t inner = 1;
    for (int64_t i = rank; i-- > 0;) {
      made.strides[i] = inner;
      if (!ShapedType::isDynamic(type.getDimSize(i)))
        inner = multiplyMultiples(inner, type.getDimSize(i));
    }
    made.offset = 0;
  } else if (depth > 0 && def) {
    if (auto transpose = dyn_cast<memref::TransposeOp>(def)) {
      KnownLayout source = knownLayout(transpose.getIn(), depth - 1);
      AffineMap permutation = transpose.getPermutation();
      for (int64_t i = 0; i < rank; ++i)
        made.strides[i] = source.strides[permutation.getDimPosition(i)];
      made.offset = source.offset;
    } else if (auto castOp = dyn_cast<memref::CastOp>(def)) {
      if (auto sourceType = dyn_cast<MemRefType>(castOp.getSource().getType());
          sourceType && sourceType.getRank() == rank)
        made = knownLayout(castOp.getSource(), depth - 1);
    } else if (auto subview = dyn_cast<memref::SubViewOp>(def)) {
      KnownLayout source = knownLayout(subview.getSource(), depth - 1);
      llvm::SmallBitVector dropped = subview.getDroppedDims();
      int64_t offsetMultiple = source.offset;
      int64_t result = 0;
      for (auto [d, sourceOffset, sourceStride] :
           llvm::enumerate(subview.getMixedOffsets(), subview.getMixedStrides())) {
        offsetMultiple = std::gcd(
            offsetMultiple,
            multiplyMultiples(knownMultipleOf(sourceOffset, depth - 1), source.strides[d]));
        if (dropped.test(d))
          continue;
        if (result < rank)
          made.strides[result] =
              multiplyMultiples(source.strides[d], knownMultipleOf(sourceStride, depth - 1));
        ++result;
      }
      if (result != rank)
        made.strides.assign(rank, 1);
      else
        made.offset = offsetMultiple;
    } else if (auto reinterpret = dyn_cast<memref::ReinterpretCastOp>(def)) {
      for (auto [i, stride] : llvm::enumerate(reinterpret.getMixedStrides()))
        made.strides[i] = knownMultipleOf(stride, depth - 1);
      made.offset = knownMultipleOf(reinterpret.getMixedOffsets().front(), depth - 1);
    }
  }
  // The type's static strides and offset are exact.
  for (int64_t i = 0; i < rank; ++i)
    known.strides[i] = ShapedType::isDynamic(strides[i])
                           ? made.strides[i]
                           : (strides[i] < 0 ? -strides[i] : strides[i]);
  known.offset = ShapedType::isDynamic(offset) ? made.offset : offset;
  return known;
}

} // namespace

KnownLayout knownLayout(Value memref) { return knownLayout(memref, /*depth=*/16); }

bool vectorAligned(Value memref, int64_t width) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() || strides.back() != 1)
    return false;
  KnownLayout known = knownLayout(memref);
  for (auto [size, stride] :
       llvm::zip(type.getShape().drop_back(), ArrayRef<int64_t>(known.strides).drop_back()))
    if (size != 1 && stride % width != 0)
      return false;
  return known.offset % width == 0;
}

std::optional<int64_t> elementwiseVectorWidth(scf::ParallelOp loop) {
  FailureOr<Analysis> analysis = analyze(loop);
  if (failed(analysis))
    return std::nullopt;
  return analysis->width;
}

FailureOr<scf::ParallelOp> vectorizeElementwise(scf::ParallelOp loop, int64_t width) {
  FailureOr<Analysis> analysis = analyze(loop);
  if (failed(analysis) || analysis->width != width)
    return loop.emitError() << "vector_width " << width
                            << " needs an elementwise loop whose accesses stream along "
                               "its last loop, W-aligned, over a multiple of W elements";
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  unsigned lastDim = loop.getNumLoops() - 1;
  SmallVector<Value> upper(loop.getUpperBound());
  int64_t count = *getConstantIntValue(upper[lastDim]);
  upper[lastDim] = arith::ConstantIndexOp::create(b, loc, count / width);
  auto vectorLoop = scf::ParallelOp::create(b, loc, loop.getLowerBound(), upper, loop.getStep());
  vectorLoop->setAttrs(loop->getAttrs());

  OpBuilder nb = OpBuilder::atBlockBegin(vectorLoop.getBody());
  IRMapping mapping;
  for (auto [from, to] : llvm::zip(loop.getInductionVars(), vectorLoop.getInductionVars()))
    mapping.map(from, to);
  // The first of the W elements, in place of the last induction variable.
  Value first = arith::MulIOp::create(nb, loc, vectorLoop.getInductionVars()[lastDim],
                                      arith::ConstantIndexOp::create(nb, loc, width));
  Value last = loop.getInductionVars()[lastDim];
  mapping.map(last, first);
  // Each iteration's own values of the LaneValue ops (the last induction
  // variable: first + i).
  SmallVector<IRMapping> laneMappings(width);
  for (int64_t i = 0; i < width; ++i)
    laneMappings[i].map(last, i == 0 ? first
                                     : Value(arith::AddIOp::create(
                                           nb, loc, first,
                                           arith::ConstantIndexOp::create(nb, loc, i))));
  auto inLane = [&](int64_t i, Value v) {
    return laneMappings[i].contains(v) ? laneMappings[i].lookup(v)
                                       : mapping.lookupOrDefault(v);
  };
  llvm::DenseSet<Value> vectors;
  auto vectorType = [&](Type element) { return VectorType::get({width}, element); };
  // A value as the vector operand of a vector op: broadcast when uniform,
  // the W values of a lane value as one vector.
  llvm::DenseMap<Value, Value> packed;
  auto asVector = [&](Value v) -> Value {
    Value mapped = mapping.lookupOrDefault(v);
    if (vectors.contains(v))
      return mapped;
    if (laneMappings[0].contains(v)) {
      Value &vector = packed[v];
      if (!vector) {
        SmallVector<Value> elements;
        for (int64_t i = 0; i < width; ++i)
          elements.push_back(laneMappings[i].lookup(v));
        vector = vector::FromElementsOp::create(nb, loc, vectorType(v.getType()), elements);
      }
      return vector;
    }
    return vector::BroadcastOp::create(nb, loc, vectorType(mapped.getType()), mapped);
  };
  auto indicesOf = [&](ValueRange indices) {
    SmallVector<Value> result;
    for (Value index : indices)
      result.push_back(mapping.lookupOrDefault(index));
    return result;
  };
  auto alignmentOf = [&](MemRefType type) {
    return uint64_t(width * (type.getElementTypeBitWidth() / 8));
  };
  for (Operation &op : loop.getBody()->without_terminator()) {
    switch (analysis->roles.lookup(&op)) {
    case Role::Uniform:
    case Role::UniformLoad:
    case Role::LaneIndex:
    case Role::LaneUniform:
      nb.clone(op, mapping);
      break;
    case Role::StreamLoad: {
      auto load = cast<memref::LoadOp>(op);
      MemRefType type = load.getMemRefType();
      auto vload = vector::LoadOp::create(nb, loc, vectorType(type.getElementType()),
                                          mapping.lookupOrDefault(load.getMemRef()),
                                          indicesOf(load.getIndices()), /*nontemporal=*/false,
                                          llvm::MaybeAlign(alignmentOf(type)));
      mapping.map(load.getResult(), vload.getResult());
      vectors.insert(load.getResult());
      break;
    }
    case Role::LaneValue:
      for (int64_t i = 0; i < width; ++i) {
        Operation *made = nb.clone(op, mapping);
        for (OpOperand &operand : made->getOpOperands())
          operand.set(inLane(i, op.getOperand(operand.getOperandNumber())));
        laneMappings[i].map(op.getResult(0), made->getResult(0));
      }
      break;
    case Role::GatherLoad: {
      auto load = cast<memref::LoadOp>(op);
      SmallVector<Value> elements;
      for (int64_t i = 0; i < width; ++i) {
        SmallVector<Value> indices;
        for (Value index : load.getIndices())
          indices.push_back(inLane(i, index));
        elements.push_back(memref::LoadOp::create(
            nb, loc, mapping.lookupOrDefault(load.getMemRef()), indices));
      }
      auto gathered = vector::FromElementsOp::create(
          nb, loc, vectorType(load.getMemRefType().getElementType()), elements);
      mapping.map(load.getResult(), gathered.getResult());
      vectors.insert(load.getResult());
      break;
    }
    case Role::StreamStore: {
      auto store = cast<memref::StoreOp>(op);
      MemRefType type = store.getMemRefType();
      vector::StoreOp::create(nb, loc, asVector(store.getValueToStore()),
                              mapping.lookupOrDefault(store.getMemRef()),
                              indicesOf(store.getIndices()), /*nontemporal=*/false,
                              llvm::MaybeAlign(alignmentOf(type)));
      break;
    }
    case Role::Vector: {
      OperationState state(op.getLoc(), op.getName());
      for (Value operand : op.getOperands())
        state.addOperands(asVector(operand));
      state.addTypes(vectorType(op.getResult(0).getType()));
      state.addAttributes(op.getAttrs());
      Operation *made = nb.create(state);
      mapping.map(op.getResult(0), made->getResult(0));
      vectors.insert(op.getResult(0));
      break;
    }
    }
  }
  loop.erase();
  return vectorLoop;
}

} // namespace magi
