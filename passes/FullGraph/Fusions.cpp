//===- Fusions.cpp - Form the fused magi ops from captured patterns -------===//
//
// Each pass matches one pattern as torch.export captures it (HF LLaMA's
// RMSNorm, SwiGLU, rotate-half RoPE; GPT-2's gelu_new; SDPA with repeat_kv)
// from its root op upward, checks that the fused op has exactly the root's
// type, and replaces the root. Ops left dead are removed by canonicalization.
//
//===----------------------------------------------------------------------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include <cmath>
#include <limits>

namespace magi {
#define GEN_PASS_DEF_FUSERMSNORM
#define GEN_PASS_DEF_FUSESILUANDMUL
#define GEN_PASS_DEF_FUSEGELU
#define GEN_PASS_DEF_FUSEROTARYEMBEDDING
#define GEN_PASS_DEF_FUSESOFTMAX
#define GEN_PASS_DEF_FUSELAYERNORM
#define GEN_PASS_DEF_FUSEATTENTION
#include "magi/Transforms/Passes.h.inc"
} // namespace magi

using namespace mlir;
using namespace magi;

namespace {

//===----------------------------------------------------------------------===//
// Matching helpers
//===----------------------------------------------------------------------===//

std::optional<double> constantScalar(Value v) { return getConstantScalar(v); }

bool isScalar(Value v, double expected, double relTol = 1e-6) {
  std::optional<double> c = constantScalar(v);
  if (!c)
    return false;
  if (!std::isfinite(expected))
    return *c == expected;
  return std::abs(*c - expected) <= relTol * std::abs(expected);
}

template <typename OpT>
OpT def(Value v) {
  return v ? v.getDefiningOp<OpT>() : OpT();
}

// A binary op `op(a, c)` or `op(c, a)` with `c` a constant scalar ≈ expected:
// returns `a`.
bool noAlpha(Operation *op) { return !op->hasAttr("alpha"); }

template <typename OpT>
Value withScalar(Value v, double expected) {
  auto op = def<OpT>(v);
  if (!op || !noAlpha(op))
    return {};
  if (isScalar(op.getOther(), expected))
    return op.getSelf();
  // Only a commutative op may have the constant on the left.
  if (!isa<DivOp, SubOp>(op.getOperation()) && isScalar(op.getSelf(), expected))
    return op.getOther();
  return {};
}

// The dimension `dims` names when it is exactly the last one of `rank`.
bool isLastDim(int64_t dim, int64_t rank) { return dim == -1 || dim == rank - 1; }

bool reducesLastDimKeep(DenseI64ArrayAttr dims, bool keepdim, int64_t rank) {
  return dims && dims.size() == 1 && isLastDim(dims[0], rank) && keepdim;
}

// True when every use of `v` other than by `except` is a shape binding.
bool onlyBoundExcept(Value v, Operation *except = nullptr) {
  return llvm::all_of(v.getUsers(), [&](Operation *u) {
    return u == except || isa<BindSymbolicShapeOp>(u);
  });
}

// Replaces `root` by `fused` when the fused op verifies (its inferred type
// agrees with the root's type it was given) and erases the root.
bool replaceIfSameType(Operation *root, Operation *fused) {
  auto infer = dyn_cast<InferTypeOpInterface>(fused);
  SmallVector<Type> inferred;
  if (root->getResultTypes() != fused->getResultTypes() || !infer ||
      failed(infer.inferReturnTypes(
          fused->getContext(), std::nullopt, fused->getOperands(),
          fused->getRawDictionaryAttrs(), fused->getPropertiesStorage(),
          fused->getRegions(), inferred)) ||
      !areRefinementsOf(fused->getResultTypes(), inferred)) {
    fused->erase();
    return false;
  }
  root->replaceAllUsesWith(fused->getResults());
  root->erase();
  return true;
}

//===----------------------------------------------------------------------===//
// RMSNorm
//===----------------------------------------------------------------------===//

struct RmsMatch {
  Value input, weight;
  double eps;
  Type computeDtype;
};

// core = x32 * rsqrt(mean(x32^2, -1, keepdim) + eps)
std::optional<RmsMatch> matchRmsCore(Value core) {
  auto mul = def<MulOp>(core);
  if (!mul)
    return std::nullopt;
  for (auto [x32, r] : {std::pair{mul.getSelf(), mul.getOther()},
                        std::pair{mul.getOther(), mul.getSelf()}}) {
    auto rsqrt = def<RsqrtOp>(r);
    auto add = rsqrt ? def<AddOp>(rsqrt.getSelf()) : AddOp();
    if (!add || !noAlpha(add))
      continue;
    std::optional<double> eps = constantScalar(add.getOther());
    auto mean = def<MeanOp>(add.getSelf());
    auto x32Type = dyn_cast<RankedTensorType>(x32.getType());
    if (!eps || !mean || !x32Type || mean.getDtypeAttr() ||
        !reducesLastDimKeep(mean.getDimsAttr(), mean.getKeepdim(),
                            x32Type.getRank()))
      continue;
    auto pow = def<PowOp>(mean.getSelf());
    if (!pow || pow.getSelf() != x32 || !isScalar(pow.getOther(), 2.0))
      continue;
    RmsMatch m{x32, Value(), *eps, x32Type.getElementType()};
    if (auto up = def<ToCopyOp>(x32))
      m.input = up.getSelf();
    return m;
  }
  return std::nullopt;
}

// The normalized value `y` (core, or core cast back by to_copy) of an RMSNorm
// whose result returns to its input's dtype.
std::optional<RmsMatch> matchNormalized(Value y) {
  Value core = y;
  Type outDtype;
  if (auto down = def<ToCopyOp>(y)) {
    core = down.getSelf();
    outDtype = down.getType().getElementType();
  }
  std::optional<RmsMatch> m = matchRmsCore(core);
  if (!m)
    return std::nullopt;
  Type inputDtype = cast<RankedTensorType>(m->input.getType()).getElementType();
  if ((outDtype ? outDtype : m->computeDtype) != inputDtype)
    return std::nullopt;
  return m;
}

struct FuseRmsNormPass : magi::impl::FuseRmsNormBase<FuseRmsNormPass> {
  // Replaces `root` by an rms_norm of `m` (with `weight` when given).
  bool fuse(OpBuilder &b, Operation *root, const RmsMatch &m, Value weight) {
    b.setInsertionPoint(root);
    TypeAttr compute =
        m.computeDtype.isF32() ? TypeAttr() : TypeAttr::get(m.computeDtype);
    auto fused = RmsNormOp::create(b, root->getLoc(),
                                   root->getResult(0).getType(), m.input,
                                   weight, b.getF64FloatAttr(m.eps), compute);
    if (!replaceIfSameType(root, fused))
      return false;
    ++numFused;
    return true;
  }

  void runOnOperation() override {
    OpBuilder b(&getContext());
    // With a 1-d weight: weight * normalized.
    SmallVector<MulOp> roots;
    getOperation().walk([&](MulOp op) { roots.push_back(op); });
    for (MulOp root : roots) {
      for (auto [weight, y] : {std::pair{root.getSelf(), root.getOther()},
                               std::pair{root.getOther(), root.getSelf()}}) {
        auto weightType = dyn_cast<RankedTensorType>(weight.getType());
        if (!weightType || weightType.getRank() != 1)
          continue;
        std::optional<RmsMatch> m = matchNormalized(y);
        if (m && fuse(b, root, *m, weight))
          break;
      }
    }
    // Without a weight: the normalized value itself.
    SmallVector<Operation *> plain;
    getOperation().walk([&](Operation *op) {
      if (isa<ToCopyOp, MulOp>(op) && !onlyBoundExcept(op->getResult(0)))
        plain.push_back(op);
    });
    for (Operation *root : plain)
      if (std::optional<RmsMatch> m = matchNormalized(root->getResult(0)))
        fuse(b, root, *m, Value());
  }
};

//===----------------------------------------------------------------------===//
// SiLU · mul
//===----------------------------------------------------------------------===//

// The gate g of silu(g): magi.silu(g), g * sigmoid(g), or that computed on
// to_copy(g) and cast back to g's dtype.
Value matchSiluGate(Value v) {
  if (auto silu = def<SiluOp>(v))
    return silu.getSelf();
  Value body = v;
  auto down = def<ToCopyOp>(v);
  if (down)
    body = down.getSelf();
  auto mul = def<MulOp>(body);
  if (!mul)
    return {};
  for (auto [x, s] : {std::pair{mul.getSelf(), mul.getOther()},
                      std::pair{mul.getOther(), mul.getSelf()}}) {
    auto sigmoid = def<SigmoidOp>(s);
    if (!sigmoid || sigmoid.getSelf() != x)
      continue;
    if (!down)
      return x;
    auto up = def<ToCopyOp>(x);
    if (up && up.getSelf().getType() == down.getType())
      return up.getSelf();
  }
  return {};
}

struct FuseSiluAndMulPass : magi::impl::FuseSiluAndMulBase<FuseSiluAndMulPass> {
  void runOnOperation() override {
    SmallVector<MulOp> roots;
    getOperation().walk([&](MulOp op) { roots.push_back(op); });
    OpBuilder b(&getContext());
    for (MulOp root : roots) {
      for (auto [s, up] : {std::pair{root.getSelf(), root.getOther()},
                           std::pair{root.getOther(), root.getSelf()}}) {
        Value gate = matchSiluGate(s);
        if (!gate || !isa<RankedTensorType>(up.getType()))
          continue;
        b.setInsertionPoint(root);
        auto fused = SiluAndMulOp::create(b, root.getLoc(), root.getType(), gate, up);
        if (replaceIfSameType(root, fused)) {
          ++numFused;
          break;
        }
      }
    }
  }
};

//===----------------------------------------------------------------------===//
// GELU
//===----------------------------------------------------------------------===//

// x + 0.044715 * x^3, returning x.
Value matchCubicTerm(Value v) {
  auto add = def<AddOp>(v);
  if (!add || !noAlpha(add))
    return {};
  for (auto [x, t] : {std::pair{add.getSelf(), add.getOther()},
                      std::pair{add.getOther(), add.getSelf()}}) {
    Value cube = withScalar<MulOp>(t, 0.044715);
    auto pow = def<PowOp>(cube);
    if (pow && pow.getSelf() == x && isScalar(pow.getOther(), 3.0))
      return x;
  }
  return {};
}

struct FuseGeluPass : magi::impl::FuseGeluBase<FuseGeluPass> {
  void runOnOperation() override {
    SmallVector<MulOp> roots;
    getOperation().walk([&](MulOp op) { roots.push_back(op); });
    OpBuilder b(&getContext());
    const double sqrt2OverPi = std::sqrt(2.0 / M_PI);
    for (MulOp root : roots) {
      for (auto [h, t] : {std::pair{root.getSelf(), root.getOther()},
                          std::pair{root.getOther(), root.getSelf()}}) {
        Value x = withScalar<MulOp>(h, 0.5);
        Value inner = x ? withScalar<AddOp>(t, 1.0) : Value();
        if (!inner)
          continue;
        StringRef approximate;
        if (auto tanh = def<TanhOp>(inner)) {
          if (matchCubicTerm(withScalar<MulOp>(tanh.getSelf(), sqrt2OverPi)) == x)
            approximate = "tanh";
        } else if (auto erf = def<ErfOp>(inner)) {
          if (withScalar<MulOp>(erf.getSelf(), M_SQRT1_2) == x ||
              withScalar<DivOp>(erf.getSelf(), M_SQRT2) == x)
            approximate = "none";
        }
        if (approximate.empty())
          continue;
        b.setInsertionPoint(root);
        auto fused = GeluOp::create(b, root.getLoc(), root.getType(), x,
                                    b.getStringAttr(approximate));
        if (replaceIfSameType(root, fused)) {
          ++numFused;
          break;
        }
      }
    }
  }
};

//===----------------------------------------------------------------------===//
// Rotary embedding
//===----------------------------------------------------------------------===//

// slice(x, last, [start, end, 1]) with constant bounds: returns x.
Value matchLastDimSlice(Value v, int64_t start, int64_t minEnd, int64_t maxEnd) {
  auto slice = def<SliceOp>(v);
  if (!slice)
    return {};
  ArrayRef<int64_t> b = slice.getStaticBounds();
  int64_t rank = slice.getSelf().getType().getRank();
  if (!isLastDim(static_cast<int64_t>(slice.getDim()), rank) || b.size() != 3 ||
      b[0] != start || b[2] != 1 || ShapedType::isDynamic(b[1]) ||
      b[1] < minEnd || b[1] > maxEnd)
    return {};
  return slice.getSelf();
}

// cat(-x[..., d/2:], x[..., :d/2], -1): returns x.
Value matchRotateHalf(Value v) {
  auto cat = def<CatOp>(v);
  if (!cat || cat.getTensors().size() != 2)
    return {};
  int64_t rank = cat.getType().getRank();
  int64_t d = cat.getType().getDimSize(rank - 1);
  if (!isLastDim(static_cast<int64_t>(cat.getDim()), rank) ||
      ShapedType::isDynamic(d) || d % 2 != 0)
    return {};
  auto neg = def<NegOp>(cat.getTensors()[0]);
  Value hiOf = neg ? matchLastDimSlice(neg.getSelf(), d / 2, d,
                                       std::numeric_limits<int64_t>::max())
                   : Value();
  Value loOf = matchLastDimSlice(cat.getTensors()[1], 0, d / 2, d / 2);
  if (!hiOf || hiOf != loOf)
    return {};
  return hiOf;
}

struct FuseRotaryEmbeddingPass
    : magi::impl::FuseRotaryEmbeddingBase<FuseRotaryEmbeddingPass> {
  void runOnOperation() override {
    SmallVector<AddOp> roots;
    getOperation().walk([&](AddOp op) {
      if (noAlpha(op))
        roots.push_back(op);
    });
    OpBuilder b(&getContext());
    auto otherOperand = [](MulOp mul, Value known) -> Value {
      if (mul.getSelf() == known)
        return mul.getOther();
      if (mul.getOther() == known)
        return mul.getSelf();
      return {};
    };
    for (AddOp root : roots) {
      for (auto [p, q] : {std::pair{root.getSelf(), root.getOther()},
                          std::pair{root.getOther(), root.getSelf()}}) {
        auto cosMul = def<MulOp>(p), sinMul = def<MulOp>(q);
        if (!cosMul || !sinMul)
          continue;
        Value x, sin;
        for (auto [r, s] : {std::pair{sinMul.getSelf(), sinMul.getOther()},
                            std::pair{sinMul.getOther(), sinMul.getSelf()}})
          if ((x = matchRotateHalf(r))) {
            sin = s;
            break;
          }
        Value cos = x ? otherOperand(cosMul, x) : Value();
        if (!cos || !isa<RankedTensorType>(cos.getType()) ||
            !isa<RankedTensorType>(sin.getType()))
          continue;
        b.setInsertionPoint(root);
        auto fused = RotaryEmbeddingOp::create(b, root.getLoc(), root.getType(),
                                               x, cos, sin);
        if (replaceIfSameType(root, fused)) {
          ++numFused;
          break;
        }
      }
    }
  }
};

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

struct FuseSoftmaxPass : magi::impl::FuseSoftmaxBase<FuseSoftmaxPass> {
  void runOnOperation() override {
    SmallVector<DivOp> roots;
    getOperation().walk([&](DivOp op) {
      if (!op.getRoundingMode())
        roots.push_back(op);
    });
    OpBuilder b(&getContext());
    for (DivOp root : roots) {
      auto exp = def<ExpOp>(root.getSelf());
      auto sum = def<SumOp>(root.getOther());
      auto sub = exp ? def<SubOp>(exp.getSelf()) : SubOp();
      if (!sum || !sub || sum.getSelf() != exp.getResult() || !noAlpha(sub))
        continue;
      auto amax = def<AmaxOp>(sub.getOther());
      Value x = sub.getSelf();
      auto xType = dyn_cast<RankedTensorType>(x.getType());
      if (!amax || amax.getSelf() != x || !xType || sum.getDtypeAttr())
        continue;
      DenseI64ArrayAttr d1 = amax.getDimsAttr(), d2 = sum.getDimsAttr();
      if (!d1 || !d2 || d1.size() != 1 || d2.size() != 1 || !amax.getKeepdim() ||
          !sum.getKeepdim())
        continue;
      auto norm = [&](int64_t d) { return d < 0 ? d + xType.getRank() : d; };
      if (norm(d1[0]) != norm(d2[0]))
        continue;
      b.setInsertionPoint(root);
      auto fused = SoftmaxOp::create(b, root.getLoc(), root.getType(), x,
                                     b.getI64IntegerAttr(norm(d1[0])),
                                     b.getBoolAttr(false));
      if (replaceIfSameType(root, fused))
        ++numFused;
    }
  }
};

//===----------------------------------------------------------------------===//
// Layer norm
//===----------------------------------------------------------------------===//

void eraseBindings(Value v) {
  for (Operation *user : llvm::make_early_inc_range(v.getUsers()))
    if (isa<BindSymbolicShapeOp>(user))
      user->erase();
}

struct FuseLayerNormPass : magi::impl::FuseLayerNormBase<FuseLayerNormPass> {
  void runOnOperation() override {
    SmallVector<NativeLayerNormOp> roots;
    getOperation().walk([&](NativeLayerNormOp op) { roots.push_back(op); });
    OpBuilder b(&getContext());
    for (NativeLayerNormOp root : roots) {
      if (!onlyBoundExcept(root.getMean()) || !onlyBoundExcept(root.getRstd()))
        continue;
      b.setInsertionPoint(root);
      auto fused = LayerNormOp::create(
          b, root.getLoc(), root.getResult().getType(), root.getInput(),
          root.getWeight(), root.getBias(), root.getNormalizedNdimAttr(),
          root.getEpsAttr());
      eraseBindings(root.getMean());
      eraseBindings(root.getRstd());
      root.getResult().replaceAllUsesWith(fused.getResult());
      root.erase();
      ++numFused;
    }
  }
};

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

// transformers' repeat_kv: view(expand(unsqueeze(kv, 2), [B, H, n, S, D]),
// [B, H*n, S, D]). Returns kv and n.
std::optional<std::pair<Value, int64_t>> matchRepeatKv(Value v) {
  auto view = def<ViewOp>(v);
  auto expand = view ? def<ExpandOp>(view.getSelf()) : ExpandOp();
  auto unsqueeze = expand ? def<UnsqueezeOp>(expand.getSelf()) : UnsqueezeOp();
  if (!unsqueeze || static_cast<int64_t>(unsqueeze.getDim()) != 2)
    return std::nullopt;
  Value kv = unsqueeze.getSelf();
  auto kvType = cast<RankedTensorType>(kv.getType());
  auto expanded = expand.getType();
  auto viewed = view.getType();
  if (kvType.getRank() != 4 || expanded.getRank() != 5 || viewed.getRank() != 4)
    return std::nullopt;
  int64_t heads = kvType.getDimSize(1), n = expanded.getDimSize(2);
  if (ShapedType::isDynamic(heads) || ShapedType::isDynamic(n) ||
      expanded.getDimSize(1) != heads || viewed.getDimSize(1) != heads * n)
    return std::nullopt;
  // Batch, sequence and head size pass through unchanged.
  auto same = [](int64_t a, int64_t b) {
    return a == b || ShapedType::isDynamic(a) || ShapedType::isDynamic(b);
  };
  for (auto [kvDim, expDim] : {std::pair{0, 0}, {2, 3}, {3, 4}})
    if (!same(kvType.getDimSize(kvDim), expanded.getDimSize(expDim)) ||
        !same(kvType.getDimSize(kvDim),
              viewed.getDimSize(kvDim == 0 ? 0 : kvDim)))
      return std::nullopt;
  return std::make_pair(kv, n);
}

// The batched operand of the math SDPA: view(expand?(x)) from [B, H, m, n]
// to [B*H, m, n]. Returns x.
Value matchBatched(Value v) {
  auto view = def<ViewOp>(v);
  if (!view)
    return {};
  Value x = view.getSelf();
  if (auto expand = def<ExpandOp>(x))
    x = expand.getSelf();
  auto type = dyn_cast<RankedTensorType>(x.getType());
  return type && type.getRank() == 4 ? x : Value();
}

// `x * s` with a constant scalar s, or x (s = 1).
std::pair<Value, double> matchScaled(Value v) {
  if (auto mul = def<MulOp>(v))
    for (auto [x, c] : {std::pair{mul.getSelf(), mul.getOther()},
                        std::pair{mul.getOther(), mul.getSelf()}})
      if (std::optional<double> s = constantScalar(c);
          s && isa<RankedTensorType>(x.getType()))
        return {x, *s};
  return {v, 1.0};
}

// PyTorch's _safe_softmax: softmax, with rows whose scores are all -inf set
// to 0. Returns the scores.
Value matchSafeSoftmax(Value v) {
  auto isLast = [](SoftmaxOp sm) {
    return isLastDim(static_cast<int64_t>(sm.getDim()), sm.getType().getRank());
  };
  if (auto sm = def<SoftmaxOp>(v))
    return isLast(sm) && !sm.getHalfToFloat() ? sm.getSelf() : Value();
  auto where = def<WhereOp>(v);
  auto sm = where ? def<SoftmaxOp>(where.getOther()) : SoftmaxOp();
  auto zeros = where ? def<FullLikeOp>(where.getSelf()) : FullLikeOp();
  if (!sm || !zeros || !isLast(sm) || sm.getHalfToFloat() ||
      zeros.getSelf() != sm.getResult())
    return {};
  if (auto f = dyn_cast<FloatAttr>(zeros.getFillValue());
      !f || f.getValueAsDouble() != 0.0)
    return {};
  Value scores = sm.getSelf();
  auto notAny = def<LogicalNotOp>(where.getCondition());
  auto any = notAny ? def<AnyOp>(notAny.getSelf()) : AnyOp();
  auto notEq = any ? def<LogicalNotOp>(any.getSelf()) : LogicalNotOp();
  auto eq = notEq ? def<EqOp>(notEq.getSelf()) : EqOp();
  if (!eq || eq.getSelf() != scores ||
      !isScalar(eq.getOther(), -std::numeric_limits<double>::infinity()) ||
      !reducesLastDimKeep(any.getDimsAttr(), any.getKeepdim(), 4))
    return {};
  return scores;
}

struct MathAttention {
  Value query, key, value, mask;
  double scale;
};

// PyTorch's math SDPA as captured: batched matmuls through views,
// q and k^T each scaled, an additive mask, (safe) softmax.
std::optional<MathAttention> matchMathAttention(ViewOp root) {
  auto pv = def<BmmOp>(root.getSelf());
  if (!pv || root.getType().getRank() != 4)
    return std::nullopt;
  Value probs = matchBatched(pv.getSelf()), value = matchBatched(pv.getMat2());
  Value scores = probs ? matchSafeSoftmax(probs) : Value();
  if (!scores || !value)
    return std::nullopt;
  MathAttention m{{}, {}, value, {}, 1.0};
  Value s0 = scores;
  if (auto add = def<AddOp>(scores); add && noAlpha(add)) {
    s0 = add.getSelf();
    m.mask = add.getOther();
    // An added mask is additive: only a floating-point one means the same
    // as attention's mask operand.
    auto maskType = dyn_cast<RankedTensorType>(m.mask.getType());
    if (!maskType ||
        getDtypeCategory(maskType.getElementType()) != DtypeCategory::Float)
      return std::nullopt;
  }
  auto sview = def<ViewOp>(s0);
  auto qk = sview ? def<BmmOp>(sview.getSelf()) : BmmOp();
  if (!qk || sview.getType().getRank() != 4)
    return std::nullopt;
  Value qs = matchBatched(qk.getSelf()), ks = matchBatched(qk.getMat2());
  if (!qs || !ks)
    return std::nullopt;
  auto [q, sq] = matchScaled(qs);
  auto [kt, sk] = matchScaled(ks);
  auto transpose = def<PermuteOp>(kt);
  if (!transpose || transpose.getDims() != ArrayRef<int64_t>{0, 1, 3, 2})
    return std::nullopt;
  m.query = q;
  m.key = transpose.getSelf();
  m.scale = sq * sk;
  return m;
}

struct FuseAttentionPass : magi::impl::FuseAttentionBase<FuseAttentionPass> {
  void runOnOperation() override {
    OpBuilder b(&getContext());
    // The SDPA kernels' ops.
    SmallVector<EfficientAttentionOp> roots;
    getOperation().walk([&](EfficientAttentionOp op) { roots.push_back(op); });
    for (EfficientAttentionOp root : roots) {
      if (!onlyBoundExcept(root.getLogSumexp()) ||
          !onlyBoundExcept(root.getPhiloxSeed()) ||
          !onlyBoundExcept(root.getPhiloxOffset()))
        continue;
      Value key = root.getKey(), value = root.getValue();
      auto k = matchRepeatKv(key), v = matchRepeatKv(value);
      if (k && v && k->second == v->second) {
        key = k->first;
        value = v->first;
      }
      b.setInsertionPoint(root);
      auto fused = AttentionOp::create(
          b, root.getLoc(), root.getResult().getType(), root.getQuery(), key,
          value, root.getAttnBias(), b.getBoolAttr(root.getIsCausal()),
          root.getScaleAttr(),
          b.getF64FloatAttr(root.getDropoutP().convertToDouble()));
      for (Value unused :
           {root.getLogSumexp(), root.getPhiloxSeed(), root.getPhiloxOffset()})
        eraseBindings(unused);
      root.getResult().replaceAllUsesWith(fused.getResult());
      root.erase();
      ++numFused;
    }
    // The math SDPA spelled out in primitive ops.
    SmallVector<ViewOp> views;
    getOperation().walk([&](ViewOp op) { views.push_back(op); });
    for (ViewOp root : views) {
      std::optional<MathAttention> m = matchMathAttention(root);
      if (!m)
        continue;
      b.setInsertionPoint(root);
      auto fused = AttentionOp::create(
          b, root.getLoc(), root.getType(), m->query, m->key, m->value, m->mask,
          b.getBoolAttr(false), b.getF64FloatAttr(m->scale),
          b.getF64FloatAttr(0.0));
      if (replaceIfSameType(root, fused))
        ++numFused;
    }
  }
};

} // namespace
