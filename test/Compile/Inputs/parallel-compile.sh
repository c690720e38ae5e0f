#!/bin/sh
# Starts N magi-compile processes on one graph and one cache at once, waits for
# all, and prints one line per process that failed.
#   parallel-compile.sh MAGI_COMPILE N GRAPH OUTDIR CACHEDIR [ARGS...]
tool="$1"; n="$2"; graph="$3"; out="$4"; cache="$5"
shift 5
i=1
while [ "$i" -le "$n" ]; do
  "$tool" "$graph" -o "$out/out$i" --cache-dir="$cache" --quiet "$@" \
    >"$out/log$i" 2>&1 || echo "process $i failed" &
  i=$((i + 1))
done
wait
echo "all $n processes done"
