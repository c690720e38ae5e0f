#!/usr/bin/env bash
# Fuzzes Magi's input parsers with libFuzzer (docs/fuzzing.md).
#
#   scripts/fuzz.sh [RUNS [SECONDS]] [TARGET...]
#
# TARGET is one of manifest, expr, sympy, ir, pt2 (default: all). Each runs
# until RUNS executions (default 1000000) or SECONDS of fuzzing (default
# 600), whichever comes first. Installs clang-22 and libclang-rt-22-dev
# when missing (apt-get), builds the targets into build-fuzz/ with clang,
# libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer (the whole
# project instrumented for coverage), seeds each corpus (the tracked seeds
# of test/fuzz/corpus, the shared fixtures' archives, the IR tests split at
# `// -----`) and prints one table row per target: executions, coverage
# reached (libFuzzer's cov and ft), corpus size, crashes. A crasher is left
# in build-fuzz/crashes/TARGET/; kept in test/fuzz/corpus/TARGET/, ctest
# replays it from then on.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MAGI_FUZZ_BUILD_DIR:-$repo/build-fuzz}"
llvm=/usr/lib/llvm-22
runs=1000000
seconds=600
if [[ $# -gt 0 && "$1" =~ ^[0-9]+$ ]]; then runs="$1"; shift; fi
if [[ $# -gt 0 && "$1" =~ ^[0-9]+$ ]]; then seconds="$1"; shift; fi
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(manifest expr sympy ir pt2)

if [[ ! -x $llvm/bin/clang++ || ! -f $llvm/lib/clang/22/lib/linux/libclang_rt.fuzzer-x86_64.a ]]; then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo=sudo
  $sudo apt-get install -y -q clang-22 libclang-rt-22-dev >/dev/null
fi

flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined -fno-omit-frame-pointer -gline-tables-only"
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -G Ninja -S "$repo" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=$llvm/bin/clang -DCMAKE_CXX_COMPILER=$llvm/bin/clang++ \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DMLIR_DIR="$llvm/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$llvm/bin/lit" \
    -DCMAKE_EXE_LINKER_FLAGS="-fuse-ld=lld" \
    -DMAGI_LIBFUZZER=ON >/dev/null
fi
cmake --build "$build" --target "${targets[@]/#/magi-fuzz-}"

# Seeds: tracked ones, plus what the fixtures and the tests give.
seeds="$build/seeds"
rm -rf "$seeds"
for t in "${targets[@]}"; do
  mkdir -p "$seeds/$t" "$build/corpus/$t" "$build/crashes/$t"
  cp "$repo/test/fuzz/corpus/$t/"* "$seeds/$t/"
done
fixtures="$repo/../shared/fixtures/torch-export"
if [[ -d "$seeds/pt2" && -d "$fixtures" ]]; then
  for f in "$fixtures"/*/model.pt2; do
    name="$(basename "$(dirname "$f")")"
    python3 "$repo/test/fuzz/make_pt2_seed.py" "$f" "$seeds/pt2/$name.pt2"
    # The first nodes only: these import many times faster.
    for n in 8 32 96; do
      python3 "$repo/test/fuzz/make_pt2_seed.py" "$f" "$seeds/pt2/$name-$n.pt2" --nodes "$n"
    done
  done
fi
if [[ -d "$seeds/ir" ]]; then
  python3 - "$repo" "$seeds/ir" <<'EOF'
import pathlib, sys
repo, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for path in sorted((repo / "test").rglob("*.mlir")):
    for i, chunk in enumerate(path.read_text().split("// -----")):
        lines = [l for l in chunk.splitlines() if not l.lstrip().startswith("//")]
        text = "\n".join(lines).strip()
        if text and len(text) < 8192:
            (out / f"{path.stem}-{i}.mlir").write_text(text + "\n")
EOF
fi
if [[ -d "$seeds/manifest" && -d "$repo/test/Runtime" ]]; then
  find "$repo/test/Runtime" -name manifest.json -size -64k | while read -r m; do
    cp "$m" "$seeds/manifest/$(echo "${m#$repo/}" | tr / _)"
  done
fi

export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
rows=()
for t in "${targets[@]}"; do
  log="$build/fuzz-$t.log"
  status=0
  # -rss_limit_mb stays at libFuzzer's 2 GB: an input that makes the
  # importer allocate more is a finding.
  "$build/bin/magi-fuzz-$t" "$build/corpus/$t" "$seeds/$t" \
    -dict="$repo/test/fuzz/dict/$t.dict" -runs="$runs" -max_total_time="$seconds" \
    -max_len=65536 -timeout=20 -print_final_stats=1 \
    -artifact_prefix="$build/crashes/$t/" >"$log" 2>&1 || status=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(echo "$last" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*' || echo "?")
  ft=$(echo "$last" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*' || echo "?")
  corpus=$(find "$build/corpus/$t" -type f | wc -l)
  crashes=$(find "$build/crashes/$t" -type f | wc -l)
  rows+=("| $t | $execs | $speed | $cov | $ft | $corpus | $crashes | $status |")
  echo "fuzz: $t: $execs executions, exit $status (log: $log)" >&2
done
echo "| target | executions | per second | cov | ft | corpus | crashes | exit |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
