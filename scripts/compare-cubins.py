#!/usr/bin/env python3
"""Tells whether two cubins (ELF) hold the same machine code: every section
of a kernel (.text.K, .nv.info.K, .nv.constant0.K, .nv.shared.K, ...) equal
byte for byte, and the module's attributes (.nv.info) equal once their
symbol indices are read as names. Symbol order, string tables and tool notes
may differ. For checking that a ptxas option changes how ptxas works, not
what it produces, without a GPU (cuobjdump is not on every machine).

    scripts/compare-cubins.py A.cubin B.cubin     (exit 0 when the same)
"""
import struct
import sys


def read(path):
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        sys.exit("%s is no 64-bit ELF file" % path)
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = []
    for i in range(shnum):
        name, kind, _flags, _addr, offset, size, link, _info, _align, _entsize = \
            struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
        headers.append((name, kind, offset, size, link))

    def text(table, at):
        start = headers[table][2] + at
        return data[start:data.index(b"\0", start)].decode()

    sections = {}
    for name, kind, offset, size, link in headers:
        # SHT_NOBITS (8) has no bytes in the file.
        sections[text(shstrndx, name)] = (kind, b"" if kind == 8 else data[offset:offset + size], link)
    symtab = next(s for s in sections.values() if s[0] == 2)  # SHT_SYMTAB
    symbols = []
    for i in range(len(symtab[1]) // 24):
        name = struct.unpack_from("<I", symtab[1], i * 24)[0]
        symbols.append(text(symtab[2], name))
    return sections, symbols


def module_attributes(sections, symbols):
    """The entries of .nv.info, a symbol index (an SVAL's first word) read
    as the symbol's name."""
    blob = sections.get(".nv.info", (0, b"", 0))[1]
    entries, at = [], 0
    while at + 4 <= len(blob):
        form, attr = blob[at], blob[at + 1]
        if form == 4:  # EIFMT_SVAL: size, then the value
            size = struct.unpack_from("<H", blob, at + 2)[0]
            value = blob[at + 4:at + 4 + size]
            at += 4 + size
            if size >= 4:
                index = struct.unpack_from("<I", value)[0]
                name = symbols[index] if index < len(symbols) else index
                entries.append((attr, str(name), value[4:].hex()))
            else:
                entries.append((attr, "", value.hex()))
        else:  # EIFMT_NVAL, BVAL, HVAL: two bytes of value in place
            entries.append((attr, "", blob[at + 2:at + 4].hex()))
            at += 4
    return sorted(entries)


def main(a_path, b_path):
    a, a_symbols = read(a_path)
    b, b_symbols = read(b_path)
    differ = []
    for name in sorted(set(a) | set(b)):
        if name in (".nv.info", ".symtab", ".strtab", ".shstrtab") or name.startswith(".note"):
            continue
        if a.get(name, (None, None))[1] != b.get(name, (None, None))[1]:
            differ.append(name)
    if module_attributes(a, a_symbols) != module_attributes(b, b_symbols):
        differ.append(".nv.info (by symbol)")
    kernels = sum(1 for name in a if name.startswith(".text."))
    if differ:
        print("different: " + ", ".join(differ))
        return 1
    print("same machine code: %d kernel(s)" % kernels)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
