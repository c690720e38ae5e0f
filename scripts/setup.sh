#!/usr/bin/env bash
# Sets Magi up on a fresh Debian 12 machine: installs the Debian packages it
# needs (as root, or through sudo), configures into build/ and builds.
# Idempotent: a second run installs nothing and rebuilds only what changed.
# `setup.sh --packages-only [PACKAGE...]` installs the packages (and those
# named) and builds nothing.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MAGI_BUILD_DIR:-$repo/build}"

packages=(
  libmlir-22-dev mlir-22-tools llvm-22-dev lld-22   # LLVM/MLIR 22 (all three are needed)
  ninja-build cmake g++ git
  libabsl-dev libzip-dev zlib1g-dev                 # Abseil; zip archives (.pt2), CRC-32 and inflate
  nlohmann-json3-dev                                # JSON (torch.export's model.json)
  libgtest-dev libgmock-dev                         # unit tests
)

packages_only=false
if [[ "${1:-}" == --packages-only ]]; then
  packages_only=true
  packages+=("${@:2}")
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install packages" >&2; exit 1; }
    sudo_cmd=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

$packages_only && exit 0

llvm=/usr/lib/llvm-22
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -G Ninja -S "$repo" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DMLIR_DIR="$llvm/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$llvm/bin/lit" \
    -DCMAKE_EXE_LINKER_FLAGS="-B$llvm/bin/ -fuse-ld=lld" \
    -DCMAKE_SHARED_LINKER_FLAGS="-B$llvm/bin/ -fuse-ld=lld"
fi
cmake --build "$build"
