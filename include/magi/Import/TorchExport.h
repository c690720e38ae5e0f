//===- TorchExport.h - Import torch.export archives (.pt2) ------*- C++ -*-===//
//
// Reads an archive written by `torch.export.save` (format `pt26`,
// ExportedProgram JSON schema 8.x) and builds one magi graph: a `func.func`
// whose arguments are, in the graph signature's order, the lifted parameters,
// buffers and constants and the user inputs, and whose results are the user
// outputs.
//
// Each argument carries:
//   magi.input_kind = "parameter" | "buffer" | "constant" | "user_input"
//   magi.name       = fully qualified name (parameters, buffers, constants)
//                     or the user input's name
//   magi.weight     = {entry = "<zip entry>", offset = <bytes>,
//                      strides = array<i64: ...>}   (parameters/buffers/constants)
// The tensor's dtype and shape are the argument's type. `magi-merge-projections`
// adds arguments with `magi.concat_of = ["<name>", ...]` instead of
// `magi.weight`: the named weights concatenated along dim 0. Weights stay in the
// archive: the runtime and the interpreter read them through
// `TorchExportArchive`.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_IMPORT_TORCHEXPORT_H
#define MAGI_IMPORT_TORCHEXPORT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace magi {

/// Names of the argument attributes the importer writes.
inline constexpr llvm::StringLiteral kInputKindAttr = "magi.input_kind";
inline constexpr llvm::StringLiteral kNameAttr = "magi.name";
inline constexpr llvm::StringLiteral kWeightAttr = "magi.weight";
/// Names of the result attributes the importer writes: the output's kind in
/// the graph signature, and for a mutation the `kNameAttr` of the input it
/// writes back to (a KV cache buffer updated in place, say).
inline constexpr llvm::StringLiteral kOutputKindAttr = "magi.output_kind";
inline constexpr llvm::StringLiteral kMutatesAttr = "magi.mutates";
/// Not written by the importer: a weight argument that is the concatenation
/// along dim 0 of the weight arguments it names (`magi-merge-projections`).
inline constexpr llvm::StringLiteral kConcatOfAttr = "magi.concat_of";

/// The argument indices of the parts of argument `index` of `func`, a
/// concatenated weight (`kConcatOfAttr`): each name resolved to the weight
/// argument (one with `kWeightAttr`) of that `kNameAttr`. Fails with a
/// diagnostic naming the argument when the list is missing or empty or a
/// name is no such argument.
mlir::FailureOr<llvm::SmallVector<unsigned>>
concatenationParts(mlir::func::FuncOp func, unsigned index);

/// True if `path` names a zip archive (a `.pt2` file, or any file that
/// starts with a zip header): what tools import rather than parse as MLIR.
bool isZipArchive(llvm::StringRef path);

/// A read-only view of a zip archive.
class TorchExportArchive {
public:
  ~TorchExportArchive();
  /// Opens `path`; on failure, `error` says why (not a zip, unreadable...).
  static std::unique_ptr<TorchExportArchive> open(llvm::StringRef path,
                                                  std::string &error);
  /// The names of all entries.
  std::vector<std::string> entryNames() const;
  /// True if the archive has an entry `name`.
  bool hasEntry(llvm::StringRef name) const;
  /// The uncompressed size of entry `name` as its header claims it; false if
  /// there is no such entry.
  bool entrySize(llvm::StringRef name, uint64_t &size) const;
  /// The same, but false with `error` set when the claim cannot be true: a
  /// stored entry holds what it stores, a compressed one at most 1032 times
  /// its compressed bytes (deflate's limit), and no entry outgrows that
  /// bound from the archive's own size.
  bool checkedEntrySize(llvm::StringRef name, uint64_t &size,
                        std::string &error) const;
  /// The bytes of entry `name`; false with `error` set on failure: no such
  /// entry, a claimed size that cannot be true (see `checkedEntrySize`) or
  /// is over `maxSize`, data shorter or longer than claimed, or data that
  /// does not match its CRC-32. It never allocates much more than the data
  /// that really inflates, whatever the headers claim.
  bool readEntry(llvm::StringRef name, std::string &bytes, std::string &error,
                 uint64_t maxSize = UINT64_MAX) const;
  /// The common prefix of the archive's entries (`model/` for `model.pt2`).
  const std::string &prefix() const { return prefix_; }

private:
  TorchExportArchive() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string prefix_;
};

struct ImportOptions {
  /// Name of the created function.
  std::string functionName = "main";
  /// The largest JSON entry (`model.json`, the weights' and constants'
  /// configs) read into memory, in bytes: a bigger one is an error.
  uint64_t maxJsonBytes = uint64_t(1) << 30;
};

/// A torch op the importer converts to a typed magi op.
struct ImportedTorchOp {
  /// `namespace::op` (every overload) or `namespace::op.overload`.
  std::string torchName;
  /// The magi op it becomes (`magi.mm`).
  std::string magiOp;
};

/// The importer's converter table, one entry per row, by op family. Every
/// other torch op imports as `magi.opaque`.
std::vector<ImportedTorchOp> importedTorchOps();

/// Imports the archive at `path` into a new module. Errors are emitted as
/// diagnostics on `context` (with the archive path as location) and give null.
/// Ops without a typed magi op become `magi.opaque`; a warning lists them.
mlir::OwningOpRef<mlir::ModuleOp>
importTorchExport(llvm::StringRef path, mlir::MLIRContext *context,
                  const ImportOptions &options = {});

} // namespace magi

#endif // MAGI_IMPORT_TORCHEXPORT_H
