//===- TorchExport.cpp - Import torch.export archives (.pt2) --------------===//
//
// Reads the ExportedProgram JSON (schema 8.x) of a `torch.export.save`
// archive and builds a magi graph: symbols from the range constraints, one
// argument per graph input (lifted weights marked with where their bytes
// are), one op per node, and a return of the graph outputs.
//
//===----------------------------------------------------------------------===//

#include "magi/Import/TorchExport.h"
#include "Converters.h"
#include "Importer.h"
#include "magi/Import/Json.h"
#include "magi/Import/SymExpr.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>
#include <map>

using namespace mlir;

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

namespace torch_import {

llvm::Expected<Json> parseJsonDocument(llvm::StringRef text) {
  if (llvm::Error deep = checkJsonDepth(text))
    return std::move(deep);
  Json document = Json::parse(text.begin(), text.end(), /*cb=*/nullptr,
                              /*allow_exceptions=*/false);
  if (!document.is_discarded())
    return document;
  // Read again for the message: the parser reports it through SAX only.
  struct ErrorOnly : nlohmann::json_sax<Json> {
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t &) override { return true; }
    bool string(string_t &) override { return true; }
    bool binary(binary_t &) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t &) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t, const std::string &,
                     const nlohmann::detail::exception &ex) override {
      // what() reads "[json.exception.parse_error.101] parse error at
      // line 1, column 9: ..."; the bracketed id means nothing to a user.
      message = ex.what();
      if (size_t end = message.find("] ");
          message.rfind("[json.", 0) == 0 && end != std::string::npos)
        message = message.substr(end + 2);
      return false;
    }
    std::string message = "parse error";
  } errorOnly;
  Json::sax_parse(text.begin(), text.end(), &errorOnly);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "is not valid JSON: " + errorOnly.message);
}

std::optional<double> jsonFloat(const Json &v) {
  if (auto d = asNumber(v))
    return *d;
  if (auto s = asString(v)) {
    if (*s == "Infinity" || *s == "inf")
      return INFINITY;
    if (*s == "-Infinity" || *s == "-inf")
      return -INFINITY;
    if (*s == "NaN" || *s == "nan")
      return NAN;
  }
  return std::nullopt;
}

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

std::string qualifiedTorchName(StringRef target) {
  StringRef rest = target;
  rest.consume_front("torch.ops.");
  size_t dot = rest.find('.');
  if (dot == StringRef::npos)
    return ("unknown::" + rest).str();
  return (rest.substr(0, dot) + "::" + rest.substr(dot + 1)).str();
}

namespace {
int64_t dtypeBytes(Type t) {
  return t.isInteger(1) ? 1 : (t.getIntOrFloatBitWidth() + 7) / 8;
}
} // namespace

LogicalResult Importer::readJson(StringRef entry, Json &out) {
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
  llvm::Expected<Json> parsed = parseJsonDocument(bytes);
  if (!parsed)
    return error() << "entry '" << entry
                   << "' " << llvm::toString(parsed.takeError());
  out = std::move(*parsed);
  return success();
}

LogicalResult Importer::checkFormat(const Json &program) {
  const Json *version = getObject(&program, "schema_version");
  std::optional<int64_t> major = version ? getInteger(version, "major") : std::nullopt;
  std::optional<int64_t> minor = version ? getInteger(version, "minor") : std::nullopt;
  if (!major)
    return error() << "the ExportedProgram has no schema_version";
  if (*major != 8)
    return error() << "unsupported ExportedProgram schema version " << *major
                   << "." << minor.value_or(0)
                   << ": Magi reads schema 8.x (PyTorch 2.5 and later)";
  const Json *module = getObject(&program, "graph_module");
  graph = getObject(module, "graph");
  if (!graph)
    return error() << "the ExportedProgram has no graph_module.graph";
  tensorValues = getObject(graph, "tensor_values");
  symIntValues = getObject(graph, "sym_int_values");
  if (!tensorValues)
    return error() << "the graph has no tensor_values";
  return success();
}

LogicalResult Importer::declareSymbols(const Json &program) {
  const Json *constraints = getObject(&program, "range_constraints");
  if (!constraints)
    return success();
  for (const auto &[key, value] : constraints->items()) {
    const Json *range = asObject(value);
    if (!range)
      return error() << "malformed range constraint for '" << key << "'";
    std::optional<int64_t> min = getInteger(range, "min_val");
    std::optional<int64_t> max = getInteger(range, "max_val");
    ranges[key] = {min, max};
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
  std::pair<std::optional<int64_t>, std::optional<int64_t>> range;
  if (auto it = ranges.find(name.str()); it != ranges.end())
    range = it->second;
  IntegerAttr max;
  if (range.second)
    max = b.getI64IntegerAttr(*range.second);
  // A symbol declared here is a size (or reaches one), so it is never
  // negative: an export without a minimum leaves 0.
  Value v = SymbolicIntOp::create(b, fileLoc, b.getStringAttr(name),
                                  b.getI64IntegerAttr(range.first.value_or(0)), max);
  symbols[name.str()] = v;
  return v;
}

// An integer .item() defines an unbacked SymInt (`u0`): the item carries
// its name, so that shapes and assertions over it can refer to the value
// read, and its range's upper bound, so that the runtime can plan memory.
// torch.export names the output `name` after its node
// (`_local_scalar_dense`) and keeps the SymInt in sym_int_values; the range
// constraints are keyed by the SymInt. A bound says the value is in
// [0, bound]: a range that reaches below 0 (torch._check(u0 <= 10) alone
// gives [-inf, 10]) gives none, since such a value may be negative (it
// gives no size: torch makes a size's minimum 0; the export's assertions
// check its range).
void Importer::nameItem(ItemOp item, StringRef name) {
  std::string symbol = name.str();
  const Json *value = getObject(symIntValues, name);
  const Json *expr = value ? getObject(value, "as_expr") : nullptr;
  if (std::optional<StringRef> text = expr ? getString(expr, "expr_str") : std::nullopt) {
    SymExprParser parser(*text);
    if (std::optional<SymExpr> parsed = parser.parse(); parsed && parsed->kind == SymExpr::Symbol)
      symbol = parsed->name;
  }
  item.setSymbol(symbol);
  auto range = ranges.find(symbol);
  if (range == ranges.end() || !range->second.second || item.getBound() ||
      !range->second.first || *range->second.first < 0)
    return;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(item);
  item.getBoundMutable().assign(indexConstant(*range->second.second, item.getLoc()));
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
  const Json *meta = getObject(tensorValues, name);
  const Json *sizes = getArray(meta, "sizes");
  if (!sizes)
    return success();
  SmallVector<std::string> syms;
  SmallVector<AffineExpr> exprs;
  bool symbolic = false;
  for (auto [dim, size] : llvm::enumerate(*sizes)) {
    const Json *s = asObject(size);
    if (auto v = s ? getInteger(s, "as_int") : std::nullopt) {
      exprs.push_back(getAffineConstantExpr(*v, ctx));
      continue;
    }
    const Json *expr = getObject(s, "as_expr");
    std::optional<StringRef> text = expr ? getString(expr, "expr_str") : std::nullopt;
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

FailureOr<Type> Importer::tensorType(const Json *meta, StringRef what,
                                     Location loc) {
  if (!meta)
    return error(loc) << "no tensor metadata for " << what;
  std::optional<int64_t> code = getInteger(meta, "dtype");
  Type dtype = code ? dtypeFromCode(ctx, *code) : nullptr;
  if (!dtype)
    return error(loc) << "unsupported dtype code " << code.value_or(-1)
                      << " for " << what
                      << " (Magi reads uint8, int8, int16, int32, int64, "
                         "float16, float32, float64, bool, bfloat16)";
  const Json *sizes = getArray(meta, "sizes");
  if (!sizes)
    return error(loc) << "no sizes for " << what;
  SmallVector<int64_t> shape;
  // Its static sizes' bytes must count in int64: later phases compute with
  // them, and the type system keeps negative sizes for `?`.
  int64_t bytes = dtypeBytes(dtype);
  for (auto [dim, size] : llvm::enumerate(*sizes)) {
    const Json *s = asObject(size);
    if (auto v = s ? getInteger(s, "as_int") : std::nullopt) {
      if (*v < 0)
        return error(loc) << "negative size " << *v << " in dimension " << dim
                          << " of " << what;
      if (llvm::MulOverflow(bytes, *v, bytes))
        return error(loc) << "the sizes of " << what
                          << " need more than 2^63 bytes";
      shape.push_back(*v);
    } else if (s && member(s, "as_expr")) {
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
  const Json *entry = nullptr;
  for (auto [config, folder] :
       {std::pair<const Json *, StringRef>{&weightsConfig, "data/weights/"},
        std::pair<const Json *, StringRef>{&constantsConfig,
                                            "data/constants/"}}) {
    if ((entry = getObject(getObject(asObject(*config), "config"), fqn))) {
      dir = folder;
      break;
    }
  }
  if (!entry)
    return error(loc) << "no stored data for '" << fqn
                      << "' in the archive's weights or constants";
  if (getBoolean(entry, "use_pickle").value_or(false))
    return error(loc) << "'" << fqn
                      << "' is stored pickled, which Magi cannot read";
  std::optional<StringRef> file = getString(entry, "path_name");
  const Json *meta = getObject(entry, "tensor_meta");
  if (!file || !meta)
    return error(loc) << "malformed storage record for '" << fqn << "'";
  std::string entryName = archive.prefix() + dir.str() + file->str();
  if (!type.hasStaticShape())
    return error(loc) << "'" << fqn
                      << "' has a symbolic size; stored tensors have static "
                         "shapes";
  SmallVector<int64_t> strides;
  if (const Json *s = getArray(meta, "strides"))
    for (const Json &v : *s)
      if (auto o = asObject(v); o && getInteger(o, "as_int"))
        strides.push_back(*getInteger(o, "as_int"));
  if (static_cast<int64_t>(strides.size()) != type.getRank())
    return error(loc) << "'" << fqn << "' has " << strides.size()
                      << " strides for rank " << type.getRank();
  int64_t offset = 0;
  if (auto o = getObject(meta, "storage_offset"))
    offset = getInteger(o, "as_int").value_or(0);
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

LogicalResult Importer::importInputs(const Json &program) {
  const Json *inputs = getArray(graph, "inputs");
  const Json *specs =
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
    const Json *spec = asObject(specValue);
    StringRef kind = unionKind(spec);
    const Json *body = getObject(spec, kind);
    const Json *arg = getObject(body, "arg");
    std::optional<StringRef> argName = arg ? getString(arg, "name") : std::nullopt;
    if (!argName) // user inputs wrap the argument: {"as_tensor": {"name": ...}}
      if (const Json *t = getObject(arg, "as_tensor"))
        argName = getString(t, "name");
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
      fqn = getString(body, "parameter_name");
    } else if (kind == "buffer") {
      fqn = getString(body, "buffer_name");
    } else if (kind == "tensor_constant") {
      fqn = getString(body, "tensor_constant_name");
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
  const Json *arg = args.get(name);
  const Json *t = getObject(arg, "as_tensor");
  std::optional<StringRef> ref = t ? getString(t, "name") : std::nullopt;
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
    const Json *a = args.get(name);
    if (!a) {
      bounds.statics.push_back(dflt);
    } else if (auto i = getInteger(a, "as_int")) {
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

FailureOr<Value> Importer::scalarValue(const Json *arg, Location loc,
                                       StringRef name) {
  StringRef kind = unionKind(arg);
  const Json *v = arg ? member(arg, kind) : nullptr;
  auto malformed = [&]() {
    InFlightDiagnostic d = error(loc) << "malformed '" << kind << "' ";
    if (name.empty())
      d << "value";
    else
      d << "in argument '" << name << "'";
    return d;
  };
  if (kind == "as_int") {
    std::optional<int64_t> i = asInteger(*v);
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
    std::optional<bool> bv = asBoolean(*v);
    if (!bv)
      return malformed();
    return Value(arith::ConstantOp::create(b, loc, b.getBoolAttr(*bv)));
  }
  if (kind == "as_sym_int") {
    const Json *s = asObject(*v);
    if (auto i = s ? getInteger(s, "as_int") : std::nullopt)
      return indexConstant(*i, loc);
    if (auto n = s ? getString(s, "as_name") : std::nullopt)
      return lookup(*n, loc);
    return malformed();
  }
  if (kind == "as_sym_bool") {
    const Json *s = asObject(*v);
    if (auto bv = s ? getBoolean(s, "as_bool") : std::nullopt)
      return Value(arith::ConstantOp::create(b, loc, b.getBoolAttr(*bv)));
    if (auto n = s ? getString(s, "as_name") : std::nullopt)
      return lookup(*n, loc);
    return malformed();
  }
  if (kind == "as_sym_float") {
    // A SymFloat (a float .item()) is an f64, as a Python float is.
    const Json *s = asObject(*v);
    const Json *f = s ? member(s, "as_float") : nullptr;
    if (auto d = f ? jsonFloat(*f) : std::nullopt)
      return Value(arith::ConstantOp::create(b, loc, b.getF64FloatAttr(*d)));
    if (auto n = s ? getString(s, "as_name") : std::nullopt)
      return lookup(*n, loc);
    return malformed();
  }
  if (kind == "as_tensor") {
    const Json *t = asObject(*v);
    std::optional<StringRef> ref = t ? getString(t, "name") : std::nullopt;
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
  const Json *arg = args.get(name);
  if (!arg)
    return error(loc) << "missing argument '" << name << "'";
  return scalarValue(arg, loc, name);
}

std::optional<int64_t> Importer::intArg(const NodeArgs &args, StringRef name) {
  const Json *arg = args.get(name);
  return arg ? getInteger(arg, "as_int") : std::nullopt;
}

std::optional<double> Importer::floatArg(const NodeArgs &args, StringRef name) {
  const Json *arg = args.get(name);
  if (!arg)
    return std::nullopt;
  if (const Json *f = member(arg, "as_float"))
    return jsonFloat(*f);
  if (auto i = getInteger(arg, "as_int"))
    return static_cast<double>(*i);
  if (auto bv = getBoolean(arg, "as_bool"))
    return *bv ? 1.0 : 0.0;
  return std::nullopt;
}

std::optional<SmallVector<double>> Importer::floatsArg(const NodeArgs &args,
                                                      StringRef name) {
  const Json *arg = args.get(name);
  const Json *list = arg ? getArray(arg, "as_floats") : nullptr;
  if (!list)
    return std::nullopt;
  SmallVector<double> out;
  for (const Json &v : *list) {
    std::optional<double> f = jsonFloat(v);
    if (!f)
      return std::nullopt;
    out.push_back(*f);
  }
  return out;
}

std::optional<bool> Importer::boolArg(const NodeArgs &args, StringRef name) {
  const Json *arg = args.get(name);
  return arg ? getBoolean(arg, "as_bool") : std::nullopt;
}

std::optional<SmallVector<int64_t>> Importer::intsArg(const NodeArgs &args,
                                                      StringRef name) {
  const Json *arg = args.get(name);
  const Json *list = arg ? getArray(arg, "as_ints") : nullptr;
  if (!list) {
    if (auto i = arg ? getInteger(arg, "as_int") : std::nullopt)
      return SmallVector<int64_t>{*i};
    return std::nullopt;
  }
  SmallVector<int64_t> out;
  for (const Json &v : *list) {
    std::optional<int64_t> i = asInteger(v);
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
  const Json *arg = args.get(name);
  const Json *list = arg ? getArray(arg, "as_sym_ints") : nullptr;
  if (!list)
    return error(loc) << "expected a list of sizes for argument '" << name
                      << "'";
  for (const Json &v : *list) {
    const Json *s = asObject(v);
    if (auto i = s ? getInteger(s, "as_int") : std::nullopt) {
      out.statics.push_back(*i);
    } else if (auto n = s ? getString(s, "as_name") : std::nullopt) {
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
  const Json *arg = args.get(name);
  std::optional<int64_t> code = arg ? getInteger(arg, "as_scalar_type") : std::nullopt;
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

namespace {

// Whether a scalar argument ({"as_int": 2}, {"as_floats": [...]}, ...)
// holds what its kind says; arguments of other kinds are checked where
// they are read.
bool scalarArgWellFormed(const Json &arg) {
  StringRef kind = unionKind(&arg);
  const Json *v = member(&arg, kind);
  auto all = [&](auto check) {
    const Json *list = asArray(v);
    return list && llvm::all_of(*list, [&](const Json &item) {
             return check(item).has_value();
           });
  };
  if (kind == "as_int")
    return asInteger(*v).has_value();
  if (kind == "as_float")
    return jsonFloat(*v).has_value();
  if (kind == "as_bool")
    return asBoolean(*v).has_value();
  if (kind == "as_string")
    return asString(*v).has_value();
  if (kind == "as_ints")
    return all([](const Json &i) { return asInteger(i); });
  if (kind == "as_floats")
    return all([](const Json &f) { return jsonFloat(f); });
  if (kind == "as_bools")
    return all([](const Json &b) { return asBoolean(b); });
  return true;
}

} // namespace

LogicalResult Importer::importNode(const Json &node) {
  std::optional<StringRef> target = getString(&node, "target");
  std::optional<StringRef> nodeName = getString(&node, "name");
  Location loc = NameLoc::get(b.getStringAttr(nodeName.value_or("node")), fileLoc);
  if (!target)
    return error(loc) << "node without a target";
  currentNode = (nodeName.value_or("?") + " (" + *target + ")").str();
  NodeArgs args;
  if (const Json *inputs = getArray(&node, "inputs"))
    for (auto [i, in] : llvm::enumerate(*inputs)) {
      const Json *o = asObject(in);
      std::optional<StringRef> n = o ? getString(o, "name") : std::nullopt;
      const Json *arg = getObject(o, "arg");
      if (!n || !arg)
        return error(loc) << "malformed input of node";
      // Higher-order ops have no schema: torch.export leaves their
      // positional arguments unnamed, so they are named by position.
      std::string argName = n->empty() ? "arg" + std::to_string(i) : n->str();
      if (!args.byName.try_emplace(argName, arg).second)
        return error(loc) << "argument '" << argName << "' given twice";
      args.ordered.push_back({argName, arg});
      // A scalar that is there but malformed is an error now, before a
      // converter reads it as absent and takes its default.
      if (!scalarArgWellFormed(*arg))
        return error(loc) << "malformed '" << unionKind(arg)
                          << "' in argument '" << argName << "'";
    }
  // Output names and types.
  SmallVector<std::string> outNames;
  SmallVector<Type> outTypes;
  if (const Json *outputs = getArray(&node, "outputs"))
    for (const Json &out : *outputs) {
      const Json *o = asObject(out);
      StringRef kind = unionKind(o);
      auto addTensor = [&](const Json *t) -> LogicalResult {
        std::optional<StringRef> n = t ? getString(t, "name") : std::nullopt;
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
        const Json *list = getArray(o, kind);
        if (!list)
          return error(loc) << "malformed tensor list output";
        for (const Json &t : *list)
          if (failed(addTensor(asObject(t))))
            return failure();
      } else if (kind == "as_sym_int" || kind == "as_sym_bool" || kind == "as_sym_float") {
        // A SymInt is an index, a SymBool an i1, a SymFloat an f64.
        StringRef what = kind == "as_sym_int"    ? "SymInt"
                         : kind == "as_sym_bool" ? "SymBool"
                                                 : "SymFloat";
        const Json *sym = getObject(o, kind);
        std::optional<StringRef> n = sym ? getString(sym, "as_name") : std::nullopt;
        if (!n)
          return error(loc) << "malformed " << what << " output";
        outNames.push_back(n->str());
        outTypes.push_back(kind == "as_sym_int"    ? Type(b.getIndexType())
                           : kind == "as_sym_bool" ? Type(b.getI1Type())
                                                   : Type(b.getF64Type()));
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
    if (auto item = v.getDefiningOp<ItemOp>(); item && v.getType().isIndex())
      nameItem(item, name);
    if (isa<RankedTensorType>(v.getType()) && failed(bindShape(v, name)))
      return failure();
  }
  currentNode.clear();
  return success();
}

LogicalResult Importer::convertOpaque(StringRef target, const NodeArgs &args,
                                      TypeRange resultTypes, Location loc,
                                      SmallVectorImpl<Value> &results) {
  std::string name = qualifiedTorchName(target);
  SmallVector<Value> operands;
  SmallVector<Attribute> operandNames;
  NamedAttrList attrs;
  for (auto &[argName, arg] : args.ordered) {
    StringRef kind = unionKind(arg);
    const Json *v = member(arg, kind);
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
    if (kind == "as_tensor" || kind == "as_sym_int" || kind == "as_sym_float") {
      const Json *o = asObject(*v);
      if (!o)
        return malformed();
      std::optional<StringRef> ref =
          getString(o, kind == "as_tensor" ? "name" : "as_name");
      if (ref) {
        if (failed(addOperand(*ref)))
          return failure();
        continue;
      }
      if (kind == "as_sym_float") {
        const Json *f = member(o, "as_float");
        std::optional<double> d = f ? jsonFloat(*f) : std::nullopt;
        if (!d)
          return malformed();
        attrs.append(argName, b.getF64FloatAttr(*d));
        continue;
      }
      std::optional<int64_t> i = getInteger(o, "as_int");
      if (!i)
        return malformed();
      attrs.append(argName, b.getI64IntegerAttr(*i));
    } else if (kind == "as_tensors") {
      const Json *list = asArray(*v);
      if (!list)
        return malformed();
      for (const Json &t : *list) {
        const Json *o = asObject(t);
        std::optional<StringRef> ref = o ? getString(o, "name") : std::nullopt;
        if (!ref)
          return malformed();
        if (failed(addOperand(*ref)))
          return failure();
      }
    } else if (kind == "as_int") {
      // The scalar kinds were checked when the node's arguments were read
      // (scalarArgWellFormed).
      attrs.append(argName, b.getI64IntegerAttr(*asInteger(*v)));
    } else if (kind == "as_float") {
      attrs.append(argName, b.getF64FloatAttr(*jsonFloat(*v)));
    } else if (kind == "as_bool") {
      attrs.append(argName, b.getBoolAttr(*asBoolean(*v)));
    } else if (kind == "as_string") {
      attrs.append(argName, b.getStringAttr(*asString(*v)));
    } else if (kind == "as_ints") {
      SmallVector<int64_t> ints;
      for (const Json &i : *v)
        ints.push_back(*asInteger(i));
      attrs.append(argName, b.getDenseI64ArrayAttr(ints));
    } else if (kind == "as_floats") {
      SmallVector<double> fs;
      for (const Json &f : *v)
        fs.push_back(*jsonFloat(f));
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
      os << arg->dump();
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

//===----------------------------------------------------------------------===//
// The converter table
//===----------------------------------------------------------------------===//

StringRef Node::overload() const {
  StringRef rest = target;
  rest.consume_front("torch.ops.");
  return rest.split('.').second.split('.').second;
}

LogicalResult Node::emitAs(StringRef name, ValueRange operands,
                           ArrayRef<NamedAttribute> attrs) {
  Operation *op = importer.create(name, loc, operands, attrs, resultTypes);
  results.append(op->result_begin(), op->result_end());
  return success();
}

FailureOr<Type> Node::resultDtype() {
  if (resultTypes.size() != 1 || !isa<RankedTensorType>(resultTypes[0]))
    return error() << "expected one tensor output, got " << resultTypes.size()
                   << " outputs";
  return cast<RankedTensorType>(resultTypes[0]).getElementType();
}

ArrayRef<ConverterRow> converterRows() {
  static const std::vector<ConverterRow> rows = [] {
    std::vector<ConverterRow> all;
    addSymbolicConverters(all);
    addElementwiseConverters(all);
    addReductionConverters(all);
    addShapeConverters(all);
    addIndexingConverters(all);
    addNNConverters(all);
    addComposedConverters(all);
    return all;
  }();
  return rows;
}

const ConverterRow *findConverter(StringRef name) {
  static const llvm::StringMap<const ConverterRow *> byName = [] {
    llvm::StringMap<const ConverterRow *> map;
    for (const ConverterRow &r : converterRows()) {
      bool inserted = map.try_emplace(r.torchName, &r).second;
      assert(inserted && "two converter rows for one torch op");
      (void)inserted;
    }
    return map;
  }();
  auto it = byName.find(name);
  if (it == byName.end() && name.contains("::"))
    it = byName.find(name.split('.').first); // the row for every overload
  return it == byName.end() ? nullptr : it->second;
}

LogicalResult Importer::convert(StringRef target, const NodeArgs &args,
                                TypeRange resultTypes, Location loc,
                                SmallVectorImpl<Value> &results) {
  if (target == "torch.ops.higher_order.cond")
    return convertCond(args, resultTypes, loc, results);
  if (target == "torch.ops.higher_order.while_loop")
    return convertWhileLoop(args, resultTypes, loc, results);
  const ConverterRow *row = findConverter(qualifiedTorchName(target));
  if (!row)
    return convertOpaque(target, args, resultTypes, loc, results);
  Node node(*this, target, row->opName, args, resultTypes, loc, results);
  // The ops the converter creates go before the insertion point.
  Block *block = b.getInsertionBlock();
  Block::iterator point = b.getInsertionPoint();
  Operation *before = point == block->begin() ? nullptr : &*std::prev(point);
  if (failed(row->convert(node)))
    return failure();
  if (node.wentOpaque || node.notConstant.empty())
    return success();
  // A typed op with a default in place of an argument known only when the
  // graph runs would compute something else: undo it, keep the node opaque.
  // (Symbols are declared once, at the top, and stay.)
  SmallVector<Operation *> made;
  Block::iterator first = before ? std::next(Block::iterator(before)) : block->begin();
  for (Block::iterator it = first; it != b.getInsertionPoint(); ++it)
    if (!isa<SymbolicIntOp>(*it))
      made.push_back(&*it);
  for (Operation *op : llvm::reverse(made))
    op->erase();
  results.clear();
  std::string &why = notConstantArgs[qualifiedTorchName(target)];
  for (const std::string &name : node.notConstant)
    if (!StringRef(why).contains("'" + name + "'"))
      why += (why.empty() ? "'" : ", '") + name + "'";
  return convertOpaque(target, args, resultTypes, loc, results);
}

LogicalResult Importer::importOutputs(const Json &program) {
  const Json *outputs = getArray(graph, "outputs");
  const Json *specs =
      getArray(getObject(getObject(&program, "graph_module"), "signature"),
               "output_specs");
  if (!outputs)
    return error() << "the graph has no outputs";
  SmallVector<Value> results;
  SmallVector<DictionaryAttr> resultAttrs;
  for (auto [i, out] : llvm::enumerate(*outputs)) {
    const Json *o = asObject(out);
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
    NamedAttrList attrs;
    if (specs && i < specs->size()) {
      const Json *spec = asObject((*specs)[i]);
      outKind = unionKind(spec);
      // A mutation names the input it writes back to: a buffer by its
      // qualified name, a user input by its argument name (as magi.name).
      const Json *body = getObject(spec, outKind);
      std::optional<StringRef> target;
      if (outKind == "buffer_mutation")
        target = getString(body, "buffer_name");
      else if (outKind == "user_input_mutation")
        target = getString(body, "user_input_name");
      else if (outKind.ends_with("_mutation"))
        return error() << "unsupported graph output kind '" << outKind
                       << "' (Magi writes back buffer and user input mutations)";
      if (outKind.ends_with("_mutation")) {
        if (!target)
          return error() << "output " << i << " of kind '" << outKind
                         << "' does not name the input it mutates";
        if (!llvm::any_of(func.getArguments(), [&](BlockArgument arg) {
              auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                            kNameAttr);
              return name && name.getValue() == *target;
            }))
          return error() << "output " << i << " mutates '" << *target
                         << "', which is no input of the graph";
        attrs.append(kMutatesAttr, b.getStringAttr(*target));
      }
    }
    attrs.append(kOutputKindAttr, b.getStringAttr(outKind));
    resultAttrs.push_back(attrs.getDictionary(ctx));
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
  Json programValue = nullptr;
  if (failed(readJson(modelEntry, programValue)))
    return nullptr;
  const Json *program = asObject(programValue);
  if (!program) {
    error() << "'" << modelEntry << "' is not a JSON object";
    return nullptr;
  }
  if (failed(checkFormat(*program)) || failed(declareSymbols(*program)))
    return nullptr;
  for (auto [config, entry] :
       {std::pair<Json *, std::string>{
            &weightsConfig, prefix + "data/weights/model_weights_config.json"},
        std::pair<Json *, std::string>{
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
  if (const Json *nodes = getArray(graph, "nodes"))
    for (auto [i, node] : llvm::enumerate(*nodes)) {
      const Json *n = asObject(node);
      if (!n) {
        error() << "node " << i << " of the graph is not a JSON object";
        return nullptr;
      }
      unsigned errorsBefore = errorCount;
      if (succeeded(importNode(*n)))
        continue;
      // A last resort: each failure path names its own node and field.
      if (errorCount == errorsBefore) {
        StringRef name = getString(n, "name").value_or("node");
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
    if (!notConstantArgs.empty()) {
      w << "; of those, with an argument the typed op takes as a constant but that is "
           "known only when the graph runs (a SymInt, a SymFloat, a tensor):";
      for (auto &[name, why] : notConstantArgs)
        w << " " << name << " (" << why << ")";
    }
  }
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace torch_import

std::vector<ImportedTorchOp> importedTorchOps() {
  std::vector<ImportedTorchOp> ops;
  for (const torch_import::ConverterRow &row : torch_import::converterRows())
    ops.push_back({row.torchName.str(), row.opName.str()});
  return ops;
}

OwningOpRef<ModuleOp> importTorchExport(StringRef path, MLIRContext *context,
                                        const ImportOptions &options) {
  context->loadDialect<MagiDialect, func::FuncDialect, arith::ArithDialect,
                       scf::SCFDialect, tensor::TensorDialect>();
  std::string err;
  std::unique_ptr<TorchExportArchive> archive =
      TorchExportArchive::open(path, err);
  if (!archive) {
    emitError(FileLineColLoc::get(context, path, 0, 0)) << err;
    return nullptr;
  }
  return torch_import::Importer(context, path, *archive).run(options);
}

} // namespace magi
