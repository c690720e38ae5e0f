#!/usr/bin/env bash
# One device call's whole check, on the GPU machine from the repository root,
# after scripts/gpu-prepare.sh here (carry .gpu):
#   scripts/gpu-session.sh [STEP ...]
# Steps (default: all, in this order):
#   check      scripts/gpu-check.sh: magi-run built, self-test, every
#              fixture (graphs off, piecewise, full), compute-sanitizer; again
#              for each compilation in .gpu/targets/
#   attention  bench/attention/check.py at $ATTENTION_TOKENS (default
#              127,4096): every configuration against PyTorch SDPA, timed
#   attention-variants
#              bench/attention/check.py on each tiling in
#              .gpu/attention-variants/<name>/ (ATTENTION_VARIANTS of
#              gpu-prepare.sh), at $ATTENTION_TOKENS; with ATTENTION_SANITIZE
#              ("CONFIG:T ..."), compute-sanitizer memcheck and racecheck on
#              those cases of each variant
#   conv       bench/conv/check.py: every convolution of the sweep (.gpu/conv,
#              and each .gpu/conv-<name>/ compiled otherwise, e.g. by an
#              older tree) against PyTorch eager (cuDNN), timed; CONV_ONLY
#              (a regular expression) keeps the configurations it matches
#   bench      bench/llama7b/bench.py: the 1- and 4-layer 7B-shaped models
#              beside eager, torch.compile and torch.compile + CUDA graphs (and
#              each compilation in .gpu/targets/: EXTRA_TARGETS, CHECK_VARIANTS and BENCH_VARIANTS of gpu-prepare.sh)
#   decode     bench/decode/bench.py: one decode step (T=1 against a static KV
#              cache of 4096 positions) of the 1- and 4-layer 7B-shaped models
#              beside eager, torch.compile and torch.compile + CUDA graphs
#   decode-splits
#              bench/decode/bench.py (Magi only) on each decode model compiled with
#              another --attention-key-splits (DECODE_KEY_SPLITS of gpu-prepare.sh)
#   full       bench/llama7b/full_model.py: the whole 32-layer model with its
#              real weights (exported there) at T=$FULL_T (default 16 512
#              4096) beside PyTorch eager: match, time, load, GPU memory
#   gemms      magi-run --verbose at T=16, 512, 4096: each gemm problem's
#              measured cuBLASLt choice
#   profile    bench/llama7b/profile.sh: ncu per kernel at T=16, 512, 4096
#   mprofile   magi-run --profile at T=16, 512, 4096 (and --trace) of the
#              1-layer model (real weights when bench ran first), at 4096 also
#              on zero weights and the 4-layer model
#   dprofile   magi-run --profile on the 1-layer decode step, and compute-sanitizer
#              memcheck on it
#   padding    --pad-to-compile-sizes: the llama, gpt2 and bert fixtures
#              compiled for sizes 16 and 64 (.gpu/padding) run their 7- and
#              32-token cases padded, checked on the third run (a replay) and
#              by memcheck (llama); then the 7B-shaped layer at T=99 and 300
#              timed padded (to 512) and not (the variant for any size),
#              beside T=16 and 512; and bench/padding/varying.py (a new
#              length every call, through the Python package)
#   python     scripts/gpu-python-check.py: the fixtures through the `magi`
#              Python package and the C runtime API, with torch tensors
#   release    scripts/gpu-release-check.py with the release's python/ and
#              lib/ (.gpu/release.tgz, RELEASE of gpu-prepare.sh): every fixture through magi.compile
#              and torch.compile(backend="magi"), compiled on the GPU machine
#              (RELEASE_FLAGS="--moe" adds a small Qwen2-MoE model whose experts
#              compute with histc and _grouped_mm, its exported archive kept as
#              session/qwen2-moe.pt2; "--data-dependent" adds modules whose
#              output sizes are data: nonzero, a boolean mask, .item() as a size;
#              "--no-fixtures", "--no-vision" leave parts out)
#   ops        scripts/gpu-ops-check.py with the release (as `release`): PyTorch's
#              OpInfo samples of every core ATen op exported, compiled and run;
#              $OUT/ops.json, ops-summary.md, ops-archives.tgz
#   variants   bench/llama7b/profile.sh at T=$VARIANT_T (default 4096) on
#              every 1-layer artifact in .gpu/variants/<name>/ (compiled
#              here with other kernel options), to compare their kernels
#   load       bench/weights/load.py: the 32-layer model's weights loaded from a
#              stored (uncompressed) 13.5 GB archive by this tree's magi-run
#              (and by .gpu/baseline's, when gpu-prepare.sh was given
#              LOAD_BASELINE, and by each source tree in .gpu/load-variants/),
#              in turn, beside the pinned host-to-device bandwidth
#   probe      bench/weights/load_probe.cpp on a $PROBE_GB (default 4) GB file:
#              pread, memcpy and CRC rates by thread count, pinned copies, and
#              registering the mapped file (private and shared, fresh and
#              after reads) with a 30 s watchdog
#   adetail    after attention or attention-variants: ncu's sections for the
#              attention kernel of $ADETAIL_CONFIG at T=$ADETAIL_T in each
#              compilation, and their SASS instruction mix
#   detail     ncu's speed-of-light, memory, occupancy and warp-state
#              sections for the kernels matching $DETAIL_KERNELS (default
#              k0, k1, k3) of the 1-layer model ($DETAIL_ARTIFACT, default
#              .gpu/llama7b-1l) at T=$DETAIL_T (default 4096)
# A device call brings back at most 8 files: every step's output goes into
# one archive, $OUT/gpu-session.tgz, beside a summary ($OUT/summary.txt)
# that is also printed last.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
out="${OUT:-/tmp/out}"
work="$out/session"
mkdir -p "$work"
export PYTHONUNBUFFERED=1
steps=("$@")
[[ ${#steps[@]} -eq 0 ]] && steps=(check attention bench gemms profile)
summary="$out/summary.txt"
: > "$summary"
note() { echo "$*" >> "$summary"; }

# Every step but release and ops (the release's own libraries) runs this
# tree's magi-run, built here.
needs_run=0
for step in "${steps[@]}"; do
  [[ "$step" == release || "$step" == ops ]] || needs_run=1
done
if [[ $needs_run == 1 && ! -x build-run/magi-run ]]; then
  cmake -S tools/magi-run -B build-run -G Ninja -DCMAKE_BUILD_TYPE=Release > "$work/build.log" 2>&1 &&
    ninja -C build-run >> "$work/build.log" 2>&1 || { note "building magi-run failed"; tail -20 "$work/build.log"; }
fi

for step in "${steps[@]}"; do
  start=$(date +%s)
  case "$step" in
  check)
    OUT="$work" scripts/gpu-check.sh .gpu/artifacts .gpu/fixtures > "$work/check.txt" 2>&1
    note "== check (exit $?)"
    grep -E '^\|' "$work/check.txt" >> "$summary"
    grep -E 'memcheck|racecheck|ERROR SUMMARY' "$work/check.txt" | sort | uniq -c >> "$summary"
    for dir in .gpu/targets/*/; do
      [[ -d "$dir/artifacts" ]] || continue
      target="$(basename "$dir")"
      OUT="$work/check-$target" LLAMA_1L="$dir/llama7b-1l" scripts/gpu-check.sh "$dir/artifacts" \
        .gpu/fixtures > "$work/check-$target.txt" 2>&1
      note "== check, --target=$target (exit $?)"
      grep -E '^\|' "$work/check-$target.txt" >> "$summary"
    done
    ;;
  attention)
    python3 bench/attention/check.py --magi-run build-run/magi-run --artifacts .gpu/attention \
      --out "$work" --tokens "${ATTENTION_TOKENS:-127,4096}" > "$work/attention.txt" 2>&1
    note "== attention (exit $?)"
    tail -40 "$work/attention.txt" >> "$summary"
    ;;
  conv)
    extra=()
    for dir in .gpu/conv-*/; do
      dir="${dir%/}"
      [[ -d "$dir" && "$dir" != *-graphs ]] && extra+=(--artifacts "${dir#.gpu/conv-}=$dir")
    done
    python3 bench/conv/check.py --magi-run build-run/magi-run --artifacts gemm=.gpu/conv \
      "${extra[@]}" --configs .gpu/conv/configs.json --out "$work" ${CONV_ONLY:+--only "$CONV_ONLY"} \
      > "$work/conv.txt" 2>&1
    note "== conv (exit $?)"
    tail -20 "$work/conv.txt" >> "$summary"
    ;;
  attention-variants)
    for dir in .gpu/attention-variants/*/; do
      name="$(basename "$dir")"
      python3 bench/attention/check.py --magi-run build-run/magi-run --artifacts "$dir" \
        --out "$work/attention-$name" --tokens "${ATTENTION_TOKENS:-127,4096}" \
        > "$work/attention-$name.txt" 2>&1
      note "== attention variant $name (exit $?)"
      grep -vE '^\s*$' "$work/attention-$name.txt" | tail -25 >> "$summary"
      # ATTENTION_SANITIZE="CONFIG:T ...": compute-sanitizer's
      # $ATTENTION_SANITIZE_TOOLS (default memcheck and racecheck) on those
      # cases of the variant (the files check.py wrote).
      for sanitized in ${ATTENTION_SANITIZE:-}; do
        config="${sanitized%:*}" T="${sanitized#*:}"
        [[ -d "$dir/$config" ]] || continue
        for tool in ${ATTENTION_SANITIZE_TOOLS:-memcheck racecheck}; do
          compute-sanitizer --tool "$tool" --print-limit 20 build-run/magi-run "$dir/$config" \
            --fixture "/tmp/magi-attention-cases/$config-T$T" --cuda-graphs=off \
            > "$work/sanitize-$name-$config-$T-$tool.txt" 2>&1
          note "== compute-sanitizer $tool, variant $name, $config T=$T (exit $?):" \
            "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY|rel_err' "$work/sanitize-$name-$config-$T-$tool.txt" | tr '\n' ' ')"
        done
      done
    done
    ;;
  bench)
    # Each compilation in .gpu/targets/ (EXTRA_TARGETS, BENCH_VARIANTS) beside the default
    # one, as bench.py's extra full-graph contenders.
    # A target with a run-flags file (BENCH_RUN_VARIANTS) runs its own
    # compilation, or else the default one, with those magi-run flags.
    extra=()
    for dir in .gpu/targets/*/; do
      target="$(basename "$dir")"
      artifacts="$dir"
      [[ -d "$dir/llama7b-1l" ]] || artifacts=.gpu
      [[ -d "$dir/llama7b-1l" || -f "$dir/run-flags" ]] || continue
      extra+=(--extra "$target:1=$artifacts/llama7b-1l" --extra "$target:4=$artifacts/llama7b-4l")
      [[ -f "$dir/run-flags" ]] && extra+=(--extra-flags "$target=$(cat "$dir/run-flags")")
    done
    OUT="$work" python3 bench/llama7b/bench.py --harness .gpu/harness --magi-run build-run/magi-run \
      --artifact 1=.gpu/llama7b-1l --artifact 4=.gpu/llama7b-4l "${extra[@]}" > "$work/bench.txt" 2>&1
    note "== bench (exit $?)"
    tail -60 "$work/bench.txt" >> "$summary"
    ;;
  decode)
    OUT="$work" python3 bench/decode/bench.py --harness .gpu/harness --magi-run build-run/magi-run \
      --artifact 1=.gpu/decode-1l --artifact 4=.gpu/decode-4l > "$work/decode.txt" 2>&1
    note "== decode (exit $?)"
    grep -vE "Warning|warn\(" "$work/decode.txt" | tail -40 >> "$summary"
    # Each compilation in .gpu/targets/ (EXTRA_TARGETS), Magi and eager only.
    for dir in .gpu/targets/*/; do
      [[ -d "$dir/decode-1l" ]] || continue
      target="$(basename "$dir")"
      mkdir -p "$work/decode-$target"
      OUT="$work/decode-$target" python3 bench/decode/bench.py --harness .gpu/harness \
        --magi-run build-run/magi-run --anchors "" --artifact 1="$dir/decode-1l" \
        --artifact 4="$dir/decode-4l" > "$work/decode-$target.txt" 2>&1
      note "== decode, --target=$target (exit $?)"
      grep -vE "Warning|warn\(" "$work/decode-$target.txt" | tail -20 >> "$summary"
    done
    ;;
  decode-splits)
    for dir in .gpu/decode-splits/*-1l/; do
      splits="$(basename "$dir" -1l)"
      OUT="$work/decode-splits-$splits" python3 bench/decode/bench.py --harness .gpu/harness \
        --magi-run build-run/magi-run --anchors "" --artifact "1=$dir" \
        --artifact "4=.gpu/decode-splits/$splits-4l" > "$work/decode-splits-$splits.txt" 2>&1
      note "== decode, --attention-key-splits=$splits (exit $?)"
      grep -E "^[14] (check|full) " "$work/decode-splits-$splits.txt" >> "$summary"
    done
    ;;
  full)
    OUT="$work" python3 bench/llama7b/full_model.py --harness .gpu/harness \
      --magi-run build-run/magi-run --artifact .gpu/llama7b-32l --T ${FULL_T:-16 512 4096} \
      > "$work/full.txt" 2>&1
    note "== full (exit $?)"
    tail -15 "$work/full.txt" >> "$summary"
    ;;
  gemms)
    note "== gemms"
    for T in 16 512 4096; do
      build-run/magi-run .gpu/llama7b-1l --input ".gpu/llama7b/ids$T.bin" --verbose 2>&1 |
        grep -E '^gemm |^  fastest:' > "$work/gemms-T$T.txt"
      cat "$work/gemms-T$T.txt" >> "$summary"
    done
    ;;
  profile)
    OUT="$work" bench/llama7b/profile.sh build-run/magi-run 16 512 4096 > "$work/profile.txt" 2>&1
    note "== profile (exit $?)"
    grep -E '^==|^gemms:|^attention:|^magi kernels|^\| (attention|k[0-9]|nvjet|.*elementwise|.*index)' "$work/profile.txt" | head -140 >> "$summary"
    ;;
  python)
    PYTHONPATH=build-run/python python3 scripts/gpu-python-check.py .gpu/artifacts .gpu/fixtures \
      > "$work/python.txt" 2>&1
    note "== python (exit $?)"
    cat "$work/python.txt" >> "$summary"
    ;;
  release)
    # Outside $OUT, which comes back.
    rm -rf /tmp/magi-release && mkdir -p /tmp/magi-release &&
      tar -C /tmp/magi-release -xzf .gpu/release.tgz
    # With the harness there (scripts/gpu-prepare.sh), the 7B-shaped layer too.
    llama=()
    [[ -f .gpu/harness/llama7b_common.py ]] && llama=(--llama7b .gpu/harness)
    MAGI_KEEP_DIR="$work" PYTHONPATH=/tmp/magi-release/python CUDA_PATH=/usr/local/cuda \
      python3 scripts/gpu-release-check.py .gpu/fixtures ${RELEASE_FLAGS:-} "${llama[@]}" \
      > "$work/release.txt" 2>&1
    note "== release: magi.compile and torch.compile(backend=\"magi\") (exit $?)"
    cat "$work/release.txt" >> "$summary"
    ;;
  ops)
    # The release's compiler (as for `release`) on PyTorch's OpInfo samples of
    # every core op; ops.json, ops-summary.md and ops-archives.tgz beside the
    # session's archive.
    if [[ ! -d /tmp/magi-release ]]; then
      mkdir -p /tmp/magi-release && tar -C /tmp/magi-release -xzf .gpu/release.tgz
    fi
    PYTHONPATH=/tmp/magi-release/python CUDA_PATH=/usr/local/cuda \
      python3 scripts/gpu-ops-check.py "$out" --deadline "${OPS_DEADLINE:-300}" \
      > "$work/ops.txt" 2>&1
    note "== ops: every core ATen op's OpInfo samples (exit $?)"
    grep -vE '^\| ' "$work/ops.txt" | tail -8 >> "$summary"
    ;;
  padding)
    note "== --pad-to-compile-sizes (the causal models must match; bert is refused: its pooled output has no position dimension)"
    for model in llama-bf16 gpt2-bf16 bert-bf16; do
      for c in case0 case1; do
        build-run/magi-run ".gpu/padding/$model" --fixture ".gpu/fixtures/$model/$c" \
          --pad-to-compile-sizes --runs 3 > "$work/padding-$model-$c.txt" 2>&1
        note "$model $c (exit $?): $(grep -E 'padding:|^out' "$work/padding-$model-$c.txt" | tr '\n' ' ')"
      done
    done
    /usr/local/cuda/bin/compute-sanitizer --tool memcheck build-run/magi-run .gpu/padding/llama-bf16 \
      --fixture .gpu/fixtures/llama-bf16/case1 --pad-to-compile-sizes --cuda-graphs=off \
      > "$work/padding-memcheck.txt" 2>&1
    note "memcheck, llama-bf16 case1 padded (exit $?): $(grep 'ERROR SUMMARY' "$work/padding-memcheck.txt")"
    note "7B-shaped layer, median of 50 runs (CUDA graphs on)"
    for T in 16 99 300 512; do
      for pad in "" --pad-to-compile-sizes; do
        build-run/magi-run .gpu/llama7b-1l --input ".gpu/llama7b/ids$T.bin" --repeat 50 $pad \
          > "$work/padding-T$T$pad.txt" 2>&1
        note "T=$T ${pad:-unpadded} (exit $?): $(grep -E 'padding:|^time:' "$work/padding-T$T$pad.txt" | tr '\n' ' ')"
      done
    done
    PYTHONPATH=build-run/python python3 bench/padding/varying.py .gpu/llama7b-1l \
      > "$work/padding-varying.txt" 2>&1
    note "bench/padding/varying.py (exit $?)"
    cat "$work/padding-varying.txt" >> "$summary"
    ;;
  mprofile)
    # With the bench's real-weight archives when it ran first in this call:
    # the tensor cores draw less power on zeros, so a compute-bound gemm may
    # keep higher clocks on the zero-weight archive than on real weights.
    real() { [[ -f /tmp/magi-llama7b/real$1.pt2 ]] && echo --weights-from /tmp/magi-llama7b/real$1.pt2; }
    note "== magi-run --profile (1 layer: $(real 1 || echo zero weights))"
    for T in 16 512 4096; do
      build-run/magi-run .gpu/llama7b-1l --input ".gpu/llama7b/ids$T.bin" $(real 1) --profile \
        --trace "$work/trace-T$T.json" > "$work/mprofile-T$T.txt" 2>&1
      note "T=$T (exit $?)"
      grep -E '^profile:|^kernels:' "$work/mprofile-T$T.txt" >> "$summary"
      grep -E '^\| ' "$work/mprofile-T$T.txt" | head -12 >> "$summary"
    done
    # At 4096, the zero weights beside the real ones, and the 4-layer model:
    # whether a layer's kernels take longer on real values or in a deeper
    # model (the bench's per-layer cost has been above the 1-layer model's
    # kernel sum under ncu, which runs the zero-weight archive).
    if [[ -n "$(real 1)" ]]; then
      build-run/magi-run .gpu/llama7b-1l --input .gpu/llama7b/ids4096.bin --profile \
        > "$work/mprofile-zero-T4096.txt" 2>&1
      note "1 layer, zero weights, T=4096 (exit $?)"
      grep -E '^profile:|^kernels:' "$work/mprofile-zero-T4096.txt" >> "$summary"
      grep -E '^\| ' "$work/mprofile-zero-T4096.txt" | head -12 >> "$summary"
    fi
    build-run/magi-run .gpu/llama7b-4l --input .gpu/llama7b/ids4096.bin $(real 4) --profile \
      > "$work/mprofile-4l-T4096.txt" 2>&1
    note "4 layers ($(real 4 || echo zero weights)), T=4096 (exit $?)"
    grep -E '^profile:|^kernels:' "$work/mprofile-4l-T4096.txt" >> "$summary"
    grep -E '^\| ' "$work/mprofile-4l-T4096.txt" | head -12 >> "$summary"
    ;;
  dprofile)
    note "== magi-run --profile, decode step (1 layer, 4096 cached positions)"
    build-run/magi-run .gpu/decode-1l --input .gpu/decode-inputs/ids.bin \
      --input .gpu/decode-inputs/pos.bin --profile --trace "$work/trace-decode.json" \
      > "$work/dprofile.txt" 2>&1
    note "(exit $?)"
    grep -E '^profile:|^kernels:' "$work/dprofile.txt" >> "$summary"
    grep -E '^\| ' "$work/dprofile.txt" | head -16 >> "$summary"
    /usr/local/cuda/bin/compute-sanitizer --tool memcheck build-run/magi-run .gpu/decode-1l \
      --input .gpu/decode-inputs/ids.bin --input .gpu/decode-inputs/pos.bin \
      > "$work/dprofile-memcheck.txt" 2>&1
    note "memcheck, decode step (exit $?): $(grep 'ERROR SUMMARY' "$work/dprofile-memcheck.txt")"
    ;;
  variants)
    for dir in .gpu/variants/*/; do
      name="$(basename "$dir")"
      tokens="${VARIANT_T:-4096}"
      [[ -f "$dir/tokens" ]] && tokens="$(cat "$dir/tokens")"
      OUT="$work/variant-$name" ARTIFACT="$dir" bench/llama7b/profile.sh build-run/magi-run \
        "$tokens" > "$work/variant-$name.txt" 2>&1
      note "== variant $name (exit $?)"
      grep -E '^==|^magi kernels|^magi gemms|^gemms|^\| (attention|k[0-9]|gemm[0-9])' "$work/variant-$name.txt" | head -40 >> "$summary"
    done
    ;;
  probe)
    g++ -O2 -std=c++17 bench/weights/load_probe.cpp -I/usr/local/cuda/include \
      -L/usr/local/cuda/lib64/stubs -lcuda -lz -pthread -o "$work/load_probe" \
      > "$work/probe.txt" 2>&1 &&
      "$work/load_probe" /tmp/magi-probe.bin "${PROBE_GB:-4}" >> "$work/probe.txt" 2>&1
    note "== probe (exit $?)"
    cat "$work/probe.txt" >> "$summary"
    rm -f /tmp/magi-probe.bin "$work/load_probe"
    ;;
  load)
    binaries=(--magi-run "current=build-run/magi-run")
    for src in .gpu/baseline .gpu/load-variants/*; do
      [[ -d "$src/tools/magi-run" ]] || continue
      name="$(basename "$src")"
      cmake -S "$src/tools/magi-run" -B "build-run-$name" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        > "$work/build-$name.log" 2>&1 &&
        ninja -C "build-run-$name" >> "$work/build-$name.log" 2>&1 &&
        binaries+=(--magi-run "$name=build-run-$name/magi-run") ||
        note "building the $name magi-run failed"
    done
    OUT="$work" python3 bench/weights/load.py --archive .gpu/llama7b/llama7b-32l-lm-zero.pt2 \
      --artifact .gpu/llama7b-32l --input .gpu/llama7b/ids16.bin "${binaries[@]}" \
      --loads "${LOAD_RUNS:-4}" > "$work/load.txt" 2>&1
    note "== load (exit $?)"
    grep -E '^\||^stored|^host' "$work/load.txt" >> "$summary"
    ;;
  detail)
    T="${DETAIL_T:-4096}"
    ncu --profile-from-start off --clock-control none --section SpeedOfLight \
      --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
      --section WarpStateStats -k "regex:^(${DETAIL_KERNELS:-k0|k1|k3})$" \
      build-run/magi-run "${DETAIL_ARTIFACT:-.gpu/llama7b-1l}" --input ".gpu/llama7b/ids$T.bin" \
      --cuda-graphs=off --runs 2 --profile-last-run > "$work/detail-T$T.txt" 2>&1
    note "== detail ${DETAIL_ARTIFACT:-.gpu/llama7b-1l} T=$T (exit $?)"
    grep -E '^  [a-z0-9_]+ \(|Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Stall|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth' \
      "$work/detail-T$T.txt" | head -120 >> "$summary"
    ;;
  adetail)
    # After `attention` or `attention-variants` (their case files): ncu's
    # sections for the attention kernel of $ADETAIL_CONFIG (default causal
    # bf16 32 x 128) at T=$ADETAIL_T (default 4096), for the default
    # compilation and each attention variant; and the variants' SASS
    # instruction mix when cuobjdump is there.
    config="${ADETAIL_CONFIG:-bf16-d128-h32kv32-causal-none}" T="${ADETAIL_T:-4096}"
    for dir in .gpu/attention .gpu/attention-variants/*; do
      [[ -d "$dir/$config" ]] || continue
      name="$(basename "$dir")"
      ncu --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis \
        --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
        --section WarpStateStats --section InstructionStats -k "regex:^attention0$" -c 1 \
        build-run/magi-run "$dir/$config" --fixture "/tmp/magi-attention-cases/$config-T$T" \
        --cuda-graphs=off > "$work/adetail-$name.txt" 2>&1
      note "== attention detail $name $config T=$T (exit $?)"
      grep -E 'Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Stall|Issue Slots Busy|Executed Ipc|Shared Memory|Bank|Pipe' \
        "$work/adetail-$name.txt" | head -40 >> "$summary"
      if command -v cuobjdump >/dev/null; then
        cuobjdump -sass "$dir/$config/pieces/piece_0.cubin" > "$work/sass-$name.txt" 2>&1
        note "   SASS: $(grep -oE '(HGMMA|HMMA|LDSM|WARPGROUP[A-Z.]*|BAR|MUFU|DEPBAR)[A-Z0-9._]*' "$work/sass-$name.txt" | sed -E 's/\..*//' | sort | uniq -c | tr '\n' ' ')"
      fi
    done
    ;;
  *)
    note "unknown step '$step'"
    ;;
  esac
  note "(step $step: $(( $(date +%s) - start )) s)"
done
tar -czf "$out/gpu-session.tgz" -C "$work" .
rm -rf "$work"
cat "$summary"
