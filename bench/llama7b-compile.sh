#!/usr/bin/env bash
# Compiles the 7B-shaped archives (../shared/fixtures/llama7b/: 1 layer and
# the whole 32-layer causal LM, zero weights) cold and warm through a fresh
# compile cache and prints, per archive: wall time, peak RSS, artifact size
# and cache growth. The weights are referenced, never copied, so none of
# these grows with the 13.5 GB of weights the 32-layer model describes.
#   bench/llama7b-compile.sh [RUNS]   (cold and warm: median of RUNS, default 5)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
runs="${1:-5}"
models="$repo/../shared/fixtures/llama7b"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# wall seconds and peak RSS (MB) of one command, as "S MB".
measure() {
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t = time.perf_counter()
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
wall = time.perf_counter() - t
print(f"{wall:.3f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024}")
PY
}
size_mb() { du -sm "$1" | cut -f1; }

start="$(for _ in $(seq "$runs"); do measure "$bin/magi-compile" --version | cut -d' ' -f1; done | median)"
echo "process start (magi-compile --version): $start s"
echo
echo "| archive | cold s (median of $runs) | cold peak RSS MB | warm s (median of $runs) | warm peak RSS MB | artifact MB | cache growth MB |"
echo "|---|---|---|---|---|---|---|"
for name in llama7b-1l-zero llama7b-32l-lm-zero; do
  cache="$work/cache-$name"
  out="$work/out-$name"
  # Cold: each run into an empty cache (the last one's is kept for the
  # warm runs).
  cold="$(for i in $(seq "$runs"); do
            rm -rf "$cache"
            measure "$bin/magi-compile" "$models/$name.pt2" -o "$out" --cache-dir="$cache" --quiet
          done | tee "$work/cold" | cut -d' ' -f1 | median)"
  cold_rss="$(cut -d' ' -f2 "$work/cold" | sort -n | tail -1)"
  warm_rss=0
  warm="$(for _ in $(seq "$runs"); do
            measure "$bin/magi-compile" "$models/$name.pt2" -o "$out" --cache-dir="$cache" --quiet
          done | tee "$work/warm" | cut -d' ' -f1 | median)"
  warm_rss="$(cut -d' ' -f2 "$work/warm" | sort -n | tail -1)"
  echo "| $name | $cold | $cold_rss | $warm | $warm_rss | $(size_mb "$out") | $(size_mb "$cache") |"
done
