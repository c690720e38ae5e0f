//===- Tensor.cpp - Host tensors of the reference interpreter -------------===//

#include "magi/Interp/Tensor.h"
#include "magi/Interp/Numerics.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>

using namespace mlir;

namespace magi::interp {

std::optional<ElementKind> getElementKind(Type dtype) {
  if (!dtype)
    return std::nullopt;
  if (dtype.isF64())
    return ElementKind::F64;
  if (dtype.isF32())
    return ElementKind::F32;
  if (dtype.isF16())
    return ElementKind::F16;
  if (dtype.isBF16())
    return ElementKind::BF16;
  if (dtype.isSignlessInteger(64))
    return ElementKind::I64;
  if (dtype.isSignlessInteger(32))
    return ElementKind::I32;
  if (dtype.isSignlessInteger(16))
    return ElementKind::I16;
  if (dtype.isSignlessInteger(8))
    return ElementKind::I8;
  if (dtype.isUnsignedInteger(8))
    return ElementKind::UI8;
  if (dtype.isSignlessInteger(1))
    return ElementKind::Bool;
  return std::nullopt;
}

unsigned getElementSize(ElementKind kind) {
  switch (kind) {
  case ElementKind::F64:
  case ElementKind::I64:
    return 8;
  case ElementKind::F32:
  case ElementKind::I32:
    return 4;
  case ElementKind::F16:
  case ElementKind::BF16:
  case ElementKind::I16:
    return 2;
  case ElementKind::I8:
  case ElementKind::UI8:
  case ElementKind::Bool:
    return 1;
  }
  llvm_unreachable("unknown element kind");
}

bool isFloatKind(ElementKind kind) {
  return kind == ElementKind::F64 || kind == ElementKind::F32 ||
         kind == ElementKind::F16 || kind == ElementKind::BF16;
}

int64_t getNumElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

SmallVector<int64_t> getContiguousStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (auto [i, s] : llvm::enumerate(shape)) {
    if (i)
      text += ", ";
    text += std::to_string(s);
  }
  return text + "]";
}

Tensor::Tensor(Type dtype, ArrayRef<int64_t> shape)
    : dtype(dtype), shape(shape.begin(), shape.end()) {
  std::optional<ElementKind> k = getElementKind(dtype);
  assert(k && "not a Magi dtype");
  assert(llvm::all_of(shape, [](int64_t s) { return s >= 0; }) &&
         "negative size");
  kind = *k;
  numElements = magi::interp::getNumElements(shape);
  storage.assign(static_cast<size_t>(numElements) * getElementSize(), 0);
}

Tensor Tensor::scalar(Type dtype, double value) {
  Tensor t(dtype, {});
  t.setDouble(0, value);
  return t;
}

Tensor Tensor::scalarInt(Type dtype, int64_t value) {
  Tensor t(dtype, {});
  t.setInt(0, value);
  return t;
}

template <typename T> static T load(const char *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T> static void store(char *p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

double Tensor::getDouble(int64_t i) const {
  const char *p = storage.data() + i * getElementSize();
  switch (kind) {
  case ElementKind::F64:
    return load<double>(p);
  case ElementKind::F32:
    return load<float>(p);
  case ElementKind::F16:
    return f16ToDouble(load<uint16_t>(p));
  case ElementKind::BF16:
    return bf16ToDouble(load<uint16_t>(p));
  case ElementKind::I64:
    return static_cast<double>(load<int64_t>(p));
  case ElementKind::I32:
    return load<int32_t>(p);
  case ElementKind::I16:
    return load<int16_t>(p);
  case ElementKind::I8:
    return load<int8_t>(p);
  case ElementKind::UI8:
    return load<uint8_t>(p);
  case ElementKind::Bool:
    return load<uint8_t>(p) != 0;
  }
  llvm_unreachable("unknown element kind");
}

// Float to integer as a C cast would, made total: truncate toward zero,
// NaN to 0, saturate out of range.
static int64_t truncToInt(double v) {
  if (std::isnan(v))
    return 0;
  if (v >= 9.2233720368547758e18)
    return std::numeric_limits<int64_t>::max();
  if (v <= -9.2233720368547758e18)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

int64_t Tensor::getInt(int64_t i) const {
  const char *p = storage.data() + i * getElementSize();
  switch (kind) {
  case ElementKind::I64:
    return load<int64_t>(p);
  case ElementKind::I32:
    return load<int32_t>(p);
  case ElementKind::I16:
    return load<int16_t>(p);
  case ElementKind::I8:
    return load<int8_t>(p);
  case ElementKind::UI8:
    return load<uint8_t>(p);
  case ElementKind::Bool:
    return load<uint8_t>(p) != 0;
  default:
    return truncToInt(getDouble(i));
  }
}

bool Tensor::isNonZero(int64_t i) const {
  if (isFloat())
    return getDouble(i) != 0;
  return getInt(i) != 0;
}

void Tensor::setDouble(int64_t i, double value) {
  char *p = storage.data() + i * getElementSize();
  switch (kind) {
  case ElementKind::F64:
    return store<double>(p, value);
  case ElementKind::F32:
    return store<float>(p, roundToF32(value));
  case ElementKind::F16:
    return store<uint16_t>(p, roundToF16(value));
  case ElementKind::BF16:
    return store<uint16_t>(p, roundToBF16(value));
  case ElementKind::Bool:
    return store<uint8_t>(p, value != 0);
  default:
    return setInt(i, truncToInt(value));
  }
}

void Tensor::setInt(int64_t i, int64_t value) {
  char *p = storage.data() + i * getElementSize();
  // Narrowing keeps the low bits (two's complement wrap-around), as a C cast.
  auto bits = static_cast<uint64_t>(value);
  switch (kind) {
  case ElementKind::I64:
    return store<int64_t>(p, value);
  case ElementKind::I32:
    return store<uint32_t>(p, static_cast<uint32_t>(bits));
  case ElementKind::I16:
    return store<uint16_t>(p, static_cast<uint16_t>(bits));
  case ElementKind::I8:
  case ElementKind::UI8:
    return store<uint8_t>(p, static_cast<uint8_t>(bits));
  case ElementKind::Bool:
    return store<uint8_t>(p, value != 0);
  default:
    return setDouble(i, static_cast<double>(value));
  }
}

void Tensor::setFrom(int64_t i, const Tensor &src, int64_t srcIndex) {
  if (src.kind == kind) {
    unsigned size = getElementSize();
    std::memcpy(storage.data() + i * size, src.storage.data() + srcIndex * size,
                size);
    return;
  }
  if (src.isFloat())
    setDouble(i, src.getDouble(srcIndex));
  else
    setInt(i, src.getInt(srcIndex));
}

Tensor Tensor::castTo(Type newDtype) const {
  if (newDtype == dtype)
    return *this;
  Tensor result(newDtype, shape);
  for (int64_t i = 0; i < numElements; ++i)
    result.setFrom(i, *this, i);
  return result;
}

Tensor Tensor::reshaped(ArrayRef<int64_t> newShape) const & {
  Tensor copy = *this;
  return std::move(copy).reshaped(newShape);
}

Tensor Tensor::reshaped(ArrayRef<int64_t> newShape) && {
  assert(magi::interp::getNumElements(newShape) == numElements &&
         "reshape changes the element count");
  shape.assign(newShape.begin(), newShape.end());
  return std::move(*this);
}

double roundToKind(double v, ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
    return roundToF32(v);
  case ElementKind::F16:
    return f16ToDouble(roundToF16(v));
  case ElementKind::BF16:
    return bf16ToDouble(roundToBF16(v));
  default:
    return v;
  }
}

std::string formatFloat(double value, ElementKind kind) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  // The fewest significant digits that read back to `value`...
  char buffer[64];
  int precision = 1;
  for (; precision < 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*e", precision - 1, value);
    if (roundToKind(std::strtod(buffer, nullptr), kind) == value)
      break;
  }
  // ...written as Python writes floats: positional for exponents in
  // [-4, 16), else scientific.
  const char *e = std::strchr(buffer, 'e');
  int exponent = e ? std::atoi(e + 1) : 0;
  if (exponent < -4 || exponent >= 16)
    return buffer;
  std::snprintf(buffer, sizeof(buffer), "%.*f",
                std::max(0, precision - 1 - exponent), value);
  return buffer;
}

void Tensor::printValues(raw_ostream &os, int64_t limit) const {
  if (!dtype) {
    os << "<none>";
    return;
  }
  int64_t printed = 0;
  SmallVector<int64_t> strides = getContiguousStrides(shape);
  // Prints dimension `dim` of the block starting at element `base`.
  std::function<bool(int64_t, int64_t)> printDim = [&](int64_t dim,
                                                       int64_t base) {
    if (dim == getRank()) {
      if (limit >= 0 && printed >= limit) {
        os << "...";
        return false;
      }
      ++printed;
      if (isFloat())
        os << formatFloat(getDouble(base), kind);
      else if (kind == ElementKind::Bool)
        os << (getInt(base) ? "true" : "false");
      else
        os << getInt(base);
      return true;
    }
    os << "[";
    for (int64_t i = 0; i < shape[dim]; ++i) {
      if (i)
        os << ", ";
      if (!printDim(dim + 1, base + i * strides[dim])) {
        os << "]";
        return false;
      }
    }
    os << "]";
    return true;
  };
  printDim(0, 0);
}

std::string Tensor::getTypeString() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (!dtype) {
    os << "<none>";
    return text;
  }
  os << "tensor<";
  for (int64_t s : shape)
    os << s << "x";
  os << dtype << ">";
  return text;
}

} // namespace magi::interp
