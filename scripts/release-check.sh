#!/usr/bin/env bash
# Checks the portable release (scripts/release.sh) on a newer Linux than the
# one it was built on: unpacks the archive into a Debian 13 root (glibc 2.41;
# made with debootstrap unless ROOT is given), with nothing of LLVM in it and
# only the CUDA toolkit's ptxas and libdevice copied in, and there
#  - compiles the bundled example and the LLaMA bf16 fixture (when the shared
#    fixtures are beside the checkout): the artifacts must equal, byte for
#    byte but the tool's version in the manifest, those build/bin/magi-compile
#    writes here;
#  - imports the Python package and compiles through it;
#  - lists what the ELF files still need: only libcuda.so.1 (the driver's)
#    and libcublasLt.so.13 (CUDA's) may be missing.
#
#   scripts/release-check.sh ARCHIVE [ROOT]      (as root: chroot)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
archive="$(realpath "$1")"
root="${2:-$repo/build-release/trixie}"
cuda="${CUDA_PATH:-/usr/local/cuda}"
plain="$repo/build/bin/magi-compile"
fixture="$repo/../shared/fixtures/torch-export/llama-bf16/model.pt2"

if [[ ! -x "$root/bin/sh" ]]; then
  "$repo/scripts/setup.sh" --packages-only debootstrap
  debootstrap --variant=minbase --include=python3 trixie "$root" \
    http://deb.debian.org/debian > "$root.debootstrap.log"
fi
name="$(basename "$archive" .tar.gz)"
rm -rf "$root/opt/$name" "$root/opt/cuda" "$root/check"
tar -C "$root/opt" -xzf "$archive"
mkdir -p "$root/opt/cuda/bin" "$root/opt/cuda/nvvm" "$root/check/in" "$root/check/out" "$root/check/plain"
cp "$cuda/bin/ptxas" "$root/opt/cuda/bin/"
cp -r "$cuda/nvvm/libdevice" "$root/opt/cuda/nvvm/"
cp "$repo/examples/llama_decoder_layer.mlir" "$repo/examples/embedding/graph.mlir" "$root/check/in/"
[[ -f "$fixture" ]] && cp "$fixture" "$root/check/in/llama-bf16.pt2"

inside() { chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin CUDA_PATH=/opt/cuda "$@"; }
# The loader finds $ORIGIN through /proc/self/exe.
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
here="$(mktemp -d)"
trap 'rm -rf "$here"; umount "$root/proc" 2> /dev/null || true' EXIT
failed=0
compare() { # name, magi-compile arguments after the input
  local what="$1" input="$2"; shift 2
  inside "/opt/$name/bin/magi-compile" "/check/in/$input" -o "/check/out/$what" "$@" > /dev/null
  # Beside the release's, so that the weights' relative paths are the same.
  "$plain" "$root/check/in/$input" -o "$root/check/plain/$what" "$@" > /dev/null
  # The manifest names the tool's version, which differs between builds.
  if diff -r -I '"magi": "magi ' "$root/check/out/$what" "$root/check/plain/$what" \
      > "$here/$what.diff"; then
    echo "release-check: $what: the release's artifact equals the plain build's"
  else
    echo "release-check: $what: artifacts differ:"; head -20 "$here/$what.diff"; failed=1
  fi
}

echo "release-check: $(inside ldd --version | head -n 1)"
inside "/opt/$name/bin/magi-compile" --version
compare example llama_decoder_layer.mlir --no-weights --cache-mode=off
if [[ -f "$root/check/in/llama-bf16.pt2" ]]; then
  compare llama-bf16 llama-bf16.pt2 --cache-mode=off --compile-sizes=7,32
fi

inside python3 - "$name" <<'PY'
import sys
sys.path.insert(0, f"/opt/{sys.argv[1]}/python")
import magi
result = magi.compile_file("/check/in/graph.mlir", "/check/out/python", cache_mode="off")
print(f"release-check: python: magi {magi.__version__}, {result.pieces} pieces compiled")
PY

for elf in $(cd "$root" && find "opt/$name/bin" "opt/$name/lib" -type f); do
  missing=$(inside ldd "/$elf" 2>&1 | grep 'not found' | grep -vE 'libcuda\.so\.1|libcublasLt\.so\.13' || true)
  if [[ -n "$missing" ]]; then echo "release-check: /$elf: $missing"; failed=1; fi
done
((failed == 0)) && echo "release-check: all good"
exit "$failed"
