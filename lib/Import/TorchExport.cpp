//===- TorchExport.cpp - Import torch.export archives (.pt2) --------------===//
//
// Reads the ExportedProgram JSON (schema 8.x) of a `torch.export.save`
// archive and builds a magi graph: symbols from the range constraints, one
// argument per graph input (lifted weights marked with where their bytes
// are), one op per node, and a return of the graph outputs.
//
//===----------------------------------------------------------------------===//

#include "magi/Import/TorchExport.h"
#include "magi/Import/Json.h"
#include "magi/Import/SymExpr.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>
#include <map>

using namespace mlir;
namespace json = llvm::json;

namespace magi {

FailureOr<SmallVector<unsigned>> concatenationParts(func::FuncOp func,
                                                    unsigned index) {
  auto name = func.getArgAttrOfType<StringAttr>(index, kNameAttr);
  std::string what = "argument " + std::to_string(index) + " (" +
                     (name ? "'" + name.getValue().str() + "'"
                           : "#" + std::to_string(index)) +
                     ")";
  auto names = func.getArgAttrOfType<ArrayAttr>(index, kConcatOfAttr);
  if (!names || names.empty())
    return func.emitError() << what << ": " << kConcatOfAttr
                            << " needs a non-empty list of weight names";
  llvm::StringMap<unsigned> byName;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto n = func.getArgAttrOfType<StringAttr>(i, kNameAttr);
        n && func.getArgAttr(i, kWeightAttr))
      byName.try_emplace(n.getValue(), i);
  SmallVector<unsigned> parts;
  for (Attribute attr : names) {
    auto part = dyn_cast<StringAttr>(attr);
    auto it = part ? byName.find(part.getValue()) : byName.end();
    if (it == byName.end())
      return func.emitError() << what << ": " << attr
                              << " names no weight argument read from the "
                                 "archive";
    parts.push_back(it->second);
  }
  return parts;
}

namespace {

//===----------------------------------------------------------------------===//
// JSON access
//===----------------------------------------------------------------------===//

const json::Object *getObject(const json::Value *v) {
  return v ? v->getAsObject() : nullptr;
}
const json::Object *getObject(const json::Object *o, StringRef key) {
  return o ? getObject(o->get(key)) : nullptr;
}
const json::Array *getArray(const json::Object *o, StringRef key) {
  return o ? o->getArray(key) : nullptr;
}

// The single key of a tagged union such as {"as_tensor": {...}}.
StringRef unionKind(const json::Object *o) {
  if (!o || o->empty())
    return "";
  return o->begin()->first;
}

std::optional<double> jsonFloat(const json::Value &v) {
  if (auto d = v.getAsNumber())
    return *d;
  if (auto s = v.getAsString()) {
    if (*s == "Infinity" || *s == "inf")
      return INFINITY;
    if (*s == "-Infinity" || *s == "-inf")
      return -INFINITY;
    if (*s == "NaN" || *s == "nan")
      return NAN;
  }
  return std::nullopt;
}

/// torch.export's ScalarType enum (torch/_export/serde/schema.py).
Type dtypeFromCode(MLIRContext *ctx, int64_t code) {
  Builder b(ctx);
  switch (code) {
  case 1:
    return b.getIntegerType(8, /*isSigned=*/false);
  case 2:
    return b.getIntegerType(8);
  case 3:
    return b.getIntegerType(16);
  case 4:
    return b.getI32Type();
  case 5:
    return b.getI64Type();
  case 6:
    return b.getF16Type();
  case 7:
    return b.getF32Type();
  case 8:
    return b.getF64Type();
  case 12:
    return b.getI1Type();
  case 13:
    return b.getBF16Type();
  default:
    return nullptr;
  }
}

int64_t dtypeBytes(Type t) {
  return t.isInteger(1) ? 1 : (t.getIntOrFloatBitWidth() + 7) / 8;
}

//===----------------------------------------------------------------------===//
// The importer
//===----------------------------------------------------------------------===//

/// An argument of a node, by name.
struct NodeArgs {
  std::map<std::string, const json::Object *> byName;
  std::vector<std::pair<std::string, const json::Object *>> ordered;
  const json::Object *get(StringRef name) const {
    auto it = byName.find(name.str());
    if (it == byName.end() || unionKind(it->second) == "as_none")
      return nullptr;
    return it->second;
  }
};

/// A list of sizes with static entries and dynamic (SymInt) ones.
struct MixedList {
  SmallVector<int64_t> statics;
  SmallVector<Value> dynamics;
};

class Importer {
public:
  Importer(MLIRContext *ctx, StringRef path, TorchExportArchive &archive)
      : ctx(ctx), path(path.str()), archive(archive), b(ctx),
        fileLoc(FileLineColLoc::get(ctx, path, 0, 0)) {}

  OwningOpRef<ModuleOp> run(const ImportOptions &options);

private:
  // Errors inside a node name it: its location is only the archive.
  // Only the first error is reported: later ones follow from it (both
  // operands of a node may be missing), and an import gives one diagnostic.
  InFlightDiagnostic error(Location loc) { return error(loc, /*inNode=*/true); }
  InFlightDiagnostic error() { return error(fileLoc, /*inNode=*/false); }
  InFlightDiagnostic error(Location loc, bool inNode) {
    InFlightDiagnostic d = emitError(loc);
    if (errorCount++)
      d.abandon();
    if (inNode && !currentNode.empty())
      d << "node '" << currentNode << "': ";
    return d;
  }

  LogicalResult readJson(StringRef entry, json::Value &out);
  LogicalResult checkFormat(const json::Object &program);
  LogicalResult declareSymbols(const json::Object &program);
  FailureOr<Type> tensorType(const json::Object *meta, StringRef what,
                             Location loc);
  FailureOr<Type> valueType(StringRef name, Location loc);
  Value symbol(StringRef name);
  LogicalResult bindShape(Value tensor, StringRef name);
  std::optional<AffineExpr> toAffine(const SymExpr &e,
                                     SmallVectorImpl<std::string> &symbols);
  LogicalResult importInputs(const json::Object &program);
  LogicalResult weightAttr(StringRef fqn, RankedTensorType type,
                           NamedAttrList &attrs, Location loc);
  LogicalResult importNode(const json::Object &node);
  LogicalResult importOutputs(const json::Object &program);

  // Node argument helpers.
  FailureOr<Value> lookup(StringRef name, Location loc);
  FailureOr<Value> tensorArg(const NodeArgs &args, StringRef name,
                             Location loc);
  FailureOr<Value> optTensorArg(const NodeArgs &args, StringRef name,
                                Location loc);
  FailureOr<Value> scalarArg(const NodeArgs &args, StringRef name,
                             Location loc);
  /// The value of a scalar or tensor argument `name` (empty: not an
  /// argument, such as a graph output).
  FailureOr<Value> scalarValue(const json::Object *arg, Location loc,
                               StringRef name = "");
  std::optional<int64_t> intArg(const NodeArgs &args, StringRef name);
  std::optional<double> floatArg(const NodeArgs &args, StringRef name);
  std::optional<bool> boolArg(const NodeArgs &args, StringRef name);
  std::optional<SmallVector<int64_t>> intsArg(const NodeArgs &args,
                                              StringRef name);
  FailureOr<MixedList> mixedArg(const NodeArgs &args, StringRef name,
                                Location loc);
  FailureOr<Type> dtypeArg(const NodeArgs &args, StringRef name,
                           Location loc);
  Value indexConstant(int64_t v, Location loc);
  /// `[start, end, step]` of a slice-like node as a mixed list (absent: 0,
  /// INT64_MAX, 1); an error when a bound is no integer.
  FailureOr<MixedList> sliceBounds(const NodeArgs &args, Location loc);

  LogicalResult convert(StringRef target, const NodeArgs &args,
                        TypeRange resultTypes, Location loc,
                        SmallVectorImpl<Value> &results);
  LogicalResult convertOpaque(StringRef target, const NodeArgs &args,
                              TypeRange resultTypes, Location loc,
                              SmallVectorImpl<Value> &results);
  Operation *create(StringRef name, Location loc, ValueRange operands,
                    ArrayRef<NamedAttribute> attrs, TypeRange types);

  MLIRContext *ctx;
  std::string path;
  TorchExportArchive &archive;
  OpBuilder b;
  Location fileLoc;
  const json::Object *graph = nullptr;
  const json::Object *tensorValues = nullptr;
  const json::Object *symIntValues = nullptr;
  json::Value weightsConfig = nullptr, constantsConfig = nullptr;
  func::FuncOp func;
  std::map<std::string, Value> values;
  std::map<std::string, Value> symbols;
  std::map<std::string, std::pair<int64_t, std::optional<int64_t>>> ranges;
  std::map<std::string, unsigned> opaqueCounts;
  std::string currentNode;
  uint64_t maxJsonBytes = 0;
  // Errors emitted so far: a failure must never leave without one.
  unsigned errorCount = 0;
};

LogicalResult Importer::readJson(StringRef entry, json::Value &out) {
  std::string bytes, err;
  uint64_t size = 0;
  if (!archive.checkedEntrySize(entry, size, err))
    return error() << err;
  if (size > maxJsonBytes)
    return error() << "entry '" << entry << "' holds " << size
                   << " bytes, more than the limit of " << maxJsonBytes
                   << " for a JSON entry (--max-json-bytes)";
  if (!archive.readEntry(entry, bytes, err, maxJsonBytes))
    return error() << err;
  llvm::Expected<json::Value> parsed = parseJson(bytes);
  if (!parsed)
    return error() << "entry '" << entry
                   << "' " << llvm::toString(parsed.takeError());
  out = std::move(*parsed);
  return success();
}

LogicalResult Importer::checkFormat(const json::Object &program) {
  const json::Object *version = getObject(&program, "schema_version");
  std::optional<int64_t> major = version ? version->getInteger("major") : std::nullopt;
  std::optional<int64_t> minor = version ? version->getInteger("minor") : std::nullopt;
  if (!major)
    return error() << "the ExportedProgram has no schema_version";
  if (*major != 8)
    return error() << "unsupported ExportedProgram schema version " << *major
                   << "." << minor.value_or(0)
                   << ": Magi reads schema 8.x (PyTorch 2.5 and later)";
  const json::Object *module = getObject(&program, "graph_module");
  graph = getObject(module, "graph");
  if (!graph)
    return error() << "the ExportedProgram has no graph_module.graph";
  tensorValues = getObject(graph, "tensor_values");
  symIntValues = getObject(graph, "sym_int_values");
  if (!tensorValues)
    return error() << "the graph has no tensor_values";
  return success();
}

LogicalResult Importer::declareSymbols(const json::Object &program) {
  const json::Object *constraints = getObject(&program, "range_constraints");
  if (!constraints)
    return success();
  for (const auto &[key, value] : *constraints) {
    const json::Object *range = value.getAsObject();
    if (!range)
      return error() << "malformed range constraint for '" << key.str() << "'";
    std::optional<int64_t> min = range->getInteger("min_val");
    std::optional<int64_t> max = range->getInteger("max_val");
    ranges[key.str()] = {min.value_or(0), max};
  }
  return success();
}

Value Importer::symbol(StringRef name) {
  auto it = symbols.find(name.str());
  if (it != symbols.end())
    return it->second;
  // Symbols are declared at the top of the graph, in order of first use.
  OpBuilder::InsertionGuard guard(b);
  Block &entry = func.getBody().front();
  auto last = llvm::find_if(llvm::reverse(entry), [](Operation &op) {
    return isa<SymbolicIntOp>(op);
  });
  if (last == llvm::reverse(entry).end())
    b.setInsertionPointToStart(&entry);
  else
    b.setInsertionPointAfter(&*last);
  auto range = ranges.count(name.str()) ? ranges[name.str()]
                                        : std::make_pair(int64_t(0),
                                                         std::optional<int64_t>());
  IntegerAttr max;
  if (range.second)
    max = b.getI64IntegerAttr(*range.second);
  Value v = SymbolicIntOp::create(b, fileLoc, b.getStringAttr(name),
                                  b.getI64IntegerAttr(range.first), max);
  symbols[name.str()] = v;
  return v;
}

std::optional<AffineExpr>
Importer::toAffine(const SymExpr &e, SmallVectorImpl<std::string> &syms) {
  switch (e.kind) {
  case SymExpr::Integer:
    return getAffineConstantExpr(e.value, ctx);
  case SymExpr::Symbol: {
    auto it = llvm::find(syms, e.name);
    unsigned pos = it - syms.begin();
    if (it == syms.end())
      syms.push_back(e.name);
    return getAffineSymbolExpr(pos, ctx);
  }
  case SymExpr::Call:
    break;
  }
  SmallVector<AffineExpr> args;
  for (const SymExpr &a : e.args) {
    std::optional<AffineExpr> x = toAffine(a, syms);
    if (!x)
      return std::nullopt;
    args.push_back(*x);
  }
  if (args.empty())
    return std::nullopt;
  if (e.name == "Add") {
    AffineExpr r = args[0];
    for (AffineExpr a : ArrayRef(args).drop_front())
      r = r + a;
    return r;
  }
  if (e.name == "Mul") {
    AffineExpr r = args[0];
    for (AffineExpr a : ArrayRef(args).drop_front()) {
      if (!isa<AffineConstantExpr>(r) && !isa<AffineConstantExpr>(a))
        return std::nullopt; // not affine
      r = r * a;
    }
    return r;
  }
  if ((e.name == "Mod" || e.name == "FloorDiv") && args.size() == 2 &&
      isa<AffineConstantExpr>(args[1]) &&
      cast<AffineConstantExpr>(args[1]).getValue() > 0)
    return e.name == "Mod" ? args[0] % args[1] : args[0].floorDiv(args[1]);
  return std::nullopt;
}

// Binds the symbolic dims of `tensor` (named `name` in tensor_values).
LogicalResult Importer::bindShape(Value tensor, StringRef name) {
  const json::Object *meta = getObject(tensorValues, name);
  const json::Array *sizes = getArray(meta, "sizes");
  if (!sizes)
    return success();
  SmallVector<std::string> syms;
  SmallVector<AffineExpr> exprs;
  bool symbolic = false;
  for (auto [dim, size] : llvm::enumerate(*sizes)) {
    const json::Object *s = size.getAsObject();
    if (auto v = s ? s->getInteger("as_int") : std::nullopt) {
      exprs.push_back(getAffineConstantExpr(*v, ctx));
      continue;
    }
    const json::Object *expr = getObject(s, "as_expr");
    std::optional<StringRef> text = expr ? expr->getString("expr_str") : std::nullopt;
    std::optional<SymExpr> parsed;
    if (text) {
      SymExprParser parser(*text);
      parsed = parser.parse();
      if (parser.tooDeep())
        return error(tensor.getLoc())
               << "the expr_str of size " << dim << " of tensor '" << name
               << "' nests deeper than " << SymExprParser::kMaxDepth
               << " levels";
    }
    std::optional<AffineExpr> affine =
        parsed ? toAffine(*parsed, syms) : std::nullopt;
    // A size that is no affine function of the symbols stays unbound.
    if (!affine || isa<AffineConstantExpr>(*affine))
      return success();
    exprs.push_back(*affine);
    symbolic = true;
  }
  if (!symbolic)
    return success();
  SmallVector<Value> operands;
  for (const std::string &s : syms)
    operands.push_back(symbol(s));
  auto map = AffineMap::get(0, syms.size(), exprs, ctx);
  BindSymbolicShapeOp::create(b, tensor.getLoc(), tensor, operands, map);
  return success();
}

FailureOr<Type> Importer::tensorType(const json::Object *meta, StringRef what,
                                     Location loc) {
  if (!meta)
    return error(loc) << "no tensor metadata for " << what;
  std::optional<int64_t> code = meta->getInteger("dtype");
  Type dtype = code ? dtypeFromCode(ctx, *code) : nullptr;
  if (!dtype)
    return error(loc) << "unsupported dtype code " << code.value_or(-1)
                      << " for " << what
                      << " (Magi reads uint8, int8, int16, int32, int64, "
                         "float16, float32, float64, bool, bfloat16)";
  const json::Array *sizes = getArray(meta, "sizes");
  if (!sizes)
    return error(loc) << "no sizes for " << what;
  SmallVector<int64_t> shape;
  // Its static sizes' bytes must count in int64: later phases compute with
  // them, and the type system keeps negative sizes for `?`.
  int64_t bytes = dtypeBytes(dtype);
  for (auto [dim, size] : llvm::enumerate(*sizes)) {
    const json::Object *s = size.getAsObject();
    if (auto v = s ? s->getInteger("as_int") : std::nullopt) {
      if (*v < 0)
        return error(loc) << "negative size " << *v << " in dimension " << dim
                          << " of " << what;
      if (llvm::MulOverflow(bytes, *v, bytes))
        return error(loc) << "the sizes of " << what
                          << " need more than 2^63 bytes";
      shape.push_back(*v);
    } else if (s && s->get("as_expr")) {
      shape.push_back(ShapedType::kDynamic);
    } else {
      return error(loc) << "malformed size " << dim << " of " << what;
    }
  }
  return Type(RankedTensorType::get(shape, dtype));
}

FailureOr<Type> Importer::valueType(StringRef name, Location loc) {
  return tensorType(getObject(tensorValues, name),
                    ("tensor '" + name + "'").str(), loc);
}

LogicalResult Importer::weightAttr(StringRef fqn, RankedTensorType type,
                                   NamedAttrList &attrs, Location loc) {
  StringRef dir;
  const json::Object *entry = nullptr;
  for (auto [config, folder] :
       {std::pair<json::Value *, StringRef>{&weightsConfig, "data/weights/"},
        std::pair<json::Value *, StringRef>{&constantsConfig,
                                            "data/constants/"}}) {
    if ((entry = getObject(getObject(config->getAsObject(), "config"), fqn))) {
      dir = folder;
      break;
    }
  }
  if (!entry)
    return error(loc) << "no stored data for '" << fqn
                      << "' in the archive's weights or constants";
  if (entry->getBoolean("use_pickle").value_or(false))
    return error(loc) << "'" << fqn
                      << "' is stored pickled, which Magi cannot read";
  std::optional<StringRef> file = entry->getString("path_name");
  const json::Object *meta = getObject(entry, "tensor_meta");
  if (!file || !meta)
    return error(loc) << "malformed storage record for '" << fqn << "'";
  std::string entryName = archive.prefix() + dir.str() + file->str();
  if (!type.hasStaticShape())
    return error(loc) << "'" << fqn
                      << "' has a symbolic size; stored tensors have static "
                         "shapes";
  SmallVector<int64_t> strides;
  if (const json::Array *s = getArray(meta, "strides"))
    for (const json::Value &v : *s)
      if (auto o = v.getAsObject(); o && o->getInteger("as_int"))
        strides.push_back(*o->getInteger("as_int"));
  if (static_cast<int64_t>(strides.size()) != type.getRank())
    return error(loc) << "'" << fqn << "' has " << strides.size()
                      << " strides for rank " << type.getRank();
  int64_t offset = 0;
  if (auto o = getObject(meta, "storage_offset"))
    offset = o->getInteger("as_int").value_or(0);
  if (offset < 0)
    return error(loc) << "'" << fqn << "' has a negative storage offset "
                      << offset;
  for (auto [dim, stride] : llvm::enumerate(strides))
    if (stride < 0)
      return error(loc) << "'" << fqn << "' has a negative stride " << stride
                        << " in dimension " << dim;
  // The last byte the tensor reads must lie inside the entry; the archive
  // may claim anything, so every step is checked for overflow.
  int64_t elemBytes = dtypeBytes(type.getElementType());
  int64_t offsetBytes = 0, needed = 0;
  bool overflow = llvm::MulOverflow(offset, elemBytes, offsetBytes);
  if (!overflow && type.getNumElements() > 0) {
    int64_t last = offset;
    for (auto [size, stride] : llvm::zip(type.getShape(), strides)) {
      int64_t step;
      overflow = overflow || llvm::MulOverflow(size - 1, stride, step) ||
                 llvm::AddOverflow(last, step, last);
    }
    overflow = overflow || llvm::AddOverflow(last, int64_t(1), last) ||
               llvm::MulOverflow(last, elemBytes, needed);
  }
  if (overflow)
    return error(loc) << "the storage offset and strides of '" << fqn
                      << "' reach past 2^63 bytes";
  uint64_t have = 0;
  std::string err;
  if (!archive.hasEntry(entryName))
    return error(loc) << "the archive has no entry '" << entryName
                      << "' holding '" << fqn << "'";
  if (!archive.checkedEntrySize(entryName, have, err))
    return error(loc) << err;
  if (have < static_cast<uint64_t>(needed))
    return error(loc) << "truncated weight data for '" << fqn << "': entry '"
                      << entryName << "' has " << have << " bytes, needs "
                      << needed;
  attrs.append(kWeightAttr,
               b.getDictionaryAttr(
                   {b.getNamedAttr("entry", b.getStringAttr(entryName)),
                    b.getNamedAttr("offset", b.getI64IntegerAttr(offsetBytes)),
                    b.getNamedAttr("strides",
                                   b.getDenseI64ArrayAttr(strides))}));
  return success();
}

LogicalResult Importer::importInputs(const json::Object &program) {
  const json::Array *inputs = getArray(graph, "inputs");
  const json::Array *specs =
      getArray(getObject(getObject(&program, "graph_module"), "signature"),
               "input_specs");
  if (!inputs || !specs)
    return error() << "the graph has no inputs or input_specs";
  if (inputs->size() != specs->size())
    return error() << "the graph has " << inputs->size()
                   << " inputs but the signature describes " << specs->size();
  SmallVector<Type> types;
  SmallVector<std::string> names;
  SmallVector<NamedAttrList> argAttrs;
  for (auto [input, specValue] : llvm::zip(*inputs, *specs)) {
    const json::Object *spec = specValue.getAsObject();
    StringRef kind = unionKind(spec);
    const json::Object *body = getObject(spec, kind);
    const json::Object *arg = getObject(body, "arg");
    std::optional<StringRef> argName = arg ? arg->getString("name") : std::nullopt;
    if (!argName) // user inputs wrap the argument: {"as_tensor": {"name": ...}}
      if (const json::Object *t = getObject(arg, "as_tensor"))
        argName = t->getString("name");
    if (!argName)
      return error() << "input spec of kind '" << kind
                     << "' is not a tensor (Magi imports tensor inputs only)";
    Location loc = NameLoc::get(b.getStringAttr(*argName), fileLoc);
    FailureOr<Type> type = valueType(*argName, loc);
    if (failed(type))
      return failure();
    NamedAttrList attrs;
    std::optional<StringRef> fqn;
    if (kind == "parameter") {
      fqn = body->getString("parameter_name");
    } else if (kind == "buffer") {
      fqn = body->getString("buffer_name");
    } else if (kind == "tensor_constant") {
      fqn = body->getString("tensor_constant_name");
      kind = "constant";
    } else if (kind != "user_input") {
      return error(loc) << "unsupported input kind '" << kind << "'";
    }
    attrs.append(kInputKindAttr, b.getStringAttr(kind));
    attrs.append(kNameAttr, b.getStringAttr(fqn ? *fqn : *argName));
    if (fqn && failed(weightAttr(*fqn, cast<RankedTensorType>(*type), attrs,
                                 loc)))
      return failure();
    types.push_back(*type);
    names.push_back(argName->str());
    argAttrs.push_back(std::move(attrs));
  }
  func.setFunctionType(b.getFunctionType(types, {}));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  for (auto [i, name] : llvm::enumerate(names)) {
    func.setArgAttrs(i, argAttrs[i].getDictionary(ctx));
    values[name] = entry->getArgument(i);
  }
  for (auto [i, name] : llvm::enumerate(names))
    if (failed(bindShape(entry->getArgument(i), name)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Node arguments
//===----------------------------------------------------------------------===//

FailureOr<Value> Importer::lookup(StringRef name, Location loc) {
  auto it = values.find(name.str());
  if (it == values.end())
    return error(loc) << "reference to undefined value '" << name << "'";
  return it->second;
}

FailureOr<Value> Importer::tensorArg(const NodeArgs &args, StringRef name,
                                     Location loc) {
  const json::Object *arg = args.get(name);
  const json::Object *t = getObject(arg, "as_tensor");
  std::optional<StringRef> ref = t ? t->getString("name") : std::nullopt;
  if (!ref)
    return error(loc) << "expected a tensor for argument '" << name << "'";
  FailureOr<Value> v = lookup(*ref, loc);
  if (succeeded(v) && !isa<RankedTensorType>(v->getType()))
    return error(loc) << "argument '" << name << "' names '" << *ref
                      << "', which is not a tensor";
  return v;
}

FailureOr<Value> Importer::optTensorArg(const NodeArgs &args, StringRef name,
                                        Location loc) {
  if (!args.get(name))
    return Value();
  return tensorArg(args, name, loc);
}

FailureOr<MixedList> Importer::sliceBounds(const NodeArgs &args,
                                           Location loc) {
  MixedList bounds;
  for (auto [name, dflt] : {std::pair<StringRef, int64_t>{"start", 0},
                            {"end", INT64_MAX},
                            {"step", 1}}) {
    const json::Object *a = args.get(name);
    if (!a) {
      bounds.statics.push_back(dflt);
    } else if (auto i = a->getInteger("as_int")) {
      bounds.statics.push_back(*i);
    } else {
      FailureOr<Value> v = scalarValue(a, loc, name);
      if (failed(v))
        return failure();
      if (!v->getType().isIndex())
        return error(loc) << "argument '" << name
                          << "' must be an integer or a SymInt";
      bounds.statics.push_back(ShapedType::kDynamic);
      bounds.dynamics.push_back(*v);
    }
  }
  return bounds;
}

Value Importer::indexConstant(int64_t v, Location loc) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

FailureOr<Value> Importer::scalarValue(const json::Object *arg, Location loc,
                                       StringRef name) {
  StringRef kind = unionKind(arg);
  const json::Value *v = arg ? arg->get(kind) : nullptr;
  auto malformed = [&]() {
    InFlightDiagnostic d = error(loc) << "malformed '" << kind << "' ";
    if (name.empty())
      d << "value";
    else
      d << "in argument '" << name << "'";
    return d;
  };
  if (kind == "as_int") {
    std::optional<int64_t> i = v->getAsInteger();
    if (!i)
      return malformed();
    return Value(
        arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(*i)));
  }
  if (kind == "as_float") {
    std::optional<double> d = jsonFloat(*v);
    if (!d)
      return malformed();
    return Value(arith::ConstantOp::create(b, loc, b.getF64FloatAttr(*d)));
  }
  if (kind == "as_bool") {
    std::optional<bool> bv = v->getAsBoolean();
    if (!bv)
      return malformed();
    return Value(arith::ConstantOp::create(b, loc, b.getBoolAttr(*bv)));
  }
  if (kind == "as_sym_int") {
    const json::Object *s = v->getAsObject();
    if (auto i = s ? s->getInteger("as_int") : std::nullopt)
      return indexConstant(*i, loc);
    if (auto n = s ? s->getString("as_name") : std::nullopt)
      return lookup(*n, loc);
    return malformed();
  }
  if (kind == "as_tensor") {
    const json::Object *t = v->getAsObject();
    std::optional<StringRef> ref = t ? t->getString("name") : std::nullopt;
    if (!ref)
      return malformed();
    return lookup(*ref, loc);
  }
  InFlightDiagnostic d = error(loc) << "expected a scalar or tensor ";
  if (name.empty())
    d << "value";
  else
    d << "for argument '" << name << "'";
  return d << ", got '" << kind << "'";
}

FailureOr<Value> Importer::scalarArg(const NodeArgs &args, StringRef name,
                                     Location loc) {
  const json::Object *arg = args.get(name);
  if (!arg)
    return error(loc) << "missing argument '" << name << "'";
  return scalarValue(arg, loc, name);
}

std::optional<int64_t> Importer::intArg(const NodeArgs &args, StringRef name) {
  const json::Object *arg = args.get(name);
  return arg ? arg->getInteger("as_int") : std::nullopt;
}

std::optional<double> Importer::floatArg(const NodeArgs &args, StringRef name) {
  const json::Object *arg = args.get(name);
  if (!arg)
    return std::nullopt;
  if (const json::Value *f = arg->get("as_float"))
    return jsonFloat(*f);
  if (auto i = arg->getInteger("as_int"))
    return static_cast<double>(*i);
  if (auto bv = arg->getBoolean("as_bool"))
    return *bv ? 1.0 : 0.0;
  return std::nullopt;
}

std::optional<bool> Importer::boolArg(const NodeArgs &args, StringRef name) {
  const json::Object *arg = args.get(name);
  return arg ? arg->getBoolean("as_bool") : std::nullopt;
}

std::optional<SmallVector<int64_t>> Importer::intsArg(const NodeArgs &args,
                                                      StringRef name) {
  const json::Object *arg = args.get(name);
  const json::Array *list = arg ? arg->getArray("as_ints") : nullptr;
  if (!list) {
    if (auto i = arg ? arg->getInteger("as_int") : std::nullopt)
      return SmallVector<int64_t>{*i};
    return std::nullopt;
  }
  SmallVector<int64_t> out;
  for (const json::Value &v : *list) {
    std::optional<int64_t> i = v.getAsInteger();
    if (!i)
      return std::nullopt; // never guessed
    out.push_back(*i);
  }
  return out;
}

FailureOr<MixedList> Importer::mixedArg(const NodeArgs &args, StringRef name,
                                        Location loc) {
  MixedList out;
  if (auto ints = intsArg(args, name)) {
    out.statics = *ints;
    return out;
  }
  const json::Object *arg = args.get(name);
  const json::Array *list = arg ? arg->getArray("as_sym_ints") : nullptr;
  if (!list)
    return error(loc) << "expected a list of sizes for argument '" << name
                      << "'";
  for (const json::Value &v : *list) {
    const json::Object *s = v.getAsObject();
    if (auto i = s ? s->getInteger("as_int") : std::nullopt) {
      out.statics.push_back(*i);
    } else if (auto n = s ? s->getString("as_name") : std::nullopt) {
      FailureOr<Value> value = lookup(*n, loc);
      if (failed(value))
        return failure();
      out.statics.push_back(ShapedType::kDynamic);
      out.dynamics.push_back(*value);
    } else {
      return error(loc) << "malformed size in argument '" << name << "'";
    }
  }
  return out;
}

FailureOr<Type> Importer::dtypeArg(const NodeArgs &args, StringRef name,
                                   Location loc) {
  const json::Object *arg = args.get(name);
  std::optional<int64_t> code = arg ? arg->getInteger("as_scalar_type") : std::nullopt;
  if (!code)
    return Type();
  Type t = dtypeFromCode(ctx, *code);
  if (!t)
    return error(loc) << "unsupported dtype code " << *code << " in argument '"
                      << name << "'";
  return t;
}

Operation *Importer::create(StringRef name, Location loc, ValueRange operands,
                            ArrayRef<NamedAttribute> attrs, TypeRange types) {
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addAttributes(attrs);
  state.addTypes(types);
  return b.create(state);
}

//===----------------------------------------------------------------------===//
// Nodes
//===----------------------------------------------------------------------===//

LogicalResult Importer::importNode(const json::Object &node) {
  std::optional<StringRef> target = node.getString("target");
  std::optional<StringRef> nodeName = node.getString("name");
  Location loc = NameLoc::get(b.getStringAttr(nodeName.value_or("node")), fileLoc);
  if (!target)
    return error(loc) << "node without a target";
  currentNode = (nodeName.value_or("?") + " (" + *target + ")").str();
  NodeArgs args;
  if (const json::Array *inputs = node.getArray("inputs"))
    for (const json::Value &in : *inputs) {
      const json::Object *o = in.getAsObject();
      std::optional<StringRef> n = o ? o->getString("name") : std::nullopt;
      const json::Object *arg = getObject(o, "arg");
      if (!n || !arg)
        return error(loc) << "malformed input of node";
      args.byName[n->str()] = arg;
      args.ordered.push_back({n->str(), arg});
    }
  // Output names and types.
  SmallVector<std::string> outNames;
  SmallVector<Type> outTypes;
  if (const json::Array *outputs = node.getArray("outputs"))
    for (const json::Value &out : *outputs) {
      const json::Object *o = out.getAsObject();
      StringRef kind = unionKind(o);
      auto addTensor = [&](const json::Object *t) -> LogicalResult {
        std::optional<StringRef> n = t ? t->getString("name") : std::nullopt;
        if (!n)
          return error(loc) << "malformed tensor output";
        FailureOr<Type> type = valueType(*n, loc);
        if (failed(type))
          return failure();
        outNames.push_back(n->str());
        outTypes.push_back(*type);
        return success();
      };
      if (kind == "as_tensor") {
        if (failed(addTensor(getObject(o, kind))))
          return failure();
      } else if (kind == "as_tensors") {
        const json::Array *list = o->getArray(kind);
        if (!list)
          return error(loc) << "malformed tensor list output";
        for (const json::Value &t : *list)
          if (failed(addTensor(t.getAsObject())))
            return failure();
      } else if (kind == "as_sym_int") {
        const json::Object *symInt = getObject(o, kind);
        std::optional<StringRef> n =
            symInt ? symInt->getString("as_name") : std::nullopt;
        if (!n)
          return error(loc) << "malformed SymInt output";
        outNames.push_back(n->str());
        outTypes.push_back(b.getIndexType());
      } else if (kind == "as_none") {
        continue;
      } else {
        return error(loc) << "unsupported output kind '" << kind << "' of '"
                          << *target << "'";
      }
    }
  SmallVector<Value> results;
  if (failed(convert(*target, args, outTypes, loc, results)))
    return failure();
  if (results.size() != outNames.size())
    return error(loc) << "'" << *target << "' produced " << results.size()
                      << " results for " << outNames.size() << " outputs";
  for (auto [name, v] : llvm::zip(outNames, results)) {
    values[name] = v;
    if (isa<RankedTensorType>(v.getType()) && failed(bindShape(v, name)))
      return failure();
  }
  currentNode.clear();
  return success();
}

LogicalResult Importer::convertOpaque(StringRef target, const NodeArgs &args,
                                      TypeRange resultTypes, Location loc,
                                      SmallVectorImpl<Value> &results) {
  // torch.ops.aten.topk.default -> aten::topk.default; _operator.x -> _operator::x
  StringRef rest = target;
  rest.consume_front("torch.ops.");
  size_t dot = rest.find('.');
  std::string name = dot == StringRef::npos
                         ? ("unknown::" + rest).str()
                         : (rest.substr(0, dot) + "::" + rest.substr(dot + 1)).str();
  SmallVector<Value> operands;
  SmallVector<Attribute> operandNames;
  NamedAttrList attrs;
  for (auto &[argName, arg] : args.ordered) {
    StringRef kind = unionKind(arg);
    const json::Value *v = arg->get(kind);
    auto addOperand = [&](StringRef ref) -> LogicalResult {
      FailureOr<Value> value = lookup(ref, loc);
      if (failed(value))
        return failure();
      operands.push_back(*value);
      operandNames.push_back(b.getStringAttr(argName));
      return success();
    };
    auto malformed = [&]() {
      return error(loc) << "malformed '" << kind << "' in argument '"
                        << argName << "'";
    };
    if (kind == "as_tensor" || kind == "as_sym_int") {
      const json::Object *o = v->getAsObject();
      if (!o)
        return malformed();
      std::optional<StringRef> ref =
          o->getString(kind == "as_tensor" ? "name" : "as_name");
      if (ref) {
        if (failed(addOperand(*ref)))
          return failure();
        continue;
      }
      std::optional<int64_t> i = o->getInteger("as_int");
      if (!i)
        return malformed();
      attrs.append(argName, b.getI64IntegerAttr(*i));
    } else if (kind == "as_tensors") {
      const json::Array *list = v->getAsArray();
      if (!list)
        return malformed();
      for (const json::Value &t : *list) {
        const json::Object *o = t.getAsObject();
        std::optional<StringRef> ref = o ? o->getString("name") : std::nullopt;
        if (!ref)
          return malformed();
        if (failed(addOperand(*ref)))
          return failure();
      }
    } else if (kind == "as_int") {
      std::optional<int64_t> i = v->getAsInteger();
      if (!i)
        return malformed();
      attrs.append(argName, b.getI64IntegerAttr(*i));
    } else if (kind == "as_float") {
      std::optional<double> f = jsonFloat(*v);
      if (!f)
        return malformed();
      attrs.append(argName, b.getF64FloatAttr(*f));
    } else if (kind == "as_bool") {
      std::optional<bool> bv = v->getAsBoolean();
      if (!bv)
        return malformed();
      attrs.append(argName, b.getBoolAttr(*bv));
    } else if (kind == "as_string") {
      std::optional<StringRef> str = v->getAsString();
      if (!str)
        return malformed();
      attrs.append(argName, b.getStringAttr(*str));
    } else if (kind == "as_ints") {
      const json::Array *list = v->getAsArray();
      if (!list)
        return malformed();
      SmallVector<int64_t> ints;
      for (const json::Value &i : *list) {
        std::optional<int64_t> n = i.getAsInteger();
        if (!n)
          return malformed();
        ints.push_back(*n);
      }
      attrs.append(argName, b.getDenseI64ArrayAttr(ints));
    } else if (kind == "as_floats") {
      const json::Array *list = v->getAsArray();
      if (!list)
        return malformed();
      SmallVector<double> fs;
      for (const json::Value &f : *list) {
        std::optional<double> d = jsonFloat(f);
        if (!d)
          return malformed();
        fs.push_back(*d);
      }
      attrs.append(argName, b.getDenseF64ArrayAttr(fs));
    } else if (kind == "as_scalar_type") {
      FailureOr<Type> t = dtypeArg(args, argName, loc);
      if (failed(t))
        return failure();
      if (!*t)
        return malformed();
      attrs.append(argName, TypeAttr::get(*t));
    } else if (kind == "as_none") {
      attrs.append(argName, b.getUnitAttr());
    } else if (kind == "as_device" || kind == "as_layout" ||
               kind == "as_memory_format") {
      continue; // placement only: later phases decide it
    } else {
      // Keep what Magi cannot type as its JSON text, so nothing is lost.
      std::string text;
      llvm::raw_string_ostream os(text);
      os << json::Value(json::Object(*arg));
      attrs.append(argName, b.getStringAttr(text));
    }
  }
  attrs.append("magi.operand_names", b.getArrayAttr(operandNames));
  Operation *op = OpaqueOp::create(b, loc, resultTypes, b.getStringAttr(name),
                                   operands);
  for (NamedAttribute a : attrs)
    op->setAttr(a.getName(), a.getValue());
  ++opaqueCounts[name];
  results.append(op->result_begin(), op->result_end());
  return success();
}

LogicalResult Importer::convert(StringRef target, const NodeArgs &args,
                                TypeRange resultTypes, Location loc,
                                SmallVectorImpl<Value> &results) {
  auto emit = [&](StringRef name, ValueRange operands,
                  ArrayRef<NamedAttribute> attrs = {}) -> LogicalResult {
    Operation *op = create(name, loc, operands, attrs, resultTypes);
    results.append(op->result_begin(), op->result_end());
    return success();
  };
  auto named = [&](StringRef n, Attribute a) { return b.getNamedAttr(n, a); };
  auto tensor = [&](StringRef n) { return tensorArg(args, n, loc); };
  auto scalar = [&](StringRef n) { return scalarArg(args, n, loc); };
  // The dtype of the one tensor result of an op that creates or converts.
  auto resultDtype = [&]() -> FailureOr<Type> {
    if (resultTypes.size() != 1 || !isa<RankedTensorType>(resultTypes[0]))
      return error(loc) << "expected one tensor output, got "
                        << resultTypes.size() << " outputs";
    return cast<RankedTensorType>(resultTypes[0]).getElementType();
  };

  // Python integer arithmetic on SymInts.
  static const std::map<std::string, std::string> symOps = {
      {"_operator.add", "magi.sym_add"},    {"_operator.sub", "magi.sym_sub"},
      {"_operator.mul", "magi.sym_mul"},    {"_operator.floordiv", "magi.sym_floordiv"},
      {"_operator.mod", "magi.sym_mod"},    {"torch.sym_min", "magi.sym_min"},
      {"torch.sym_max", "magi.sym_max"}};
  if (auto it = symOps.find(target.str());
      it != symOps.end() && resultTypes.size() == 1 &&
      resultTypes[0].isIndex() && args.ordered.size() == 2) {
    SmallVector<Value> operands;
    for (auto &[n, arg] : args.ordered) {
      if (auto i = arg->getInteger("as_int")) {
        operands.push_back(indexConstant(*i, loc));
        continue;
      }
      FailureOr<Value> v = scalarValue(arg, loc, n);
      if (failed(v))
        return failure();
      if (!v->getType().isIndex())
        return convertOpaque(target, args, resultTypes, loc, results);
      operands.push_back(*v);
    }
    return emit(it->second, operands);
  }

  StringRef op = target;
  if (!op.consume_front("torch.ops.aten."))
    return convertOpaque(target, args, resultTypes, loc, results);
  auto [base, overload] = op.split('.');

  // Elementwise unary ops.
  static const llvm::StringSet<> unary = {
      "neg",  "abs",  "relu", "bitwise_not", "logical_not", "cos",
      "sin",  "exp",  "log",  "sqrt",        "rsqrt",       "reciprocal",
      "sigmoid", "tanh", "erf", "silu", "clone", "lift_fresh_copy", "alias",
      "log1p", "expm1", "log2", "floor", "ceil", "round", "trunc", "sign",
      "isnan", "isinf"};
  if (unary.contains(base) && overload == "default") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    StringRef name = base;
    if (base == "lift_fresh_copy" || base == "alias")
      name = "clone";
    return emit(("magi." + name).str(), {*self});
  }
  if (base == "gelu") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    const json::Object *a = args.get("approximate");
    std::optional<StringRef> approx = a ? a->getString("as_string") : std::nullopt;
    return emit("magi.gelu", {*self},
                {named("approximate", b.getStringAttr(approx.value_or("none")))});
  }

  // Binary ops: Tensor and Scalar overloads alike.
  static const std::map<std::string, std::string> binary = {
      {"add", "magi.add"}, {"sub", "magi.sub"}, {"mul", "magi.mul"},
      {"div", "magi.div"}, {"pow", "magi.pow"}, {"remainder", "magi.remainder"},
      {"maximum", "magi.maximum"}, {"minimum", "magi.minimum"},
      {"bitwise_and", "magi.bitwise_and"}, {"bitwise_or", "magi.bitwise_or"},
      {"bitwise_xor", "magi.bitwise_xor"}, {"logical_and", "magi.logical_and"},
      {"logical_or", "magi.logical_or"}, {"logical_xor", "magi.logical_xor"},
      {"fmod", "magi.fmod"}, {"atan2", "magi.atan2"},
      {"eq", "magi.eq"}, {"ne", "magi.ne"},
      {"lt", "magi.lt"}, {"le", "magi.le"}, {"gt", "magi.gt"}, {"ge", "magi.ge"}};
  if (auto it = binary.find(base.str()); it != binary.end()) {
    // pow.Tensor_Scalar and pow.Scalar name their second operand `exponent`.
    StringRef rhsName = args.get("exponent") ? "exponent" : "other";
    FailureOr<Value> lhs = scalar("self");
    FailureOr<Value> rhs = scalar(rhsName);
    if (failed(lhs) || failed(rhs))
      return failure();
    SmallVector<NamedAttribute> attrs;
    if (auto alpha = floatArg(args, "alpha"); alpha && *alpha != 1.0)
      attrs.push_back(named("alpha", b.getF64FloatAttr(*alpha)));
    if (const json::Object *mode = args.get("rounding_mode"))
      if (auto m = mode->getString("as_string"))
        attrs.push_back(named("rounding_mode", b.getStringAttr(*m)));
    return emit(it->second, {*lhs, *rhs}, attrs);
  }
  if (base == "where" && overload != "default") {
    FailureOr<Value> c = tensor("condition"), s = scalar("self"),
                     o = scalar("other");
    if (failed(c) || failed(s) || failed(o))
      return failure();
    return emit("magi.where", {*c, *s, *o});
  }
  if (base == "clamp" && overload == "default") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    SmallVector<NamedAttribute> attrs;
    if (auto v = floatArg(args, "min"))
      attrs.push_back(named("min", b.getF64FloatAttr(*v)));
    if (auto v = floatArg(args, "max"))
      attrs.push_back(named("max", b.getF64FloatAttr(*v)));
    return emit("magi.clamp", {*self}, attrs);
  }
  if (base == "_to_copy") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    FailureOr<Type> dtype = resultDtype();
    if (failed(dtype))
      return failure();
    return emit("magi.to_copy", {*self},
                {named("dtype", TypeAttr::get(*dtype))});
  }
  if (base == "copy" && overload == "default") {
    FailureOr<Value> self = tensor("self"), src = tensor("src");
    if (failed(self) || failed(src))
      return failure();
    return emit("magi.copy", {*self, *src});
  }
  if (base == "_assert_tensor_metadata") {
    FailureOr<Value> a = tensor("a");
    FailureOr<Type> dtype = dtypeArg(args, "dtype", loc);
    if (failed(a) || failed(dtype))
      return failure();
    SmallVector<NamedAttribute> attrs;
    if (*dtype)
      attrs.push_back(named("dtype", TypeAttr::get(*dtype)));
    return emit("magi.assert_tensor_metadata", {*a}, attrs);
  }
  if (base == "sym_size" && overload == "int") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    std::optional<int64_t> dim = intArg(args, "dim");
    if (!dim)
      return error(loc) << "expected a constant integer for argument 'dim'";
    int64_t rank = cast<RankedTensorType>(self->getType()).getRank();
    return emit("magi.sym_size", {*self},
                {named("dim", b.getI64IntegerAttr(*dim < 0 ? *dim + rank : *dim))});
  }

  // Reductions.
  static const std::map<std::string, std::string> reductions = {
      {"sum", "magi.sum"}, {"mean", "magi.mean"}, {"amax", "magi.amax"},
      {"amin", "magi.amin"}, {"any", "magi.any"}, {"all", "magi.all"},
      {"prod", "magi.prod"}};
  // max.default / min.default reduce everything.
  if ((base == "max" || base == "min") && overload == "default") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    return emit(base == "max" ? "magi.amax" : "magi.amin", {*self});
  }
  if (auto it = reductions.find(base.str()); it != reductions.end()) {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    SmallVector<NamedAttribute> attrs;
    if (auto dims = intsArg(args, "dim"))
      attrs.push_back(named("dims", b.getDenseI64ArrayAttr(*dims)));
    if (boolArg(args, "keepdim").value_or(false))
      attrs.push_back(named("keepdim", b.getBoolAttr(true)));
    FailureOr<Type> dtype = dtypeArg(args, "dtype", loc);
    if (failed(dtype))
      return failure();
    if (*dtype)
      attrs.push_back(named("dtype", TypeAttr::get(*dtype)));
    return emit(it->second, {*self}, attrs);
  }
  if ((base == "max" || base == "min") && overload == "dim") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    return emit(base == "max" ? "magi.max_dim" : "magi.min_dim", {*self},
                {named("dim", b.getI64IntegerAttr(intArg(args, "dim").value_or(0))),
                 named("keepdim", b.getBoolAttr(boolArg(args, "keepdim").value_or(false)))});
  }
  if (base == "argmax" || base == "argmin") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    SmallVector<NamedAttribute> attrs;
    if (auto dim = intArg(args, "dim"))
      attrs.push_back(named("dim", b.getI64IntegerAttr(*dim)));
    attrs.push_back(named("keepdim", b.getBoolAttr(boolArg(args, "keepdim").value_or(false))));
    return emit(("magi." + base).str(), {*self}, attrs);
  }
  if (base == "var" && overload == "correction") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    SmallVector<NamedAttribute> attrs{
        named("correction",
              b.getF64FloatAttr(floatArg(args, "correction").value_or(1.0))),
        named("keepdim", b.getBoolAttr(boolArg(args, "keepdim").value_or(false)))};
    if (auto dims = intsArg(args, "dim"))
      attrs.push_back(named("dims", b.getDenseI64ArrayAttr(*dims)));
    return emit("magi.var", {*self}, attrs);
  }
  if (base == "topk") {
    FailureOr<Value> self = tensor("self");
    std::optional<int64_t> k = intArg(args, "k");
    if (failed(self))
      return failure();
    if (!k) // a symbolic k stays opaque
      return convertOpaque(target, args, resultTypes, loc, results);
    return emit("magi.topk", {*self},
                {named("k", b.getI64IntegerAttr(*k)),
                 named("dim", b.getI64IntegerAttr(intArg(args, "dim").value_or(-1))),
                 named("largest", b.getBoolAttr(boolArg(args, "largest").value_or(true))),
                 named("sorted", b.getBoolAttr(boolArg(args, "sorted").value_or(true)))});
  }
  if (base == "sort" && (overload == "default" || overload == "stable")) {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    return emit("magi.sort", {*self},
                {named("dim", b.getI64IntegerAttr(intArg(args, "dim").value_or(-1))),
                 named("descending",
                       b.getBoolAttr(boolArg(args, "descending").value_or(false)))});
  }
  if (base == "leaky_relu") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    return emit("magi.leaky_relu", {*self},
                {named("negative_slope", b.getF64FloatAttr(
                                             floatArg(args, "negative_slope").value_or(0.01)))});
  }
  if (base == "hardtanh" || base == "clamp_min" || base == "clamp_max") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    SmallVector<NamedAttribute> attrs;
    if (base == "hardtanh") {
      attrs.push_back(named("min", b.getF64FloatAttr(floatArg(args, "min_val").value_or(-1.0))));
      attrs.push_back(named("max", b.getF64FloatAttr(floatArg(args, "max_val").value_or(1.0))));
    } else if (auto v = floatArg(args, base == "clamp_min" ? "min" : "max")) {
      attrs.push_back(named(base == "clamp_min" ? "min" : "max", b.getF64FloatAttr(*v)));
    } else {
      return convertOpaque(target, args, resultTypes, loc, results);
    }
    return emit("magi.clamp", {*self}, attrs);
  }
  if (base == "flip" || base == "repeat" || base == "tril" || base == "triu") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    if (base == "tril" || base == "triu")
      return emit(("magi." + base).str(), {*self},
                  {named("diagonal",
                         b.getI64IntegerAttr(intArg(args, "diagonal").value_or(0)))});
    std::optional<SmallVector<int64_t>> list =
        intsArg(args, base == "flip" ? "dims" : "repeats");
    if (!list)
      return convertOpaque(target, args, resultTypes, loc, results);
    return emit(("magi." + base).str(), {*self},
                {named(base == "flip" ? "dims" : "repeats",
                       b.getDenseI64ArrayAttr(*list))});
  }
  if (base == "scatter" || base == "scatter_add") {
    FailureOr<Value> self = tensor("self"), index = tensor("index");
    FailureOr<Value> src = scalar(args.get("src") ? "src" : "value");
    if (failed(self) || failed(index) || failed(src))
      return failure();
    SmallVector<NamedAttribute> attrs{
        named("dim", b.getI64IntegerAttr(intArg(args, "dim").value_or(0)))};
    if (base == "scatter_add")
      attrs.push_back(named("reduce", b.getStringAttr("add")));
    else if (const json::Object *r = args.get("reduce"))
      if (auto mode = r->getString("as_string"))
        attrs.push_back(named("reduce", b.getStringAttr(*mode)));
    return emit("magi.scatter", {*self, *index, *src}, attrs);
  }
  if (base == "slice_scatter") {
    FailureOr<Value> self = tensor("self"), src = tensor("src");
    if (failed(self) || failed(src))
      return failure();
    FailureOr<MixedList> bounds = sliceBounds(args, loc);
    if (failed(bounds))
      return failure();
    SmallVector<Value> operands{*self, *src};
    operands.append(bounds->dynamics.begin(), bounds->dynamics.end());
    return emit("magi.slice_scatter", operands,
                {named("dim", b.getI64IntegerAttr(intArg(args, "dim").value_or(0))),
                 named("static_bounds", b.getDenseI64ArrayAttr(bounds->statics))});
  }
  if (base == "select_scatter") {
    FailureOr<Value> self = tensor("self"), src = tensor("src");
    if (failed(self) || failed(src))
      return failure();
    SmallVector<Value> operands{*self, *src};
    int64_t index;
    if (auto i = intArg(args, "index")) {
      index = *i;
    } else {
      FailureOr<Value> v = scalar("index");
      if (failed(v))
        return failure();
      if (!v->getType().isIndex())
        return convertOpaque(target, args, resultTypes, loc, results);
      operands.push_back(*v);
      index = ShapedType::kDynamic;
    }
    return emit("magi.select_scatter", operands,
                {named("dim", b.getI64IntegerAttr(intArg(args, "dim").value_or(0))),
                 named("static_index", b.getDenseI64ArrayAttr({index}))});
  }
  if (base == "cumsum") {
    FailureOr<Value> self = tensor("self");
    FailureOr<Type> dtype = dtypeArg(args, "dtype", loc);
    if (failed(self) || failed(dtype))
      return failure();
    SmallVector<NamedAttribute> attrs{
        named("dim", b.getI64IntegerAttr(intArg(args, "dim").value_or(0)))};
    if (*dtype)
      attrs.push_back(named("dtype", TypeAttr::get(*dtype)));
    return emit("magi.cumsum", {*self}, attrs);
  }
  if (base == "_softmax" || base == "_log_softmax") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    return emit(base == "_softmax" ? "magi.softmax" : "magi.log_softmax", {*self},
                {named("dim", b.getI64IntegerAttr(intArg(args, "dim").value_or(-1))),
                 named("half_to_float",
                       b.getBoolAttr(boolArg(args, "half_to_float").value_or(false)))});
  }

  // Shapes.
  auto mixedOp = [&](StringRef name, StringRef listArg, StringRef staticName,
                     ArrayRef<Value> leading, ArrayRef<NamedAttribute> extra)
      -> LogicalResult {
    FailureOr<MixedList> list = mixedArg(args, listArg, loc);
    if (failed(list))
      return failure();
    SmallVector<Value> operands(leading.begin(), leading.end());
    operands.append(list->dynamics.begin(), list->dynamics.end());
    SmallVector<NamedAttribute> attrs(extra.begin(), extra.end());
    attrs.push_back(named(staticName, b.getDenseI64ArrayAttr(list->statics)));
    return emit(name, operands, attrs);
  };
  if (base == "view" || base == "_unsafe_view" || base == "reshape") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    return mixedOp("magi.view", args.get("size") ? "size" : "shape",
                   "static_sizes", {*self}, {});
  }
  if (base == "expand") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    return mixedOp("magi.expand", "size", "static_sizes", {*self}, {});
  }
  if (base == "full" && overload == "default") {
    std::optional<double> fill = floatArg(args, "fill_value");
    if (!fill)
      return convertOpaque(target, args, resultTypes, loc, results);
    FailureOr<Type> resultType = resultDtype();
    if (failed(resultType))
      return failure();
    Type dtype = *resultType;
    return mixedOp("magi.full", "size", "static_sizes", {},
                   {named("fill_value", b.getF64FloatAttr(*fill)),
                    named("dtype", TypeAttr::get(dtype))});
  }
  if (base == "full_like") {
    FailureOr<Value> self = tensor("self");
    std::optional<double> fill = floatArg(args, "fill_value");
    if (failed(self))
      return failure();
    if (!fill)
      return convertOpaque(target, args, resultTypes, loc, results);
    FailureOr<Type> resultType = resultDtype();
    if (failed(resultType))
      return failure();
    Type dtype = *resultType;
    return emit("magi.full_like", {*self},
                {named("fill_value", b.getF64FloatAttr(*fill)),
                 named("dtype", TypeAttr::get(dtype))});
  }
  if (base == "scalar_tensor") {
    FailureOr<Value> s = scalar("s");
    if (failed(s))
      return failure();
    FailureOr<Type> resultType = resultDtype();
    if (failed(resultType))
      return failure();
    Type dtype = *resultType;
    return emit("magi.scalar_tensor", {*s}, {named("dtype", TypeAttr::get(dtype))});
  }
  if (base == "arange") {
    Value start, end, step;
    FailureOr<Value> e = scalar("end");
    if (failed(e))
      return failure();
    end = *e;
    if (args.get("start")) {
      FailureOr<Value> s = scalar("start");
      if (failed(s))
        return failure();
      start = *s;
    } else {
      start = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
    }
    if (args.get("step")) {
      FailureOr<Value> s = scalar("step");
      if (failed(s))
        return failure();
      step = *s;
    } else {
      step = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(1));
    }
    FailureOr<Type> resultType = resultDtype();
    if (failed(resultType))
      return failure();
    Type dtype = *resultType;
    return emit("magi.arange", {start, end, step}, {named("dtype", TypeAttr::get(dtype))});
  }
  if (base == "permute") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    std::optional<SmallVector<int64_t>> dims = intsArg(args, "dims");
    if (!dims)
      return error(loc) << "expected constant integers for argument 'dims'";
    return emit("magi.permute", {*self}, {named("dims", b.getDenseI64ArrayAttr(*dims))});
  }
  if ((base == "transpose" && overload == "int") || base == "t") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    int64_t rank = cast<RankedTensorType>(self->getType()).getRank();
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    int64_t d0 = intArg(args, "dim0").value_or(0), d1 = intArg(args, "dim1").value_or(1);
    if (d0 < 0) d0 += rank;
    if (d1 < 0) d1 += rank;
    if (rank >= 2 && d0 < rank && d1 < rank)
      std::swap(perm[d0], perm[d1]);
    return emit("magi.permute", {*self}, {named("dims", b.getDenseI64ArrayAttr(perm))});
  }
  if (base == "unsqueeze") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    return emit("magi.unsqueeze", {*self},
                {named("dim", b.getI64IntegerAttr(intArg(args, "dim").value_or(0)))});
  }
  if (base == "squeeze") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    auto type = cast<RankedTensorType>(self->getType());
    SmallVector<int64_t> dims;
    if (auto d = intsArg(args, "dim"))
      dims = *d;
    else
      for (int64_t i = 0; i < type.getRank(); ++i)
        if (type.getDimSize(i) == 1)
          dims.push_back(i);
    return emit("magi.squeeze", {*self}, {named("dims", b.getDenseI64ArrayAttr(dims))});
  }
  if (base == "slice" && overload == "Tensor") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    FailureOr<MixedList> bounds = sliceBounds(args, loc);
    if (failed(bounds))
      return failure();
    SmallVector<Value> operands{*self};
    operands.append(bounds->dynamics.begin(), bounds->dynamics.end());
    return emit("magi.slice", operands,
                {named("dim", b.getI64IntegerAttr(intArg(args, "dim").value_or(0))),
                 named("static_bounds", b.getDenseI64ArrayAttr(bounds->statics))});
  }
  if (base == "select" && overload == "int") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    SmallVector<Value> operands{*self};
    int64_t index;
    if (auto i = intArg(args, "index")) {
      index = *i;
    } else {
      FailureOr<Value> v = scalar("index");
      if (failed(v))
        return failure();
      operands.push_back(*v);
      index = ShapedType::kDynamic;
    }
    return emit("magi.select", operands,
                {named("dim", b.getI64IntegerAttr(intArg(args, "dim").value_or(0))),
                 named("static_index", b.getDenseI64ArrayAttr({index}))});
  }
  if (base == "cat") {
    const json::Object *a = args.get("tensors");
    const json::Array *list = a ? a->getArray("as_tensors") : nullptr;
    if (!list)
      return error(loc) << "expected a list of tensors for argument 'tensors'";
    SmallVector<Value> operands;
    for (const json::Value &t : *list) {
      const json::Object *o = t.getAsObject();
      std::optional<StringRef> ref = o ? o->getString("name") : std::nullopt;
      if (!ref)
        return error(loc) << "malformed tensor in argument 'tensors'";
      FailureOr<Value> v = lookup(*ref, loc);
      if (failed(v))
        return failure();
      operands.push_back(*v);
    }
    return emit("magi.cat", operands,
                {named("dim", b.getI64IntegerAttr(intArg(args, "dim").value_or(0)))});
  }
  if (base == "split_with_sizes" || (base == "split" && overload == "sizes")) {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    return mixedOp("magi.split_with_sizes", "split_sizes", "static_split_sizes",
                   {*self},
                   {named("dim", b.getI64IntegerAttr(intArg(args, "dim").value_or(0)))});
  }
  if (base == "constant_pad_nd") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    return mixedOp("magi.constant_pad_nd", "pad", "static_pad", {*self},
                   {named("value", b.getF64FloatAttr(
                                       floatArg(args, "value").value_or(0.0)))});
  }
  if (base == "embedding") {
    FailureOr<Value> w = tensor("weight"), i = tensor("indices");
    if (failed(w) || failed(i))
      return failure();
    return emit("magi.embedding", {*w, *i},
                {named("padding_idx", b.getI64IntegerAttr(intArg(args, "padding_idx").value_or(-1)))});
  }
  if ((base == "index" && overload == "Tensor") || base == "index_put") {
    FailureOr<Value> self = tensor("self");
    if (failed(self))
      return failure();
    const json::Object *a = args.get("indices");
    if (!a)
      return error(loc) << "missing argument 'indices'";
    SmallVector<Value> operands{*self};
    SmallVector<int64_t> dims;
    auto addIndex = [&](const json::Object *t, int64_t d) -> LogicalResult {
      std::optional<StringRef> n = t ? t->getString("name") : std::nullopt;
      if (!n)
        return success(); // None: the dimension is taken whole
      FailureOr<Value> v = lookup(*n, loc);
      if (failed(v))
        return failure();
      operands.push_back(*v);
      dims.push_back(d);
      return success();
    };
    if (const json::Array *list = a->getArray("as_tensors")) {
      for (auto [d, t] : llvm::enumerate(*list))
        if (failed(addIndex(t.getAsObject(), d)))
          return failure();
    } else if (const json::Array *list = a->getArray("as_optional_tensors")) {
      for (auto [d, t] : llvm::enumerate(*list))
        if (failed(addIndex(getObject(t.getAsObject(), "as_tensor"), d)))
          return failure();
    } else {
      return error(loc) << "malformed argument 'indices'";
    }
    for (Value v : ArrayRef(operands).drop_front()) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t)
        return error(loc) << "argument 'indices' holds a value that is not "
                             "a tensor";
      if (t.getElementType().isInteger(1))
        return convertOpaque(target, args, resultTypes, loc, results);
    }
    if (base == "index")
      return emit("magi.index", operands,
                  {named("indexed_dims", b.getDenseI64ArrayAttr(dims))});
    FailureOr<Value> values = tensor("values");
    if (failed(values))
      return failure();
    operands.push_back(*values);
    return emit("magi.index_put", operands,
                {named("indexed_dims", b.getDenseI64ArrayAttr(dims)),
                 named("accumulate",
                       b.getBoolAttr(boolArg(args, "accumulate").value_or(false)))});
  }
  if (base == "index_select" || base == "gather") {
    FailureOr<Value> self = tensor("self"), index = tensor("index");
    if (failed(self) || failed(index))
      return failure();
    return emit(("magi." + base).str(), {*self, *index},
                {named("dim", b.getI64IntegerAttr(intArg(args, "dim").value_or(0)))});
  }

  // Matrix products.
  if (base == "mm" || base == "bmm") {
    FailureOr<Value> self = tensor("self"), mat2 = tensor("mat2");
    if (failed(self) || failed(mat2))
      return failure();
    return emit(("magi." + base).str(), {*self, *mat2});
  }
  if (base == "addmm") {
    FailureOr<Value> self = tensor("self"), m1 = tensor("mat1"), m2 = tensor("mat2");
    if (failed(self) || failed(m1) || failed(m2))
      return failure();
    return emit("magi.addmm", {*self, *m1, *m2},
                {named("beta", b.getF64FloatAttr(floatArg(args, "beta").value_or(1.0))),
                 named("alpha", b.getF64FloatAttr(floatArg(args, "alpha").value_or(1.0)))});
  }

  // Normalization and attention.
  if (base == "native_layer_norm") {
    FailureOr<Value> input = tensor("input");
    FailureOr<Value> weight = optTensorArg(args, "weight", loc);
    FailureOr<Value> bias = optTensorArg(args, "bias", loc);
    if (failed(input) || failed(weight) || failed(bias))
      return failure();
    std::optional<SmallVector<int64_t>> shape =
        intsArg(args, "normalized_shape");
    if (!shape)
      return error(loc)
             << "expected constant integers for argument 'normalized_shape'";
    SmallVector<Value> operands{*input};
    if (*weight)
      operands.push_back(*weight);
    if (*bias)
      operands.push_back(*bias);
    return emit("magi.native_layer_norm", operands,
                {named("normalized_ndim", b.getI64IntegerAttr(shape->size())),
                 named("eps", b.getF64FloatAttr(floatArg(args, "eps").value_or(1e-5))),
                 named("operandSegmentSizes",
                       b.getDenseI32ArrayAttr({1, *weight ? 1 : 0, *bias ? 1 : 0}))});
  }
  if (base == "_scaled_dot_product_efficient_attention" ||
      base == "scaled_dot_product_attention") {
    FailureOr<Value> q = tensor("query"), k = tensor("key"), v = tensor("value");
    bool efficient = base.starts_with("_");
    FailureOr<Value> mask =
        optTensorArg(args, efficient ? "attn_bias" : "attn_mask", loc);
    if (failed(q) || failed(k) || failed(v) || failed(mask))
      return failure();
    SmallVector<Value> operands{*q, *k, *v};
    if (*mask)
      operands.push_back(*mask);
    SmallVector<NamedAttribute> attrs;
    if (boolArg(args, "is_causal").value_or(false))
      attrs.push_back(named("is_causal", b.getBoolAttr(true)));
    if (auto scale = floatArg(args, "scale"))
      attrs.push_back(named("scale", b.getF64FloatAttr(*scale)));
    if (auto p = floatArg(args, "dropout_p"); p && *p != 0.0)
      attrs.push_back(named("dropout_p", b.getF64FloatAttr(*p)));
    if (efficient) {
      if (boolArg(args, "compute_log_sumexp").value_or(false))
        attrs.push_back(named("compute_log_sumexp", b.getBoolAttr(true)));
      return emit("magi.scaled_dot_product_efficient_attention", operands, attrs);
    }
    return emit("magi.attention", operands, attrs);
  }

  return convertOpaque(target, args, resultTypes, loc, results);
}

LogicalResult Importer::importOutputs(const json::Object &program) {
  const json::Array *outputs = getArray(graph, "outputs");
  const json::Array *specs =
      getArray(getObject(getObject(&program, "graph_module"), "signature"),
               "output_specs");
  if (!outputs)
    return error() << "the graph has no outputs";
  SmallVector<Value> results;
  SmallVector<DictionaryAttr> resultAttrs;
  for (auto [i, out] : llvm::enumerate(*outputs)) {
    const json::Object *o = out.getAsObject();
    StringRef kind = unionKind(o);
    FailureOr<Value> v = failure();
    if (kind == "as_tensor" || kind == "as_sym_int" || kind == "as_int")
      v = scalarValue(o, fileLoc);
    else
      return error() << "unsupported graph output kind '" << kind << "'";
    if (failed(v))
      return failure();
    results.push_back(*v);
    StringRef outKind = "user_output";
    if (specs && i < specs->size())
      outKind = unionKind((*specs)[i].getAsObject());
    resultAttrs.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("magi.output_kind", b.getStringAttr(outKind))}));
  }
  func::ReturnOp::create(b, fileLoc, results);
  func.setFunctionType(b.getFunctionType(func.getArgumentTypes(),
                                         ValueRange(results).getTypes()));
  for (auto [i, attrs] : llvm::enumerate(resultAttrs))
    func.setResultAttrs(i, attrs);
  return success();
}

OwningOpRef<ModuleOp> Importer::run(const ImportOptions &options) {
  maxJsonBytes = options.maxJsonBytes;
  std::string prefix = archive.prefix();
  std::string modelEntry = prefix + "models/model.json";
  if (!archive.hasEntry(modelEntry)) {
    error() << "missing entry '" << modelEntry
            << "': this is not a torch.export archive";
    return nullptr;
  }
  json::Value programValue = nullptr;
  if (failed(readJson(modelEntry, programValue)))
    return nullptr;
  const json::Object *program = programValue.getAsObject();
  if (!program) {
    error() << "'" << modelEntry << "' is not a JSON object";
    return nullptr;
  }
  if (failed(checkFormat(*program)) || failed(declareSymbols(*program)))
    return nullptr;
  for (auto [config, entry] :
       {std::pair<json::Value *, std::string>{
            &weightsConfig, prefix + "data/weights/model_weights_config.json"},
        std::pair<json::Value *, std::string>{
            &constantsConfig,
            prefix + "data/constants/model_constants_config.json"}})
    if (archive.hasEntry(entry) && failed(readJson(entry, *config)))
      return nullptr;

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  b.setInsertionPointToEnd(module->getBody());
  func = func::FuncOp::create(b, fileLoc, options.functionName,
                              b.getFunctionType({}, {}));
  if (failed(importInputs(*program)))
    return nullptr;
  if (const json::Array *nodes = getArray(graph, "nodes"))
    for (auto [i, node] : llvm::enumerate(*nodes)) {
      const json::Object *n = node.getAsObject();
      if (!n) {
        error() << "node " << i << " of the graph is not a JSON object";
        return nullptr;
      }
      unsigned errorsBefore = errorCount;
      if (succeeded(importNode(*n)))
        continue;
      // A last resort: each failure path names its own node and field.
      if (errorCount == errorsBefore) {
        StringRef name = n->getString("name").value_or("node");
        error(NameLoc::get(b.getStringAttr(name), fileLoc))
            << "cannot import this node";
      }
      return nullptr;
    }
  if (failed(importOutputs(*program)))
    return nullptr;
  if (!opaqueCounts.empty()) {
    InFlightDiagnostic w = emitWarning(fileLoc)
                           << "ops without a typed magi op, kept as "
                              "magi.opaque:";
    for (auto &[name, count] : opaqueCounts)
      w << " " << name << " (" << count << ")";
  }
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace

OwningOpRef<ModuleOp> importTorchExport(StringRef path, MLIRContext *context,
                                        const ImportOptions &options) {
  context->loadDialect<MagiDialect, func::FuncDialect, arith::ArithDialect>();
  std::string err;
  std::unique_ptr<TorchExportArchive> archive =
      TorchExportArchive::open(path, err);
  if (!archive) {
    emitError(FileLineColLoc::get(context, path, 0, 0)) << err;
    return nullptr;
  }
  return Importer(context, path, *archive).run(options);
}

} // namespace magi
