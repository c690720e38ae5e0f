#!/usr/bin/env python3
"""Takes what scripts/gpu-ops-check.py brought back from the GPU machine
(ops.json, ops-summary.md, ops-archives.tgz in one folder) into the
repository: docs/results/CARD-ops-DATE.json (per core op: status, archive,
detail; per kept archive, the ops its graph holds; what scripts/ops-table.py
reads), docs/results/CARD-ops-summary-DATE.md (CARD: h100 or h200, from the
GPU's name),
and test/Ops/Inputs/core-op-samples.tgz (each op's kept archive with its
cases, written reproducibly). Then `ninja -C build magi-ops-doc` writes
docs/ops.md again (and --gpu of ops-table.py names the new JSON when the
date changed).

    scripts/ops-import-results.py GPU_OUT DATE "the portable release of COMMIT" \
        ["NVIDIA H100 80GB HBM3"]

The GPU's name (nvidia-smi's, default "NVIDIA H200") is the one the run had.
"""

import gzip
import io
import json
import os
import re
import shutil
import sys
import tarfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(source, date, compiler, gpu="NVIDIA H200"):
    report = json.load(open(os.path.join(source, "ops.json")))
    details = {}
    for line in open(os.path.join(source, "ops-summary.md")):
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            details[cells[0].strip("`")] = cells[3] if len(cells) > 3 else ""
    summary = report["summary"]
    trimmed = {
        "torch": report["torch"], "date": date, "gpu": gpu, "compiler": compiler,
        "command": "RELEASE=<archive> scripts/gpu-prepare.sh, then scripts/gpu-session.sh ops",
        "core": report["core"],
        "ops": {name: {"status": entry["status"], "archive": entry["archive"],
                       "in_core_graphs": entry["in_core_graphs"],
                       "detail": details.get(name, "")} for name, entry in summary.items()},
    }
    kept = {entry["archive"] for entry in summary.values() if entry["archive"]}
    # Tests that unpack a sample by name (tar -xzf ...core-op-samples.tgz
    # -C %t NAME) keep it where this run exported it, though it chose
    # another for the op; one it did not export breaks them.
    unpacked = set()
    for root, _, files in os.walk(os.path.join(REPO, "test")):
        for f in files:
            if not f.endswith((".mlir", ".test")):
                continue
            for line in open(os.path.join(root, f), errors="replace"):
                match = re.search(r"core-op-samples\.tgz -C %t ((?:[\w.-]+ ?)+)", line)
                if match:
                    unpacked |= {(os.path.join(root, f), n) for n in match.group(1).split()}
    with tarfile.open(os.path.join(source, "ops-archives.tgz")) as archives:
        members = {m.name: m for m in archives.getmembers() if m.isfile()}
        exported = {name.split("/")[0] for name in members}
        kept |= {n for _, n in unpacked if n in exported}
        kept = sorted(kept)
        # Every op each kept sample's graph holds (ops-table.py decides from
        # them whether its outputs compare).
        trimmed["archives"] = {r["dir"]: r["ops"] for r in report["samples"]
                               if r.get("dir") in kept}
        results = os.path.join(REPO, "docs", "results")
        card = "h100" if "H100" in gpu else "h200"
        with open(os.path.join(results, "%s-ops-%s.json" % (card, date)), "w") as f:
            json.dump(trimmed, f, indent=1, sort_keys=True)
            f.write("\n")
        shutil.copyfile(os.path.join(source, "ops-summary.md"),
                        os.path.join(results, "%s-ops-summary-%s.md" % (card, date)))
        out = os.path.join(REPO, "test", "Ops", "Inputs", "core-op-samples.tgz")
        # gzip's header holds a time unless given one: 0, so that the same
        # samples give the same bytes.
        with open(out, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as packed, \
                tarfile.open(fileobj=packed, mode="w") as tar:
            for name in sorted(members):
                if name.split("/")[0] not in kept:
                    continue
                data = archives.extractfile(members[name]).read()
                info = tarfile.TarInfo(name)
                info.size, info.mode = len(data), 0o644
                tar.addfile(info, io.BytesIO(data))
    print("%d core ops, %d samples kept" % (len(report["core"]), len(kept)))
    missing = {(path, n) for path, n in unpacked if n not in kept}
    for path, name in sorted(missing):
        print("%s unpacks %s, which this run did not export: choose one it kept" % (
            os.path.relpath(path, REPO), name))
    return 1 if missing else 0


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
