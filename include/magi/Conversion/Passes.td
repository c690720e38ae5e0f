//===- Passes.td - Magi conversions ------------------------*- tablegen -*-===//
//
// The magi dialect to other dialects, as dialect conversions whose patterns
// other compilers can use (populateMagiToLinalgPatterns).
//
//===----------------------------------------------------------------------===//

#ifndef MAGI_CONVERSION_PASSES
#define MAGI_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def LowerToLinalg : Pass<"magi-lower-to-linalg", "mlir::func::FuncOp"> {
  let summary = "Lowers every magi op of a piece to linalg on tensors";
  let description = [{
    A partial dialect conversion (`populateMagiToLinalgPatterns` and
    `configureMagiToLinalgTarget` in `magi/Conversion/Passes.h`, no
    folding) in which magi ops are attempted and may stay; with
    `fail-on-unconverted` every magi op left is then an error naming it and
    the piece (all of them, where a target with the magi dialect illegal,
    as embedders may use, would stop at the first).

    The first step of the lower phase, on each piece function (the split
    graph, marked `magi.split`, is skipped). On ranked tensors with static or
    dynamic dimensions, with value semantics; each top-level linalg op is
    meant to become one GPU kernel, and the code around them is index
    arithmetic only (Python scalars are converted inside generic bodies):
    - elementwise ops (arithmetic, comparisons, where, bitwise and logical
      ops, unary math, gelu, to_copy, clone) become one `linalg.generic`
      each. Operands broadcast by their indexing maps: a static size-1
      dimension is read at index 0; a dynamic dimension is never 1
      (torch.export symbols have min >= 2). bf16 and f16 compute in f32 and
      round once (PyTorch's opmath). silu_and_mul and rotary_embedding are one
      generic each, rounding where their decomposition changes dtype.
    - `sum`, `mean`, `amax`, `any`: a reduction generic over a filled init
      (f32 accumulation for half types), `tensor.expand_shape` for keepdim.
      `cumsum`: one generic with a second loop over the scanned dimension.
      `softmax`: max and sum reductions and one elementwise generic.
      `rms_norm`: one reduction and one elementwise generic; `layer_norm`: the
      mean and the centered sum of squares (two reductions), then one
      elementwise generic.
    - `mm`, `bmm`, `addmm`: `linalg.matmul` / `linalg.batch_matmul` (a generic
      with transposed maps for `transpose_*`), f32 accumulation for half
      types, one rounding (and bias) epilogue.
    - `attention`: six generics (scores; row max; row sum of exp(s - max);
      the probabilities rounded to the input dtype; their product with V;
      division by the sum, zeros for fully masked rows), with the
      scale, additive or boolean masks, `is_causal`, and grouped-query heads
      (key/value head `h floordiv (Hq / Hkv)`). With `tiled-attention` (the
      GPU path), attention on f16 or bf16 operands of rank 4 and head
      dimension 64 or 128, its mask (if any) broadcast only over batch and
      heads, becomes one `magi.tiled_attention`
      instead, which `magi-tiled-attention-to-gpu` makes one kernel.
    - views: `tensor.collapse_shape` / `tensor.expand_shape` when the groups
      follow from the static sizes (at most one group with dynamic sizes),
      else a generic that gathers by linear index; `unsqueeze` / `squeeze`
      are reshapes, `permute` is `linalg.transpose`, `expand` a broadcasting
      generic; `slice`, `select`, `split_with_sizes` are
      `tensor.extract_slice` (Python bounds clamped with index arithmetic);
      `cat` inserts slices into an empty tensor; `constant_pad_nd` is one
      generic (negative pads crop).
    - `embedding`, `gather`, `index`: one generic reading the source with
      `tensor.extract` (negative indices count from the end).
    - `copy`: one broadcasting, converting generic (in place without a
      conversion: `bufferization.materialize_in_destination` into self); `index_put` (without
      `accumulate`): an `scf.forall` over the indexed shape inserting one
      element per iteration into `self` (`tensor.parallel_insert_slice`).
      With `in_place` (`magi-mark-in-place-mutations`), their `self` piece
      argument is marked `bufferization.writable`: the result is written
      into the argument's buffer (`magi-bufferize` makes every other
      argument read-only).
    - `scatter` (any reduction) and `index_put` with `accumulate`: a
      `scf.parallel` over the index's shape that updates the
      `bufferization.to_buffer` of a copy of `self`
      (`bufferization.alloc_tensor`; of `self` itself with `in_place`) with
      `memref.store` or atomics (`memref.atomic_rmw`; a float product as a
      `generic_atomic_rmw` on the bits), whose `to_tensor` is the result;
      `mean` divides by a count kept beside the sum. Bool elements (no
      atomic update) are not lowered.
    - `full`, `full_like`, `scalar_tensor`, `arange`, `constant`: fills or
      generics computing each element from its index.
    - `sym_size` becomes `tensor.dim`, the other `sym_*` ops arith on `index`;
      `bind_symbolic_shape` is erased (and unused `symbolic_int`s).
    With `fail-on-unconverted`, any magi op left is an error that names the
    op and the piece.
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect",
    "mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
    "mlir::arith::ArithDialect", "mlir::math::MathDialect",
    "mlir::scf::SCFDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::memref::MemRefDialect",
  ];
  let options = [
    Option<"failOnUnconverted", "fail-on-unconverted", "bool", "false",
           "Report every magi op left unconverted as an error">,
    Option<"tiledAttention", "tiled-attention", "bool", "false",
           "Attention on f16/bf16 operands of rank 4 and head dimension 64 or "
           "128 becomes magi.tiled_attention (one GPU kernel)">,
  ];
}

def TiledAttentionToLoops : Pass<"magi-tiled-attention-to-loops", "mlir::func::FuncOp"> {
  let summary = "Makes each magi.tiled_attention on buffers the tiled kernel's algorithm as CPU loops";
  let description = [{
    The CPU counterpart of `magi-tiled-attention-to-gpu`, so that the
    interpreter can check the tiled algorithm (`magi-interp
    --lowered-pieces` runs it): each `magi.tiled_attention` on memrefs
    becomes scalar `scf.for` loops that follow the kernel's tiles and
    arithmetic:
    - query tiles of 64 rows, key tiles of 64 keys in order; under
      `is_causal` a query tile visits the key tiles up to its diagonal;
    - with a mask, each (query tile, key tile) is classified as the
      kernel's class table does: a tile that hides every score is skipped,
      one that changes none is not read, a mixed one is read per score
      (boolean: hidden scores -inf; additive: added in log2 units);
    - per query row the scores in f32 (products of the f16/bf16 operands),
      scaled by `scale * log2(e)` (without a mask the running max is taken
      of the raw scores and scaled once, as the kernel does), keys past the
      row's causal limit or past the last key -inf; the online softmax with
      exp2: running max and sum, the output rescaled by exp2 of the max's
      change; the probabilities rounded to the element type before the
      product with V (f32 accumulation); the output divided by the sum and
      rounded, zeros for a row that sees no key;
    - the split over keys for few query rows by the same rule
      (`chooseAttentionKeySplits`, `key-splits` as the GPU pass takes it):
      each split's unnormalized output, max and sum into f32 buffers, then
      combined by rescaling each split to the largest max.
    What it does not reproduce is the order in which the tensor cores and
    the threads of a quad add up products and partial sums.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect", "mlir::math::MathDialect"];
  let options = [
    Option<"keySplits", "key-splits", "int64_t", "0",
           "Split over keys for few query rows: 0 chooses (as the GPU pass "
           "does), 1 never splits, N >= 2 splits into N">,
  ];
}

#endif // MAGI_CONVERSION_PASSES
