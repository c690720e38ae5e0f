/*===- magi-c/Version.h - Magi's C API: version and strings -------*- C -*-===*\
|*                                                                            *|
|* MAGI_C_API_VERSION rises by one with each release that adds functions to  *|
|* the C API (magi-c/Compile.h, magi-c/Runtime.h); nothing released is       *|
|* removed or changed. magiCApiVersion() gives the version of the library    *|
|* loaded, which may be newer than the header compiled against.              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef MAGI_C_VERSION_H
#define MAGI_C_VERSION_H

#define MAGI_C_API_VERSION 3

#if defined(__GNUC__)
#define MAGI_C_EXPORT __attribute__((visibility("default")))
#else
#define MAGI_C_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The C API version of the library loaded. */
MAGI_C_EXPORT int magiCApiVersion(void);
/* Magi's version, "0.1.0": what `magi-compile --version` prints after
 * "magi". Static storage. */
MAGI_C_EXPORT const char *magiVersionString(void);
/* Frees a string the C API returned for the caller to own. */
MAGI_C_EXPORT void magiStringFree(char *text);

#ifdef __cplusplus
}
#endif

#endif /* MAGI_C_VERSION_H */
