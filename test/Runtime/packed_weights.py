"""Points a hand-written test manifest at its packed weights.bin (artifact
format version 2, what `magi-compile --pack-weights` writes): rewrites its
"version", its "weights" line and each weight input's "weight" object, with
each weight's range, CRC-32 (zlib's) and a dense row-major view. The rest of
the manifest, written by hand, stays as it is.
"""
import re
import zlib


def row_major_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return list(reversed(strides))


def pack_manifest(manifest_path, blob, weights):
    """weights: (input name, offset, byte count, shape) for each weight."""
    with open(manifest_path) as f:
        text = f.read()
    text, n = re.subn(r'"version": \d+', '"version": 2', text, count=1)
    assert n == 1, "no version"
    text, n = re.subn(r'^  "weights": .*,$',
                      '  "weights": {"files": [{"path": "weights.bin", "bytes": %d}]},' % len(blob),
                      text, count=1, flags=re.M)
    assert n == 1, "no weights line"
    for name, offset, size, shape in weights:
        ref = ('{"file": 0, "method": "stored", "offset": %d, "stored_bytes": %d, "bytes": %d,\n'
               '                  "crc32": %d, "storage_offset": 0, "strides": [%s]}'
               % (offset, size, size, zlib.crc32(bytes(blob[offset:offset + size])),
                  ", ".join(map(str, row_major_strides(shape)))))
        pattern = r'("name": "%s", [^\n]*\n\s*"weight": )\{[^}]*\}' % re.escape(name)
        text, n = re.subn(pattern, lambda m: m.group(1) + ref, text, count=1)
        assert n == 1, "no weight " + name
    with open(manifest_path, "w") as f:
        f.write(text)
