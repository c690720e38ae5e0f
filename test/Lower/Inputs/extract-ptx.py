"""Writes the PTX of the first gpu.binary (format=isa) read on stdin to argv[1]."""
import re
import sys

text = sys.stdin.read()
match = re.search(r'assembly = "((?:[^"\\]|\\.)*)"', text)
if not match:
    sys.exit("no gpu.binary assembly found")
raw = match.group(1)
# MLIR string escapes: \XX (hex byte), \\ and \".
out = bytearray()
i = 0
while i < len(raw):
    c = raw[i]
    if c == "\\":
        nxt = raw[i + 1]
        if nxt in '\\"':
            out.append(ord(nxt))
            i += 2
        else:
            out.append(int(raw[i + 1:i + 3], 16))
            i += 3
    else:
        out += c.encode()
        i += 1
open(sys.argv[1], "wb").write(bytes(out))
