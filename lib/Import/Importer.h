//===- Importer.h - The torch.export importer's insides ---------*- C++ -*-===//
//
// Private to lib/Import: the importer (TorchExport.cpp), the node it hands to
// a converter (`Node`), and the JSON helpers both use. The converters of op
// families (Convert*.cpp) see a node through `Node` only.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_LIB_IMPORT_IMPORTER_H
#define MAGI_LIB_IMPORT_IMPORTER_H

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Import/TorchExport.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace magi {
struct SymExpr;

namespace torch_import {

//===----------------------------------------------------------------------===//
// JSON access
//===----------------------------------------------------------------------===//

/// torch.export's documents as nlohmann::json values: llvm::json would give
/// every object a DenseMap of at least 64 buckets (about 4 KB; 300 MB for a
/// 32-layer model's model.json, most of the import's time in page faults).
using Json = nlohmann::json;

/// Parses `text` (after the nesting check of magi/Import/Json.h); the
/// error reads after the entry's name: "is not valid JSON: parse error at
/// line L, column C: ...".
llvm::Expected<Json> parseJsonDocument(llvm::StringRef text);

/// `v` when it is an object (asObject) or an array (asArray); otherwise, or
/// when `v` is null, null.
inline const Json *asObject(const Json *v) {
  return v && v->is_object() ? v : nullptr;
}
inline const Json *asObject(const Json &v) { return asObject(&v); }
inline const Json *asArray(const Json *v) {
  return v && v->is_array() ? v : nullptr;
}
inline const Json *asArray(const Json &v) { return asArray(&v); }
/// The integer `v` holds when it fits in 64 signed bits; as llvm::json
/// read it before, a number with a fraction of zero counts (2.0 is 2).
inline std::optional<int64_t> asInteger(const Json &v) {
  if (v.is_number_unsigned())
    return v.get<uint64_t>() <= uint64_t(INT64_MAX)
               ? std::optional<int64_t>(int64_t(v.get<uint64_t>()))
               : std::nullopt;
  if (v.is_number_integer())
    return v.get<int64_t>();
  if (v.is_number_float()) {
    double d = v.get<double>();
    // 2^63 itself is out of range; -2^63 is in it.
    if (std::trunc(d) == d && d >= -9223372036854775808.0 &&
        d < 9223372036854775808.0)
      return int64_t(d);
  }
  return std::nullopt;
}
inline std::optional<double> asNumber(const Json &v) {
  if (!v.is_number())
    return std::nullopt;
  return v.get<double>();
}
inline std::optional<bool> asBoolean(const Json &v) {
  if (!v.is_boolean())
    return std::nullopt;
  return v.get<bool>();
}
inline std::optional<llvm::StringRef> asString(const Json &v) {
  if (!v.is_string())
    return std::nullopt;
  return llvm::StringRef(v.get_ref<const std::string &>());
}

/// Member `key` of object `o`; null when `o` is null or not an object, or
/// has no such member.
inline const Json *member(const Json *o, llvm::StringRef key) {
  if (!o || !o->is_object())
    return nullptr;
  auto it = o->find(std::string_view(key.data(), key.size()));
  return it == o->end() ? nullptr : &*it;
}
inline const Json *getObject(const Json *o, llvm::StringRef key) {
  return asObject(member(o, key));
}
inline const Json *getArray(const Json *o, llvm::StringRef key) {
  return asArray(member(o, key));
}
inline std::optional<int64_t> getInteger(const Json *o, llvm::StringRef key) {
  const Json *v = member(o, key);
  return v ? asInteger(*v) : std::nullopt;
}
inline std::optional<bool> getBoolean(const Json *o, llvm::StringRef key) {
  const Json *v = member(o, key);
  return v ? asBoolean(*v) : std::nullopt;
}
inline std::optional<llvm::StringRef> getString(const Json *o,
                                                llvm::StringRef key) {
  const Json *v = member(o, key);
  return v ? asString(*v) : std::nullopt;
}

/// The single key of a tagged union such as {"as_tensor": {...}}.
inline llvm::StringRef unionKind(const Json *o) {
  if (!asObject(o) || o->empty())
    return "";
  return o->begin().key();
}

/// A float as torch.export writes it: a number, or a string for infinities
/// and NaN.
std::optional<double> jsonFloat(const Json &v);

/// torch.export's ScalarType enum (torch/_export/serde/schema.py); null for
/// a dtype Magi does not represent.
mlir::Type dtypeFromCode(mlir::MLIRContext *ctx, int64_t code);

/// The qualified name of a node's target, as PyTorch prints ops:
/// `torch.ops.aten.topk.default` is `aten::topk.default`, `_operator.add`
/// is `_operator::add`, `torch.sym_min` is `torch::sym_min`.
std::string qualifiedTorchName(llvm::StringRef target);

//===----------------------------------------------------------------------===//
// Nodes
//===----------------------------------------------------------------------===//

/// The arguments of a node, by name.
struct NodeArgs {
  std::map<std::string, const Json *> byName;
  std::vector<std::pair<std::string, const Json *>> ordered;
  /// The argument `name`; null when absent or None.
  const Json *get(llvm::StringRef name) const {
    auto it = byName.find(name.str());
    if (it == byName.end() || unionKind(it->second) == "as_none")
      return nullptr;
    return it->second;
  }
};

/// A list of sizes with static entries and dynamic (SymInt) ones.
struct MixedList {
  llvm::SmallVector<int64_t> statics;
  llvm::SmallVector<mlir::Value> dynamics;
};

class Node;

class Importer {
public:
  Importer(mlir::MLIRContext *ctx, llvm::StringRef path,
           TorchExportArchive &archive)
      : ctx(ctx), path(path.str()), archive(archive), b(ctx),
        fileLoc(mlir::FileLineColLoc::get(ctx, path, 0, 0)) {}

  mlir::OwningOpRef<mlir::ModuleOp> run(const ImportOptions &options);

  // What converters reach through `Node`.

  /// An error inside a node, which it names: its location is only the
  /// archive. Only the first error is reported: later ones follow from it
  /// (both operands of a node may be missing), and an import gives one
  /// diagnostic.
  mlir::InFlightDiagnostic error(mlir::Location loc) {
    return error(loc, /*inNode=*/true);
  }
  mlir::OpBuilder &builder() { return b; }
  /// The archive's record of tensor `name` (dtype, sizes, strides, storage
  /// offset); null when there is none.
  const Json *tensorMeta(llvm::StringRef name) const {
    return getObject(tensorValues, name);
  }
  mlir::FailureOr<mlir::Value> lookup(llvm::StringRef name, mlir::Location loc);
  mlir::FailureOr<mlir::Value> tensorArg(const NodeArgs &args,
                                         llvm::StringRef name,
                                         mlir::Location loc);
  mlir::FailureOr<mlir::Value> optTensorArg(const NodeArgs &args,
                                            llvm::StringRef name,
                                            mlir::Location loc);
  mlir::FailureOr<mlir::Value> scalarArg(const NodeArgs &args,
                                         llvm::StringRef name,
                                         mlir::Location loc);
  /// The value of a scalar or tensor argument `name` (empty: not an
  /// argument, such as a graph output).
  mlir::FailureOr<mlir::Value> scalarValue(const Json *arg,
                                           mlir::Location loc,
                                           llvm::StringRef name = "");
  std::optional<int64_t> intArg(const NodeArgs &args, llvm::StringRef name);
  std::optional<double> floatArg(const NodeArgs &args, llvm::StringRef name);
  std::optional<bool> boolArg(const NodeArgs &args, llvm::StringRef name);
  /// A list of floats ({"as_floats": [...]}); nullopt when absent or None.
  std::optional<llvm::SmallVector<double>> floatsArg(const NodeArgs &args,
                                                     llvm::StringRef name);
  std::optional<llvm::SmallVector<int64_t>> intsArg(const NodeArgs &args,
                                                    llvm::StringRef name);
  mlir::FailureOr<MixedList> mixedArg(const NodeArgs &args,
                                      llvm::StringRef name,
                                      mlir::Location loc);
  mlir::FailureOr<mlir::Type> dtypeArg(const NodeArgs &args,
                                       llvm::StringRef name,
                                       mlir::Location loc);
  mlir::Value indexConstant(int64_t v, mlir::Location loc);
  /// `[start, end, step]` of a slice-like node as a mixed list (absent: 0,
  /// INT64_MAX, 1); an error when a bound is no integer.
  mlir::FailureOr<MixedList> sliceBounds(const NodeArgs &args,
                                         mlir::Location loc);
  /// Keeps the node as `magi.opaque`, every argument kept.
  mlir::LogicalResult convertOpaque(llvm::StringRef target,
                                    const NodeArgs &args,
                                    mlir::TypeRange resultTypes,
                                    mlir::Location loc,
                                    llvm::SmallVectorImpl<mlir::Value> &results);
  mlir::Operation *create(llvm::StringRef name, mlir::Location loc,
                          mlir::ValueRange operands,
                          llvm::ArrayRef<mlir::NamedAttribute> attrs,
                          mlir::TypeRange types);

private:
  mlir::InFlightDiagnostic error() { return error(fileLoc, /*inNode=*/false); }
  mlir::InFlightDiagnostic error(mlir::Location loc, bool inNode) {
    mlir::InFlightDiagnostic d = mlir::emitError(loc);
    if (errorCount++)
      d.abandon();
    if (inNode && !currentNode.empty())
      d << "node '" << currentNode << "': ";
    return d;
  }

  mlir::LogicalResult readJson(llvm::StringRef entry, Json &out);
  mlir::LogicalResult checkFormat(const Json &program);
  mlir::LogicalResult declareSymbols(const Json &program);
  mlir::FailureOr<mlir::Type> tensorType(const Json *meta,
                                         llvm::StringRef what,
                                         mlir::Location loc);
  mlir::FailureOr<mlir::Type> valueType(llvm::StringRef name,
                                        mlir::Location loc);
  mlir::Value symbol(llvm::StringRef name);
  void nameItem(ItemOp item, llvm::StringRef name);
  mlir::LogicalResult bindShape(mlir::Value tensor, llvm::StringRef name);
  std::optional<mlir::AffineExpr>
  toAffine(const SymExpr &e, llvm::SmallVectorImpl<std::string> &symbols);
  mlir::LogicalResult importInputs(const Json &program);
  mlir::LogicalResult weightAttr(llvm::StringRef fqn,
                                 mlir::RankedTensorType type,
                                 mlir::NamedAttrList &attrs,
                                 mlir::Location loc);
  mlir::LogicalResult importNode(const Json &node);
  mlir::LogicalResult importOutputs(const Json &program);
  // Control flow (ControlFlow.cpp): `torch.ops.higher_order.cond` and
  // `while_loop` as scf.if and scf.while.
  mlir::LogicalResult convertCond(const NodeArgs &args,
                                  mlir::TypeRange resultTypes,
                                  mlir::Location loc,
                                  llvm::SmallVectorImpl<mlir::Value> &results);
  mlir::LogicalResult
  convertWhileLoop(const NodeArgs &args, mlir::TypeRange resultTypes,
                   mlir::Location loc,
                   llvm::SmallVectorImpl<mlir::Value> &results);
  /// Imports the subgraph argument `arg` at the builder's insertion point,
  /// its inputs bound to `operands`; returns its outputs. `role` names it
  /// in errors.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  importSubgraph(const Json *arg, llvm::StringRef role,
                 mlir::ValueRange operands, mlir::Location loc);
  /// The i1 held by a bool tensor of one element.
  mlir::FailureOr<mlir::Value> predicate(mlir::Value tensor,
                                         llvm::StringRef role,
                                         mlir::Location loc);
  /// `values` as `types`, a tensor.cast where only static sizes differ.
  mlir::LogicalResult yieldAs(mlir::ValueRange values, mlir::TypeRange types,
                              llvm::StringRef what, mlir::Location loc,
                              llvm::SmallVectorImpl<mlir::Value> &out);
  /// Converts a node through its converter row, or keeps it opaque.
  mlir::LogicalResult convert(llvm::StringRef target, const NodeArgs &args,
                              mlir::TypeRange resultTypes, mlir::Location loc,
                              llvm::SmallVectorImpl<mlir::Value> &results);

  mlir::MLIRContext *ctx;
  std::string path;
  TorchExportArchive &archive;
  mlir::OpBuilder b;
  mlir::Location fileLoc;
  const Json *graph = nullptr;
  const Json *tensorValues = nullptr;
  const Json *symIntValues = nullptr;
  Json weightsConfig = nullptr, constantsConfig = nullptr;
  mlir::func::FuncOp func;
  std::map<std::string, mlir::Value> values;
  std::map<std::string, mlir::Value> symbols;
  // Each symbol's [min, max] from range_constraints; either end may be
  // unbounded (an unbacked symbol torch._check bounds above only).
  std::map<std::string, std::pair<std::optional<int64_t>, std::optional<int64_t>>> ranges;
  std::map<std::string, unsigned> opaqueCounts;
  /// Per op kept opaque for it: its arguments known only when the graph
  /// runs that its typed op takes as constants ('alpha', ...).
  std::map<std::string, std::string> notConstantArgs;
  std::string currentNode;
  uint64_t maxJsonBytes = 0;
  // Errors emitted so far: a failure must never leave without one.
  unsigned errorCount = 0;
};

/// One node as its converter sees it: the arguments, the declared result
/// types, and the magi op its converter row creates.
class Node {
public:
  Node(Importer &importer, llvm::StringRef target, llvm::StringRef opName,
       const NodeArgs &args, mlir::TypeRange resultTypes, mlir::Location loc,
       llvm::SmallVectorImpl<mlir::Value> &results)
      : importer(importer), target(target), opName(opName), args(args),
        resultTypes(resultTypes), loc(loc), results(results) {}

  /// The overload of an ATen target (`Tensor` of `aten.add.Tensor`).
  llvm::StringRef overload() const;

  /// Creates the row's op (or `name`) from `operands` and `attrs`, with the
  /// node's result types, and makes its results the node's.
  mlir::LogicalResult emit(mlir::ValueRange operands,
                           llvm::ArrayRef<mlir::NamedAttribute> attrs = {}) {
    return emitAs(opName, operands, attrs);
  }
  mlir::LogicalResult emitAs(llvm::StringRef name, mlir::ValueRange operands,
                             llvm::ArrayRef<mlir::NamedAttribute> attrs = {});
  /// Keeps the node as `magi.opaque`: for forms the typed op cannot hold
  /// (a symbolic `k` of topk, say).
  mlir::LogicalResult opaque() {
    wentOpaque = true;
    return importer.convertOpaque(target, args, resultTypes, loc, results);
  }
  mlir::InFlightDiagnostic error() { return importer.error(loc); }

  // Attributes.
  mlir::OpBuilder &builder() { return importer.builder(); }
  mlir::NamedAttribute named(llvm::StringRef name, mlir::Attribute value) {
    return builder().getNamedAttr(name, value);
  }
  mlir::NamedAttribute i64(llvm::StringRef name, int64_t v) {
    return named(name, builder().getI64IntegerAttr(v));
  }
  mlir::NamedAttribute f64(llvm::StringRef name, double v) {
    return named(name, builder().getF64FloatAttr(v));
  }
  mlir::NamedAttribute boolean(llvm::StringRef name, bool v) {
    return named(name, builder().getBoolAttr(v));
  }
  mlir::NamedAttribute i64s(llvm::StringRef name, llvm::ArrayRef<int64_t> v) {
    return named(name, builder().getDenseI64ArrayAttr(v));
  }
  mlir::NamedAttribute dtype(llvm::StringRef name, mlir::Type t) {
    return named(name, mlir::TypeAttr::get(t));
  }

  // Arguments. The constant accessors (intArg, floatArg, boolArg, intsArg,
  // floatsArg) give nothing for an argument that is absent or None, and
  // also for one that is present but no constant (a SymInt, a SymFloat
  // from a float .item(), a tensor), which a converter's default must not
  // replace: such an argument is noted (`notConstant`) until some accessor
  // reads it as what it is (scalar, tensor, mixedArg); the importer keeps a
  // node that converted with one still noted opaque (Importer::convert).
  const Json *arg(llvm::StringRef name) const { return args.get(name); }
  mlir::FailureOr<mlir::Value> tensor(llvm::StringRef name) {
    return settle(name, importer.tensorArg(args, name, loc));
  }
  /// A null value when the argument is absent or None.
  mlir::FailureOr<mlir::Value> optTensor(llvm::StringRef name) {
    return settle(name, importer.optTensorArg(args, name, loc));
  }
  mlir::FailureOr<mlir::Value> scalar(llvm::StringRef name) {
    return settle(name, importer.scalarArg(args, name, loc));
  }
  mlir::FailureOr<mlir::Value> scalarValue(const Json *a,
                                           llvm::StringRef name) {
    return settle(name, importer.scalarValue(a, loc, name));
  }
  mlir::FailureOr<mlir::Value> lookup(llvm::StringRef name) {
    return importer.lookup(name, loc);
  }
  std::optional<int64_t> intArg(llvm::StringRef name) {
    return constant(name, importer.intArg(args, name));
  }
  std::optional<double> floatArg(llvm::StringRef name) {
    return constant(name, importer.floatArg(args, name));
  }
  std::optional<bool> boolArg(llvm::StringRef name) {
    return constant(name, importer.boolArg(args, name));
  }
  std::optional<llvm::SmallVector<int64_t>> intsArg(llvm::StringRef name) {
    return constant(name, importer.intsArg(args, name));
  }
  std::optional<llvm::SmallVector<double>> floatsArg(llvm::StringRef name) {
    return constant(name, importer.floatsArg(args, name));
  }
  mlir::FailureOr<MixedList> mixedArg(llvm::StringRef name) {
    return settle(name, importer.mixedArg(args, name, loc));
  }
  /// Null when the argument is absent.
  mlir::FailureOr<mlir::Type> dtypeArg(llvm::StringRef name) {
    return importer.dtypeArg(args, name, loc);
  }
  mlir::FailureOr<MixedList> sliceBounds() {
    return importer.sliceBounds(args, loc);
  }
  mlir::Value indexConstant(int64_t v) { return importer.indexConstant(v, loc); }
  /// The dtype of the one tensor result of an op that creates or converts.
  mlir::FailureOr<mlir::Type> resultDtype();

  /// Arguments read as constants that were present but no constant, in
  /// the order first read.
  llvm::SmallVector<std::string> notConstant;
  /// Whether the converter kept the node opaque itself.
  bool wentOpaque = false;

  Importer &importer;
  /// As the archive names it: `torch.ops.aten.add.Tensor`.
  llvm::StringRef target;
  /// The magi op of the node's converter row.
  llvm::StringRef opName;
  const NodeArgs &args;
  mlir::TypeRange resultTypes;
  mlir::Location loc;
  llvm::SmallVectorImpl<mlir::Value> &results;

private:
  template <typename T>
  std::optional<T> constant(llvm::StringRef name, std::optional<T> value) {
    if (value)
      forget(name);
    else if (args.get(name) && !llvm::is_contained(notConstant, name))
      notConstant.push_back(name.str());
    return value;
  }
  template <typename T> T settle(llvm::StringRef name, T value) {
    if (mlir::succeeded(value))
      forget(name);
    return value;
  }
  void forget(llvm::StringRef name) {
    llvm::erase_if(notConstant, [&](const std::string &n) { return n == name; });
  }
};

} // namespace torch_import
} // namespace magi

#endif // MAGI_LIB_IMPORT_IMPORTER_H
