//===- Compile.cpp - magi-c/Compile.h over magi::compileModel -------------===//

#include "magi-c/Compile.h"
#include "magi/Compile/CompileModel.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

struct MagiCompileOptions {
  magi::CompileOptions options;
};

struct MagiCompileResult {
  bool succeeded = false;
  std::string error;
  std::string diagnostics;
  size_t pieces = 0;
  size_t cachedPieces = 0;
  double seconds = 0;
};

static char *copyString(const std::string &text) {
  char *copy = static_cast<char *>(std::malloc(text.size() + 1));
  if (copy)
    std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

extern "C" {

MagiCompileOptions *magiCompileOptionsCreate(void) {
  auto *options = new MagiCompileOptions();
  options->options.programName = "magi";
  return options;
}

void magiCompileOptionsDestroy(MagiCompileOptions *options) { delete options; }

int magiCompileOptionsSet(MagiCompileOptions *options, const char *name, const char *value,
                          char **error) {
  if (error)
    *error = nullptr;
  std::string message;
  if (!options || !name)
    message = "no options or no name given";
  else if (llvm::Error e =
               magi::setCompileOption(options->options, name, value ? value : ""))
    message = llvm::toString(std::move(e));
  if (message.empty())
    return 0;
  if (error)
    *error = copyString(message);
  return 1;
}

char *magiCompileOptionNames(void) {
  std::string names;
  for (const std::string &name : magi::compileOptionNames())
    names += (names.empty() ? "" : ",") + name;
  return copyString(names);
}

MagiCompileResult *magiCompile(const MagiCompileOptions *options) {
  auto *result = new MagiCompileResult();
  if (!options) {
    result->error = "no options given";
    return result;
  }
  magi::CompileOptions compile = options->options;
  llvm::raw_string_ostream diagnostics(result->diagnostics);
  compile.diagnostics = &diagnostics;
  compile.progress = nullptr;
  compile.explainCache = nullptr;
  llvm::Expected<magi::CompileResult> compiled = magi::compileModel(compile);
  diagnostics.flush();
  if (!compiled) {
    result->error = llvm::toString(compiled.takeError());
    return result;
  }
  result->succeeded = true;
  result->pieces = compiled->pieces.size();
  for (const magi::PieceReport &piece : compiled->pieces)
    result->cachedPieces += piece.source == "hit";
  result->seconds = compiled->seconds;
  return result;
}

void magiCompileResultDestroy(MagiCompileResult *result) { delete result; }

int magiCompileResultSucceeded(const MagiCompileResult *result) {
  return result && result->succeeded;
}

const char *magiCompileResultError(const MagiCompileResult *result) {
  return result ? result->error.c_str() : "no result";
}

const char *magiCompileResultDiagnostics(const MagiCompileResult *result) {
  return result ? result->diagnostics.c_str() : "";
}

size_t magiCompileResultNumPieces(const MagiCompileResult *result) {
  return result ? result->pieces : 0;
}

size_t magiCompileResultNumCachedPieces(const MagiCompileResult *result) {
  return result ? result->cachedPieces : 0;
}

double magiCompileResultSeconds(const MagiCompileResult *result) {
  return result ? result->seconds : 0;
}

} // extern "C"
