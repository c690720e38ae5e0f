#!/usr/bin/env python3
"""On the GPU machine: checks and times Magi's convolutions against PyTorch
for every graph graphs.py wrote, in one run. For each configuration: random
x, w (and bias), a float32 reference (TF32 off), each artifact directory
given (--artifacts NAME=DIR, e.g. the gemm form and a baseline) run by
magi-run (--fixture, --repeat), and PyTorch eager's convolution (cuDNN) in
the same dtype timed with CUDA events. Prints one line per configuration
with milliseconds and TFLOP/s, and writes OUT/conv.json. An artifact
directory without a configuration's artifact skips it (a baseline compiled
for a few configurations); --only REGEX keeps the configurations whose name
it matches.

    python3 bench/conv/check.py --magi-run build-run/magi-run \
        --artifacts gemm=.gpu/conv --configs .gpu/conv/configs.json --out OUT
"""
import argparse, json, math, os, re, sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from torch_util import save, cuda_time, run_magi  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--magi-run", required=True)
ap.add_argument("--artifacts", action="append", required=True, help="NAME=DIR, one artifact per graph")
ap.add_argument("--configs", required=True)
ap.add_argument("--out", default=os.environ.get("OUT", "."))
ap.add_argument("--tolerance", type=float, default=2e-2)
ap.add_argument("--work", default="/tmp/magi-conv-cases", help="where the case files go")
ap.add_argument("--only", help="a regular expression: the configurations whose name it matches")
args = ap.parse_args()
configs = json.load(open(args.configs))
if args.only:
    configs = [c for c in configs if re.search(args.only, c["name"])]
artifacts = [a.split("=", 1) for a in args.artifacts]
dtypes = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False
os.makedirs(args.work, exist_ok=True)
os.makedirs(args.out, exist_ok=True)
convs = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
transposed_convs = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}

results, failures = [], 0
for c in configs:
    dt = dtypes[c["dtype"]]
    spatial = len(c["size"])
    transposed = c.get("transposed", False)
    conv = (transposed_convs if transposed else convs)[spatial]
    g = torch.Generator(device="cuda").manual_seed(len(c["name"]) * 31 + c["channels"])
    x = torch.randn([c["batch"], c["channels"]] + c["size"], device="cuda", generator=g).to(dt)
    taps = c["kernel"] ** spatial
    # Products per output element (a transposed convolution's weight is
    # [C, O / groups, *kernel]: each input element meets O / groups x taps).
    if transposed:
        fan_in = c["channels"] // c["groups"] * taps // c["stride"] ** spatial
        w_shape = [c["channels"], c["out_channels"] // c["groups"]]
    else:
        fan_in = c["channels"] // c["groups"] * taps
        w_shape = [c["out_channels"], c["channels"] // c["groups"]]
    w = (torch.randn(w_shape + [c["kernel"]] * spatial, device="cuda", generator=g)
         / math.sqrt(max(fan_in, 1))).to(dt)
    b = torch.randn(c["out_channels"], device="cuda", generator=g).to(dt) if c["bias"] else None
    inputs = [x, w] + ([b] if b is not None else [])
    kw = dict(stride=c["stride"], padding=c["padding"], dilation=c["dilation"], groups=c["groups"])
    if transposed:
        kw["output_padding"] = c.get("output_padding", 0)
    ref = conv(x.float(), w.float(), b.float() if b is not None else None, **kw)
    prefix = os.path.join(args.work, c["name"])
    for i, t in enumerate(inputs):
        save(t, f"{prefix}_in{i}")
    save(ref.to(dt), f"{prefix}_out0")
    # The multiply-adds PyTorch's definition makes: every input element
    # with every tap and output channel of its group when transposed.
    flops = (2.0 * x.numel() * c["out_channels"] // c["groups"] * taps if transposed else
             2.0 * ref.numel() * fan_in)
    entry = dict(config=c["name"], flops=flops)
    line = f"{c['name']:22s}"
    runs = 0
    for name, directory in artifacts:
        if not os.path.isdir(os.path.join(directory, c["name"])):
            continue
        runs += 1
        text, info = run_magi([args.magi_run, os.path.join(directory, c["name"]), "--fixture", prefix,
                               "--repeat", "20", "--tolerance", str(args.tolerance)])
        ok = info["rc"] == 0 and " OK" in text
        failures += not ok
        entry[name] = dict(ok=ok, rel_err=float(info["rel_err"][0]) if info["rel_err"] else None,
                           ms=info["ms"])
        if not ok:
            entry[name]["output"] = text[-2000:]
        line += f" {name}: {'OK' if ok else 'FAIL'} {entry[name]['ms']} ms"
        if entry[name]["ms"]:
            line += f" ({flops / entry[name]['ms'] / 1e9:.1f} TFLOP/s, rel_err {entry[name]['rel_err']})"
        if not ok:
            print(text[-1500:], flush=True)
    entry["runs"] = runs
    entry["torch_ms"] = cuda_time(lambda: conv(x, w, b, **kw))
    line += f" | torch eager {entry['torch_ms']:.4f} ms ({flops / entry['torch_ms'] / 1e9:.1f} TFLOP/s)"
    results.append(entry)
    print(line, flush=True)
json.dump(dict(device=torch.cuda.get_device_name(), torch=torch.__version__, results=results),
          open(os.path.join(args.out, "conv.json"), "w"), indent=1)
total = sum(entry["runs"] for entry in results)
print(f"{total - failures} of {total} runs match")
sys.exit(1 if failures else 0)
