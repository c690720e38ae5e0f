#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, after scripts/gpu-prepare.sh
# here: profiles the 1-layer 7B-shaped artifact (zero weights: kernel times do
# not depend on the values) with ncu, one run per T with CUDA graphs off, and
# prints per kernel and gemm its time, DRAM bytes and bandwidth as a fraction
# of the copy bandwidth, and the same by the bytes its loads and stores move
# through L2 (a kernel's writes may stay in L2 until after it ends, so DRAM
# bytes can undercount what it moved) (bench.py's d2d figure from $OUT/llama7b.json when it
# ran first in the same call, else measured here with PyTorch: a 1 GiB
# device-to-device copy, median of 10).
#   bench/llama7b/profile.sh [MAGI_RUN] [T ...]
# ARTIFACT=DIR profiles another 1-layer artifact (default .gpu/llama7b-1l);
# MAGI_RUN_FLAGS adds magi-run flags (e.g. --gemm-algorithm=heuristic).
# Raw CSVs: $OUT/ncu-T<T>.csv; summaries: $OUT/ncu-T<T>.txt.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
magi_run="${1:-build-run/magi-run}"
shift || true
sizes=("$@")
[[ ${#sizes[@]} -eq 0 ]] && sizes=(16 512 4096)
out="${OUT:-/tmp/out}"
mkdir -p "$out"
copy=""
if [[ -f "$out/llama7b.json" ]]; then
  copy="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bandwidth"]["d2d_GBps"])' "$out/llama7b.json")"
else
  copy="$(python3 - <<'PY'
import statistics, torch
n = 1 << 30
src = torch.empty(n, dtype=torch.uint8, device="cuda"); dst = torch.empty_like(src)
ts = []
for i in range(12):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record(); dst.copy_(src); b.record(); torch.cuda.synchronize()
    if i >= 2: ts.append(a.elapsed_time(b))
print(2 * n / statistics.median(ts) / 1e6)
PY
)"
fi
echo "copy bandwidth: ${copy:-unknown} GB/s"
dram_metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
l2_metrics=lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
# profile CSV LOG COMMAND...: ncu with the L2 metrics, else (a GPU or ncu
# without them) DRAM bytes only.
profile() {
  local csv="$1" log="$2"
  shift 2
  ncu --profile-from-start off --clock-control none --metrics "$dram_metrics,$l2_metrics" \
    --csv --print-units base "$@" > "$csv" 2> "$log" && return
  echo "profile: ncu without the L2 metrics" >> "$log"
  ncu --profile-from-start off --clock-control none --metrics "$dram_metrics" \
    --csv --print-units base "$@" > "$csv" 2>> "$log"
}
for T in "${sizes[@]}"; do
  ids=".gpu/llama7b/ids$T.bin"
  [[ -f $ids ]] || { echo "profile: no $ids (run scripts/gpu-prepare.sh)"; exit 1; }
  csv="$out/ncu-T$T.csv"
  # Two runs, the second profiled: the first also times cuBLASLt's
  # candidate algorithms (magi-run --gemm-algorithm), which is not the run.
  # --clock-control none: at the clocks a run has. ncu's default locks the
  # GPU to its base clock, under which the gemms took 1.36x as long
  # (2026-12-02) and no kernel can be compared with the copy bandwidth.
  if ! profile "$csv" "$out/ncu-T$T.log" "$magi_run" "${ARTIFACT:-.gpu/llama7b-1l}" \
      --input "$ids" --cuda-graphs=off --runs 2 --profile-last-run ${MAGI_RUN_FLAGS:-}; then
    echo "profile: ncu failed at T=$T"; tail -20 "$out/ncu-T$T.log"; continue
  fi
  python3 bench/llama7b/ncu_summary.py "$csv" ${copy:+--copy-gbps "$copy"} --title "T=$T" | tee "$out/ncu-T$T.txt"
done
# PyTorch's elementwise kernels on the same tensors at T=4096, measured the
# same way: what a copy-shaped kernel of those bytes reaches by ncu's DRAM
# bytes (COPY_KERNELS=0 skips it).
if [[ "${COPY_KERNELS:-1}" == 1 ]]; then
  if profile "$out/ncu-copy-kernels.csv" "$out/ncu-copy-kernels.log" \
      python3 bench/llama7b/copy_kernels.py; then
    python3 bench/llama7b/ncu_summary.py "$out/ncu-copy-kernels.csv" ${copy:+--copy-gbps "$copy"} \
      --title "PyTorch's kernels on the same tensors (T=4096: copy 32+32 MB, add 64+32, two adds 2x(64+32), mul 180+90, gather 32+32)" |
      tee "$out/ncu-copy-kernels.txt"
  else
    echo "profile: ncu failed on copy_kernels.py"; tail -20 "$out/ncu-copy-kernels.log"
  fi
fi
