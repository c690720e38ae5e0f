/*===- magi-c/Compile.h - Magi's compiler, as C calls -------------*- C -*-===*\
|*                                                                            *|
|* Compiles a captured graph (a torch.export archive or a .mlir file) into   *|
|* the artifact directory magi-run and magi-c/Runtime.h load. Options are    *|
|* set by magi-compile's flag names; diagnostics come back as text.          *|
|*                                                                            *|
|* Stability: a function, once in a released version of this header, keeps *|
|* its signature and meaning; new ones raise MAGI_C_API_VERSION. Every      *|
|* object is opaque and freed by its own destroy function.                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef MAGI_C_COMPILE_H
#define MAGI_C_COMPILE_H

#include "magi-c/Version.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct MagiCompileOptions MagiCompileOptions;
typedef struct MagiCompileResult MagiCompileResult;

/* Options with magi-compile's defaults (the cache at $MAGI_CACHE_DIR, else
 * ~/.cache/magi, read and written). Never NULL. */
MAGI_C_EXPORT MagiCompileOptions *magiCompileOptionsCreate(void);
MAGI_C_EXPORT void magiCompileOptionsDestroy(MagiCompileOptions *options);

/* Sets one option by its magi-compile flag name without the dashes
 * ("target", "compile-sizes", "no-cubin", "cache-mode", ...; "input" for the
 * graph, "o" for the artifact directory), from its text as on the command
 * line ("1,16,512"; "true"/"false" for flags). Returns 0, or nonzero with a
 * message in *error (when error is not NULL; free it with magiStringFree). */
MAGI_C_EXPORT int magiCompileOptionsSet(MagiCompileOptions *options,
                                        const char *name, const char *value,
                                        char **error);

/* The option names magiCompileOptionsSet knows, "name1,name2,...". Free
 * with magiStringFree. */
MAGI_C_EXPORT char *magiCompileOptionNames(void);

/* Compiles. Never NULL: ask the result whether it succeeded. Thread-safe
 * for distinct options objects (each call has its own MLIR context). */
MAGI_C_EXPORT MagiCompileResult *
magiCompile(const MagiCompileOptions *options);
MAGI_C_EXPORT void magiCompileResultDestroy(MagiCompileResult *result);

/* 1 when the artifact was written, else 0. */
MAGI_C_EXPORT int magiCompileResultSucceeded(const MagiCompileResult *result);
/* Why it failed ("" on success). Owned by the result. */
MAGI_C_EXPORT const char *
magiCompileResultError(const MagiCompileResult *result);
/* Every diagnostic printed while compiling (errors and warnings at op
 * locations, cache warnings), as magi-compile prints them. Owned by the
 * result. */
MAGI_C_EXPORT const char *
magiCompileResultDiagnostics(const MagiCompileResult *result);
/* The pieces of the artifact, and of them how many came from the cache. */
MAGI_C_EXPORT size_t magiCompileResultNumPieces(const MagiCompileResult *result);
MAGI_C_EXPORT size_t
magiCompileResultNumCachedPieces(const MagiCompileResult *result);
/* Wall time of the compile, in seconds. */
MAGI_C_EXPORT double magiCompileResultSeconds(const MagiCompileResult *result);

#ifdef __cplusplus
}
#endif

#endif /* MAGI_C_COMPILE_H */
