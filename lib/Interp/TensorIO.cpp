//===- TensorIO.cpp - Reading and writing tensors in files ----------------===//

#include "magi/Interp/TensorIO.h"
#include "magi/Import/Json.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SwapByteOrder.h"
#include "llvm/Support/raw_ostream.h"
#include <cstring>

using namespace mlir;
using llvm::createStringError;
using llvm::Error;
using llvm::Expected;

namespace magi::interp {

static Error makeError(const Twine &message) {
  return createStringError(llvm::inconvertibleErrorCode(), message);
}

StringRef getDtypeName(Type dtype) {
  std::optional<ElementKind> kind = getElementKind(dtype);
  if (!kind)
    return "";
  switch (*kind) {
  case ElementKind::F64:
    return "float64";
  case ElementKind::F32:
    return "float32";
  case ElementKind::F16:
    return "float16";
  case ElementKind::BF16:
    return "bfloat16";
  case ElementKind::I64:
    return "int64";
  case ElementKind::I32:
    return "int32";
  case ElementKind::I16:
    return "int16";
  case ElementKind::I8:
    return "int8";
  case ElementKind::UI8:
    return "uint8";
  case ElementKind::Bool:
    return "bool";
  }
  llvm_unreachable("unknown element kind");
}

Type parseDtypeName(StringRef name, MLIRContext *context) {
  name.consume_front("torch.");
  Builder b(context);
  return llvm::StringSwitch<Type>(name)
      .Cases({"float64", "double"}, b.getF64Type())
      .Cases({"float32", "float"}, b.getF32Type())
      .Cases({"float16", "half"}, b.getF16Type())
      .Case("bfloat16", b.getBF16Type())
      .Cases({"int64", "long"}, b.getIntegerType(64))
      .Cases({"int32", "int"}, b.getIntegerType(32))
      .Cases({"int16", "short"}, b.getIntegerType(16))
      .Case("int8", b.getIntegerType(8))
      .Case("uint8", b.getIntegerType(8, /*isSigned=*/false))
      .Case("bool", b.getIntegerType(1))
      .Default(Type());
}

static Expected<std::unique_ptr<llvm::MemoryBuffer>> readFile(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError("cannot read '" + path +
                     "': " + buffer.getError().message());
  return std::move(*buffer);
}

static Error writeFile(StringRef path, StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return makeError("cannot write '" + path + "': " + ec.message());
  os << bytes;
  os.close();
  if (os.has_error())
    return makeError("cannot write '" + path + "': " + os.error().message());
  return Error::success();
}

// A tensor of `dtype` and `shape` whose bytes are `data`, which must hold
// exactly its elements; `what` names the source in errors.
static Expected<Tensor> tensorFromBytes(Type dtype, ArrayRef<int64_t> shape,
                                        StringRef data, const Twine &what) {
  if (!llvm::sys::IsLittleEndianHost)
    return makeError("reading tensors needs a little-endian host");
  // Check the size before allocating: a damaged header may claim anything.
  uint64_t expected = getElementSize(*getElementKind(dtype));
  for (int64_t s : shape) {
    if (s < 0)
      return makeError(what + ": negative size in shape " + formatShape(shape));
    if (s != 0 && expected > UINT64_MAX / static_cast<uint64_t>(s))
      expected = UINT64_MAX; // overflows: more than `data` can hold
    else
      expected *= static_cast<uint64_t>(s);
  }
  if (data.size() != expected)
    return makeError(
        what + ": holds " + Twine(data.size()) + " bytes, but shape " +
        formatShape(shape) + " of " + getDtypeName(dtype) + " needs " +
        (expected == UINT64_MAX ? Twine("more") : Twine(expected)));
  Tensor tensor(dtype, shape);
  if (!data.empty())
    std::memcpy(tensor.getMutableBytes().data(), data.data(), data.size());
  return tensor;
}

//===----------------------------------------------------------------------===//
// The fixtures' raw format
//===----------------------------------------------------------------------===//

Expected<Tensor> readRawTensor(StringRef binPath, StringRef jsonPath,
                               MLIRContext *context) {
  auto jsonFile = readFile(jsonPath);
  if (!jsonFile)
    return jsonFile.takeError();
  // parseJson refuses deep nesting, which would overflow the stack.
  Expected<llvm::json::Value> json = parseJson((*jsonFile)->getBuffer());
  if (!json)
    return makeError("'" + jsonPath + "' " + llvm::toString(json.takeError()));
  const llvm::json::Object *object = json->getAsObject();
  const llvm::json::Array *shapeArray =
      object ? object->getArray("shape") : nullptr;
  std::optional<StringRef> dtypeName =
      object ? object->getString("dtype") : std::nullopt;
  if (!shapeArray || !dtypeName)
    return makeError("'" + jsonPath +
                     "' must hold {\"shape\": [...], \"dtype\": \"...\"}");
  SmallVector<int64_t> shape;
  for (const llvm::json::Value &v : *shapeArray) {
    std::optional<int64_t> size = v.getAsInteger();
    if (!size || *size < 0)
      return makeError("'" + jsonPath + "': shape entries must be sizes >= 0");
    shape.push_back(*size);
  }
  Type dtype = parseDtypeName(*dtypeName, context);
  if (!dtype)
    return makeError("'" + jsonPath + "': unsupported dtype '" + *dtypeName +
                     "'");
  auto binFile = readFile(binPath);
  if (!binFile)
    return binFile.takeError();
  return tensorFromBytes(dtype, shape, (*binFile)->getBuffer(),
                         "'" + binPath + "'");
}

Error writeRawTensor(const Tensor &tensor, StringRef binPath,
                     StringRef jsonPath) {
  std::string json;
  llvm::raw_string_ostream os(json);
  os << "{\"shape\": " << formatShape(tensor.getShape()) << ", \"dtype\": \""
     << getDtypeName(tensor.getDtype()) << "\"}";
  if (Error e = writeFile(jsonPath, json))
    return e;
  ArrayRef<char> bytes = tensor.getBytes();
  return writeFile(binPath, StringRef(bytes.data(), bytes.size()));
}

//===----------------------------------------------------------------------===//
// NumPy .npy
//===----------------------------------------------------------------------===//

namespace {
// Reads the Python dict literal of a .npy header:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class NpyDictParser {
public:
  explicit NpyDictParser(StringRef text) : rest(text) {}

  Error parse(NpyHeader &header) {
    bool sawDescr = false, sawOrder = false, sawShape = false;
    if (!consume('{'))
      return fail("expected '{'");
    while (!consume('}')) {
      std::string key;
      if (Error e = parseString(key))
        return e;
      if (!consume(':'))
        return fail("expected ':' after '" + key + "'");
      if (key == "descr") {
        if (Error e = parseString(header.descr))
          return e;
        sawDescr = true;
      } else if (key == "fortran_order") {
        if (Error e = parseBool(header.fortranOrder))
          return e;
        sawOrder = true;
      } else if (key == "shape") {
        if (Error e = parseShape(header.shape))
          return e;
        sawShape = true;
      } else {
        return fail("unknown key '" + key + "'");
      }
      if (!consume(',') && !peek('}'))
        return fail("expected ',' or '}'");
    }
    if (!sawDescr || !sawOrder || !sawShape)
      return fail("'descr', 'fortran_order' and 'shape' are required");
    return Error::success();
  }

private:
  void skipSpace() { rest = rest.ltrim(" \t\r\n"); }
  bool peek(char c) {
    skipSpace();
    return rest.starts_with(StringRef(&c, 1));
  }
  bool consume(char c) {
    if (!peek(c))
      return false;
    rest = rest.drop_front();
    return true;
  }
  Error fail(const Twine &message) {
    return makeError("malformed .npy header: " + message);
  }
  Error parseString(std::string &out) {
    skipSpace();
    if (rest.empty() || (rest.front() != '\'' && rest.front() != '"'))
      return fail("expected a quoted string");
    char quote = rest.front();
    size_t end = rest.find(quote, 1);
    if (end == StringRef::npos)
      return fail("unterminated string");
    out = rest.slice(1, end).str();
    rest = rest.drop_front(end + 1);
    return Error::success();
  }
  Error parseBool(bool &out) {
    skipSpace();
    if (rest.consume_front("True"))
      out = true;
    else if (rest.consume_front("False"))
      out = false;
    else
      return fail("expected True or False");
    return Error::success();
  }
  Error parseShape(SmallVectorImpl<int64_t> &shape) {
    if (!consume('('))
      return fail("expected '(' to start the shape");
    while (!consume(')')) {
      skipSpace();
      size_t digits = rest.find_first_not_of("0123456789");
      if (digits == 0 || rest.empty())
        return fail("expected a size in the shape");
      uint64_t size;
      if (rest.take_front(digits).getAsInteger(10, size) ||
          size > static_cast<uint64_t>(INT64_MAX))
        return fail("size out of range in the shape");
      shape.push_back(static_cast<int64_t>(size));
      rest = rest.drop_front(std::min(digits, rest.size()));
      // A trailing 'L' is how Python 2 wrote long integers.
      rest.consume_front("L");
      if (!consume(',') && !peek(')'))
        return fail("expected ',' or ')' in the shape");
    }
    return Error::success();
  }

  StringRef rest;
};
} // namespace

Expected<NpyHeader> parseNpyHeader(StringRef file) {
  static constexpr StringLiteral magic("\x93NUMPY");
  if (!file.starts_with(magic))
    return makeError("not a .npy file (no \\x93NUMPY magic)");
  if (file.size() < 10)
    return makeError("truncated .npy header");
  NpyHeader header;
  header.majorVersion = static_cast<unsigned char>(file[6]);
  size_t lengthSize;
  if (header.majorVersion == 1)
    lengthSize = 2;
  else if (header.majorVersion == 2 || header.majorVersion == 3)
    lengthSize = 4;
  else
    return makeError("unsupported .npy format version " +
                     Twine(header.majorVersion));
  if (file.size() < 8 + lengthSize)
    return makeError("truncated .npy header");
  uint64_t length = 0;
  for (size_t i = 0; i < lengthSize; ++i)
    length |= static_cast<uint64_t>(static_cast<unsigned char>(file[8 + i]))
              << (8 * i);
  size_t start = 8 + lengthSize;
  if (file.size() - start < length)
    return makeError("truncated .npy header: it announces " + Twine(length) +
                     " bytes");
  NpyDictParser parser(file.substr(start, length));
  if (Error e = parser.parse(header))
    return Expected<NpyHeader>(std::move(e));
  header.dataOffset = start + length;
  return header;
}

Type parseNpyDescr(StringRef descr, MLIRContext *context) {
  if (descr.size() < 2)
    return Type();
  char order = descr.front();
  StringRef code = descr.drop_front();
  bool singleByte = code == "i1" || code == "u1" || code == "b1";
  // Multi-byte elements must be little-endian ('<', or '=' on such a host).
  bool little = order == '<' || (order == '=' && llvm::sys::IsLittleEndianHost);
  if (!singleByte && !little)
    return Type();
  if (singleByte && order != '|' && order != '<' && order != '=' &&
      order != '>')
    return Type();
  Builder b(context);
  return llvm::StringSwitch<Type>(code)
      .Case("f8", b.getF64Type())
      .Case("f4", b.getF32Type())
      .Case("f2", b.getF16Type())
      .Case("i8", b.getIntegerType(64))
      .Case("i4", b.getIntegerType(32))
      .Case("i2", b.getIntegerType(16))
      .Case("i1", b.getIntegerType(8))
      .Case("u1", b.getIntegerType(8, /*isSigned=*/false))
      .Case("b1", b.getIntegerType(1))
      .Default(Type());
}

static std::string npyDescr(ElementKind kind) {
  switch (kind) {
  case ElementKind::F64:
    return "<f8";
  case ElementKind::F32:
    return "<f4";
  case ElementKind::F16:
    return "<f2";
  case ElementKind::I64:
    return "<i8";
  case ElementKind::I32:
    return "<i4";
  case ElementKind::I16:
    return "<i2";
  case ElementKind::I8:
    return "|i1";
  case ElementKind::UI8:
    return "|u1";
  case ElementKind::Bool:
    return "|b1";
  case ElementKind::BF16:
    return "";
  }
  llvm_unreachable("unknown element kind");
}

Expected<Tensor> parseNpy(StringRef file, MLIRContext *context) {
  Expected<NpyHeader> header = parseNpyHeader(file);
  if (!header)
    return header.takeError();
  if (header->fortranOrder)
    return makeError(".npy data in Fortran order is not supported; save a "
                     "C-contiguous array");
  Type dtype = parseNpyDescr(header->descr, context);
  if (!dtype)
    return makeError("unsupported .npy dtype '" + header->descr +
                     "' (supported: <f8 <f4 <f2 <i8 <i4 <i2 |i1 |u1 |b1)");
  return tensorFromBytes(dtype, header->shape,
                         file.drop_front(header->dataOffset), ".npy data");
}

Expected<Tensor> readNpy(StringRef path, MLIRContext *context) {
  auto file = readFile(path);
  if (!file)
    return file.takeError();
  Expected<Tensor> tensor = parseNpy((*file)->getBuffer(), context);
  if (!tensor)
    return makeError("'" + path + "': " + llvm::toString(tensor.takeError()));
  return tensor;
}

Expected<std::string> serializeNpy(const Tensor &tensor) {
  std::string descr = npyDescr(tensor.getKind());
  if (descr.empty())
    return makeError("NumPy has no dtype for " +
                     getDtypeName(tensor.getDtype()));
  std::string dict = "{'descr': '" + descr +
                     "', 'fortran_order': False, "
                     "'shape': (";
  for (auto [i, s] : llvm::enumerate(tensor.getShape()))
    dict += (i ? ", " : "") + std::to_string(s);
  if (tensor.getRank() == 1)
    dict += ",";
  dict += "), }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes.
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  if (dict.size() > 0xFFFF)
    return makeError("the .npy header is too long for format version 1");
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(dict.size() & 0xFF);
  out += static_cast<char>(dict.size() >> 8);
  out += dict;
  ArrayRef<char> bytes = tensor.getBytes();
  out.append(bytes.begin(), bytes.end());
  return out;
}

Error writeNpy(const Tensor &tensor, StringRef path) {
  Expected<std::string> bytes = serializeNpy(tensor);
  if (!bytes)
    return bytes.takeError();
  return writeFile(path, *bytes);
}

} // namespace magi::interp
