//===- LowerConvolution.cpp - Convolutions, pooling and batch norm --------===//
//
// The ops of convolutional networks.
//
// magi.convolution, products accumulating in opmath (f32 for half types):
// - one group: each image's windows gathered into columns [C * kernel,
//   out] (im2col; zeros outside the input, no padded copy; a 1 x 1
//   convolution of stride 1 is its own columns), then one matrix product
//   per image, weight [O, C * kernel] times columns, the weight shared by
//   every image, or with few positions an image one product over the
//   images' columns side by side; the GPU path hands it to cuBLASLt
//   (magi-matmul-to-library-call). One elementwise generic adds the bias
//   and rounds.
// - several groups, each with at least 64 channels times taps and 8 output
//   channels (and output positions of known sizes): as one group, the
//   images' columns side by side, the product batched over the groups.
// - other groups (depthwise convolutions: one channel a group, a product
//   of nine taps): the input padded (a magi.constant_pad_nd, lowered in
//   turn), one generic over [N, G, O/G, *out] x [C/G, *kernel], the
//   channels split into groups, from the bias or zero; one generic rounds,
//   and the groups collapse back into channels.
//
// magi.max_pool and magi.avg_pool as one reduction generic over the output
// and the window, reading the input with tensor.extract where the tap lies
// inside it (the padding is skipped): max pool keeps the best value and its
// flat index in PyTorch's order, avg pool sums in opmath; one generic then
// divides each sum by its window's divisor.
//
// A transposed convolution becomes ordinary ones, lowered as above: one per
// output phase (sub-pixel) with dilation 1 and static image sizes, else one
// over its input spread by the stride (see rewriteTransposed).
//
// magi.batch_norm as one elementwise generic reading the per-channel
// statistics, weight and bias through a map of dimension 1, in opmath.
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalgCommon.h"

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace magi;
using namespace magi::lower;

namespace {

// The number of windows along a dimension of `size` (PyTorch's
// pooling_output_shape, PoolingShape.h), as index arithmetic: `static` when
// the result type knows it.
OpFoldResult windowCount(PatternRewriter &rewriter, Location loc,
                         OpFoldResult size, int64_t staticCount, int64_t kernel,
                         int64_t padding, int64_t stride, int64_t dilation,
                         bool ceilMode) {
  if (!ShapedType::isDynamic(staticCount))
    return rewriter.getIndexAttr(staticCount);
  // (in + 2 pad - dilation (k - 1) - 1 (+ stride - 1)) / stride + 1, one
  // less with ceil_mode when the last window starts in the padding.
  auto c = [&](int64_t v) {
    return Value(arith::ConstantIndexOp::create(rewriter, loc, v));
  };
  Value in = toIndexValue(rewriter, loc, size);
  Value span = arith::AddIOp::create(rewriter, loc, in,
                                     c(2 * padding - dilation * (kernel - 1) -
                                       1 + (ceilMode ? stride - 1 : 0)));
  Value out = arith::AddIOp::create(
      rewriter, loc,
      arith::FloorDivSIOp::create(rewriter, loc, span, c(stride)), c(1));
  if (ceilMode) {
    Value lastStart = arith::MulIOp::create(
        rewriter, loc, arith::SubIOp::create(rewriter, loc, out, c(1)),
        c(stride));
    Value inPadding = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::sge, lastStart,
        arith::AddIOp::create(rewriter, loc, in, c(padding)));
    out = arith::SelectOp::create(
        rewriter, loc, inPadding,
        arith::SubIOp::create(rewriter, loc, out, c(1)), out);
  }
  return out;
}

ReassociationIndices dimRange(int64_t from, int64_t to) {
  ReassociationIndices dims;
  for (int64_t d = from; d < to; ++d)
    dims.push_back(d);
  return dims;
}

// Output positions an image under which the images' columns sit side by
// side in one product: cuBLASLt ran 8 products of [512, 4608] x [4608, 49]
// (ResNet's last 3 x 3 convolution at batch 8) at 16 TFLOP/s of an H100's
// 770 (bench/conv, docs/pipeline.md).
constexpr int64_t kPositionsToJoinImages = 1024;

// A convolution of several groups is a product per group (below) when each
// group's product is deep and tall enough for the tensor cores: at least
// this many channels times taps (k) and output channels (m) a group.
// Depthwise convolutions (one channel a group, k = the taps) and ResNeXt's
// groups of 4 channels stay one generic, a thread an output element.
constexpr int64_t kGroupDepthForProduct = 64;
constexpr int64_t kGroupRowsForProduct = 8;

// Whether a convolution reads its input as its own columns: 1 x 1, stride
// 1, no padding.
bool isOwnColumns(RankedTensorType weightType, ArrayRef<int64_t> stride,
                  ArrayRef<int64_t> padding) {
  auto one = [](int64_t v) { return v == 1; };
  return llvm::all_of(weightType.getShape().drop_front(2), one) &&
         llvm::all_of(stride, one) &&
         llvm::all_of(padding, [](int64_t p) { return p == 0; });
}

// A convolution over `input` as im2col and a matrix product (see the file
// comment): the gather reads zeros within `padding` of the input's edges;
// `outSizes` are the output's spatial sizes. With several groups (output
// positions of known sizes only) the images' columns always sit side by
// side, [G, C/G * kernel, N * out], and the product is batched over the
// groups, weight [G, O/G, C/G * kernel]: one cuBLASLt call with a stride
// for each operand, where images and groups both batched could not be.
Value convolutionAsProduct(PatternRewriter &rewriter, Location loc,
                           ConvolutionOp op, Value input,
                           ArrayRef<OpFoldResult> outSizes,
                           ArrayRef<int64_t> padding) {
  MLIRContext *ctx = rewriter.getContext();
  auto weightType = cast<RankedTensorType>(op.getWeight().getType());
  auto resType = cast<RankedTensorType>(op.getType());
  Type el = resType.getElementType(), acc = opmath(el);
  int64_t spatial = resType.getRank() - 2;
  int64_t outChannels = weightType.getDimSize(0);
  auto groups = static_cast<int64_t>(op.getGroups());
  int64_t outPerGroup = outChannels / groups;
  ArrayRef<int64_t> stride = op.getStride(), dilation = op.getDilation();
  ArrayRef<int64_t> kernel = weightType.getShape().drop_front(2);
  SmallVector<OpFoldResult> inSizes =
      tensor::getMixedSizes(rewriter, loc, input);
  auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };

  bool ownColumns = groups == 1 && isOwnColumns(weightType, stride, padding);
  // Few positions an image: the images' columns side by side, one product
  // [O, C * kernel] x [C * kernel, N * out], read back image by image.
  std::optional<int64_t> images = getConstantIntValue(inSizes[0]);
  // Output positions an image, when known.
  int64_t perImage = 1;
  bool knownPositions = true;
  for (OpFoldResult size : outSizes) {
    std::optional<int64_t> n = getConstantIntValue(size);
    knownPositions &= n.has_value();
    perImage *= n.value_or(1);
  }
  bool joinImages = !ownColumns && knownPositions &&
                    (groups > 1 || (images != 1 && perImage < kPositionsToJoinImages));
  assert((groups == 1 || joinImages) && "groups need output positions of known sizes");

  // Columns [N, C * kernel, out], or [C * kernel, N * out] with joinImages.
  Value columns;
  if (ownColumns) {
    columns = tensor::CollapseShapeOp::create(
        rewriter, loc, input,
        SmallVector<ReassociationIndices>{{0}, {1}, dimRange(2, 2 + spatial)});
  } else {
    // [N, C, *kernel, positions] ([C, *kernel, N, positions] with
    // joinImages): the tap at `out * stride + tap * dilation - padding`.
    SmallVector<OpFoldResult> sizes;
    auto addDim = [&](OpFoldResult size) {
      sizes.push_back(size);
      return dim(static_cast<int64_t>(sizes.size()) - 1);
    };
    // The GPU path moves rows of whole 16-byte vectors as vectors, a
    // vector's row and bounds the same for all its elements; positions of
    // known sizes in shorter rows are one dimension (a row of 784 at
    // 28 x 28, not rows of 28), and so are the images' with joinImages and
    // a known count.
    std::optional<int64_t> rowLength = getConstantIntValue(outSizes.back());
    bool wholeVectors =
        rowLength && (*rowLength * el.getIntOrFloatBitWidth() / 8) % 16 == 0;
    bool flatPositions =
        !wholeVectors && llvm::all_of(outSizes, [](OpFoldResult size) {
          return getConstantIntValue(size).has_value();
        });
    AffineExpr n, c, flat;
    SmallVector<AffineExpr> taps, outAt;
    if (!joinImages)
      n = addDim(inSizes[0]);
    c = addDim(inSizes[1]);
    for (int64_t d = 0; d < spatial; ++d)
      taps.push_back(addDim(rewriter.getIndexAttr(kernel[d])));
    if (joinImages && images && flatPositions) {
      AffineExpr column = addDim(rewriter.getIndexAttr(*images * perImage));
      n = column.floorDiv(perImage);
      flat = column % perImage;
    } else {
      if (joinImages)
        n = addDim(inSizes[0]);
      if (flatPositions)
        flat = addDim(rewriter.getIndexAttr(perImage));
    }
    if (flat) {
      // Row-major position `flat` over the output's spatial sizes.
      int64_t after = perImage;
      for (int64_t d = 0; d < spatial; ++d) {
        int64_t size = *getConstantIntValue(outSizes[d]);
        after /= size;
        outAt.push_back(d == 0 ? flat.floorDiv(after) : flat.floorDiv(after) % size);
      }
    } else {
      for (int64_t d = 0; d < spatial; ++d)
        outAt.push_back(addDim(outSizes[d]));
    }
    SmallVector<AffineExpr> read{n, c};
    for (int64_t d = 0; d < spatial; ++d)
      read.push_back(outAt[d] * stride[d] + taps[d] * dilation[d]);
    auto rank = static_cast<int64_t>(sizes.size());
    Value init = emptyOfSizes(rewriter, loc, sizes, el);
    Value windows;
    if (llvm::all_of(padding, [](int64_t p) { return p == 0; })) {
      windows = buildParallelGeneric(
          rewriter, loc, init, input, AffineMap::get(rank, 0, read, ctx),
          [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    } else {
      // Each element at its computed position, zero outside the input (the
      // position clamped into it for the read).
      windows = buildParallelGeneric(
          rewriter, loc, init, ValueRange{}, {},
          [&](OpBuilder &b, Location l, ValueRange) -> Value {
            SmallVector<Value> loops;
            for (int64_t i = 0; i < rank; ++i)
              loops.push_back(linalg::IndexOp::create(b, l, i));
            auto at = [&](AffineExpr e) -> Value {
              return affine::AffineApplyOp::create(
                  b, l, AffineMap::get(rank, 0, e, ctx), loops);
            };
            SmallVector<Value> indices{at(read[0]), at(read[1])};
            Value inside;
            Value zero = arith::ConstantIndexOp::create(b, l, 0);
            for (int64_t d = 0; d < spatial; ++d) {
              Value position = at(read[2 + d] - padding[d]);
              if (padding[d] == 0) {
                indices.push_back(position);
                continue;
              }
              Value size = toIndexValue(b, l, inSizes[2 + d]);
              Value ok = arith::AndIOp::create(
                  b, l,
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge,
                                        position, zero),
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                        position, size));
              inside = inside ? Value(arith::AndIOp::create(b, l, inside, ok)) : ok;
              Value lastIndex = arith::SubIOp::create(
                  b, l, size, arith::ConstantIndexOp::create(b, l, 1));
              indices.push_back(arith::MaxSIOp::create(
                  b, l, arith::MinSIOp::create(b, l, position, lastIndex),
                  zero));
            }
            Value value = tensor::ExtractOp::create(b, l, input, indices);
            return arith::SelectOp::create(b, l, inside, value,
                                           typedConst(b, l, el, 0.0));
          });
    }
    // The taps join the channel; the images and positions are the rest.
    SmallVector<ReassociationIndices> groups =
        joinImages ? SmallVector<ReassociationIndices>{dimRange(0, 1 + spatial),
                                                       dimRange(1 + spatial, rank)}
                   : SmallVector<ReassociationIndices>{
                         {0}, dimRange(1, 2 + spatial), dimRange(2 + spatial, rank)};
    columns = tensor::CollapseShapeOp::create(rewriter, loc, windows, groups);
  }
  Value weight = tensor::CollapseShapeOp::create(
      rewriter, loc, op.getWeight(),
      SmallVector<ReassociationIndices>{{0}, dimRange(1, 2 + spatial)});
  if (groups > 1) {
    // [C * kernel, N * out] -> [G, C/G * kernel, N * out] (the channel is
    // the outer factor); [O, C/G * kernel] -> [G, O/G, C/G * kernel].
    auto splitRows = [&](Value v) {
      SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, v);
      int64_t rows = *getConstantIntValue(sizes[0]);
      SmallVector<OpFoldResult> split{rewriter.getIndexAttr(groups),
                                      rewriter.getIndexAttr(rows / groups), sizes[1]};
      SmallVector<int64_t> shape;
      for (OpFoldResult size : split)
        shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
      return tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get(shape, cast<RankedTensorType>(v.getType()).getElementType()),
          v, SmallVector<ReassociationIndices>{{0, 1}, {2}}, split);
    };
    columns = splitRows(columns);
    weight = splitRows(weight);
  }

  // Loops n, o, position, k: weight (o, k) x columns (n, k, position); or
  // o, column, k with joinImages.
  SmallVector<OpFoldResult> columnSizes =
      tensor::getMixedSizes(rewriter, loc, columns);
  // With groups: g, o, column, k; weight (g, o, k) x columns (g, k, column).
  SmallVector<OpFoldResult> productSizes;
  SmallVector<AffineMap> maps;
  if (groups > 1) {
    productSizes = {rewriter.getIndexAttr(groups), rewriter.getIndexAttr(outPerGroup),
                    columnSizes[2]};
    maps = {AffineMap::get(4, 0, {dim(0), dim(1), dim(3)}, ctx),
            AffineMap::get(4, 0, {dim(0), dim(3), dim(2)}, ctx),
            AffineMap::get(4, 0, {dim(0), dim(1), dim(2)}, ctx)};
  } else if (joinImages) {
    productSizes = {rewriter.getIndexAttr(outChannels), columnSizes[1]};
    maps = {AffineMap::get(3, 0, {dim(0), dim(2)}, ctx),
            AffineMap::get(3, 0, {dim(2), dim(1)}, ctx),
            AffineMap::get(3, 0, {dim(0), dim(1)}, ctx)};
  } else {
    productSizes = {columnSizes[0], rewriter.getIndexAttr(outChannels), columnSizes[2]};
    maps = {AffineMap::get(4, 0, {dim(1), dim(3)}, ctx),
            AffineMap::get(4, 0, {dim(0), dim(3), dim(2)}, ctx),
            AffineMap::get(4, 0, {dim(0), dim(1), dim(2)}, ctx)};
  }
  Value init = filledOfSizes(rewriter, loc, productSizes,
                             typedConst(rewriter, loc, acc, 0.0));
  SmallVector<utils::IteratorType> iterators(productSizes.size(),
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value sum = linalg::GenericOp::create(
                  rewriter, loc, TypeRange{init.getType()},
                  ValueRange{weight, columns}, ValueRange{init}, maps,
                  iterators,
                  [&](OpBuilder &b, Location l, ValueRange args) {
                    Value product = arith::MulFOp::create(
                        b, l, convertScalar(b, l, args[0], acc),
                        convertScalar(b, l, args[1], acc));
                    linalg::YieldOp::create(
                        b, l,
                        Value(arith::AddFOp::create(b, l, args[2], product)));
                  })
                  .getResult(0);
  if (groups > 1) // [G, O/G, N * out] -> [O, N * out]
    sum = tensor::CollapseShapeOp::create(rewriter, loc, sum,
                                          SmallVector<ReassociationIndices>{{0, 1}, {2}});

  // [N, O, out]: the bias (per output channel) added in opmath, one
  // rounding; with joinImages, each image's columns read from [O, N, out].
  SmallVector<OpFoldResult> byImage{inSizes[0],
                                    rewriter.getIndexAttr(outChannels),
                                    rewriter.getIndexAttr(perImage)};
  AffineMap id = AffineMap::getMultiDimIdentityMap(3, ctx);
  AffineMap sumMap = id;
  if (joinImages) {
    SmallVector<int64_t> shape{outChannels,
                               images.value_or(ShapedType::kDynamic), perImage};
    sum = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(shape, acc), sum,
        SmallVector<ReassociationIndices>{{0}, {1, 2}},
        SmallVector<OpFoldResult>{byImage[1], byImage[0], byImage[2]});
    sumMap = AffineMap::get(3, 0, {dim(1), dim(0), dim(2)}, ctx);
  } else {
    byImage = productSizes;
  }
  Value result;
  Value bias = op.getBias();
  if (bias || joinImages) {
    SmallVector<Value> inputs{sum};
    SmallVector<AffineMap> inputMaps{sumMap};
    if (bias) {
      inputs.push_back(bias);
      inputMaps.push_back(AffineMap::get(3, 0, dim(1), ctx));
    }
    result = buildParallelGeneric(
        rewriter, loc, emptyOfSizes(rewriter, loc, byImage, el), inputs,
        inputMaps, [&](OpBuilder &b, Location l, ValueRange args) {
          Value value = args[0];
          if (bias)
            value = arith::AddFOp::create(b, l, value,
                                          convertScalar(b, l, args[1], acc));
          return convertScalar(b, l, value, el);
        });
  } else {
    result = convertElements(rewriter, loc, sum, el);
  }

  // [N, O, out] -> [N, O, *out].
  if (spatial == 1)
    return result;
  SmallVector<OpFoldResult> resultSizes{inSizes[0],
                                        rewriter.getIndexAttr(outChannels)};
  resultSizes.append(outSizes.begin(), outSizes.end());
  SmallVector<int64_t> shape;
  for (OpFoldResult size : resultSizes)
    shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  return tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get(shape, el), result,
      SmallVector<ReassociationIndices>{{0}, {1}, dimRange(2, 2 + spatial)},
      resultSizes);
}

// `input` [N, C, *in] with `before[d]` zeros before and `after[d]` after
// spatial dimension d (negative counts crop): a magi.constant_pad_nd,
// lowered in turn.
Value padSpatial(PatternRewriter &rewriter, Location loc, Value input,
                 ArrayRef<int64_t> before, ArrayRef<int64_t> after) {
  auto inType = cast<RankedTensorType>(input.getType());
  auto spatial = static_cast<int64_t>(before.size());
  // Pairs from the last dimension, as constant_pad_nd takes them.
  SmallVector<int64_t> pads;
  SmallVector<int64_t> paddedShape(inType.getShape());
  for (int64_t d = spatial - 1; d >= 0; --d) {
    pads.append({before[d], after[d]});
    if (!inType.isDynamicDim(2 + d))
      paddedShape[2 + d] += before[d] + after[d];
  }
  return ConstantPadNdOp::create(
      rewriter, loc, RankedTensorType::get(paddedShape, inType.getElementType()),
      input, ValueRange{}, rewriter.getDenseI64ArrayAttr(pads),
      rewriter.getF64FloatAttr(0.0));
}

// `input` [N, C, *in] spread by `stride` into [N, C, *sizes]: position z
// of spatial dimension d holds input element (z - before[d]) / stride[d]
// where that divides and lies inside the input, zero elsewhere (one
// generic; padSpatial where no stride is above 1).
Value spreadInput(PatternRewriter &rewriter, Location loc, Value input,
                  ArrayRef<int64_t> stride, ArrayRef<int64_t> before,
                  ArrayRef<OpFoldResult> spatialSizes) {
  auto inType = cast<RankedTensorType>(input.getType());
  Type el = inType.getElementType();
  auto spatial = static_cast<int64_t>(spatialSizes.size());
  SmallVector<OpFoldResult> inSizes = tensor::getMixedSizes(rewriter, loc, input);
  SmallVector<OpFoldResult> sizes{inSizes[0], inSizes[1]};
  sizes.append(spatialSizes.begin(), spatialSizes.end());
  return buildParallelGeneric(
      rewriter, loc, emptyOfSizes(rewriter, loc, sizes, el), ValueRange{}, {},
      [&](OpBuilder &b, Location l, ValueRange) -> Value {
        auto c = [&](int64_t v) {
          return Value(arith::ConstantIndexOp::create(b, l, v));
        };
        SmallVector<Value> indices{linalg::IndexOp::create(b, l, 0),
                                   linalg::IndexOp::create(b, l, 1)};
        Value inside;
        auto both = [&](Value ok) {
          inside = inside ? Value(arith::AndIOp::create(b, l, inside, ok)) : ok;
        };
        for (int64_t d = 0; d < spatial; ++d) {
          Value offset = arith::SubIOp::create(
              b, l, linalg::IndexOp::create(b, l, 2 + d), c(before[d]));
          both(arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, offset,
                                     c(0)));
          Value element = offset;
          if (stride[d] != 1) {
            both(arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::eq,
                arith::RemSIOp::create(b, l, offset, c(stride[d])), c(0)));
            element = arith::DivSIOp::create(b, l, offset, c(stride[d]));
          }
          Value size = toIndexValue(b, l, inSizes[2 + d]);
          both(arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, element,
                                     size));
          Value last = arith::SubIOp::create(b, l, size, c(1));
          indices.push_back(arith::MaxSIOp::create(
              b, l, arith::MinSIOp::create(b, l, element, last), c(0)));
        }
        Value value = tensor::ExtractOp::create(b, l, input, indices);
        return arith::SelectOp::create(b, l, inside, value,
                                       typedConst(b, l, el, 0.0));
      });
}

// A transposed convolution's weight [C, O/G, *kernel] as an ordinary one's
// [O, C/G, *taps]: tap j of dimension d is the kernel's `first[d] + (taps[d]
// - 1 - j) * step[d]` (flipped; every `step`-th from `first`), each group's
// input and output channels swapped (one generic over the small weight).
Value transposedWeight(PatternRewriter &rewriter, Location loc, Value weight,
                       int64_t groups, ArrayRef<int64_t> first,
                       ArrayRef<int64_t> taps, ArrayRef<int64_t> step) {
  MLIRContext *ctx = rewriter.getContext();
  auto weightType = cast<RankedTensorType>(weight.getType());
  int64_t perGroup = weightType.getDimSize(0) / groups;
  int64_t outPerGroup = weightType.getDimSize(1);
  auto spatial = static_cast<int64_t>(taps.size());
  auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<OpFoldResult> sizes{rewriter.getIndexAttr(outPerGroup * groups),
                                  rewriter.getIndexAttr(perGroup)};
  SmallVector<AffineExpr> read{dim(1), dim(0)};
  if (groups > 1)
    read = {dim(0).floorDiv(outPerGroup) * perGroup + dim(1), dim(0) % outPerGroup};
  for (int64_t d = 0; d < spatial; ++d) {
    sizes.push_back(rewriter.getIndexAttr(taps[d]));
    read.push_back(first[d] + (taps[d] - 1 - dim(2 + d)) * step[d]);
  }
  return buildParallelGeneric(
      rewriter, loc,
      emptyOfSizes(rewriter, loc, sizes, weightType.getElementType()), weight,
      AffineMap::get(2 + spatial, 0, read, ctx),
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

// A transposed convolution of stride > 1 (dilation 1, static image sizes)
// as one ordinary convolution per output phase (sub-pixel): output y with
// (y + padding) mod stride = r receives only the taps r, r + stride, ...,
// from the input elements q - j, q = (y + padding) div stride. Each phase is
// an ordinary convolution of stride 1 over the input (padded or cropped to
// the phase's window) with those taps flipped, its outputs inserted into
// the result `stride` apart. No product with a zero: the spread input does
// stride^d times the products.
Value transposedBySubPixel(ConvolutionOp op, PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Value input = op.getInput();
  auto inType = cast<RankedTensorType>(input.getType());
  auto weightType = cast<RankedTensorType>(op.getWeight().getType());
  auto resType = cast<RankedTensorType>(op.getType());
  int64_t spatial = inType.getRank() - 2;
  auto groups = static_cast<int64_t>(op.getGroups());
  ArrayRef<int64_t> stride = op.getStride(), padding = op.getPadding();
  Type el = resType.getElementType();
  int64_t outChannels = resType.getDimSize(1);
  SmallVector<OpFoldResult> batch{tensor::getMixedSizes(rewriter, loc, input)[0]};
  SmallVector<OpFoldResult> resultSizes{batch[0], rewriter.getIndexAttr(outChannels)};
  for (int64_t d = 0; d < spatial; ++d)
    resultSizes.push_back(rewriter.getIndexAttr(resType.getDimSize(2 + d)));
  Value result = emptyOfSizes(rewriter, loc, resultSizes, el);

  // Per spatial dimension and phase r: the taps, the first q, the count of
  // outputs, and the zeros before the input (negative: cropped).
  struct Phase {
    int64_t taps, firstQ, count, before;
  };
  SmallVector<SmallVector<Phase>> phases(spatial);
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t kernel = weightType.getDimSize(2 + d), s = stride[d],
            p = padding[d], out = resType.getDimSize(2 + d);
    for (int64_t r = 0; r < s; ++r) {
      Phase ph;
      ph.taps = r < kernel ? llvm::divideCeil(kernel - r, s) : 0;
      ph.firstQ = llvm::divideCeilSigned(p - r, s);
      ph.count = llvm::divideFloorSigned(out - 1 + p - r, s) - ph.firstQ + 1;
      ph.before = ph.taps - 1 - ph.firstQ;
      phases[d].push_back(ph);
    }
  }
  // Every combination of the dimensions' phases.
  SmallVector<int64_t> r(spatial, 0);
  while (true) {
    bool empty = false;
    SmallVector<int64_t> taps, first, before, window, counts;
    SmallVector<OpFoldResult> offsets{rewriter.getIndexAttr(0),
                                      rewriter.getIndexAttr(0)};
    SmallVector<OpFoldResult> strides{rewriter.getIndexAttr(1),
                                      rewriter.getIndexAttr(1)};
    SmallVector<OpFoldResult> sizes{batch[0], rewriter.getIndexAttr(outChannels)};
    for (int64_t d = 0; d < spatial; ++d) {
      const Phase &ph = phases[d][r[d]];
      empty |= ph.count < 1;
      taps.push_back(ph.taps);
      first.push_back(r[d]);
      before.push_back(ph.before);
      window.push_back(ph.count + ph.taps - 1);
      counts.push_back(ph.count);
      offsets.push_back(rewriter.getIndexAttr(ph.firstQ * stride[d] + r[d] -
                                              padding[d]));
      strides.push_back(rewriter.getIndexAttr(stride[d]));
      sizes.push_back(rewriter.getIndexAttr(ph.count));
    }
    if (!empty) {
      SmallVector<int64_t> shape{resType.getDimSize(0), outChannels};
      shape.append(counts);
      auto phaseType = RankedTensorType::get(shape, el);
      Value phaseResult;
      if (llvm::is_contained(taps, 0)) {
        // No tap lands here: the bias, or zero.
        Value init = emptyOfSizes(rewriter, loc, sizes, el);
        if (Value bias = op.getBias())
          phaseResult = buildParallelGeneric(
              rewriter, loc, init, bias,
              AffineMap::get(2 + spatial, 0,
                             getAffineDimExpr(1, rewriter.getContext())),
              [](OpBuilder &, Location, ValueRange args) { return args[0]; });
        else
          phaseResult = linalg::FillOp::create(rewriter, loc,
                                               typedConst(rewriter, loc, el, 0.0),
                                               init)
                            .getResult(0);
      } else {
        // The input padded (or cropped) to the phase's window; symmetric
        // zeros are the convolution's own padding.
        bool symmetric = true;
        for (int64_t d = 0; d < spatial; ++d)
          symmetric &= before[d] >= 0 &&
                       window[d] == inType.getDimSize(2 + d) + 2 * before[d];
        SmallVector<int64_t> convPadding(before);
        Value phaseInput = input;
        if (!symmetric) {
          convPadding.assign(spatial, 0);
          SmallVector<int64_t> after;
          for (int64_t d = 0; d < spatial; ++d)
            after.push_back(window[d] - inType.getDimSize(2 + d) - before[d]);
          phaseInput = padSpatial(rewriter, loc, input, before, after);
        }
        Value weight = transposedWeight(rewriter, loc, op.getWeight(), groups,
                                        first, taps, stride);
        phaseResult = ConvolutionOp::create(
            rewriter, loc, phaseType, phaseInput, weight, op.getBias(),
            SmallVector<int64_t>(spatial, 1), convPadding,
            SmallVector<int64_t>(spatial, 1), groups, /*transposed=*/false,
            /*output_padding=*/nullptr);
      }
      result = tensor::InsertSliceOp::create(rewriter, loc, phaseResult, result,
                                             offsets, sizes, strides);
    }
    // The next combination.
    int64_t d = spatial - 1;
    while (d >= 0 && ++r[d] == stride[d])
      r[d--] = 0;
    if (d < 0)
      break;
  }
  return result;
}

// A transposed convolution as ordinary ones. Input element i lands at
// `i * stride - padding + tap * dilation`.
// - With dilation 1, a stride above 1 and static image sizes: one ordinary
//   convolution per output phase (transposedBySubPixel).
// - Otherwise one ordinary convolution of stride 1 with the same dilation
//   and groups over the input spread by the stride (`stride - 1` zeros
//   between elements) with `dilation * (kernel - 1) - padding` zeros before
//   and that plus `output_padding` after (fewer than none crop), read with
//   the kernel flipped and each group's input and output channels swapped.
//   With stride 1 and equal zeros on both sides the input is read as it is,
//   padded by the convolution; otherwise one generic writes the spread
//   input.
LogicalResult rewriteTransposed(ConvolutionOp op, PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Value input = op.getInput();
  auto inType = cast<RankedTensorType>(input.getType());
  auto weightType = cast<RankedTensorType>(op.getWeight().getType());
  int64_t spatial = inType.getRank() - 2;
  ArrayRef<int64_t> stride = op.getStride(), padding = op.getPadding(),
                    dilation = op.getDilation();
  bool staticImages = true;
  for (int64_t d = 0; d < spatial; ++d)
    staticImages &= !inType.isDynamicDim(2 + d);
  auto one = [](int64_t v) { return v == 1; };
  if (staticImages && llvm::all_of(dilation, one) && !llvm::all_of(stride, one)) {
    rewriter.replaceOp(op, transposedBySubPixel(op, rewriter));
    return success();
  }

  SmallVector<int64_t> outputPadding(spatial, 0);
  if (std::optional<ArrayRef<int64_t>> given = op.getOutputPadding())
    outputPadding.assign(given->begin(), given->end());
  ArrayRef<int64_t> kernel = weightType.getShape().drop_front(2);
  // Zeros before and after each spatial dimension of the spread input.
  SmallVector<int64_t> before, after;
  bool asIs = true;
  for (int64_t d = 0; d < spatial; ++d) {
    before.push_back(dilation[d] * (kernel[d] - 1) - padding[d]);
    after.push_back(before.back() + outputPadding[d]);
    asIs &= stride[d] == 1 && before.back() >= 0 && after.back() == before.back();
  }
  Value spread = input;
  SmallVector<int64_t> convPadding(before);
  if (!asIs && llvm::all_of(stride, one)) {
    // Nothing to spread: only unequal zeros (or a crop) on the two sides.
    convPadding.assign(spatial, 0);
    spread = padSpatial(rewriter, loc, input, before, after);
  } else if (!asIs) {
    convPadding.assign(spatial, 0);
    SmallVector<OpFoldResult> inSizes =
        tensor::getMixedSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < spatial; ++d) {
      // (in - 1) * stride + 1 + before + after.
      AffineExpr in = getAffineSymbolExpr(0, rewriter.getContext());
      sizes.push_back(affine::makeComposedFoldedAffineApply(
          rewriter, loc,
          AffineMap::get(0, 1, (in - 1) * stride[d] + 1 + before[d] + after[d]),
          {inSizes[2 + d]}));
    }
    spread = spreadInput(rewriter, loc, input, stride, before, sizes);
  }
  Value reordered = transposedWeight(
      rewriter, loc, op.getWeight(), static_cast<int64_t>(op.getGroups()),
      SmallVector<int64_t>(spatial, 0), kernel, SmallVector<int64_t>(spatial, 1));

  auto conv = cast<ConvolutionOp>(rewriter.clone(*op));
  rewriter.modifyOpInPlace(conv, [&] {
    conv.getInputMutable().assign(spread);
    conv.getWeightMutable().assign(reordered);
    conv.setStride(SmallVector<int64_t>(spatial, 1));
    conv.setPadding(convPadding);
    conv.setTransposed(false);
    conv.removeOutputPaddingAttr();
  });
  rewriter.replaceOp(op, conv.getResult());
  return success();
}

class ConvolutionPattern : public OpRewritePattern<ConvolutionOp> {
public:
  // A transposed convolution becomes an ordinary one, which this pattern
  // then lowers: one level of recursion.
  ConvolutionPattern(MLIRContext *ctx) : OpRewritePattern(ctx) {
    setHasBoundedRewriteRecursion();
  }

  LogicalResult matchAndRewrite(ConvolutionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value input = op.getInput(), weight = op.getWeight();
    auto inType = cast<RankedTensorType>(input.getType());
    auto weightType = cast<RankedTensorType>(weight.getType());
    auto resType = cast<RankedTensorType>(op.getType());
    int64_t rank = inType.getRank(), spatial = rank - 2;
    auto groups = static_cast<int64_t>(op.getGroups());
    // Channels and kernel sizes fix the loop structure: they must be known.
    for (int64_t d = 0; d < rank; ++d)
      if (weightType.isDynamicDim(d))
        return rewriter.notifyMatchFailure(op, "a symbolic weight size");
    if (inType.isDynamicDim(1))
      return rewriter.notifyMatchFailure(op, "a symbolic channel count");
    if (op.getTransposed())
      return rewriteTransposed(op, rewriter);
    int64_t perGroup = weightType.getDimSize(1);
    int64_t outPerGroup = weightType.getDimSize(0) / groups;
    ArrayRef<int64_t> stride = op.getStride(), padding = op.getPadding(),
                      dilation = op.getDilation();
    Type el = resType.getElementType(), acc = opmath(el);

    // The output's spatial sizes: windows over `in` padded by `pads`.
    auto windowsOver = [&](Value in, ArrayRef<int64_t> pads) {
      SmallVector<OpFoldResult> inSizes =
          tensor::getMixedSizes(rewriter, loc, in);
      SmallVector<OpFoldResult> sizes;
      for (int64_t d = 0; d < spatial; ++d)
        sizes.push_back(windowCount(
            rewriter, loc, inSizes[2 + d], resType.getDimSize(2 + d),
            weightType.getDimSize(2 + d), pads[d], stride[d], dilation[d],
            /*ceilMode=*/false));
      return sizes;
    };
    SmallVector<int64_t> noPadding(spatial, 0);

    // One group, or groups deep enough for a product each (with output
    // positions of known sizes): the gather reads the unpadded input, zeros
    // outside it.
    int64_t taps = 1;
    for (int64_t d = 0; d < spatial; ++d)
      taps *= weightType.getDimSize(2 + d);
    SmallVector<OpFoldResult> unpaddedOut = windowsOver(input, padding);
    bool productPerGroup =
        groups > 1 && perGroup * taps >= kGroupDepthForProduct &&
        outPerGroup >= kGroupRowsForProduct &&
        llvm::all_of(unpaddedOut,
                     [](OpFoldResult size) { return getConstantIntValue(size).has_value(); });
    if ((groups == 1 && !isOwnColumns(weightType, stride, padding)) || productPerGroup)
      return replaceWithType(
          rewriter, op,
          convolutionAsProduct(rewriter, loc, op, input, unpaddedOut, padding),
          resType);

    if (llvm::any_of(padding, [](int64_t p) { return p != 0; }))
      input = padSpatial(rewriter, loc, input, padding, padding);

    // Output sizes: windows over the padded input.
    SmallVector<OpFoldResult> outSpatial = windowsOver(input, noPadding);
    if (groups == 1) // a padded 1 x 1 convolution of stride 1
      return replaceWithType(
          rewriter, op,
          convolutionAsProduct(rewriter, loc, op, input, outSpatial, noPadding),
          resType);
    SmallVector<OpFoldResult> inSizes =
        tensor::getMixedSizes(rewriter, loc, input);

    auto expand = [&](Value src, ArrayRef<ReassociationIndices> groups,
                      ArrayRef<OpFoldResult> sizes) -> Value {
      SmallVector<int64_t> shape;
      for (OpFoldResult size : sizes)
        shape.push_back(
            getConstantIntValue(size).value_or(ShapedType::kDynamic));
      return tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(shape, el), src, groups, sizes);
    };

    // [N, C, *in] -> [N, G, C/G, *in]; [O, C/G, *k] -> [G, O/G, C/G, *k].
    SmallVector<OpFoldResult> groupedInSizes{inSizes[0],
                                             rewriter.getIndexAttr(groups),
                                             rewriter.getIndexAttr(perGroup)};
    groupedInSizes.append(inSizes.begin() + 2, inSizes.end());
    SmallVector<ReassociationIndices> splitChannels{{0}, {1, 2}};
    for (int64_t d = 0; d < spatial; ++d)
      splitChannels.push_back({3 + d});
    Value groupedIn = expand(input, splitChannels, groupedInSizes);
    SmallVector<OpFoldResult> groupedWeightSizes{
        rewriter.getIndexAttr(groups), rewriter.getIndexAttr(outPerGroup),
        rewriter.getIndexAttr(perGroup)};
    SmallVector<ReassociationIndices> splitOut{{0, 1}, {2}};
    for (int64_t d = 0; d < spatial; ++d) {
      groupedWeightSizes.push_back(
          rewriter.getIndexAttr(weightType.getDimSize(2 + d)));
      splitOut.push_back({3 + d});
    }
    Value groupedWeight = expand(weight, splitOut, groupedWeightSizes);

    SmallVector<OpFoldResult> outSizes{inSizes[0],
                                       rewriter.getIndexAttr(groups),
                                       rewriter.getIndexAttr(outPerGroup)};
    outSizes.append(outSpatial.begin(), outSpatial.end());

    // The accumulator starts from the bias (per output channel) or zero.
    Value init;
    int64_t outRank = 3 + spatial;
    if (Value bias = op.getBias()) {
      Value groupedBias = expand(
          bias, {{0, 1}},
          {rewriter.getIndexAttr(groups), rewriter.getIndexAttr(outPerGroup)});
      AffineMap biasMap = AffineMap::get(
          outRank, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx)},
          ctx);
      init = buildParallelGeneric(
          rewriter, loc, emptyOfSizes(rewriter, loc, outSizes, acc),
          groupedBias, biasMap, [&](OpBuilder &b, Location l, ValueRange a) {
            return convertScalar(b, l, a[0], acc);
          });
    } else {
      init = filledOfSizes(rewriter, loc, outSizes,
                           typedConst(rewriter, loc, acc, 0.0));
    }

    // Loops: n, g, o, out_d..., c, k_d...
    int64_t loops = outRank + 1 + spatial;
    auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    AffineExpr channel = dim(outRank);
    SmallVector<AffineExpr> inExprs{dim(0), dim(1), channel};
    SmallVector<AffineExpr> weightExprs{dim(1), dim(2), channel};
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < outRank; ++i)
      outExprs.push_back(dim(i));
    for (int64_t d = 0; d < spatial; ++d) {
      AffineExpr out = dim(3 + d), tap = dim(outRank + 1 + d);
      inExprs.push_back(out * stride[d] + tap * dilation[d]);
      weightExprs.push_back(tap);
    }
    SmallVector<AffineMap> maps{AffineMap::get(loops, 0, inExprs, ctx),
                                AffineMap::get(loops, 0, weightExprs, ctx),
                                AffineMap::get(loops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(outRank,
                                               utils::IteratorType::parallel);
    iterators.append(1 + spatial, utils::IteratorType::reduction);
    Value sum =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()},
            ValueRange{groupedIn, groupedWeight}, ValueRange{init}, maps,
            iterators,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value x = convertScalar(b, l, args[0], acc);
              Value w = convertScalar(b, l, args[1], acc);
              Value product = arith::MulFOp::create(b, l, x, w);
              linalg::YieldOp::create(
                  b, l, Value(arith::AddFOp::create(b, l, args[2], product)));
            })
            .getResult(0);

    // Round once, then [N, G, O/G, *out] -> [N, O, *out].
    Value result = convertElements(rewriter, loc, sum, el);
    SmallVector<ReassociationIndices> joinGroups{{0}, {1, 2}};
    for (int64_t d = 0; d < spatial; ++d)
      joinGroups.push_back({3 + d});
    result = tensor::CollapseShapeOp::create(rewriter, loc, result, joinGroups);
    return replaceWithType(rewriter, op, result, resType);
  }
};

// A reduction generic over the pooled output (`outSizes`, the kept leading
// dimensions first) and the window (`kernel`): `body` gets, for each tap,
// whether it lies inside the input, the value there (clamped read) and its
// flat index in the pooled dimensions, and the accumulators.
using PoolBody = function_ref<SmallVector<Value>(
    OpBuilder &, Location, Value inside, Value value, Value flatIndex,
    ValueRange accumulators)>;

static SmallVector<Value>
buildPoolReduction(PatternRewriter &rewriter, Location loc, Value input,
                   ArrayRef<OpFoldResult> outSizes, ArrayRef<int64_t> kernel,
                   ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                   ArrayRef<int64_t> dilation, ArrayRef<Value> inits,
                   PoolBody body) {
  MLIRContext *ctx = rewriter.getContext();
  auto pooled = static_cast<int64_t>(kernel.size());
  int64_t outRank = static_cast<int64_t>(outSizes.size());
  int64_t lead = outRank - pooled, loops = outRank + pooled;
  SmallVector<OpFoldResult> inSizes =
      tensor::getMixedSizes(rewriter, loc, input);
  // The window's extent comes from an operand spanning it.
  Value window =
      tensor::EmptyOp::create(rewriter, loc, kernel, rewriter.getI8Type());
  SmallVector<AffineExpr> windowExprs, outExprs;
  for (int64_t d = 0; d < pooled; ++d)
    windowExprs.push_back(getAffineDimExpr(outRank + d, ctx));
  for (int64_t d = 0; d < outRank; ++d)
    outExprs.push_back(getAffineDimExpr(d, ctx));
  SmallVector<AffineMap> maps{AffineMap::get(loops, 0, windowExprs, ctx)};
  SmallVector<Type> types;
  for (Value init : inits) {
    maps.push_back(AffineMap::get(loops, 0, outExprs, ctx));
    types.push_back(init.getType());
  }
  SmallVector<utils::IteratorType> iterators(outRank,
                                             utils::IteratorType::parallel);
  iterators.append(pooled, utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, types, ValueRange{window}, inits, maps, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value zero = arith::ConstantIndexOp::create(b, l, 0);
        Value inside, flat = zero;
        SmallVector<Value> at;
        for (int64_t d = 0; d < lead; ++d)
          at.push_back(linalg::IndexOp::create(b, l, d));
        for (int64_t d = 0; d < pooled; ++d) {
          Value o = linalg::IndexOp::create(b, l, lead + d);
          Value k = linalg::IndexOp::create(b, l, outRank + d);
          Value pos = arith::AddIOp::create(
              b, l,
              arith::SubIOp::create(
                  b, l,
                  arith::MulIOp::create(
                      b, l, o, arith::ConstantIndexOp::create(b, l, stride[d])),
                  arith::ConstantIndexOp::create(b, l, padding[d])),
              arith::MulIOp::create(
                  b, l, k, arith::ConstantIndexOp::create(b, l, dilation[d])));
          Value size = toIndexValue(b, l, inSizes[lead + d]);
          Value ok = arith::AndIOp::create(
              b, l,
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, pos, zero),
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, pos,
                                    size));
          inside = inside ? Value(arith::AndIOp::create(b, l, inside, ok)) : ok;
          Value last = arith::SubIOp::create(
              b, l, size, arith::ConstantIndexOp::create(b, l, 1));
          at.push_back(arith::MaxSIOp::create(
              b, l, arith::MinSIOp::create(b, l, pos, last), zero));
          flat = arith::AddIOp::create(
              b, l, arith::MulIOp::create(b, l, flat, size), pos);
        }
        Value value = tensor::ExtractOp::create(b, l, input, at);
        linalg::YieldOp::create(
            b, l, body(b, l, inside, value, flat, args.drop_front()));
      });
  return SmallVector<Value>(generic.getResults());
}

// The kept and pooled output sizes of a pooling op on `input`.
static SmallVector<OpFoldResult>
pooledSizes(PatternRewriter &rewriter, Location loc, Value input,
            RankedTensorType resType, ArrayRef<int64_t> kernel,
            ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
            ArrayRef<int64_t> dilation, bool ceilMode) {
  SmallVector<OpFoldResult> in = tensor::getMixedSizes(rewriter, loc, input);
  auto pooled = static_cast<int64_t>(kernel.size());
  int64_t lead = resType.getRank() - pooled;
  SmallVector<OpFoldResult> sizes(in.begin(), in.begin() + lead);
  for (int64_t d = 0; d < pooled; ++d)
    sizes.push_back(windowCount(rewriter, loc, in[lead + d],
                                resType.getDimSize(lead + d), kernel[d],
                                padding[d], stride[d], dilation[d], ceilMode));
  return sizes;
}

class MaxPoolPattern : public OpRewritePattern<MaxPoolOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MaxPoolOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto valuesType = cast<RankedTensorType>(op.getValues().getType());
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    Type el = valuesType.getElementType(), acc = opmath(el);
    Type indexEl = indicesType.getElementType();
    SmallVector<OpFoldResult> sizes = pooledSizes(
        rewriter, loc, op.getSelf(), valuesType, op.getKernelSize(),
        op.getStride(), op.getPadding(), op.getDilation(), op.getCeilMode());
    Value worst = floatConst(rewriter, loc, el, -INFINITY);
    SmallVector<Value> inits{
        filledOfSizes(rewriter, loc, sizes, worst),
        filledOfSizes(rewriter, loc, sizes,
                      intConst(rewriter, loc, indexEl, -1))};
    SmallVector<Value> results = buildPoolReduction(
        rewriter, loc, op.getSelf(), sizes, op.getKernelSize(), op.getStride(),
        op.getPadding(), op.getDilation(), inits,
        [&](OpBuilder &b, Location l, Value inside, Value value, Value flat,
            ValueRange a) {
          // From the first tap inside the input, replaced by a larger value
          // or any NaN (PyTorch's order).
          Value v = convertScalar(b, l, value, acc);
          Value best = convertScalar(b, l, a[0], acc);
          Value first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                              a[1], intConst(b, l, indexEl, 0));
          Value larger =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, v, best);
          Value nan =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, v, v);
          Value take = arith::AndIOp::create(
              b, l, inside,
              arith::OrIOp::create(b, l, first,
                                   arith::OrIOp::create(b, l, larger, nan)));
          Value index = arith::IndexCastOp::create(b, l, indexEl, flat);
          return SmallVector<Value>{
              arith::SelectOp::create(b, l, take, value, a[0]),
              arith::SelectOp::create(b, l, take, index, a[1])};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

class AvgPoolPattern : public OpRewritePattern<AvgPoolOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AvgPoolOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resType = cast<RankedTensorType>(op.getType());
    Type el = resType.getElementType(), acc = opmath(el);
    ArrayRef<int64_t> kernel = op.getKernelSize(), stride = op.getStride(),
                      padding = op.getPadding();
    auto pooled = static_cast<int64_t>(kernel.size());
    int64_t lead = resType.getRank() - pooled;
    SmallVector<int64_t> ones(pooled, 1);
    SmallVector<OpFoldResult> sizes =
        pooledSizes(rewriter, loc, op.getSelf(), resType, kernel, stride,
                    padding, ones, op.getCeilMode());
    SmallVector<OpFoldResult> inSizes =
        tensor::getMixedSizes(rewriter, loc, op.getSelf());
    Value sum = buildPoolReduction(
        rewriter, loc, op.getSelf(), sizes, kernel, stride, padding, ones,
        {filledOfSizes(rewriter, loc, sizes,
                       typedConst(rewriter, loc, acc, 0.0))},
        [&](OpBuilder &b, Location l, Value inside, Value value, Value,
            ValueRange a) {
          Value v = arith::SelectOp::create(b, l, inside,
                                            convertScalar(b, l, value, acc),
                                            typedConst(b, l, acc, 0.0));
          return SmallVector<Value>{arith::AddFOp::create(b, l, a[0], v)};
        })[0];

    // Each window's divisor: the override, or its size clipped to the
    // padded input (count_include_pad) or to the input.
    std::optional<int64_t> divisor;
    if (auto attr = op.getDivisorOverrideAttr())
      divisor = attr.getInt();
    bool includePad = op.getCountIncludePad();
    Value init = emptyOfSizes(rewriter, loc, sizes, el);
    AffineMap id = rewriter.getMultiDimIdentityMap(resType.getRank());
    Value result = buildParallelGeneric(
        rewriter, loc, init, sum, id,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          auto c = [&](int64_t v) {
            return Value(arith::ConstantIndexOp::create(b, l, v));
          };
          Value count = c(1), zero = c(0);
          if (divisor) {
            count = c(*divisor);
          } else {
            for (int64_t d = 0; d < pooled; ++d) {
              Value size = toIndexValue(b, l, inSizes[lead + d]);
              Value start = arith::SubIOp::create(
                  b, l,
                  arith::MulIOp::create(b, l,
                                        linalg::IndexOp::create(b, l, lead + d),
                                        c(stride[d])),
                  c(padding[d]));
              Value end = arith::MinSIOp::create(
                  b, l, arith::AddIOp::create(b, l, start, c(kernel[d])),
                  arith::AddIOp::create(b, l, size, c(padding[d])));
              if (!includePad) {
                start = arith::MaxSIOp::create(b, l, start, zero);
                end = arith::MinSIOp::create(b, l, end, size);
              }
              Value extent = arith::MaxSIOp::create(
                  b, l, arith::SubIOp::create(b, l, end, start), zero);
              count = arith::MulIOp::create(b, l, count, extent);
            }
          }
          Value countF = arith::SIToFPOp::create(
              b, l, acc,
              arith::IndexCastOp::create(b, l, b.getI64Type(), count));
          return convertScalar(b, l, arith::DivFOp::create(b, l, a[0], countF),
                               el);
        });
    return replaceWithType(rewriter, op, result, resType);
  }
};

class BatchNormPattern : public OpRewritePattern<BatchNormOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto resType = cast<RankedTensorType>(op.getType());
    int64_t rank = resType.getRank();
    Type el = resType.getElementType(), acc = opmath(el);
    SmallVector<Value> inputs{op.getInput(), op.getRunningMean(),
                              op.getRunningVar()};
    if (op.getWeight())
      inputs.push_back(op.getWeight());
    if (op.getBias())
      inputs.push_back(op.getBias());
    AffineMap channel = AffineMap::get(rank, 0, getAffineDimExpr(1, ctx), ctx);
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(rank)};
    maps.append(inputs.size() - 1, channel);
    FailureOr<Value> init = emptyLike(rewriter, loc, resType, op.getInput());
    if (failed(init))
      return failure();
    double eps = op.getEps().convertToDouble();
    bool hasWeight = static_cast<bool>(op.getWeight());
    Value result = buildParallelGeneric(
        rewriter, loc, *init, inputs, maps,
        [&](OpBuilder &b, Location l, ValueRange args) {
          auto get = [&](int64_t i) {
            return convertScalar(b, l, args[i], acc);
          };
          // invstd = 1 / sqrt(var + eps), as PyTorch's kernels compute it.
          Value var =
              arith::AddFOp::create(b, l, get(2), floatConst(b, l, acc, eps));
          Value invstd = arith::DivFOp::create(b, l, floatConst(b, l, acc, 1.0),
                                               math::SqrtOp::create(b, l, var));
          Value y = arith::MulFOp::create(
              b, l, arith::SubFOp::create(b, l, get(0), get(1)), invstd);
          int64_t next = 3;
          if (hasWeight)
            y = arith::MulFOp::create(b, l, y, get(next++));
          if (op.getBias())
            y = arith::AddFOp::create(b, l, y, get(next));
          return convertScalar(b, l, y, el);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void magi::lower::populateConvolutionPatterns(RewritePatternSet &patterns) {
  patterns.add<ConvolutionPattern, BatchNormPattern, MaxPoolPattern,
               AvgPoolPattern>(patterns.getContext());
}
