#!/usr/bin/env bash
# Regenerates the gemm test artifact: its PTX (the self-test's kernels, for
# the strided copy) and, with gen.py, its weights and fixture.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
nvcc -ptx -arch=sm_90 ../selftest/kernels.cu -o artifact/pieces/piece_0.ptx
python3 gen.py
