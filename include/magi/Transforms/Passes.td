//===- Passes.td - Magi's graph passes ---------------------*- tablegen -*-===//
//
// The passes of the full-graph, split, post-grad and lower phases.
//
//===----------------------------------------------------------------------===//

#ifndef MAGI_TRANSFORMS_PASSES_TD
#define MAGI_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Full-graph phase
//===----------------------------------------------------------------------===//

def ReplaceOp : Pass<"magi-replace-op", "mlir::func::FuncOp"> {
  let summary = "Replaces every op of one name by an op of another name";
  let description = [{
    Renames ops: every op named `from` becomes an op named `to` with the same
    operands, attributes and result types, which must then verify. `from` and
    `to` are MLIR op names (`magi.scaled_dot_product_efficient_attention`) or,
    for opaque ops, the name they carry (`aten::my_attention.default`); an
    opaque `to` is written `magi.opaque:<name>`. The seed hard-codes one such
    swap for attention; this is the general form.
  }];
  let options = [
    Option<"from", "from", "std::string", "", "Name of the ops to replace">,
    Option<"to", "to", "std::string", "", "Name of the replacement op">,
  ];
  let statistics = [
    Statistic<"numReplaced", "num-replaced", "Number of ops replaced">,
  ];
}

def ItemToTensor : Pass<"magi-item-to-tensor", "mlir::func::FuncOp"> {
  let summary = "Keeps `.item()` of a one-element tensor in tensor arithmetic";
  let description = [{
    `magi.item` (`tensor.item()`, aten._local_scalar_dense) of a one-element tensor
    whose scalar feeds elementwise magi ops is replaced there by the tensor
    itself, viewed as 0-d: the value never leaves the device, and the graph
    has no data-dependent scalar. Promotion is kept: the 0-d tensor has the
    dtype the scalar had in the op.
  }];
  let statistics = [
    Statistic<"numRewritten", "num-rewritten", "Number of .item() uses kept as tensors">,
  ];
}

def SelectBranches : Pass<"magi-select-branches", "mlir::func::FuncOp"> {
  let summary = "Computes a torch.cond on a bool tensor as both branches and a select";
  let description = [{
    A launch plan cannot branch on a value on the device, so an `scf.if`
    (torch.cond) whose predicate is the one element of a bool tensor
    (`tensor.extract`) becomes both branches, computed one after the other
    where the `scf.if` stood, and one `magi.where` per result, selecting
    by the predicate (viewed as 0-d). Only when that is safe and exact:
    every op of both branches may run on the values of the branch not
    taken (no `magi.embedding`, `gather`, `index`, `index_select`,
    `index_put`, `scatter` or `grouped_mm`, which read or write at
    addresses their values give; no `tensor.extract` but at constant
    indices within static sizes, no scalar integer division (`arith`'s
    traps on a zero divisor); no assertion, no `magi.opaque`, no call,
    no nested region left), every result is a ranked tensor, and the
    select's type is the `scf.if`'s. Anything else stays an `scf.if` (the
    interpreter and the CPU lowering run it; the GPU path refuses it by
    name). The untaken branch's work is done and thrown away: right for
    the small branches torch.cond usually holds, a waste for large ones.
    A predicate on the sizes (a SymBool) is left alone: `magi-split` makes
    it a branch of the runtime. A cond whose branches only give values
    from above, which the canonicalizer folds into an `arith.select` of
    whole tensors on the element read, becomes the same `magi.where`.
  }];
  let dependentDialects = ["magi::MagiDialect"];
  let statistics = [
    Statistic<"numSelected", "num-selected", "Number of scf.if (and arith.select of tensors) computed as selects">,
  ];
}

def Fuse : Pass<"magi-fuse", "mlir::func::FuncOp"> {
  let summary = "Forms the fused magi ops from the patterns torch.export captures";
  let description = [{
    Each fusion is a rewrite pattern (two for attention and RMSNorm) whose
    root is the captured pattern's last op; a root that does not match says
    why (`--debug-only=greedy-rewriter`-style diagnostics through
    `notifyMatchFailure`), and a fused op whose type would not be the root's
    is not formed. The enabled fusions run in this order, each as one walk
    over the function per stage, no folding, no dead-code elimination (ops
    left dead are removed by canonicalization and `magi-dce`):
    - `layer-norm`: `magi.native_layer_norm` whose mean and rstd have no use
      (other than shape bindings) becomes `magi.layer_norm`;
    - `attention`: `magi.scaled_dot_product_efficient_attention` or
      `magi.scaled_dot_product_cudnn_attention` whose log-sum-exp and RNG
      results are unused becomes `magi.attention` (cuDNN's sequence lengths
      become `magi.sym_size` of q and k); when
      K and V are the `repeat_kv` of transformers (`unsqueeze(2)` →
      `expand` → `view`), it takes the unrepeated K and V (grouped-query
      attention). Then the math SDPA spelled out (batched matmuls through
      views, scaled q and kᵀ, an additive float mask, a (safe) softmax);
    - `rms-norm`: the LLaMA RMSNorm as captured (`to_copy(f32)` → `pow 2`
      → `mean(-1, keepdim)` → `add eps` → `rsqrt` → `mul` → `to_copy` →
      `mul` by a 1-d weight) becomes `magi.rms_norm`; then, in a second
      walk, the same without the weight;
    - `silu-and-mul`: `mul(silu(gate), up)`, `silu` as `magi.silu` or
      `x * sigmoid(x)` (also through an f32 round trip);
    - `gelu`: `0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))`
      becomes `magi.gelu {approximate = "tanh"}`, the erf form `magi.gelu`;
    - `rotary-embedding`: `x * cos + rotate_half(x) * sin`, with
      `rotate_half(x)` = `cat(neg(x[..., d/2:]), x[..., :d/2], -1)`;
    - `softmax`: `exp(x - amax(x)) / sum(exp(x - amax(x)))` along one
      dimension (keepdim reductions);
    - `attention-layout`: `magi.attention` whose q, k and v are
      `[B, S, H, D]` tensors with dimensions 1 and 2 swapped (q and k
      possibly through a rotary embedding, whose cos and sin are then
      swapped too) and whose only use swaps its result back becomes
      `magi.attention {layout = "bshd"}` on the unswapped tensors: on the GPU
      those swaps were copies;
    - `causal-mask`: `magi.attention` whose mask is proved, element for
      element, 0 (or true) where key <= query and -inf or its dtype's lowest
      (or false) elsewhere becomes `magi.attention {is_causal}` without the
      mask. The proof follows the mask back through the ops transformers
      builds it with (aranges, slices, cats, adds, comparisons, `and`,
      cumsum and gathers of constants, `where`, views, a padding sliced off)
      as closed forms of each element's index: linear functions for
      integers, conjunctions of linear constraints for booleans. A mask
      made from an input, or by an op it does not know, stays.
    `enable` runs only the fusions named (default: all), `disable` leaves
    out the ones named; an unknown name is an error listing the known ones.
  }];
  let options = [
    ListOption<"enable", "enable", "std::string",
               "Fusions to run, by name (default: all)">,
    ListOption<"disable", "disable", "std::string",
               "Fusions not to run, by name">,
  ];
  let statistics = [
    Statistic<"numFused", "num-fused", "Number of fused ops formed">,
  ];
}

def MergeProjections : Pass<"magi-merge-projections", "mlir::func::FuncOp"> {
  let summary = "One matrix product for the projections of one input (Q/K/V, gate/up)";
  let description = [{
    Two or more `magi.mm(x, permute(w, [1, 0]))` of the same `x`, each `w` a
    2-d weight argument (`magi.weight`, used only there) with the same
    columns, dtype and input kind, become one product over a new weight
    argument that is the weights' concatenation along dim 0
    (`magi.concat_of` names them, in block order; the runtime lays them out
    one after another, so it costs no copy), followed by one `magi.slice`
    of its columns per projection. `magi.addmm` with unit `beta` and
    `alpha` and a 1-d bias weight argument merges likewise, its biases
    concatenated the same way. The weights merged stay arguments (unused).
    At few tokens the merged product streams more weight bytes per launch;
    at many, it is one larger problem instead of several.
  }];
  let statistics = [
    Statistic<"numMerged", "num-merged", "Number of merged products formed">,
    Statistic<"numProjections", "num-projections", "Number of projections merged">,
  ];
}

def ExpandOpLibrary : Pass<"magi-expand-op-library", "mlir::func::FuncOp"> {
  let summary = "Replaces opaque ops by their definitions from a library of functions";
  let description = [{
    Lets a user give Magi an op it does not know without changing Magi's
    sources: `library` is an MLIR file of `func.func`s, each named after
    the op it defines (`func.func @"mylib::my_op.default"`, the name
    `magi.opaque` carries) and written in magi ops (or any op the pipeline
    lowers). Every `magi.opaque` of that name is replaced by the function's
    body, so the interpreter runs it (the CPU reference), the lowering and
    the GPU path compile it, and the split sees its ops.

    The opaque op's operands (tensors and scalars, in order) are the
    function's arguments; an argument with `{magi.attr = "NAME"}` takes
    the op's attribute NAME instead (an integer, float or bool constant of
    the argument's type). Argument types may have `?` sizes where the
    operands are static: after inlining, each op's result types are
    inferred again from its operands, and the function's results must be
    compatible with the opaque op's. A mismatch (operand count or type,
    a missing attribute, incompatible results) is an error at that op.
  }];
  let options = [
    Option<"library", "library", "std::string", "",
           "The MLIR file of op definitions">,
  ];
  let statistics = [
    Statistic<"numExpanded", "num-expanded", "Number of opaque ops replaced">,
  ];
}

def MarkInPlaceMutations : Pass<"magi-mark-in-place-mutations", "mlir::func::FuncOp"> {
  let summary = "Lets the ops that compute a mutated input's new value write it in place";
  let description = [{
    A graph result marked `magi.mutates = "NAME"` is written back into the
    input whose `magi.name` is NAME (torch.export's buffer and user input
    mutations: a KV cache that each decode step updates). Where that result
    is a `magi.index_put` (with or without `accumulate`) or `magi.copy` of the input
    itself, and the input has no other use, the op gets `in_place`: it may
    write into the input's storage, so the step writes only the elements it
    changes and the runtime has nothing to copy back. A new value computed
    from something else, for an input that nothing reads (a `magi.copy` into
    its shape reads only its type), becomes a `magi.copy` of the value into
    the input with `in_place`, at the end of the graph (a counter set from
    the step's position). Any other mutation is copied back by the runtime
    after the run.
  }];
  let statistics = [
    Statistic<"numInPlace", "num-in-place", "Number of mutations written in place">,
    Statistic<"numCopied", "num-copied", "Number of mutations the runtime copies back">,
  ];
}

def DecomposeFused : Pass<"magi-decompose-fused", "mlir::func::FuncOp"> {
  let summary = "Rewrites fused ops back into primitive magi ops";
  let description = [{
    The inverse of the fusion passes: `rms_norm`, `silu_and_mul`,
    `rotary_embedding`, `layer_norm`, `attention`, `softmax` and `gelu` become
    the primitive ops their documentation defines them by (`attention` the
    SDPA op with K/V repeated for grouped-query heads, `layer_norm`
    `native_layer_norm`, `softmax` and `gelu` their formulas). Each op
    builds its own decomposition (`DecomposableOpInterface`); the pass
    gives the last op the fused op's refined type and replaces it. `ops`
    restricts it to some of them (by op name; a name without the interface
    is an error that lists those with it).
  }];
  let options = [
    ListOption<"ops", "ops", "std::string",
               "Fused op names to decompose (default: all)">,
  ];
  let statistics = [
    Statistic<"numDecomposed", "num-decomposed", "Number of fused ops decomposed">,
  ];
}

def DeadCode : Pass<"magi-dce", "mlir::func::FuncOp"> {
  let summary = "Removes side-effect-free ops whose results are unused or only bound";
  let description = [{
    Dead-code elimination that sees through shape bindings: an op without
    side effects whose results are used by nothing but
    `magi.bind_symbolic_shape` is erased with its bindings. Upstream DCE keeps
    such ops alive, since a binding is a use.
  }];
  let statistics = [
    Statistic<"numErased", "num-erased", "Number of ops erased">,
  ];
}

//===----------------------------------------------------------------------===//
// Split phase
//===----------------------------------------------------------------------===//

def Split : Pass<"magi-split", "mlir::ModuleOp"> {
  let summary = "Splits a graph into pieces at splitting ops";
  let description = [{
    Splits the function `function` (default: every public function with a
    body) into pieces, in the manner of MagiCompiler's piecewise backend: each
    splitting op is alone in a splitting piece, the ops between two splitting
    ops form a compute piece, nothing is reordered. Pieces are private
    functions `@<function>_piece_<n>` marked `magi.piece_index` (position),
    `magi.is_splitting`, and, for compute pieces, `magi.graph_index` (0, 1, ...
    dense over compute pieces). Values used across pieces become results of
    the piece that defines them and arguments of the pieces that use them;
    symbolic integers stay in the top-level function and are passed to the
    pieces that need them. Runtime assertions (`magi.assert_symbolic`) stay
    there too, each with a copy of the symbolic arithmetic it reads (marked
    `magi.host_arithmetic`); one that reads anything else is an error. The
    top-level function becomes the checks and the list of piece calls in
    order.

    Splitting ops: ops whose name matches one of `splitting-ops`, any op
    with the unit attribute `magi.splitting`, and every `magi.item` (a value
    read on the host once the work before it has run). A `magi.item`
    without a bound whose value gives no size (through symbolic arithmetic
    it reaches only runtime assertions and the conditions of branches and
    loops) is marked `magi.read_any_value`: the runtime reads it whatever
    it is, negative too. One whose value gives sizes only as the start or
    end of slices of static dimensions (tensor_split at indices held in a
    tensor) gets the largest such dimension as its bound and `clamped`:
    Python clamps a slice's bounds to the dimension, so memory planned at 0
    and that bound holds for any value read. A binding of a
    piece's tensor to a symbol no argument of the graph defines (a size of
    the data) stays on the top level, for the call result, and the symbol's
    other uses after that tensor read its size (`magi.sym_size`) instead. An op answers to its MLIR name
    (`magi.attention`), to the torch ops a magi op declares it stands for
    (`TorchOpInterface`: `aten::_softmax` matches `magi.softmax`), and to the
    name an opaque op carries. A torch name without an overload stands for
    every overload (`aten::topk` matches `aten::topk.default`), one with an
    overload for that one; `*` and `?` globs match names as they are. A name
    that matches no op is reported as a warning. The pass works on any ops,
    not only magi's.

    An `scf.while` (torch.while_loop) of the top-level function, or of a
    region of a loop or branch that stays there, stays where it is, its two
    regions split into pieces in turn (the artifact's
    `graph.loops`): the condition, an element of a bool tensor, becomes a
    `magi.item` bounded by 1 (its own piece, a value read on the host) and a
    `magi.sym_compare "ne"` with 0 marked `magi.loop_condition`. A loop
    whose condition is no tensor element, that does not pass its carried
    values on unchanged, that carries no tensors, or that computes a size
    of the data something outside it uses stays in a piece like any op
    (with what it holds), why in its
    `magi.not_a_runtime_loop` attribute (the CPU runs it; the GPU path
    refuses it and gives that reason).

    An `scf.if` (a torch.cond that `magi-select-branches` left) stays the
    same way, at the top level or in a loop or branch, its then and else regions
    split into pieces (the artifact's `graph.branches`), and its predicate
    becomes symbolic arithmetic the runtime evaluates (marked
    `magi.host_arithmetic`): an element of a bool tensor is read by a
    `magi.item` bounded by 1 and named `cond0`, `cond1`, ... (a symbol of
    the data) and compared with 0; a predicate on the sizes is copied. A
    branch that gives anything but tensors, computes a size of the data
    something outside it uses, or whose predicate is neither stays in a
    piece, why in its `magi.not_a_runtime_branch` attribute.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
  let options = [
    ListOption<"splittingOps", "splitting-ops", "std::string",
               "Op names (or globs) to split at">,
    Option<"function", "function", "std::string", "\"\"",
           "Function to split (default: all public functions)">,
    Option<"dotFile", "dot-file", "std::string", "\"\"",
           "Write the split graph as Graphviz to this file">,
  ];
  let statistics = [
    Statistic<"numComputePieces", "num-compute-pieces", "Number of compute pieces">,
    Statistic<"numSplittingPieces", "num-splitting-pieces", "Number of splitting pieces">,
  ];
}

def InlinePieces : Pass<"magi-inline-pieces", "mlir::ModuleOp"> {
  let summary = "Inlines the pieces of a split graph back (inverse of magi-split)";
  let description = [{
    Inlines every call of a piece function (`magi.piece_index`) into its
    caller and erases the pieces, giving the graph before `magi-split` (up to
    duplicated constants, which `cse` merges).
  }];
}

//===----------------------------------------------------------------------===//
// Post-grad phase
//===----------------------------------------------------------------------===//

def ExplicitPromotion : Pass<"magi-explicit-promotion", "mlir::func::FuncOp"> {
  let summary = "Makes dtype promotion explicit with magi.to_copy";
  let description = [{
    Every tensor operand of an elementwise op whose dtype differs from the
    dtype the op computes in is converted with `magi.to_copy` first, so that
    later phases see operands of one dtype. Python scalar operands stay.
  }];
  let statistics = [
    Statistic<"numCasts", "num-casts", "Number of casts inserted">,
  ];
}

def FoldTransposes : Pass<"magi-fold-transposes", "mlir::func::FuncOp"> {
  let summary = "Folds transposes of matrix operands into mm, bmm, grouped_mm and addmm";
  let description = [{
    A matrix operand that is `magi.permute` swapping its last two dimensions
    (`[1, 0]` for mm/addmm, `[0, 2, 1]` for bmm and grouped_mm's mat2) is
    replaced by the permute's input, and the op's `transpose_*` flag is
    toggled: `x @ w.T` reads `w` as it is stored instead of materializing
    its transpose.
  }];
  let statistics = [
    Statistic<"numFolded", "num-folded", "Number of transposes folded">,
  ];
}

def Specialize : Pass<"magi-specialize", "mlir::ModuleOp"> {
  let summary = "Clones the graph for a concrete value of a symbol and folds shapes";
  let description = [{
    MagiCompiler's `compile_sizes`: the symbol `symbol` is fixed to `value` in a
    clone of each public function (`@<name>_<symbol>_<value>`, marked
    `magi.specialized = {<symbol> = <value>}`): its `magi.symbolic_int` becomes
    a constant, bound dimensions become static and every shape is refolded.
    The value must lie in the symbol's range.
  }];
  let options = [
    Option<"symbol", "symbol", "std::string", "\"\"", "Symbol name (as in magi.symbolic_int)">,
    Option<"value", "value", "int64_t", "0", "Value to specialize for">,
    Option<"replace", "replace", "bool", "false",
           "Specialize in place instead of adding a clone">,
  ];
}

//===----------------------------------------------------------------------===//
// Lower phase
//===----------------------------------------------------------------------===//

def FuseElementwise : Pass<"magi-fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Fuses elementwise producers into consumers that read each "
                "element once";
  let description = [{
    linalg's elementwise fusion, limited to consumers whose indexing map for
    the fused operand is a permutation of all their loops: each element the
    producer computes is read exactly once. Elementwise chains fuse, and so
    does a row reduction with its elementwise prologue; a matrix product or a
    broadcasting consumer does not (it would recompute the producer once per
    read, e.g. an RMSNorm N times per element of a matmul operand). Producers
    with other users are kept.

    Two exceptions. A producer that only moves data (its body yields input
    elements: a transpose, which is generalized first when generics read it,
    a broadcast, a copy) fuses into a consumer that is its only user, at any
    indexing map and for several operands at once: it costs the consumer a
    load, never arithmetic (RoPE reads the transposed projection at d and at
    d ± half). And a `truncf` of a matrix product's result is never fused
    away: `magi-matmul-to-library-call` lets the call write the rounded
    result itself.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

//===----------------------------------------------------------------------===//
// Pipeline support
//===----------------------------------------------------------------------===//

def DumpIR : Pass<"magi-dump-ir", "mlir::ModuleOp"> {
  let summary = "Writes the IR as it is at this point of the pipeline";
  let description = [{
    Writes the module to `<dir>/<order>-<phase>.mlir`. After the split
    (`per-piece`), it also writes each piece function on its own to
    `<dir>/<order>-<phase>.<piece>.mlir`. The IR is left unchanged.
  }];
  let options = [
    Option<"dir", "dir", "std::string", "\"\"", "Directory to write to (created if needed)">,
    Option<"phase", "phase", "std::string", "\"\"", "Phase name used in the file name">,
    Option<"order", "order", "unsigned", "0", "Position of the phase, used in the file name">,
    Option<"perPiece", "per-piece", "bool", "false", "Also write each piece function">,
  ];
}

#endif // MAGI_TRANSFORMS_PASSES_TD
