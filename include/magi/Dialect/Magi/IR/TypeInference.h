//===- TypeInference.h - PyTorch dtype promotion and shapes -----*- C++ -*-===//
//
// The rules the magi ops use to infer result types: PyTorch's type promotion
// (`torch.result_type`) and broadcasting, over MLIR types.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_DIALECT_MAGI_IR_TYPEINFERENCE_H
#define MAGI_DIALECT_MAGI_IR_TYPEINFERENCE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/TypeRange.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include <optional>

namespace magi {

/// The dtype categories of PyTorch's promotion rules, in increasing order.
enum class DtypeCategory { Bool, Integer, Float };

/// Category of a tensor element type or scalar type (`index` is an integer).
DtypeCategory getDtypeCategory(mlir::Type type);

/// The dtype PyTorch gives `torch.promote_types(a, b)` for two element types.
mlir::Type promoteDtypes(mlir::Type a, mlir::Type b);

/// The dtype of `torch.result_type(...)` over op operands: ranked tensors
/// (dimensioned or 0-d) and Python scalars (`f64`, `i64`, `i1`, `index`),
/// following PyTorch's three priority classes. Null when there is no operand.
mlir::Type resultDtype(mlir::TypeRange operandTypes);

/// The dtype a Python scalar of MLIR type `type` (f64, i64, i1, index)
/// stands for in promotion: the default float dtype, int64 or bool.
mlir::Type wrappedNumberDtype(mlir::Type type);

/// The value of a constant scalar (an `arith.constant` of a float or integer
/// type), if `value` is one.
std::optional<double> getConstantScalar(mlir::Value value);

/// The default floating-point dtype (`torch.get_default_dtype()`, f32).
mlir::Type defaultFloatDtype(mlir::MLIRContext *context);

/// True for f16 and bf16.
bool isHalfDtype(mlir::Type type);

/// Broadcasts shapes (numpy rules, `ShapedType::kDynamic` for `?`). Fails with
/// a diagnostic at `loc` (when given) on incompatible static sizes.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
                std::optional<mlir::Location> loc);

/// Maps a possibly negative dimension to `[0, rank)`; fails with a diagnostic
/// when out of range. `rank` may be 0, in which case -1 and 0 are accepted as
/// PyTorch does for scalars (result 0).
mlir::FailureOr<int64_t> normalizeDim(int64_t dim, int64_t rank,
                                      std::optional<mlir::Location> loc);

/// Python's `start:end:step` over a dimension of `size` (step > 0): a
/// negative bound counts from the end, then both are clamped to
/// `[0, size]`. The rule of aten.slice, shared by type inference and the
/// interpreter; the lowering builds the same rule as IR for dynamic bounds
/// (`clampBound` in LowerShapes.cpp) and folds static ones with this.
struct SliceBounds {
  int64_t start = 0, length = 0;
};
SliceBounds resolveSliceBounds(int64_t size, int64_t start, int64_t end,
                               int64_t step);

/// True when `declared` refines `inferred`: the same type, except that a
/// dimension inferred as `?` may be declared static.
bool isRefinementOf(mlir::Type declared, mlir::Type inferred);
bool areRefinementsOf(mlir::TypeRange declared, mlir::TypeRange inferred);
/// True when `op` infers result types (InferTypeOpInterface) of which its
/// declared ones are refinements: what a rewrite that changes an op's
/// operands, or builds one with a type of its choosing, must keep.
bool declaredTypesHold(mlir::Operation *op);

/// What an op's verifier accepts for its declared results against the
/// inferred ones: the same dtype and rank, and each size the same or `?` on
/// either side. A declared size may be static where inference knows only
/// `?` (torch.export knows sizes inference cannot), or `?` where folding
/// has since made inference know it (a sym_size folded to a constant); two
/// different static sizes are a contradiction.
bool areCompatibleResults(mlir::TypeRange declared, mlir::TypeRange inferred);

/// The most static type both describe (a size static where either has it;
/// non-tensor types must be equal); null when they conflict.
mlir::Type meetTypes(mlir::Type a, mlir::Type b);

/// Infers `op`'s result types again from its operands (an op whose
/// operands became more static: a specialized symbol, an inlined
/// definition) and gives each tensor result the meet of its type and the
/// inferred one. Ops without type inference are left alone. Fails (with
/// an error on `op`) when inference fails or a result conflicts.
mlir::LogicalResult refineResultTypes(mlir::Operation *op);

} // namespace magi

#endif // MAGI_DIALECT_MAGI_IR_TYPEINFERENCE_H
