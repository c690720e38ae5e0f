//===- Version.cpp - magi-c/Version.h -------------------------------------===//
//
// Compiled into each C API library (compile and runtime), which may be
// loaded alone; both give the same answers.
//
//===----------------------------------------------------------------------===//

#include "magi-c/Version.h"

#include <cstdlib>

extern "C" {

int magiCApiVersion(void) { return MAGI_C_API_VERSION; }

// MAGI_VERSION: the project version ("0.1.0"), set by CMake.
const char *magiVersionString(void) { return MAGI_VERSION; }

void magiStringFree(char *text) { std::free(text); }

} // extern "C"
