#!/usr/bin/env bash
# Benchmark (not a test): magi-compile wall time per shared fixture, on this
# machine: cold (an empty compile cache: import, pipeline, lowering, NVPTX,
# ptxas for every piece), warm (the whole artifact from the cache), and the time of a
# process that only starts and prints its version (the floor a warm compile
# pays anyway). Medians of N runs (default 3 cold, 5 warm).
#   bench/compile-time.sh [N]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
runs="${1:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

wall_ms() { # runs "$@", prints its wall time in ms
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}

start_ms=$(for ((i = 0; i < 5; i++)); do wall_ms "$bin/magi-compile" --version; done | median)
printf '%-12s %8s %8s %8s %7s %8s\n' fixture cold_ms warm_ms start_ms pieces kernels
for dir in "$fixtures"/*/; do
  name="$(basename "$dir")"
  cold=$(for ((i = 0; i < runs; i++)); do
    rm -rf "$work/cache" "$work/out"
    wall_ms "$bin/magi-compile" "$dir/model.pt2" -o "$work/out" --cache-dir="$work/cache"
  done | median)
  warm=$(for ((i = 0; i < runs + 2; i++)); do
    rm -rf "$work/out"
    wall_ms "$bin/magi-compile" "$dir/model.pt2" -o "$work/out" --cache-dir="$work/cache"
  done | median)
  summary="$("$bin/magi-compile" "$dir/model.pt2" -o "$work/out" --cache-dir="$work/cache" | tail -1)"
  pieces=$(echo "$summary" | sed -n 's/.*: \([0-9]*\) pieces.*/\1/p')
  kernels=$(echo "$summary" | sed -n 's/.* \([0-9]*\) kernels.*/\1/p')
  printf '%-12s %8s %8s %8s %7s %8s\n' "$name" "$cold" "$warm" "$start_ms" "$pieces" "$kernels"
done
