#!/usr/bin/env bash
# Sets Magi up (scripts/setup.sh) and runs every test through ctest: the lit
# suite (IR behaviour), the GoogleTest unit tests, and the docs check.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$repo/scripts/setup.sh"
cd "${MAGI_BUILD_DIR:-$repo/build}"
ctest --output-on-failure -j2 "$@"
