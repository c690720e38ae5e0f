#!/usr/bin/env python3
"""Writes docs/ops.md: every core ATen op overload and how far it gets in
Magi, from the sources and the tools, never by hand.

- core ops: the list PyTorch tags torch.Tag.core, as the GPU run recorded it
  (docs/results/h100-ops-*.json or h200-ops-*.json, from
  scripts/gpu-ops-check.py and scripts/ops-import-results.py);
- magi op: the importer's converter table (`magi-import --list-ops`);
- sample: the smallest of PyTorch's OpInfo samples that holds the op, as
  exported on the GPU machine (test/Ops/Inputs/core-op-samples.tgz: the
  archive, its inputs and PyTorch's outputs);
- interpreted: `magi-interp ARCHIVE --fixture case0` matches PyTorch (the
  bars of docs/interp.md); a sample holding a random or empty op compares
  shapes and dtypes (scripts/core_ops.py);
- lowered: `magi-compile ARCHIVE --no-cubin` writes an artifact (every
  piece through linalg, GPU and NVVM to PTX);
- GPU: the GPU run's result (compiled with cubins and run there; the JSON
  names the card).

The test docs-up-to-date-ops runs this and compares with docs/ops.md:

    python3 scripts/ops-table.py --bin build/bin > docs/ops.md
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "scripts"))
from core_ops import values_comparable  # noqa: E402
# Why an op has no sample, where the reason is a principle rather than work
# not done (the rest say "no OpInfo sample reaches it").
EXCEPTIONS = [
    (r"_backward\.|_backward$|embedding_dense_backward",
     "a gradient op: Magi compiles inference graphs (torch.no_grad exports)"),
    (r"aten::sym_(numel|stride|storage_offset)",
     "symbolic sizes only: OpInfo samples export with static sizes; "
     "test/Import/sym-layout-var-dim.mlir checks the import"),
    (r"aten::(reflection|replication)_pad|aten::upsample_nearest",
     "no OpInfo sample reaches it (run_decompositions() and run_decompositions({}) "
     "turn the samples into other ops); test/Import/padding.mlir checks import, "
     "interpretation and lowering by hand"),
    (r"aten::col2im",
     "no OpInfo sample reaches it (run_decompositions() and run_decompositions({}) "
     "turn the samples into other ops); test/Import/col2im.mlir checks import, "
     "interpretation and lowering by hand"),
    (r"aten::_native_batch_norm_legit\.",
     "no OpInfo sample reaches it (run_decompositions() and run_decompositions({}) "
     "turn the samples into other ops); test/Import/batch-norm-training.mlir checks "
     "import, interpretation and lowering by hand"),
]


def first_error(text, scratch, limit=160):
    """The first `error:` line, without the sample's location (a temporary
    path: the table must not change between runs)."""
    text = re.sub(r" at '[^']*' in \S+", "", text.replace(scratch + "/", ""))
    for line in text.splitlines():
        if "error:" in line:
            line = line[line.index("error:") + len("error:"):].strip()
            return line[:limit]
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[0][:limit] if lines else "failed"


def imported_ops(bin_dir):
    text = subprocess.run([os.path.join(bin_dir, "magi-import"), "--list-ops"],
                          check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in text.splitlines():
        m = re.match(r"\| `([^`]+)` \| `([^`]+)` \|", line)
        if m:
            rows[m.group(1)] = m.group(2)
    return rows


def magi_op_of(name, rows):
    if name in rows:
        return rows[name]
    base = name.rsplit(".", 1)[0]
    return rows.get(base)


def check_archive(bin_dir, directory, values, work, scratch):
    """(interpreted, lowered): "yes" or the first error, for one archive."""
    archive = os.path.join(directory, "model.pt2")
    if values:
        run = subprocess.run([os.path.join(bin_dir, "magi-interp"), archive,
                              "--fixture", os.path.join(directory, "case0")],
                             capture_output=True, text=True)
        interpreted = "yes" if run.returncode == 0 else first_error(run.stderr + run.stdout, scratch)
        if run.returncode != 0 and "FAIL" in run.stdout:
            interpreted = "mismatch: " + " ".join(
                l.strip() for l in run.stdout.splitlines() if "FAIL" in l)[:120]
    else:
        saved = os.path.join(work, "outputs")
        run = subprocess.run([os.path.join(bin_dir, "magi-interp"), archive,
                              *sum((["--input", os.path.join(directory, f)]
                                    for f in sorted(os.listdir(directory),
                                                    key=lambda f: int(re.sub(r"\D", "", f) or 0))
                                    if re.fullmatch(r"case0_in\d+\.bin", f)), []),
                              "--save-outputs", saved], capture_output=True, text=True)
        if run.returncode != 0:
            interpreted = first_error(run.stderr + run.stdout, scratch)
        else:
            interpreted = "yes (shapes and dtypes)"
            i = 0
            while os.path.exists(os.path.join(directory, "case0_out%d.json" % i)):
                ref = json.load(open(os.path.join(directory, "case0_out%d.json" % i)))
                out_path = os.path.join(saved, "out%d.json" % i)
                if not os.path.exists(out_path) or json.load(open(out_path)) != ref:
                    interpreted = "mismatch: output %d's shape or dtype" % i
                i += 1
    compiled = subprocess.run([os.path.join(bin_dir, "magi-compile"), archive, "-o",
                               os.path.join(work, "artifact"), "--no-cubin",
                               "--cache-mode=off", "--quiet"], capture_output=True, text=True)
    lowered = "yes" if compiled.returncode == 0 else first_error(compiled.stderr + compiled.stdout, scratch)
    return interpreted, lowered


def cell(text):
    return text.replace("|", "/").replace("\n", " ")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(REPO, "build", "bin"))
    parser.add_argument("--samples", default=os.path.join(REPO, "test", "Ops", "Inputs",
                                                          "core-op-samples.tgz"))
    parser.add_argument("--gpu", default=os.path.join(REPO, "docs", "results",
                                                      "h100-ops-2026-12-07-b.json"))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    gpu = json.load(open(args.gpu))
    card = "h100" if "H100" in gpu["gpu"] else "h200"
    rows = imported_ops(args.bin)
    with tempfile.TemporaryDirectory(prefix="magi-ops-") as scratch:
        with tarfile.open(args.samples) as tar:
            tar.extractall(scratch, filter="data")
        archives = sorted({entry["archive"] for entry in gpu["ops"].values() if entry["archive"]})
        # As on the GPU machine: by every op the sample's graph holds.
        values = {a: values_comparable(gpu["archives"][a]) for a in archives}

        def check(archive):
            work = os.path.join(scratch, "work", archive)
            os.makedirs(work)
            return archive, check_archive(args.bin, os.path.join(scratch, archive),
                                          values[archive], work, scratch)

        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = dict(pool.map(check, archives))

    lines, counts = [], {"typed": 0, "sample": 0, "interpreted": 0, "lowered": 0, "gpu": 0}
    for name in gpu["core"]:
        entry = gpu["ops"][name]
        magi_op = magi_op_of(name, rows)
        counts["typed"] += magi_op is not None
        if entry["archive"]:
            interpreted, lowered = results[entry["archive"]]
            sample = "`%s`%s" % (entry["archive"], "" if entry["in_core_graphs"] else
                                 " (run_decompositions({}))")
            counts["sample"] += 1
        else:
            interpreted = lowered = "-"
            reason = next((why for pattern, why in EXCEPTIONS if re.search(pattern, name)),
                          "no OpInfo sample reaches it: run_decompositions() and "
                          "run_decompositions({}) turn the samples into other ops")
            sample = "none: " + reason
        counts["interpreted"] += interpreted.startswith("yes")
        counts["lowered"] += lowered == "yes"
        on_gpu = entry["status"]
        counts["gpu"] += on_gpu in ("matched", "ran (shapes only)")
        lines.append("| `%s` | %s | %s | %s | %s | %s |" % (
            name, "`%s`" % magi_op if magi_op else "opaque", sample, cell(interpreted),
            cell(lowered), on_gpu))

    out = sys.stdout
    out.write("# Core ATen ops in Magi\n\n")
    out.write("Generated by `scripts/ops-table.py` (run it with `--bin build/bin > docs/ops.md`); "
              "the test\n`docs-up-to-date-ops` fails when this file differs from what it "
              "writes.\n\n")
    out.write("PyTorch %s tags %d op overloads `torch.Tag.core`. For each: the magi op the "
              "importer\nmakes of it (`magi-import --list-ops`), the smallest of PyTorch's own "
              "OpInfo samples\nthat holds it (exported on the GPU machine by "
              "`scripts/gpu-ops-check.py`, kept in\n`test/Ops/Inputs/core-op-samples.tgz` with "
              "PyTorch's outputs), whether `magi-interp`\nmatches PyTorch on that sample, "
              "whether `magi-compile --no-cubin` lowers it to PTX, and\nwhat it did on the "
              "GPU (an %s, %s, %s: compiled there with cubins, run,\ncompared; "
              "`docs/results/%s-ops-summary-%s.md` has each error). A sample can hold\nother "
              "ops than the one named; an error may be theirs. A row lowered here but\nnot "
              "on the GPU changed after that run (it names the compiler it ran).\n\n" % (
                  gpu["torch"], len(gpu["core"]), gpu["gpu"], gpu["date"], gpu["compiler"],
                  card, gpu["date"]))
    out.write("| of %d | typed | with a sample | interpreted | lowered | matched on the GPU |\n"
              "|---|---|---|---|---|---|\n| count | %d | %d | %d | %d | %d |\n\n" % (
                  len(gpu["core"]), counts["typed"], counts["sample"], counts["interpreted"],
                  counts["lowered"], counts["gpu"]))
    out.write("| core op | magi op | sample | interpreted | lowered | GPU |\n"
              "|---|---|---|---|---|---|\n")
    out.write("\n".join(lines) + "\n")
    out.write(STAYS_OPAQUE)
    return 0


# Why the ops that neither compile nor have a sample stay as they are. Kept
# here, beside the table it explains, so that the two change together.
STAYS_OPAQUE = """
## What stays opaque, and why

- Gradient ops (`*_backward`, `embedding_dense_backward`): Magi compiles
  inference graphs (`torch.no_grad` exports); a training graph is out of
  scope.
- Random ops (`rand`, `randn`, `randperm`, `native_dropout` in training):
  their values are PyTorch's generator stream, which a compiled kernel
  cannot reproduce, so no run could be compared with PyTorch's. A
  counter-based generator of Magi's own (as Inductor's Philox) would run,
  but not match; not done.
- Data-dependent shapes: `nonzero`'s count and an `.item()`
  (`_local_scalar_dense`, integer or bool) are read on the host
  (`docs/import.md`, "Sizes of the data"). The `tensor_split` sample
  (slices at `.item()`s, and their symbolic `sym_storage_offset`, which
  Magi computes as PyTorch does) interprets and runs lowered on the CPU,
  but its reads have no bound, which the memory plan needs for the sizes
  they give: `magi-compile` refuses it, saying so.
- Complex numbers (`_fft_r2c`, `_fft_c2r`): Magi has no complex dtype.
- No OpInfo sample reaches the rest (`run_decompositions()` turns the
  samples into other ops): typed where the op has a clear form, opaque
  otherwise; an op Magi does not know can be given a definition without
  changing Magi (`--op-library`, `docs/import.md`).
"""


if __name__ == "__main__":
    sys.exit(main())
