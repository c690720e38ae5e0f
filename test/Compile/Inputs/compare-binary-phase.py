"""Checks that the binary phase of the pipeline (magi-opt
--magi-compile-to=binary) compiled each piece as magi-compile
did: the piece's magi.launch_plan equals the kernels, values, plan and
results of the artifact's variant for any size, and its magi.ptx equals the
artifact's PTX file.

    compare-binary-phase.py BINARY_PHASE.mlir ARTIFACT_DIR
"""
import json
import os
import re
import sys

ir_path, artifact = sys.argv[1:3]
ir = open(ir_path).read()
manifest = json.load(open(os.path.join(artifact, "manifest.json")))


def unescape(text):
    # MLIR prints non-printable and quote characters of a string as \XX.
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)),
                  text.replace("\\\\", "\\5C"))


def attribute(piece, name):
    # A compiled piece is a declaration: one line with its attributes.
    line = next((l for l in ir.splitlines()
                 if re.match(r"\s*func\.func private @%s\(" % re.escape(piece), l)),
                None)
    if line is None:
        sys.exit("no piece %s in %s" % (piece, ir_path))
    found = re.search(r"%s = \"((?:[^\"\\]|\\.)*)\"" % re.escape(name), line)
    return unescape(found.group(1)) if found else None


for piece in manifest["pieces"]:
    name = piece["name"]
    variant = next(v for v in piece["variants"] if not v.get("symbols"))
    plan = json.loads(attribute(name, "magi.launch_plan"))
    for key in ("kernels", "values", "plan", "results"):
        if plan[key] != variant.get(key, []):
            sys.exit("%s: the binary phase's '%s' differs from magi-compile's"
                     % (name, key))
    ptx = attribute(name, "magi.ptx")
    if "ptx" in variant:
        expected = open(os.path.join(artifact, variant["ptx"])).read()
        if ptx != expected:
            sys.exit("%s: the binary phase's PTX differs from %s"
                     % (name, variant["ptx"]))
    elif ptx is not None:
        sys.exit("%s: PTX in the binary phase, none in the artifact" % name)
    print("%s: same plan%s" % (name, " and PTX" if ptx else ""))
