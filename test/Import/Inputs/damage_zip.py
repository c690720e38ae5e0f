"""Writes a copy of a zip archive whose headers or data lie, for the archive
reader's error tests: damage_zip.py SRC DST MUTATION ENTRY [ARG].

The entries are read with zipfile and written back by hand, so that the local
and central headers agree with each other (libzip checks that) but not with
the data:
  claim-size ENTRY N   ENTRY's headers claim N uncompressed bytes (zip64
                       fields from 4 GiB on); its data stays as it is
  deflate ENTRY [N]    ENTRY deflated; with N, its headers claim N bytes
  flip-byte ENTRY      one byte inside ENTRY's stored data flipped, the
                       CRC-32 in the headers left as it was
  duplicate ENTRY      ENTRY written twice
"""
import struct
import sys
import zipfile
import zlib

src, dst, mutation, target = sys.argv[1:5]
arg = int(sys.argv[5]) if len(sys.argv) > 5 else None

with zipfile.ZipFile(src) as zin:
    entries = [(info.filename, zin.read(info.filename)) for info in zin.infolist()]
if target not in dict(entries):
    sys.exit("no entry " + target)
if mutation == "duplicate":
    entries.append((target, dict(entries)[target]))
elif mutation not in ("claim-size", "deflate", "flip-byte"):
    sys.exit("unknown mutation " + mutation)

ZIP64_LIMIT = 0xFFFFFFFF
out = bytearray()
central = bytearray()
for name, data in entries:
    crc = zlib.crc32(data)
    size = len(data)
    method = 0
    stored = data
    if name == target:
        if mutation == "deflate":
            method = 8
            compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
            stored = compressor.compress(data) + compressor.flush()
        if mutation in ("claim-size", "deflate") and arg is not None:
            size = arg
        if mutation == "flip-byte":
            middle = len(data) // 2
            stored = data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1:]
    encoded = name.encode()
    zip64 = size >= ZIP64_LIMIT
    # Sizes of 4 GiB and more move to a zip64 extra field (id 1).
    extra = struct.pack("<HHQQ", 1, 16, size, len(stored)) if zip64 else b""
    size32 = ZIP64_LIMIT if zip64 else size
    comp32 = ZIP64_LIMIT if zip64 else len(stored)
    version = 45 if zip64 else 20
    offset = len(out)
    out += struct.pack("<IHHHHHIIIHH", 0x04034B50, version, 0, method, 0, 0x21,
                       crc, comp32, size32, len(encoded), len(extra))
    out += encoded + extra + stored
    central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, version, version, 0,
                           method, 0, 0x21, crc, comp32, size32, len(encoded),
                           len(extra), 0, 0, 0, 0, offset)
    central += encoded + extra
count = len(entries)
out_offset = len(out)
out += central
out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, len(central),
                   out_offset, 0)
with open(dst, "wb") as f:
    f.write(out)
