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

def ChooseKernelConfig : Pass<"magi-choose-kernel-config", "mlir::func::FuncOp"> {
  let summary = "Chooses each future kernel's launch configuration";
  let description = [{
    Runs on a bufferized host function whose linalg ops became loops
    (`convert-linalg-to-parallel-loops`). Every top-level `scf.parallel` will
    be one kernel with one thread per iteration of its (linearized) loops;
    every other top-level op that touches memory (`scf.for`, `memref.load`,
    `memref.store`, ...) will run in a single-thread kernel. This pass
    records the choice on each such op as
    `magi.kernel_config = {block_size = N : i64, strategy = "..."}`:
    - `elementwise`: no loop inside; `block-size` threads per block;
    - `serial-reduction`: each thread runs an inner `scf.for` (a reduction
      or a matrix product); `reduction-block-size` threads per block;
    - `single-thread`: one thread (block size 1).
    When the iteration count is static and smaller than the block size, the
    block shrinks to that count rounded up to a warp (32). Block sizes must
    be between 1 and 1024, the CUDA limit.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block for elementwise loops">,
    Option<"reductionBlockSize", "reduction-block-size", "int64_t", "128",
           "Threads per block for loops with a serial inner loop">,
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
    induction variables are delinearized, the last varying fastest) when
    `id < n`. A run of consecutive `single-thread` ops becomes one
    `gpu.launch` of one thread. Each launch is named
    `<function>_kernels::k<N>` for outlining. A loop without a
    configuration, a `scf.parallel` with reductions, a block size outside
    1..1024 or a value computed in a kernel and used by the host is an error.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

#endif // MAGI_GPU_PASSES
