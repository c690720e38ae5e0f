#!/usr/bin/env python3
"""Writes the gemm test artifact's weights.bin and fixture (plain Python),
and points the manifest's weights at weights.bin (../packed_weights.py).

One piece, six gemms that exercise the layouts and dtypes of the format's
`gemm` plan op (artifact/manifest.json, written by hand):

  out0 = A @ W + bias        f32, batch 2, W broadcast (batch stride 0)
  out1 = AT^T @ W            f32, a transposed by strides, c column-major,
                             copied to a dense result by a kernel
  out2 = Abf[1:4] @ Wbf + bbf  bf16 with bias, a at an offset of 6 elements
                             (12 bytes: not 16-byte aligned)
  out3 = Ah @ Wh             f16, batch 2 with a batched b
  out4 = Abf[0:3] @ Wbf + b32  bf16 inputs into an f32 c (c_dtype) with an f32
                             bias; c at an offset of 4 f32 elements in its buffer
  out5 = Ah @ Wh             f16 inputs into an f32 c, batch 2

References are computed here in double precision from the rounded inputs,
independently of any GPU code, then rounded to the output dtype.
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


def bf16_bits(v):
    bits = struct.unpack("<I", struct.pack("<f", v))[0]
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def bf16(v):
    return struct.unpack("<f", struct.pack("<I", bf16_bits(v) << 16))[0]


def f16(v):
    return struct.unpack("<e", struct.pack("<e", v))[0]


def values(seed, count, rounding):
    state = seed
    out = []
    for _ in range(count):
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        out.append(rounding(((state >> 40) / float(1 << 24)) * 2.0 - 1.0))
    return out


PACK = {
    "float32": lambda vs: struct.pack("<%df" % len(vs), *vs),
    "bfloat16": lambda vs: struct.pack("<%dH" % len(vs), *[bf16_bits(v) for v in vs]),
    "float16": lambda vs: struct.pack("<%de" % len(vs), *vs),
}
ROUND = {"float32": f32, "bfloat16": bf16, "float16": f16}


def write_tensor(stem, shape, dtype, vs):
    with open(stem + ".bin", "wb") as f:
        f.write(PACK[dtype](vs))
    with open(stem + ".json", "w") as f:
        f.write('{"shape": [%s], "dtype": "%s"}' % (", ".join(map(str, shape)), dtype))


def matmul(a, a_index, b, b_index, m, k, n, bias=None):
    """c[i][j] = sum_t a[a_index(i, t)] * b[b_index(t, j)] (+ bias[j])."""
    return [[sum(a[a_index(i, t)] * b[b_index(t, j)] for t in range(k)) +
             (bias[j] if bias else 0.0) for j in range(n)] for i in range(m)]


# Weights, each at a multiple of 256 bytes (see the manifest's offsets).
W = values(1, 5 * 4, f32)            # f32 [5, 4]      offset 0
bias = values(2, 4, f32)             # f32 [4]         offset 256
Wbf = values(3, 6 * 8, bf16)         # bf16 [6, 8]     offset 512
bbf = values(4, 8, bf16)             # bf16 [8]        offset 768
Wh = values(5, 2 * 7 * 2, f16)       # f16 [2, 7, 2]   offset 1024
b32 = values(6, 8, f32)              # f32 [8]         offset 1280
blob = bytearray(1280 + 4 * 8)
LAYOUT = (("W", 0, "float32", W, [5, 4]), ("bias", 256, "float32", bias, [4]),
          ("Wbf", 512, "bfloat16", Wbf, [6, 8]), ("bbf", 768, "bfloat16", bbf, [8]),
          ("Wh", 1024, "float16", Wh, [2, 7, 2]), ("b32", 1280, "float32", b32, [8]))
for _, offset, dtype, vs, _ in LAYOUT:
    data = PACK[dtype](vs)
    blob[offset:offset + len(data)] = data
with open(os.path.join(HERE, "artifact", "weights.bin"), "wb") as f:
    f.write(blob)
pack_manifest(os.path.join(HERE, "artifact", "manifest.json"), blob,
              [(name, offset, len(PACK[dtype](vs)), shape)
               for name, offset, dtype, vs, shape in LAYOUT])

# User inputs.
A = values(10, 2 * 3 * 5, f32)       # f32 [2, 3, 5]
AT = values(11, 5 * 3, f32)          # f32 [5, 3]: a is its transpose
Abf = values(12, 4 * 6, bf16)        # bf16 [4, 6]: a is rows 1..3
Ah = values(13, 2 * 3 * 7, f16)      # f16 [2, 3, 7]

out0 = []
for batch in range(2):
    rows = matmul(A, lambda i, t: batch * 15 + i * 5 + t, W, lambda t, j: t * 4 + j, 3, 5, 4, bias)
    out0 += [f32(v) for row in rows for v in row]
out1 = [f32(v) for row in matmul(AT, lambda i, t: t * 3 + i, W, lambda t, j: t * 4 + j, 3, 5, 4)
        for v in row]
out2 = [bf16(v) for row in matmul(Abf, lambda i, t: (i + 1) * 6 + t, Wbf, lambda t, j: t * 8 + j,
                                  3, 6, 8, bbf) for v in row]
out3 = []
for batch in range(2):
    rows = matmul(Ah, lambda i, t: batch * 21 + i * 7 + t, Wh, lambda t, j: batch * 14 + t * 2 + j,
                  3, 7, 2)
    out3 += [f16(v) for row in rows for v in row]
out4 = [f32(v) for row in matmul(Abf, lambda i, t: i * 6 + t, Wbf, lambda t, j: t * 8 + j,
                                 3, 6, 8, b32) for v in row]
out5 = []
for batch in range(2):
    rows = matmul(Ah, lambda i, t: batch * 21 + i * 7 + t, Wh, lambda t, j: batch * 14 + t * 2 + j,
                  3, 7, 2)
    out5 += [f32(v) for row in rows for v in row]

stem = os.path.join(HERE, "fixture", "case0")
write_tensor(stem + "_in0", [2, 3, 5], "float32", A)
write_tensor(stem + "_in1", [5, 3], "float32", AT)
write_tensor(stem + "_in2", [4, 6], "bfloat16", Abf)
write_tensor(stem + "_in3", [2, 3, 7], "float16", Ah)
write_tensor(stem + "_out0", [2, 3, 4], "float32", out0)
write_tensor(stem + "_out1", [3, 4], "float32", out1)
write_tensor(stem + "_out2", [3, 8], "bfloat16", out2)
write_tensor(stem + "_out3", [2, 3, 2], "float16", out3)
write_tensor(stem + "_out4", [3, 8], "float32", out4)
write_tensor(stem + "_out5", [2, 3, 2], "float32", out5)
