/* Compiles a graph into an artifact through Magi's C API (magi-c/Compile.h),
 * as a program in another language would through its foreign-function
 * interface.
 *
 *   compile-c GRAPH.mlir OUT_DIR [NAME=VALUE ...]
 *
 * NAME=VALUE are magi-compile's options without the dashes. Prints the
 * pieces compiled; on failure the error and the diagnostics. */
#include "magi-c/Compile.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: compile-c GRAPH.mlir OUT_DIR [NAME=VALUE ...]\n");
    return 2;
  }
  if (magiCApiVersion() < MAGI_C_API_VERSION) {
    fprintf(stderr, "compile-c: the Magi library is older (C API %d) than its header (%d)\n",
            magiCApiVersion(), MAGI_C_API_VERSION);
    return 1;
  }
  MagiCompileOptions *options = magiCompileOptionsCreate();
  char *error = NULL;
  int status = magiCompileOptionsSet(options, "input", argv[1], &error) ||
               magiCompileOptionsSet(options, "o", argv[2], &error);
  for (int i = 3; i < argc && !status; ++i) {
    char name[128];
    const char *eq = strchr(argv[i], '=');
    size_t length = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
    if (length >= sizeof(name))
      length = sizeof(name) - 1;
    memcpy(name, argv[i], length);
    name[length] = '\0';
    status = magiCompileOptionsSet(options, name, eq ? eq + 1 : "", &error);
  }
  if (status) {
    fprintf(stderr, "compile-c: %s\n", error);
    magiStringFree(error);
    magiCompileOptionsDestroy(options);
    return 1;
  }
  MagiCompileResult *result = magiCompile(options);
  int ok = magiCompileResultSucceeded(result);
  if (ok)
    printf("magi %s (C API %d): %zu pieces compiled into %s\n", magiVersionString(),
           magiCApiVersion(), magiCompileResultNumPieces(result), argv[2]);
  else
    fprintf(stderr, "compile-c: %s\n%s", magiCompileResultError(result),
            magiCompileResultDiagnostics(result));
  magiCompileResultDestroy(result);
  magiCompileOptionsDestroy(options);
  return ok ? 0 : 1;
}
