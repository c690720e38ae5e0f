//===- Arguments.cpp - Arguments of imported graphs -----------------------===//
//
// Feeds an imported graph: parameters, buffers and constants come from the
// torch.export archive as the importer described them (`magi.weight`), user
// inputs from the caller.
//
//===----------------------------------------------------------------------===//

#include "Eval.h"
#include "magi/Import/TorchExport.h"
#include "magi/Interp/Interpreter.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/SwapByteOrder.h"
#include <cstring>

using namespace mlir;

namespace magi::interp {

FailureOr<InputKind> getInputKind(func::FuncOp func, unsigned index) {
  auto kind = func.getArgAttrOfType<StringAttr>(index, kInputKindAttr);
  if (!kind)
    return InputKind::UserInput;
  if (kind.getValue() == "parameter")
    return InputKind::Parameter;
  if (kind.getValue() == "buffer")
    return InputKind::Buffer;
  if (kind.getValue() == "constant")
    return InputKind::Constant;
  if (kind.getValue() == "user_input")
    return InputKind::UserInput;
  return func.emitError("argument ")
         << index << " has an unknown " << kInputKindAttr << " " << kind;
}

SmallVector<unsigned> getUserInputIndices(func::FuncOp func) {
  SmallVector<unsigned> indices;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto kind = func.getArgAttrOfType<StringAttr>(i, kInputKindAttr);
    if (!kind || kind.getValue() == "user_input")
      indices.push_back(i);
  }
  return indices;
}

std::string getArgumentName(func::FuncOp func, unsigned index) {
  if (auto name = func.getArgAttrOfType<StringAttr>(index, kNameAttr))
    return "'" + name.getValue().str() + "'";
  return "#" + std::to_string(index);
}

FailureOr<const std::string *> WeightLoader::readEntry(StringRef name,
                                                       Location loc) {
  auto it = entries.find(name);
  if (it != entries.end())
    return &it->second;
  // Entries may be named with or without the archive's folder prefix.
  std::string fullName = name.str();
  if (!archive.hasEntry(fullName) &&
      archive.hasEntry(archive.prefix() + fullName))
    fullName = archive.prefix() + fullName;
  std::string bytes, error;
  if (!archive.readEntry(fullName, bytes, error))
    return emitError(loc) << error;
  return &entries.insert({name, std::move(bytes)}).first->second;
}

FailureOr<Tensor> WeightLoader::load(func::FuncOp func, unsigned index) {
  Location loc = func.getLoc();
  std::string what = "argument " + std::to_string(index) + " (" +
                     getArgumentName(func, index) + ")";
  auto type = dyn_cast<RankedTensorType>(func.getArgument(index).getType());
  if (!type || !type.hasStaticShape() || !getElementKind(type.getElementType()))
    return emitError(loc) << what << " of type "
                          << func.getArgument(index).getType()
                          << " cannot be read from the archive: it needs a "
                             "static shape and a Magi dtype";
  auto weight = func.getArgAttrOfType<DictionaryAttr>(index, kWeightAttr);
  if (!weight)
    return emitError(loc) << what << " has no " << kWeightAttr
                          << " attribute saying where its data is";
  auto entry = weight.getAs<StringAttr>("entry");
  auto offsetAttr = weight.getAs<IntegerAttr>("offset");
  auto stridesAttr = weight.getAs<DenseI64ArrayAttr>("strides");
  if (!entry || !offsetAttr || !stridesAttr ||
      stridesAttr.size() != type.getRank())
    return emitError(loc) << what << ": malformed " << kWeightAttr << " "
                          << weight
                          << " (expected {entry = \"...\", offset = <bytes>, "
                             "strides = array<i64: ...> of rank "
                          << type.getRank() << "})";
  FailureOr<const std::string *> bytes = readEntry(entry.getValue(), loc);
  if (failed(bytes))
    return failure();

  // The archive stores little-endian bytes, copied as they are.
  if (!llvm::sys::IsLittleEndianHost)
    return emitError(loc) << "reading weights needs a little-endian host";
  Tensor tensor(type.getElementType(), type.getShape());
  if (tensor.getNumElements() == 0)
    return tensor;
  // The byte range the strided view touches must lie inside the entry.
  int64_t elementSize = tensor.getElementSize();
  int64_t offset = offsetAttr.getInt();
  int64_t lowest = offset, highest = offset;
  ArrayRef<int64_t> strides = stridesAttr.asArrayRef();
  for (auto [size, stride] : llvm::zip(type.getShape(), strides)) {
    int64_t extent = (size - 1) * stride * elementSize;
    (extent < 0 ? lowest : highest) += extent;
  }
  highest += elementSize;
  if (lowest < 0 || highest > static_cast<int64_t>((*bytes)->size()))
    return emitError(loc) << what << ": the view (offset " << offset
                          << " bytes, strides " << formatShape(strides)
                          << ") reaches bytes [" << lowest << ", " << highest
                          << ") but entry '" << entry.getValue() << "' holds "
                          << (*bytes)->size() << " bytes";
  const char *data = (*bytes)->data();
  char *out = tensor.getMutableBytes().data();
  SmallVector<int64_t> byteStrides;
  for (int64_t s : strides)
    byteStrides.push_back(s * elementSize);
  detail::IndexWalker walker(type.getShape(), {byteStrides}, {offset});
  for (int64_t i = 0, e = tensor.getNumElements(); i < e; ++i, walker.next())
    std::memcpy(out + i * elementSize, data + walker.offset(0), elementSize);
  return tensor;
}

FailureOr<SmallVector<Tensor>>
prepareArguments(func::FuncOp func, const TorchExportArchive *archive,
                 ArrayRef<Tensor> userInputs) {
  SmallVector<unsigned> users = getUserInputIndices(func);
  if (users.size() != userInputs.size())
    return func.emitError("the graph takes ")
           << users.size() << " user input(s), got " << userInputs.size();
  std::optional<WeightLoader> loader;
  if (archive)
    loader.emplace(*archive);
  SmallVector<Tensor> args(func.getNumArguments());
  for (auto [index, input] : llvm::zip(users, userInputs))
    args[index] = input;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    FailureOr<InputKind> kind = getInputKind(func, i);
    if (failed(kind))
      return failure();
    if (*kind == InputKind::UserInput || func.getArgAttr(i, kConcatOfAttr))
      continue;
    if (!loader)
      return func.emitError("argument ")
             << i << " (" << getArgumentName(func, i)
             << ") is a weight, but no archive was given to read it from";
    FailureOr<Tensor> weight = loader->load(func, i);
    if (failed(weight))
      return failure();
    args[i] = std::move(*weight);
  }
  // Concatenated weights (magi-merge-projections), from their parts.
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (func.getArgAttr(i, kConcatOfAttr)) {
      FailureOr<Tensor> concat = concatenateWeights(func, i, args);
      if (failed(concat))
        return failure();
      args[i] = std::move(*concat);
    }
  return args;
}

FailureOr<Tensor> concatenateWeights(func::FuncOp func, unsigned index,
                                     ArrayRef<Tensor> args) {
  std::string what = "argument " + std::to_string(index) + " (" +
                     getArgumentName(func, index) + ")";
  auto type = dyn_cast<RankedTensorType>(func.getArgument(index).getType());
  if (!type || !type.hasStaticShape() || type.getRank() == 0)
    return func.emitError() << what << ": " << kConcatOfAttr
                            << " needs a statically shaped tensor of rank >= 1";
  FailureOr<SmallVector<unsigned>> parts = concatenationParts(func, index);
  if (failed(parts))
    return failure();
  Tensor result(type.getElementType(), type.getShape());
  MutableArrayRef<char> out = result.getMutableBytes();
  size_t at = 0;
  int64_t rows = 0;
  for (unsigned part : *parts) {
    auto partType = cast<RankedTensorType>(func.getArgument(part).getType());
    if (partType.getElementType() != type.getElementType() ||
        partType.getRank() != type.getRank() ||
        partType.getShape().drop_front() != type.getShape().drop_front())
      return func.emitError() << what << ": part "
                              << func.getArgAttr(part, kNameAttr) << " of type "
                              << partType << " does not concatenate along "
                                             "dim 0 into "
                              << type;
    ArrayRef<char> bytes = args[part].getBytes();
    if (at + bytes.size() > out.size())
      return func.emitError() << what << ": its parts hold more than " << type;
    std::memcpy(out.data() + at, bytes.data(), bytes.size());
    at += bytes.size();
    rows += partType.getDimSize(0);
  }
  if (rows != type.getDimSize(0))
    return func.emitError() << what << ": its parts have " << rows
                            << " rows, not " << type.getDimSize(0);
  return result;
}

} // namespace magi::interp
