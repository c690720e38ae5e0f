/*===- magi-c/Runtime.h - Run a compiled artifact on a GPU --------*- C -*-===*\
|*                                                                            *|
|* Loads an artifact written by magi-compile (or magiCompile) onto an NVIDIA *|
|* GPU, binds inputs by device pointer and shape, runs, and hands back the  *|
|* outputs. Needs the CUDA driver and cuBLASLt; nothing of MLIR. The same  *|
|* checks as magi-run: inputs against the graph's dtypes, shapes and symbol *|
|* ranges, weights against their CRCs.                                       *|
|*                                                                            *|
|* Functions returning int return 0 on success; on failure nonzero, and     *|
|* magiRuntimeLastError(runtime) says why. Not thread-safe per runtime.     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef MAGI_C_RUNTIME_H
#define MAGI_C_RUNTIME_H

#include "magi-c/Version.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct MagiRuntime MagiRuntime;

/* Element types, as the artifact names them. */
typedef enum MagiDtype {
  MAGI_DTYPE_F32 = 0,
  MAGI_DTYPE_F16 = 1,
  MAGI_DTYPE_BF16 = 2,
  MAGI_DTYPE_F64 = 3,
  MAGI_DTYPE_I64 = 4,
  MAGI_DTYPE_I32 = 5,
  MAGI_DTYPE_I8 = 6,
  MAGI_DTYPE_U8 = 7,
  MAGI_DTYPE_BOOL = 8,
} MagiDtype;

/* Reads DIR/manifest.json and uploads the weights to device `ordinal`
 * (weights_from: NULL for the files the artifact names, else a
 * torch.export archive of the same model to take them from). Returns NULL
 * on failure with the reason in *error (when error is not NULL; free it
 * with magiStringFree). Uses the device's primary context: device pointers
 * of other users of that context (PyTorch's) are valid here. */
MAGI_C_EXPORT MagiRuntime *magiRuntimeLoad(const char *artifact_dir,
                                           int ordinal,
                                           const char *weights_from,
                                           char **error);
MAGI_C_EXPORT void magiRuntimeDestroy(MagiRuntime *runtime);

/* The reason of the last failure on this runtime ("" if none). Owned by
 * the runtime, valid until its next call. */
MAGI_C_EXPORT const char *magiRuntimeLastError(const MagiRuntime *runtime);

/* The graph's user inputs (weights excluded) and outputs (the inputs the
 * graph mutates, a KV cache say, are written back by each run, not
 * returned). */
MAGI_C_EXPORT size_t magiRuntimeNumInputs(const MagiRuntime *runtime);
MAGI_C_EXPORT size_t magiRuntimeNumOutputs(const MagiRuntime *runtime);
/* Input i's dtype and rank, as the graph declares them. */
MAGI_C_EXPORT int magiRuntimeInputSignature(MagiRuntime *runtime, size_t i,
                                            MagiDtype *dtype, size_t *rank);

/* Binds user input i to `rank` sizes at `device_ptr` (dense, row-major),
 * not copied: the memory must stay valid and unchanged until the run that
 * reads it has returned. */
MAGI_C_EXPORT int magiRuntimeSetInput(MagiRuntime *runtime, size_t i,
                                      uint64_t device_ptr, MagiDtype dtype,
                                      const int64_t *sizes, size_t rank);

/* Runs the graph on the inputs bound (all must be), then waits for the
 * GPU: on return the outputs are written. The work is ordered after
 * whatever the caller finished before the call, not after work still
 * queued on the caller's own streams: synchronize those first. */
MAGI_C_EXPORT int magiRuntimeRun(MagiRuntime *runtime);

/* Since C API version 2: magiRuntimeRun ordered on the caller's CUDA stream
 * `stream` (a CUstream; 0 is the legacy default stream) instead of waiting:
 * the run starts on the GPU after the work queued on `stream` before the
 * call, and work queued on `stream` after the call starts after the run.
 * Returns without waiting for the GPU (errors the GPU meets surface in a
 * later call). The outputs stay valid for work queued on `stream` until
 * the next run (magiRuntimeCopyOutputOnStream). */
MAGI_C_EXPORT int magiRuntimeRunOnStream(MagiRuntime *runtime, uint64_t stream);

/* Output i of the last run: its dtype, rank and sizes (`sizes` holds
 * `max_rank` entries), and where it lives on the device. Valid until the
 * next run or destroy: copy what must last (magiRuntimeCopyOutput). */
MAGI_C_EXPORT int magiRuntimeOutput(MagiRuntime *runtime, size_t i,
                                    MagiDtype *dtype, size_t *rank,
                                    int64_t *sizes, size_t max_rank,
                                    uint64_t *device_ptr);
/* Copies output i of the last run to `dst`, a device pointer
 * (to_host = 0) or host memory (to_host = 1) of at least `bytes` bytes. */
MAGI_C_EXPORT int magiRuntimeCopyOutput(MagiRuntime *runtime, size_t i,
                                        void *dst, size_t bytes, int to_host);
/* Since C API version 2: queues the copy of output i of the last run to the
 * device pointer `dst` (at least `bytes` bytes) on the caller's `stream`,
 * without waiting; after magiRuntimeRunOnStream on the same stream. */
MAGI_C_EXPORT int magiRuntimeCopyOutputOnStream(MagiRuntime *runtime, size_t i,
                                                uint64_t dst, size_t bytes,
                                                uint64_t stream);

/* Since C API version 3: with on != 0, from the next run on, a size of the
 * graph's symbol that no variant is specialized for runs as the next larger
 * compile size: the inputs padded with zeros along the symbol's dimension
 * (into buffers of the runtime's own), the outputs cut back. Only right for
 * a graph whose outputs at a position depend on no later position (a causal
 * language model; docs/runtime.md). Fails, saying why, when the artifact
 * cannot be padded (no compile sizes, no output shapes, a size that is
 * another expression of the symbol). */
MAGI_C_EXPORT int magiRuntimeSetPadToCompileSizes(MagiRuntime *runtime, int on);

#ifdef __cplusplus
}
#endif

#endif /* MAGI_C_RUNTIME_H */
