#!/usr/bin/env bash
# Sets Magi up (scripts/setup.sh) and runs the main job on the bundled example:
# magi-opt parses, verifies and pretty-prints the LLaMA decoder-layer graph.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$repo/scripts/setup.sh"
"${MAGI_BUILD_DIR:-$repo/build}/bin/magi-opt" "$repo/examples/llama_decoder_layer.mlir"
