#!/usr/bin/env bash
# Builds Magi with AddressSanitizer and UndefinedBehaviorSanitizer into
# build-sanitized/ (set MAGI_SANITIZED_BUILD_DIR to move it) and runs every
# test there through ctest, stopping at the first report (halt_on_error).
# scripts/test.sh runs it after the normal tests when MAGI_SANITIZE=1 (CI
# does). Needs what scripts/setup.sh installs.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MAGI_SANITIZED_BUILD_DIR:-$repo/build-sanitized}"
llvm=/usr/lib/llvm-22
# vptr checks need every library built with them (libMLIR.so is not).
flags="-fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -G Ninja -S "$repo" -B "$build" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DMLIR_DIR="$llvm/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$llvm/bin/lit" \
    -DCMAKE_EXE_LINKER_FLAGS="-B$llvm/bin/ -fuse-ld=lld $flags" \
    -DCMAKE_SHARED_LINKER_FLAGS="-B$llvm/bin/ -fuse-ld=lld $flags"
fi
cmake --build "$build"
# Leaks are not checked: MLIR's and LLVM's registries are process-lifetime
# allocations by design.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=0:abort_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
cd "$build"
ctest --output-on-failure -j2 "$@"
