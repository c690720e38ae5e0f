//===- Passes.td - The binary phase's passes ---------------*- tablegen -*-===//
//
// What turns a piece that magi-gpu-pipeline has mapped and outlined into
// what the artifact holds: its launch plan, its PTX.
//
//===----------------------------------------------------------------------===//

#ifndef MAGI_TARGET_PASSES
#define MAGI_TARGET_PASSES

include "mlir/Pass/PassBase.td"

def ExtractLaunchPlan : Pass<"magi-extract-launch-plan", "mlir::ModuleOp"> {
  let summary = "Records each host function's launch plan (magi.launch_plan)";
  let description = [{
    After kernel outlining a piece's host function only allocates buffers,
    describes views of them, computes sizes, launches kernels and calls the
    gemm library. This pass writes each host function (a `func.func` with a
    body, outside any `gpu.module`) as the runtime's launch plan: the
    buffers, values, plan steps and results of a variant
    (`docs/artifact-format.md`), and records it on the function as
    `magi.launch_plan`, the plan's JSON text as the compile cache keeps it.
    A host op the plan cannot express (a load, a store, a call of anything
    but the gemm library) is an error naming it.

    `magi-gpu-pipeline` runs it between outlining and NVVM; magi-compile
    takes the plan from it, so `magi-opt --magi-gpu-pipeline` shows the
    plan the artifact gets.
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

def CompilePieces : Pass<"magi-compile-pieces", "mlir::ModuleOp"> {
  let summary = "The binary phase: every piece in linalg form to PTX and a launch plan";
  let description = [{
    Compiles each piece of a split module (a function marked
    `magi.piece_index`, in linalg form as the lower phase leaves it) as
    magi-compile does: `magi-gpu-pipeline` on a module of its own, the plan
    from `magi-extract-launch-plan` with each kernel's configuration, and
    the kernels' PTX. The piece keeps its signature and attributes and
    loses its body, and records what it became:

    - `magi.launch_plan`: the variant's plan, as its JSON text (the
      manifest's `kernels`, `values`, `plan`, `results`);
    - `magi.ptx`: the kernels' PTX (absent when the piece launches no
      kernel, only library calls).

    The split graph's calls stay. This is the pipeline's last phase
    (`magi-opt --magi-compile-to=binary`); magi-compile runs the same
    compilation per piece variant, through its cache. A module without
    pieces is an error (run the split phase first).
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"sm_90a\"",
           "GPU architecture (sm_90a: Hopper with its arch-specific instructions, "
           "which tiled attention's warpgroup products need)">,
    Option<"features", "features", "std::string", "\"+ptx80\"",
           "PTX features (sm_90 needs +ptx80 or later)">,
    Option<"optLevel", "opt-level", "unsigned", "3", "NVPTX optimization level">,
    Option<"cudaPath", "cuda-path", "std::string", "\"\"",
           "CUDA toolkit (libdevice, which math functions need)">,
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block, elementwise kernels">,
    Option<"reductionBlockSize", "reduction-block-size", "int64_t", "128",
           "Threads per block, kernels with an inner loop">,
    Option<"libraryGemm", "library-gemm", "bool", "true",
           "Matrix products as cuBLASLt calls">,
    Option<"attentionRowsPerWarp", "attention-rows-per-warp", "int64_t", "0",
           "Tiled attention: query rows a warp (16 or 32; 0: the tiling chosen "
           "per attention)">,
    Option<"attentionKeyRows", "attention-key-rows", "int64_t", "64",
           "Tiled attention: key rows a tile (32 or 64)">,
    Option<"attentionQueryInShared", "attention-query-in-shared", "bool", "false",
           "Tiled attention: query fragments from shared memory for every key tile">,
    Option<"attentionMinBlocksPerSM", "attention-min-blocks-per-sm", "int64_t", "0",
           "Tiled attention: blocks an SM must hold at once (0: ptxas chooses)">,
    Option<"attentionKeySplits", "attention-key-splits", "int64_t", "0",
           "Tiled attention: splits over keys for few query rows (0: chosen, 1: none)">,
    Option<"fewRowGemmRows", "few-row-gemm-rows", "int64_t", "16",
           "Products of at most this many static rows as one weight-streaming "
           "tensor-core kernel (0: none)">,
    Option<"fewRowGemmColumnTiles", "few-row-gemm-column-tiles", "int64_t", "0",
           "Few-row products: tiles of 8 columns a block (0: chosen)">,
    Option<"fewRowGemmWarps", "few-row-gemm-warps", "int64_t", "0",
           "Few-row products: warps a block (0: chosen)">,
    Option<"fewRowGemmStages", "few-row-gemm-stages", "int64_t", "0",
           "Few-row products: stages of 64 k in each warp's ring, all but one in flight (0: chosen)">,
    Option<"kernelPassOptions", "kernel-pass-options", "std::string", "\"\"",
           "Further options of the kernel passes, as 'PASS{OPTIONS} ...' "
           "(magi-compile --kernel-pass-options)">,
  ];
}

#endif // MAGI_TARGET_PASSES
