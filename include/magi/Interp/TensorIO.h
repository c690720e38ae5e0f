//===- TensorIO.h - Reading and writing tensors in files --------*- C++ -*-===//
//
// Two formats:
//  - the fixtures' raw format: `x.bin` holds little-endian, C-contiguous
//    elements and `x.json` beside it `{"shape": [...], "dtype": "float32"}`
//    (dtype names as PyTorch prints them: float32, bfloat16, int64, bool...);
//  - NumPy `.npy` (format versions 1-3, little-endian, C order; dtypes <f8
//    <f4 <f2 <i8 <i4 <i2 |i1 |u1 |b1). bf16 is not a NumPy dtype.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_INTERP_TENSORIO_H
#define MAGI_INTERP_TENSORIO_H

#include "magi/Interp/Tensor.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Error.h"
#include <string>

namespace magi::interp {

/// PyTorch's name of `dtype` (`float32`, `bfloat16`, `int64`, `bool`...);
/// empty when it is not a Magi dtype.
llvm::StringRef getDtypeName(mlir::Type dtype);
/// The dtype PyTorch calls `name` (also `float`, `half`, `long`, `int`...);
/// null when unknown.
mlir::Type parseDtypeName(llvm::StringRef name, mlir::MLIRContext *context);

/// Reads a tensor in the fixtures' raw format: `binPath` with the data,
/// `jsonPath` with shape and dtype.
llvm::Expected<Tensor> readRawTensor(llvm::StringRef binPath,
                                     llvm::StringRef jsonPath,
                                     mlir::MLIRContext *context);
/// Writes `tensor` in the fixtures' raw format.
llvm::Error writeRawTensor(const Tensor &tensor, llvm::StringRef binPath,
                           llvm::StringRef jsonPath);

/// The header of a `.npy` file.
struct NpyHeader {
  unsigned majorVersion = 0;
  std::string descr; // `<f4`
  bool fortranOrder = false;
  llvm::SmallVector<int64_t> shape;
  size_t dataOffset = 0; // bytes from the start of the file to the data
};

/// Parses the magic, version and header dictionary at the start of `file`.
llvm::Expected<NpyHeader> parseNpyHeader(llvm::StringRef file);
/// The dtype of a NumPy type string (`<f4` is f32); null when unsupported.
mlir::Type parseNpyDescr(llvm::StringRef descr, mlir::MLIRContext *context);
/// Reads a whole `.npy` file held in memory.
llvm::Expected<Tensor> parseNpy(llvm::StringRef file,
                                mlir::MLIRContext *context);
/// Reads the `.npy` file at `path`.
llvm::Expected<Tensor> readNpy(llvm::StringRef path,
                               mlir::MLIRContext *context);
/// The bytes of a version-1 `.npy` file holding `tensor`. Fails for bf16,
/// which NumPy cannot represent (convert to f32 first).
llvm::Expected<std::string> serializeNpy(const Tensor &tensor);
/// Writes `tensor` to `path` as `.npy`.
llvm::Error writeNpy(const Tensor &tensor, llvm::StringRef path);

} // namespace magi::interp

#endif // MAGI_INTERP_TENSORIO_H
