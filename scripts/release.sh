#!/usr/bin/env bash
# Builds the portable release: the tools, the C API libraries, the C headers
# and the Python package, with LLVM, MLIR, libstdc++ and zlib linked
# statically and every other shared library but glibc's and CUDA's bundled
# in lib/, into one relocatable archive that runs on Linux distributions with
# this glibc or a newer one.
#
#   scripts/release.sh [OUT_DIR]     (default: build-release/dist)
#
# Prints the archive's path, its size, and the start-up time of
# magi-compile --version. The build goes to build-release/ (about 20 minutes
# from scratch on 2 cores). See docs/embedding.md, "The portable release".
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MAGI_RELEASE_BUILD_DIR:-$repo/build-release}"
out="${1:-$build/dist}"
llvm=/usr/lib/llvm-22

# Static LLVM links zstd (a shared LLVM hides it).
"$repo/scripts/setup.sh" --packages-only libzstd-dev

version=$(sed -n 's/^project(magi VERSION \([0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")
name="magi-$version-linux-$(uname -m)"

if [[ ! -f "$build/build.ninja" ]]; then
  cmake -G Ninja -S "$repo" -B "$build" \
    -DMAGI_PORTABLE=ON \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DMLIR_DIR="$llvm/lib/cmake/mlir" \
    -DCMAKE_EXE_LINKER_FLAGS="-B$llvm/bin/ -fuse-ld=lld" \
    -DCMAKE_SHARED_LINKER_FLAGS="-B$llvm/bin/ -fuse-ld=lld"
fi
cmake --build "$build"

stage="$build/stage/$name"
rm -rf "$build/stage"
cmake --install "$build" --prefix "$stage" --strip > /dev/null
# What the release is for: tools, the C API and Python. The static C++
# libraries, their headers and the CMake package need the LLVM/MLIR they
# were built with: that is the installed package's job (cmake --install).
rm -rf "$stage/lib/cmake" "$stage/include/magi"
find "$stage/lib" -name '*.a' -delete

# Bundle every shared library the ELF files need, except the C library's
# own, which the system must provide (a newer glibc runs what an older one
# linked), and CUDA's driver and cuBLASLt, which come with the GPU's driver
# and CUDA 13. The tools' run path ($ORIGIN/../lib, as DT_RPATH) finds
# the bundled ones, and their own dependencies too.
system_libs='^(linux-vdso|ld-linux-x86-64|libc|libm|libpthread|libdl|librt|libutil|libresolv|libcuda|libcublasLt|libcublas)\.so'
mapfile -t elves < <(find "$stage/bin" "$stage/lib" -type f \
  -exec sh -c 'head -c 4 "$1" | grep -q ELF' _ {} \; -print)
for elf in "${elves[@]}"; do
  ldd "$elf" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r soname path; do
  [[ "$soname" =~ $system_libs ]] && continue
  [[ -e "$stage/lib/$soname" ]] || cp -L "$path" "$stage/lib/$soname"
done
# A machine without an NVIDIA driver has no libcuda.so.1; nothing else may
# be missing.
for elf in "${elves[@]}"; do
  missing=$(ldd "$elf" | grep 'not found' | grep -vE '^\s*libcuda\.so' || true)
  if [[ -n "$missing" ]]; then
    echo "release: $elf needs libraries that are not found:" >&2
    echo "$missing" >&2
    exit 1
  fi
done

cat > "$stage/README" <<TEXT
Magi $version, portable release for Linux $(uname -m) (glibc $(ldd --version | sed -n '1s/.* //p') or newer).

bin/      magi-opt magi-import magi-interp magi-cache magi-compile magi-run
lib/      libMagiCCompile.so, libMagiCRuntime.so (the C API), bundled libraries
include/  magi-c/ (the C API headers)
python/   the magi package: PYTHONPATH=<this dir>/python

Compiling needs the CUDA 13 toolkit (ptxas, libdevice): /usr/local/cuda,
or CUDA_PATH. Running needs an NVIDIA driver and cuBLASLt 13 (the toolkit's,
or LD_LIBRARY_PATH). Documentation: docs/ of the Magi repository.
TEXT

mkdir -p "$out"
archive="$out/$name.tar.gz"
tar -C "$build/stage" -czf "$archive" "$name"
echo "release: $archive"
echo "release: $(du -h "$archive" | cut -f1) packed, $(du -sh "$stage" | cut -f1) unpacked"
start=$(date +%s.%N)
for _ in 1 2 3 4 5 6 7 8 9 10; do "$stage/bin/magi-compile" --version > /dev/null; done
end=$(date +%s.%N)
echo "release: magi-compile --version takes $(awk "BEGIN {printf \"%.1f\", ($end - $start) * 100}") ms (mean of 10)"
