//===- MagiInterfaces.td - What magi ops say about themselves -*- tablegen -*-===//
//
// Properties that passes ask an op for instead of listing ops by hand.
//
//===----------------------------------------------------------------------===//

#ifndef MAGI_INTERFACES
#define MAGI_INTERFACES

include "mlir/IR/OpBase.td"

def Magi_PromotesOperandsOpInterface : OpInterface<"PromotesOperandsOpInterface"> {
  let cppNamespace = "::magi";
  let description = [{
    An op whose operands take part in PyTorch's type promotion: the op
    computes in one dtype, and each promoted tensor operand of another dtype
    is converted to it first. `magi-explicit-promotion` makes those
    conversions explicit (`magi.to_copy`); `magi-item-to-tensor` passes a
    0-d tensor to these operands in place of an `.item()` scalar, since
    they promote it as the wrapped number it was.
  }];
  let methods = [
    InterfaceMethod<
      "The dtype the promoted operands are converted to (by default the "
      "result's element type).",
      "::mlir::Type", "getPromotedDtype", (ins), [{}], [{
        return ::mlir::cast<::mlir::RankedTensorType>(
                   $_op->getResult(0).getType()).getElementType();
      }]>,
    InterfaceMethod<
      "The operands that are promoted (by default all of them).",
      "::llvm::SmallVector<::mlir::OpOperand *>", "getPromotedOperands", (ins),
      [{}], [{
        ::llvm::SmallVector<::mlir::OpOperand *> operands;
        for (::mlir::OpOperand &operand : $_op->getOpOperands())
          operands.push_back(&operand);
        return operands;
      }]>,
  ];
}

def Magi_DecomposableOpInterface : OpInterface<"DecomposableOpInterface"> {
  let cppNamespace = "::magi";
  let description = [{
    A fused op that stands for primitive magi ops (those its documentation
    defines it by). `magi-decompose-fused` rewrites it into them: the
    inverse of the fusions, for experiments and for paths that have no
    kernel of the fused op.
  }];
  let methods = [
    InterfaceMethod<
      "Builds the primitive ops at the builder's insertion point and returns "
      "the value that replaces the result (its type may be less refined "
      "than the result's); fails with a diagnostic at the op when it "
      "cannot.",
      "::mlir::FailureOr<::mlir::Value>", "decompose",
      (ins "::mlir::OpBuilder &":$builder)>,
  ];
}

def Magi_TorchOpInterface : OpInterface<"TorchOpInterface"> {
  let cppNamespace = "::magi";
  let description = [{
    An op that stands for torch ops, named as PyTorch qualifies them:
    `aten::mm` (every overload), `aten::max.dim` (one overload),
    `_operator::add` (Python arithmetic on SymInts). `magi-import` has one
    converter row per name it imports (`magi-import --list-ops`), and
    `magi-split` matches splitting-op patterns against these names. A fused
    op names the torch op it computes, whether or not graphs hold it.
    Declared in ODS with `Magi_Torch<[...]>`.
  }];
  let methods = [
    StaticInterfaceMethod<
      "The qualified names of the torch ops the op stands for.",
      "::llvm::ArrayRef<::llvm::StringRef>", "getTorchOpNames">,
  ];
}

// The C++ half of `Magi_Torch`: the op's static `getTorchOpNames`, which
// TorchOpInterface answers with.
class Magi_TorchOpNamesTrait<list<string> names>
    : NativeOpTrait<"TorchOpNames", [], [{
        static ::llvm::ArrayRef<::llvm::StringRef> getTorchOpNames();
      }], [{
        ::llvm::ArrayRef<::llvm::StringRef> $cppClass::getTorchOpNames() {
          static const ::llvm::StringRef names[] = {}]
          # !interleave(!foreach(name, names, "\"" # name # "\""), ", ") # [{};
          return names;
        }
      }]> {
  let cppNamespace = "::magi";
}

// Declares the torch ops an op stands for: `Magi_Torch<["aten::mm"]>`.
class Magi_Torch<list<string> names>
    : TraitList<[Magi_TorchOpInterface, Magi_TorchOpNamesTrait<names>]>;

#endif // MAGI_INTERFACES
