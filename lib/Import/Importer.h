//===- Importer.h - The torch.export importer's insides ---------*- C++ -*-===//
//
// Private to lib/Import: the importer (TorchExport.cpp), the node it hands to
// a converter (`Node`), and the JSON helpers both use. The converters of op
// families (Convert*.cpp) see a node through `Node` only.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_LIB_IMPORT_IMPORTER_H
#define MAGI_LIB_IMPORT_IMPORTER_H

#include "magi/Import/TorchExport.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/JSON.h"
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace magi {
struct SymExpr;

namespace torch_import {
namespace json = llvm::json;

//===----------------------------------------------------------------------===//
// JSON access
//===----------------------------------------------------------------------===//

inline const json::Object *getObject(const json::Value *v) {
  return v ? v->getAsObject() : nullptr;
}
inline const json::Object *getObject(const json::Object *o,
                                     llvm::StringRef key) {
  return o ? getObject(o->get(key)) : nullptr;
}
inline const json::Array *getArray(const json::Object *o, llvm::StringRef key) {
  return o ? o->getArray(key) : nullptr;
}

/// The single key of a tagged union such as {"as_tensor": {...}}.
inline llvm::StringRef unionKind(const json::Object *o) {
  if (!o || o->empty())
    return "";
  return o->begin()->first;
}

/// A float as torch.export writes it: a number, or a string for infinities
/// and NaN.
std::optional<double> jsonFloat(const json::Value &v);

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
  std::map<std::string, const json::Object *> byName;
  std::vector<std::pair<std::string, const json::Object *>> ordered;
  /// The argument `name`; null when absent or None.
  const json::Object *get(llvm::StringRef name) const {
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
  mlir::FailureOr<mlir::Value> scalarValue(const json::Object *arg,
                                           mlir::Location loc,
                                           llvm::StringRef name = "");
  std::optional<int64_t> intArg(const NodeArgs &args, llvm::StringRef name);
  std::optional<double> floatArg(const NodeArgs &args, llvm::StringRef name);
  std::optional<bool> boolArg(const NodeArgs &args, llvm::StringRef name);
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

  mlir::LogicalResult readJson(llvm::StringRef entry, json::Value &out);
  mlir::LogicalResult checkFormat(const json::Object &program);
  mlir::LogicalResult declareSymbols(const json::Object &program);
  mlir::FailureOr<mlir::Type> tensorType(const json::Object *meta,
                                         llvm::StringRef what,
                                         mlir::Location loc);
  mlir::FailureOr<mlir::Type> valueType(llvm::StringRef name,
                                        mlir::Location loc);
  mlir::Value symbol(llvm::StringRef name);
  mlir::LogicalResult bindShape(mlir::Value tensor, llvm::StringRef name);
  std::optional<mlir::AffineExpr>
  toAffine(const SymExpr &e, llvm::SmallVectorImpl<std::string> &symbols);
  mlir::LogicalResult importInputs(const json::Object &program);
  mlir::LogicalResult weightAttr(llvm::StringRef fqn,
                                 mlir::RankedTensorType type,
                                 mlir::NamedAttrList &attrs,
                                 mlir::Location loc);
  mlir::LogicalResult importNode(const json::Object &node);
  mlir::LogicalResult importOutputs(const json::Object &program);
  /// Converts a node through its converter row, or keeps it opaque.
  mlir::LogicalResult convert(llvm::StringRef target, const NodeArgs &args,
                              mlir::TypeRange resultTypes, mlir::Location loc,
                              llvm::SmallVectorImpl<mlir::Value> &results);

  mlir::MLIRContext *ctx;
  std::string path;
  TorchExportArchive &archive;
  mlir::OpBuilder b;
  mlir::Location fileLoc;
  const json::Object *graph = nullptr;
  const json::Object *tensorValues = nullptr;
  const json::Object *symIntValues = nullptr;
  json::Value weightsConfig = nullptr, constantsConfig = nullptr;
  mlir::func::FuncOp func;
  std::map<std::string, mlir::Value> values;
  std::map<std::string, mlir::Value> symbols;
  std::map<std::string, std::pair<int64_t, std::optional<int64_t>>> ranges;
  std::map<std::string, unsigned> opaqueCounts;
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

  // Arguments.
  const json::Object *arg(llvm::StringRef name) const { return args.get(name); }
  mlir::FailureOr<mlir::Value> tensor(llvm::StringRef name) {
    return importer.tensorArg(args, name, loc);
  }
  /// A null value when the argument is absent or None.
  mlir::FailureOr<mlir::Value> optTensor(llvm::StringRef name) {
    return importer.optTensorArg(args, name, loc);
  }
  mlir::FailureOr<mlir::Value> scalar(llvm::StringRef name) {
    return importer.scalarArg(args, name, loc);
  }
  mlir::FailureOr<mlir::Value> scalarValue(const json::Object *a,
                                           llvm::StringRef name) {
    return importer.scalarValue(a, loc, name);
  }
  mlir::FailureOr<mlir::Value> lookup(llvm::StringRef name) {
    return importer.lookup(name, loc);
  }
  std::optional<int64_t> intArg(llvm::StringRef name) {
    return importer.intArg(args, name);
  }
  std::optional<double> floatArg(llvm::StringRef name) {
    return importer.floatArg(args, name);
  }
  std::optional<bool> boolArg(llvm::StringRef name) {
    return importer.boolArg(args, name);
  }
  std::optional<llvm::SmallVector<int64_t>> intsArg(llvm::StringRef name) {
    return importer.intsArg(args, name);
  }
  mlir::FailureOr<MixedList> mixedArg(llvm::StringRef name) {
    return importer.mixedArg(args, name, loc);
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

  Importer &importer;
  /// As the archive names it: `torch.ops.aten.add.Tensor`.
  llvm::StringRef target;
  /// The magi op of the node's converter row.
  llvm::StringRef opName;
  const NodeArgs &args;
  mlir::TypeRange resultTypes;
  mlir::Location loc;
  llvm::SmallVectorImpl<mlir::Value> &results;
};

} // namespace torch_import
} // namespace magi

#endif // MAGI_LIB_IMPORT_IMPORTER_H
