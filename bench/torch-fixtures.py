"""Benchmark (not a test), for the GPU machine: PyTorch eager on each shared
fixture, to set beside `magi-run --repeat`. Loads each fixture's model.pt2
with torch.export.load, runs its module on case0's inputs on the GPU and
prints the median time of a whole forward (CUDA events, after warm-up), and
the rel_err of eager's output against the stored reference (a sanity check
of the comparison itself).

    python3 bench/torch-fixtures.py FIXTURES_DIR [REPEATS]
"""
import json
import os
import sys

import torch

try:
    # BERT's archive returns a transformers output class; importing the
    # package registers it with pytree, which loading needs.
    import transformers.modeling_outputs  # noqa: F401
except ImportError:
    pass

DTYPES = {"int64": torch.int64, "float32": torch.float32,
          "bfloat16": torch.bfloat16, "float16": torch.float16}


def read(prefix):
    meta = json.load(open(prefix + ".json"))
    data = open(prefix + ".bin", "rb").read()
    t = torch.frombuffer(bytearray(data), dtype=DTYPES[meta["dtype"]])
    return t.reshape(meta["shape"])


def main():
    root = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    print(f"{'fixture':<12} {'eager ms':>9} {'rel_err':>10}")
    for name in sorted(os.listdir(root)):
        pt2 = os.path.join(root, name, "model.pt2")
        if not os.path.exists(pt2):
            continue
        try:
            module = torch.export.load(pt2).module().to("cuda")
        except Exception as e:  # one fixture's failure is reported, not fatal
            cause = e.__cause__ or e.__context__
            print(f"{name:<12} cannot load: {e}".splitlines()[0]
                  + (f" (cause: {type(cause).__name__}: {cause})" if cause else ""))
            continue
        prefix = os.path.join(root, name, "case0")
        inputs, i = [], 0
        while os.path.exists(f"{prefix}_in{i}.json"):
            inputs.append(read(f"{prefix}_in{i}").cuda())
            i += 1
        with torch.no_grad():
            for _ in range(5):
                out = module(*inputs)
            torch.cuda.synchronize()
            times = []
            for _ in range(repeats):
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                out = module(*inputs)
                end.record()
                torch.cuda.synchronize()
                times.append(start.elapsed_time(end))
        times.sort()
        if hasattr(out, "to_tuple"):  # a transformers ModelOutput
            out = out.to_tuple()
        outs = out if isinstance(out, (tuple, list)) else (out,)
        ref = read(f"{prefix}_out0").cuda().double()
        got = outs[0].double()
        rel = ((got - ref).norm() / ref.norm()).item()
        print(f"{name:<12} {times[len(times) // 2]:>9.3f} {rel:>10.3e}")


if __name__ == "__main__":
    main()
