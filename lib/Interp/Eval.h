//===- Eval.h - Internals shared by the interpreter's op groups -*- C++ -*-===//
//
// The interpreter's driver (Interpreter.cpp) walks the graph and hands each
// op to one of the op groups (Elementwise, Reductions, Shape, NN). A group
// reads operand values from the environment, computes, and records results;
// the driver then checks them against the declared result types.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_LIB_INTERP_EVAL_H
#define MAGI_LIB_INTERP_EVAL_H

#include "magi/Interp/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include <memory>
#include <optional>

namespace magi::interp::detail {

/// Run-time values of SSA values. Python scalars (`f64`, `i64`, `i1`,
/// `index`) are 0-d tensors of f64, i64, i1 and i64. References returned by
/// `get` stay valid while other values are set, so an op may read operands
/// while it records results.
class Env {
public:
  bool contains(mlir::Value v) const { return values.count(v); }
  /// The value of `v`, which must have one: the driver checks every operand
  /// of an op before the op is evaluated.
  const Tensor &get(mlir::Value v) const {
    auto it = values.find(v);
    assert(it != values.end() && "value has no run-time value");
    return *it->second;
  }
  /// The integer value of a scalar (`index`, `i64`, `i1`).
  int64_t getInt(mlir::Value v) const { return get(v).getInt(0); }
  void set(mlir::Value v, Tensor t) {
    values[v] = std::make_unique<Tensor>(std::move(t));
  }
  /// Drops the value of `v` (after its last use).
  void erase(mlir::Value v) { values.erase(v); }

private:
  llvm::DenseMap<mlir::Value, std::unique_ptr<Tensor>> values;
};

/// The element type declared for the tensor value `v`.
inline mlir::Type getDeclaredDtype(mlir::Value v) {
  return mlir::cast<mlir::RankedTensorType>(v.getType()).getElementType();
}

/// The entries of a mixed static/dynamic list (DynamicIndexList): the static
/// ones as written, each `?` from the next value of `dynamic`.
llvm::SmallVector<int64_t> resolveMixedList(llvm::ArrayRef<int64_t> statics,
                                            mlir::ValueRange dynamic,
                                            const Env &env);

/// The most bytes one tensor the interpreter makes may hold.
inline constexpr int64_t kMaxTensorBytes = int64_t(16) << 30;

/// Checks a result shape that run-time values decided (a size from a SymInt,
/// a pad, an arange's bounds) before the tensor is made: no negative size,
/// and its bytes neither overflow int64 nor pass kMaxTensorBytes. The error
/// is at `op`.
mlir::LogicalResult checkResultSize(mlir::Operation *op, mlir::Type dtype,
                                    llvm::ArrayRef<int64_t> shape);

/// Walks the multi-indices of `shape` in row-major order and keeps, for each
/// operand k, the element offset `base[k] + sum(index[d] * strides[k][d])`.
class IndexWalker {
public:
  IndexWalker(llvm::ArrayRef<int64_t> shape,
              llvm::ArrayRef<llvm::SmallVector<int64_t>> strides,
              llvm::ArrayRef<int64_t> bases = {});
  int64_t offset(unsigned k) const { return offsets[k]; }
  /// Moves to the next multi-index.
  void next();

private:
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<llvm::SmallVector<int64_t>> strides;
  llvm::SmallVector<int64_t> index;
  llvm::SmallVector<int64_t> offsets;
};

/// Strides that read a contiguous tensor of `shape` as if broadcast to
/// `target` (0 along broadcast dimensions). `shape` must broadcast to it.
llvm::SmallVector<int64_t> getBroadcastStrides(llvm::ArrayRef<int64_t> shape,
                                               llvm::ArrayRef<int64_t> target);

/// A contiguous tensor of `shape` whose element at multi-index `i` is element
/// `offset + sum(i[d] * strides[d])` of `src`: a strided view, materialized.
Tensor gatherStrided(const Tensor &src, llvm::ArrayRef<int64_t> shape,
                     llvm::ArrayRef<int64_t> strides, int64_t offset = 0);

/// `src` broadcast to `shape` and converted to `dtype`.
Tensor broadcastTo(const Tensor &src, llvm::ArrayRef<int64_t> shape,
                   mlir::Type dtype);

/// The broadcast shape of `shapes` at run time; a diagnostic at `loc` when
/// they are incompatible.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastRuntimeShapes(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
                       mlir::Location loc);

/// The value of operand `v` converted to the dtype an op computes in: the
/// promoted `dtype` for tensors; for a Python scalar next to a half dtype,
/// f32, as PyTorch passes scalars to kernels in their "opmath" type.
Tensor castOperand(const Tensor &value, mlir::Value v, mlir::Type dtype);

/// Splits `shape` around dimension `dim` into (outer, size, inner) element
/// counts, for ops that work along one dimension.
struct DimSplit {
  int64_t outer, size, inner;
};
DimSplit splitAt(llvm::ArrayRef<int64_t> shape, int64_t dim);

/// Whether `dtype` is a floating-point dtype.
bool isFloatDtype(mlir::Type dtype);

// Op groups: each evaluates `op` if it belongs to the group and returns
// nothing otherwise.
std::optional<mlir::LogicalResult> evalElementwiseOp(mlir::Operation *op,
                                                     Env &env);
std::optional<mlir::LogicalResult> evalReductionOp(mlir::Operation *op,
                                                   Env &env);
std::optional<mlir::LogicalResult> evalShapeOp(mlir::Operation *op, Env &env);
std::optional<mlir::LogicalResult> evalNNOp(mlir::Operation *op, Env &env);

} // namespace magi::interp::detail

#endif // MAGI_LIB_INTERP_EVAL_H
