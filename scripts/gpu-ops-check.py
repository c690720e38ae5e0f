#!/usr/bin/env python3
"""On the GPU machine: every core ATen op through Magi, with PyTorch's own
OpInfo samples (torch.testing._internal), as issue #15's check asks.

1. Lists the op overloads PyTorch tags `torch.Tag.core`.
2. Exports OpInfo samples (float32 where the op takes it, else int64 or
   bool; on the CPU; at most SAMPLES_PER_OPINFO each) one function at a
   time: torch.export, then run_decompositions() (core ATen, as the
   fixtures are exported) and, separately, run_decompositions({}) (which
   keeps ops the default table decomposes further, such as reflection_pad*
   and upsample_*). The reference output is PyTorch eager's on the CPU. In
   worker processes, in parallel.
3. Keeps, for every core op, the CANDIDATES archives with the fewest graph
   nodes that hold it (fixture format: model.pt2 and case0_in*/case0_out*);
   an op's result is its best candidate's.
4. Compiles each kept archive with magi.compile_file (the C API; cache off),
   in parallel, and records the first error line.
5. Runs each compiled archive on the GPU (magi.load) and compares with the
   reference: the bars of magi-run (1e-4 relative for f32/f64, exact for
   integers and bools; NaN and infinity where the reference has them).
   Random ops (rand, randn, randperm, native_dropout, ...) and empty ones
   compare shapes and dtypes only.

Writes OUT/ops.json (everything), OUT/ops-summary.md (a table per core op)
and OUT/ops-archives.tgz (the kept archives with their cases, for the
repository's CPU tests).

    PYTHONPATH=<release>/python CUDA_PATH=/usr/local/cuda \\
        python3 scripts/gpu-ops-check.py OUT [--work DIR] [--jobs N] [--deadline SECONDS]
"""

import argparse
import json
import multiprocessing
import os
import shutil
import signal
import sys
import tarfile
import time
import traceback
import types
import unittest

import torch
import torch.utils._pytree as pytree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from core_ops import values_comparable  # noqa: E402

SAMPLES_PER_OPINFO = 3
CANDIDATES = 3
TASK_SECONDS = 60
DTYPE_NAMES = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
               torch.bfloat16: "bfloat16", torch.int64: "int64", torch.int32: "int32",
               torch.int8: "int8", torch.uint8: "uint8", torch.bool: "bool"}


def core_overloads():
    names = set()
    for packet_name in dir(torch.ops.aten):
        try:
            packet = getattr(torch.ops.aten, packet_name)
            overloads = packet.overloads()
        except Exception:  # noqa: BLE001 - not an op packet
            continue
        for overload in overloads:
            try:
                op = getattr(packet, overload)
            except Exception:  # noqa: BLE001
                continue
            if torch.Tag.core in op.tags:
                names.add(overload_name(op))
    return sorted(names)


def overload_name(op):
    """aten::add.Tensor, aten::neg.default: the importer's spelling
    (OpOverload.name() leaves out ".default")."""
    namespace, rest = str(op).split(".", 1)
    return namespace + "::" + rest


def load_op_db():
    # common_utils imports expecttest, a test-only package the GPU image
    # lacks; its TestCase is only a base class there.
    try:
        import expecttest  # noqa: F401
    except ImportError:
        shim = types.ModuleType("expecttest")
        shim.TestCase = unittest.TestCase
        sys.modules["expecttest"] = shim
    from torch.testing._internal.common_methods_invocations import op_db
    return op_db


def opinfo_name(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def pick_dtype(op):
    try:
        supported = op.supported_dtypes("cpu")
    except Exception:  # noqa: BLE001
        supported = getattr(op, "dtypes", set())
    for dtype in (torch.float32, torch.int64, torch.bool, torch.int32):
        if dtype in supported:
            return dtype
    return None


def save_tensor(path_stem, t):
    t = t.detach().cpu().contiguous()
    with open(path_stem + ".bin", "wb") as f:
        if t.numel():
            f.write(t.reshape(-1).view(torch.uint8).numpy().tobytes())
    with open(path_stem + ".json", "w") as f:
        json.dump({"shape": list(t.shape), "dtype": DTYPE_NAMES[t.dtype]}, f)


def first_line(text, limit=300):
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[0][:limit] if lines else ""


class Alarm(Exception):
    pass


def on_alarm(signum, frame):
    raise Alarm("took longer than %d s" % TASK_SECONDS)


def init_worker():
    """A worker's start (spawned, CUDA hidden): the OpInfo database. Forked
    workers cannot be used: importing the database initializes CUDA in the
    parent (common_cuda probes cuDNN with a CUDA tensor), and export then
    fails in a forked child."""
    global OP_DB
    OP_DB = load_op_db()


def cpu_pool(jobs, initializer=None):
    """Spawned workers that see no GPU: they export and compile on the CPU."""
    saved = os.environ.get("CUDA_VISIBLE_DEVICES")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    try:
        return multiprocessing.get_context("spawn").Pool(jobs, initializer=initializer)
    finally:
        if saved is None:
            del os.environ["CUDA_VISIBLE_DEVICES"]
        else:
            os.environ["CUDA_VISIBLE_DEVICES"] = saved


def export_opinfo(task):
    """Worker: exports up to SAMPLES_PER_OPINFO samples of one OpInfo.
    Returns one record per sample tried."""
    index, out_dir = task
    signal.signal(signal.SIGALRM, on_alarm)
    op = OP_DB[index]
    name = opinfo_name(op)
    records = []
    dtype = pick_dtype(op)
    if dtype is None:
        return [{"opinfo": name, "error": "no float32, int64, bool or int32 dtype on the CPU"}]
    signal.alarm(TASK_SECONDS)
    try:
        samples = op.sample_inputs("cpu", dtype, requires_grad=False)
        tried = 0
        for sample in samples:
            if tried >= SAMPLES_PER_OPINFO:
                break
            tried += 1
            for decompositions in ("core", "none"):
                record = {"opinfo": name, "dtype": DTYPE_NAMES[dtype], "sample": tried - 1,
                          "decompositions": decompositions}
                records.append(record)
                try:
                    export_sample(op, sample, record, decompositions, os.path.join(
                        out_dir, "%s-%d%s" % (name.replace("/", "_"), tried - 1,
                                              "" if decompositions == "core" else "-none")))
                except Alarm:
                    raise
                except Exception as e:  # noqa: BLE001 - recorded
                    record["error"] = first_line(type(e).__name__ + ": " + str(e))
    except Alarm as e:
        records.append({"opinfo": name, "error": str(e)})
    except Exception as e:  # noqa: BLE001 - recorded
        records.append({"opinfo": name, "error": "samples: " + first_line(str(e))})
    finally:
        signal.alarm(0)
    return records


def export_sample(op, sample, record, decompositions, directory):
    """Exports one sample: with decompositions "core", run_decompositions()
    (core ATen, as the fixtures are exported); with "none",
    run_decompositions({}), which keeps ops the default table decomposes
    further (reflection_pad*, upsample_*, max.dim, ...), so that they can be
    checked too."""
    leaves, spec = pytree.tree_flatten((sample.input, sample.args, sample.kwargs))
    tensor_at = [i for i, leaf in enumerate(leaves) if isinstance(leaf, torch.Tensor)]
    inputs = [leaves[i].detach().clone().contiguous() for i in tensor_at]
    for t in inputs:
        if t.dtype not in DTYPE_NAMES:
            raise ValueError("input dtype %s" % t.dtype)
    fn = op.op

    def call(tensors):
        filled = list(leaves)
        for i, t in zip(tensor_at, tensors):
            filled[i] = t
        first, args, kwargs = pytree.tree_unflatten(filled, spec)
        # A flat tuple: torch.export.save cannot name torch.return_types.
        return tuple(pytree.tree_leaves(fn(first, *args, **kwargs)))

    # One named parameter per tensor: the archive's inputs, in order.
    params = ", ".join("t%d" % i for i in range(len(inputs)))
    namespace = {"call": call}
    exec("def forward(self%s):\n    return call([%s])\n" % (", " + params if params else "", params),
         namespace)
    OneOp = type("OneOp", (torch.nn.Module,), {"forward": namespace["forward"]})

    with torch.no_grad():
        reference = OneOp()(*[t.clone() for t in inputs])
        outputs, _ = pytree.tree_flatten(reference)
        if not outputs or not all(isinstance(o, torch.Tensor) for o in outputs):
            raise ValueError("an output is not a tensor")
        for o in outputs:
            if o.dtype not in DTYPE_NAMES:
                raise ValueError("output dtype %s" % o.dtype)
        exported = torch.export.export(OneOp(), tuple(inputs), strict=False)
        exported = exported.run_decompositions() if decompositions == "core" else \
            exported.run_decompositions({})
    ops = sorted({overload_name(node.target) for node in exported.graph.nodes
                  if node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload)})
    record["ops"] = ops
    record["nodes"] = sum(1 for n in exported.graph.nodes if n.op == "call_function")
    record["numel"] = sum(t.numel() for t in inputs) + sum(o.numel() for o in outputs)
    record["inputs"] = [[list(t.shape), DTYPE_NAMES[t.dtype]] for t in inputs]
    os.makedirs(directory, exist_ok=True)
    torch.export.save(exported, os.path.join(directory, "model.pt2"))
    for i, t in enumerate(inputs):
        save_tensor(os.path.join(directory, "case0_in%d" % i), t)
    for i, o in enumerate(outputs):
        save_tensor(os.path.join(directory, "case0_out%d" % i), o)
    record["dir"] = directory


def compile_archive(directory):
    import magi
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(TASK_SECONDS)
    start = time.time()
    try:
        magi.compile_file(os.path.join(directory, "model.pt2"), os.path.join(directory, "artifact"),
                          cache_mode="off")
        return directory, None, time.time() - start
    except Exception as e:  # noqa: BLE001 - recorded
        lines = [l for l in str(e).splitlines() if l.strip()]
        # The first line says what failed; an error diagnostic names the op.
        errors = [l for l in lines if "error" in l]
        return directory, " | ".join((lines[:1] + errors[:2]))[:600], time.time() - start
    finally:
        signal.alarm(0)


def read_tensor(stem):
    meta = json.load(open(stem + ".json"))
    dtype = {v: k for k, v in DTYPE_NAMES.items()}[meta["dtype"]]
    data = open(stem + ".bin", "rb").read()
    t = torch.frombuffer(bytearray(data), dtype=torch.uint8) if data else torch.empty(0, dtype=torch.uint8)
    return t.view(dtype).reshape(meta["shape"])


def compare(out, ref, values=True):
    """The error as a fraction of the bar (0 good, > 1 fails, inf: shape,
    dtype, NaN placement or integer values differ)."""
    if list(out.shape) != list(ref.shape) or out.dtype != ref.dtype:
        return float("inf")
    if not values or ref.numel() == 0:
        return 0.0
    out = out.cpu()
    if not ref.is_floating_point():
        return 0.0 if torch.equal(out, ref) else float("inf")
    o, r = out.double(), ref.double()
    if not torch.equal(torch.isnan(o), torch.isnan(r)):
        return float("inf")
    finite = torch.isfinite(r)
    if not torch.equal(o[~finite & ~torch.isnan(r)], r[~finite & ~torch.isnan(r)]):
        return float("inf")
    o, r = o[finite], r[finite]
    if r.numel() == 0:
        return 0.0
    bar = 1e-4 if ref.dtype in (torch.float32, torch.float64) else 3e-2
    return float((o - r).norm() / max(float(r.norm()), 1e-30)) / bar


def run_on_gpu(directory, values):
    import magi
    inputs, refs = [], []
    i = 0
    while os.path.exists(os.path.join(directory, "case0_in%d.json" % i)):
        inputs.append(read_tensor(os.path.join(directory, "case0_in%d" % i)).cuda())
        i += 1
    i = 0
    while os.path.exists(os.path.join(directory, "case0_out%d.json" % i)):
        refs.append(read_tensor(os.path.join(directory, "case0_out%d" % i)))
        i += 1
    run = magi.load(os.path.join(directory, "artifact"))
    result = run(*inputs)
    result = result if isinstance(result, tuple) else (result,)
    torch.cuda.synchronize()
    if len(result) != len(refs):
        return float("inf"), "%d outputs, the reference has %d" % (len(result), len(refs))
    worst = max([compare(o, r, values) for o, r in zip(result, refs)] + [0.0])
    return worst, None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    parser.add_argument("--deadline", type=float, default=300.0,
                        help="seconds for the export and compile phases together")
    parser.add_argument("--work", default="/tmp/magi-ops",
                        help="where the archives and artifacts go (not OUT: many files)")
    parser.add_argument("--only", default="", help="a regular expression on OpInfo names")
    args = parser.parse_args()
    began = time.time()
    out = os.path.abspath(args.out)
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.makedirs(out, exist_ok=True)
    report = {"torch": torch.__version__}
    core = core_overloads()
    report["core"] = core
    print("torch %s: %d core overloads" % (torch.__version__, len(core)), flush=True)

    try:
        op_db = load_op_db()
    except Exception:  # noqa: BLE001 - recorded, nothing else can run
        report["op_db_error"] = traceback.format_exc()[-3000:]
        print(report["op_db_error"])
        json.dump(report, open(os.path.join(out, "ops.json"), "w"), indent=1)
        return 1
    import re
    indices = [i for i, op in enumerate(op_db) if re.search(args.only, opinfo_name(op))]
    print("%d OpInfos (%.0f s)" % (len(indices), time.time() - began), flush=True)

    # Export, in worker processes.
    records = []
    export_deadline = began + args.deadline * 0.6
    with cpu_pool(args.jobs, init_worker) as pool:
        pending = pool.imap_unordered(export_opinfo, [(i, work) for i in indices], chunksize=1)
        for _ in indices:
            try:
                records += pending.next(timeout=max(1.0, export_deadline - time.time()))
            except multiprocessing.TimeoutError:
                report["export_deadline"] = "stopped after %.0f s" % (time.time() - began)
                pool.terminate()
                break
    report["samples"] = records
    exported = [r for r in records if "dir" in r]
    print("exported %d of %d samples (%.0f s)" % (len(exported), len(records), time.time() - began),
          flush=True)

    # For each core op, the CANDIDATES smallest archives that hold it.
    candidates = {}
    for r in exported:
        for name in r["ops"]:
            if name in core:
                candidates.setdefault(name, []).append(r)
    for name in candidates:
        # The name breaks ties: the pool returns samples in any order, and
        # the same samples must give the same choice (tests unpack them).
        candidates[name] = sorted(candidates[name],
                                  key=lambda r: (r["nodes"], r["numel"], r["dir"]))[:CANDIDATES]
    in_core_graphs = {name for r in exported if r["decompositions"] == "core" for name in r["ops"]}
    kept = sorted({r["dir"] for rs in candidates.values() for r in rs})
    chosen = candidates
    print("%d core ops in some archive (%d in a run_decompositions() graph); %d archives kept" % (
        len(chosen), len(in_core_graphs & set(core)), len(kept)), flush=True)

    compiled = {}
    with cpu_pool(args.jobs) as pool:
        pending = pool.imap_unordered(compile_archive, kept, chunksize=1)
        for _ in kept:
            try:
                directory, error, seconds = pending.next(
                    timeout=max(1.0, began + args.deadline - time.time()))
                compiled[directory] = {"error": error, "seconds": round(seconds, 2)}
            except multiprocessing.TimeoutError:
                report["compile_deadline"] = "stopped after %.0f s" % (time.time() - began)
                pool.terminate()
                break
    print("compiled %d of %d (%.0f s)" % (sum(1 for c in compiled.values() if not c["error"]),
                                           len(kept), time.time() - began), flush=True)

    # Run, in this process.
    for directory in kept:
        entry = compiled.get(directory)
        if not entry or entry["error"]:
            continue
        record = next(r for r in exported if r["dir"] == directory)
        values = values_comparable(record["ops"])
        try:
            worst, error = run_on_gpu(directory, values)
        except Exception as e:  # noqa: BLE001 - recorded
            worst, error = float("inf"), first_line(type(e).__name__ + ": " + str(e))
        entry["worst"] = worst
        entry["values_compared"] = values
        if error:
            entry["run_error"] = error
    report["compiled"] = {os.path.relpath(d, work): c for d, c in compiled.items()}

    def outcome(r):
        c = compiled.get(r["dir"])
        rel = os.path.relpath(r["dir"], work)
        if c is None:
            return "not compiled (deadline)", rel
        if c["error"]:
            return "compile failed", rel + ": " + c["error"].replace(r["dir"] + "/", "")
        if c.get("worst", float("inf")) <= 1.0:
            return ("matched" if c.get("values_compared") else "ran (shapes only)",
                    "%s: %.3g of the bar" % (rel, c["worst"]))
        return "mismatch", rel + ": " + c.get("run_error", "%.3g of the bar" % c.get("worst", 0))

    rank = ["matched", "ran (shapes only)", "mismatch", "compile failed", "not compiled (deadline)"]
    rows, summary = [], {}
    for name in core:
        outcomes = [(outcome(r), r) for r in chosen.get(name, [])]
        if not outcomes:
            status, detail, archive = "no sample", "", None
        else:
            (status, detail), r = min(outcomes, key=lambda o: rank.index(o[0][0]))
            archive = os.path.relpath(r["dir"], work)
        summary[name] = {"status": status, "archive": archive,
                         "in_core_graphs": name in in_core_graphs,
                         "candidates": [os.path.relpath(r["dir"], work) for _, r in outcomes]}
        rows.append("| `%s` | %s | %s | %s |" % (
            name, status, "yes" if name in in_core_graphs else "no",
            detail.replace("|", "/")[:300]))
    report["summary"] = summary
    for r in records:  # relative paths in the report
        if "dir" in r:
            r["dir"] = os.path.relpath(r["dir"], work)
    json.dump(report, open(os.path.join(out, "ops.json"), "w"), indent=1, default=str)
    counts = {}
    for s in summary.values():
        counts[s["status"]] = counts.get(s["status"], 0) + 1
    card = torch.cuda.get_device_name() if torch.cuda.is_available() else "GPU"
    with open(os.path.join(out, "ops-summary.md"), "w") as f:
        f.write("torch %s on an %s, %d core overloads: %s\n\n" % (
            torch.__version__, card, len(core),
            ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
        f.write("| core op | on the GPU | in a run_decompositions() graph | archive and detail |\n"
                "|---|---|---|---|\n")
        f.write("\n".join(rows) + "\n")
    with tarfile.open(os.path.join(out, "ops-archives.tgz"), "w:gz") as tar:
        for directory in kept:
            for file in sorted(os.listdir(directory)):
                if file != "artifact":
                    tar.add(os.path.join(directory, file),
                            arcname=os.path.join(os.path.relpath(directory, work), file))
    print(open(os.path.join(out, "ops-summary.md")).read().splitlines()[0])
    print("ops check: %.0f s" % (time.time() - began))
    return 0


if __name__ == "__main__":
    sys.exit(main())
