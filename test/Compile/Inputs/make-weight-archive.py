#!/usr/bin/env python3
"""Writes a zip archive holding one stored entry of MB megabytes of zeros
(written in 8 MiB chunks, so this script stays small too):
    make-weight-archive.py OUT.zip ENTRY MB
The weights tests compile against it and check that magi-compile never holds
the bytes."""
import sys
import zipfile

out, entry, megabytes = sys.argv[1], sys.argv[2], int(sys.argv[3])
chunk = bytes(8 << 20)
with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
    with archive.open(entry, "w", force_zip64=True) as f:
        left = megabytes << 20
        while left:
            n = min(left, len(chunk))
            f.write(chunk[:n])
            left -= n
