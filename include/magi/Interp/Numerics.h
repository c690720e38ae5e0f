//===- Numerics.h - Rounding to PyTorch's floating-point dtypes -*- C++ -*-===//
//
// Conversions between double and the 16-bit floating-point formats (bf16,
// f16) with IEEE round-to-nearest-even, as PyTorch rounds every op's result.
// The interpreter computes in double and rounds once to the result dtype.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_INTERP_NUMERICS_H
#define MAGI_INTERP_NUMERICS_H

#include <cstdint>

namespace magi::interp {

/// `value` rounded to bfloat16 (round to nearest, ties to even; overflow to
/// infinity; NaN stays NaN), as raw bits.
uint16_t roundToBF16(double value);
/// The value of the bfloat16 with raw bits `bits`.
double bf16ToDouble(uint16_t bits);

/// `value` rounded to IEEE half precision (nearest, ties to even;
/// subnormals; overflow to infinity), as raw bits.
uint16_t roundToF16(double value);
/// The value of the half-precision float with raw bits `bits`.
double f16ToDouble(uint16_t bits);

/// `value` rounded to single precision (nearest, ties to even).
float roundToF32(double value);

/// `value` rounded to a binary format with `fractionBits` explicit fraction
/// bits whose normal numbers have exponents in [minExponent, maxExponent]
/// (gradual underflow below, infinity above), as a double. Exact: the
/// building block of the conversions above.
double roundToFormat(double value, int fractionBits, int minExponent,
                     int maxExponent);

} // namespace magi::interp

#endif // MAGI_INTERP_NUMERICS_H
