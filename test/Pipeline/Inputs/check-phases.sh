#!/usr/bin/env bash
# Runs a fixture's graph through every phase of the pipeline and interprets
# the IR after each one. f32 graphs are compared with the imported graph's
# own outputs at the given tolerance (the passes must not change numerics);
# bf16 graphs, where fusions legitimately round less often, with PyTorch's
# reference at the fixture bar.
#   check-phases.sh MAGI_IMPORT MAGI_OPT MAGI_INTERP FIXTURE_DIR WORK_DIR TOLERANCE
set -euo pipefail
import=$1 opt=$2 interp=$3 fixture=$4 work=$5 tolerance=$6
mkdir -p "$work"
archive="$fixture/model.pt2"
"$import" "$archive" -o "$work/import.mlir"

if [[ "$(basename "$fixture")" == *-f32 ]]; then
  # Reference: the imported graph's outputs for case0's inputs.
  "$interp" "$work/import.mlir" --weights "$archive" --fixture "$fixture/case0" \
    --save-outputs "$work/import-out" >/dev/null
  for f in "$fixture"/case0_in*; do cp -f "$f" "$work/ref_${f##*/case0_}"; done
  for f in "$work"/import-out/out*; do cp -f "$f" "$work/ref_${f##*/}"; done
  prefix="$work/ref"
  tol=(--tolerance="$tolerance")
else
  prefix="$fixture/case0"
  tol=()
fi

for phase in import full-graph split post-grad; do
  "$opt" "$work/import.mlir" --magi-compile-to="$phase" -o "$work/after-$phase.mlir"
  "$interp" "$work/after-$phase.mlir" --weights "$archive" --fixture "$prefix" "${tol[@]}" |
    sed "s/^/$phase: /"
done
