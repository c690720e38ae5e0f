//===- Tensor.h - Dtypes, host tensors, fixture files -----------*- C++ -*-===//
//
// The element types of the artifact format, a dense host tensor, the
// fixtures' raw `.bin` + `.json` files, and the output comparison shared
// with `magi-interp --fixture`.
//
//===----------------------------------------------------------------------===//

#ifndef MAGI_RUNTIME_TENSOR_H
#define MAGI_RUNTIME_TENSOR_H

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace magi::runtime {

enum class Dtype { F64, F32, F16, BF16, I64, I32, I16, I8, U8, I1 };

// "f32", ... as in the manifest; nothing for an unknown name.
std::optional<Dtype> dtypeFromManifestName(const std::string &name);
const char *manifestName(Dtype dtype);
// "float32", "bfloat16", "int64", "bool", ... as in the fixtures' .json.
std::optional<Dtype> dtypeFromFixtureName(const std::string &name);
const char *fixtureName(Dtype dtype);
int64_t elementSize(Dtype dtype);
bool isFloat(Dtype dtype);

// IEEE half and bfloat16 bit patterns to float.
float halfToFloat(uint16_t bits);
float bfloat16ToFloat(uint16_t bits);

std::string formatShape(const std::vector<int64_t> &shape);
// The number of elements; throws RuntimeError on a negative size or overflow.
int64_t numElements(const std::vector<int64_t> &shape);

struct HostTensor {
  Dtype dtype = Dtype::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes; // dense, row-major, little-endian

  int64_t numElements() const { return magi::runtime::numElements(shape); }
  // Element i as a double (exact for every integer that fits).
  double getDouble(int64_t i) const;
  int64_t getInt(int64_t i) const;
};

// Reads `binPath` (raw bytes) described by `jsonPath`
// ({"shape": [1, 32], "dtype": "int64"}); the sizes must agree.
HostTensor readRawTensor(const std::string &binPath, const std::string &jsonPath);
void writeRawTensor(const HostTensor &tensor, const std::string &binPath,
                    const std::string &jsonPath);
// A `.bin` or `.json` path: the pair with the same stem.
HostTensor readTensorFile(const std::string &path);

// Compares an output with its reference and prints one line,
// `out<index>: rel_err=1.234e-07 OK` (or FAIL, with a reason in parentheses
// for a shape or dtype mismatch). The bar is `toleranceOverride` when set,
// else 1e-4 for f32/f64 and 3e-2 for bf16/f16; integer and bool outputs must
// match exactly. Returns whether it passed.
bool compareOutput(unsigned index, const HostTensor &out, const HostTensor &ref,
                   std::optional<double> toleranceOverride, std::ostream &os);

} // namespace magi::runtime

#endif // MAGI_RUNTIME_TENSOR_H
