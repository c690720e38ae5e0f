#!/usr/bin/env python3
"""Writes the self-test artifact's weights.bin and the fixtures (inputs and
reference outputs) for magi-run, with plain Python (no NumPy), and points the
manifest's weights at weights.bin (ranges, CRC-32s: ../packed_weights.py).

The artifact (artifact/manifest.json, written by hand) computes, for a user
input x: f32 [s0, 8] and the weights W: f32 [4, 8], bias: f32 [4]:

  piece 0:  y = x * 2 + s0                   (kernel, i64 + f32 scalars)
            n = 3 * s0 - 1                   (an index result)
  piece 1:  z = y @ W^T + bias               (gemm f32, W transposed by strides)
            z += n + 0.5 * (s0 mod 4)        (kernel, i64 + i32 scalars)
  outputs:  out0 = z, out1 = y

The references below are computed here in double precision, independently
of any GPU code, and rounded to f32.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(HERE))
from packed_weights import pack_manifest  # noqa: E402


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def lcg_values(seed, count):
    """Deterministic pseudo-random f32 values in [-1, 1)."""
    state = seed
    out = []
    for _ in range(count):
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        out.append(f32(((state >> 40) / float(1 << 24)) * 2.0 - 1.0))
    return out


def write_tensor(stem, shape, values):
    with open(stem + ".bin", "wb") as f:
        f.write(struct.pack("<%df" % len(values), *values))
    with open(stem + ".json", "w") as f:
        f.write('{"shape": [%s], "dtype": "float32"}' % ", ".join(map(str, shape)))


OUT_FEATURES, IN_FEATURES = 4, 8
weight = lcg_values(1, OUT_FEATURES * IN_FEATURES)  # [4, 8], row-major
bias = lcg_values(2, OUT_FEATURES)

# weights.bin: weight at offset 0 (128 bytes), bias at offset 256 (16 bytes).
blob = bytearray(256 + 4 * OUT_FEATURES)
blob[0:128] = struct.pack("<32f", *weight)
blob[256:272] = struct.pack("<4f", *bias)
with open(os.path.join(HERE, "artifact", "weights.bin"), "wb") as f:
    f.write(blob)
pack_manifest(os.path.join(HERE, "artifact", "manifest.json"), blob,
              [("linear.weight", 0, 128, [OUT_FEATURES, IN_FEATURES]),
               ("linear.bias", 256, 16, [OUT_FEATURES])])

# case0: s0 = 5 (the general variant of piece 0); case1: s0 = 3 (its
# variant specialised for s0 = 3).
for case, s0 in ((0, 5), (1, 3)):
    x = lcg_values(100 + case, s0 * IN_FEATURES)
    y = [f32(v * 2.0 + s0) for v in x]
    n = 3 * s0 - 1
    k = s0 % 4
    z = []
    for i in range(s0):
        for j in range(OUT_FEATURES):
            acc = sum(y[i * IN_FEATURES + t] * weight[j * IN_FEATURES + t]
                      for t in range(IN_FEATURES))
            z.append(f32(acc + bias[j] + n + 0.5 * k))
    stem = os.path.join(HERE, "fixture", "case%d" % case)
    write_tensor(stem + "_in0", [s0, IN_FEATURES], x)
    write_tensor(stem + "_out0", [s0, OUT_FEATURES], z)
    write_tensor(stem + "_out1", [s0, IN_FEATURES], y)
