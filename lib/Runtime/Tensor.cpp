//===- Tensor.cpp - Dtypes, host tensors, fixture files -------------------===//

#include "magi/Runtime/Tensor.h"
#include "magi/Runtime/Json.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace magi::runtime {

namespace {
struct DtypeInfo {
  Dtype dtype;
  const char *manifestName;
  const char *fixtureName;
  int64_t size;
  bool isFloat;
};
const DtypeInfo kDtypes[] = {
    {Dtype::F64, "f64", "float64", 8, true},
    {Dtype::F32, "f32", "float32", 4, true},
    {Dtype::F16, "f16", "float16", 2, true},
    {Dtype::BF16, "bf16", "bfloat16", 2, true},
    {Dtype::I64, "i64", "int64", 8, false},
    {Dtype::I32, "i32", "int32", 4, false},
    {Dtype::I16, "i16", "int16", 2, false},
    {Dtype::I8, "i8", "int8", 1, false},
    {Dtype::U8, "u8", "uint8", 1, false},
    {Dtype::I1, "i1", "bool", 1, false},
};
const DtypeInfo &info(Dtype dtype) {
  for (const DtypeInfo &i : kDtypes)
    if (i.dtype == dtype)
      return i;
  return kDtypes[0];
}
} // namespace

std::optional<Dtype> dtypeFromManifestName(const std::string &name) {
  for (const DtypeInfo &i : kDtypes)
    if (name == i.manifestName)
      return i.dtype;
  return std::nullopt;
}
const char *manifestName(Dtype dtype) { return info(dtype).manifestName; }
std::optional<Dtype> dtypeFromFixtureName(const std::string &name) {
  for (const DtypeInfo &i : kDtypes)
    if (name == i.fixtureName)
      return i.dtype;
  return std::nullopt;
}
const char *fixtureName(Dtype dtype) { return info(dtype).fixtureName; }
int64_t elementSize(Dtype dtype) { return info(dtype).size; }
bool isFloat(Dtype dtype) { return info(dtype).isFloat; }

float halfToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1F;
  uint32_t mantissa = bits & 0x3FF;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(float(mantissa), -24); // zero or subnormal
  else if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else
    magnitude = std::ldexp(float(mantissa | 0x400), int(exponent) - 25);
  float result = magnitude;
  uint32_t resultBits;
  std::memcpy(&resultBits, &result, 4);
  resultBits |= sign;
  std::memcpy(&result, &resultBits, 4);
  return result;
}

float bfloat16ToFloat(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float result;
  std::memcpy(&result, &wide, 4);
  return result;
}

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t size : shape) {
    if (size < 0)
      throw RuntimeError("negative size in shape " + formatShape(shape));
    if (__builtin_mul_overflow(n, size, &n))
      throw RuntimeError("shape " + formatShape(shape) + " is too large");
  }
  return n;
}

template <typename T> static T load(const std::vector<uint8_t> &bytes, int64_t i) {
  T value;
  std::memcpy(&value, bytes.data() + i * int64_t(sizeof(T)), sizeof(T));
  return value;
}

double HostTensor::getDouble(int64_t i) const {
  switch (dtype) {
  case Dtype::F64: return load<double>(bytes, i);
  case Dtype::F32: return load<float>(bytes, i);
  case Dtype::F16: return halfToFloat(load<uint16_t>(bytes, i));
  case Dtype::BF16: return bfloat16ToFloat(load<uint16_t>(bytes, i));
  default: return double(getInt(i));
  }
}

int64_t HostTensor::getInt(int64_t i) const {
  switch (dtype) {
  case Dtype::I64: return load<int64_t>(bytes, i);
  case Dtype::I32: return load<int32_t>(bytes, i);
  case Dtype::I16: return load<int16_t>(bytes, i);
  case Dtype::I8: return load<int8_t>(bytes, i);
  case Dtype::U8:
  case Dtype::I1: return load<uint8_t>(bytes, i);
  default: return int64_t(getDouble(i));
  }
}

HostTensor readRawTensor(const std::string &binPath, const std::string &jsonPath) {
  JsonValue meta = readJsonFile(jsonPath);
  if (!meta.isObject())
    throw RuntimeError(jsonPath + ": expected an object {\"shape\": [...], \"dtype\": \"...\"}");
  for (const auto &member : meta.members())
    if (member.first != "shape" && member.first != "dtype")
      throw RuntimeError(jsonPath + ": unknown field \"" + member.first + "\"");
  const JsonValue *shape = meta.find("shape");
  const JsonValue *dtype = meta.find("dtype");
  if (!shape || !shape->isArray())
    throw RuntimeError(jsonPath + ": \"shape\" must be an array of integers");
  if (!dtype || !dtype->isString())
    throw RuntimeError(jsonPath + ": \"dtype\" must be a string");
  HostTensor tensor;
  std::optional<Dtype> parsed = dtypeFromFixtureName(dtype->asString());
  if (!parsed)
    throw RuntimeError(jsonPath + ": unknown dtype \"" + dtype->asString() +
                       "\" (expected float64, float32, float16, bfloat16, int64, "
                       "int32, int16, int8, uint8 or bool)");
  tensor.dtype = *parsed;
  for (const JsonValue &size : shape->items()) {
    if (!size.isInteger() || size.asInteger() < 0)
      throw RuntimeError(jsonPath + ": \"shape\" entries must be non-negative integers");
    tensor.shape.push_back(size.asInteger());
  }
  int64_t expected;
  try {
    if (__builtin_mul_overflow(numElements(tensor.shape), elementSize(tensor.dtype), &expected))
      throw RuntimeError("too large");
  } catch (const RuntimeError &e) {
    throw RuntimeError(jsonPath + ": " + e.what());
  }
  std::string data = readFileBytes(binPath);
  if (int64_t(data.size()) != expected)
    throw RuntimeError(binPath + ": holds " + std::to_string(data.size()) +
                       " bytes, but " + fixtureName(tensor.dtype) + " " +
                       formatShape(tensor.shape) + " (from " + jsonPath +
                       ") needs " + std::to_string(expected));
  tensor.bytes.assign(data.begin(), data.end());
  return tensor;
}

void writeRawTensor(const HostTensor &tensor, const std::string &binPath,
                    const std::string &jsonPath) {
  std::ofstream bin(binPath, std::ios::binary);
  bin.write(reinterpret_cast<const char *>(tensor.bytes.data()),
            std::streamsize(tensor.bytes.size()));
  if (!bin.good())
    throw RuntimeError("cannot write '" + binPath + "'");
  std::ofstream json(jsonPath);
  json << "{\"shape\": " << formatShape(tensor.shape) << ", \"dtype\": \""
       << fixtureName(tensor.dtype) << "\"}";
  if (!json.good())
    throw RuntimeError("cannot write '" + jsonPath + "'");
}

HostTensor readTensorFile(const std::string &path) {
  auto endsWith = [&](const std::string &suffix) {
    return path.size() >= suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  std::string stem;
  if (endsWith(".bin"))
    stem = path.substr(0, path.size() - 4);
  else if (endsWith(".json"))
    stem = path.substr(0, path.size() - 5);
  else
    throw RuntimeError("input '" + path + "' is neither a .bin nor a .json file");
  return readRawTensor(stem + ".bin", stem + ".json");
}

bool compareOutput(unsigned index, const HostTensor &out, const HostTensor &ref,
                   std::optional<double> toleranceOverride, std::ostream &os) {
  os << "out" << index << ": ";
  if (out.shape != ref.shape) {
    os << "rel_err=inf FAIL (shape " << formatShape(out.shape) << ", reference "
       << formatShape(ref.shape) << ")\n";
    return false;
  }
  double diff = 0, norm = 0;
  bool exact = true;
  bool anyFloat = isFloat(out.dtype) || isFloat(ref.dtype);
  for (int64_t i = 0, e = out.numElements(); i < e; ++i) {
    double o = out.getDouble(i), r = ref.getDouble(i);
    diff += (o - r) * (o - r);
    norm += r * r;
    exact &= anyFloat ? (o == r || (std::isnan(o) && std::isnan(r)))
                      : out.getInt(i) == ref.getInt(i);
  }
  // Relative to the reference's norm; absolute when the reference is zero.
  double relErr = norm > 0 ? std::sqrt(diff) / std::sqrt(norm) : std::sqrt(diff);
  std::optional<double> tolerance;
  if (isFloat(out.dtype))
    tolerance = toleranceOverride ? *toleranceOverride
                : (out.dtype == Dtype::BF16 || out.dtype == Dtype::F16) ? 3e-2
                                                                        : 1e-4;
  bool ok = tolerance ? relErr <= *tolerance : exact;
  bool sameDtype = out.dtype == ref.dtype;
  ok &= sameDtype;
  char text[32];
  std::snprintf(text, sizeof(text), "%.3e", relErr);
  os << "rel_err=" << text << (ok ? " OK" : " FAIL");
  if (!sameDtype)
    os << " (dtype " << fixtureName(out.dtype) << ", reference " << fixtureName(ref.dtype) << ")";
  else if (!tolerance && !exact)
    os << " (integer outputs must match exactly)";
  os << "\n";
  return ok;
}

} // namespace magi::runtime
