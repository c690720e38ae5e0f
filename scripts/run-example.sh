#!/usr/bin/env bash
# Sets Magi up (scripts/setup.sh) and runs the main job on the bundled example:
# magi-compile takes the LLaMA decoder-layer graph through the pipeline, splits
# it at attention and compiles every piece to PTX (and cubin when the CUDA
# toolkit is there), printing one line per piece. The example has no weights
# (its parameters are graph inputs written by hand), so the artifact it writes
# into build/example-artifact describes the kernels but cannot run.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MAGI_BUILD_DIR:-$repo/build}"
"$repo/scripts/setup.sh"
rm -rf "$build/example-artifact"
"$build/bin/magi-compile" "$repo/examples/llama_decoder_layer.mlir" \
  -o "$build/example-artifact" --no-weights --cache-mode=off
