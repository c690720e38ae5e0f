//===- Passes.td - Magi's GPU mapping passes ----------------*- tablegen -*-===//
//
// The passes between bufferized loops and outlined kernels: each top-level
// loop nest of a piece becomes one kernel, configured by one pass and mapped
// by another, so the choice is tested apart from its execution.
//
//===----------------------------------------------------------------------===//
#ifndef MAGI_GPU_PASSES
#define MAGI_GPU_PASSES

include "mlir/Pass/PassBase.td"

def MagiBufferize : Pass<"magi-bufferize", "mlir::ModuleOp"> {
  let summary = "Bufferizes a lowered piece for the GPU path";
  let description = [{
    One-shot bufferization of the whole module with the GPU path's choices:
    function boundaries become dense row-major memrefs (identity layouts:
    the launch plan describes arguments and results as dense tensors), and
    every copy bufferization needs is a `linalg.copy`, so that it becomes a
    parallel loop (a kernel) rather than a `memref.copy` the host would
    run. A function's tensor arguments are the caller's buffers (graph
    inputs, weights, other pieces' results): every one without a
    `bufferization.writable` attribute is made read-only, so bufferization
    copies rather than writes into it; the lowering marks the destination
    of an in-place mutation (a KV cache) writable. A fill of an empty
    tensor with several uses (CSE merges the identical fills of two
    RMSNorms' sums) is first cloned for each use, just before it, so every
    reduction accumulates in place into a buffer filled for it rather than
    into a copy of one shared buffer. The bufferizable-op
    models of the arith, linalg, tensor, scf and func dialects must be
    registered in the context (magi-opt and magi-compile do).
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::linalg::LinalgDialect"];
}

def ChooseKernelConfig : Pass<"magi-choose-kernel-config", "mlir::func::FuncOp"> {
  let summary = "Chooses each future kernel's launch configuration";
  let description = [{
    Runs on a bufferized host function whose linalg ops became loops
    (`convert-linalg-to-parallel-loops`). Every top-level `scf.parallel` will
    be one kernel with one thread per iteration of its (linearized) loops;
    every other top-level op that touches memory (`scf.for`, `memref.load`,
    `memref.store`, ...) will run in a single-thread kernel, except a
    top-level `scf.for` that is a row accumulation (a row reduction of one
    row, RMSNorm at one token, whose one-iteration parallel loop
    canonicalization folded away): it is wrapped in a one-iteration
    `scf.parallel` again, a row like any other. This pass
    records the choice on each such op as
    `magi.kernel_config = {block_size = N : i64, strategy = "..."}`:
    - `elementwise`: no loop inside; `block-size` threads per block; when
      the body can run several iterations to a thread with all their loads
      before their stores (no regions, no read after the first store), also
      `elements_per_thread = E`: the largest power of two up to
      `max-elements-per-thread` that leaves at least 132 × 2048 threads (an
      H200 full) for a static iteration count, 4 (or fewer when the option
      is lower) for a symbolic one; and when every access streams along the
      last loop, aligned (`magi::elementwiseVectorWidth`), `vector_width =
      W`: each iteration of the mapped loop is then W neighbouring elements
      moved with one 16-byte access per buffer (W = 8 for bf16), and E and
      the block count are of those vector iterations (`vector-access=false`
      keeps scalar access); a load whose indices are other index arithmetic
      on the last loop (an im2col's `position floordiv 28 + tap`, a strided
      `2 j`, clamped into bounds), the rest uniform, is then W scalar loads
      gathered into one vector (the stores still stream), and a comparison
      of such indices (or of the last loop with a bound that splits a
      vector) is made for each element and taken as a vector of i1; a loop of eight vectors a thread gets at most
      128 threads a block (its threads hold about 90 registers: blocks of
      128 fit an SM five times, blocks of 256 twice). A loop computing
      `math.sin`, `cos` or `tan` (libdevice's full range reduction, about
      500 PTX lines each) keeps one scalar element a thread: it computes
      rather than streams, and one copy of that code halves ptxas's time on
      it;
    - `serial-reduction`: each thread runs an inner `scf.for` (a reduction
      or a matrix product); `reduction-block-size` threads per block;
    - `block-reduction`: a row reduction (see `matchRowAccumulation`: an
      inner `scf.for` that accumulates into one output element) whose rows
      are read along the reduced dimension and are long (a static length of
      256 or more, about eight elements a thread, a power of two between 32
      and `row-reduction-block-size`) or of symbolic length (128 threads, or
      fewer when the option is lower): one block per row, the threads
      splitting the row and combining with `gpu.all_reduce`;
    - `single-thread`: one thread (block size 1);
    - `row-group` (with `group = N`, on every member): a block reduction
      and its neighbouring loops over the same rows, run as one kernel of
      one block per row (the reduction's block size), one phase after the
      other: fills of the rows' results (`magi::matchRowPhase`'s Scalar),
      other reductions over the same columns, elementwise loops over the
      rows' columns. Neighbours have nothing that touches memory between
      them (a library call ends a run); one such phase further back joins
      too with `earlier-row-phases` (the default; its bounds must be the
      same values as the group's, so `cse` first), moved down next to the group, when the loops between touch none
      of its buffers (through views; function arguments count as one
      buffer) and nothing else between touches memory (an embedding's
      gather before the RMSNorm of the gathered rows, with transformers'
      RoPE tables computed between them). Every buffer the group writes
      must be accessed through one memref value with the row induction
      variables as indices at fixed positions (`magi::rowGroupIsSafe`), so
      that each block touches only its own rows of it. An RMSNorm (residual
      add, sum of squares, normalization) and attention's softmax (row max,
      row sum, probabilities) become one kernel each: the row is read from
      DRAM once. `row-groups=false` keeps them apart. With vector access,
      a group whose row fits the registers of its block
      (`magi::registerRows`: a static column count that splits into
      16-byte vectors, every elementwise phase vectorizable with that W,
      every reduction reading its columns contiguously from W-aligned
      buffers, at most 8 vectors a thread over whole warps) also records
      `row_chunks = C` and `vector_width = W`, and its block size becomes
      the largest multiple of 32 up to the reduction's that splits the
      vectors evenly (an RMSNorm over 4096 bf16 columns: 256 threads, 2
      chunks of 8).
    When the iteration count is static and smaller than the block size, the
    block shrinks to that count rounded up to a warp (32). Block sizes must
    be between 1 and 1024, the CUDA limit.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block for elementwise loops">,
    Option<"reductionBlockSize", "reduction-block-size", "int64_t", "128",
           "Threads per block for loops with a serial inner loop">,
    Option<"rowReductionBlockSize", "row-reduction-block-size", "int64_t", "256",
           "Most threads per block (one block per row) for block reductions">,
    Option<"maxElementsPerThread", "max-elements-per-thread", "int64_t", "8",
           "Most iterations of an elementwise loop per thread (a power of "
           "two; 1: one per thread)">,
    Option<"vectorAccess", "vector-access", "bool", "true",
           "Move the elements of elementwise loops whose accesses stream "
           "along the last loop 16 bytes at a time (vector_width)">,
    Option<"rowGroups", "row-groups", "bool", "true",
           "Run neighbouring loops over the rows of a block reduction as one "
           "kernel (row-group)">,
    Option<"earlierRowPhases", "earlier-row-phases", "bool", "true",
           "Let a row phase further back join a row group, moved down to it "
           "(an embedding's gather joining its RMSNorm)">,
    Option<"oneWave", "one-wave", "bool", "false",
           "Pack an elementwise loop's iterations (up to "
           "max-elements-per-thread) until its threads fit in one wave of "
           "the GPU, rather than until they would no longer fill one">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

def MapToGPU : Pass<"magi-map-to-gpu", "mlir::func::FuncOp"> {
  let summary = "Maps configured top-level loops to gpu.launch";
  let description = [{
    Every top-level `scf.parallel` with a `magi.kernel_config` becomes a
    `gpu.launch` of `ceildiv(n, block_size)` blocks of `block_size` threads,
    where `n` is the product of its trip counts (static or dynamic): thread
    `id = block_id.x * block_size + thread_id.x` runs iteration `id` (the
    induction variables are delinearized, the last varying fastest, with
    32-bit divisions when `n` fits in 31 bits and 64-bit ones otherwise: a
    uniform branch, folded for static sizes) when `id < n`. With
    `elements_per_thread = E` the grid is `ceildiv(n, block_size * E)` and
    thread `t` of block `b` runs iterations `b * block_size * E + t + j *
    block_size` for `j < E` (each `j` coalesced across the block): in a
    block whose iterations are all below `n`, the loads and arithmetic of
    all `E` come first and then their stores, so `E` loads are in flight
    per thread; the last block runs them one after the other, each guarded.
    A `row-group` (the loops with the same `group`, consecutive but for
    host bookkeeping) becomes one `gpu.launch` where its last loop was: one
    block per row of its first row reduction, the phases in order with a
    `gpu.barrier` between them; a one-iteration-per-row phase runs on
    thread 0, a reduction as a `block-reduction` does, an elementwise phase
    with the threads splitting the columns, four at a time with their loads
    first. With `row_chunks = C` (and `vector_width = W`), thread `t` owns
    the vectors of columns `(t + k * block_size) * W` for `k < C` in every
    phase: elementwise phases run over vectors (as with `vector_width`),
    unrolled over the C chunks; a reduction takes each of its columns as a
    lane of the chunk's vector; and a phase that reads a buffer's chunk an
    earlier phase of the same thread loaded or stored (same buffer, same
    row indices) uses that vector instead of reading memory (a store the
    table does not describe, on thread 0 or of a reduction's result,
    forgets the buffer). An RMSNorm after a residual add then reads x and
    the residual once, 16 bytes at a time, and never reads h back. With
    `lean-row-groups` (the default), a
    reduction whose output's fill was folded in has its total folded by
    every thread (it is uniform); thread 0 still stores it, and later
    phases take it from registers rather than reading it back. A barrier
    between phases is then dropped where nothing written on one side of it
    (since the last barrier kept) is read or written on the other (up to
    the next barrier); buffers the function allocates are told apart, its
    arguments may be one buffer. Loads of buffers the kernel never writes
    move up to just after their operands, so the weight of an RMSNorm is in
    flight during the reduction. A
    `row_chunks` the group does not fit is an error. A group whose loops
    are not phases over the same rows and columns, or that is not
    row-local (see magi-choose-kernel-config), is an error.
    A run of consecutive `single-thread` ops becomes one
    `gpu.launch` of one thread. Each launch is named
    `<function>_kernels::k<N>` for outlining. A `block-reduction` loop
    becomes one block per row (`n` blocks of `block_size` threads): thread
    `t` accumulates iterations `t, t + block_size, ...` of the row's inner
    loop from the combine's identity, `gpu.all_reduce` combines the
    threads' partial results, and thread 0 combines the total into the
    output element (which holds its initial value, as the serial loop
    expects). When the kernel just before it only fills that output with a
    constant over the same rows, that kernel is removed and thread 0 stores
    the constant combined with the total. A loop without a
    configuration, a `scf.parallel` with reductions, a block size outside
    1..1024 or a value computed in a kernel and used by the host is an error.
    Constants a kernel uses are defined inside its launch, so they are not
    kernel parameters: also in launches formed before this pass
    (magi-few-row-matmul-to-gpu's), whose constants canonicalization hoists
    to the function. So is the address of a constant `memref.global` (a
    tensor literal's buffer): outlining then copies the global into the
    kernel module, as device memory the PTX initializes.
  }];
  let options = [
    Option<"leanRowGroups", "lean-row-groups", "bool", "true",
           "Row groups in registers: a reduction's total folded by every "
           "thread and taken from registers, barriers that order nothing "
           "dropped, loads of buffers the kernel never writes issued first">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect", "mlir::vector::VectorDialect"];
}

def MatmulToLibraryCall : Pass<"magi-matmul-to-library-call", "mlir::func::FuncOp"> {
  let summary = "Turns matrix products on memrefs into cuBLASLt calls";
  let description = [{
    Runs on a bufferized host function, before its linalg ops become loops.
    A linalg op that is a plain matrix product (batched or not) becomes a
    call of `@magi_library_gemm(a, b, c)` marked `magi.library = "gemm"`,
    which the launch plan turns into a `gemm` step (cuBLASLt) instead of a
    kernel:
    - two inputs and one output, dense row-major memrefs, indexing maps that
      are permutations (transposes are fine; GQA's `h floordiv g` is not);
    - one m, one n, one k (not of static size 1: an outer product stays a
      kernel, cheaper than a library call) and any number of batch
      dimensions, present in all three operands; several batch dimensions are collapsed into one
      (`memref.collapse_shape`) when every operand holds them contiguously
      (attention's batch and heads), else the op stays a kernel; or one
      batch dimension that `c` and one input lead with and the other input
      lacks (a convolution's images over one weight): that input is passed
      with a unit batch, which the runtime reads again for every batch
      (batch stride 0);
    - a body `out + a * b` (with `arith.extf` of the inputs allowed);
    - inputs f32, bf16 or f16 (both the same), the output f32 or the inputs'
      type;
    - the output holding zeros: last written by a `linalg.fill` of zero, or
      by a copy of a buffer that holds zeros (the call overwrites it; a fill
      that nothing else reads is removed).
    The operands are passed as views `[batch, m, k]`, `[batch, k, n]`,
    `[batch, m, n]` (`memref.transpose`, a unit batch by
    `memref.expand_shape`, several batches by `memref.collapse_shape`). Anything else stays a linalg op, and a kernel.

    A bf16 or f16 product into a local f32 buffer that only an elementwise
    `arith.truncf` back to the inputs' type reads afterwards writes the
    rounded result itself: the call's output is the rounding's (fresh)
    buffer, and the rounding is removed. cuBLASLt computes in f32 and rounds
    once, as the two ops did, and no kernel reads the f32 result back.
    Fills and copies into local buffers that nothing reads any more are
    removed at the end.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::func::FuncDialect"];
}

def FewRowMatmulToGPU : Pass<"magi-few-row-matmul-to-gpu", "mlir::func::FuncOp"> {
  let summary = "Makes matrix products of few rows one weight-streaming tensor-core kernel";
  let description = [{
    Runs on a bufferized host function, before its linalg ops become loops
    (and before magi-matmul-to-library-call, which takes the products this
    pass leaves). A product of few rows (a layer's projection at a few
    tokens: `y = x w^T` with `x` [M, K] and the weight `w` stored [N, K]) reads
    each weight once and does little arithmetic per byte: its time is the
    weight's bytes over the memory bandwidth. It becomes one `gpu.launch`
    (kernel `gemmN`, configuration `{strategy = "few-row-gemm", block_size,
    row_tiles, column_tiles, warps, stages, prefetch_columns}`) that streams
    the weight:
    - it matches a linalg op on buffers with the maps `(m, k)`, `(n, k)`,
      `(m, n)` (no batch), a body `out + a * b` (inputs maybe `arith.extf`ed),
      `a` and `b` f16 or bf16 (the same), `c` f32 or their type, all three
      dense row-major with static shapes, M (the rows) at most `max-rows`,
      K a multiple of 8, and `c` holding zeros (as for the library call:
      the kernel overwrites it; a rounding of an f32 `c` that is its only
      reader is taken over the same way);
    - one block of `warps` warps per `8 * column-tiles` columns of `c`
      (weight rows); the block's K is cut into stages of 64 columns, which
      its warps take in turn;
    - each warp keeps a ring of `stages` stages in dynamic shared memory and
      `stages - 1` of them in flight: a stage is the 64 columns of the
      block's weight rows and of `a`'s rows (16 per row tile), copied with
      `cp.async` (`nvgpu.device_async_copy`, L1 bypassed), eight lanes a
      128-byte row; weight rows past N and rows of `a` past M copy a valid
      row (rows of `a` zero-filled), columns past K nothing (zero-filled);
      odd rows have their 64-byte halves swapped, so that the shared loads
      below hit every bank once;
    - per stage, two steps of 32 k: a lane reads 16 bytes (`vector.load`)
      of a weight row per column tile and of two rows of `a` per row tile,
      and issues two `mma.sync` m16n8k16 per pair: as the sum over k does
      not depend on its order, the k of a step are numbered so that each
      lane's 16-byte chunk of a row is exactly its A and B fragment
      registers (lane 4g + t holds elements 8t .. 8t + 7 of rows g and
      g + 8; the fragment's k = 2t, 2t + 1 are the chunk's first word,
      k = 2t + 8, 2t + 9 its second, and the next step its third and
      fourth), so no shuffle and no `ldmatrix` stand between the shared
      load and the tensor core; `nvvm.bar.warp.sync` orders the warp's
      copies, reads and refills (no block barrier in the loop);
    - at the end every warp writes its f32 accumulators to shared memory,
      and the block's threads add the warps' partial sums, round and store
      each element of `c`.
    With `column-tiles`, `warps` or `stages` 0 (the default) the tiling is
    chosen: 4 column tiles, 4 warps, 4 stages (fewer, down to 2, where
    the rows of `a` would not fit them). A tiling of fewer than 2
    stages, more than 1024 threads or more than 227 KiB of shared memory is
    an error. Bases are assumed 16-byte aligned (the runtime refuses
    others); K a multiple of 8 keeps every row so.

    With `prefetch-columns` P > 0 the kernel first prefetches the first P k
    of each of its block's weight rows into L2 (`cp.async.bulk.prefetch`, a
    thread a row), and only then waits for the previous kernel
    (`griddepcontrol wait`, then `launch_dependents`; the kernel is then
    left as it is by magi-wait-for-previous-grid): launched while the
    previous kernel still runs (the plan's programmatic launch), its blocks
    start the weight stream during that kernel's tail. Nothing before the
    wait reads memory into registers, and the L2 is coherent, so a line the
    previous kernel still writes is read afresh: safe for any operand.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::nvgpu::NVGPUDialect", "mlir::LLVM::LLVMDialect",
                           "mlir::vector::VectorDialect", "mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"];
  let options = [
    Option<"maxRows", "max-rows", "int64_t", "16",
           "Products of at most this many (static) rows become the kernel; "
           "0 turns the pass off">,
    Option<"columnTiles", "column-tiles", "int64_t", "0",
           "Tiles of 8 columns a block (0: chosen)">,
    Option<"warps", "warps", "int64_t", "0",
           "Warps a block, taking the block's stages of K in turn (0: chosen)">,
    Option<"stages", "stages", "int64_t", "0",
           "Stages of 64 k in each warp's ring, all but one in flight (0: chosen)">,
    Option<"prefetchColumns", "prefetch-columns", "int64_t", "0",
           "k of each weight row prefetched into L2 before the kernel waits "
           "for the previous one (0: none, no prefetch)">,
  ];
}

def OutlineKernels : Pass<"magi-outline-kernels", "mlir::ModuleOp"> {
  let summary = "gpu-kernel-outlining that keeps each launch's nvvm attributes";
  let description = [{
    Runs upstream's `gpu-kernel-outlining`, then puts every `nvvm.*`
    attribute of a named `gpu.launch` (one with `module(@M)` and
    `function(@F)`) on the kernel it became, `gpu.func @F` in
    `gpu.module @M`; upstream's pass drops them. This is how a kernel's
    launch bounds reach PTX: `magi-tiled-attention-to-gpu` puts
    `nvvm.minctasm` (PTX `.minnctapersm`, blocks an SM must hold at once,
    so `ptxas` keeps the registers a thread uses within the SM's share) on
    its launches. Attributes of unnamed launches are not carried (nothing
    names their kernel before outlining).
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::NVVM::NVVMDialect"];
}

def FuseLaunches : Pass<"magi-fuse-launches", "mlir::func::FuncOp"> {
  let summary = "Runs independent elementwise kernels side by side as one launch";
  let description = [{
    Consecutive `elementwise` launches (magi-map-to-gpu's, one-dimensional
    grids of one block size, no shared memory) that touch disjoint buffers
    become one launch whose grid is the sum of theirs: block `b` runs the
    first kernel's body as block `b` while `b` is below the first grid, the
    second's as block `b - grid1` after it (grid sizes inside each body are
    their own). Between the two only host bookkeeping may stand (ops
    without memory effects, allocations); the fused launch takes the
    second's place, so the first's buffers are all defined there. Buffers
    are told apart by what they are views of (an allocation, a function
    argument); a kernel that writes a function argument is kept apart from
    any other that touches one, since two arguments may be the same buffer.
    A fused launch fuses again with the next, up to `max-launches` kernels.
    LLaMA's rotary embeddings of q and k and the copy of v, three kernels a
    layer, become one: fewer launches, and one tail instead of three. The
    fused launch keeps the first's name and configuration, with
    `fused_launches = N`.
  }];
  let options = [
    Option<"maxLaunches", "max-launches", "int64_t", "4",
           "The most kernels one launch may run side by side (1: none)">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def WaitForPreviousGrid : Pass<"magi-wait-for-previous-grid", "mlir::ModuleOp"> {
  let summary = "Lets every kernel be launched before the previous one ends";
  let description = [{
    Starts every kernel (`gpu.func` with `kernel`) with `nvvm.griddepcontrol
    wait`, then `nvvm.griddepcontrol launch_dependents`: Hopper's
    programmatic dependent launch. A kernel so made may be launched while
    the kernel before it in the stream still runs (the runtime's launch
    attribute, `"programmatic": true` in the plan); its threads wait at
    entry until that kernel has finished and its writes are visible, so
    nothing it reads or writes races, while its blocks are already
    scheduled: the launch's latency overlaps the previous kernel's tail.
    The second instruction lets the next kernel do the same once every
    block of this one has started. Without the launch attribute both are
    no-ops. A kernel that already waits somewhere (magi-few-row-matmul-to-gpu's
    with `prefetch-columns`, which prefetches weights before its wait) is
    left as it is: what it does before the wait must not read what an
    earlier kernel writes. `griddepcontrol` needs sm_90 or later; the GPU
    pipeline adds this pass for those chips only.
  }];
  let dependentDialects = ["mlir::NVVM::NVVMDialect"];
}

def ExpandShapesToCasts : Pass<"magi-expand-shapes-to-casts"> {
  let summary = "Views expansions with several dynamic sizes in a group as reinterpret_casts";
  let description = [{
    Upstream `expand-strided-metadata` derives an expanded group's sizes
    from the source size and the group's static sizes: it takes at most one
    dynamic size a group, and crashes on more (a convolution's
    `[N, O, H * W]` product viewed as `[N, O, H, W]` over a symbolic image).
    Each such `memref.expand_shape` becomes what that pass would write from
    the op's own `output_shape`: `memref.extract_strided_metadata` of the
    source and a `memref.reinterpret_cast` of its base with the source's
    offset, the output sizes, and strides that multiply, within a group,
    the source dimension's stride by the sizes after each dimension. Every
    other expansion is left to `expand-strided-metadata`, which the GPU
    pipeline runs right after this pass (on host functions and on kernels).
  }];
  let dependentDialects = ["mlir::affine::AffineDialect"];
}

def TiledAttentionToGPU : Pass<"magi-tiled-attention-to-gpu", "mlir::func::FuncOp"> {
  let summary = "Makes each magi.tiled_attention on buffers one tensor-core kernel";
  let description = [{
    Runs on a bufferized host function, after magi-map-to-gpu (the mapping
    passes leave the op where it is, and it ends their runs of neighbouring
    loops) and right before outlining, so that no canonicalization hoists
    the kernel's constants out of its launch. Each
    `magi.tiled_attention` on memrefs becomes one `gpu.launch` (kernel
    `attentionN`, configuration `{strategy = "tiled-attention",
    block_size = 128, query_rows = Q, key_rows = K, query_in_shared}`), a
    FlashAttention-2 style kernel. Each of its 4 warps holds 16 or 32
    query rows (one or two m16 fragments), so a block covers Q = 64 or 128
    query rows, and key and value tiles have K = 32 or 64 rows. With
    `rows-per-warp=0` (the default) the tiling is chosen per attention, as
    measured fastest on an H200 at 4096 tokens: with a mask, 16 rows a warp,
    K = 64, the query in shared memory and `nvvm.minctasm = 3`; causal
    without one, 16 rows a warp, K = 64, `nvvm.minctasm = 3`; otherwise 32
    rows a warp, K = 64, the query in shared memory. Any other
    `rows-per-warp` takes the options' tiling (`key-rows`,
    `query-in-shared`, `min-blocks-per-sm`):
    - one block per (Q query rows, query head, batch), the tiles with the
      most keys (causal) first; query head `h` reads key/value head
      `h floordiv (Hq / Hkv)`;
    - the query tile, then each K-row key and value tile, is copied into
      shared memory with `cp.async` (`nvgpu.device_async_copy`, 16 bytes a
      thread, rows past the end zero-filled); the next key tile is in
      flight while the scores of this one are taken, the next value tile
      while its product is. The tiles are static shared memory up to
      48 KiB, beyond it views (`memref.view`) of the block's dynamic shared
      memory, whose size the launch carries;
    - each warp holds its query rows as `ldmatrix` fragments
      (`nvgpu.ldmatrix`; the shared rows padded by 16 bytes so that the
      eight rows of a fragment fall in distinct banks), or with
      `query-in-shared` loads them again for every key tile (fewer
      registers); S = Q K^T and O += P V are `nvvm.mma.sync` m16n8k16 (f16
      or bf16 in, f32 accumulated; V's fragments by a transposing
      `ldmatrix`), each key or value fragment loaded once for all of a
      warp's query fragments, and the probabilities P go from the score
      accumulators to the product's operands in registers;
    - the online softmax in registers: per row the running max (over the
      4 threads of a quad by `gpu.shuffle xor`) and a per-thread partial
      sum, rescaled by `exp2` of the max's change; the scale times
      log2(e) folded into the scores; keys at or past S, and keys after the
      query under `is_causal` (top left aligned, as PyTorch), score -inf;
    - with a mask, a kernel of its own (`attentionN_mask_tiles`) first
      classifies each Q x K tile of it as hidden, passing or mixed (with
      16-byte loads where the mask's terms are whole bytes, its rows
      aligned and contiguous and the key count a static multiple of the
      vector); the kernel never visits hidden tiles and reads the mask only
      in mixed ones, applying each term to its score as it is read;
    - at the end the sums are combined over the quad, and each row is
      divided by its sum, rounded to the output type and stored (rows past
      L are not);
    - split over keys (a decode step: one token against a long KV cache):
      when the sizes are static, the queries fit one block (L <= Q) and
      heads x batch make fewer than 264 blocks, the keys are split so that
      there are about 528 blocks (four an SM of an H200; `key-splits`
      overrides the count, 1 turns the split off), each split a whole
      number of key tiles (`key_splits` in the configuration; grid x
      is the split). Each block writes its rows' unnormalized output, max
      and sum to f32 buffers [splits, batch, heads, L(, D)], and a second
      kernel (`attentionN_combine`, one block per row, head and batch, one
      thread a column) rescales each split to the largest max, adds them
      up, divides, rounds and stores (zeros for a row no split saw).
    With `warpgroup-mma` (what an sm_90a target turns on), the block's four
    warps are one warpgroup and the products are Hopper's `wgmma.mma_async`:
    S = Q K^T as m64nKk16 steps and O += P V as m64nDk16 steps, A (the
    query's fragments, then P) from registers in mma.sync's layout, B (the
    key and value tiles) read from shared memory by descriptor once for
    all 64 query rows, each sequence from `wgmma.fence` to `wgmma.wait_group 0`
    one inline PTX statement (`kernel_config` gains `warpgroup_mma = 1`).
    The key and value tiles are stored in 128-byte swizzled rows (the
    tile's columns in blocks of 64, 16-byte chunk c of row r at c xor r mod
    8) from a 1024-byte boundary of dynamic shared memory (1 KiB more is
    allocated for the alignment), the query tile in padded rows as before;
    `fence.proxy.async` after each wait for cp.async makes the copies
    visible to the products. The tiling is then 16 rows a warp, K = 64,
    the query in registers (with `rows-per-warp=0`; given options take
    warpgroup products only when they ask for that tiling); at head
    dimension 64 with one key loop (a mask, a split over keys) the query's
    fragments are loaded from its shared tile for every key tile: held in
    registers from before the loop, ptxas gave their registers to P.
    Each tile is a whole number of fragments of 16 rows, so any L and S
    work. An operand whose rows are not contiguous (inner stride not 1) is
    first copied into a dense buffer by a kernel of its own (one thread an
    element); operand views whose strides or offset are not known to be
    multiples of 8 elements (16 bytes, what `cp.async` needs) are checked
    in the kernel with `cf.assert`.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::nvgpu::NVGPUDialect",
                           "mlir::NVVM::NVVMDialect", "mlir::LLVM::LLVMDialect",
                           "mlir::vector::VectorDialect", "mlir::scf::SCFDialect",
                           "mlir::cf::ControlFlowDialect", "mlir::math::MathDialect",
                           "mlir::memref::MemRefDialect", "mlir::linalg::LinalgDialect"];
  let options = [
    Option<"rowsPerWarp", "rows-per-warp", "int64_t", "0",
           "Query rows a warp holds: 16 or 32 (one or two m16 fragments; "
           "with two, each key and value fragment loaded from shared memory "
           "serves both, and a block covers 128 query rows); 0 chooses the "
           "whole tiling per attention, ignoring the other options">,
    Option<"keyRows", "key-rows", "int64_t", "64",
           "Key and value rows a tile: 32 or 64">,
    Option<"queryInShared", "query-in-shared", "bool", "false",
           "Keep the query tile in shared memory and load its fragments for "
           "every key tile instead of holding them in registers">,
    Option<"keySplits", "key-splits", "int64_t", "0",
           "Split over keys for few query rows: 0 chooses (about 4 blocks an "
           "SM of 132), 1 never splits, N >= 2 splits into N (at most one a "
           "key tile) wherever the sizes are static and the queries fit one "
           "block">,
    Option<"minBlocksPerSM", "min-blocks-per-sm", "int64_t", "0",
           "Blocks of the kernel an SM must hold at once (nvvm.minctasm on "
           "the launch, PTX .minnctapersm: ptxas limits the registers to "
           "match); 0 leaves the choice to ptxas">,
    Option<"warpgroupMma", "warpgroup-mma", "bool", "false",
           "Hopper's warpgroup products (wgmma, needs an sm_90a target): 16 "
           "rows a warp, the query in registers, key and value tiles read "
           "by descriptor; with rows-per-warp=0 for every attention, else "
           "where the options ask for 16 rows a warp and the query in "
           "registers">,
  ];
}

#endif // MAGI_GPU_PASSES
