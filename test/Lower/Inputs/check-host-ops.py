"""Checks bufferized pieces (read on stdin) for host-side ops.

After one-shot-bufferize, the top level of every piece function (not the
split graph, marked `magi.split`) may hold only linalg ops, memref.alloc,
memref.copy, memref view ops, tensor/memref.dim, scalar constants, and arith
or affine ops on `index` values (their comparisons and selects included:
Python's // and % guard their divisors); everything else runs inside linalg
bodies.
Prints one line per offending op and exits 1 when there is one, else prints
the number of pieces checked.
"""
import re
import sys

ALLOWED = re.compile(
    r"(linalg\.[a-z_]+|memref\.(alloc|copy|subview|expand_shape|collapse_shape"
    r"|cast|dim)|tensor\.dim|arith\.constant|func\.return)$")
INDEX_ONLY = re.compile(r"(arith|affine)\.[a-z_]+$")
OP = re.compile(r'^\s*(?:%[^=]+=\s*)?"?([a-z_]+\.[a-z_.]+)')

bad = []
pieces = 0
depth = 0
func_depth = None  # depth of the current piece's body
func_name = None
for line in sys.stdin:
    stripped = line.strip()
    if func_depth is None and stripped.startswith("func.func"):
        if "magi.split" not in line and stripped.endswith("{"):
            func_depth = depth + 1
            func_name = re.search(r"@([\w.$-]+)", line).group(1)
            pieces += 1
    elif func_depth is not None and depth == func_depth:
        m = OP.match(line)
        if m:
            name = m.group(1)
            ok = ALLOWED.match(name) or (
                INDEX_ONLY.match(name) and re.search(r":\s*index\b", line))
            if not ok:
                bad.append(f"@{func_name}: {stripped}")
    depth += line.count("{") - line.count("}")
    if func_depth is not None and depth < func_depth:
        func_depth = None

for b in bad:
    print("host op:", b)
print(f"checked {pieces} pieces")
sys.exit(1 if bad else 0)
