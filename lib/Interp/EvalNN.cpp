//===- EvalNN.cpp - Matrix products, normalization, softmax, attention ----===//
//
// Products and statistics accumulate in double and round once to the result
// dtype, which is at least as precise as PyTorch's f32 accumulation. Fused
// ops round where their documented decomposition changes dtype, so that a
// fused op gives what the primitive ops would.
//
//===----------------------------------------------------------------------===//

#include "Eval.h"
#include "magi/Dialect/Magi/IR/AttentionLayout.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Dialect/Magi/IR/PoolingShape.h"
#include "llvm/ADT/TypeSwitch.h"
#include <cmath>

using namespace mlir;

namespace magi::interp::detail {
namespace {

SmallVector<double> toDoubles(const Tensor &t) {
  SmallVector<double> values(t.getNumElements());
  for (int64_t i = 0, e = t.getNumElements(); i < e; ++i)
    values[i] = t.getDouble(i);
  return values;
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

// `batch` products of [n, k] by [k, m] matrices, accumulated in double, or in
// int64 for integer dtypes; `storeFloat`/`storeInt(i, sum)` record element i.
LogicalResult batchedMatmul(Operation *op, const Tensor &a, const Tensor &b,
                            int64_t batch, int64_t n, int64_t k, int64_t m,
                            function_ref<void(int64_t, double)> storeFloat,
                            function_ref<void(int64_t, int64_t)> storeInt) {
  if (a.getDtype() != b.getDtype())
    return op->emitError("operands must have the same dtype, got ")
           << a.getDtype() << " and " << b.getDtype();
  if (a.isFloat()) {
    SmallVector<double> x = toDoubles(a), y = toDoubles(b);
    SmallVector<double> row(m);
    for (int64_t p = 0; p < batch; ++p) {
      for (int64_t i = 0; i < n; ++i) {
        std::fill(row.begin(), row.end(), 0.0);
        const double *xr = x.data() + (p * n + i) * k;
        for (int64_t t = 0; t < k; ++t) {
          const double *yr = y.data() + (p * k + t) * m;
          double xv = xr[t];
          for (int64_t j = 0; j < m; ++j)
            row[j] += xv * yr[j];
        }
        for (int64_t j = 0; j < m; ++j)
          storeFloat((p * n + i) * m + j, row[j]);
      }
    }
    return success();
  }
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) {
        uint64_t acc = 0;
        for (int64_t t = 0; t < k; ++t)
          acc += static_cast<uint64_t>(a.getInt((p * n + i) * k + t)) *
                 static_cast<uint64_t>(b.getInt((p * k + t) * m + j));
        storeInt((p * n + i) * m + j, static_cast<int64_t>(acc));
      }
  return success();
}

LogicalResult checkMatmulShapes(Operation *op, const Tensor &a, const Tensor &b,
                                int64_t rank) {
  if (a.getRank() != rank || b.getRank() != rank)
    return op->emitError("operands must be ")
           << rank << "-d, got shapes " << formatShape(a.getShape()) << " and "
           << formatShape(b.getShape());
  if (a.getShape()[rank - 1] != b.getShape()[rank - 2] ||
      (rank == 3 && a.getShape()[0] != b.getShape()[0]))
    return op->emitError("cannot multiply shapes ")
           << formatShape(a.getShape()) << " and " << formatShape(b.getShape());
  return success();
}

// `t` with its last two dimensions swapped when `transpose` is set (the
// `transpose_*` flags of the matrix products).
Tensor maybeTransposed(const Tensor &t, bool transpose) {
  if (!transpose || t.getRank() < 2)
    return t;
  int64_t rank = t.getRank();
  SmallVector<int64_t> shape(t.getShape());
  SmallVector<int64_t> strides = getContiguousStrides(shape);
  std::swap(shape[rank - 1], shape[rank - 2]);
  std::swap(strides[rank - 1], strides[rank - 2]);
  return gatherStrided(t, shape, strides);
}

template <typename OpT>
LogicalResult evalMatmul(OpT op, Env &env, int64_t rank) {
  Tensor a = maybeTransposed(env.get(op.getSelf()), op.getTransposeSelf());
  Tensor b = maybeTransposed(env.get(op.getMat2()), op.getTransposeMat2());
  if (failed(checkMatmulShapes(op, a, b, rank)))
    return failure();
  int64_t batch = rank == 3 ? a.getShape()[0] : 1;
  int64_t n = a.getShape()[rank - 2], k = a.getShape()[rank - 1];
  int64_t m = b.getShape()[rank - 1];
  SmallVector<int64_t> shape;
  if (rank == 3)
    shape.push_back(batch);
  shape.append({n, m});
  Tensor out(getDeclaredDtype(op.getResult()), shape);
  if (failed(batchedMatmul(
          op, a, b, batch, n, k, m,
          [&](int64_t i, double v) { out.setDouble(i, v); },
          [&](int64_t i, int64_t v) { out.setInt(i, v); })))
    return failure();
  env.set(op.getResult(), std::move(out));
  return success();
}

// grouped_mm: rows offs[g - 1] to offs[g] of self times mat2[g]; rows past
// the last offset are zeros.
LogicalResult evalGroupedMm(GroupedMmOp op, Env &env) {
  const Tensor &a = env.get(op.getSelf());
  Tensor b = maybeTransposed(env.get(op.getMat2()), op.getTransposeMat2());
  const Tensor &offs = env.get(op.getOffs());
  if (a.getRank() != 2 || b.getRank() != 3 || offs.getRank() != 1 ||
      a.getShape()[1] != b.getShape()[1] ||
      b.getShape()[0] != offs.getShape()[0])
    return op.emitError("cannot multiply groups of ")
           << formatShape(a.getShape()) << " by " << formatShape(b.getShape())
           << " with offsets " << formatShape(offs.getShape());
  int64_t rows = a.getShape()[0], k = a.getShape()[1], n = b.getShape()[2];
  int64_t groups = b.getShape()[0];
  Tensor out(getDeclaredDtype(op.getResult()), {rows, n});
  int64_t start = 0;
  for (int64_t g = 0; g < groups; ++g) {
    int64_t end = offs.getInt(g);
    if (end < start || end > rows)
      return op.emitError("offs must be nondecreasing and at most ")
             << rows << " (the rows of self), got " << end << " at group " << g
             << " after " << start;
    for (int64_t i = start; i < end; ++i)
      for (int64_t j = 0; j < n; ++j) {
        if (a.isFloat()) {
          double acc = 0.0;
          for (int64_t t = 0; t < k; ++t)
            acc += a.getDouble(i * k + t) * b.getDouble((g * k + t) * n + j);
          out.setDouble(i * n + j, acc);
        } else {
          uint64_t acc = 0;
          for (int64_t t = 0; t < k; ++t)
            acc += static_cast<uint64_t>(a.getInt(i * k + t)) *
                   static_cast<uint64_t>(b.getInt((g * k + t) * n + j));
          out.setInt(i * n + j, static_cast<int64_t>(acc));
        }
      }
    start = end;
  }
  env.set(op.getResult(), std::move(out));
  return success();
}

LogicalResult evalAddmm(AddmmOp op, Env &env) {
  Tensor a = maybeTransposed(env.get(op.getMat1()), op.getTransposeMat1());
  Tensor b = maybeTransposed(env.get(op.getMat2()), op.getTransposeMat2());
  if (failed(checkMatmulShapes(op, a, b, 2)))
    return failure();
  int64_t n = a.getShape()[0], k = a.getShape()[1], m = b.getShape()[1];
  const Tensor &self = env.get(op.getSelf());
  FailureOr<SmallVector<int64_t>> shape =
      broadcastRuntimeShapes({self.getShape(), {n, m}}, op.getLoc());
  if (failed(shape))
    return failure();
  if (ArrayRef<int64_t>(*shape) != ArrayRef<int64_t>({n, m}))
    return op.emitError("self of shape ")
           << formatShape(self.getShape())
           << " does not broadcast to the product's shape "
           << formatShape({n, m});
  Tensor bias = broadcastTo(self, {n, m}, self.getDtype());
  double beta = op.getBeta().convertToDouble();
  double alpha = op.getAlpha().convertToDouble();
  Tensor out(getDeclaredDtype(op.getResult()), {n, m});
  // One rounding of `beta * self + alpha * product`, as cuBLAS's epilogue.
  if (failed(batchedMatmul(
          op, a, b, 1, n, k, m,
          [&](int64_t i, double v) {
            out.setDouble(i, beta * bias.getDouble(i) + alpha * v);
          },
          [&](int64_t i, int64_t v) {
            out.setInt(i, static_cast<int64_t>(beta) * bias.getInt(i) +
                              static_cast<int64_t>(alpha) * v);
          })))
    return failure();
  env.set(op.getResult(), std::move(out));
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

// A convolution's spatial sizes in three dimensions, the missing leading
// ones of size 1 (1- and 2-d convolutions run as 3-d ones); `out` is the
// caller's to fill.
struct ConvGeometry {
  int64_t size[3] = {1, 1, 1}, kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1},
          pad[3] = {0, 0, 0}, dilation[3] = {1, 1, 1}, out[3] = {1, 1, 1};
};

ConvGeometry convGeometry(ConvolutionOp op, ArrayRef<int64_t> in,
                          ArrayRef<int64_t> kernelShape) {
  ConvGeometry g;
  int64_t spatial = static_cast<int64_t>(in.size()) - 2;
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t k = 3 - spatial + d;
    g.size[k] = in[2 + d];
    g.kernel[k] = kernelShape[2 + d];
    g.stride[k] = op.getStride()[d];
    g.pad[k] = op.getPadding()[d];
    g.dilation[k] = op.getDilation()[d];
  }
  return g;
}

// A transposed convolution (ConvTranspose): each input element adds
// `input * weight[tap]` to output position `i * stride - padding + tap *
// dilation`, the weight [C, O / groups, *kernel]; sums in double, one
// rounding.
LogicalResult evalTransposedConvolution(ConvolutionOp op, const Tensor &input,
                                        const Tensor &weight,
                                        const Tensor *bias, Env &env) {
  int64_t rank = input.getRank(), spatial = rank - 2;
  auto groups = static_cast<int64_t>(op.getGroups());
  ArrayRef<int64_t> in = input.getShape(), kernelShape = weight.getShape();
  if (weight.getRank() != rank || in[1] != kernelShape[0] ||
      kernelShape[0] % groups != 0)
    return op.emitError("transposed convolution of input ")
           << formatShape(in) << " with weight " << formatShape(kernelShape)
           << " in " << groups << " groups: the channels do not match";
  int64_t outPerGroup = kernelShape[1], outChannels = outPerGroup * groups;
  if (bias && (bias->getRank() != 1 || bias->getShape()[0] != outChannels))
    return op.emitError("convolution bias of shape ")
           << formatShape(bias->getShape()) << " for " << outChannels
           << " output channels";
  ConvGeometry g = convGeometry(op, in, kernelShape);
  auto &[size, kernel, stride, pad, dilation, outSize] = g;
  SmallVector<int64_t> outShape{in[0], outChannels};
  std::optional<ArrayRef<int64_t>> outputPadding = op.getOutputPadding();
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t k = 3 - spatial + d;
    outSize[k] = transposedConvolutionSize(
        size[k], kernel[k], pad[k], stride[k], dilation[k],
        outputPadding ? (*outputPadding)[d] : 0);
    if (outSize[k] < 1)
      return op.emitError("transposed convolution output size ")
             << outSize[k] << " is not positive in spatial dimension " << d;
    outShape.push_back(outSize[k]);
  }
  SmallVector<double> x = toDoubles(input), w = toDoubles(weight);
  int64_t batch = in[0], channels = in[1], perGroup = channels / groups;
  int64_t inPlane = size[0] * size[1] * size[2];
  int64_t outPlane = outSize[0] * outSize[1] * outSize[2];
  int64_t kernelVolume = kernel[0] * kernel[1] * kernel[2];
  SmallVector<double> sums(batch * outChannels * outPlane, 0.0);
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c) {
      int64_t firstOut = (c / perGroup) * outPerGroup;
      const double *plane = x.data() + (n * channels + c) * inPlane;
      for (int64_t o = 0; o < outPerGroup; ++o) {
        const double *taps = w.data() + (c * outPerGroup + o) * kernelVolume;
        double *target = sums.data() + (n * outChannels + firstOut + o) * outPlane;
        for (int64_t id = 0; id < size[0]; ++id)
          for (int64_t ih = 0; ih < size[1]; ++ih)
            for (int64_t iw = 0; iw < size[2]; ++iw) {
              double value = plane[(id * size[1] + ih) * size[2] + iw];
              for (int64_t kd = 0; kd < kernel[0]; ++kd) {
                int64_t od = id * stride[0] - pad[0] + kd * dilation[0];
                if (od < 0 || od >= outSize[0])
                  continue;
                for (int64_t kh = 0; kh < kernel[1]; ++kh) {
                  int64_t oh = ih * stride[1] - pad[1] + kh * dilation[1];
                  if (oh < 0 || oh >= outSize[1])
                    continue;
                  for (int64_t kw = 0; kw < kernel[2]; ++kw) {
                    int64_t ow = iw * stride[2] - pad[2] + kw * dilation[2];
                    if (ow < 0 || ow >= outSize[2])
                      continue;
                    target[(od * outSize[1] + oh) * outSize[2] + ow] +=
                        value * taps[(kd * kernel[1] + kh) * kernel[2] + kw];
                  }
                }
              }
            }
      }
    }
  Tensor out(getDeclaredDtype(op.getResult()), outShape);
  for (int64_t i = 0, e = static_cast<int64_t>(sums.size()); i < e; ++i)
    out.setDouble(i, sums[i] + (bias ? bias->getDouble((i / outPlane) % outChannels)
                                     : 0.0));
  env.set(op.getResult(), std::move(out));
  return success();
}

LogicalResult evalConvolution(ConvolutionOp op, Env &env) {
  const Tensor &input = env.get(op.getInput());
  const Tensor &weight = env.get(op.getWeight());
  const Tensor *bias = op.getBias() ? &env.get(op.getBias()) : nullptr;
  if (op.getTransposed())
    return evalTransposedConvolution(op, input, weight, bias, env);
  int64_t rank = input.getRank(), spatial = rank - 2;
  auto groups = static_cast<int64_t>(op.getGroups());
  ArrayRef<int64_t> in = input.getShape(), kernelShape = weight.getShape();
  if (weight.getRank() != rank || in[1] != kernelShape[1] * groups ||
      kernelShape[0] % groups != 0)
    return op.emitError("convolution of input ")
           << formatShape(in) << " with weight " << formatShape(kernelShape)
           << " in " << groups << " groups: the channels do not match";
  if (bias && (bias->getRank() != 1 || bias->getShape()[0] != kernelShape[0]))
    return op.emitError("convolution bias of shape ")
           << formatShape(bias->getShape()) << " for " << kernelShape[0]
           << " output channels";
  ConvGeometry g = convGeometry(op, in, kernelShape);
  auto &[size, kernel, stride, pad, dilation, outSize] = g;
  SmallVector<int64_t> outShape{in[0], kernelShape[0]};
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t k = 3 - spatial + d;
    int64_t window = dilation[k] * (kernel[k] - 1) + 1;
    if (size[k] + 2 * pad[k] < window)
      return op.emitError("convolution window of ")
             << window << " is larger than the padded input's "
             << size[k] + 2 * pad[k] << " in spatial dimension " << d;
    outSize[k] = poolingOutputSize(size[k], kernel[k], pad[k], stride[k],
                                   dilation[k], /*ceilMode=*/false);
    outShape.push_back(outSize[k]);
  }
  SmallVector<double> x = toDoubles(input), w = toDoubles(weight);
  int64_t batch = in[0], channels = in[1], outChannels = kernelShape[0];
  int64_t perGroup = kernelShape[1], outPerGroup = outChannels / groups;
  int64_t inPlane = size[0] * size[1] * size[2];
  int64_t kernelVolume = kernel[0] * kernel[1] * kernel[2];
  Tensor out(getDeclaredDtype(op.getResult()), outShape);
  int64_t at = 0;
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t o = 0; o < outChannels; ++o) {
      int64_t firstChannel = (o / outPerGroup) * perGroup;
      for (int64_t od = 0; od < outSize[0]; ++od)
        for (int64_t oh = 0; oh < outSize[1]; ++oh)
          for (int64_t ow = 0; ow < outSize[2]; ++ow) {
            double sum = bias ? bias->getDouble(o) : 0.0;
            for (int64_t c = 0; c < perGroup; ++c) {
              const double *plane =
                  x.data() + (n * channels + firstChannel + c) * inPlane;
              const double *taps = w.data() + (o * perGroup + c) * kernelVolume;
              for (int64_t kd = 0; kd < kernel[0]; ++kd) {
                int64_t id = od * stride[0] - pad[0] + kd * dilation[0];
                if (id < 0 || id >= size[0])
                  continue;
                for (int64_t kh = 0; kh < kernel[1]; ++kh) {
                  int64_t ih = oh * stride[1] - pad[1] + kh * dilation[1];
                  if (ih < 0 || ih >= size[1])
                    continue;
                  for (int64_t kw = 0; kw < kernel[2]; ++kw) {
                    int64_t iw = ow * stride[2] - pad[2] + kw * dilation[2];
                    if (iw < 0 || iw >= size[2])
                      continue;
                    sum += plane[(id * size[1] + ih) * size[2] + iw] *
                           taps[(kd * kernel[1] + kh) * kernel[2] + kw];
                  }
                }
              }
            }
            out.setDouble(at++, sum);
          }
    }
  env.set(op.getResult(), std::move(out));
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

// Checks that `param` (a weight or bias) has the normalized shape.
LogicalResult checkNormParam(Operation *op, const Tensor *param,
                             ArrayRef<int64_t> normalized, StringRef name) {
  if (param && param->getShape() != normalized)
    return op->emitError(name) << " of shape " << formatShape(param->getShape())
                               << " does not match the normalized shape "
                               << formatShape(normalized);
  return success();
}

// The geometry of a pooling op on a runtime shape: leading planes and up to
// three pooled dimensions (missing leading ones of size 1).
struct PoolGeometry {
  int64_t planes = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, kernel[3] = {1, 1, 1},
          stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dilation[3] = {1, 1, 1};
  SmallVector<int64_t> outShape;
};

FailureOr<PoolGeometry> poolGeometry(Operation *op, const Tensor &self,
                                     ArrayRef<int64_t> kernel,
                                     ArrayRef<int64_t> stride,
                                     ArrayRef<int64_t> padding,
                                     ArrayRef<int64_t> dilation, bool ceilMode) {
  auto pooled = static_cast<int64_t>(kernel.size());
  PoolGeometry g;
  ArrayRef<int64_t> shape = self.getShape();
  for (int64_t d = 0; d < self.getRank() - pooled; ++d) {
    g.planes *= shape[d];
    g.outShape.push_back(shape[d]);
  }
  for (int64_t d = 0; d < pooled; ++d) {
    int64_t k = 3 - pooled + d;
    g.in[k] = shape[self.getRank() - pooled + d];
    g.kernel[k] = kernel[d];
    g.stride[k] = stride[d];
    g.pad[k] = padding[d];
    g.dilation[k] = dilation.empty() ? 1 : dilation[d];
    g.out[k] = poolingOutputSize(g.in[k], g.kernel[k], g.pad[k], g.stride[k],
                                 g.dilation[k], ceilMode);
    if (g.out[k] < 1)
      return op->emitError("pooling window is larger than the padded input of ")
             << formatShape(shape) << " in pooled dimension " << d;
    g.outShape.push_back(g.out[k]);
  }
  return g;
}

LogicalResult evalMaxPool(MaxPoolOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  FailureOr<PoolGeometry> g =
      poolGeometry(op, self, op.getKernelSize(), op.getStride(),
                   op.getPadding(), op.getDilation(), op.getCeilMode());
  if (failed(g))
    return failure();
  Tensor values(getDeclaredDtype(op.getValues()), g->outShape);
  Tensor indices(getDeclaredDtype(op.getIndices()), g->outShape);
  int64_t volume = g->in[0] * g->in[1] * g->in[2], at = 0;
  for (int64_t p = 0; p < g->planes; ++p)
    for (int64_t od = 0; od < g->out[0]; ++od)
      for (int64_t oh = 0; oh < g->out[1]; ++oh)
        for (int64_t ow = 0; ow < g->out[2]; ++ow, ++at) {
          // PyTorch's order: from the first tap inside the input, the
          // best so far replaced by a larger value or any NaN.
          double best = -INFINITY;
          int64_t bestIndex = -1;
          for (int64_t kd = 0; kd < g->kernel[0]; ++kd) {
            int64_t id = od * g->stride[0] - g->pad[0] + kd * g->dilation[0];
            if (id < 0 || id >= g->in[0])
              continue;
            for (int64_t kh = 0; kh < g->kernel[1]; ++kh) {
              int64_t ih = oh * g->stride[1] - g->pad[1] + kh * g->dilation[1];
              if (ih < 0 || ih >= g->in[1])
                continue;
              for (int64_t kw = 0; kw < g->kernel[2]; ++kw) {
                int64_t iw =
                    ow * g->stride[2] - g->pad[2] + kw * g->dilation[2];
                if (iw < 0 || iw >= g->in[2])
                  continue;
                int64_t index = (id * g->in[1] + ih) * g->in[2] + iw;
                double v = self.getDouble(p * volume + index);
                if (bestIndex < 0 || v > best || std::isnan(v)) {
                  best = v;
                  bestIndex = index;
                }
              }
            }
          }
          values.setDouble(at, best);
          indices.setInt(at, bestIndex);
        }
  env.set(op.getValues(), std::move(values));
  env.set(op.getIndices(), std::move(indices));
  return success();
}

LogicalResult evalAvgPool(AvgPoolOp op, Env &env) {
  const Tensor &self = env.get(op.getSelf());
  FailureOr<PoolGeometry> g =
      poolGeometry(op, self, op.getKernelSize(), op.getStride(),
                   op.getPadding(), {}, op.getCeilMode());
  if (failed(g))
    return failure();
  std::optional<uint64_t> divisor = op.getDivisorOverride();
  Tensor out(getDeclaredDtype(op.getResult()), g->outShape);
  int64_t volume = g->in[0] * g->in[1] * g->in[2], at = 0;
  for (int64_t p = 0; p < g->planes; ++p)
    for (int64_t od = 0; od < g->out[0]; ++od)
      for (int64_t oh = 0; oh < g->out[1]; ++oh)
        for (int64_t ow = 0; ow < g->out[2]; ++ow, ++at) {
          int64_t o[3] = {od, oh, ow}, start[3], end[3];
          int64_t padded = 1, inside = 1;
          for (int k = 0; k < 3; ++k) {
            start[k] = o[k] * g->stride[k] - g->pad[k];
            end[k] = std::min(start[k] + g->kernel[k], g->in[k] + g->pad[k]);
            padded *= end[k] - start[k];
            start[k] = std::max<int64_t>(start[k], 0);
            end[k] = std::min(end[k], g->in[k]);
            inside *= std::max<int64_t>(end[k] - start[k], 0);
          }
          double sum = 0.0;
          for (int64_t id = start[0]; id < end[0]; ++id)
            for (int64_t ih = start[1]; ih < end[1]; ++ih)
              for (int64_t iw = start[2]; iw < end[2]; ++iw)
                sum += self.getDouble(p * volume +
                                      (id * g->in[1] + ih) * g->in[2] + iw);
          double by = divisor ? static_cast<double>(static_cast<int64_t>(*divisor))
                      : op.getCountIncludePad() ? static_cast<double>(padded)
                                                : static_cast<double>(inside);
          out.setDouble(at, inside == 0 ? 0.0 : sum / by);
        }
  env.set(op.getResult(), std::move(out));
  return success();
}

LogicalResult evalBatchNorm(BatchNormOp op, Env &env) {
  const Tensor &input = env.get(op.getInput());
  int64_t channels = input.getShape()[1];
  auto param = [&](Value v, StringRef name) -> FailureOr<const Tensor *> {
    if (!v)
      return static_cast<const Tensor *>(nullptr);
    const Tensor &t = env.get(v);
    if (t.getRank() != 1 || t.getShape()[0] != channels)
      return op.emitError("batch_norm ")
             << name << " of shape " << formatShape(t.getShape()) << " for "
             << channels << " channels";
    return &t;
  };
  FailureOr<const Tensor *> mean = param(op.getRunningMean(), "running_mean"),
                            var = param(op.getRunningVar(), "running_var"),
                            weight = param(op.getWeight(), "weight"),
                            bias = param(op.getBias(), "bias");
  if (failed(mean) || failed(var) || failed(weight) || failed(bias))
    return failure();
  double eps = op.getEps().convertToDouble();
  int64_t inner = 1;
  for (int64_t d = 2; d < input.getRank(); ++d)
    inner *= input.getShape()[d];
  Tensor out(getDeclaredDtype(op.getResult()), input.getShape());
  for (int64_t i = 0, e = input.getNumElements(); i < e; ++i) {
    int64_t c = (i / inner) % channels;
    double y = (input.getDouble(i) - (*mean)->getDouble(c)) /
               std::sqrt((*var)->getDouble(c) + eps);
    if (*weight)
      y *= (*weight)->getDouble(c);
    if (*bias)
      y += (*bias)->getDouble(c);
    out.setDouble(i, y);
  }
  env.set(op.getResult(), std::move(out));
  return success();
}

template <typename OpT>
LogicalResult evalLayerNorm(OpT op, Env &env, bool withStats) {
  const Tensor &input = env.get(op.getInput());
  const Tensor *weight = op.getWeight() ? &env.get(op.getWeight()) : nullptr;
  const Tensor *bias = op.getBias() ? &env.get(op.getBias()) : nullptr;
  auto ndim = static_cast<int64_t>(op.getNormalizedNdim());
  if (ndim < 1 || ndim > input.getRank())
    return op.emitError("normalized_ndim ")
           << ndim << " must be in [1, " << input.getRank() << "]";
  ArrayRef<int64_t> normalized = input.getShape().take_back(ndim);
  if (failed(checkNormParam(op, weight, normalized, "weight")) ||
      failed(checkNormParam(op, bias, normalized, "bias")))
    return failure();
  int64_t width = getNumElements(normalized);
  int64_t rows = width ? input.getNumElements() / width : 0;
  double eps = op.getEps().convertToDouble();

  Tensor out(getDeclaredDtype(op->getResult(0)), input.getShape());
  SmallVector<int64_t> statsShape(input.getShape());
  for (int64_t d = input.getRank() - ndim; d < input.getRank(); ++d)
    statsShape[d] = 1;
  Tensor mean, rstd;
  if (withStats) {
    mean = Tensor(getDeclaredDtype(op->getResult(1)), statsShape);
    rstd = Tensor(getDeclaredDtype(op->getResult(2)), statsShape);
  }
  for (int64_t r = 0; r < rows; ++r) {
    int64_t base = r * width;
    double sum = 0;
    for (int64_t i = 0; i < width; ++i)
      sum += input.getDouble(base + i);
    double mu = sum / static_cast<double>(width);
    double squares = 0;
    for (int64_t i = 0; i < width; ++i) {
      double centered = input.getDouble(base + i) - mu;
      squares += centered * centered;
    }
    double inverse =
        1.0 / std::sqrt(squares / static_cast<double>(width) + eps);
    for (int64_t i = 0; i < width; ++i) {
      double y = (input.getDouble(base + i) - mu) * inverse;
      if (weight)
        y *= weight->getDouble(i);
      if (bias)
        y += bias->getDouble(i);
      out.setDouble(base + i, y);
    }
    if (withStats) {
      mean.setDouble(r, mu);
      rstd.setDouble(r, inverse);
    }
  }
  env.set(op->getResult(0), std::move(out));
  if (withStats) {
    env.set(op->getResult(1), std::move(mean));
    env.set(op->getResult(2), std::move(rstd));
  }
  return success();
}

LogicalResult evalRmsNorm(RmsNormOp op, Env &env) {
  const Tensor &input = env.get(op.getInput());
  if (input.getRank() == 0 || !input.isFloat())
    return op.emitError("rms_norm needs a floating-point tensor of rank >= 1");
  Type computeDtype =
      op.getComputeDtype().value_or(Float32Type::get(op.getContext()));
  Tensor x = input.castTo(computeDtype);
  const Tensor *weight = op.getWeight() ? &env.get(op.getWeight()) : nullptr;
  int64_t width = input.getShape().back();
  if (failed(checkNormParam(op, weight, {width}, "weight")))
    return failure();
  int64_t rows = width ? input.getNumElements() / width : 0;
  double eps = op.getEps().convertToDouble();
  // y = to_copy(x * rsqrt(mean(x^2) + eps), input dtype), then y * weight in
  // the result dtype: the two roundings of the decomposition.
  Tensor y(input.getDtype(), {1});
  Tensor out(getDeclaredDtype(op.getResult()), input.getShape());
  for (int64_t r = 0; r < rows; ++r) {
    int64_t base = r * width;
    double squares = 0;
    for (int64_t i = 0; i < width; ++i) {
      double v = x.getDouble(base + i);
      squares += v * v;
    }
    double inverse =
        1.0 / std::sqrt(squares / static_cast<double>(width) + eps);
    for (int64_t i = 0; i < width; ++i) {
      y.setDouble(0, x.getDouble(base + i) * inverse);
      double v = y.getDouble(0);
      out.setDouble(base + i, weight ? v * weight->getDouble(i) : v);
    }
  }
  env.set(op.getResult(), std::move(out));
  return success();
}

//===----------------------------------------------------------------------===//
// Fused elementwise ops
//===----------------------------------------------------------------------===//

// `f(a, b)` over the broadcast of `a` and `b`, rounded to `dtype`.
FailureOr<Tensor> combine(Location loc, const Tensor &a, const Tensor &b,
                          Type dtype, function_ref<double(double, double)> f) {
  FailureOr<SmallVector<int64_t>> shape =
      broadcastRuntimeShapes({a.getShape(), b.getShape()}, loc);
  if (failed(shape))
    return failure();
  Tensor out(dtype, *shape);
  IndexWalker walker(*shape, {getBroadcastStrides(a.getShape(), *shape),
                              getBroadcastStrides(b.getShape(), *shape)});
  for (int64_t i = 0, e = out.getNumElements(); i < e; ++i, walker.next())
    out.setDouble(
        i, f(a.getDouble(walker.offset(0)), b.getDouble(walker.offset(1))));
  return out;
}

double multiply(double x, double y) { return x * y; }

LogicalResult evalSiluAndMul(SiluAndMulOp op, Env &env) {
  // silu(gate) in its own dtype, then multiplied by `up` as magi.mul would.
  const Tensor &gateIn = env.get(op.getGate());
  Type siluDtype = isFloatDtype(gateIn.getDtype())
                       ? gateIn.getDtype()
                       : Float32Type::get(op.getContext());
  Tensor gate = gateIn.castTo(siluDtype);
  Tensor silu(siluDtype, gate.getShape());
  for (int64_t i = 0, e = gate.getNumElements(); i < e; ++i) {
    double x = gate.getDouble(i);
    silu.setDouble(i, x / (1.0 + std::exp(-x)));
  }
  FailureOr<Tensor> out = combine(op.getLoc(), silu, env.get(op.getUp()),
                                  getDeclaredDtype(op.getResult()), multiply);
  if (failed(out))
    return failure();
  env.set(op.getResult(), std::move(*out));
  return success();
}

LogicalResult evalRotary(RotaryEmbeddingOp op, Env &env) {
  const Tensor &x = env.get(op.getX());
  const Tensor &cos = env.get(op.getCos());
  const Tensor &sin = env.get(op.getSin());
  if (x.getRank() == 0 || x.getShape().back() % 2 != 0)
    return op.emitError("rotary_embedding needs x with an even last "
                        "dimension, got shape ")
           << formatShape(x.getShape());
  // rotate_half(x) = cat(-x[..., d/2:], x[..., :d/2]): exact in x's dtype.
  int64_t d = x.getShape().back(), half = d / 2;
  Tensor rotated(x.getDtype(), x.getShape());
  for (int64_t i = 0, e = x.getNumElements(); i < e; ++i) {
    int64_t j = i % d, row = i - j;
    if (j < half)
      rotated.setDouble(i, -x.getDouble(row + j + half));
    else
      rotated.setDouble(i, x.getDouble(row + j - half));
  }
  Type cosDtype =
      magi::resultDtype(TypeRange{op.getX().getType(), op.getCos().getType()});
  Type sinDtype =
      magi::resultDtype(TypeRange{op.getX().getType(), op.getSin().getType()});
  FailureOr<Tensor> xCos = combine(op.getLoc(), x, cos, cosDtype, multiply);
  if (failed(xCos))
    return failure();
  FailureOr<Tensor> rSin =
      combine(op.getLoc(), rotated, sin, sinDtype, multiply);
  if (failed(rSin))
    return failure();
  FailureOr<Tensor> out =
      combine(op.getLoc(), *xCos, *rSin, getDeclaredDtype(op.getResult()),
              [](double a, double b) { return a + b; });
  if (failed(out))
    return failure();
  env.set(op.getResult(), std::move(*out));
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax and attention
//===----------------------------------------------------------------------===//

template <typename OpT>
LogicalResult evalSoftmax(OpT op, Env &env, bool logarithm) {
  const Tensor &input = env.get(op.getSelf());
  FailureOr<int64_t> dim = magi::normalizeDim(static_cast<int64_t>(op.getDim()),
                                              input.getRank(), op.getLoc());
  if (failed(dim))
    return failure();
  Tensor out(getDeclaredDtype(op.getResult()), input.getShape());
  DimSplit s = splitAt(input.getShape(), *dim);
  SmallVector<double> row(s.size);
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t in = 0; in < s.inner; ++in) {
      int64_t base = o * s.size * s.inner + in;
      double max = -INFINITY;
      for (int64_t j = 0; j < s.size; ++j) {
        row[j] = input.getDouble(base + j * s.inner);
        max = std::isnan(row[j]) ? row[j] : std::max(max, row[j]);
      }
      double sum = 0;
      for (int64_t j = 0; j < s.size; ++j)
        sum += std::exp(row[j] - max);
      for (int64_t j = 0; j < s.size; ++j)
        out.setDouble(base + j * s.inner, logarithm
                                              ? row[j] - max - std::log(sum)
                                              : std::exp(row[j] - max) / sum);
    }
  }
  env.set(op.getResult(), std::move(out));
  return success();
}

struct AttentionInputs {
  const Tensor *q, *k, *v, *mask;
  bool causal;
  std::optional<double> scale;
};

struct AttentionResult {
  Tensor out, logSumExp;
};

// softmax(q @ k^T * scale + mask) @ v over q: [..., Hq, L, E], k: [..., Hkv,
// S, E], v: [..., Hkv, S, Ev]; each key/value head serves Hq / Hkv query
// heads. Rows with every key masked out give zeros (PyTorch's safe softmax).
// `lseLength` > 0 also computes the log-sum-exp per query row, padded with
// +inf to that length.
//
// The numerics are those of PyTorch's fused GPU kernels (memory-efficient and
// flash attention): the unnormalized probabilities exp(s - max) enter the
// second product rounded to the input dtype, and the row is divided by the
// (unrounded) sum at the end. For bf16 this tracks PyTorch far more closely
// than rounding nothing, or rounding the normalized probabilities.
FailureOr<AttentionResult> attention(Operation *op, const AttentionInputs &in,
                                     Type dtype, int64_t lseLength) {
  const Tensor &q = *in.q, &k = *in.k, &v = *in.v;
  int64_t rank = q.getRank();
  if (rank < 2 || k.getRank() != rank || v.getRank() != rank)
    return op->emitError("query, key and value must have the same rank >= 2");
  ArrayRef<int64_t> qs = q.getShape(), ks = k.getShape(), vs = v.getShape();
  int64_t length = qs[rank - 2], dimQK = qs[rank - 1];
  int64_t keys = ks[rank - 2], dimV = vs[rank - 1];
  int64_t heads = rank >= 3 ? qs[rank - 3] : 1;
  int64_t kvHeads = rank >= 3 ? ks[rank - 3] : 1;
  size_t inner = std::min<int64_t>(rank, 3); // the [H,] L, E dimensions
  bool batchMatches = qs.drop_back(inner) == ks.drop_back(inner) &&
                      ks.drop_back(inner) == vs.drop_back(inner);
  if (ks[rank - 1] != dimQK || vs[rank - 2] != keys ||
      (rank >= 3 && vs[rank - 3] != kvHeads) || !batchMatches || kvHeads == 0 ||
      heads % kvHeads != 0)
    return op->emitError("incompatible attention shapes: query ")
           << formatShape(qs) << ", key " << formatShape(ks) << ", value "
           << formatShape(vs);
  int64_t batch = getNumElements(qs.drop_back(inner));
  int64_t group = heads / kvHeads;

  // The mask, broadcast to [..., Hq, L, S].
  SmallVector<int64_t> scoreShape(qs);
  scoreShape.back() = keys;
  SmallVector<int64_t> maskStrides;
  if (in.mask) {
    FailureOr<SmallVector<int64_t>> shape =
        broadcastRuntimeShapes({in.mask->getShape(), scoreShape}, op->getLoc());
    if (failed(shape))
      return failure();
    if (ArrayRef<int64_t>(*shape) != ArrayRef<int64_t>(scoreShape))
      return op->emitError("mask of shape ")
             << formatShape(in.mask->getShape())
             << " does not broadcast to the scores' shape "
             << formatShape(scoreShape);
    maskStrides = getBroadcastStrides(in.mask->getShape(), scoreShape);
  }
  bool boolMask = in.mask && in.mask->getKind() == ElementKind::Bool;
  double scale = in.scale.value_or(1.0 / std::sqrt(static_cast<double>(dimQK)));

  SmallVector<double> qv = toDoubles(q), kv = toDoubles(k), vv = toDoubles(v);
  SmallVector<int64_t> outShape(qs);
  outShape.back() = dimV;
  AttentionResult result;
  result.out = Tensor(dtype, outShape);
  SmallVector<int64_t> lseShape = {batch, heads, lseLength};
  if (lseLength > 0)
    result.logSumExp = Tensor(Float32Type::get(op->getContext()), lseShape);
  SmallVector<double> scores(keys), acc(dimV);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      int64_t kvHead = b * kvHeads + h / group;
      // Where the mask's [L, S] block for (b, h) starts.
      int64_t maskBase = 0;
      if (in.mask) {
        int64_t rest = b;
        for (int64_t d = rank - 1 - static_cast<int64_t>(inner); d >= 0; --d) {
          maskBase += (rest % scoreShape[d]) * maskStrides[d];
          rest /= scoreShape[d];
        }
        if (rank >= 3)
          maskBase += h * maskStrides[rank - 3];
      }
      for (int64_t l = 0; l < length; ++l) {
        const double *qRow = qv.data() + ((b * heads + h) * length + l) * dimQK;
        double max = -INFINITY;
        for (int64_t j = 0; j < keys; ++j) {
          double s = 0;
          const double *kRow = kv.data() + (kvHead * keys + j) * dimQK;
          for (int64_t e = 0; e < dimQK; ++e)
            s += qRow[e] * kRow[e];
          s *= scale;
          if (in.mask) {
            int64_t offset = maskBase + l * maskStrides[rank - 2] +
                             j * maskStrides[rank - 1];
            if (boolMask)
              s = in.mask->isNonZero(offset) ? s : -INFINITY;
            else
              s += in.mask->getDouble(offset);
          }
          if (in.causal && j > l)
            s = -INFINITY;
          scores[j] = s;
          max = std::max(max, s);
        }
        double sum = 0;
        if (max != -INFINITY)
          for (int64_t j = 0; j < keys; ++j)
            sum += scores[j] = std::exp(scores[j] - max);
        std::fill(acc.begin(), acc.end(), 0.0);
        if (sum > 0) {
          for (int64_t j = 0; j < keys; ++j) {
            const double *vRow = vv.data() + (kvHead * keys + j) * dimV;
            double p = roundToKind(scores[j], q.getKind());
            for (int64_t e = 0; e < dimV; ++e)
              acc[e] += p * vRow[e];
          }
        }
        int64_t outBase = ((b * heads + h) * length + l) * dimV;
        for (int64_t e = 0; e < dimV; ++e)
          result.out.setDouble(outBase + e, sum > 0 ? acc[e] / sum : 0.0);
        if (lseLength > 0)
          result.logSumExp.setDouble((b * heads + h) * lseLength + l,
                                     max == -INFINITY ? -INFINITY
                                                      : max + std::log(sum));
      }
      for (int64_t l = length; l < lseLength; ++l)
        result.logSumExp.setDouble((b * heads + h) * lseLength + l, INFINITY);
    }
  }
  return result;
}

LogicalResult evalAttention(AttentionOp op, Env &env) {
  if (op.getDropoutP().convertToDouble() != 0)
    return op.emitError("attention with dropout (dropout_p = ")
           << op.getDropoutP().convertToDouble()
           << ") is random; the interpreter supports dropout_p = 0 only";
  // Layout bshd: dimensions 1 and 2 of q, k, v swapped in, of the result
  // out.
  auto otherLayout = [](const Tensor &t) {
    return gatherStrided(t, swapHeadsAndSequence(t.getShape()),
                         swapHeadsAndSequence(getContiguousStrides(t.getShape())));
  };
  bool sequenceMajor = op.isSequenceMajor();
  for (Value operand : {op.getQuery(), op.getKey(), op.getValue()})
    if (sequenceMajor && env.get(operand).getRank() != 4)
      return op.emitError("layout 'bshd' needs query, key and value of rank 4");
  std::optional<Tensor> query, key, value;
  if (sequenceMajor) {
    query = otherLayout(env.get(op.getQuery()));
    key = otherLayout(env.get(op.getKey()));
    value = otherLayout(env.get(op.getValue()));
  }
  AttentionInputs in{sequenceMajor ? &*query : &env.get(op.getQuery()),
                     sequenceMajor ? &*key : &env.get(op.getKey()),
                     sequenceMajor ? &*value : &env.get(op.getValue()),
                     op.getMask() ? &env.get(op.getMask()) : nullptr,
                     op.getIsCausal(),
                     std::nullopt};
  if (auto scale = op.getScaleAttr())
    in.scale = scale.getValueAsDouble();
  FailureOr<AttentionResult> result =
      attention(op, in, getDeclaredDtype(op.getResult()), 0);
  if (failed(result))
    return failure();
  env.set(op.getResult(),
          sequenceMajor ? otherLayout(result->out) : std::move(result->out));
  return success();
}

// The inputs of an SDPA kernel op (efficient or cuDNN): 4-d, without
// dropout (random).
template <typename KernelOp>
FailureOr<AttentionInputs> kernelAttentionInputs(KernelOp op, Env &env) {
  if (op.getDropoutP().convertToDouble() != 0)
    return op.emitError("attention with dropout (dropout_p = ")
           << op.getDropoutP().convertToDouble()
           << ") is random; the interpreter supports dropout_p = 0 only";
  AttentionInputs in{&env.get(op.getQuery()),
                     &env.get(op.getKey()),
                     &env.get(op.getValue()),
                     op.getAttnBias() ? &env.get(op.getAttnBias()) : nullptr,
                     op.getIsCausal(),
                     std::nullopt};
  if (auto scale = op.getScaleAttr())
    in.scale = scale.getValueAsDouble();
  if (in.q->getRank() != 4 ||
      in.k->getShape().take_front(2) != in.q->getShape().take_front(2))
    return op.emitError("query must be [B, H, L, E] and key/value share B "
                        "and H, got query ")
           << formatShape(in.q->getShape()) << " and key "
           << formatShape(in.k->getShape());
  return in;
}

LogicalResult evalEfficientAttention(EfficientAttentionOp op, Env &env) {
  FailureOr<AttentionInputs> in = kernelAttentionInputs(op, env);
  if (failed(in))
    return failure();
  int64_t length = in->q->getShape()[2];
  int64_t lseLength = op.getComputeLogSumexp() ? (length + 31) / 32 * 32 : 0;
  FailureOr<AttentionResult> result =
      attention(op, *in, getDeclaredDtype(op.getResult()), lseLength);
  if (failed(result))
    return failure();
  env.set(op.getResult(), std::move(result->out));
  int64_t batch = in->q->getShape()[0], heads = in->q->getShape()[1];
  if (lseLength == 0)
    result->logSumExp =
        Tensor(Float32Type::get(op.getContext()), {batch, heads, 0});
  env.set(op.getLogSumexp(), std::move(result->logSumExp));
  // No dropout, so no RNG state: seed and offset are zeros.
  Type i64 = IntegerType::get(op.getContext(), 64);
  env.set(op.getPhiloxSeed(), Tensor(i64, {}));
  env.set(op.getPhiloxOffset(), Tensor(i64, {}));
  return success();
}

// As the efficient kernel, the log-sum-exp always computed ([B, H, L, 1];
// PyTorch leaves it unwritten unless compute_log_sumexp), and the sequence
// lengths as index values.
LogicalResult evalCudnnAttention(CudnnAttentionOp op, Env &env) {
  FailureOr<AttentionInputs> in = kernelAttentionInputs(op, env);
  if (failed(in))
    return failure();
  int64_t batch = in->q->getShape()[0], heads = in->q->getShape()[1];
  int64_t length = in->q->getShape()[2], keys = in->k->getShape()[2];
  FailureOr<AttentionResult> result =
      attention(op, *in, getDeclaredDtype(op.getResult()), length);
  if (failed(result))
    return failure();
  env.set(op.getResult(), std::move(result->out));
  env.set(op.getLogSumexp(),
          std::move(result->logSumExp).reshaped({batch, heads, length, 1}));
  Type i64 = IntegerType::get(op.getContext(), 64);
  env.set(op.getMaxQ(), Tensor::scalarInt(i64, length));
  env.set(op.getMaxK(), Tensor::scalarInt(i64, keys));
  // No dropout, so no RNG state: seed and offset are zeros.
  env.set(op.getPhiloxSeed(), Tensor(i64, {}));
  env.set(op.getPhiloxOffset(), Tensor(i64, {}));
  return success();
}

} // namespace

std::optional<LogicalResult> evalNNOp(Operation *op, Env &env) {
  using Result = std::optional<LogicalResult>;
  return llvm::TypeSwitch<Operation *, Result>(op)
      .Case([&](MmOp m) -> Result { return evalMatmul(m, env, 2); })
      .Case([&](BmmOp m) -> Result { return evalMatmul(m, env, 3); })
      .Case([&](AddmmOp a) -> Result { return evalAddmm(a, env); })
      .Case([&](GroupedMmOp g) -> Result { return evalGroupedMm(g, env); })
      .Case([&](ConvolutionOp c) -> Result { return evalConvolution(c, env); })
      .Case([&](BatchNormOp b) -> Result { return evalBatchNorm(b, env); })
      .Case([&](MaxPoolOp m) -> Result { return evalMaxPool(m, env); })
      .Case([&](AvgPoolOp a) -> Result { return evalAvgPool(a, env); })
      .Case([&](NativeLayerNormOp n) -> Result {
        return evalLayerNorm(n, env, /*withStats=*/true);
      })
      .Case([&](LayerNormOp n) -> Result {
        return evalLayerNorm(n, env, /*withStats=*/false);
      })
      .Case([&](RmsNormOp n) -> Result { return evalRmsNorm(n, env); })
      .Case([&](SiluAndMulOp s) -> Result { return evalSiluAndMul(s, env); })
      .Case([&](RotaryEmbeddingOp r) -> Result { return evalRotary(r, env); })
      .Case([&](SoftmaxOp s) -> Result {
        return evalSoftmax(s, env, /*logarithm=*/false);
      })
      .Case([&](LogSoftmaxOp s) -> Result {
        return evalSoftmax(s, env, /*logarithm=*/true);
      })
      .Case([&](AttentionOp a) -> Result { return evalAttention(a, env); })
      .Case([&](EfficientAttentionOp a) -> Result {
        return evalEfficientAttention(a, env);
      })
      .Case([&](CudnnAttentionOp a) -> Result {
        return evalCudnnAttention(a, env);
      })
      .Default([](Operation *) -> Result { return std::nullopt; });
}

} // namespace magi::interp::detail
