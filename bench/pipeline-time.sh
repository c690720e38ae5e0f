#!/usr/bin/env bash
# Benchmark (not a test): compile time of Magi's pipeline up to post-grad on
# each shared fixture: the pass-manager time that --mlir-timing reports
# (median of N runs, default 10) and the wall time of the whole magi-opt
# process (parse + passes + print). Prints a table.
#   bench/pipeline-time.sh [N]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
runs="${1:-10}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT


printf '%-12s %14s %12s %8s\n' fixture passes_ms wall_ms pieces
for dir in "$fixtures"/*/; do
  name="$(basename "$dir")"
  "$bin/magi-import" "$dir/model.pt2" -o "$work/$name.mlir"
  : >"$work/passes" ; : >"$work/wall"
  for ((i = 0; i < runs; i++)); do
    start=$(date +%s%N)
    "$bin/magi-opt" "$work/$name.mlir" --magi-compile-to=post-grad \
      --mlir-timing -o "$work/out.mlir" 2>"$work/timing"
    end=$(date +%s%N)
    echo $(((end - start) / 1000)) >>"$work/wall"
    # "Total Execution Time: 0.0123 seconds" -> microseconds
    awk '/Total Execution Time/ {printf "%d\n", $4 * 1e6}' "$work/timing" >>"$work/passes"
  done
  pieces=$(grep -c 'magi.piece_index' "$work/out.mlir")
  printf '%-12s %14.2f %12.2f %8d\n' "$name" \
    "$(median <"$work/passes" | awk '{print $1/1000}')" \
    "$(median <"$work/wall" | awk '{print $1/1000}')" "$pieces"
done
