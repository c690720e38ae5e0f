//===- Fusions.cpp - Form the fused magi ops from captured patterns -------===//
//
// Each fusion is a rewrite pattern (or two) that matches one pattern as
// torch.export captures it (HF LLaMA's RMSNorm, SwiGLU, rotate-half RoPE;
// GPT-2's gelu_new; SDPA with repeat_kv) from its root op upward, checks
// that the fused op has exactly the root's type, and replaces the root; a
// root that does not match says why (notifyMatchFailure). magi-fuse runs the
// enabled fusions in a fixed order, each as one walk over the function (a
// fusion that forms an op another fusion starts from runs first). Ops left
// dead are removed by canonicalization and magi-dce.
//
//===----------------------------------------------------------------------===//

#include "CausalMask.h"
#include "magi/Dialect/Magi/IR/AttentionLayout.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include <cmath>
#include <limits>

namespace magi {
#define GEN_PASS_DEF_FUSE
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

// The fused op `fused` (built detached, not yet in the IR) replaces `root`
// when its type is the root's and the type it infers agrees; else it is
// destroyed and the root stays (a failure the pattern reports).
LogicalResult replaceIfSameType(PatternRewriter &rewriter, Operation *root,
                                Operation *fused) {
  if (root->getResultTypes() != fused->getResultTypes() || !declaredTypesHold(fused)) {
    fused->destroy();
    return rewriter.notifyMatchFailure(
        root, "the fused op's type would not be the root's");
  }
  rewriter.setInsertionPoint(root);
  rewriter.insert(fused);
  rewriter.replaceOp(root, fused->getResults());
  return success();
}

// A builder whose ops are created detached, for replaceIfSameType.
OpBuilder detachedBuilder(Operation *root) { return OpBuilder(root->getContext()); }

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

// An rms_norm of `m` (with `weight` when given) in place of `root`.
LogicalResult fuseRmsNorm(PatternRewriter &rewriter, Operation *root,
                          const RmsMatch &m, Value weight) {
  OpBuilder b = detachedBuilder(root);
  TypeAttr compute =
      m.computeDtype.isF32() ? TypeAttr() : TypeAttr::get(m.computeDtype);
  auto fused = RmsNormOp::create(b, root->getLoc(), root->getResult(0).getType(),
                                 m.input, weight, b.getF64FloatAttr(m.eps), compute);
  return replaceIfSameType(rewriter, root, fused);
}

// With a 1-d weight: weight * normalized.
struct WeightedRmsNorm : OpRewritePattern<MulOp> {
  WeightedRmsNorm(MLIRContext *ctx) : OpRewritePattern(ctx) {}
  LogicalResult matchAndRewrite(MulOp root, PatternRewriter &rewriter) const override {
    for (auto [weight, y] : {std::pair{root.getSelf(), root.getOther()},
                             std::pair{root.getOther(), root.getSelf()}}) {
      auto weightType = dyn_cast<RankedTensorType>(weight.getType());
      if (!weightType || weightType.getRank() != 1)
        continue;
      std::optional<RmsMatch> m = matchNormalized(y);
      if (m && succeeded(fuseRmsNorm(rewriter, root, *m, weight))) {
        return success();
      }
    }
    return rewriter.notifyMatchFailure(
        root, "not a 1-d weight times a normalized value (x * rsqrt(mean(x^2) + eps))");
  }
};

// Without a weight: the normalized value itself (the cast back, or the
// product), when something other than a binding uses it.
template <typename RootOp>
struct PlainRmsNorm : OpRewritePattern<RootOp> {
  PlainRmsNorm(MLIRContext *ctx) : OpRewritePattern<RootOp>(ctx) {}
  LogicalResult matchAndRewrite(RootOp root, PatternRewriter &rewriter) const override {
    if (onlyBoundExcept(root->getResult(0)))
      return rewriter.notifyMatchFailure(root, "only shape bindings use it");
    std::optional<RmsMatch> m = matchNormalized(root->getResult(0));
    if (!m)
      return rewriter.notifyMatchFailure(root, "not x * rsqrt(mean(x^2) + eps)");
    if (failed(fuseRmsNorm(rewriter, root, *m, Value())))
      return failure();
    return success();
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

struct SiluAndMul : OpRewritePattern<MulOp> {
  SiluAndMul(MLIRContext *ctx) : OpRewritePattern(ctx) {}
  LogicalResult matchAndRewrite(MulOp root, PatternRewriter &rewriter) const override {
    for (auto [s, up] : {std::pair{root.getSelf(), root.getOther()},
                         std::pair{root.getOther(), root.getSelf()}}) {
      Value gate = matchSiluGate(s);
      if (!gate || !isa<RankedTensorType>(up.getType()))
        continue;
      OpBuilder b = detachedBuilder(root);
      auto fused = SiluAndMulOp::create(b, root.getLoc(), root.getType(), gate, up);
      if (succeeded(replaceIfSameType(rewriter, root, fused))) {
        return success();
      }
    }
    return rewriter.notifyMatchFailure(root, "no operand is silu(gate)");
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

struct Gelu : OpRewritePattern<MulOp> {
  Gelu(MLIRContext *ctx) : OpRewritePattern(ctx) {}
  LogicalResult matchAndRewrite(MulOp root, PatternRewriter &rewriter) const override {
    const double sqrt2OverPi = std::sqrt(2.0 / M_PI);
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
      OpBuilder b = detachedBuilder(root);
      auto fused = GeluOp::create(b, root.getLoc(), root.getType(), x,
                                  b.getStringAttr(approximate));
      if (succeeded(replaceIfSameType(rewriter, root, fused))) {
        return success();
      }
    }
    return rewriter.notifyMatchFailure(
        root, "not 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) or its erf form");
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

struct RotaryEmbedding : OpRewritePattern<AddOp> {
  RotaryEmbedding(MLIRContext *ctx) : OpRewritePattern(ctx) {}
  LogicalResult matchAndRewrite(AddOp root, PatternRewriter &rewriter) const override {
    if (!noAlpha(root))
      return rewriter.notifyMatchFailure(root, "has an alpha");
    auto otherOperand = [](MulOp mul, Value known) -> Value {
      if (mul.getSelf() == known)
        return mul.getOther();
      if (mul.getOther() == known)
        return mul.getSelf();
      return {};
    };
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
      OpBuilder b = detachedBuilder(root);
      auto fused = RotaryEmbeddingOp::create(b, root.getLoc(), root.getType(), x, cos, sin);
      if (succeeded(replaceIfSameType(rewriter, root, fused))) {
        return success();
      }
    }
    return rewriter.notifyMatchFailure(root, "not x * cos + rotate_half(x) * sin");
  }
};

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

struct Softmax : OpRewritePattern<DivOp> {
  Softmax(MLIRContext *ctx) : OpRewritePattern(ctx) {}
  LogicalResult matchAndRewrite(DivOp root, PatternRewriter &rewriter) const override {
    if (root.getRoundingMode())
      return rewriter.notifyMatchFailure(root, "a rounding division");
    auto exp = def<ExpOp>(root.getSelf());
    auto sum = def<SumOp>(root.getOther());
    auto sub = exp ? def<SubOp>(exp.getSelf()) : SubOp();
    if (!sum || !sub || sum.getSelf() != exp.getResult() || !noAlpha(sub))
      return rewriter.notifyMatchFailure(root, "not exp(x - m) / sum(exp(x - m))");
    auto amax = def<AmaxOp>(sub.getOther());
    Value x = sub.getSelf();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!amax || amax.getSelf() != x || !xType || sum.getDtypeAttr())
      return rewriter.notifyMatchFailure(root, "m is not amax(x) (or the sum has a dtype)");
    DenseI64ArrayAttr d1 = amax.getDimsAttr(), d2 = sum.getDimsAttr();
    if (!d1 || !d2 || d1.size() != 1 || d2.size() != 1 || !amax.getKeepdim() ||
        !sum.getKeepdim())
      return rewriter.notifyMatchFailure(root, "not keepdim reductions over one dimension");
    auto norm = [&](int64_t d) { return d < 0 ? d + xType.getRank() : d; };
    if (norm(d1[0]) != norm(d2[0]))
      return rewriter.notifyMatchFailure(root, "amax and sum reduce different dimensions");
    OpBuilder b = detachedBuilder(root);
    auto fused = SoftmaxOp::create(b, root.getLoc(), root.getType(), x,
                                   b.getI64IntegerAttr(norm(d1[0])), b.getBoolAttr(false));
    if (failed(replaceIfSameType(rewriter, root, fused)))
      return failure();
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Layer norm
//===----------------------------------------------------------------------===//

void eraseBindings(PatternRewriter &rewriter, Value v) {
  for (Operation *user : llvm::make_early_inc_range(v.getUsers()))
    if (isa<BindSymbolicShapeOp>(user))
      rewriter.eraseOp(user);
}

struct LayerNorm : OpRewritePattern<NativeLayerNormOp> {
  LayerNorm(MLIRContext *ctx) : OpRewritePattern(ctx) {}
  LogicalResult matchAndRewrite(NativeLayerNormOp root,
                                PatternRewriter &rewriter) const override {
    if (!onlyBoundExcept(root.getMean()) || !onlyBoundExcept(root.getRstd()))
      return rewriter.notifyMatchFailure(root, "its mean or rstd is used");
    auto fused = LayerNormOp::create(
        rewriter, root.getLoc(), root.getResult().getType(), root.getInput(),
        root.getWeight(), root.getBias(), root.getNormalizedNdimAttr(),
        root.getEpsAttr());
    eraseBindings(rewriter, root.getMean());
    eraseBindings(rewriter, root.getRstd());
    rewriter.replaceAllUsesWith(root.getResult(), fused.getResult());
    rewriter.eraseOp(root);
    return success();
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

// The SDPA kernels' ops (memory-efficient and cuDNN): attention, when
// only their output is read. cuDNN's sequence lengths are the sizes they
// are.
template <typename KernelOp>
struct KernelAttention : OpRewritePattern<KernelOp> {
  KernelAttention(MLIRContext *ctx) : OpRewritePattern<KernelOp>(ctx) {}
  LogicalResult matchAndRewrite(KernelOp root,
                                PatternRewriter &rewriter) const override {
    if (!onlyBoundExcept(root.getLogSumexp()) ||
        !onlyBoundExcept(root.getPhiloxSeed()) ||
        !onlyBoundExcept(root.getPhiloxOffset()))
      return rewriter.notifyMatchFailure(root, "its log-sum-exp or RNG state is used");
    Value key = root.getKey(), value = root.getValue();
    auto k = matchRepeatKv(key), v = matchRepeatKv(value);
    if (k && v && k->second == v->second) {
      key = k->first;
      value = v->first;
    }
    auto fused = AttentionOp::create(
        rewriter, root.getLoc(), root.getResult().getType(), root.getQuery(), key,
        value, root.getAttnBias(), rewriter.getBoolAttr(root.getIsCausal()),
        root.getScaleAttr(), rewriter.getF64FloatAttr(root.getDropoutP().convertToDouble()),
        rewriter.getStringAttr("bhsd"));
    if constexpr (std::is_same_v<KernelOp, CudnnAttentionOp>) {
      for (auto [length, of] : {std::pair(root.getMaxQ(), root.getQuery()),
                                std::pair(root.getMaxK(), root.getKey())})
        if (!length.use_empty())
          rewriter.replaceAllUsesWith(
              length, SymSizeOp::create(rewriter, root.getLoc(), of, 2));
    }
    for (Value unused :
         {root.getLogSumexp(), root.getPhiloxSeed(), root.getPhiloxOffset()})
      eraseBindings(rewriter, unused);
    rewriter.replaceAllUsesWith(root.getResult(), fused.getResult());
    rewriter.eraseOp(root);
    return success();
  }
};

// The math SDPA spelled out in primitive ops, from its final view.
struct MathAttentionPattern : OpRewritePattern<ViewOp> {
  MathAttentionPattern(MLIRContext *ctx) : OpRewritePattern(ctx) {}
  LogicalResult matchAndRewrite(ViewOp root, PatternRewriter &rewriter) const override {
    std::optional<MathAttention> m = matchMathAttention(root);
    if (!m)
      return rewriter.notifyMatchFailure(
          root, "not view(bmm(softmax(q k^T * scale + mask), v)) of the math SDPA");
    OpBuilder b = detachedBuilder(root);
    auto fused = AttentionOp::create(b, root.getLoc(), root.getType(), m->query, m->key,
                                     m->value, m->mask, b.getBoolAttr(false),
                                     b.getF64FloatAttr(m->scale), b.getF64FloatAttr(0.0),
                                     b.getStringAttr("bhsd"));
    if (failed(replaceIfSameType(rewriter, root, fused)))
      return failure();
    return success();
  }
};

// attention-layout: an attention whose q, k and v are [B, S, H, D] tensors
// with dimensions 1 and 2 swapped (LLaMA's projections viewed as heads and
// transposed; q and k through a rotary embedding, which commutes with the
// swap once its cos and sin are swapped too) and whose result is swapped
// back: the attention in layout bshd on the unswapped tensors, so that the
// swaps, which are copies on the GPU, go.
// How q, k or v is a swapped [B, S, H, D] tensor: the tensor, and the rotary
// embedding on the swapped one, if any.
struct SwappedOperand {
  Value source;
  RotaryEmbeddingOp rotary;
};

// Whether `op` is left dead: free of effects, its results bound or read
// only by ops left dead (the repeat_kv views the attention fusion stopped
// using, which canonicalization removes after this pass).
bool leftDead(Operation *op, int depth = 0) {
  if (isa<BindSymbolicShapeOp>(op))
    return true;
  if (depth > 8 || op->hasTrait<OpTrait::IsTerminator>() || !isMemoryEffectFree(op))
    return false;
  return llvm::all_of(op->getUsers(), [&](Operation *u) { return leftDead(u, depth + 1); });
}

std::optional<SwappedOperand> matchSwapped(Value v, Operation *attention) {
  if (auto p = def<PermuteOp>(v); swapsHeadsAndSequence(p))
    return SwappedOperand{p.getSelf(), {}};
  auto rotary = def<RotaryEmbeddingOp>(v);
  // Only the attention reads the embedding: it is computed once, swapped.
  if (!rotary || !llvm::all_of(v.getUsers(), [&](Operation *u) {
        return u == attention || leftDead(u);
      }))
    return std::nullopt;
  auto p = def<PermuteOp>(rotary.getX());
  // cos and sin broadcast from the right: of rank 4 they are swapped with
  // x; of rank 1 or 0 (the head dimension alone) they need nothing; in
  // between they would broadcast against other dimensions once swapped.
  auto rankFits = [](Value t) {
    int64_t rank = cast<RankedTensorType>(t.getType()).getRank();
    return rank == 4 || rank <= 1;
  };
  if (!swapsHeadsAndSequence(p) || !rankFits(rotary.getCos()) || !rankFits(rotary.getSin()))
    return std::nullopt;
  return SwappedOperand{p.getSelf(), rotary};
}

// Binds `value`'s sizes as `like`'s are bound (the same symbols), its
// dimensions `like`'s in the order `dims` (all of them when empty): what
// magi-specialize and magi-split read to know a piece's sizes.
void bindLike(PatternRewriter &rewriter, Value value, Value like, ArrayRef<int64_t> dims = {}) {
  for (Operation *user : like.getUsers()) {
    auto bind = dyn_cast<BindSymbolicShapeOp>(user);
    if (!bind)
      continue;
    AffineMap map = bind.getShapeExpressions();
    if (!dims.empty()) {
      SmallVector<AffineExpr> results;
      for (int64_t d : dims)
        results.push_back(map.getResult(d));
      map = AffineMap::get(map.getNumDims(), map.getNumSymbols(), results, map.getContext());
    }
    BindSymbolicShapeOp::create(rewriter, bind.getLoc(), value, bind.getShapeSymbols(), map);
    return;
  }
}

struct AttentionLayout : OpRewritePattern<PermuteOp> {
  AttentionLayout(MLIRContext *ctx) : OpRewritePattern(ctx) {}
  LogicalResult matchAndRewrite(PermuteOp root, PatternRewriter &rewriter) const override {
    auto attention = def<AttentionOp>(root.getSelf());
    if (!swapsHeadsAndSequence(root) || !attention || attention.isSequenceMajor() ||
        !onlyBoundExcept(attention.getResult(), root))
      return rewriter.notifyMatchFailure(root, "not the swap of an attention's only use");
    std::optional<SwappedOperand> q = matchSwapped(attention.getQuery(), attention),
                                  k = matchSwapped(attention.getKey(), attention),
                                  v = matchSwapped(attention.getValue(), attention);
    if (!q || !k || !v)
      return rewriter.notifyMatchFailure(
          root, "q, k or v is not a swapped tensor (through at most a rotary embedding)");
    // Built detached, inserted only when the attention's type is the root's.
    OpBuilder b = detachedBuilder(root);
    Location loc = attention.getLoc();
    SmallVector<Operation *> made;
    auto swapped = [&](Value t) -> Value {
      if (cast<RankedTensorType>(t.getType()).getRank() != 4)
        return t;
      Value swap = swapHeadsAndSequence(b, loc, t);
      made.push_back(swap.getDefiningOp());
      return swap;
    };
    auto operand = [&](SwappedOperand form) -> Value {
      if (!form.rotary)
        return form.source;
      Value cos = swapped(form.rotary.getCos()), sin = swapped(form.rotary.getSin());
      made.push_back(RotaryEmbeddingOp::create(b, form.rotary.getLoc(), form.source, cos, sin));
      return made.back()->getResult(0);
    };
    SmallVector<Value> operands = {operand(*q), operand(*k), operand(*v)};
    if (Value mask = attention.getMask())
      operands.push_back(mask);
    SmallVector<NamedAttribute> attrs(attention->getAttrs());
    llvm::erase_if(attrs, [&](NamedAttribute a) {
      return a.getName() == attention.getLayoutAttrName();
    });
    attrs.push_back(b.getNamedAttr(attention.getLayoutAttrName(), b.getStringAttr("bshd")));
    auto fused = AttentionOp::create(b, loc, operands, attrs);
    if (fused.getType() != root.getType()) {
      fused->destroy();
      for (Operation *op : llvm::reverse(made))
        op->destroy();
      return rewriter.notifyMatchFailure(root, "the fused op's type would not be the root's");
    }
    rewriter.setInsertionPoint(attention);
    for (Operation *op : made) {
      rewriter.insert(op);
      // A swap binds as its input swapped, a rotary embedding as its x.
      if (auto swap = dyn_cast<PermuteOp>(op))
        bindLike(rewriter, swap.getResult(), swap.getSelf(), swap.getDims());
      else if (auto rotary = dyn_cast<RotaryEmbeddingOp>(op))
        bindLike(rewriter, rotary.getResult(), rotary.getX());
    }
    rewriter.insert(fused);
    // The root's bindings move to the fused op with its uses.
    rewriter.replaceOp(root, fused.getResult());
    return success();
  }
};

// The fusions in the order they run, each as its stages: one walk per
// stage (RMSNorm's weightless form is looked for once the weighted ones
// are formed, as the efficient SDPA op before the math one).
struct Fusion {
  StringRef name;
  std::function<void(RewritePatternSet &, unsigned stage)> stage;
  unsigned numStages;
};

const std::vector<Fusion> &fusions() {
  static const std::vector<Fusion> all = {
      {"layer-norm",
       [](RewritePatternSet &p, unsigned) { p.add<LayerNorm>(p.getContext()); }, 1},
      {"attention",
       [](RewritePatternSet &p, unsigned stage) {
         if (stage == 0)
           p.add<KernelAttention<EfficientAttentionOp>,
                 KernelAttention<CudnnAttentionOp>>(p.getContext());
         else
           p.add<MathAttentionPattern>(p.getContext());
       },
       2},
      {"rms-norm",
       [](RewritePatternSet &p, unsigned stage) {
         if (stage == 0)
           p.add<WeightedRmsNorm>(p.getContext());
         else
           p.add<PlainRmsNorm<ToCopyOp>, PlainRmsNorm<MulOp>>(p.getContext());
       },
       2},
      {"silu-and-mul",
       [](RewritePatternSet &p, unsigned) { p.add<SiluAndMul>(p.getContext()); }, 1},
      {"gelu", [](RewritePatternSet &p, unsigned) { p.add<Gelu>(p.getContext()); }, 1},
      {"rotary-embedding",
       [](RewritePatternSet &p, unsigned) {
         p.add<RotaryEmbedding>(p.getContext());
       },
       1},
      {"softmax",
       [](RewritePatternSet &p, unsigned) { p.add<Softmax>(p.getContext()); }, 1},
      {"attention-layout",
       [](RewritePatternSet &p, unsigned) { p.add<AttentionLayout>(p.getContext()); }, 1},
      {"causal-mask", [](RewritePatternSet &p, unsigned) { populateCausalMaskPatterns(p); }, 1},
  };
  return all;
}

struct FusePass : magi::impl::FuseBase<FusePass> {
  using FuseBase::FuseBase;

  LogicalResult initialize(MLIRContext *ctx) override {
    for (const std::string &name : llvm::concat<const std::string>(enable, disable))
      if (!llvm::is_contained(magi::fusionNames(), name))
        return emitError(UnknownLoc::get(ctx))
               << "magi-fuse: unknown fusion '" << name << "' (known: "
               << llvm::join(magi::fusionNames(), ", ") << ")";
    for (const Fusion &fusion : fusions()) {
      if ((!enable.empty() && !llvm::is_contained(enable, fusion.name.str())) ||
          llvm::is_contained(disable, fusion.name.str()))
        continue;
      for (unsigned stage = 0; stage < fusion.numStages; ++stage) {
        RewritePatternSet patterns(ctx);
        fusion.stage(patterns, stage);
        stages.emplace_back(std::move(patterns));
      }
    }
    return success();
  }

  void runOnOperation() override {
    // Every fusion inserts exactly one fused op (one that decomposes).
    struct Counter : RewriterBase::Listener {
      int64_t formed = 0;
      void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
        formed += isa<DecomposableOpInterface>(op);
      }
    } counter;
    for (const FrozenRewritePatternSet &patterns : stages)
      walkAndApplyPatterns(getOperation(), patterns, &counter);
    numFused += counter.formed;
  }

  std::vector<FrozenRewritePatternSet> stages;
};

} // namespace

namespace magi {
ArrayRef<StringRef> fusionNames() {
  static const std::vector<StringRef> names = [] {
    std::vector<StringRef> result;
    for (const Fusion &fusion : fusions())
      result.push_back(fusion.name);
    return result;
  }();
  return names;
}
} // namespace magi
