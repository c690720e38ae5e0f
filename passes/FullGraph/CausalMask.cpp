//===- CausalMask.cpp - Attention masks proved causal ---------------------===//
//
// transformers builds a causal mask as a [B, 1, L, S] tensor from aranges
// (positions, their differences to find packed sequences, a comparison of
// key and query positions, `where(allowed, 0, -inf)`), and every attention
// of the model reads it: a T x T tensor written once and read by each layer
// (32 MB at T = 4096 in bf16, 2 GiB at 32k). `is_causal` says the same
// without a tensor, and the attention kernel then skips the masked tiles by
// their indices instead of classifying the mask's tiles.
//
// To prove a mask causal, each value it is computed from is described, where
// it can be, by a closed form of its element at index (d0, d1, ...):
//   - an integer tensor: a linear function of the indices (`arange(0, n)` is
//     d0; a slice shifts it, an add adds, a cat of pieces that continue one
//     another is one function);
//   - a boolean tensor: the indices where it is true, a conjunction of linear
//     constraints (`le(j, i)` holds where i - j >= 0; `not` of one
//     constraint is one too), or nowhere;
//   - a floating tensor: one constant where such a conjunction holds and
//     another elsewhere (`where(c, 0.0, -inf)`).
// A dimension of size 1 has only index 0, so no form depends on one. A value
// the rules below do not cover (a user input, a reduction, ...) has no form,
// and an attention over it keeps its mask: the rewrite happens only when the
// mask is, element for element, 0 (or true) where key <= query and -inf (or
// false) elsewhere.
//
//===----------------------------------------------------------------------===//

#include "CausalMask.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace magi;

namespace {

// sum(coeffs[k] * d_k) + constant, over the dimensions of one tensor.
struct Linear {
  SmallVector<int64_t> coeffs;
  int64_t constant = 0;

  static Linear constantOf(unsigned rank, int64_t c) {
    Linear l;
    l.coeffs.assign(rank, 0);
    l.constant = c;
    return l;
  }
  static Linear dim(unsigned rank, unsigned d, int64_t scale = 1, int64_t offset = 0) {
    Linear l = constantOf(rank, offset);
    l.coeffs[d] = scale;
    return l;
  }
  bool isConstant() const {
    return llvm::all_of(coeffs, [](int64_t c) { return c == 0; });
  }
  bool operator==(const Linear &other) const {
    return coeffs == other.coeffs && constant == other.constant;
  }
};

// a + scale * b, or nothing on overflow.
std::optional<Linear> combine(const Linear &a, const Linear &b, int64_t scale) {
  if (a.coeffs.size() != b.coeffs.size())
    return std::nullopt;
  Linear out = a;
  auto addScaled = [&](int64_t &into, int64_t x) {
    int64_t product;
    return !llvm::MulOverflow(x, scale, product) && !llvm::AddOverflow(into, product, into);
  };
  for (auto [o, c] : llvm::zip(out.coeffs, b.coeffs))
    if (!addScaled(o, c))
      return std::nullopt;
  if (!addScaled(out.constant, b.constant))
    return std::nullopt;
  return out;
}

// `f` of an operand whose dimension k is `dims[k]` of the result's indices.
std::optional<Linear> compose(const Linear &f, ArrayRef<Linear> dims, unsigned rank) {
  if (f.coeffs.size() != dims.size())
    return std::nullopt;
  std::optional<Linear> out = Linear::constantOf(rank, f.constant);
  for (auto [c, d] : llvm::zip(f.coeffs, dims))
    if (c != 0 && !(out = combine(*out, d, c)))
      return std::nullopt;
  return out;
}

// expr >= 0, or expr == 0.
struct Constraint {
  Linear expr;
  bool isEquality = false;
  bool operator==(const Constraint &other) const {
    return expr == other.expr && isEquality == other.isEquality;
  }
};

struct ElementForm {
  enum class Kind { Integer, Boolean, Floating } kind;
  Linear value;                 // Integer
  SmallVector<Constraint> holds; // Boolean and Floating: where true / onTrue
  bool nowhere = false;         // Boolean and Floating: the conjunction is empty
  double onTrue = 0, onFalse = 0; // Floating

  static ElementForm integer(Linear value) {
    ElementForm f{Kind::Integer};
    f.value = std::move(value);
    return f;
  }
  static ElementForm always(Kind kind, bool truth) {
    ElementForm f{kind};
    f.nowhere = !truth;
    return f;
  }
  static ElementForm floating(double value) {
    ElementForm f{Kind::Floating};
    f.onTrue = f.onFalse = value;
    return f;
  }

  // The value every element has, when it does not depend on the indices.
  std::optional<double> constant() const {
    switch (kind) {
    case Kind::Integer:
      if (value.isConstant())
        return static_cast<double>(value.constant);
      return std::nullopt;
    case Kind::Boolean:
      if (nowhere || holds.empty())
        return nowhere ? 0.0 : 1.0;
      return std::nullopt;
    case Kind::Floating:
      if (nowhere)
        return onFalse;
      if (holds.empty() || onTrue == onFalse)
        return onTrue;
      return std::nullopt;
    }
    return std::nullopt;
  }
};

std::optional<ElementForm::Kind> kindOf(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (element.isInteger(1))
    return ElementForm::Kind::Boolean;
  if (isa<IntegerType, IndexType>(element))
    return ElementForm::Kind::Integer;
  if (isa<FloatType>(element))
    return ElementForm::Kind::Floating;
  return std::nullopt;
}

// A constant of `kind`, when `value` is representable as one.
std::optional<ElementForm> constantForm(ElementForm::Kind kind, double value, unsigned rank) {
  switch (kind) {
  case ElementForm::Kind::Integer:
    if (value != std::trunc(value) || std::abs(value) > 9.0e15)
      return std::nullopt;
    return ElementForm::integer(Linear::constantOf(rank, static_cast<int64_t>(value)));
  case ElementForm::Kind::Boolean:
    return ElementForm::always(kind, value != 0);
  case ElementForm::Kind::Floating:
    return ElementForm::floating(value);
  }
  return std::nullopt;
}

// Drops constraints that always hold, divides each by the gcd of its
// coefficients, removes repeats; a constraint that never holds makes the
// conjunction empty.
void clean(ElementForm &f) {
  if (f.kind == ElementForm::Kind::Integer)
    return;
  SmallVector<Constraint> kept;
  for (Constraint c : f.holds) {
    if (c.expr.isConstant()) {
      bool truth = c.isEquality ? c.expr.constant == 0 : c.expr.constant >= 0;
      if (!truth)
        f.nowhere = true;
      continue;
    }
    int64_t g = 0;
    for (int64_t coeff : c.expr.coeffs)
      g = std::gcd(g, coeff < 0 ? -coeff : coeff);
    if (c.isEquality && c.expr.constant % g != 0) {
      f.nowhere = true;
      continue;
    }
    for (int64_t &coeff : c.expr.coeffs)
      coeff /= g;
    // floor division: sum >= -constant holds for integers exactly when
    // sum / g >= ceil(-constant / g).
    c.expr.constant = c.isEquality ? c.expr.constant / g
                                   : llvm::divideFloorSigned(c.expr.constant, g);
    if (!llvm::is_contained(kept, c))
      kept.push_back(c);
  }
  f.holds = f.nowhere ? SmallVector<Constraint>() : kept;
}

// `f` of an operand read at result index (d0, d1, ...) at its index
// (dims[0], dims[1], ...).
std::optional<ElementForm> remap(const ElementForm &f, ArrayRef<Linear> dims, unsigned rank) {
  ElementForm out = f;
  if (f.kind == ElementForm::Kind::Integer) {
    std::optional<Linear> value = compose(f.value, dims, rank);
    if (!value)
      return std::nullopt;
    out.value = *value;
    return out;
  }
  for (Constraint &c : out.holds) {
    std::optional<Linear> expr = compose(c.expr, dims, rank);
    if (!expr)
      return std::nullopt;
    c.expr = *expr;
  }
  clean(out);
  return out;
}

// The element forms of the values a mask is computed from, memoized.
class ElementForms {
public:
  std::optional<ElementForm> of(Value v) {
    auto it = memo.find(v);
    if (it != memo.end())
      return it->second;
    std::optional<ElementForm> form = compute(v);
    if (form)
      forgetUnitDims(*form, v.getType());
    memo[v] = form;
    return form;
  }

private:
  std::optional<ElementForm> compute(Value v);
  std::optional<ElementForm> operandAt(Value operand, RankedTensorType result);
  std::optional<ElementForm> binary(Operation *op, Value lhs, Value rhs, RankedTensorType result);
  std::optional<ElementForm> slice(SliceOp op);
  std::optional<ElementForm> cat(CatOp op);
  std::optional<AffineExpr> boundSize(Value v, int64_t dim);
  bool sameSize(Value a, int64_t da, Value b, int64_t db);

  // A dimension of size 1 has index 0 only.
  static void forgetUnitDims(ElementForm &f, Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return;
    auto forget = [&](Linear &l) {
      for (auto [d, size] : llvm::enumerate(tensor.getShape()))
        if (size == 1 && d < l.coeffs.size())
          l.coeffs[d] = 0;
    };
    forget(f.value);
    for (Constraint &c : f.holds)
      forget(c.expr);
    clean(f);
  }

  DenseMap<Value, std::optional<ElementForm>> memo;
  DenseMap<Value, unsigned> symbolIds;
};

// The result's dimension each of the operand's dimensions is read at under
// broadcasting (a size-1 dimension at 0).
SmallVector<Linear> broadcastDims(RankedTensorType operand, RankedTensorType result) {
  unsigned rank = result.getRank();
  unsigned lead = rank - operand.getRank();
  SmallVector<Linear> dims;
  for (auto [k, size] : llvm::enumerate(operand.getShape()))
    dims.push_back(size == 1 ? Linear::constantOf(rank, 0) : Linear::dim(rank, k + lead));
  return dims;
}

// magi::normalizeDim without a diagnostic: -1 when out of range.
int64_t dimIn(int64_t dim, int64_t rank) {
  FailureOr<int64_t> d = magi::normalizeDim(dim, rank, std::nullopt);
  return succeeded(d) ? *d : -1;
}

std::optional<ElementForm> ElementForms::operandAt(Value operand, RankedTensorType result) {
  unsigned rank = result.getRank();
  auto tensor = dyn_cast<RankedTensorType>(operand.getType());
  if (!tensor) {
    // A scalar: an integer stays one, a float is a floating constant.
    std::optional<double> c = getConstantScalar(operand);
    std::optional<ElementForm::Kind> kind = kindOf(operand.getType());
    if (!c || !kind)
      return std::nullopt;
    return constantForm(*kind == ElementForm::Kind::Boolean ? ElementForm::Kind::Integer : *kind,
                        *c, rank);
  }
  if (tensor.getRank() > result.getRank())
    return std::nullopt;
  std::optional<ElementForm> form = of(operand);
  if (!form)
    return std::nullopt;
  return remap(*form, broadcastDims(tensor, result), rank);
}

std::optional<ElementForm> ElementForms::binary(Operation *op, Value lhs, Value rhs,
                                                RankedTensorType result) {
  std::optional<ElementForm> a = operandAt(lhs, result), b = operandAt(rhs, result);
  if (!a || !b)
    return std::nullopt;
  unsigned rank = result.getRank();
  using Kind = ElementForm::Kind;
  bool integers = a->kind == Kind::Integer && b->kind == Kind::Integer;

  // Integer arithmetic.
  if (isa<AddOp, SubOp>(op) && integers && kindOf(result) == Kind::Integer) {
    int64_t alpha = 1;
    if (FloatAttr attr = op->getAttrOfType<FloatAttr>("alpha")) {
      double value = attr.getValueAsDouble();
      if (value != std::trunc(value) || std::abs(value) > 1e9)
        return std::nullopt;
      alpha = static_cast<int64_t>(value);
    }
    std::optional<Linear> sum = combine(a->value, b->value, isa<SubOp>(op) ? -alpha : alpha);
    if (!sum)
      return std::nullopt;
    return ElementForm::integer(*sum);
  }
  if (isa<MulOp>(op) && integers && kindOf(result) == Kind::Integer) {
    const ElementForm &scaled = a->value.isConstant() ? *b : *a;
    const ElementForm &factor = a->value.isConstant() ? *a : *b;
    if (!factor.value.isConstant())
      return std::nullopt;
    std::optional<Linear> product =
        combine(Linear::constantOf(rank, 0), scaled.value, factor.value.constant);
    if (!product)
      return std::nullopt;
    return ElementForm::integer(*product);
  }

  // Comparisons of integers: a conjunction of one constraint on a - b.
  if (isa<EqOp, NeOp, LeOp, LtOp, GeOp, GtOp>(op) && integers) {
    std::optional<Linear> diff = combine(a->value, b->value, -1);
    if (!diff)
      return std::nullopt;
    ElementForm f = ElementForm::always(Kind::Boolean, true);
    if (isa<NeOp>(op)) {
      // Not a conjunction, unless it does not depend on the indices.
      if (!diff->isConstant())
        return std::nullopt;
      f.nowhere = diff->constant == 0;
      return f;
    }
    // a >= b: a - b >= 0; a > b: a - b - 1 >= 0; a <= b: b - a >= 0; ...
    bool upper = isa<LeOp, LtOp>(op), strict = isa<LtOp, GtOp>(op);
    std::optional<Linear> expr =
        combine(Linear::constantOf(rank, strict ? -1 : 0), *diff, upper ? -1 : 1);
    if (!expr)
      return std::nullopt;
    f.holds.push_back({*expr, /*isEquality=*/isa<EqOp>(op)});
    clean(f);
    return f;
  }

  // Conjunctions.
  if (isa<BitwiseAndOp, LogicalAndOp>(op) && a->kind == Kind::Boolean &&
      b->kind == Kind::Boolean) {
    ElementForm f = *a;
    f.nowhere |= b->nowhere;
    llvm::append_range(f.holds, b->holds);
    clean(f);
    return f;
  }
  return std::nullopt;
}

// Elements start:end:step of `dim`; through a constant padding when the
// slice keeps none of the padded elements (transformers pads the mask's
// keys to a multiple of 8 and slices the padding off again).
std::optional<ElementForm> ElementForms::slice(SliceOp op) {
  auto result = cast<RankedTensorType>(op.getType());
  unsigned rank = result.getRank();
  int64_t dim = dimIn(op.getDim(), rank);
  ArrayRef<int64_t> bounds = op.getStaticBounds();
  if (dim < 0 || dim >= rank || bounds.size() != 3 || ShapedType::isDynamic(bounds[0]) ||
      ShapedType::isDynamic(bounds[2]) || bounds[0] < 0 || bounds[2] < 1)
    return std::nullopt;
  int64_t start = bounds[0], step = bounds[2];
  Value source = op.getSelf();
  int64_t shift = start;
  if (auto pad = source.getDefiningOp<ConstantPadNdOp>()) {
    // pad lists (before, after) pairs from the last dimension.
    ArrayRef<int64_t> amounts = pad.getStaticPad();
    int64_t before = 0;
    for (auto [i, amount] : llvm::enumerate(amounts)) {
      int64_t padded = rank - 1 - static_cast<int64_t>(i / 2);
      if (padded == dim) {
        if (i % 2 == 0) {
          if (ShapedType::isDynamic(amount) || amount < 0)
            return std::nullopt;
          before = amount;
        }
      } else if (amount != 0) {
        return std::nullopt;
      }
    }
    Value inner = pad.getSelf();
    auto innerType = cast<RankedTensorType>(inner.getType());
    // The slice keeps inner elements [start - before, start - before + n).
    if (step != 1 || start < before)
      return std::nullopt;
    bool inside;
    if (!result.isDynamicDim(dim) && !innerType.isDynamicDim(dim))
      inside = start - before + result.getDimSize(dim) <= innerType.getDimSize(dim);
    else
      inside = start == before && sameSize(op.getResult(), dim, inner, dim);
    if (!inside)
      return std::nullopt;
    source = inner;
    shift = start - before;
  }
  std::optional<ElementForm> form = of(source);
  if (!form)
    return std::nullopt;
  SmallVector<Linear> dims;
  for (unsigned k = 0; k < rank; ++k)
    dims.push_back(k == dim ? Linear::dim(rank, k, step, shift) : Linear::dim(rank, k));
  return remap(*form, dims, rank);
}

// Pieces along `dim` that continue one another: one linear function, the
// last piece's, checked on every other piece (a piece of size 1 at its one
// index). Constants equal on every piece are that constant.
std::optional<ElementForm> ElementForms::cat(CatOp op) {
  auto result = cast<RankedTensorType>(op.getType());
  unsigned rank = result.getRank();
  int64_t dim = dimIn(op.getDim(), rank);
  if (dim < 0 || dim >= rank || op.getTensors().empty())
    return std::nullopt;
  SmallVector<ElementForm> pieces;
  SmallVector<int64_t> offsets;
  SmallVector<int64_t> sizes;
  int64_t offset = 0;
  for (auto [k, piece] : llvm::enumerate(op.getTensors())) {
    auto type = cast<RankedTensorType>(piece.getType());
    std::optional<ElementForm> form = of(piece);
    if (!form || type.getRank() != rank)
      return std::nullopt;
    pieces.push_back(*form);
    offsets.push_back(offset);
    sizes.push_back(type.getDimSize(dim));
    if (type.isDynamicDim(dim)) {
      if (k + 1 != op.getTensors().size())
        return std::nullopt; // the pieces after it start where nobody knows
    } else {
      offset += type.getDimSize(dim);
    }
  }
  std::optional<double> first = pieces.front().constant();
  if (first && llvm::all_of(pieces, [&](const ElementForm &f) {
        return f.kind == pieces.front().kind && f.constant() == first;
      }))
    return pieces.front();
  if (!llvm::all_of(pieces, [](const ElementForm &f) {
        return f.kind == ElementForm::Kind::Integer;
      }))
    return std::nullopt;
  // The last piece's function, over the result's index.
  Linear whole = pieces.back().value;
  std::optional<Linear> shifted =
      combine(whole, Linear::constantOf(rank, offsets.back()), -whole.coeffs[dim]);
  if (!shifted)
    return std::nullopt;
  whole = *shifted;
  for (size_t k = 0; k + 1 < pieces.size(); ++k) {
    const Linear &own = pieces[k].value;
    if (sizes[k] == 1) {
      // At its one index: whole with d_dim = offset.
      Linear at = whole;
      at.coeffs[dim] = 0;
      int64_t term;
      if (llvm::MulOverflow(whole.coeffs[dim], offsets[k], term) ||
          llvm::AddOverflow(at.constant, term, at.constant) || !(at == own))
        return std::nullopt;
      continue;
    }
    std::optional<Linear> ownShifted =
        combine(own, Linear::constantOf(rank, offsets[k]), -own.coeffs[dim]);
    if (!ownShifted || !(*ownShifted == whole))
      return std::nullopt;
  }
  return ElementForm::integer(whole);
}

// A dimension's size as an expression of the graph's symbols (from its
// shape binding), or its static size.
std::optional<AffineExpr> ElementForms::boundSize(Value v, int64_t dim) {
  auto type = cast<RankedTensorType>(v.getType());
  MLIRContext *ctx = v.getContext();
  if (!type.isDynamicDim(dim))
    return getAffineConstantExpr(type.getDimSize(dim), ctx);
  for (Operation *user : v.getUsers()) {
    auto bind = dyn_cast<BindSymbolicShapeOp>(user);
    if (!bind || bind.getOperand() != v)
      continue;
    SmallVector<AffineExpr> symbols;
    for (Value s : bind.getShapeSymbols()) {
      auto [it, inserted] = symbolIds.try_emplace(s, symbolIds.size());
      symbols.push_back(getAffineSymbolExpr(it->second, ctx));
    }
    AffineExpr size = bind.getShapeExpressions().getResult(dim).replaceSymbols(symbols);
    return simplifyAffineExpr(size, 0, symbolIds.size());
  }
  return std::nullopt;
}

bool ElementForms::sameSize(Value a, int64_t da, Value b, int64_t db) {
  std::optional<AffineExpr> x = boundSize(a, da), y = boundSize(b, db);
  return x && y && *x == *y;
}

std::optional<ElementForm> ElementForms::compute(Value v) {
  auto result = dyn_cast<RankedTensorType>(v.getType());
  Operation *op = v.getDefiningOp();
  std::optional<ElementForm::Kind> kind = kindOf(v.getType());
  if (!result || !op || !kind || op->getNumResults() != 1)
    return std::nullopt;
  unsigned rank = result.getRank();
  using Kind = ElementForm::Kind;

  // Values made from constants.
  if (auto arange = dyn_cast<ArangeOp>(op)) {
    std::optional<double> start = getConstantScalar(arange.getStart());
    std::optional<double> step = getConstantScalar(arange.getStep());
    if (*kind != Kind::Integer || !start || !step || *start != std::trunc(*start) ||
        *step != std::trunc(*step) || std::abs(*start) > 9.0e15 || std::abs(*step) > 9.0e15)
      return std::nullopt;
    return ElementForm::integer(Linear::dim(rank, 0, static_cast<int64_t>(*step),
                                            static_cast<int64_t>(*start)));
  }
  if (auto full = dyn_cast<FullOp>(op)) {
    Attribute fill = full.getFillValue();
    if (auto f = dyn_cast<FloatAttr>(fill))
      return constantForm(*kind, f.getValueAsDouble(), rank);
    if (auto i = dyn_cast<IntegerAttr>(fill))
      return constantForm(*kind, static_cast<double>(i.getValue().getSExtValue()), rank);
    if (auto b = dyn_cast<BoolAttr>(fill))
      return constantForm(*kind, b.getValue() ? 1 : 0, rank);
    return std::nullopt;
  }
  if (auto scalar = dyn_cast<ScalarTensorOp>(op)) {
    std::optional<double> c = getConstantScalar(scalar.getValue());
    return c ? constantForm(*kind, *c, rank) : std::nullopt;
  }

  // Elementwise.
  if (isa<AddOp, SubOp, MulOp, EqOp, NeOp, LeOp, LtOp, GeOp, GtOp, BitwiseAndOp, LogicalAndOp>(
          op))
    return binary(op, op->getOperand(0), op->getOperand(1), result);
  if (isa<BitwiseNotOp, LogicalNotOp>(op)) {
    // not(e >= 0) is -e - 1 >= 0; a conjunction of more has no such form.
    std::optional<ElementForm> self = operandAt(op->getOperand(0), result);
    if (!self || self->kind != Kind::Boolean || *kind != Kind::Boolean)
      return std::nullopt;
    if (std::optional<double> truth = self->constant())
      return ElementForm::always(Kind::Boolean, *truth == 0);
    if (self->holds.size() != 1 || self->holds.front().isEquality)
      return std::nullopt;
    std::optional<Linear> negated = combine(Linear::constantOf(rank, -1), self->holds.front().expr, -1);
    if (!negated)
      return std::nullopt;
    ElementForm f = ElementForm::always(Kind::Boolean, true);
    f.holds.push_back({*negated, false});
    clean(f);
    return f;
  }
  if (auto where = dyn_cast<WhereOp>(op)) {
    std::optional<ElementForm> cond = operandAt(where.getCondition(), result);
    std::optional<ElementForm> onTrue = operandAt(where.getSelf(), result);
    std::optional<ElementForm> onFalse = operandAt(where.getOther(), result);
    if (!cond || !onTrue || !onFalse || cond->kind != Kind::Boolean)
      return std::nullopt;
    std::optional<double> a = onTrue->constant(), b = onFalse->constant();
    if (!a || !b)
      return std::nullopt;
    if (std::optional<double> truth = cond->constant())
      return constantForm(*kind, *truth != 0 ? *a : *b, rank);
    if (*kind != Kind::Floating)
      return std::nullopt;
    ElementForm f = *cond;
    f.kind = Kind::Floating;
    f.onTrue = *a;
    f.onFalse = *b;
    return f;
  }
  if (isa<ToCopyOp, CloneOp>(op)) {
    std::optional<ElementForm> self = of(op->getOperand(0));
    if (!self)
      return std::nullopt;
    if (self->kind == *kind)
      return self;
    if (self->kind == Kind::Boolean && *kind == Kind::Floating) {
      ElementForm f = *self;
      f.kind = Kind::Floating;
      f.onTrue = 1;
      f.onFalse = 0;
      return f;
    }
    if (std::optional<double> c = self->constant())
      return constantForm(*kind, *c, rank);
    return std::nullopt;
  }
  if (auto cumsum = dyn_cast<CumsumOp>(op)) {
    // A running sum of a constant c along d is c * (d + 1).
    std::optional<ElementForm> self = of(cumsum.getSelf());
    int64_t dim = dimIn(cumsum.getDim(), rank);
    std::optional<double> c = self ? self->constant() : std::nullopt;
    if (!c || *kind != Kind::Integer || dim < 0 || dim >= rank || *c != std::trunc(*c) ||
        std::abs(*c) > 1e9)
      return std::nullopt;
    auto step = static_cast<int64_t>(*c);
    return ElementForm::integer(Linear::dim(rank, dim, step, step));
  }
  if (auto index = dyn_cast<IndexOp>(op)) {
    // Gathering from a tensor whose elements are all the same.
    std::optional<ElementForm> self = of(index.getSelf());
    std::optional<double> c = self ? self->constant() : std::nullopt;
    return c ? constantForm(*kind, *c, rank) : std::nullopt;
  }

  // Views and copies that move elements.
  auto operandType = op->getNumOperands() ? dyn_cast<RankedTensorType>(op->getOperand(0).getType())
                                          : RankedTensorType();
  if (!operandType)
    return std::nullopt;
  unsigned operandRank = operandType.getRank();
  SmallVector<Linear> dims;
  if (auto unsqueeze = dyn_cast<UnsqueezeOp>(op)) {
    int64_t inserted = dimIn(unsqueeze.getDim(), rank);
    if (inserted < 0)
      return std::nullopt;
    for (unsigned k = 0; k < operandRank; ++k)
      dims.push_back(Linear::dim(rank, k < inserted ? k : k + 1));
  } else if (isa<ExpandOp>(op)) {
    if (operandRank > rank)
      return std::nullopt;
    dims = broadcastDims(operandType, result);
  } else if (auto permute = dyn_cast<PermuteOp>(op)) {
    ArrayRef<int64_t> perm = permute.getDims();
    if (perm.size() != rank || operandRank != rank)
      return std::nullopt;
    dims.assign(rank, Linear::constantOf(rank, 0));
    for (auto [i, p] : llvm::enumerate(perm)) {
      int64_t from = dimIn(p, rank);
      if (from < 0 || from >= rank)
        return std::nullopt;
      dims[from] = Linear::dim(rank, i);
    }
  } else if (isa<ViewOp>(op)) {
    // Only a view that adds or drops dimensions of size 1.
    auto nonUnit = [](RankedTensorType t) {
      SmallVector<int64_t> kept;
      for (auto [d, size] : llvm::enumerate(t.getShape()))
        if (size != 1)
          kept.push_back(d);
      return kept;
    };
    SmallVector<int64_t> from = nonUnit(operandType), to = nonUnit(result);
    if (from.size() != to.size())
      return std::nullopt;
    dims.assign(operandRank, Linear::constantOf(rank, 0));
    for (auto [f, t] : llvm::zip(from, to)) {
      if (!sameSize(op->getOperand(0), f, v, t))
        return std::nullopt;
      dims[f] = Linear::dim(rank, t);
    }
  } else if (auto s = dyn_cast<SliceOp>(op)) {
    return slice(s);
  } else if (auto c = dyn_cast<CatOp>(op)) {
    return cat(c);
  } else {
    return std::nullopt;
  }
  std::optional<ElementForm> self = of(op->getOperand(0));
  if (!self)
    return std::nullopt;
  return remap(*self, dims, rank);
}

// 0 (or true) where key <= query, -inf or the dtype's lowest (or false)
// elsewhere, over the mask's last two dimensions [..., L, S].
bool isCausal(const ElementForm &form, RankedTensorType mask) {
  unsigned rank = mask.getRank();
  if (rank < 2 || form.nowhere || form.holds.size() != 1)
    return false;
  Linear keyAtMostQuery = Linear::dim(rank, rank - 2);
  keyAtMostQuery.coeffs[rank - 1] = -1;
  if (!(form.holds.front() == Constraint{keyAtMostQuery, false}))
    return false;
  if (form.kind == ElementForm::Kind::Boolean)
    return true;
  if (form.kind != ElementForm::Kind::Floating || form.onTrue != 0.0)
    return false;
  auto element = dyn_cast<FloatType>(mask.getElementType());
  if (!element)
    return false;
  double lowest = -APFloat::getLargest(element.getFloatSemantics()).convertToDouble();
  return form.onFalse == -std::numeric_limits<double>::infinity() || form.onFalse <= lowest;
}

struct CausalMask : OpRewritePattern<AttentionOp> {
  CausalMask(MLIRContext *ctx) : OpRewritePattern(ctx) {}
  LogicalResult matchAndRewrite(AttentionOp root, PatternRewriter &rewriter) const override {
    Value mask = root.getMask();
    if (!mask)
      return rewriter.notifyMatchFailure(root, "no mask");
    auto maskType = dyn_cast<RankedTensorType>(mask.getType());
    ElementForms forms;
    std::optional<ElementForm> form = forms.of(mask);
    if (!maskType || !form)
      return rewriter.notifyMatchFailure(root, "the mask's elements have no closed form");
    if (!isCausal(*form, maskType))
      return rewriter.notifyMatchFailure(root, "the mask is not 'key <= query'");
    SmallVector<NamedAttribute> attrs;
    for (NamedAttribute attr : root->getAttrs())
      if (attr.getName() != root.getIsCausalAttrName())
        attrs.push_back(attr);
    attrs.push_back(rewriter.getNamedAttr(root.getIsCausalAttrName(), rewriter.getBoolAttr(true)));
    auto causal = AttentionOp::create(rewriter, root.getLoc(), TypeRange{root.getType()},
                                      ValueRange{root.getQuery(), root.getKey(), root.getValue()},
                                      attrs);
    rewriter.replaceOp(root, causal.getResult());
    return success();
  }
};

} // namespace

void magi::populateCausalMaskPatterns(RewritePatternSet &patterns) {
  patterns.add<CausalMask>(patterns.getContext());
}
