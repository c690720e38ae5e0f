//===- PoolingShape.h - Output sizes of pooling windows ---------*- C++ -*-===//
//
// The number of windows along a dimension as PyTorch computes it
// (pooling_output_shape): the output size of a pooled or convolved
// dimension (and a transposed convolution's), shared by the ops' type inference and the interpreter (the
// lowering builds the same formula in index arithmetic, windowCount).
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_DIALECT_MAGI_IR_POOLINGSHAPE_H
#define MAGI_DIALECT_MAGI_IR_POOLINGSHAPE_H

#include "llvm/Support/MathExtras.h"
#include <cstdint>

namespace magi {

/// Windows of `kernel` taps `dilation` apart, `stride` apart, over `in`
/// padded by `pad` on both sides; with `ceilMode` a last partial window
/// counts unless it would start in the right padding.
inline int64_t poolingOutputSize(int64_t in, int64_t kernel, int64_t pad,
                                 int64_t stride, int64_t dilation,
                                 bool ceilMode) {
  // Floor division: the span is negative when the window does not fit.
  int64_t out = llvm::divideFloorSigned(in + 2 * pad - dilation * (kernel - 1) -
                                            1 + (ceilMode ? stride - 1 : 0),
                                        stride) +
                1;
  if (ceilMode && (out - 1) * stride >= in + pad)
    --out;
  return out;
}

/// A transposed convolution's output size (ConvTranspose): input element
/// `i`'s taps land at `i * stride - pad + tap * dilation`, and
/// `outputPadding` more positions close the last stride.
inline int64_t transposedConvolutionSize(int64_t in, int64_t kernel,
                                         int64_t pad, int64_t stride,
                                         int64_t dilation,
                                         int64_t outputPadding) {
  return (in - 1) * stride - 2 * pad + dilation * (kernel - 1) +
         outputPadding + 1;
}

} // namespace magi

#endif // MAGI_DIALECT_MAGI_IR_POOLINGSHAPE_H
