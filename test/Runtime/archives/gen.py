#!/usr/bin/env python3
"""Writes three small zip archives laid out like torch.export's (every entry
in one folder named after the file) for the runtime's weight-loading tests
(test/unit/RuntimeTest.cpp, RuntimeWeights):

  model-a.zip    data/0  f32 [12]  stored    a0[i] = 0.5 * i - 1
                 data/1  f32 [16]  deflated  a1[i] = i % 4
                 data/2  i64 [6]   stored    a2[i] = 10 * i - 7
  model-b.zip    the same names in another folder and order, other values,
                 the methods of data/0 and data/1 swapped, one more entry:
                 b0[i] = 100 + 0.5 * i, b1[i] = 100 + i % 4, b2[i] = 1000 + i
  model-bad.zip  no data/0, a data/1 of only 4 floats, data/2 as in model-a

The tests compute the same values themselves.
"""
import os
import struct
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def f32s(values):
    return struct.pack("<%df" % len(values), *values)


def i64s(values):
    return struct.pack("<%dq" % len(values), *values)


def write(name, entries):
    """entries: (name inside the folder, bytes, stored or deflated)."""
    folder = name[:-len(".zip")]
    with zipfile.ZipFile(os.path.join(HERE, name), "w") as z:
        for entry, data, method in entries:
            info = zipfile.ZipInfo(folder + "/" + entry, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = method
            z.writestr(info, data)


STORED, DEFLATED = zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED
a0 = f32s([0.5 * i - 1 for i in range(12)])
a1 = f32s([float(i % 4) for i in range(16)])
a2 = i64s([10 * i - 7 for i in range(6)])
write("model-a.zip", [("version", b"1\n", STORED), ("data/0", a0, STORED),
                      ("data/1", a1, DEFLATED), ("data/2", a2, STORED)])
write("model-b.zip", [("data/2", i64s([1000 + i for i in range(6)]), STORED),
                      ("data/1", f32s([100.0 + i % 4 for i in range(16)]), STORED),
                      ("extra", b"not a weight", DEFLATED),
                      ("data/0", f32s([100 + 0.5 * i for i in range(12)]), DEFLATED),
                      ("version", b"1\n", STORED)])
write("model-bad.zip", [("data/1", f32s([1.0, 2.0, 3.0, 4.0]), DEFLATED), ("data/2", a2, STORED)])
