#!/usr/bin/env bash
# Benchmark (not a test): wall time of `magi-import` on each shared fixture,
# median of N runs (default 10), including process start. Prints a table.
#   bench/import-time.sh [N]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tool="${MAGI_BUILD_DIR:-$repo/build}/bin/magi-import"
fixtures="$repo/../shared/fixtures/torch-export"
runs="${1:-10}"
[[ -x "$tool" ]] || { echo "build first: scripts/setup.sh" >&2; exit 1; }

printf '%-12s %10s %10s %12s\n' fixture median_ms min_ms ir_lines
for dir in "$fixtures"/*/; do
  name="$(basename "$dir")"
  times=()
  for ((i = 0; i < runs; i++)); do
    start=$(date +%s%N)
    "$tool" "$dir/model.pt2" -o /dev/null
    end=$(date +%s%N)
    times+=($(((end - start) / 1000)))
  done
  sorted=($(printf '%s\n' "${times[@]}" | sort -n))
  median=${sorted[$((runs / 2))]}
  lines=$("$tool" "$dir/model.pt2" | wc -l)
  printf '%-12s %10.2f %10.2f %12d\n' "$name" "$(bc -l <<<"$median/1000")" \
    "$(bc -l <<<"${sorted[0]}/1000")" "$lines"
done
