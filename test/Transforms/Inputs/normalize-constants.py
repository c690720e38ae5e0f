#!/usr/bin/env python3
"""Makes printed MLIR independent of where its constants sit.

The canonicalizer hoists constants to the top of a function in the order it
meets them, and the printer names them (%cst, %cst_0, %c1_i64, ...) in that
order; so two graphs that differ only in the order of their hoisted constants
print differently. This rewrites every use of an `arith.constant` or
`magi.constant` result to the constant's value and type, drops the
definitions, and lists the constants (sorted, without names) at the top of
each function. Everything else is left as printed.

Usage: normalize-constants.py < in.mlir > out.mlir
"""
import re
import sys

DEF = re.compile(r"^(\s*)(%[\w$.-]+) = (arith\.constant|magi\.constant) (.*)$")
NAME = re.compile(r"%[\w$.-]+")

out = []
pending = None  # (index in out where the constants go, [definitions])
names = {}


def flush():
    global pending
    if pending is not None:
        index, defs = pending
        out[index:index] = sorted(set(defs))
    pending = None


for line in sys.stdin.read().splitlines():
    if re.match(r"^\s*func\.func ", line):
        flush()
        names = {}
        out.append(line)
        pending = (len(out), [])
        continue
    m = DEF.match(line)
    if m and pending is not None:
        indent, name, op, rest = m.groups()
        value = NAME.sub(lambda n: names.get(n.group(0), n.group(0)), rest)
        names[name] = "<%s %s>" % (op, value)
        pending[1].append("%s// constant: %s %s" % (indent, op, value))
        continue
    out.append(NAME.sub(lambda n: names.get(n.group(0), n.group(0)), line))
flush()
sys.stdout.write("\n".join(out) + "\n")
