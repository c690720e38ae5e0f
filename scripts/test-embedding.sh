#!/usr/bin/env bash
# Installs the build in BUILD_DIR into a temporary prefix, then configures,
# builds and tests the out-of-tree project examples/embedding against that
# prefix only (find_package(Magi)): what a compiler embedding Magi does.
# ctest runs it as `embedding-example`.
#
#   scripts/test-embedding.sh [BUILD_DIR]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$repo/build}" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/magi-embedding.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake "${generator[@]}" -S "$repo/examples/embedding" -B "$work/build" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/configure.log" ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build"
(cd "$work/build" && ctest --output-on-failure)
