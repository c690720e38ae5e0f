"""What --pad-to-compile-sizes does to a fixture, on the CPU (magi-interp).

  padding.py pad PREFIX_in0 SIZE OUT      input 0 padded with zeros along dim 1 to SIZE
                                          (OUT.bin + OUT.json)
  padding.py compare OUTDIR PREFIX TOL    each OUTDIR/outN cut back to the reference's
                                          size along dim 1 where it differs, against
                                          PREFIX_outN: 'outN: rel_err=X OK|FAIL'
Raw tensors: .bin (little-endian, dense) with .json {"shape": [...], "dtype": "..."}.
"""
import array
import json
import math
import sys

CODES = {"int64": "q", "float32": "f"}


def read(base):
    meta = json.load(open(base + ".json"))
    values = array.array(CODES[meta["dtype"]])
    values.frombytes(open(base + ".bin", "rb").read())
    return meta, values


def rows(shape, values, dim, keep):
    """The tensor cut to `keep` along `dim`."""
    outer = math.prod(shape[:dim])
    inner = math.prod(shape[dim + 1:])
    out = []
    for o in range(outer):
        start = o * shape[dim] * inner
        out.extend(values[start:start + keep * inner])
    return out


def main():
    if sys.argv[1] == "pad":
        meta, values = read(sys.argv[2])
        size, shape = int(sys.argv[3]), meta["shape"]
        outer, inner = math.prod(shape[:1]), math.prod(shape[2:])
        padded = array.array(values.typecode)
        for o in range(outer):
            start = o * shape[1] * inner
            padded.extend(values[start:start + shape[1] * inner])
            padded.extend([0] * ((size - shape[1]) * inner))
        open(sys.argv[4] + ".bin", "wb").write(padded.tobytes())
        json.dump({"shape": [shape[0], size] + shape[2:], "dtype": meta["dtype"]},
                  open(sys.argv[4] + ".json", "w"))
        return
    outdir, prefix, tolerance = sys.argv[2], sys.argv[3], float(sys.argv[4])
    n = 0
    while True:
        try:
            ref_meta, ref = read(f"{prefix}_out{n}")
        except FileNotFoundError:
            break
        meta, out = read(f"{outdir}/out{n}")
        if meta["shape"] != ref_meta["shape"]:
            out = rows(meta["shape"], out, 1, ref_meta["shape"][1])
        err = math.sqrt(sum((a - b) ** 2 for a, b in zip(out, ref)))
        err /= math.sqrt(sum(b * b for b in ref)) or 1.0
        print(f"out{n}: rel_err={err:.1e} {'OK' if err <= tolerance else 'FAIL'}")
        n += 1


main()
