#!/usr/bin/env bash
# Runs here (the CPU machine), before a GPU check: lays out .gpu/ (ignored by
# git) with everything the GPU machine needs that is not in the repository,
# so one device call can check and time it all:
#   .gpu/fixtures/<model>/     the shared fixtures (archives and cases), and
#                              op-<name>/ from scripts/make-op-fixtures.sh
#   .gpu/llama7b/*.pt2         the 7B-shaped zero-weight archives
#   .gpu/artifacts/<model>/    the fixtures compiled (weights referenced:
#                              ../../fixtures/<model>/model.pt2)
#   .gpu/llama7b-<L>l/         the 7B-shaped models compiled (--compile-sizes=16,512,4096)
#   .gpu/llama7b-32l/          the whole 32-layer causal LM compiled
#                              (--compile-sizes=16,512,4096), for bench/weights/load.py
#                              and bench/llama7b/full_model.py
#   .gpu/baseline/             with LOAD_BASELINE=COMMIT: that commit's sources, whose
#                              magi-run the `load` step times beside this tree's
#   .gpu/harness/              the shared LLaMA-7B harness (model and export)
#   .gpu/decode-<L>l/          the 7B-shaped decode step (static KV cache of 4096
#                              positions, examples/llama7b-decode/) compiled, for
#                              bench/decode/bench.py
#   .gpu/attention/<config>/   the attention sweep's graphs compiled (bench/attention)
#   .gpu/conv/<config>/        the convolution sweep's graphs compiled (bench/conv)
#   .gpu/padding/<model>/      llama, gpt2 and bert (bf16) compiled with --compile-sizes=16,64
# Then, on the GPU machine (carry .gpu):
#   scripts/gpu-check.sh .gpu/artifacts .gpu/fixtures
#   python3 bench/llama7b/bench.py --harness .gpu/harness --magi-run build-run/magi-run \
#       --artifact 1=.gpu/llama7b-1l --artifact 4=.gpu/llama7b-4l
#   python3 bench/attention/check.py --magi-run build-run/magi-run --artifacts .gpu/attention
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shared="${MAGI_SHARED_DIR:-$repo/../shared}"
bin="${MAGI_BUILD_DIR:-$repo/build}/bin"
out="$repo/.gpu"
grep -qx '/.gpu/' "$repo/.git/info/exclude" 2>/dev/null || echo '/.gpu/' >> "$repo/.git/info/exclude"
rm -rf "$out"
mkdir -p "$out/fixtures" "$out/llama7b" "$out/artifacts" "$out/harness"
cp -r "$shared/fixtures/torch-export/." "$out/fixtures/"
# Ops checked by hand in the import tests, as fixtures (op-<name>/).
MAGI_BIN="$bin" "$repo/scripts/make-op-fixtures.sh" "$out/fixtures"
cp "$shared/fixtures/llama7b/llama7b-1l-zero.pt2" "$shared/fixtures/llama7b/llama7b-4l-zero.pt2" \
  "$shared/fixtures/llama7b/llama7b-32l-lm-zero.pt2" "$out/llama7b/"
cp "$shared/bench/llama7b/llama7b_common.py" "$out/harness/"
for dir in "$out"/fixtures/*/; do
  name="$(basename "$dir")"
  # The op fixtures' graphs are mostly static: no compile sizes.
  sizes=(--compile-sizes=7,32)
  [[ "$name" == op-* ]] && sizes=()
  "$bin/magi-compile" "$dir/model.pt2" -o "$out/artifacts/$name" --cache-mode=off --quiet \
    "${sizes[@]}"
done
for layers in 1 4; do
  "$bin/magi-compile" "$out/llama7b/llama7b-${layers}l-zero.pt2" -o "$out/llama7b-${layers}l" \
    --cache-mode=off --quiet --compile-sizes=16,512,4096
done
"$bin/magi-compile" "$out/llama7b/llama7b-32l-lm-zero.pt2" -o "$out/llama7b-32l" \
  --cache-mode=off --quiet --compile-sizes=16,512,4096
for layers in 1 4; do
  "$bin/magi-compile" "$repo/examples/llama7b-decode/llama7b-decode-${layers}l-zero.pt2" \
    -o "$out/decode-${layers}l" --cache-mode=off --quiet
done
# compile_variant DIR [FLAG ...]: the fixtures (DIR/artifacts/), the 1- and
# 4-layer 7B-shaped models (DIR/llama7b-<L>l/) and the decode models
# (DIR/decode-<L>l/) compiled with those extra magi-compile flags; the check,
# bench and decode steps run each such DIR in .gpu/targets/ too, in the same call.
compile_variant() {
  local dir="$1"
  shift
  for fixture in "$out"/fixtures/*/; do
    sizes=(--compile-sizes=7,32)
    [[ "$(basename "$fixture")" == op-* ]] && sizes=()
    "$bin/magi-compile" "$fixture/model.pt2" -o "$dir/artifacts/$(basename "$fixture")" \
      --cache-mode=off --quiet "${sizes[@]}" "$@"
  done
  for layers in 1 4; do
    "$bin/magi-compile" "$out/llama7b/llama7b-${layers}l-zero.pt2" -o "$dir/llama7b-${layers}l" \
      --cache-mode=off --quiet --compile-sizes=16,512,4096 "$@"
    "$bin/magi-compile" "$repo/examples/llama7b-decode/llama7b-decode-${layers}l-zero.pt2" \
      -o "$dir/decode-${layers}l" --cache-mode=off --quiet "$@"
  done
}
# EXTRA_TARGETS="sm_90a ..." compiles all of that for each of those --target
# values into .gpu/targets/<target>/.
for target in ${EXTRA_TARGETS:-}; do
  compile_variant "$out/targets/$target" --target="$target"
done
# CHECK_VARIANTS="NAME:FLAG[+FLAG...] ..." compiles all of that with those
# magi-compile flags into .gpu/targets/NAME/ (a kernel option that should be
# the default: the fixtures checked with it, the model timed beside the default).
for variant in ${CHECK_VARIANTS:-}; do
  IFS=+ read -r -a flags <<< "${variant#*:}"
  compile_variant "$out/targets/${variant%%:*}" "${flags[@]}"
done
# BENCH_VARIANTS="NAME:FLAG[+FLAG...] ..." compiles only the 1- and 4-layer
# 7B-shaped models with those extra magi-compile flags into
# .gpu/targets/NAME/llama7b-<L>l/: the bench step times them beside the
# default compilation, in the same call (an A/B of a flag, e.g.
# "no-layout:--disable-fusions=attention-layout").
for variant in ${BENCH_VARIANTS:-}; do
  name="${variant%%:*}"
  IFS=+ read -r -a flags <<< "${variant#*:}"
  for layers in 1 4; do
    "$bin/magi-compile" "$out/llama7b/llama7b-${layers}l-zero.pt2" \
      -o "$out/targets/$name/llama7b-${layers}l" --cache-mode=off --quiet \
      --compile-sizes=16,512,4096 "${flags[@]}"
  done
done
# BENCH_RUN_VARIANTS="NAME:FLAG[+FLAG...] ..." times the default compilation
# again with those extra magi-run flags, beside it in the bench step
# (.gpu/targets/NAME/run-flags; e.g. "plain:--programmatic-launch=off").
for variant in ${BENCH_RUN_VARIANTS:-}; do
  name="${variant%%:*}"
  mkdir -p "$out/targets/$name"
  tr '+' ' ' <<< "${variant#*:}" > "$out/targets/$name/run-flags"
done
# RELEASE=ARCHIVE (scripts/release.sh's): its python/ and lib/ (the
# compiler's C API library among them; not the tools) packed again into
# .gpu/release.tgz, small enough to carry, for the `release` step of
# scripts/gpu-session.sh: magi.compile and torch.compile(backend="magi") there.
if [[ -n "${RELEASE:-}" ]]; then
  name="$(basename "$RELEASE" .tar.gz)"
  tmp="$(mktemp -d)"
  tar -C "$tmp" -xzf "$RELEASE" "$name/python" "$name/lib"
  # The package's Python sources from this tree (the release may predate a
  # change to them; _version.py is generated and stays the release's).
  cp "$repo"/lib/Bindings/Python/magi/*.py "$tmp/$name/python/magi/"
  tar -C "$tmp/$name" -czf "$out/release.tgz" python lib
  rm -rf "$tmp"
fi
# DECODE_KEY_SPLITS="8 32 ..." also compiles the decode models with each
# --attention-key-splits into .gpu/decode-splits/<N>-<L>l/ (scripts/gpu-session.sh
# decode-splits times them).
# FEW_ROW_VARIANTS="NAME:ROWS:COLUMN_TILES:WARPS:STAGES[:T] ..." compiles the
# 1-layer 7B-shaped model at T tokens (default 16) alone with those
# --few-row-gemm-* options into .gpu/variants/NAME, for the `variants` step
# (which profiles it at that T).
for variant in ${FEW_ROW_VARIANTS:-}; do
  IFS=: read -r name rows columns warps stages tokens <<< "$variant"
  "$bin/magi-compile" "$out/llama7b/llama7b-1l-zero.pt2" -o "$out/variants/$name" \
    --cache-mode=off --quiet --compile-sizes="${tokens:-16}" --few-row-gemm-rows="$rows" \
    --few-row-gemm-column-tiles="$columns" --few-row-gemm-warps="$warps" \
    --few-row-gemm-stages="$stages"
  echo "${tokens:-16}" > "$out/variants/$name/tokens"
done
for splits in ${DECODE_KEY_SPLITS:-}; do
  for layers in 1 4; do
    "$bin/magi-compile" "$repo/examples/llama7b-decode/llama7b-decode-${layers}l-zero.pt2" \
      -o "$out/decode-splits/${splits}-${layers}l" --cache-mode=off --quiet \
      --attention-key-splits="$splits"
  done
done
# A decode step's inputs (token 1 at the last of 4096 positions), for magi-run --profile.
mkdir -p "$out/decode-inputs"
python3 - "$out/decode-inputs" <<'PY'
import json, struct, sys
for name, shape, value in (("ids", [1, 1], 1), ("pos", [1], 4095)):
    open(f"{sys.argv[1]}/{name}.bin", "wb").write(struct.pack("<q", value))
    json.dump({"shape": shape, "dtype": "int64"}, open(f"{sys.argv[1]}/{name}.json", "w"))
PY
if [[ -n "${LOAD_BASELINE:-}" ]]; then
  mkdir -p "$out/baseline"
  git -C "$repo" archive "$LOAD_BASELINE" | tar -x -C "$out/baseline"
fi
# A sweep of bench/NAME/graphs.py's graphs, each compiled into $out/NAME/
# beside its configs.json (the graphs stay in $out/NAME-graphs/).
compile_sweep() {
  local name="$1"
  python3 "$repo/bench/$name/graphs.py" "$out/$name-graphs" > /dev/null
  mkdir -p "$out/$name"
  cp "$out/$name-graphs/configs.json" "$out/$name/"
  for graph in "$out/$name-graphs"/*.mlir; do
    "$bin/magi-compile" "$graph" -o "$out/$name/$(basename "$graph" .mlir)" \
      --cache-mode=off --quiet --no-weights
  done
}
# The attention and convolution sweeps (bench/attention/check.py,
# bench/conv/check.py): one graph per configuration.
compile_sweep attention
compile_sweep conv
# Attention tilings to compare (scripts/gpu-session.sh attention-variants):
# ATTENTION_VARIANTS="NAME:ROWS_PER_WARP:KEY_ROWS:QUERY_IN_SHARED[:MIN_BLOCKS_PER_SM[:TARGET]] ..."
# compiles the sweep's graphs (those matching $ATTENTION_VARIANT_GRAPHS, a grep -E
# pattern, default all) with each tiling (and --target, default sm_90; sm_90a
# takes Hopper's warpgroup products) into .gpu/attention-variants/NAME/.
for variant in ${ATTENTION_VARIANTS:-}; do
  IFS=: read -r name rows keyRows inShared minBlocks target <<< "$variant"
  dir="$out/attention-variants/$name"
  mkdir -p "$dir"
  python3 - "$out/attention-graphs/configs.json" "$dir/configs.json" \
      "${ATTENTION_VARIANT_GRAPHS:-.}" <<'PY'
import json, re, sys
configs = [c for c in json.load(open(sys.argv[1])) if re.search(sys.argv[3], c["name"])]
json.dump(configs, open(sys.argv[2], "w"), indent=1)
PY
  for name in $(python3 -c 'import json,sys; print(" ".join(c["name"] for c in json.load(open(sys.argv[1]))))' "$dir/configs.json"); do
    "$bin/magi-compile" "$out/attention-graphs/$name.mlir" -o "$dir/$name" \
      --cache-mode=off --quiet --no-weights --attention-rows-per-warp="$rows" \
      --attention-key-rows="$keyRows" --attention-query-in-shared="$inShared" \
      --attention-min-blocks-per-sm="${minBlocks:-0}" --target="${target:-sm_90}"
  done
done
# The fixtures with compile sizes 16 and 64, for the padding step (their 7-
# and 32-token cases run padded).
for model in llama-bf16 gpt2-bf16 bert-bf16; do
  "$bin/magi-compile" "$out/fixtures/$model/model.pt2" -o "$out/padding/$model" --cache-mode=off \
    --quiet --compile-sizes=16,64
done
# Token ids for the sanitizer and profiling runs of the 7B-shaped layer (no
# reference: the weights are zeros there): the compiled sizes, and 99 and 300
# (the variant for any size, with partial last blocks; padded to 512).
python3 - "$out/llama7b" 1 16 32 64 99 300 512 4096 <<'PY'
import json, random, struct, sys
for T in map(int, sys.argv[2:]):
    random.seed(T)
    ids = [random.randrange(32000) for _ in range(T)]
    base = f"{sys.argv[1]}/ids{T}"
    open(base + ".bin", "wb").write(struct.pack(f"<{T}q", *ids))
    json.dump({"shape": [1, T], "dtype": "int64"}, open(base + ".json", "w"))
PY
du -sh "$out"
