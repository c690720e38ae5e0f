#!/usr/bin/env python3
"""On the GPU machine: the `magi` Python package and the C runtime API with
PyTorch. Every fixture artifact (scripts/gpu-prepare.sh) is loaded with
magi.load, called on its fixture inputs as torch CUDA tensors (three times:
eager, captured, replayed; then once more with the inputs in new memory),
and each output compared with the reference (the bars of magi-run: 1e-4
relative for f32, 3e-2 for bf16/f16, exact for integers); then 8 calls
alternating between the first two cases (other sizes: the later calls
replay each size's graphs); then with outputs="borrow" (no output copy).
Then the checks a caller meets: a wrong dtype,
a wrong shape, a tensor on the CPU.

    PYTHONPATH=build-run/python python3 scripts/gpu-python-check.py \\
        .gpu/artifacts .gpu/fixtures
"""

import glob
import json
import os
import sys
import time

import torch

import magi

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16,
          "float64": torch.float64, "int64": torch.int64, "int32": torch.int32,
          "bool": torch.bool, "int8": torch.int8, "uint8": torch.uint8}


def read(stem):
    meta = json.load(open(stem + ".json"))
    data = open(stem + ".bin", "rb").read()
    t = torch.frombuffer(bytearray(data), dtype=DTYPES[meta["dtype"]]) if data else \
        torch.empty(0, dtype=DTYPES[meta["dtype"]])
    return t.reshape(meta["shape"])


def rel_err(out, ref):
    if not ref.is_floating_point():
        return 0.0 if torch.equal(out.cpu(), ref) else float("inf")
    out, ref = out.double().cpu(), ref.double()
    return float((out - ref).norm() / max(ref.norm(), 1e-30))


def bar(ref):
    return 1e-4 if ref.dtype in (torch.float32, torch.float64) else 3e-2


def worst_error(outs, refs):
    """The largest error of a call's outputs as a fraction of each one's
    bar (infinite for a wrong shape or dtype)."""
    outs = outs if isinstance(outs, tuple) else (outs,)
    worst = 0.0
    for out, ref in zip(outs, refs):
        if list(out.shape) != list(ref.shape) or out.dtype != ref.dtype:
            return float("inf")
        worst = max(worst, rel_err(out, ref) / bar(ref))
    return worst


def timed(fn, *args):
    """fn(*args) and its time in ms, the GPU idle before and done after."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    outputs = fn(*args)
    torch.cuda.synchronize()
    return outputs, (time.perf_counter() - start) * 1000


def main(artifacts, fixtures):
    print("magi", magi.__version__, "C runtime API", magi.c_api_version("runtime"),
          "torch", torch.__version__)
    failures = 0
    rows = []
    for artifact in sorted(glob.glob(os.path.join(artifacts, "*"))):
        name = os.path.basename(artifact)
        cases = sorted(glob.glob(os.path.join(fixtures, name, "*_out0.json")))
        if not cases:
            continue
        run = magi.load(artifact)
        for case in cases:
            prefix = case[: -len("_out0.json")]
            inputs = [read(prefix + "_in%d" % i).cuda() for i in range(run.num_inputs)]
            refs = [read(prefix + "_out%d" % i) for i in range(run.num_outputs)]
            worst = 0.0
            for attempt in range(4):
                if attempt == 3:  # the same values in new memory
                    inputs = [t.clone() for t in inputs]
                worst = max(worst, worst_error(run(*inputs), refs))
            ok = worst <= 1.0
            failures += not ok
            rows.append("| %s | %s | %d | %.3g | %s |" % (
                name, os.path.basename(prefix), len(refs), worst, "OK" if ok else "FAIL"))
        # Alternating between the cases (different sizes): from the third
        # round on, every call replays the CUDA graphs captured for its
        # sizes (the runtime keeps one per signature), and each output must
        # still be its case's, not the other's left in the buffers.
        if len(cases) >= 2:
            pairs = []
            for case in cases[:2]:
                prefix = case[: -len("_out0.json")]
                pairs.append(([read(prefix + "_in%d" % i).cuda() for i in range(run.num_inputs)],
                              [read(prefix + "_out%d" % i) for i in range(run.num_outputs)]))
            worst = 0.0
            for call in range(8):
                inputs, refs = pairs[call % 2]
                worst = max(worst, worst_error(run(*inputs), refs))
            ok = worst <= 1.0
            failures += not ok
            rows.append("| %s | alternating case0/case1, 8 calls | %d | %.3g | %s |" % (
                name, len(pairs[0][1]), worst, "OK" if ok else "FAIL"))
        # On a side stream whose inputs are written there just before the
        # call, behind a long spin: the run must be ordered after them (an
        # unordered run reads the fresh buffers unwritten), and the call
        # should return while the stream is still busy.
        prefix = cases[0][: -len("_out0.json")]
        refs = [read(prefix + "_out%d" % i) for i in range(run.num_outputs)]
        sources = [read(prefix + "_in%d" % i).cuda() for i in range(run.num_inputs)]
        torch.cuda.synchronize()
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            torch.cuda._sleep(400_000_000)  # about 0.2 s of one SM's cycles
            staged = [t.clone() for t in sources]  # device copies, queued behind the spin
            start = time.perf_counter()
            outputs = run(*staged)
            call_ms = (time.perf_counter() - start) * 1000
            worst = worst_error(tuple(o.cpu() for o in (
                outputs if isinstance(outputs, tuple) else (outputs,))), refs)
        ok = worst <= 1.0
        failures += not ok
        rows.append("| %s | side stream, inputs written behind a 0.2 s spin (call returned "
                    "in %.1f ms) | %d | %.3g | %s |" % (name, call_ms, len(refs), worst,
                                                        "OK" if ok else "FAIL"))
        # New memory every call (a caller's fresh tensors): the runtime copies
        # inputs that move into its own buffers, so that from the third call
        # on the CUDA graphs replay; each call's outputs must be its own.
        # Times of the last three calls beside three with the same tensors.
        kept, worst, fresh_ms, same_ms = [], 0.0, [], []
        for call in range(8):
            kept.append([t.clone() for t in sources])  # kept: a new address each call
            outputs, ms = timed(run, *kept[-1])
            fresh_ms.append(ms)
            worst = max(worst, worst_error(outputs, refs))
        for call in range(3):
            same_ms.append(timed(run, *sources)[1])
        ok = worst <= 1.0
        failures += not ok
        rows.append("| %s | new memory every call, 8 calls (last three %.3f ms each; the same "
                    "tensors %.3f ms) | %d | %.3g | %s |" % (
                        name, sorted(fresh_ms[-3:])[1], sorted(same_ms)[1], len(refs), worst,
                        "OK" if ok else "FAIL"))
        del kept
        # outputs="borrow": tensors over the runtime's own buffers, no copy.
        # Each call's outputs must be right when read before the next call,
        # and cost no more than the copies.
        borrowing = magi.load(artifact, outputs="borrow")
        worst, borrow_ms, copy_ms = 0.0, [], []
        for call in range(6):
            outputs, ms = timed(borrowing, *sources)
            borrow_ms.append(ms)
            worst = max(worst, worst_error(outputs, refs))
            copy_ms.append(timed(run, *sources)[1])
        ok = worst <= 1.0
        failures += not ok
        rows.append("| %s | outputs=\"borrow\", 6 calls (last three %.3f ms each; copied "
                    "outputs %.3f ms) | %d | %.3g | %s |" % (
                        name, sorted(borrow_ms[-3:])[1], sorted(copy_ms[-3:])[1], len(refs),
                        worst, "OK" if ok else "FAIL"))
        del outputs
        borrowing.close()
        # What a caller gets wrong, refused with the reason.
        probes = {
            "wrong dtype": lambda: run(*[t.to(torch.float64) if t.is_floating_point() else
                                         t.to(torch.int32) for t in inputs]),
            "wrong rank": lambda: run(*[t.unsqueeze(0) for t in inputs]),
            "on the CPU": lambda: run(*[t.cpu() for t in inputs]),
        }
        for what, probe in probes.items():
            try:
                probe()
                rows.append("| %s | %s | - | accepted | FAIL |" % (name, what))
                failures += 1
            except magi.MagiError as e:
                rows.append("| %s | %s | - | refused: %s | OK |" % (
                    name, what, str(e).splitlines()[0][:90]))
        run.close()
    print("| artifact | case | outputs | worst error / bar | result |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    print("python check: %d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
