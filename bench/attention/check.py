#!/usr/bin/env python3
"""On the GPU machine: checks and times Magi's tiled attention kernel against
PyTorch for every configuration graphs.py wrote and every token count, in one
run. For each (configuration, T): random q, k, v (and mask), a float32
reference (zeros for fully masked rows, as magi.attention defines), Magi's
artifact run by magi-run (--fixture, --repeat), and PyTorch SDPA's backends
(flash, cuDNN, efficient; those that take the case) timed with CUDA events.
Prints one line per case and writes OUT/attention.json.

    python3 bench/attention/check.py --magi-run build-run/magi-run \
        --artifacts DIR (one compiled artifact per graph name) --out OUT
"""
import argparse, json, math, os, re, subprocess, sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from torch_util import save, cuda_time  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--magi-run", required=True)
ap.add_argument("--artifacts", required=True)
ap.add_argument("--configs", default=None, help="configs.json (default: ARTIFACTS/configs.json)")
ap.add_argument("--out", default=os.environ.get("OUT", "."))
ap.add_argument("--tokens", default="1,7,16,127,512,4096")
ap.add_argument("--tolerance", type=float, default=2e-2)
ap.add_argument("--work", default="/tmp/magi-attention-cases", help="where the case files go")
args = ap.parse_args()
configs = json.load(open(args.configs or os.path.join(args.artifacts, "configs.json")))
tokens = [int(t) for t in args.tokens.split(",")]
dtypes = {"bf16": torch.bfloat16, "f16": torch.float16}
work = args.work
os.makedirs(work, exist_ok=True)
os.makedirs(args.out, exist_ok=True)


def flops(c, T, keys):
    # 4 T S E H multiply-adds counted twice; half the pairs under a causal mask.
    full = 4.0 * T * keys * c["dim"] * c["heads"]
    return full / 2 if c["causal"] or c["mask"] == "additive-causal" else full


results, failures = [], 0
for c in configs:
    dt = dtypes[c["dtype"]]
    art = os.path.join(args.artifacts, c["name"])
    # A decode step's sizes are its graph's (static); the others run at each T.
    for T, S in ([(c["queries"], c["keys"])] if "keys" in c else [(T, T) for T in tokens]):
        g = torch.Generator(device="cuda").manual_seed(T * 7 + c["dim"])
        q = torch.randn(1, c["heads"], T, c["dim"], device="cuda", dtype=dt, generator=g)
        k = torch.randn(1, c["kv_heads"], S, c["dim"], device="cuda", dtype=dt, generator=g)
        v = torch.randn(1, c["kv_heads"], S, c["dim"], device="cuda", dtype=dt, generator=g)
        inputs, mask = [q, k, v], None
        if c["mask"] == "additive-causal":
            mask = torch.full((T, T), float("-inf"), device="cuda").triu(1).to(dt)[None, None]
        elif c["mask"] == "bool-random":
            mask = torch.rand(1, 1, T, T, device="cuda", generator=g) > 0.3
            mask[..., T // 3, :] = False  # a row that sees nothing
        if mask is not None:
            inputs.append(mask)
        group = c["heads"] // c["kv_heads"]
        kf = k.float().repeat_interleave(group, dim=1)
        vf = v.float().repeat_interleave(group, dim=1)
        s = q.float() @ kf.transpose(-1, -2) / math.sqrt(c["dim"])
        if c["causal"]:
            s = s.masked_fill(torch.ones(T, T, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else s + mask.float()
        p = torch.softmax(s, dim=-1).nan_to_num(0.0)
        ref = (p @ vf).to(dt)
        prefix = os.path.join(work, f"{c['name']}-T{T}")
        for i, t in enumerate(inputs):
            save(t, f"{prefix}_in{i}")
        save(ref, f"{prefix}_out0")
        run = subprocess.run([args.magi_run, art, "--fixture", prefix, "--repeat", "20",
                              "--tolerance", str(args.tolerance)],
                             capture_output=True, text=True)
        text = run.stdout + run.stderr
        err = re.search(r"rel_err=([0-9.eE+-]+)", text)
        ms = re.search(r"median ([0-9.]+) ms", text)
        ok = run.returncode == 0 and " OK" in text
        failures += not ok
        entry = dict(config=c["name"], T=T, keys=S, ok=ok, rel_err=float(err.group(1)) if err else None,
                     magi_ms=float(ms.group(1)) if ms else None)
        if not ok:
            entry["output"] = text[-2000:]
        # PyTorch's backends on the same case (GQA through enable_gqa).
        for name, backend in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION),
                              ("efficient", SDPBackend.EFFICIENT_ATTENTION)):
            try:
                with sdpa_kernel(backend):
                    fn = lambda: F.scaled_dot_product_attention(
                        q, k, v, attn_mask=mask, is_causal=c["causal"], enable_gqa=group > 1)
                    entry[name + "_ms"] = cuda_time(fn)
            except Exception:
                entry[name + "_ms"] = None
        if entry["magi_ms"]:
            entry["magi_tflops"] = flops(c, T, S) / entry["magi_ms"] / 1e9
        results.append(entry)
        best = min([entry[n + "_ms"] for n in ("flash", "cudnn", "efficient") if entry[n + "_ms"]] or [float("nan")])
        print(f"{c['name']:42s} T={T:5d} {'OK  ' if ok else 'FAIL'} rel_err={entry['rel_err']} "
              f"magi={entry['magi_ms']} ms best_torch={best:.4f} ms "
              f"flash={entry['flash_ms']} cudnn={entry['cudnn_ms']}"
              + (f" magi_tflops={entry['magi_tflops']:.1f}" if entry.get("magi_tflops") else ""), flush=True)
        if not ok:
            print(text[-1500:], flush=True)
json.dump(dict(device=torch.cuda.get_device_name(), torch=torch.__version__, results=results),
          open(os.path.join(args.out, "attention.json"), "w"), indent=1)
print(f"{len(results) - failures} of {len(results)} cases match")
sys.exit(1 if failures else 0)
