//===- Tensor.h - Host tensors of the reference interpreter -----*- C++ -*-===//
//
// A dense, contiguous (row-major) tensor in host memory holding elements in
// the exact bit layout of its dtype (bf16 as 16 bits, bool as one byte), so
// that every value the interpreter produces is one PyTorch could produce.
// Python scalars are 0-d tensors (`index` values as i64).
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_INTERP_TENSOR_H
#define MAGI_INTERP_TENSOR_H

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace magi::interp {

/// The element types a tensor can hold: PyTorch's dtypes as Magi spells them
/// (f64 f32 f16 bf16 i64 i32 i16 i8 ui8 i1).
enum class ElementKind : uint8_t {
  F64,
  F32,
  F16,
  BF16,
  I64,
  I32,
  I16,
  I8,
  UI8,
  Bool
};

/// The kind of `dtype`, or nothing when it is not one of Magi's dtypes.
std::optional<ElementKind> getElementKind(mlir::Type dtype);
/// Size in bytes of one element.
unsigned getElementSize(ElementKind kind);
/// True for f64, f32, f16 and bf16.
bool isFloatKind(ElementKind kind);

class Tensor {
public:
  /// An empty 0-d placeholder without a dtype; holds no element.
  Tensor() = default;
  /// A zero-filled tensor. `dtype` must be one of Magi's dtypes (check with
  /// getElementKind first when it comes from outside) and sizes must be >= 0.
  Tensor(mlir::Type dtype, llvm::ArrayRef<int64_t> shape);

  /// A 0-d tensor holding `value`, converted to `dtype`.
  static Tensor scalar(mlir::Type dtype, double value);
  static Tensor scalarInt(mlir::Type dtype, int64_t value);

  bool hasDtype() const { return static_cast<bool>(dtype); }
  mlir::Type getDtype() const { return dtype; }
  ElementKind getKind() const { return kind; }
  bool isFloat() const { return isFloatKind(kind); }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  int64_t getRank() const { return static_cast<int64_t>(shape.size()); }
  int64_t getNumElements() const { return numElements; }
  unsigned getElementSize() const { return magi::interp::getElementSize(kind); }

  /// The raw little-endian bytes, row-major.
  llvm::ArrayRef<char> getBytes() const { return storage; }
  llvm::MutableArrayRef<char> getMutableBytes() { return storage; }

  /// Element `i` (row-major) as a double (bool as 0/1).
  double getDouble(int64_t i) const;
  /// Element `i` as an integer: floats are truncated toward zero (NaN gives
  /// 0, out-of-range values saturate), bool is 0/1.
  int64_t getInt(int64_t i) const;
  /// True when element `i` is nonzero (NaN counts as nonzero, as in C).
  bool isNonZero(int64_t i) const;

  /// Stores `value` in element `i`, rounded to the dtype: nearest-even for
  /// floats, truncation toward zero then wrap-around for integers, `!= 0`
  /// for bool.
  void setDouble(int64_t i, double value);
  /// Stores `value` in element `i`: wrap-around for narrower integers,
  /// nearest-even for floats, `!= 0` for bool.
  void setInt(int64_t i, int64_t value);
  /// Copies element `srcIndex` of `src` into element `i`, converting between
  /// dtypes as `aten._to_copy` does.
  void setFrom(int64_t i, const Tensor &src, int64_t srcIndex);

  /// The same elements converted to `dtype` (a copy).
  Tensor castTo(mlir::Type dtype) const;
  /// The same elements with another shape of the same element count.
  Tensor reshaped(llvm::ArrayRef<int64_t> newShape) const &;
  Tensor reshaped(llvm::ArrayRef<int64_t> newShape) &&;

  /// Prints the elements as nested lists (`[[1, 2], [3, 4]]`), floats in the
  /// shortest form that reads back to the same value of the dtype; at most
  /// `limit` elements, then `...`.
  void printValues(llvm::raw_ostream &os, int64_t limit = -1) const;
  /// `tensor<2x3xf32>`.
  std::string getTypeString() const;

private:
  mlir::Type dtype;
  ElementKind kind = ElementKind::F32;
  llvm::SmallVector<int64_t, 4> shape;
  int64_t numElements = 0;
  std::vector<char> storage;
};

/// Number of elements of `shape`.
int64_t getNumElements(llvm::ArrayRef<int64_t> shape);
/// Row-major strides (in elements) of a contiguous tensor of `shape`.
llvm::SmallVector<int64_t> getContiguousStrides(llvm::ArrayRef<int64_t> shape);
/// `[1, 32, 128]`.
std::string formatShape(llvm::ArrayRef<int64_t> shape);
/// `value` rounded to the dtype `kind` as storing it would round it (floats
/// to nearest-even; integer kinds leave it unchanged).
double roundToKind(double value, ElementKind kind);
/// The shortest decimal form of `value` that reads back to the same value of
/// the float kind `kind` (`0.1`, `-inf`, `nan`).
std::string formatFloat(double value, ElementKind kind);

} // namespace magi::interp

#endif // MAGI_INTERP_TENSOR_H
