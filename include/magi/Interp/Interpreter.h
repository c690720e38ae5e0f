//===- Interpreter.h - Reference interpreter for magi graphs ----*- C++ -*-===//
//
// Evaluates a magi graph (a `func.func` of magi ops) on the CPU, op by op,
// with PyTorch's numerics: each op computes in double and rounds its result
// once to the result dtype (nearest-even for f32/f16/bf16), matrix products
// and reductions accumulate in double, integer ops are exact in int64.
// Shapes are computed from the operands at run time; symbolic sizes get their
// values from `magi.bind_symbolic_shape`. It is the reference the compiled
// pieces are checked against.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_INTERP_INTERPRETER_H
#define MAGI_INTERP_INTERPRETER_H

#include "magi/Interp/Tensor.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"

namespace magi {
class TorchExportArchive;
} // namespace magi

namespace magi::interp {

/// Runs the callee of a `func.call` in place of the interpreter (for example
/// compiled for the CPU): the callee's results, or failure after emitting a
/// diagnostic.
using CalleeRunner =
    llvm::function_ref<mlir::FailureOr<llvm::SmallVector<Tensor>>(
        mlir::func::FuncOp callee, llvm::ArrayRef<Tensor> args)>;

/// Evaluates `func` on `args`, one per function argument (weights included).
/// Each argument must match its declared type: the same dtype and rank, the
/// declared static sizes. Scalar arguments (`f64`, `i64`, `i1`, `index`) are
/// 0-d tensors (f64, i64, i1, i64). Returns the values of `func.return`, or
/// failure after emitting a diagnostic (at the offending op's location) when
/// an argument does not match, an op cannot be interpreted (`magi.opaque`,
/// ops of other dialects than arith.constant and func.call), a symbol leaves
/// its range, or a computed shape contradicts a declared one. `func.call`
/// runs the callee (the pieces of a split graph) the same way, or with
/// `runCallee` when given.
mlir::FailureOr<llvm::SmallVector<Tensor>>
interpret(mlir::func::FuncOp func, llvm::ArrayRef<Tensor> args,
          CalleeRunner runCallee = nullptr);

/// Checks `args` against the arguments of `func` as `interpret` does: their
/// number, dtypes, ranks and static sizes; fails with a diagnostic at `func`.
mlir::LogicalResult checkArguments(mlir::func::FuncOp func,
                                   llvm::ArrayRef<Tensor> args);

/// How an argument of an imported graph is fed (its `magi.input_kind`).
enum class InputKind { Parameter, Buffer, Constant, UserInput };

/// The kind of argument `index`; an argument without `magi.input_kind` (a
/// hand-written graph) is a user input. Fails with a diagnostic on an
/// unknown kind.
mlir::FailureOr<InputKind> getInputKind(mlir::func::FuncOp func,
                                        unsigned index);
/// The indices of the user-input arguments, in order.
llvm::SmallVector<unsigned> getUserInputIndices(mlir::func::FuncOp func);
/// A name for argument `index` in messages: its `magi.name`, else `#index`.
std::string getArgumentName(mlir::func::FuncOp func, unsigned index);

/// Reads parameters, buffers and constants from a torch.export archive
/// through their `magi.weight = {entry, offset, strides}` attribute: the
/// element at index `i` is at byte `offset + sum(i[d] * strides[d]) * size`
/// of zip entry `entry` (little-endian); dtype and shape are the argument's
/// type. Each zip entry is read once.
class WeightLoader {
public:
  explicit WeightLoader(const TorchExportArchive &archive) : archive(archive) {}
  /// The tensor of argument `index` of `func`; failure with a diagnostic at
  /// the function when the attribute is missing or malformed, the entry is
  /// missing, or the strided view does not fit in it.
  mlir::FailureOr<Tensor> load(mlir::func::FuncOp func, unsigned index);

private:
  mlir::FailureOr<const std::string *> readEntry(llvm::StringRef name,
                                                 mlir::Location loc);
  const TorchExportArchive &archive;
  llvm::StringMap<std::string> entries;
};

/// Argument `index` of `func`, a concatenated weight (`magi.concat_of`), from
/// its parts in `args` (the weight arguments it names, already read): their
/// bytes one after another, which is their concatenation along dim 0.
mlir::FailureOr<Tensor> concatenateWeights(mlir::func::FuncOp func,
                                           unsigned index,
                                           llvm::ArrayRef<Tensor> args);

/// The full argument list of `func`: parameters, buffers and constants read
/// from `archive`, and `userInputs` placed at the user-input positions, in
/// order. Fails with a diagnostic when the number of user inputs is wrong or
/// weights are needed and `archive` is null. (Dtypes and shapes are checked
/// by `interpret`.)
mlir::FailureOr<llvm::SmallVector<Tensor>>
prepareArguments(mlir::func::FuncOp func, const TorchExportArchive *archive,
                 llvm::ArrayRef<Tensor> userInputs);

} // namespace magi::interp

#endif // MAGI_INTERP_INTERPRETER_H
