//===- LowerToLinalgCommon.h - Helpers shared by the linalg lowering ------===//
//
// The lowering of magi ops to linalg on tensors is split by op family
// (elementwise, reductions and normalization, matrix products and attention,
// shapes and indexing); each family adds its patterns with a `populate*`
// function. The scalar conversions, broadcasting maps and size helpers they
// share live here.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_PASSES_LOWER_LOWERTOLINALGCOMMON_H
#define MAGI_PASSES_LOWER_LOWERTOLINALGCOMMON_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace magi::lower {

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

mlir::Value floatConst(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                       double value);
mlir::Value intConst(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                     int64_t value);
/// A float or integer constant of `type`.
mlir::Value typedConst(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                       double value);

/// Converts a scalar between the element types Magi uses (and `index`), as
/// PyTorch converts: floats truncate toward zero into integers, nonzero is
/// true, bools are 0/1 (unsigned).
mlir::Value convertScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                          mlir::Type to);

/// Marks a `magi.to_copy` whose source was a uint8 tensor before the
/// lowering made every uint8 tensor i8 (magi-lower-to-linalg).
inline constexpr llvm::StringLiteral kUnsignedSourceAttrName =
    "magi.unsigned_source";

/// `convertScalar` for a `to_copy` from or to uint8 (`v` and `to` are i8
/// for uint8): from uint8 zero-extends; from a float to uint8 goes through
/// i64, as PyTorch does (c10's cast to uint8), so -1.0 becomes 255.
mlir::Value convertAcrossUnsigned(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value v, mlir::Type to,
                                  bool fromUnsigned, bool toUnsigned);

/// `v` rounded to `dtype` and converted back: what an intermediate result
/// stored in `dtype` holds. The identity when `dtype` is `v`'s type.
mlir::Value roundThrough(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                         mlir::Type dtype);

/// The type an op computes in: half types compute in f32 (PyTorch's opmath).
mlir::Type opmath(mlir::Type type);

//===----------------------------------------------------------------------===//
// Index arithmetic on OpFoldResults (folded when both sides are constants)
//===----------------------------------------------------------------------===//

mlir::Value toIndexValue(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::OpFoldResult ofr);
mlir::OpFoldResult addIndex(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::OpFoldResult x, mlir::OpFoldResult y);
mlir::OpFoldResult subIndex(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::OpFoldResult x, mlir::OpFoldResult y);
mlir::OpFoldResult mulIndex(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::OpFoldResult x, mlir::OpFoldResult y);
mlir::OpFoldResult minIndex(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::OpFoldResult x, mlir::OpFoldResult y);
mlir::OpFoldResult maxIndex(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::OpFoldResult x, mlir::OpFoldResult y);
/// The sizes of a mixed static/dynamic list (a magi DynamicIndexList).
llvm::SmallVector<mlir::OpFoldResult>
mixedList(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> statics,
          mlir::ValueRange dynamic);
/// The number of elements of `tensor`.
mlir::OpFoldResult numElements(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value tensor);

//===----------------------------------------------------------------------===//
// Tensors and generics
//===----------------------------------------------------------------------===//

/// The map that reads an operand of `operandType` broadcast to a result of
/// rank `resultRank` with `resultShape` (numpy rules: right-aligned; a static
/// size-1 dimension where the result's is not 1 reads index 0). Loop
/// dimension `i` is result dimension `loopDims[i]` when `loopDims` is given.
mlir::AffineMap broadcastMap(mlir::RankedTensorType operandType,
                             llvm::ArrayRef<int64_t> resultShape,
                             unsigned numLoops,
                             llvm::ArrayRef<unsigned> loopDims = {});

/// A `tensor.empty` of `type` whose dynamic sizes come from `tensor.dim` of
/// the tensor operand that has each dimension (right-aligned, size not 1).
mlir::FailureOr<mlir::Value> emptyLike(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::RankedTensorType type,
                                       mlir::ValueRange operands);

/// A `tensor.empty` of `sizes` (static where constant).
mlir::Value emptyOfSizes(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::ArrayRef<mlir::OpFoldResult> sizes,
                         mlir::Type elementType);

/// A `tensor.empty` of `sizes` filled with `value` (a scalar of the element
/// type).
mlir::Value filledOfSizes(mlir::OpBuilder &b, mlir::Location loc,
                          llvm::ArrayRef<mlir::OpFoldResult> sizes,
                          mlir::Value value);

llvm::SmallVector<mlir::utils::IteratorType> parallelIterators(int64_t n);

/// Computes one element of a generic from its input block arguments.
using BodyBuilder = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// One all-parallel `linalg.generic` writing `init` (identity map) from
/// `inputs` read through `inputMaps`; `body` gives each element.
mlir::Value buildParallelGeneric(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value init, mlir::ValueRange inputs,
                                 llvm::ArrayRef<mlir::AffineMap> inputMaps,
                                 BodyBuilder body);

/// `tensor` with its elements converted to `elementType` (one generic), or
/// `tensor` itself when it has that element type.
mlir::Value convertElements(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value tensor, mlir::Type elementType);

/// Reassociation groups that attach each unit dimension (`isUnit`) to the
/// next kept dimension; trailing unit dimensions join the last group. Empty
/// when every dimension is a unit one (collapse to or expand from 0-d).
llvm::SmallVector<mlir::ReassociationIndices>
unitDimGroups(llvm::ArrayRef<bool> isUnit);

/// The dimension `dim` of an op on a tensor of `rank`, normalized; a match
/// failure when out of range.
mlir::FailureOr<int64_t> normalizedDim(mlir::PatternRewriter &rewriter,
                                       mlir::Operation *op, int64_t dim,
                                       int64_t rank);

//===----------------------------------------------------------------------===//
// Pattern sets
//===----------------------------------------------------------------------===//

void populateElementwisePatterns(mlir::RewritePatternSet &patterns);
void populateReductionPatterns(mlir::RewritePatternSet &patterns);
void populateMatmulPatterns(mlir::RewritePatternSet &patterns);
void populateConvolutionPatterns(mlir::RewritePatternSet &patterns);
/// `tiled`: attention that fits becomes magi.tiled_attention.
void populateAttentionPatterns(mlir::RewritePatternSet &patterns, bool tiled);
void populateShapePatterns(mlir::RewritePatternSet &patterns);
void populateIndexingPatterns(mlir::RewritePatternSet &patterns);

/// Replaces `op` with `result`, cast to `type` first when its static sizes
/// differ (a lowering may know fewer sizes than the op's declared type).
mlir::LogicalResult replaceWithType(mlir::PatternRewriter &rewriter,
                                    mlir::Operation *op, mlir::Value result,
                                    mlir::Type type);

} // namespace magi::lower

#endif // MAGI_PASSES_LOWER_LOWERTOLINALGCOMMON_H
