"""Writes and reads the tensor files magi-interp's tests use, with the
standard library only (numpy may be missing).

  tensors.py npy  PATH DTYPE SHAPE VALUES [--version 2]
  tensors.py bin  BASE DTYPE SHAPE VALUES     (BASE.bin + BASE.json)
  tensors.py zip  PATH ENTRY=DTYPE:VALUES ...  (a stored zip archive)
  tensors.py show PATH                         (a .npy or a .bin/.json pair)
  tensors.py npy-header PATH HEADER            (a .npy with this header dict
                                                and no data, for bad headers)
  tensors.py random BASE DTYPE SHAPE SEED      (BASE.bin + BASE.json: uniform
                                                in [-1, 1), bool true with
                                                probability 0.7 except row
                                                rows // 3 of the last two
                                                dimensions, all false (a
                                                mask hiding a whole row);
                                                seeded)

DTYPE is a PyTorch dtype name (float32, bfloat16, int64, bool, ...), SHAPE
comma-separated sizes ("" for 0-d), VALUES comma-separated numbers.
"""

import json
import struct
import sys
import zipfile

FORMATS = {
    "float64": ("d", "<f8"), "float32": ("f", "<f4"), "float16": ("e", "<f2"),
    "bfloat16": (None, None), "int64": ("q", "<i8"), "int32": ("i", "<i4"),
    "int16": ("h", "<i2"), "int8": ("b", "|i1"), "uint8": ("B", "|u1"),
    "bool": ("?", "|b1"),
}
DESCRS = {descr: name for name, (_, descr) in FORMATS.items() if descr}


def parse_values(dtype, text):
    values = [v for v in text.split(",") if v != ""]
    if dtype.startswith("float") or dtype == "bfloat16":
        return [float(v) for v in values]
    if dtype == "bool":
        return [v.lower() in ("1", "true") for v in values]
    return [int(v) for v in values]


def pack(dtype, values):
    if dtype == "bfloat16":
        out = b""
        for v in values:
            bits = struct.unpack("<I", struct.pack("<f", v))[0]
            bits += 0x7FFF + ((bits >> 16) & 1)  # round to nearest even
            out += struct.pack("<H", (bits >> 16) & 0xFFFF)
        return out
    return struct.pack("<%d%s" % (len(values), FORMATS[dtype][0]), *values)


def unpack(dtype, data):
    if dtype == "bfloat16":
        n = len(data) // 2
        return [struct.unpack("<f", struct.pack("<I", b << 16))[0]
                for b in struct.unpack("<%dH" % n, data)]
    code = FORMATS[dtype][0]
    return list(struct.unpack("<%d%s" % (len(data) // struct.calcsize(code),
                                         code), data))


def parse_shape(text):
    return [int(s) for s in text.split(",") if s != ""]


def npy_bytes(dtype, shape, values, version=1):
    shape_text = "(" + ", ".join(str(s) for s in shape)
    shape_text += ",)" if len(shape) == 1 else ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (
        FORMATS[dtype][1], shape_text)
    length_size = 2 if version == 1 else 4
    total = 8 + length_size + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    length = struct.pack("<H" if version == 1 else "<I", len(header))
    return (b"\x93NUMPY" + bytes([version, 0]) + length + header.encode() +
            pack(dtype, values))


def show(path):
    if path.endswith(".npy"):
        data = open(path, "rb").read()
        version = data[6]
        length_size = 2 if version == 1 else 4
        length = int.from_bytes(data[8:8 + length_size], "little")
        header = data[8 + length_size:8 + length_size + length].decode()
        info = eval(header)  # a Python dict literal, written by us
        dtype = DESCRS[info["descr"]]
        values = unpack(dtype, data[8 + length_size + length:])
        print("npy v%d %s %s %s" % (version, info["descr"], list(info["shape"]),
                                     values))
        return
    base = path.rsplit(".", 1)[0]
    meta = json.load(open(base + ".json"))
    values = unpack(meta["dtype"], open(base + ".bin", "rb").read())
    print("%s %s %s" % (meta["dtype"], meta["shape"], values))


def main(argv):
    command = argv[1]
    if command == "npy":
        path, dtype, shape, values = argv[2:6]
        version = int(argv[7]) if len(argv) > 7 and argv[6] == "--version" else 1
        with open(path, "wb") as f:
            f.write(npy_bytes(dtype, parse_shape(shape),
                              parse_values(dtype, values), version))
    elif command == "bin":
        base, dtype, shape, values = argv[2:6]
        with open(base + ".bin", "wb") as f:
            f.write(pack(dtype, parse_values(dtype, values)))
        with open(base + ".json", "w") as f:
            json.dump({"shape": parse_shape(shape), "dtype": dtype}, f)
    elif command == "zip":
        with zipfile.ZipFile(argv[2], "w", zipfile.ZIP_STORED) as z:
            for spec in argv[3:]:
                entry, rest = spec.split("=", 1)
                dtype, values = rest.split(":", 1)
                z.writestr(entry, pack(dtype, parse_values(dtype, values)))
    elif command == "random":
        import random
        base, dtype, shape, seed = argv[2:6]
        rng = random.Random(int(seed))
        count = 1
        for size in parse_shape(shape):
            count *= size
        if dtype == "bool":
            values = [rng.random() < 0.7 for _ in range(count)]
            dims = parse_shape(shape)
            if len(dims) >= 2:
                rows, cols = dims[-2], dims[-1]
                for start in range(0, count, rows * cols):
                    hidden = start + (rows // 3) * cols
                    values[hidden:hidden + cols] = [False] * cols
        else:
            values = [rng.uniform(-1.0, 1.0) for _ in range(count)]
        with open(base + ".bin", "wb") as f:
            f.write(pack(dtype, values))
        with open(base + ".json", "w") as f:
            json.dump({"shape": parse_shape(shape), "dtype": dtype}, f)
    elif command == "npy-header":
        header = argv[3] + "\n"
        with open(argv[2], "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) +
                    header.encode())
    elif command == "show":
        show(argv[2])
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main(sys.argv)
