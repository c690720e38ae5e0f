#!/usr/bin/env bash
# Sets Magi up (scripts/setup.sh) and runs every test through ctest: the lit
# suite (IR behaviour), the GoogleTest unit tests, and the docs check; in CI
# (CI=true) or with MAGI_SANITIZE=1 also the sanitizer build's run of them.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$repo/scripts/setup.sh"
(cd "${MAGI_BUILD_DIR:-$repo/build}" && ctest --output-on-failure -j2 "$@")
# CI (CI=true), or MAGI_SANITIZE=1: the same tests again, built with
# AddressSanitizer and UndefinedBehaviorSanitizer (scripts/test-sanitized.sh).
if [[ "${MAGI_SANITIZE:-}" == 1 || "${CI:-}" == true ]]; then
  "$repo/scripts/test-sanitized.sh" "$@"
fi
