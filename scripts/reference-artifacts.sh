#!/usr/bin/env bash
# Writes what Magi makes of the shared fixtures into OUT: each archive
# imported (OUT/NAME.mlir) and compiled without the cache (OUT/NAME/), the
# 7B-shaped one-layer model at three sizes, and the bundled example. Run it
# with the tools of two commits and compare with
#   diff -r -I '"magi": "magi ' OUT_A OUT_B
# to check that a refactoring leaves the artifacts byte-identical (the
# producer's magi line names the git revision, so it always differs).
#
#   scripts/reference-artifacts.sh OUT [BIN_DIR] [FIXTURES_DIR]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: reference-artifacts.sh OUT [BIN_DIR] [FIXTURES_DIR]}"
bin="${2:-$repo/build/bin}"
fixtures="${3:-$repo/../shared/fixtures}"
mkdir -p "$out"

compile() { # NAME INPUT [FLAGS...]
  local name=$1 input=$2
  shift 2
  rm -rf "${out:?}/$name"
  "$bin/magi-compile" "$input" -o "$out/$name" --cache-mode=off --quiet "$@"
}

for dir in "$fixtures"/torch-export/*/; do
  name=$(basename "$dir")
  "$bin/magi-import" "$dir/model.pt2" -o "$out/$name.mlir"
  compile "$name" "$dir/model.pt2"
done
llama="$fixtures/llama7b/llama7b-1l-zero.pt2"
if [[ -f "$llama" ]]; then
  "$bin/magi-import" "$llama" -o "$out/llama7b-1l.mlir"
  compile llama7b-1l "$llama" --compile-sizes=16,512,4096
fi
compile example "$repo/examples/llama_decoder_layer.mlir" --no-weights
echo "reference-artifacts: written to $out"
