#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root:
#   scripts/gpu-check.sh [ARTIFACTS [FIXTURES]]
# Builds magi-run standalone (build-run/), runs the self-test artifact
# (test/Runtime/selftest), then every artifact ARTIFACTS/<fixture>/ (default
# gpu-artifacts/) on FIXTURES/<fixture>/case0 and case1 (default
# shared/fixtures/torch-export): each case with --runs 3 (its outputs come
# from a CUDA graph replay), case0 also with --cuda-graphs=off and with
# --cuda-graphs=full --runs 3, and times case0 with --repeat 20 with CUDA
# graphs off, on (piecewise) and full; compute-sanitizer on some fixtures,
# and on the 7B-shaped layer when .gpu/llama7b-1l (or $LLAMA_1L) exists:
# memcheck at T=16, 512, 99 and racecheck at 16, several minutes in all
# (LLAMA_1L=none leaves them out). Keeps going after a
# failure, prints a markdown table at the end, exits non-zero if anything
# failed. The full log also goes to $OUT/gpu-check.log when OUT is set.
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
artifacts="${1:-gpu-artifacts}"
fixtures="${2:-shared/fixtures/torch-export}"

if [[ -n "${OUT:-}" ]]; then
  mkdir -p "$OUT"
  exec > >(tee "$OUT/gpu-check.log") 2>&1
fi

failed=0
rows=()
run_limit=600 # seconds per magi-run call

echo "== building magi-run (standalone) into build-run/"
if ! { cmake -S tools/magi-run -B build-run -G Ninja -DCMAKE_BUILD_TYPE=Release &&
       ninja -C build-run; }; then
  echo "gpu-check: building magi-run failed"
  exit 1
fi
magi_run="$repo/build-run/magi-run"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true

# Runs magi-run with the given arguments, prints its output, and leaves the
# rel_err values (joined by " / ") in $rel, the exit status in $status and
# the output in $output.
run_case() {
  output="$(timeout "$run_limit" "$magi_run" "$@" 2>&1)"
  status=$?
  echo "\$ magi-run $*"
  echo "$output"
  echo "(exit status $status)"
  rel="$(echo "$output" | grep -o 'rel_err=[^ ]*' | sed 's/rel_err=//' | paste -sd/ - | sed 's#/# / #g')"
  [[ -z "$rel" ]] && rel="error"
}

# Runs --repeat 20 and leaves the median in $median and "R/S" (steps
# replayed from CUDA graphs / steps) in $replayed.
time_case() {
  local output
  output="$(timeout "$run_limit" "$magi_run" "$@" --repeat 20 2>&1)"
  local timing_status=$?
  echo "\$ magi-run $* --repeat 20"
  echo "$output"
  median="$(echo "$output" | sed -n 's/^time: median \([0-9.]*\) ms.*/\1/p')"
  replayed="$(echo "$output" | sed -n 's/^time: .*(\([0-9]*\) of \([0-9]*\) steps replayed.*/\1\/\2/p')"
  if [[ $timing_status -ne 0 || -z "$median" ]]; then
    median="error"
    return 1
  fi
}

# check_artifact NAME DIR FIXTURE_DIR [extra magi-run options for case0]
# The rel_err columns are those of the third run (a CUDA graph replay for
# compute pieces); case0 must also pass without CUDA graphs.
check_artifact() {
  local name="$1" dir="$2" fixture="$3"
  shift 3
  local ok=OK rel0 rel1 eager_ms graphs_ms full_ms
  echo
  echo "== $name"
  run_case "$dir" --fixture "$fixture/case0" --cuda-graphs=off "$@"
  [[ $status -eq 0 ]] || ok=FAIL
  run_case "$dir" --fixture "$fixture/case0" --runs 3 "$@"
  rel0="$rel"; [[ $status -eq 0 ]] || ok=FAIL
  if [[ -e "$fixture/case1_in0.json" || -e "$fixture/case1_out0.json" ]]; then
    run_case "$dir" --fixture "$fixture/case1" --runs 3
    rel1="$rel"; [[ $status -eq 0 ]] || ok=FAIL
  else
    rel1="(no case1)"
  fi
  # The whole run as one graph: run 3 is its replay. A graph that reads
  # values on the host (nonzero, .item(), a while_loop's condition) cannot
  # be one graph: refused.
  local reads=
  grep -q '"read": {' "$dir/manifest.json" && reads=1
  run_case "$dir" --fixture "$fixture/case0" --runs 3 --cuda-graphs=full "$@"
  if [[ -n "$reads" ]]; then
    [[ $status -ne 0 && "$output" == *"cannot hold the wait"* ]] || ok=FAIL
  else
    [[ $status -eq 0 ]] || ok=FAIL
  fi
  time_case "$dir" --fixture "$fixture/case0" --cuda-graphs=off || ok=FAIL
  eager_ms="$median"
  time_case "$dir" --fixture "$fixture/case0" --cuda-graphs=on || ok=FAIL
  graphs_ms="$median"
  [[ -n "$replayed" ]] && graphs_ms="$graphs_ms ($replayed steps replayed)"
  if [[ -n "$reads" ]]; then
    full_ms="refused (reads on the host)"
  else
    time_case "$dir" --fixture "$fixture/case0" --cuda-graphs=full || ok=FAIL
    full_ms="$median"
  fi
  [[ $ok == OK ]] || failed=1
  rows+=("| $name | $rel0 | $rel1 | $ok | $eager_ms | $graphs_ms | $full_ms |")
}

selftest=test/Runtime/selftest
check_artifact selftest "$selftest/artifact" "$selftest/fixture" --verbose

# Six gemms: f32/bf16/f16, bias, broadcast and batched b, a transposed,
# c column-major, an operand that is not 16-byte aligned, bf16 and f16
# into an f32 c (c_dtype).
check_artifact gemm test/Runtime/gemm/artifact test/Runtime/gemm/fixture --verbose

# With the same inputs, run 1 is eager, run 2 captures, run 3 replays.
echo
echo "== selftest: steps are captured, then replayed"
run_case "$selftest/artifact" --fixture "$selftest/fixture/case0" --runs 3 --verbose
if [[ $status -eq 0 ]] && grep -q "variant [0-9]*: captured" <<<"$output" &&
   grep -q "variant [0-9]*: replayed" <<<"$output"; then
  rows+=("| selftest (captured, then replayed) | - | - | OK | - | - | - |")
else
  rows+=("| selftest (captured, then replayed) | - | - | FAIL | - | - | - |")
  failed=1
fi

# The self-test's error paths: a wrong input must be refused before running.
echo
echo "== selftest: a wrong input is an error, not a run"
run_case "$selftest/artifact" --input "$selftest/fixture/case0_out0.bin"
if [[ $status -eq 1 ]] && ! echo "$rel" | grep -q '[0-9]'; then
  rows+=("| selftest (wrong input refused) | - | - | OK | - | - | - |")
else
  rows+=("| selftest (wrong input refused) | - | - | FAIL | - | - | - |")
  failed=1
fi

# --input and --save-outputs: out1 (y = 2x + s0) is exact, so the saved file
# equals the reference byte for byte.
echo
echo "== selftest: --input and --save-outputs"
saved="$(mktemp -d)"
run_case "$selftest/artifact" --input "$selftest/fixture/case0_in0.bin" --save-outputs "$saved"
if [[ $status -eq 0 ]] && cmp "$saved/out1.bin" "$selftest/fixture/case0_out1.bin" &&
   [[ "$(cat "$saved/out1.json")" == "$(cat "$selftest/fixture/case0_out1.json")" ]]; then
  rows+=("| selftest (--input, --save-outputs) | - | - | OK | - | - | - |")
else
  rows+=("| selftest (--input, --save-outputs) | - | - | FAIL | - | - | - |")
  failed=1
fi
rm -rf "$saved"

# A plan whose launch passes fewer parameters than the kernel takes must be
# refused (checked against the kernel), not launched.
echo
echo "== selftest: a launch with a missing kernel parameter is an error"
broken="$(mktemp -d)"
cp -r "$selftest/artifact/." "$broken/"
sed -i 's/{"i64": "arg1"},//' "$broken/manifest.json"
run_case "$broken" --fixture "$selftest/fixture/case0"
if [[ $status -eq 1 ]] && grep -q "takes 16 parameter" <<<"$output"; then
  rows+=("| selftest (bad kernel parameters refused) | - | - | OK | - | - | - |")
else
  rows+=("| selftest (bad kernel parameters refused) | - | - | FAIL | - | - | - |")
  failed=1
fi
rm -rf "$broken"

if [[ -d "$artifacts" ]]; then
  for dir in "$artifacts"/*/; do
    dir="${dir%/}"
    [[ -f "$dir/manifest.json" ]] || continue
    name="$(basename "$dir")"
    if [[ ! -d "$fixtures/$name" ]]; then
      echo "== $name: no fixture directory $fixtures/$name"
      rows+=("| $name | no fixture | no fixture | FAIL | - | - | - |")
      failed=1
      continue
    fi
    check_artifact "$name" "$dir" "$fixtures/$name"
  done
else
  echo
  echo "== no artifact directory '$artifacts': only the self-test ran"
fi

# compute-sanitizer: memcheck (memory and CUDA API errors) over a fixture
# and, when .gpu/ has it, the 7B-shaped layer (zero weights, T=16, 512, 99); racecheck
# on the latter's block reductions (shared memory).
sanitize() {
  local label="$1" tool="$2"
  shift 2
  echo
  echo "== compute-sanitizer --tool $tool: $label"
  local log
  log="$(timeout "$run_limit" compute-sanitizer --tool "$tool" --print-limit 100 "$magi_run" "$@" 2>&1)"
  local status=$?
  echo "$log" | tail -25
  local summary
  summary="$(echo "$log" | grep -o -E '(ERROR SUMMARY: [0-9]+ error|RACECHECK SUMMARY: [0-9]+ hazard)' | tail -1)"
  if [[ $tool == racecheck ]]; then
    # Only Magi's kernels count: cuBLAS's split-K gemm kernels (nvjet_*)
    # report shared-memory hazards of their own (7 in one run, 2026-12-01;
    # excluding them with --kernel-name-exclude made cuBLAS fail to launch).
    local ours
    ours="$(echo "$log" | grep -o 'access at [A-Za-z0-9_]*' | grep -v 'at nvjet_' | sort -u)"
    [[ $status -eq 0 && -n "$summary" ]] && summary="${ours:-RACECHECK SUMMARY: 0 hazard} (cuBLAS kernels not counted)"
    [[ -z "$ours" && $status -eq 0 ]] && summary="RACECHECK SUMMARY: 0 hazard"
  fi
  if [[ $status -eq 0 && ( "$summary" == *": 0 error" || "$summary" == *": 0 hazard" ) ]]; then
    rows+=("| $label ($tool) | - | - | OK (0 errors) | - | - | - |")
  else
    rows+=("| $label ($tool) | - | - | FAIL (${summary:-no summary}) | - | - | - |")
    failed=1
  fi
}
if command -v compute-sanitizer >/dev/null; then
  [[ -d "$artifacts/llama-bf16" ]] &&
    sanitize "llama-bf16" memcheck "$artifacts/llama-bf16" --fixture "$fixtures/llama-bf16/case0" --cuda-graphs=off
  # Values read on the host, and the scatter into a spare row.
  [[ -d "$artifacts/op-nonzero" ]] &&
    sanitize "op-nonzero" memcheck "$artifacts/op-nonzero" --fixture "$fixtures/op-nonzero/case0"
  # Two reads, a window planned at every combination of their ends.
  [[ -d "$artifacts/op-window" ]] &&
    sanitize "op-window" memcheck "$artifacts/op-window" --fixture "$fixtures/op-window/case0"
  # Clamped reads (any index, planned at 0 and the dimension): indices
  # outside [0, 5], an empty slice among the results.
  [[ -d "$artifacts/op-tensor-split-outside" ]] &&
    sanitize "op-tensor-split-outside" memcheck "$artifacts/op-tensor-split-outside" \
      --fixture "$fixtures/op-tensor-split-outside/case0"
  # A branch of the runtime: the part not taken is planned but never runs.
  [[ -d "$artifacts/op-cond-branch" ]] &&
    sanitize "op-cond-branch" memcheck "$artifacts/op-cond-branch" --fixture "$fixtures/op-cond-branch/case0"
  # A loop of the runtime: carried values copied between two sets.
  [[ -d "$artifacts/op-while" ]] &&
    sanitize "op-while" memcheck "$artifacts/op-while" --fixture "$fixtures/op-while/case0"
  # A branch inside a loop: the inner part's buffers planned once, reused
  # every iteration.
  [[ -d "$artifacts/op-loop-cond" ]] &&
    sanitize "op-loop-cond" memcheck "$artifacts/op-loop-cond" --fixture "$fixtures/op-loop-cond/case0"
  # A size of the data read every iteration (2, then 4 elements).
  [[ -d "$artifacts/op-loop-nonzero" ]] &&
    sanitize "op-loop-nonzero" memcheck "$artifacts/op-loop-nonzero" --fixture "$fixtures/op-loop-nonzero/case0"
  llama1l="${LLAMA_1L:-.gpu/llama7b-1l}"
  if [[ "$llama1l" != none && -d "$llama1l" ]]; then
    sanitize "llama7b-1l T=16" memcheck "$llama1l" --input .gpu/llama7b/ids16.bin --cuda-graphs=off
    # Several elements a thread (T=512), and the variant for any size with
    # partial last blocks (T=99).
    for T in 512 99; do
      [[ -f .gpu/llama7b/ids$T.bin ]] &&
        sanitize "llama7b-1l T=$T" memcheck "$llama1l" --input .gpu/llama7b/ids$T.bin --cuda-graphs=off
    done
    sanitize "llama7b-1l T=16" racecheck "$llama1l" --input .gpu/llama7b/ids16.bin --cuda-graphs=off
  fi
fi

echo
echo "| fixture | case0 rel_err | case1 rel_err | OK/FAIL | eager ms | graphs ms | full graph ms |"
echo "|---|---|---|---|---|---|---|"
for row in "${rows[@]}"; do
  echo "$row"
done
exit $failed
