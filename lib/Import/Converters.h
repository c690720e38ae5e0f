//===- Converters.h - The importer's table of torch ops ---------*- C++ -*-===//
//
// One row per torch op Magi imports to a typed op, keyed by the op's
// qualified name (`aten::mm`, `aten::max.dim`, `_operator::add`): the magi op
// it becomes and the function that reads the node's arguments. The rows are
// written by op family (Convert<Family>.cpp); each row's name is one the
// magi op declares in ODS (`Magi_Torch<[...]>`, TorchOpInterface), which a
// unit test checks.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_LIB_IMPORT_CONVERTERS_H
#define MAGI_LIB_IMPORT_CONVERTERS_H

#include "Importer.h"
#include "llvm/ADT/StringRef.h"
#include <vector>

namespace magi::torch_import {

/// Reads the node's arguments and creates its op (`Node::emit`), or keeps
/// the node opaque (`Node::opaque`) for a form the op cannot hold.
using Converter = mlir::LogicalResult (*)(Node &);

struct ConverterRow {
  /// `namespace::op` (every overload) or `namespace::op.overload`.
  llvm::StringRef torchName;
  /// The magi op the node becomes.
  llvm::StringRef opName;
  Converter convert;
};

template <typename OpT>
ConverterRow row(llvm::StringRef torchName, Converter convert) {
  return {torchName, OpT::getOperationName(), convert};
}

// The rows of each family.
void addSymbolicConverters(std::vector<ConverterRow> &rows);
void addElementwiseConverters(std::vector<ConverterRow> &rows);
void addReductionConverters(std::vector<ConverterRow> &rows);
void addShapeConverters(std::vector<ConverterRow> &rows);
void addIndexingConverters(std::vector<ConverterRow> &rows);
void addNNConverters(std::vector<ConverterRow> &rows);
void addComposedConverters(std::vector<ConverterRow> &rows);

/// A slice-like op (slice, slice_scatter) over `leading`: the node's `dim`
/// and `[start, end, step]`, SymInt bounds as operands after `leading`.
mlir::LogicalResult emitSlice(Node &node, llvm::ArrayRef<mlir::Value> leading);

/// A select-like op (select, select_scatter) over `leading`: the node's
/// `dim` and `index`, a SymInt index as an operand after `leading`; any
/// other index keeps the node opaque when `symIntOnly`.
mlir::LogicalResult emitSelect(Node &node, llvm::ArrayRef<mlir::Value> leading,
                               bool symIntOnly);

/// The `ord`-norm of `x` over `dims` (all when absent), as PyTorch's
/// linalg_vector_norm defines it: sqrt(sum(x * x)) for 2, sum(abs(x)) for
/// 1, amax / amin of abs(x) for +-inf, the count of nonzeros for 0,
/// pow(sum(pow(abs(x), ord)), 1 / ord) otherwise; the reduction has
/// `resultType`, the elementwise steps before it x's type. Emitted as the
/// node's result; a non-float x or a result of another dtype keeps the
/// node opaque (callers that build x check that first).
mlir::LogicalResult emitNorm(Node &node, mlir::Value x, double ord,
                             std::optional<llvm::ArrayRef<int64_t>> dims, bool keepdim,
                             mlir::RankedTensorType resultType);

/// The coordinates of `self`'s nonzero elements, [n, rank] i64, n read on
/// the host (aten.nonzero's composition, ConvertComposed.cpp); any size may
/// be symbolic.
mlir::Value buildNonzero(Node &node, mlir::Value self);

/// The scalar argument `valueArg` when it is known only when the graph runs
/// (a SymInt, or a SymFloat from a float .item()) and ones of `dtype` times
/// it keep that dtype (a float dtype, or an integer one and a SymInt);
/// otherwise none (ConvertShapes.cpp).
std::optional<mlir::Value> symbolicFill(Node &node, llvm::StringRef valueArg, mlir::Type dtype);

/// An f64 constant: a Python number beside a tensor in an elementwise op.
mlir::Value f64Scalar(Node &node, double v);

/// magi.full_like of `self` with `type` (shape and dtype), every element
/// `fill`: a composed conversion's ones or zeros.
mlir::Value filledLike(Node &node, mlir::Value self, mlir::RankedTensorType type, double fill);

/// An intermediate op of a composed conversion, with its result type given
/// (the op's verifier checks it against what it infers).
mlir::Value makeOp(Node &node, llvm::StringRef name, mlir::ValueRange operands,
                   mlir::Type type, llvm::ArrayRef<mlir::NamedAttribute> attrs = {});

/// adaptive_avg_pool over the last `outSize.size()` dims of a static float
/// `self` whose windows are uneven: per dim, a [out, in] matrix of window
/// weights (1 / the window's length inside it, from arange arithmetic)
/// multiplied in and summed over `in`; f16 and bf16 in f32, rounded once.
mlir::LogicalResult emitAdaptiveAvgPoolByWeights(Node &node, mlir::Value self,
                                                 llvm::ArrayRef<int64_t> outSize);

/// Every row, in the families' order.
llvm::ArrayRef<ConverterRow> converterRows();

/// The row for the qualified name `name`: the row of that overload, else the
/// row of the op for every overload; null when there is none.
const ConverterRow *findConverter(llvm::StringRef name);

} // namespace magi::torch_import

#endif // MAGI_LIB_IMPORT_CONVERTERS_H
