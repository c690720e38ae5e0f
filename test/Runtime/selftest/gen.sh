#!/usr/bin/env bash
# Regenerates the self-test artifact's PTX and cubin from kernels.cu (needs a
# CUDA toolkit), then its weights and fixtures (gen.py, plain Python).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
nvcc -ptx -arch=sm_90 kernels.cu -o kernels.ptx
# One PTX module per piece, as magi-compile writes them; piece 0 also gets
# a cubin (the cubin load path), piece 1 only PTX (the JIT path).
cp kernels.ptx artifact/pieces/piece_0.ptx
cp kernels.ptx artifact/pieces/piece_1.ptx
rm kernels.ptx
ptxas -arch=sm_90 artifact/pieces/piece_0.ptx -o artifact/pieces/piece_0.cubin
python3 gen.py
