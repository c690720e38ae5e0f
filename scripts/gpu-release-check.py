#!/usr/bin/env python3
"""On the GPU machine, with the portable release (scripts/release.sh)
unpacked and its python/ on PYTHONPATH: what PyTorch users call, compiling
there. For every shared fixture (a torch.export archive with reference
cases), the archive's module (torch.export.load(...).module()) goes through
  - magi.compile(module, case0 inputs): torch.export, magi-compile, load;
    called on case0;
  - torch.compile(module, backend="magi"): called on case0, then case1 (other
    sizes: Dynamo makes them symbolic and compiles again);
and each output is compared with the reference (the bars of magi-run: 1e-4
relative for f32, 3e-2 for bf16/f16). A backend that fell back to PyTorch
(magi warns) counts as a failure.

    PYTHONPATH=<release>/python CUDA_PATH=/usr/local/cuda \\
        python3 scripts/gpu-release-check.py FIXTURES_DIR
"""

import glob
import os
import sys
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module

check = import_module("gpu-python-check")  # read, worst_error

import magi


def case_tensors(prefix, count, kind):
    tensors = []
    for i in range(count):
        if not os.path.exists("%s_%s%d.json" % (prefix, kind, i)):
            break
        tensors.append(check.read("%s_%s%d" % (prefix, kind, i)))
    return tensors


def as_tuple(result):
    return tuple(result) if isinstance(result, (list, tuple)) else (result,)


def main(fixtures):
    print("magi", magi.__version__, "torch", torch.__version__)
    rows, failures = [], 0
    for model_dir in sorted(glob.glob(os.path.join(fixtures, "*"))):
        name = os.path.basename(model_dir)
        cases = sorted(glob.glob(os.path.join(model_dir, "case*_out0.json")))
        if not cases:
            continue
        module = torch.export.load(os.path.join(model_dir, "model.pt2")).module().cuda()
        prefixes = [c[: -len("_out0.json")] for c in cases]
        ins = [[t.cuda() for t in case_tensors(p, 16, "in")] for p in prefixes]
        refs = [case_tensors(p, 16, "out") for p in prefixes]

        def record(what, run):
            nonlocal failures
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    worst = check.worst_error(run(), refs[case])
                    fell_back = [str(w.message) for w in caught if "magi" in str(w.message)]
                    ok = worst <= 1.0 and not fell_back
                    result = "OK" if ok else "FAIL" + (": " + fell_back[0][:120] if fell_back else "")
                    rows.append("| %s | %s | %.3g | %s |" % (name, what, worst, result))
                except Exception as e:  # noqa: BLE001 - reported, counted
                    ok = False
                    rows.append("| %s | %s | - | FAIL: %s |" % (name, what, str(e).splitlines()[0][:120]))
            failures += not ok

        case = 0
        compiled = None
        try:
            compiled = magi.compile(module, ins[0])
        except Exception as e:  # noqa: BLE001
            rows.append("| %s | magi.compile | - | FAIL: %s |" % (name, str(e).splitlines()[0][:120]))
            failures += 1
        if compiled is not None:
            record("magi.compile, case0", lambda: as_tuple(compiled(*ins[0])))
        torch._dynamo.reset()
        dynamo = torch.compile(module, backend="magi")
        for case in range(len(prefixes)):
            record("torch.compile(backend=\"magi\"), case%d" % case,
                   lambda: as_tuple(dynamo(*ins[case])))
    print("| fixture | call | worst error / bar | result |")
    print("|---|---|---|---|")
    print("\n".join(rows))
    print("release check: %d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
