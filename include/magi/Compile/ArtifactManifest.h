//===- ArtifactManifest.h - a split module as the artifact's types -*- C++ -*-===//
//
// The serializer's half of magi-compile: the split graph as the manifest's
// `graph` (inputs, symbols, steps, outputs) and each piece's signature, in
// the runtime's own structs (magi/Runtime/Manifest.h), so that compiler and
// runtime share one schema. Variants (PTX, plans) come from the compile
// driver (Artifact.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_COMPILE_ARTIFACTMANIFEST_H
#define MAGI_COMPILE_ARTIFACTMANIFEST_H

#include "magi/Runtime/Manifest.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"

namespace magi {

/// The split function of a module and what the manifest says of it.
struct SplitGraph {
  mlir::func::FuncOp graph;
  runtime::Graph manifest;
  /// The pieces in the order the graph first calls them: piece i of the
  /// manifest is pieces[i].
  llvm::SmallVector<mlir::func::FuncOp> pieces;
};

/// Describes the split function of `module` (the one marked `magi.split`).
/// Weight inputs get no bytes here (`hasWeight` false). Fails with a
/// diagnostic on anything an artifact cannot express.
mlir::FailureOr<SplitGraph> describeSplitGraph(mlir::ModuleOp module);

/// Piece `index`'s entry without variants: name, kind, graph index, CUDA
/// graph flag, argument and result kinds.
mlir::FailureOr<runtime::Piece> pieceSignature(mlir::func::FuncOp piece,
                                               int64_t index);

/// The artifact's dtype of an element type, or nothing for a type it has no
/// name for.
std::optional<runtime::Dtype> artifactDtype(mlir::Type type);

} // namespace magi

#endif // MAGI_COMPILE_ARTIFACTMANIFEST_H
