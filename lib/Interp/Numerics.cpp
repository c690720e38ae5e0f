//===- Numerics.cpp - Rounding to PyTorch's floating-point dtypes ---------===//

#include "magi/Interp/Numerics.h"
#include <cmath>
#include <cstring>
#include <limits>

namespace magi::interp {

// Rounds to an integer, ties to even. Written out rather than relying on the
// floating-point environment's rounding mode. `v` is small enough here that
// every step is exact.
static double roundHalfEven(double v) {
  double floor = std::floor(v);
  double diff = v - floor;
  if (diff > 0.5)
    return floor + 1;
  if (diff < 0.5)
    return floor;
  return std::fmod(floor, 2.0) == 0 ? floor : floor + 1;
}

double roundToFormat(double value, int fractionBits, int minExponent,
                     int maxExponent) {
  if (std::isnan(value) || std::isinf(value) || value == 0)
    return value;
  // The spacing of representable numbers around `value`: 2^(e - fraction
  // bits) for its exponent e, fixed below the normal range (subnormals).
  int exponent = std::max(std::ilogb(value), minExponent);
  int quantumExponent = exponent - fractionBits;
  double rounded = std::ldexp(
      roundHalfEven(std::ldexp(value, -quantumExponent)), quantumExponent);
  // IEEE overflow: decided after rounding with an unbounded exponent.
  if (std::fabs(rounded) >= std::ldexp(1.0, maxExponent + 1))
    return std::copysign(std::numeric_limits<double>::infinity(), value);
  return rounded;
}

uint16_t roundToBF16(double value) {
  if (std::isnan(value))
    return std::signbit(value) ? 0xFFC0 : 0x7FC0;
  // bf16 is f32 with 7 fraction bits: round there, then the f32 holding the
  // result exactly has zeros in its low 16 bits.
  float f = static_cast<float>(roundToFormat(value, 7, -126, 127));
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return static_cast<uint16_t>(bits >> 16);
}

double bf16ToDouble(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof(f));
  return f;
}

uint16_t roundToF16(double value) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value))
    return sign | 0x7E00;
  double rounded = std::fabs(roundToFormat(value, 10, -14, 15));
  if (std::isinf(rounded))
    return sign | 0x7C00;
  if (rounded == 0)
    return sign;
  int exponent = std::ilogb(rounded);
  if (exponent < -14) // subnormal: a multiple of 2^-24
    return sign | static_cast<uint16_t>(std::ldexp(rounded, 24));
  auto fraction =
      static_cast<uint16_t>(std::ldexp(rounded, 10 - exponent) - 1024);
  return sign | static_cast<uint16_t>((exponent + 15) << 10) | fraction;
}

double f16ToDouble(uint16_t bits) {
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  int exponent = (bits >> 10) & 0x1F;
  int fraction = bits & 0x3FF;
  if (exponent == 0)
    return sign * std::ldexp(fraction, -24);
  if (exponent == 31)
    return fraction ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  return sign * std::ldexp(1024 + fraction, exponent - 25);
}

float roundToF32(double value) {
  // The hardware conversion rounds to nearest-even in the default mode;
  // going through roundToFormat keeps it independent of that mode.
  if (std::isnan(value))
    return static_cast<float>(value);
  return static_cast<float>(roundToFormat(value, 23, -126, 127));
}

} // namespace magi::interp
