//===- MagiDialect.td - The magi dialect -------------------*- tablegen -*-===//
//
// The dialect that holds graphs captured from PyTorch at the core-ATen level.
//
//===----------------------------------------------------------------------===//

#ifndef MAGI_DIALECT_MAGI_IR_MAGIDIALECT_TD
#define MAGI_DIALECT_MAGI_IR_MAGIDIALECT_TD

include "mlir/IR/OpBase.td"

def Magi_Dialect : Dialect {
  let name = "magi";
  let cppNamespace = "::magi";
  let summary = "Graphs captured from PyTorch at the core-ATen level";
  let description = [{
    The `magi` dialect represents a graph exported by `torch.export` (core ATen
    IR) with value semantics:

    * Tensors are builtin ranked `tensor<...>` values. Element types are the
      PyTorch dtypes `f64`, `f32`, `f16`, `bf16`, `i64`, `i32`, `i16`, `i8`,
      `ui8` and `i1` (bool). A tensor is never mutated; there is no device or
      layout: those are choices of later phases.
    * Python scalars passed to an op are SSA values of a builtin scalar type:
      `f64` for a Python `float`, `i64` for an `int`, `i1` for a `bool`, and
      `index` for a symbolic integer (`SymInt`). Type promotion follows
      PyTorch: such scalars are "wrapped numbers" and take part only through
      their category (bool < integer < floating point).
    * Symbolic dimensions are first class. `magi.symbolic_int` declares a
      symbol with its range; `magi.bind_symbolic_shape` ties the dimensions of
      a tensor to symbols through an affine map, so that two `?` known to be
      the same `s0` (or one `s0 + 1`) are related in the IR. Arithmetic on
      symbols (`magi.sym_size`, `magi.sym_add`, ...) produces `index` values.
    * There is one typed op per core-ATen op Magi knows, with a verifier and
      result-type inference, plus the fused ops that Magi's graph passes form
      (`magi.rms_norm`, `magi.silu_and_mul`, `magi.rotary_embedding`,
      `magi.softmax`, `magi.layer_norm`, `magi.attention`). Any other op is
      kept as `magi.opaque`, which carries its full name: nothing a graph
      contains is ever dropped.
  }];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 0;
  let useDefaultTypePrinterParser = 0;
}

#endif // MAGI_DIALECT_MAGI_IR_MAGIDIALECT_TD
