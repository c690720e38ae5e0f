//===- MagiOps.td - Ops of the magi dialect -----------------*- tablegen -*-===//
//
// One op per core-ATen op Magi knows, the symbolic-shape ops, the fused ops
// formed by the graph passes, and the opaque op for everything else.
//
//===----------------------------------------------------------------------===//

#ifndef MAGI_DIALECT_MAGI_IR_MAGIOPS_TD
#define MAGI_DIALECT_MAGI_IR_MAGIOPS_TD

include "magi/Dialect/Magi/IR/MagiDialect.td"
include "magi/Dialect/Magi/IR/MagiInterfaces.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.td"

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

// The PyTorch dtypes Magi represents.
def Magi_ElementType : AnyTypeOf<[F64, F32, F16, BF16, I64, I32, I16, I8, UI8,
                                  I1],
                                 "PyTorch dtype">;
def Magi_Tensor : RankedTensorOf<[Magi_ElementType]>;
def Magi_BoolTensor : RankedTensorOf<[I1]>;
def Magi_IndexTensor : RankedTensorOf<[I64, I32]>;

// A Python scalar passed to an op: float, int, bool, or a symbolic int.
def Magi_Scalar : AnyTypeOf<[F64, I64, I1, Index], "Python scalar">;
def Magi_TensorOrScalar : AnyTypeOf<[Magi_Tensor, Magi_Scalar],
                                    "tensor or Python scalar">;

// A dtype given as an attribute.
def Magi_DtypeAttr : TypeAttrOf<Magi_ElementType>;

// A Python scalar given as a constant argument: a float, int or bool attribute.
def Magi_ScalarAttr : AnyAttrOf<[F64Attr, I64Attr, BoolAttr]>;

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

class Magi_Op<string mnemonic, list<Trait> traits = []>
    : Op<Magi_Dialect, mnemonic, traits>;

// Result types follow from the operands and attributes. A declared result may
// be more precise than inference (a static size torch.export knew) or less
// (a `?` that folding has since made known), never contradict it: two
// different static sizes, another dtype or rank.
def Magi_RefinableInferredType : InferTypeOpAdaptorBase<[{
    static bool isCompatibleReturnTypes(::mlir::TypeRange inferred,
                                        ::mlir::TypeRange declared) {
      return ::magi::areCompatibleResults(declared, inferred);
    }
  }]>;

// A pure tensor op with inferred result types and the generic
// `operands : (types) -> types` syntax.
class Magi_TensorOp<string mnemonic, list<Trait> traits = []>
    : Magi_Op<mnemonic, !listconcat([Pure, Magi_RefinableInferredType], traits)> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Symbolic integers
//===----------------------------------------------------------------------===//

def Magi_SymbolicIntOp : Magi_Op<"symbolic_int",
    [Pure, DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "Declares a symbolic integer (a dynamic size) with its range";
  let description = [{
    Declares the symbol `name` (as `torch.export` names it, e.g. `s70`) with the
    inclusive range `[min_val, max_val]` from the export's range constraints. An
    absent `max_val` means unbounded. The result is the symbol's value.

    ```mlir
    %s0 = magi.symbolic_int "s0" min 2 max 4096
    ```
  }];
  let arguments = (ins StrAttr:$name, I64Attr:$min_val,
                       OptionalAttr<I64Attr>:$max_val);
  let results = (outs Index:$result);
  let assemblyFormat = "$name `min` $min_val (`max` $max_val^)? attr-dict";
  let hasVerifier = 1;
}

def Magi_BindSymbolicShapeOp : Magi_Op<"bind_symbolic_shape"> {
  let summary = "Ties the dimensions of a tensor to symbolic integers";
  let description = [{
    States that the sizes of `operand` are the results of the affine map
    `shape_expressions` applied to `shape_symbols`: the map has no dimensions,
    one symbol per operand in `shape_symbols` and one result per dimension of
    the tensor. A static dimension must be bound to the same constant; a
    dynamic one to an expression of the symbols.

    ```mlir
    magi.bind_symbolic_shape %x, [%s0], affine_map<()[s0] -> (1, s0 + 1)> : tensor<1x?xf32>
    ```
  }];
  let arguments = (ins Magi_Tensor:$operand, Variadic<Index>:$shape_symbols,
                       AffineMapAttr:$shape_expressions);
  let assemblyFormat = [{
    $operand `,` `[` $shape_symbols `]` `,` $shape_expressions attr-dict `:` type($operand)
  }];
  let hasVerifier = 1;
  // A binding is dropped with its tensor when nothing else uses the tensor.
  let hasCanonicalizeMethod = 1;
}

def Magi_ItemOp : Magi_Op<"item", [Magi_Torch<["aten::_local_scalar_dense", "aten::item"]>]> {
  let summary = "The one element of a tensor as a scalar (`tensor.item()`, aten._local_scalar_dense)";
  let description = [{
    An integer or bool tensor's element as an `index`, a floating-point
    one's as an `f64` (a Python float). The value lives on the device: a
    compiled graph reads it on the host, so `magi-split` makes each
    `magi.item` a splitting piece of its own, after which the run waits
    for the device (`docs/runtime.md`, "Values read on the host").

    `bound`, when given, is the largest value the element may have (`nonzero`'s
    count is at most the number of elements; an exported `.item()` carries
    the range `torch._check` gave it): the runtime plans memory for the
    sizes the value can give at that bound, and a larger value read is an
    error. `symbol` names the exported SymInt the value is (`u0`), so that
    shapes and runtime assertions over it can name it.

    `clamped` (set by `magi-split`, with a bound) marks a value that gives
    sizes only as the start or end of slices of dimensions no longer than
    `bound` (`tensor_split` at indices held in a tensor): there Python counts
    a negative value from the end and clamps it to `[0, size]`, so every
    size it gives is one it gives at some value in `[0, bound]`, and the
    sizes are largest with it at 0 or at `bound`. Memory is planned there as
    for any bound, and any integer may be read.

    ```mlir
    %n = magi.item %count bound %c12 {symbol = "u0"} : tensor<i64> -> index
    %i = magi.item %index bound %c5 {clamped, symbol = "u20"} : tensor<i64> -> index
    ```
  }];
  let arguments = (ins Magi_Tensor:$self, Optional<Index>:$bound,
                       OptionalAttr<StrAttr>:$symbol, UnitAttr:$clamped);
  let results = (outs AnyTypeOf<[Index, F64]>:$result);
  let assemblyFormat = [{
    $self (`bound` $bound^)? attr-dict `:` type($self) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Magi_SymSizeOp : Magi_Op<"sym_size", [Magi_Torch<["aten::sym_size.int", "aten::sym_numel"]>, Pure]> {
  let summary = "The size of one dimension of a tensor (aten.sym_size.int)";
  let arguments = (ins Magi_Tensor:$self, I64Attr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$self `,` $dim attr-dict `:` type($self)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

class Magi_SymBinaryOp<string mnemonic, string pyop, list<Trait> traits = []>
    : Magi_Op<mnemonic, !listconcat([Pure], traits)> {
  let summary = "Symbolic integer `" # pyop # "`";
  let arguments = (ins Index:$lhs, Index:$rhs);
  let results = (outs Index:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
  let hasFolder = 1;
}

def Magi_SymAddOp : Magi_SymBinaryOp<"sym_add", "a + b", [Magi_Torch<["_operator::add"]>, Commutative]>;
def Magi_SymSubOp : Magi_SymBinaryOp<"sym_sub", "a - b", [Magi_Torch<["_operator::sub"]>]>;
def Magi_SymMulOp : Magi_SymBinaryOp<"sym_mul", "a * b", [Magi_Torch<["_operator::mul"]>, Commutative]>;
def Magi_SymFloorDivOp : Magi_SymBinaryOp<"sym_floordiv", "a // b (rounds toward -inf)", [Magi_Torch<["_operator::floordiv"]>]>;
def Magi_SymModOp : Magi_SymBinaryOp<"sym_mod", "a % b (sign of b, as in Python)", [Magi_Torch<["_operator::mod"]>]>;
def Magi_SymMinOp : Magi_SymBinaryOp<"sym_min", "min(a, b)", [Magi_Torch<["torch::sym_min"]>, Commutative]>;
def Magi_SymMaxOp : Magi_SymBinaryOp<"sym_max", "max(a, b)", [Magi_Torch<["torch::sym_max"]>, Commutative]>;

def Magi_SymCompareOp : Magi_Op<"sym_compare", [
    Magi_Torch<["_operator::eq", "_operator::ne", "_operator::lt", "_operator::le",
                "_operator::gt", "_operator::ge"]>, Pure]> {
  let summary = "A comparison of symbolic integers (`==`, `!=`, `<`, `<=`, `>`, `>=` on SymInts)";
  let description = [{
    `predicate` is `eq`, `ne`, `lt`, `le`, `gt` or `ge`. torch.export writes
    these as SymBool nodes (`_operator.ge`) whose result a runtime assertion
    (`aten._assert_scalar`, from `torch._check` or a guard the range
    constraints do not imply) tests.
  }];
  let arguments = (ins StrAttr:$predicate, Index:$lhs, Index:$rhs);
  let results = (outs I1:$result);
  let assemblyFormat = "$predicate $lhs `,` $rhs attr-dict";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// `a predicate b` (the folder's and the interpreter's one rule).
    static bool compare(llvm::StringRef predicate, int64_t a, int64_t b);
  }];
}

class Magi_SymLogicOp<string mnemonic, string pyop, list<Trait> traits = []>
    : Magi_Op<mnemonic, !listconcat([Pure, Commutative], traits)> {
  let summary = "SymBool `" # pyop # "`";
  let arguments = (ins I1:$lhs, I1:$rhs);
  let results = (outs I1:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
  let hasFolder = 1;
}

def Magi_SymAndOp : Magi_SymLogicOp<"sym_and", "a and b", [Magi_Torch<["_operator::and_"]>]>;
def Magi_SymOrOp : Magi_SymLogicOp<"sym_or", "a or b", [Magi_Torch<["_operator::or_"]>]>;

def Magi_SymNotOp : Magi_Op<"sym_not", [Magi_Torch<["torch::sym_not"]>, Pure]> {
  let summary = "SymBool `not a` (torch.sym_not)";
  let arguments = (ins I1:$operand);
  let results = (outs I1:$result);
  let assemblyFormat = "$operand attr-dict";
  let hasFolder = 1;
}

def Magi_AssertSymbolicOp : Magi_Op<"assert_symbolic", [
    Magi_Torch<["aten::_assert_scalar", "aten::sym_constrain_range",
                "aten::sym_constrain_range_for_size"]>,
    MemoryEffects<[MemWrite]>]> {
  let summary = "A runtime assertion on symbolic sizes (aten._assert_scalar)";
  let description = [{
    Fails the run with `message` when `condition` is false: torch.export's
    checks of the sizes a graph is called with that its range constraints do
    not imply (`Eq(Mod(s0, 2), 0)`), from `torch._check` or tracing, and the
    range checks of `sym_constrain_range(_for_size)` (older exports check an
    unbacked size with them). The
    interpreter checks it where it stands; `magi-split` keeps it, and the
    symbolic arithmetic it reads, in the split graph, and the artifact lists
    it in `graph.checks`, which the runtime tests before anything runs (one
    over a symbol a step defines, when that step binds it). A
    condition that folds to true is dropped.
  }];
  let arguments = (ins I1:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict";
  let hasCanonicalizeMethod = 1;
}

//===----------------------------------------------------------------------===//
// Constants and tensor creation
//===----------------------------------------------------------------------===//

def Magi_ConstantOp : Magi_Op<"constant",
    [ConstantLike, Pure, Magi_RefinableInferredType]> {
  let summary = "A tensor literal";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Magi_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Magi_ScalarTensorOp : Magi_TensorOp<"scalar_tensor", [Magi_Torch<["aten::scalar_tensor"]>]> {
  let summary = "A 0-d tensor holding a scalar (aten.scalar_tensor)";
  let arguments = (ins Magi_Scalar:$value, Magi_DtypeAttr:$dtype);
  let results = (outs Magi_Tensor:$result);
}

def Magi_FullOp : Magi_TensorOp<"full", [Magi_Torch<["aten::full.default", "aten::empty.memory_format", "aten::empty_strided", "aten::empty_permuted"]>]> {
  let summary = "A tensor filled with one value (aten.full)";
  let description = [{
    Also what `empty`, `empty_strided` and `empty_permuted` import to, filled
    with zeros: PyTorch leaves their values unspecified, and a defined value
    keeps runs reproducible. Their strides and physical layout do not carry
    over: a magi tensor is values, its layout the plan's.
  }];
  let arguments = (ins Variadic<Index>:$sizes, DenseI64ArrayAttr:$static_sizes,
                       Magi_ScalarAttr:$fill_value, Magi_DtypeAttr:$dtype);
  let results = (outs Magi_Tensor:$result);
  let assemblyFormat = [{
    custom<DynamicIndexList>($sizes, $static_sizes) attr-dict `:` type($result)
  }];
}

def Magi_FullLikeOp : Magi_TensorOp<"full_like", [Magi_Torch<["aten::full_like", "aten::fill.Scalar"]>]> {
  let summary = "A tensor shaped like `self`, filled with one value (aten.full_like, aten.fill.Scalar)";
  let arguments = (ins Magi_Tensor:$self, Magi_ScalarAttr:$fill_value,
                       Magi_DtypeAttr:$dtype);
  let results = (outs Magi_Tensor:$result);
}

def Magi_ArangeOp : Magi_TensorOp<"arange", [Magi_Torch<["aten::arange"]>]> {
  let summary = "Values from `start` to `end` (exclusive) by `step` (aten.arange)";
  let description = [{
    The length is `ceil((end - start) / step)`; it is static when the three
    operands are constants, else `?`.
  }];
  let arguments = (ins Magi_Scalar:$start, Magi_Scalar:$end, Magi_Scalar:$step,
                       Magi_DtypeAttr:$dtype);
  let results = (outs Magi_Tensor:$result);
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// Unary op whose result has the operand's type.
class Magi_SameTypeUnaryOp<string mnemonic, string aten, list<Trait> traits = []>
    : Magi_TensorOp<mnemonic, traits> {
  let summary = "Elementwise " # aten;
  let arguments = (ins Magi_Tensor:$self);
  let results = (outs Magi_Tensor:$result);
}

// Unary op computed in floating point: integer and bool operands promote to
// the default dtype (f32), as PyTorch does.
class Magi_FloatUnaryOp<string mnemonic, string aten, list<Trait> traits = []>
    : Magi_SameTypeUnaryOp<mnemonic, aten, traits>;

def Magi_NegOp : Magi_SameTypeUnaryOp<"neg", "aten.neg", [Magi_Torch<["aten::neg.default"]>]>;
def Magi_AbsOp : Magi_SameTypeUnaryOp<"abs", "aten.abs", [Magi_Torch<["aten::abs.default"]>]>;
def Magi_ReluOp : Magi_SameTypeUnaryOp<"relu", "aten.relu", [Magi_Torch<["aten::relu.default"]>]>;
def Magi_BitwiseNotOp : Magi_SameTypeUnaryOp<"bitwise_not", "aten.bitwise_not", [Magi_Torch<["aten::bitwise_not.default"]>]>;
def Magi_LogicalNotOp : Magi_SameTypeUnaryOp<"logical_not", "aten.logical_not (result is bool)", [Magi_Torch<["aten::logical_not.default"]>]>;
def Magi_CosOp : Magi_FloatUnaryOp<"cos", "aten.cos", [Magi_Torch<["aten::cos.default"]>]>;
def Magi_SinOp : Magi_FloatUnaryOp<"sin", "aten.sin", [Magi_Torch<["aten::sin.default"]>]>;
def Magi_ExpOp : Magi_FloatUnaryOp<"exp", "aten.exp", [Magi_Torch<["aten::exp.default"]>]>;
def Magi_LogOp : Magi_FloatUnaryOp<"log", "aten.log", [Magi_Torch<["aten::log.default"]>]>;
def Magi_SqrtOp : Magi_FloatUnaryOp<"sqrt", "aten.sqrt", [Magi_Torch<["aten::sqrt.default"]>]>;
def Magi_RsqrtOp : Magi_FloatUnaryOp<"rsqrt", "aten.rsqrt", [Magi_Torch<["aten::rsqrt.default"]>]>;
def Magi_ReciprocalOp : Magi_FloatUnaryOp<"reciprocal", "aten.reciprocal", [Magi_Torch<["aten::reciprocal.default"]>]>;
def Magi_SigmoidOp : Magi_FloatUnaryOp<"sigmoid", "aten.sigmoid", [Magi_Torch<["aten::sigmoid.default"]>]>;
def Magi_TanhOp : Magi_FloatUnaryOp<"tanh", "aten.tanh", [Magi_Torch<["aten::tanh.default"]>]>;
def Magi_ErfOp : Magi_FloatUnaryOp<"erf", "aten.erf", [Magi_Torch<["aten::erf.default"]>]>;
def Magi_SiluOp : Magi_FloatUnaryOp<"silu", "aten.silu: x * sigmoid(x)", [Magi_Torch<["aten::silu.default"]>]>;
def Magi_Log1pOp : Magi_FloatUnaryOp<"log1p", "aten.log1p", [Magi_Torch<["aten::log1p.default"]>]>;
def Magi_Expm1Op : Magi_FloatUnaryOp<"expm1", "aten.expm1", [Magi_Torch<["aten::expm1.default"]>]>;
def Magi_Log2Op : Magi_FloatUnaryOp<"log2", "aten.log2", [Magi_Torch<["aten::log2.default"]>]>;
def Magi_AcosOp : Magi_FloatUnaryOp<"acos", "aten.acos", [Magi_Torch<["aten::acos.default"]>]>;
def Magi_AsinOp : Magi_FloatUnaryOp<"asin", "aten.asin", [Magi_Torch<["aten::asin.default"]>]>;
def Magi_AtanOp : Magi_FloatUnaryOp<"atan", "aten.atan", [Magi_Torch<["aten::atan.default"]>]>;
def Magi_AcoshOp : Magi_FloatUnaryOp<"acosh", "aten.acosh", [Magi_Torch<["aten::acosh.default"]>]>;
def Magi_AsinhOp : Magi_FloatUnaryOp<"asinh", "aten.asinh", [Magi_Torch<["aten::asinh.default"]>]>;
def Magi_AtanhOp : Magi_FloatUnaryOp<"atanh", "aten.atanh", [Magi_Torch<["aten::atanh.default"]>]>;
def Magi_CoshOp : Magi_FloatUnaryOp<"cosh", "aten.cosh", [Magi_Torch<["aten::cosh.default"]>]>;
def Magi_SinhOp : Magi_FloatUnaryOp<"sinh", "aten.sinh", [Magi_Torch<["aten::sinh.default"]>]>;
def Magi_TanOp : Magi_FloatUnaryOp<"tan", "aten.tan", [Magi_Torch<["aten::tan.default"]>]>;
def Magi_Log10Op : Magi_FloatUnaryOp<"log10", "aten.log10", [Magi_Torch<["aten::log10.default"]>]>;
def Magi_FloorOp : Magi_SameTypeUnaryOp<"floor", "aten.floor (identity on integers)", [Magi_Torch<["aten::floor.default"]>]>;
def Magi_CeilOp : Magi_SameTypeUnaryOp<"ceil", "aten.ceil (identity on integers)", [Magi_Torch<["aten::ceil.default"]>]>;
def Magi_RoundOp : Magi_SameTypeUnaryOp<"round", "aten.round (half to even; identity on integers)", [Magi_Torch<["aten::round.default"]>]>;
def Magi_TruncOp : Magi_SameTypeUnaryOp<"trunc", "aten.trunc (identity on integers)", [Magi_Torch<["aten::trunc.default"]>]>;
def Magi_SignOp : Magi_SameTypeUnaryOp<"sign", "aten.sign", [Magi_Torch<["aten::sign.default"]>]>;
def Magi_IsNanOp : Magi_SameTypeUnaryOp<"isnan", "aten.isnan (result is bool)", [Magi_Torch<["aten::isnan.default"]>]>;
def Magi_IsInfOp : Magi_SameTypeUnaryOp<"isinf", "aten.isinf (result is bool)", [Magi_Torch<["aten::isinf.default"]>]>;

def Magi_LeakyReluOp : Magi_TensorOp<"leaky_relu", [Magi_Torch<["aten::leaky_relu"]>]> {
  let summary = "Elementwise `x >= 0 ? x : negative_slope * x` (aten.leaky_relu)";
  let arguments = (ins Magi_Tensor:$self,
                       DefaultValuedAttr<F64Attr, "0.01">:$negative_slope);
  let results = (outs Magi_Tensor:$result);
}

def Magi_EluOp : Magi_TensorOp<"elu", [Magi_Torch<["aten::elu"]>]> {
  let summary = "Elementwise `x <= 0 ? alpha * scale * expm1(x * input_scale) : scale * x` (aten.elu)";
  let description = [{
    PyTorch's ELU with its three constants (SELU and CELU decompose to it):
    NaN stays NaN. Floating-point tensors only, as in PyTorch.
  }];
  let arguments = (ins Magi_Tensor:$self,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha,
                       DefaultValuedAttr<F64Attr, "1.0">:$scale,
                       DefaultValuedAttr<F64Attr, "1.0">:$input_scale);
  let results = (outs Magi_Tensor:$result);
}

def Magi_GeluOp : Magi_TensorOp<"gelu", [Magi_Torch<["aten::gelu"]>, DeclareOpInterfaceMethods<Magi_DecomposableOpInterface>]> {
  let summary = "Elementwise GELU (aten.gelu)";
  let description = [{
    `approximate = "none"`: `x * 0.5 * (1 + erf(x / sqrt(2)))`;
    `approximate = "tanh"`: `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`.
  }];
  let arguments = (ins Magi_Tensor:$self,
                       DefaultValuedStrAttr<StrAttr, "none">:$approximate);
  let results = (outs Magi_Tensor:$result);
  let hasVerifier = 1;
}

// Binary op with broadcasting and PyTorch type promotion. Either side may be a
// Python scalar; at least one must be a tensor.
class Magi_BinaryOp<string mnemonic, string aten, list<Trait> traits = []>
    : Magi_TensorOp<mnemonic, traits> {
  let summary = "Elementwise " # aten # " with broadcasting and type promotion";
  let arguments = (ins Magi_TensorOrScalar:$self, Magi_TensorOrScalar:$other);
  let results = (outs Magi_Tensor:$result);
}

// A binary op that computes in its result's dtype, its operands promoted to it.
class Magi_PromotingBinaryOp<string mnemonic, string aten, list<Trait> traits = []>
    : Magi_BinaryOp<mnemonic, aten, !listconcat([Magi_PromotesOperandsOpInterface], traits)>;

// `self + alpha * other` / `self - alpha * other`.
class Magi_AlphaBinaryOp<string mnemonic, string aten, list<Trait> traits = []>
    : Magi_PromotingBinaryOp<mnemonic, aten, traits> {
  let arguments = (ins Magi_TensorOrScalar:$self, Magi_TensorOrScalar:$other,
                       OptionalAttr<F64Attr>:$alpha);
}

def Magi_AddOp : Magi_AlphaBinaryOp<"add", "aten.add (self + alpha * other)",
    [Magi_Torch<["aten::add", "aten::upsample_bilinear2d"]>]> {
  let description = [{
    Also the last op of what `aten.upsample_bilinear2d` (static spatial
    sizes) imports to: along W then along H, the two source columns (rows)
    of each output one gathered with `index_select` and weighted by
    constants, as PyTorch computes the taps (`align_corners`, a given scale
    factor, sources clamped at 0); f16 and bf16 in f32, rounded once.
  }];
}
def Magi_SubOp : Magi_AlphaBinaryOp<"sub", "aten.sub (self - alpha * other)", [Magi_Torch<["aten::sub"]>]>;
def Magi_MulOp : Magi_PromotingBinaryOp<"mul", "aten.mul", [Magi_Torch<["aten::mul"]>]>;
def Magi_DivOp : Magi_PromotingBinaryOp<"div", "aten.div", [Magi_Torch<["aten::div"]>]> {
  let description = [{
    True division (integers promote to f32) unless `rounding_mode` is `"trunc"`
    or `"floor"`, which keep the promoted type.
  }];
  let arguments = (ins Magi_TensorOrScalar:$self, Magi_TensorOrScalar:$other,
                       OptionalAttr<StrAttr>:$rounding_mode);
  let hasVerifier = 1;
}
def Magi_PowOp : Magi_PromotingBinaryOp<"pow", "aten.pow", [Magi_Torch<["aten::pow"]>]>;
def Magi_RemainderOp : Magi_PromotingBinaryOp<"remainder", "aten.remainder (sign of other)", [Magi_Torch<["aten::remainder"]>]>;
def Magi_MaximumOp : Magi_PromotingBinaryOp<"maximum", "aten.maximum", [Magi_Torch<["aten::maximum"]>]>;
def Magi_MinimumOp : Magi_PromotingBinaryOp<"minimum", "aten.minimum", [Magi_Torch<["aten::minimum", "aten::clamp.Tensor"]>]> {
  let description = [{
    Also what `aten.clamp.Tensor` (tensor bounds) imports to:
    `minimum(maximum(self, min), max)`, or `maximum(self, min)` alone when
    there is no `max`; so a splitting-op pattern naming `clamp.Tensor`
    matches minimum ops.
  }];
}
def Magi_BitwiseAndOp : Magi_BinaryOp<"bitwise_and", "aten.bitwise_and", [Magi_Torch<["aten::bitwise_and"]>]>;
def Magi_BitwiseOrOp : Magi_BinaryOp<"bitwise_or", "aten.bitwise_or", [Magi_Torch<["aten::bitwise_or"]>]>;
def Magi_BitwiseXorOp : Magi_BinaryOp<"bitwise_xor", "aten.bitwise_xor", [Magi_Torch<["aten::bitwise_xor"]>]>;
def Magi_LogicalAndOp : Magi_BinaryOp<"logical_and", "aten.logical_and (result is bool)", [Magi_Torch<["aten::logical_and"]>]>;
def Magi_LogicalOrOp : Magi_BinaryOp<"logical_or", "aten.logical_or (result is bool)", [Magi_Torch<["aten::logical_or"]>]>;
def Magi_LogicalXorOp : Magi_BinaryOp<"logical_xor", "aten.logical_xor (result is bool)", [Magi_Torch<["aten::logical_xor"]>]>;
def Magi_FmodOp : Magi_BinaryOp<"fmod", "aten.fmod (sign of self, as C fmod)", [Magi_Torch<["aten::fmod"]>]>;
def Magi_Atan2Op : Magi_BinaryOp<"atan2", "aten.atan2 (integers promote to f32)", [Magi_Torch<["aten::atan2"]>]>;

// Comparison: broadcast, compare in the promoted type, result is bool.
class Magi_CompareOp<string mnemonic, string aten, list<Trait> traits = []>
    : Magi_BinaryOp<mnemonic, aten # " (result is bool)",
                    !listconcat([DeclareOpInterfaceMethods<Magi_PromotesOperandsOpInterface,
                                                           ["getPromotedDtype"]>],
                                traits)> {
  let extraClassDefinition = [{
    ::mlir::Type $cppClass::getPromotedDtype() {
      return ::magi::resultDtype(getOperation()->getOperandTypes());
    }
  }];
}

def Magi_EqOp : Magi_CompareOp<"eq", "aten.eq", [Magi_Torch<["aten::eq"]>]>;
def Magi_NeOp : Magi_CompareOp<"ne", "aten.ne", [Magi_Torch<["aten::ne"]>]>;
def Magi_LtOp : Magi_CompareOp<"lt", "aten.lt", [Magi_Torch<["aten::lt"]>]>;
def Magi_LeOp : Magi_CompareOp<"le", "aten.le", [Magi_Torch<["aten::le"]>]>;
def Magi_GtOp : Magi_CompareOp<"gt", "aten.gt", [Magi_Torch<["aten::gt"]>]>;
def Magi_GeOp : Magi_CompareOp<"ge", "aten.ge", [Magi_Torch<["aten::ge"]>]>;

def Magi_WhereOp : Magi_TensorOp<"where", [Magi_Torch<["aten::where.self", "aten::where.ScalarSelf", "aten::where.ScalarOther", "aten::where.Scalar", "aten::masked_scatter"]>, 
    DeclareOpInterfaceMethods<Magi_PromotesOperandsOpInterface, ["getPromotedOperands"]>]> {
  let summary = "Elementwise select: `condition ? self : other` (aten.where)";
  let description = [{
    Also the last op of what `aten.masked_scatter` (static shapes) imports
    to: `where(mask, source_flat[clamp(cumsum(mask) - 1, 0)], self)`, the
    k-th true element of the mask taking source's k-th element.
  }];
  let arguments = (ins Magi_BoolTensor:$condition, Magi_TensorOrScalar:$self,
                       Magi_TensorOrScalar:$other);
  let results = (outs Magi_Tensor:$result);
  let extraClassDefinition = [{
    ::llvm::SmallVector<::mlir::OpOperand *> $cppClass::getPromotedOperands() {
      return {&getSelfMutable(), &getOtherMutable()}; // not the condition
    }
  }];
}

def Magi_ClampOp : Magi_TensorOp<"clamp", [Magi_Torch<["aten::clamp.default", "aten::clamp_min", "aten::clamp_max", "aten::hardtanh"]>]> {
  let summary = "Elementwise clamp to `[min, max]` (aten.clamp)";
  let arguments = (ins Magi_Tensor:$self, OptionalAttr<F64Attr>:$min,
                       OptionalAttr<F64Attr>:$max);
  let results = (outs Magi_Tensor:$result);
  let hasVerifier = 1;
}

def Magi_ToCopyOp : Magi_TensorOp<"to_copy", [Magi_Torch<["aten::_to_copy"]>]> {
  let summary = "Converts to the dtype `dtype` (aten._to_copy)";
  let description = [{
    Device, layout and memory-format arguments of `aten._to_copy` are not
    represented: Magi's tensors are values, placed by later phases.
  }];
  let arguments = (ins Magi_Tensor:$self, Magi_DtypeAttr:$dtype);
  let results = (outs Magi_Tensor:$result);
  let hasFolder = 1;
}

def Magi_CloneOp : Magi_TensorOp<"clone", [Magi_Torch<["aten::clone.default", "aten::lift_fresh_copy.default", "aten::alias.default"]>]> {
  let summary = "A copy of `self` (aten.clone): the identity under value semantics";
  let arguments = (ins Magi_Tensor:$self);
  let results = (outs Magi_Tensor:$result);
  let hasFolder = 1;
}

def Magi_CopyOp : Magi_TensorOp<"copy", [Magi_Torch<["aten::copy.default"]>]> {
  let summary = "`src` broadcast and converted to the shape and dtype of `self` (aten.copy)";
  let description = [{
    With `in_place`, the result may be written into `self`'s storage:
    `magi-mark-in-place-mutations` sets it where `self` is a graph input that
    the graph mutates into this result and that nothing else reads.
  }];
  let arguments = (ins Magi_Tensor:$self, Magi_Tensor:$src, UnitAttr:$in_place);
  let results = (outs Magi_Tensor:$result);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// Reduction over `dims` (all dimensions when absent), keeping them as size 1
// when `keepdim` is set.
class Magi_ReductionOp<string mnemonic, string aten, list<Trait> traits = []>
    : Magi_TensorOp<mnemonic, traits> {
  let summary = "Reduction " # aten;
  let arguments = (ins Magi_Tensor:$self, OptionalAttr<DenseI64ArrayAttr>:$dims,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim,
                       OptionalAttr<Magi_DtypeAttr>:$dtype);
  let results = (outs Magi_Tensor:$result);
}

def Magi_SumOp : Magi_ReductionOp<"sum", "aten.sum (integers and bool sum to i64)",
                                  [Magi_Torch<["aten::sum", "aten::linalg_vector_norm",
                                               "aten::_cdist_forward", "aten::_pdist_forward"]>]> {
  let description = [{
    Also what `aten.linalg_vector_norm` (a floating-point `self`, no
    `dtype`, a result of `self`'s type) imports to, as PyTorch defines the norm over `dim`:
    `sqrt(sum(x * x))` for `ord = 2`, `sum(abs(x))` for 1,
    `amax(abs(x))` / `amin(abs(x))` for plus / minus infinity, and
    `sum(to_copy(x != 0))` for `ord = 0` (a count), and
    `pow(sum(pow(abs(x), ord)), 1 / ord)` for any other `ord`.
    `aten._cdist_forward` (x1 [*, P, M],
    x2 [*, R, M]) is that norm over the last dim of `unsqueeze(x1, -2) -
    unsqueeze(x2, -3)`, and `aten._pdist_forward` (static N) of the
    differences of its rows i < j, gathered with `index_select`.
  }];
}
def Magi_MeanOp : Magi_ReductionOp<"mean", "aten.mean (floating point only)", [Magi_Torch<["aten::mean"]>]>;
def Magi_AmaxOp : Magi_ReductionOp<"amax", "aten.amax", [Magi_Torch<["aten::amax", "aten::max.default"]>]>;
def Magi_AminOp : Magi_ReductionOp<"amin", "aten.amin", [Magi_Torch<["aten::amin", "aten::min.default"]>]>;
def Magi_AnyOp : Magi_ReductionOp<"any", "aten.any (result is bool)", [Magi_Torch<["aten::any"]>]>;
def Magi_AllOp : Magi_ReductionOp<"all", "aten.all (result is bool)", [Magi_Torch<["aten::all"]>]>;

def Magi_MaxDimOp : Magi_TensorOp<"max_dim", [Magi_Torch<["aten::max.dim"]>]> {
  let summary = "Maximum along `dim` and its index (aten.max.dim)";
  let arguments = (ins Magi_Tensor:$self, I64Attr:$dim,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs Magi_Tensor:$values, Magi_Tensor:$indices);
}

def Magi_ProdOp : Magi_ReductionOp<"prod", "aten.prod (integers and bool multiply in i64)", [Magi_Torch<["aten::prod"]>]>;

def Magi_VarOp : Magi_TensorOp<"var", [Magi_Torch<["aten::var.correction", "aten::var.dim"]>]> {
  let summary = "Variance over `dims` with `correction` (aten.var.correction, aten.var.dim)";
  let description = [{
    `sum((x - mean(x))^2) / max(0, N - correction)` over `dims` (all when
    absent); `correction = 1` is the unbiased estimator.
  }];
  let arguments = (ins Magi_Tensor:$self, OptionalAttr<DenseI64ArrayAttr>:$dims,
                       DefaultValuedAttr<F64Attr, "1.0">:$correction,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs Magi_Tensor:$result);
}

def Magi_MinDimOp : Magi_TensorOp<"min_dim", [Magi_Torch<["aten::min.dim"]>]> {
  let summary = "Minimum along `dim` and its index (aten.min.dim)";
  let arguments = (ins Magi_Tensor:$self, I64Attr:$dim,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs Magi_Tensor:$values, Magi_Tensor:$indices);
}

def Magi_ArgminOp : Magi_TensorOp<"argmin", [Magi_Torch<["aten::argmin"]>]> {
  let summary = "Index of the minimum along `dim`, or of the flattened tensor (aten.argmin)";
  let arguments = (ins Magi_Tensor:$self, OptionalAttr<I64Attr>:$dim,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs Magi_Tensor:$result);
}

def Magi_TopkOp : Magi_TensorOp<"topk", [Magi_Torch<["aten::topk"]>]> {
  let summary = "The `k` largest (or smallest) entries along `dim` and their indices (aten.topk)";
  let arguments = (ins Magi_Tensor:$self, I64Attr:$k,
                       DefaultValuedAttr<I64Attr, "-1">:$dim,
                       DefaultValuedAttr<BoolAttr, "true">:$largest,
                       DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs Magi_Tensor:$values, Magi_Tensor:$indices);
}

def Magi_SortOp : Magi_TensorOp<"sort", [Magi_Torch<["aten::sort.default", "aten::sort.stable"]>]> {
  let summary = "Sorts along `dim`, returning values and indices (aten.sort, stable)";
  let arguments = (ins Magi_Tensor:$self, DefaultValuedAttr<I64Attr, "-1">:$dim,
                       DefaultValuedAttr<BoolAttr, "false">:$descending);
  let results = (outs Magi_Tensor:$values, Magi_Tensor:$indices);
}

def Magi_ArgmaxOp : Magi_TensorOp<"argmax", [Magi_Torch<["aten::argmax"]>]> {
  let summary = "Index of the maximum along `dim`, or of the flattened tensor (aten.argmax)";
  let arguments = (ins Magi_Tensor:$self, OptionalAttr<I64Attr>:$dim,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs Magi_Tensor:$result);
}

def Magi_CumsumOp : Magi_TensorOp<"cumsum", [Magi_Torch<["aten::cumsum"]>]> {
  let summary = "Inclusive prefix sum along `dim` (aten.cumsum; integers sum to i64)";
  let arguments = (ins Magi_Tensor:$self, I64Attr:$dim,
                       OptionalAttr<Magi_DtypeAttr>:$dtype);
  let results = (outs Magi_Tensor:$result);
}

//===----------------------------------------------------------------------===//
// Shape and indexing
//===----------------------------------------------------------------------===//

def Magi_ViewOp : Magi_TensorOp<"view", [Magi_Torch<["aten::view", "aten::_unsafe_view", "aten::reshape"]>]> {
  let summary = "The same elements with a new shape (aten.view, aten.reshape)";
  let description = [{
    Sizes are constants or symbolic integers; one size may be `-1` (inferred).
  }];
  let arguments = (ins Magi_Tensor:$self, Variadic<Index>:$sizes,
                       DenseI64ArrayAttr:$static_sizes);
  let results = (outs Magi_Tensor:$result);
  let assemblyFormat = [{
    $self custom<DynamicIndexList>($sizes, $static_sizes) attr-dict `:` type($self) `->` type($result)
  }];
  let hasFolder = 1;
  // view(view(x)) is view(x).
  let hasCanonicalizeMethod = 1;
}

def Magi_ExpandOp : Magi_TensorOp<"expand", [Magi_Torch<["aten::expand"]>]> {
  let summary = "Broadcasts size-1 dimensions to `sizes` (aten.expand; -1 keeps a size)";
  let arguments = (ins Magi_Tensor:$self, Variadic<Index>:$sizes,
                       DenseI64ArrayAttr:$static_sizes);
  let results = (outs Magi_Tensor:$result);
  let assemblyFormat = [{
    $self custom<DynamicIndexList>($sizes, $static_sizes) attr-dict `:` type($self) `->` type($result)
  }];
  let hasFolder = 1;
}

def Magi_PermuteOp : Magi_TensorOp<"permute", [Magi_Torch<["aten::permute", "aten::transpose.int", "aten::t", "aten::grid_sampler_2d"]>]> {
  let summary = "Reorders dimensions: result dim i is `self` dim `dims[i]` (aten.permute)";
  let description = [{
    Also the last op of what `aten.grid_sampler_2d` (bilinear or nearest,
    zeros or border padding, static shapes) imports to: the grid
    unnormalized to pixel coordinates as PyTorch does, the corners gathered
    with `magi.index` into [N, Ho, Wo, C] and weighted (0 outside the
    input), summed, and permuted to [N, C, Ho, Wo].
  }];
  let arguments = (ins Magi_Tensor:$self, DenseI64ArrayAttr:$dims);
  let results = (outs Magi_Tensor:$result);
  let hasFolder = 1;
}

def Magi_UnsqueezeOp : Magi_TensorOp<"unsqueeze", [Magi_Torch<["aten::unsqueeze"]>]> {
  let summary = "Inserts a size-1 dimension at `dim` (aten.unsqueeze)";
  let arguments = (ins Magi_Tensor:$self, I64Attr:$dim);
  let results = (outs Magi_Tensor:$result);
}

def Magi_SqueezeOp : Magi_TensorOp<"squeeze", [Magi_Torch<["aten::squeeze"]>]> {
  let summary = "Removes the size-1 dimensions among `dims` (aten.squeeze.dims)";
  let arguments = (ins Magi_Tensor:$self, DenseI64ArrayAttr:$dims);
  let results = (outs Magi_Tensor:$result);
  let hasFolder = 1;
}

def Magi_SliceOp : Magi_TensorOp<"slice", [Magi_Torch<["aten::slice.Tensor", "aten::nonzero"]>]> {
  let summary = "Elements `start:end:step` along `dim` (aten.slice.Tensor)";
  let description = [{
    `bounds` holds `[start, end, step]`, each a constant or a symbolic integer.
    As in Python, negative bounds count from the end and bounds are clamped to
    the size; an absent end is written as 9223372036854775807 (INT64_MAX).

    Also the last op of what `aten.nonzero` imports to: the rows of the
    coordinates table up to the count read on the host (`magi.item`;
    `docs/import.md`, "Sizes of the data").
  }];
  let arguments = (ins Magi_Tensor:$self, I64Attr:$dim, Variadic<Index>:$bounds,
                       DenseI64ArrayAttr:$static_bounds);
  let results = (outs Magi_Tensor:$result);
  let assemblyFormat = [{
    $self `,` $dim custom<DynamicIndexList>($bounds, $static_bounds) attr-dict `:` type($self) `->` type($result)
  }];
  let hasFolder = 1;
}

def Magi_SelectOp : Magi_TensorOp<"select", [Magi_Torch<["aten::select.int", "aten::unbind.int"]>]> {
  let summary = "The slice at `index` along `dim`, with that dimension removed (aten.select.int)";
  let arguments = (ins Magi_Tensor:$self, I64Attr:$dim, Variadic<Index>:$index,
                       DenseI64ArrayAttr:$static_index);
  let results = (outs Magi_Tensor:$result);
  let assemblyFormat = [{
    $self `,` $dim custom<DynamicIndexList>($index, $static_index) attr-dict `:` type($self) `->` type($result)
  }];
}

def Magi_CatOp : Magi_TensorOp<"cat", [Magi_Torch<["aten::cat"]>]> {
  let summary = "Concatenates tensors along `dim` (aten.cat)";
  let arguments = (ins Variadic<Magi_Tensor>:$tensors, I64Attr:$dim);
  let results = (outs Magi_Tensor:$result);
}

def Magi_SplitWithSizesOp : Magi_TensorOp<"split_with_sizes", [Magi_Torch<["aten::split_with_sizes", "aten::split.sizes", "aten::split.Tensor", "aten::chunk"]>]> {
  let summary = "Splits `self` along `dim` into pieces of the given sizes (aten.split_with_sizes)";
  let arguments = (ins Magi_Tensor:$self, Variadic<Index>:$split_sizes,
                       DenseI64ArrayAttr:$static_split_sizes, I64Attr:$dim);
  let results = (outs Variadic<Magi_Tensor>:$results);
  let assemblyFormat = [{
    $self custom<DynamicIndexList>($split_sizes, $static_split_sizes) attr-dict `:` type($self) `->` type($results)
  }];
}

def Magi_ConstantPadNdOp : Magi_TensorOp<"constant_pad_nd", [Magi_Torch<["aten::constant_pad_nd"]>]> {
  let summary = "Pads with a constant (aten.constant_pad_nd)";
  let description = [{
    `pad` lists `(before, after)` pairs starting from the last dimension, as in
    PyTorch; each amount is a constant or a symbolic integer, and negative
    amounts crop.

    ```mlir
    %p = magi.constant_pad_nd %x [0, %n] {value = 0.0 : f64} : tensor<4x?xf32> -> tensor<4x?xf32>
    ```
  }];
  let arguments = (ins Magi_Tensor:$self, Variadic<Index>:$pad,
                       DenseI64ArrayAttr:$static_pad,
                       DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Magi_Tensor:$result);
  let assemblyFormat = [{
    $self custom<DynamicIndexList>($pad, $static_pad) attr-dict `:` type($self) `->` type($result)
  }];
}

def Magi_EmbeddingOp : Magi_TensorOp<"embedding", [Magi_Torch<["aten::embedding"]>]> {
  let summary = "Rows of `weight` selected by `indices` (aten.embedding)";
  let arguments = (ins Magi_Tensor:$weight, Magi_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "-1">:$padding_idx);
  let results = (outs Magi_Tensor:$result);
}

def Magi_IndexOp : Magi_TensorOp<"index", [Magi_Torch<["aten::index.Tensor", "aten::as_strided",
                                                         "aten::combinations"]>]> {
  let summary = "Advanced indexing with tensors (aten.index.Tensor)";
  let description = [{
    `indexed_dims[i]` is the dimension of `self` that `indices[i]` indexes; the
    other dimensions are taken whole (`None` in PyTorch). Index tensors are
    broadcast together. When the indexed dimensions are adjacent, the broadcast
    shape replaces them in place; otherwise it comes first.

    Also what `aten.as_strided` (static self, sizes, strides and offset)
    imports to: the flattened self indexed with a constant table of
    `offset + sum(i_k * stride_k)` (self's storage is its own contiguous
    elements).
  }];
  let arguments = (ins Magi_Tensor:$self, Variadic<Magi_Tensor>:$indices,
                       DenseI64ArrayAttr:$indexed_dims);
  let results = (outs Magi_Tensor:$result);
  let assemblyFormat = [{
    $self `[` $indices `]` attr-dict `:` functional-type(operands, results)
  }];
}

def Magi_IndexSelectOp : Magi_TensorOp<"index_select", [Magi_Torch<[
    "aten::index_select", "aten::reflection_pad1d", "aten::reflection_pad2d",
    "aten::reflection_pad3d", "aten::replication_pad1d", "aten::replication_pad2d",
    "aten::replication_pad3d", "aten::upsample_nearest1d", "aten::upsample_nearest2d",
    "aten::upsample_nearest3d"]>]> {
  let summary = "Entries of `self` along `dim` at a 1-d `index` (aten.index_select)";
  let description = [{
    Also what reflection and replication padding and nearest upsampling
    import to: each padded or scaled dimension gathered at a table of source
    positions computed from `magi.arange` (docs/import.md).
  }];
  let arguments = (ins Magi_Tensor:$self, I64Attr:$dim, Magi_IndexTensor:$index);
  let results = (outs Magi_Tensor:$result);
}

def Magi_GatherOp : Magi_TensorOp<"gather", [Magi_Torch<["aten::gather"]>]> {
  let summary = "Gathers along `dim`: `out[i][j] = self[index[i][j]][j]` for dim 0 (aten.gather)";
  let arguments = (ins Magi_Tensor:$self, I64Attr:$dim, Magi_IndexTensor:$index);
  let results = (outs Magi_Tensor:$result);
}

def Magi_ScatterOp : Magi_TensorOp<"scatter", [Magi_Torch<["aten::scatter", "aten::scatter_add", "aten::scatter_reduce", "aten::histc", "aten::max_pool2d_with_indices_backward", "aten::max_pool3d_with_indices_backward"]>]> {
  let summary = "`self` with `src` written or reduced at `index` along `dim` (aten.scatter, scatter_add, scatter_reduce)";
  let description = [{
    For dim 0: `out[index[i][j]][j] = src[i][j]`, or, with `reduce`, the
    element combined with every src element that index names:
    - `"add"` (aten.scatter_add, scatter.reduce "add", scatter_reduce
      "sum") and `"multiply"` (scatter.reduce "multiply", scatter_reduce
      "prod");
    - `"amax"` and `"amin"` (scatter_reduce), NaN propagating;
    - `"mean"` (scatter_reduce): the sum divided by how many values met
      there, self counting as one unless `include_self` is false; an
      element nothing is scattered to keeps self; integers divide with
      floor rounding, as PyTorch does.

    With `include_self` false (scatter_reduce only), an element that index
    names starts from the reduction's identity instead of self. `src` may
    be a Python scalar (aten.scatter.value).

    Also how `aten.histc` (float self) imports: ones scatter-added into
    zeros at each element's bin, weighted 0 outside `[min, max]`.
  }];
  let arguments = (ins Magi_Tensor:$self, I64Attr:$dim, Magi_IndexTensor:$index,
                       Magi_TensorOrScalar:$src, OptionalAttr<StrAttr>:$reduce,
                       DefaultValuedAttr<BoolAttr, "true">:$include_self);
  let results = (outs Magi_Tensor:$result);
  let hasVerifier = 1;
}

def Magi_IndexPutOp : Magi_TensorOp<"index_put", [Magi_Torch<["aten::index_put", "aten::index_add", "aten::col2im"]>]> {
  let summary = "`self` with `values` written at advanced `indices` (aten.index_put)";
  let description = [{
    The inverse of `magi.index`: `indexed_dims` as there; `values` broadcasts
    to the indexed shape; with `accumulate`, values add up. With `in_place`,
    the result may be written into `self`'s storage (only the indexed
    elements are written): `magi-mark-in-place-mutations` sets it where
    `self` is a graph input that the graph mutates into this result (a KV
    cache) and that nothing else reads.

    Also what `aten.index_add` imports to: `source * alpha` accumulated at
    the index along `dim`; and `aten.col2im`: the columns accumulated into
    the padded image at a table of flat pixel positions.
  }];
  let arguments = (ins Magi_Tensor:$self, Variadic<Magi_IndexTensor>:$indices,
                       Magi_Tensor:$values, DenseI64ArrayAttr:$indexed_dims,
                       DefaultValuedAttr<BoolAttr, "false">:$accumulate,
                       UnitAttr:$in_place);
  let results = (outs Magi_Tensor:$result);
  let assemblyFormat = [{
    $self `[` $indices `]` `,` $values attr-dict `:` functional-type(operands, results)
  }];
}

def Magi_SliceScatterOp : Magi_TensorOp<"slice_scatter", [Magi_Torch<["aten::slice_scatter"]>]> {
  let summary = "`self` with `src` written into `start:end:step` along `dim` (aten.slice_scatter)";
  let arguments = (ins Magi_Tensor:$self, Magi_Tensor:$src, I64Attr:$dim,
                       Variadic<Index>:$bounds, DenseI64ArrayAttr:$static_bounds);
  let results = (outs Magi_Tensor:$result);
  let assemblyFormat = [{
    $self `,` $src `,` $dim custom<DynamicIndexList>($bounds, $static_bounds) attr-dict `:` functional-type(operands, results)
  }];
}

def Magi_SelectScatterOp : Magi_TensorOp<"select_scatter", [Magi_Torch<["aten::select_scatter"]>]> {
  let summary = "`self` with `src` written at `index` along `dim` (aten.select_scatter)";
  let arguments = (ins Magi_Tensor:$self, Magi_Tensor:$src, I64Attr:$dim,
                       Variadic<Index>:$index, DenseI64ArrayAttr:$static_index);
  let results = (outs Magi_Tensor:$result);
  let assemblyFormat = [{
    $self `,` $src `,` $dim custom<DynamicIndexList>($index, $static_index) attr-dict `:` functional-type(operands, results)
  }];
}

def Magi_FlipOp : Magi_TensorOp<"flip", [Magi_Torch<["aten::flip"]>]> {
  let summary = "Reverses the order of elements along `dims` (aten.flip)";
  let arguments = (ins Magi_Tensor:$self, DenseI64ArrayAttr:$dims);
  let results = (outs Magi_Tensor:$result);
}

def Magi_DiagonalOp : Magi_TensorOp<"diagonal", [Magi_Torch<["aten::diagonal"]>]> {
  let summary = "The diagonal of `self` in two dimensions, `offset` above it (aten.diagonal)";
  let description = [{
    `dim1` and `dim2` (distinct) are removed and the diagonal is the last
    dimension: `out[..., i] = self[..., a + i (at dim1), ..., b + i (at dim2),
    ...]` with `a = max(0, -offset)`, `b = max(0, offset)`; its length is
    `max(0, min(size1 - a, size2 - b))`, static when both sizes are.
  }];
  let arguments = (ins Magi_Tensor:$self, I64Attr:$offset, I64Attr:$dim1, I64Attr:$dim2);
  let results = (outs Magi_Tensor:$result);
}

def Magi_RepeatOp : Magi_TensorOp<"repeat", [Magi_Torch<["aten::repeat"]>]> {
  let summary = "Tiles `self` `repeats[i]` times along each dimension (aten.repeat)";
  let arguments = (ins Magi_Tensor:$self, DenseI64ArrayAttr:$repeats);
  let results = (outs Magi_Tensor:$result);
}

class Magi_TriangleOp<string mnemonic, string which, list<Trait> traits = []>
    : Magi_TensorOp<mnemonic, traits> {
  let summary = "The " # which # " triangle of the last two dimensions (aten." # mnemonic # ")";
  let description = [{
    Elements on and below (`tril`) or above (`triu`) the diagonal offset by
    `diagonal` are kept; the others are zero.
  }];
  let arguments = (ins Magi_Tensor:$self, DefaultValuedAttr<I64Attr, "0">:$diagonal);
  let results = (outs Magi_Tensor:$result);
}
def Magi_TrilOp : Magi_TriangleOp<"tril", "lower", [Magi_Torch<["aten::tril"]>]>;
def Magi_TriuOp : Magi_TriangleOp<"triu", "upper", [Magi_Torch<["aten::triu"]>]>;

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

// `transpose_*` mark an operand used with its last two dimensions swapped:
// the post-grad pass magi-fold-transposes folds a `magi.permute` into them.
def Magi_MmOp : Magi_TensorOp<"mm", [Magi_Torch<["aten::mm"]>]> {
  let summary = "Matrix product of 2-d tensors (aten.mm)";
  let arguments = (ins Magi_Tensor:$self, Magi_Tensor:$mat2,
                       UnitAttr:$transpose_self, UnitAttr:$transpose_mat2);
  let results = (outs Magi_Tensor:$result);
}

def Magi_BmmOp : Magi_TensorOp<"bmm", [Magi_Torch<["aten::bmm"]>]> {
  let summary = "Batched matrix product of 3-d tensors (aten.bmm)";
  let arguments = (ins Magi_Tensor:$self, Magi_Tensor:$mat2,
                       UnitAttr:$transpose_self, UnitAttr:$transpose_mat2);
  let results = (outs Magi_Tensor:$result);
}

def Magi_GroupedMmOp : Magi_TensorOp<"grouped_mm", [Magi_Torch<["aten::_grouped_mm"]>]> {
  let summary = "Row groups multiplied by a matrix each (aten._grouped_mm)";
  let description = [{
    `self` is `[M, K]`, `mat2` `[G, K, N]` and `offs` `[G]` the cumulative
    ends of the groups of rows: rows `offs[g - 1]` (0 for the first group)
    to `offs[g]` of `self` are multiplied by `mat2[g]`, giving `[M, N]`.
    Rows past `offs[G - 1]` are zeros (PyTorch leaves them unwritten).
    Products accumulate in f32 for f16/bf16 and round once.
    `transpose_mat2`: `mat2` is used with its last two dimensions swapped
    (`magi-fold-transposes`). The mixture-of-experts layers of
    `transformers` (the `grouped_mm` experts implementation) compute their
    projections with it, `offs` from `histc` and `cumsum`.
  }];
  let arguments = (ins Magi_Tensor:$self, Magi_Tensor:$mat2, Magi_IndexTensor:$offs,
                       UnitAttr:$transpose_mat2);
  let results = (outs Magi_Tensor:$result);
}

def Magi_AddmmOp : Magi_TensorOp<"addmm", [Magi_Torch<["aten::addmm"]>]> {
  let summary = "`beta * self + alpha * (mat1 @ mat2)` (aten.addmm)";
  let arguments = (ins Magi_Tensor:$self, Magi_Tensor:$mat1, Magi_Tensor:$mat2,
                       DefaultValuedAttr<F64Attr, "1.0">:$beta,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha,
                       UnitAttr:$transpose_mat1, UnitAttr:$transpose_mat2);
  let results = (outs Magi_Tensor:$result);
}

def Magi_ConvolutionOp : Magi_TensorOp<"convolution", [Magi_Torch<["aten::convolution"]>]> {
  let summary = "N-d convolution, cross-correlation as PyTorch computes it (aten.convolution)";
  let description = [{
    `input` is `[N, C, *spatial]`, `weight` `[O, C / groups, *kernel]` and
    `bias`, when present, `[O]`; 1, 2 or 3 spatial dimensions. Each output
    element is the sum over its group's `C / groups` input channels and the
    kernel window of `input * weight`, plus the bias; the input is padded
    with `padding` zeros on both sides of each spatial dimension and read
    with `stride` and `dilation`. Output size per spatial dimension:
    `(in + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1`.
    Products accumulate in f32 for f16/bf16 (PyTorch's opmath) and round
    once.

    With `transposed` (ConvTranspose, the gradient of a convolution with
    respect to its input), `weight` is `[C, O / groups, *kernel]`: input
    element `i` adds `input[i] * weight[tap]` to output position
    `i * stride - padding + tap * dilation`. Output size per spatial
    dimension: `(in - 1) * stride - 2 * padding + dilation * (kernel - 1) +
    output_padding + 1`, `output_padding` (absent: zeros) smaller than the
    stride or the dilation, as PyTorch requires.
  }];
  let arguments = (ins Magi_Tensor:$input, Magi_Tensor:$weight,
                       Optional<Magi_Tensor>:$bias,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       UnitAttr:$transposed,
                       OptionalAttr<DenseI64ArrayAttr>:$output_padding);
  let results = (outs Magi_Tensor:$result);
}

//===----------------------------------------------------------------------===//
// Normalization, softmax, attention
//===----------------------------------------------------------------------===//

def Magi_NativeLayerNormOp : Magi_Op<"native_layer_norm",
    [Magi_Torch<["aten::native_layer_norm", "aten::native_group_norm", "aten::_native_batch_norm_legit"]>, Pure, AttrSizedOperandSegments, Magi_RefinableInferredType]> {
  let summary = "Layer norm with its saved mean and reciprocal std (aten.native_layer_norm)";
  let description = [{
    Normalizes over the last `normalized_ndim` dimensions. `mean` and `rstd`
    keep the leading dimensions and have size 1 in the normalized ones; they
    are f32 for f16/bf16 inputs.

    `aten.native_group_norm` imports as this op over the input viewed as
    [N, groups, C / groups * HxW], then the per-channel weight and bias: so
    a splitting-op pattern naming group norm matches these layer norms.
  }];
  let arguments = (ins Magi_Tensor:$input, Optional<Magi_Tensor>:$weight,
                       Optional<Magi_Tensor>:$bias, I64Attr:$normalized_ndim,
                       F64Attr:$eps);
  let results = (outs Magi_Tensor:$result, Magi_Tensor:$mean, Magi_Tensor:$rstd);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Magi_MaxPoolOp : Magi_Op<"max_pool",
    [Magi_Torch<["aten::max_pool2d_with_indices", "aten::max_pool3d_with_indices"]>, Pure, Magi_RefinableInferredType]> {
  let summary = "Max pooling with the index of each maximum (aten.max_pool{2,3}d_with_indices)";
  let description = [{
    Pools the last `kernel_size.size()` dimensions (1 to 3) of `self`; the
    dimensions before them are kept. Windows of `kernel_size` taps at
    `dilation` apart, `stride` apart, over the input padded by `padding`
    on both sides (padding never wins). Output size per dimension:
    `(in + 2 * padding - dilation * (kernel - 1) - 1 (+ stride - 1 with
    ceil_mode)) / stride + 1`, one less with `ceil_mode` when the last
    window would start in the padding. `indices` are int64 positions in
    the flattened pooled dimensions; ties keep the first, and a NaN wins
    (the last NaN of the window), as in PyTorch.
  }];
  let arguments = (ins Magi_Tensor:$self, DenseI64ArrayAttr:$kernel_size,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, UnitAttr:$ceil_mode);
  let results = (outs Magi_Tensor:$values, Magi_Tensor:$indices);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
}

def Magi_AvgPoolOp : Magi_TensorOp<"avg_pool",
    [Magi_Torch<["aten::avg_pool1d", "aten::avg_pool2d", "aten::avg_pool3d",
                 "aten::_adaptive_avg_pool2d", "aten::_adaptive_avg_pool3d"]>]> {
  let summary = "Average pooling (aten.avg_pool{1,2,3}d; adaptive pooling to sizes that divide the input's)";
  let description = [{
    Pools the last `kernel_size.size()` dimensions (1 to 3) of `self`, as
    `magi.max_pool` does without dilation. Each window's sum is divided by
    `divisor_override` when set, else by the window's size clipped to the
    padded input (`count_include_pad`) or to the input itself; sums
    accumulate in f32 for f16/bf16.
  }];
  let arguments = (ins Magi_Tensor:$self, DenseI64ArrayAttr:$kernel_size,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       UnitAttr:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "true">:$count_include_pad,
                       OptionalAttr<I64Attr>:$divisor_override);
  let results = (outs Magi_Tensor:$result);
}

def Magi_BatchNormOp : Magi_Op<"batch_norm",
    [Magi_Torch<["aten::_native_batch_norm_legit_no_training"]>, Pure, AttrSizedOperandSegments, Magi_RefinableInferredType]> {
  let summary = "Batch norm with running statistics, as in inference (aten._native_batch_norm_legit_no_training)";
  let description = [{
    `(input - running_mean[c]) / sqrt(running_var[c] + eps) * weight[c] +
    bias[c]` for channel `c`, dimension 1 of `input` (`[N, C, ...]`).
    Statistics, weight and bias are `[C]`, of the input's dtype or f32 (a
    half-precision model may keep them in f32); the result computes in f32
    for f16/bf16 inputs and rounds once to the input's dtype. The ATen op's
    second and third results (the saved statistics) are imported apart.
  }];
  let arguments = (ins Magi_Tensor:$input, Magi_Tensor:$running_mean,
                       Magi_Tensor:$running_var, Optional<Magi_Tensor>:$weight,
                       Optional<Magi_Tensor>:$bias, F64Attr:$eps);
  let results = (outs Magi_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $running_mean `,` $running_var (`weight` $weight^)? (`bias` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Magi_LayerNormOp : Magi_Op<"layer_norm",
    [Magi_Torch<["aten::layer_norm"]>, Pure, AttrSizedOperandSegments, Magi_RefinableInferredType, DeclareOpInterfaceMethods<Magi_DecomposableOpInterface>]> {
  let summary = "Fused layer norm (formed by the graph passes)";
  let description = [{
    `(input - mean) * rsqrt(var + eps) * weight + bias` over the last
    `normalized_ndim` dimensions, with the biased variance, computed in f32 for
    f16/bf16 inputs and rounded to the input dtype. Decomposes to the result of
    `magi.native_layer_norm`.
  }];
  let arguments = (ins Magi_Tensor:$input, Optional<Magi_Tensor>:$weight,
                       Optional<Magi_Tensor>:$bias, I64Attr:$normalized_ndim,
                       F64Attr:$eps);
  let results = (outs Magi_Tensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Magi_RmsNormOp : Magi_Op<"rms_norm",
    [Magi_Torch<["aten::rms_norm"]>, Pure, Magi_RefinableInferredType, DeclareOpInterfaceMethods<Magi_DecomposableOpInterface>]> {
  let summary = "Fused RMS norm over the last dimension (formed by the graph passes)";
  let description = [{
    The LLaMA form: `y = to_copy(x32 * rsqrt(mean(x32^2, -1) + eps), dtype(input))`
    with `x32 = to_copy(input, compute_dtype)`, then `y * weight` when a weight
    is given. `compute_dtype` is f32 unless the attribute says otherwise. The
    result dtype is the promotion of the input and weight dtypes.
  }];
  let arguments = (ins Magi_Tensor:$input, Optional<Magi_Tensor>:$weight,
                       F64Attr:$eps, OptionalAttr<Magi_DtypeAttr>:$compute_dtype);
  let results = (outs Magi_Tensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Magi_SiluAndMulOp : Magi_TensorOp<"silu_and_mul", [Magi_PromotesOperandsOpInterface, DeclareOpInterfaceMethods<Magi_DecomposableOpInterface>]> {
  let summary = "Fused `silu(gate) * up` (SwiGLU; formed by the graph passes)";
  let description = [{
    Decomposes to `magi.mul(magi.silu(gate), up)`; operands broadcast and
    promote as for `magi.mul`.
  }];
  let arguments = (ins Magi_Tensor:$gate, Magi_Tensor:$up);
  let results = (outs Magi_Tensor:$result);
}

def Magi_RotaryEmbeddingOp : Magi_TensorOp<"rotary_embedding", [Magi_PromotesOperandsOpInterface, DeclareOpInterfaceMethods<Magi_DecomposableOpInterface>]> {
  let summary = "Fused rotary position embedding, rotate-half form";
  let description = [{
    `x * cos + rotate_half(x) * sin`, where `rotate_half(x)` is
    `cat(-x[..., d/2:], x[..., :d/2], -1)` over the last dimension `d` (even).
    `cos` and `sin` broadcast against `x`.
  }];
  let arguments = (ins Magi_Tensor:$x, Magi_Tensor:$cos, Magi_Tensor:$sin);
  let results = (outs Magi_Tensor:$result);
  let hasVerifier = 1;
}

def Magi_SoftmaxOp : Magi_TensorOp<"softmax", [Magi_Torch<["aten::_softmax"]>, DeclareOpInterfaceMethods<Magi_DecomposableOpInterface>]> {
  let summary = "Softmax along `dim` (aten._softmax; also formed by the graph passes)";
  let description = [{
    `exp(x - max) / sum(exp(x - max))` along `dim`. With `half_to_float`, an
    f16/bf16 input gives an f32 result.
  }];
  let arguments = (ins Magi_Tensor:$self, I64Attr:$dim,
                       DefaultValuedAttr<BoolAttr, "false">:$half_to_float);
  let results = (outs Magi_Tensor:$result);
}

def Magi_LogSoftmaxOp : Magi_TensorOp<"log_softmax", [Magi_Torch<["aten::_log_softmax"]>]> {
  let summary = "Log-softmax along `dim` (aten._log_softmax)";
  let arguments = (ins Magi_Tensor:$self, I64Attr:$dim,
                       DefaultValuedAttr<BoolAttr, "false">:$half_to_float);
  let results = (outs Magi_Tensor:$result);
}

def Magi_AttentionOp : Magi_Op<"attention",
    [Magi_Torch<["aten::scaled_dot_product_attention"]>, Pure, Magi_RefinableInferredType, DeclareOpInterfaceMethods<Magi_DecomposableOpInterface>]> {
  let summary = "Scaled dot-product attention (aten.scaled_dot_product_attention; fused form)";
  let description = [{
    `softmax(q @ k^T * scale + mask) @ v` with
    `q: [..., Hq, L, E]`, `k: [..., Hkv, S, E]`, `v: [..., Hkv, S, Ev]` and a
    result `[..., Hq, L, Ev]`. `scale` defaults to `1/sqrt(E)`. `mask` is
    additive (floating point) or boolean (`false` masks out) and broadcasts to
    `[..., Hq, L, S]`. `is_causal` masks `j > i`. When `Hq != Hkv`, `Hq` must be
    a multiple of `Hkv` and each key/value head serves `Hq / Hkv` query heads
    (grouped-query attention). A query row whose scores are all `-inf` (fully
    masked) gives zeros, as PyTorch's `_safe_softmax` does. This is Magi's
    default splitting op.

    `layout = "bshd"` (rank 4 only; `magi-fuse`'s `attention-layout` forms
    it) takes `q: [B, L, Hq, E]`, `k, v: [B, S, Hkv, E(v)]` and gives
    `[B, L, Hq, Ev]`: the same as transposing dimensions 1 and 2 of q, k and
    v, attending, and transposing the result back, in the layout the
    projections before and after attention use, so that neither transpose
    is a copy. The mask keeps its `[..., Hq, L, S]` form.
  }];
  let arguments = (ins Magi_Tensor:$query, Magi_Tensor:$key, Magi_Tensor:$value,
                       Optional<Magi_Tensor>:$mask,
                       DefaultValuedAttr<BoolAttr, "false">:$is_causal,
                       OptionalAttr<F64Attr>:$scale,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout_p,
                       DefaultValuedStrAttr<StrAttr, "bhsd">:$layout);
  let results = (outs Magi_Tensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)? attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// Whether q, k, v and the result are [B, S, H, D] (`layout = "bshd"`).
    bool isSequenceMajor() {
      ::mlir::StringAttr layout = getLayoutAttr();
      return layout && layout.getValue() == "bshd";
    }
  }];
  // A mask broadcast by `magi.expand` (transformers expands a [B, 1, L, S]
  // causal mask over the heads) is used as it is: the broadcast is the
  // op's own, and the expanded copy would cost heads times the memory.
  let hasCanonicalizeMethod = 1;
}

def Magi_EfficientAttentionOp : Magi_Op<"scaled_dot_product_efficient_attention",
    [Magi_Torch<["aten::_scaled_dot_product_efficient_attention"]>, Pure, Magi_RefinableInferredType]> {
  let summary = "aten._scaled_dot_product_efficient_attention";
  let description = [{
    Attention as `magi.attention` (without grouped-query heads), returning also
    the log-sum-exp (f32, `[B, H, ceil(L/32)*32]`, or `[B, H, 0]` unless
    `compute_log_sumexp`) and the dropout RNG seed and offset (0-d i64).
  }];
  let arguments = (ins Magi_Tensor:$query, Magi_Tensor:$key, Magi_Tensor:$value,
                       Optional<Magi_Tensor>:$attn_bias,
                       DefaultValuedAttr<BoolAttr, "false">:$compute_log_sumexp,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout_p,
                       DefaultValuedAttr<BoolAttr, "false">:$is_causal,
                       OptionalAttr<F64Attr>:$scale);
  let results = (outs Magi_Tensor:$result, Magi_Tensor:$log_sumexp,
                      Magi_Tensor:$philox_seed, Magi_Tensor:$philox_offset);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`bias` $attn_bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Magi_CudnnAttentionOp : Magi_Op<"scaled_dot_product_cudnn_attention",
    [Magi_Torch<["aten::_scaled_dot_product_cudnn_attention"]>, Pure]> {
  let summary = "aten._scaled_dot_product_cudnn_attention";
  let description = [{
    The SDPA kernel torch.export records where PyTorch picks cuDNN (f16/bf16
    on Hopper, with or without a mask): attention as `magi.attention`
    (without grouped-query heads), returning also the log-sum-exp (f32,
    `[B, H, L, 1]`), the longest query and key sequences (`L` and `S`, as
    index values) and the dropout RNG seed and offset. Its result types are
    the export's. `magi-fuse-ops` makes it `magi.attention` where only the
    output is read (the sequence lengths become the sizes they are).
  }];
  let arguments = (ins Magi_Tensor:$query, Magi_Tensor:$key, Magi_Tensor:$value,
                       Optional<Magi_Tensor>:$attn_bias,
                       DefaultValuedAttr<BoolAttr, "false">:$compute_log_sumexp,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout_p,
                       DefaultValuedAttr<BoolAttr, "false">:$is_causal,
                       OptionalAttr<F64Attr>:$scale);
  let results = (outs Magi_Tensor:$result, Magi_Tensor:$log_sumexp,
                      Index:$max_q, Index:$max_k,
                      Magi_Tensor:$philox_seed, Magi_Tensor:$philox_offset);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`bias` $attn_bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Kernel-level ops the lowering forms
//===----------------------------------------------------------------------===//

def Magi_TiledAttentionOp : Magi_Op<"tiled_attention", [
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<BufferizableOpInterface,
        ["bufferizesToMemoryRead", "bufferizesToMemoryWrite",
         "getAliasingValues", "bufferize"]>]> {
  let summary = "Attention as one tiled, online-softmax kernel (GPU lowering)";
  let description = [{
    `softmax(q @ k^T * scale + mask, causally masked when is_causal) @ v`
    for `q: [B, Hq, L, E]`, `k, v: [B, Hkv, S, E]` into `init: [B, Hq, L, E]`,
    with `Hq` a multiple of `Hkv` (query head `h` reads key/value head
    `h floordiv (Hq / Hkv)`), `E` 64 or 128, f16 or bf16 throughout. The
    optional `mask: [1 or B, 1 or Hq, L, S]` is additive (f16, bf16 or f32)
    or boolean (`false` masks out). A row whose scores are all `-inf` gives
    zeros. The lower phase forms it from `magi.attention` for the GPU
    (`magi-lower-to-linalg{tiled-attention}`) where no dropout is asked for;
    `magi-tiled-attention-to-gpu` makes it one kernel. The probabilities
    are rounded to the input dtype before the product with `v` and the row
    sums are kept in f32, as `magi.attention` defines. With
    `layout = "bshd"` q, k, v and init are `[B, L or S, H, E]` (the kernel
    reads and writes them through transposed views).

    Destination style, like linalg: on tensors it has one result (the
    updated `init`), on buffers none, and it bufferizes in place into
    `init`'s buffer.

    ```mlir
    %o = magi.tiled_attention %q, %k, %v mask(%m : tensor<1x1x?x?xbf16>) outs(%init)
        {scale = 0.0883883476 : f64}
        : tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>, tensor<1x32x?x128xbf16>,
          tensor<1x32x?x128xbf16> -> tensor<1x32x?x128xbf16>
    ```
  }];
  let arguments = (ins AnyShaped:$query, AnyShaped:$key, AnyShaped:$value,
                       Optional<AnyShaped>:$mask,
                       AnyShaped:$init, F64Attr:$scale,
                       DefaultValuedAttr<BoolAttr, "false">:$is_causal,
                       DefaultValuedStrAttr<StrAttr, "bhsd">:$layout);
  let results = (outs Optional<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` `(` $mask^ `:` type($mask) `)`)?
    `outs` `(` $init `)` attr-dict `:`
    type($query) `,` type($key) `,` type($value) `,` type($init)
    (`->` type($result)^)?
  }];
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    /// Whether q, k, v and init are [B, S, H, E] (`layout = "bshd"`).
    bool isSequenceMajor() {
      ::mlir::StringAttr layout = getLayoutAttr();
      return layout && layout.getValue() == "bshd";
    }
    /// The head dimension E.
    int64_t getHeadDim() {
      return ::llvm::cast<::mlir::ShapedType>(getQuery().getType()).getShape().back();
    }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Assertions and opaque ops
//===----------------------------------------------------------------------===//

def Magi_AssertTensorMetadataOp : Magi_Op<"assert_tensor_metadata", [Magi_Torch<["aten::_assert_tensor_metadata"]>]> {
  let summary = "Asserts the dtype of a tensor (aten._assert_tensor_metadata)";
  let description = [{
    Kept until the graph passes remove it. A dtype that contradicts the
    operand's type is a verifier error.
  }];
  let arguments = (ins Magi_Tensor:$self, OptionalAttr<Magi_DtypeAttr>:$dtype);
  let assemblyFormat = "$self attr-dict `:` type($self)";
  let hasVerifier = 1;
  // The verifier proves the assertion statically, so canonicalization drops it.
  let hasCanonicalizeMethod = 1;
}

def Magi_OpaqueOp : Magi_Op<"opaque"> {
  let summary = "Any op Magi has no typed op for, kept whole";
  let description = [{
    Carries the full name of the original op (`aten::topk.default`,
    `mylib::my_op`), its tensor and scalar operands, its results and its
    constant arguments as attributes. Import never fails on an unknown op;
    later phases say clearly that they cannot lower it. The op is assumed to
    have side effects.

    ```mlir
    %v, %i = magi.opaque "aten::topk.default"(%x) {k = 4 : i64, dim = -1 : i64}
        : (tensor<8x16xf32>) -> (tensor<8x4xf32>, tensor<8x4xi64>)
    ```
  }];
  let arguments = (ins StrAttr:$op_name, Variadic<AnyType>:$args);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $op_name `(` $args `)` attr-dict `:` functional-type($args, $results)
  }];
  let hasVerifier = 1;
}

#endif // MAGI_DIALECT_MAGI_IR_MAGIOPS_TD
