"""Writes a small seed for the pt2 fuzz target from a torch.export archive:
the same entries, weights and constants zeroed and every entry deflated, so
the importer sees a real program at a few KiB.

usage: make_pt2_seed.py SRC.pt2 DST.pt2"""
import sys
import zipfile

src, dst = sys.argv[1:3]
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zout:
    for info in zin.infolist():
        data = zin.read(info.filename)
        if "/data/weights/" in info.filename or "/data/constants/" in info.filename:
            if not info.filename.endswith(".json"):
                data = bytes(len(data))
        zout.writestr(info.filename, data)
