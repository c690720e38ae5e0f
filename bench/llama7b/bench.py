"""LLaMA-7B-shaped models on the GPU machine, Magi beside PyTorch in one run.

usage: python3 bench/llama7b/bench.py --harness DIR --magi-run BIN --artifact L=DIR [--artifact L=DIR ...]
                                      [--T 16 512 4096]

For each artifact (compiled on the CPU machine from the zero-weight archive of an L-layer model,
`../shared/fixtures/llama7b/llama7b-<L>l-zero.pt2`), this re-creates the same seeded model with the
shared harness (`DIR/llama7b_common.py`: make_model, export), exports it with its real weights
(torch.export.save: stored entries), and runs `magi-run ARTIFACT --weights-from REAL.pt2`: the
artifact is rebound by entry name to the real archive, checked against PyTorch eager's output
(bf16 bar 3e-2; also with the whole run as one CUDA graph), and timed with CUDA graphs off, on
(piecewise) and full. Beside it, in the same run: PyTorch eager,
torch.compile and torch.compile(mode="reduce-overhead"), the device-to-device copy bandwidth and the
pinned and pageable host-to-device bandwidth. With a 1- and a 4-layer artifact it reports the cost
of one layer, (t4 - t1) / 3, for every contender, and that cost outside attention: each contender's
attention kernels are timed in the same run (Magi's by `magi-run --profile`, PyTorch's by kernel name
from torch.profiler; torch.compile + CUDA graphs takes torch.compile's) and subtracted, with Magi's
ratio to the fastest anchor (the kernels issue's long-sequence target). Results: $OUT/llama7b.json and
a table on stdout.
"""
import argparse, json, os, sys, time

import torch

p = argparse.ArgumentParser()
p.add_argument("--harness", required=True)
p.add_argument("--magi-run", required=True)
p.add_argument("--artifact", action="append", required=True, help="LAYERS=DIR")
p.add_argument("--extra", action="append", default=[], help="NAME:LAYERS=DIR: another artifact of "
               "the same model (e.g. compiled with other flags), checked and timed as a full graph "
               "beside the main one in the same run, reported as magi_full_NAME")
p.add_argument("--extra-flags", action="append", default=[], help="NAME=FLAGS: magi-run flags "
               "(space-separated) for the extra artifact NAME, e.g. 'heuristic=--gemm-algorithm=heuristic'")
p.add_argument("--T", type=int, nargs="*", default=[16, 512, 4096])
p.add_argument("--anchors", default="inductor,inductor_cg",
               help="torch.compile contenders to time: inductor (default mode), inductor_cg "
                    "(mode=reduce-overhead, CUDA graphs), both by default; '' for none")
args = p.parse_args()
extra_flags = {name: flags.split() for name, flags in (f.split("=", 1) for f in args.extra_flags)}
sys.path.insert(0, args.harness)
from llama7b_common import make_model, export  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from torch_util import (save, run_magi, cuda_time as shared_cuda_time,  # noqa: E402
                        kernel_times, attention_kernel_ms, magi_profile_attention_ms)

OUT = os.environ.get("OUT", "/tmp/out")
os.makedirs(OUT, exist_ok=True)
work = "/tmp/magi-llama7b"
os.makedirs(work, exist_ok=True)
res = {"bandwidth": {}, "models": {}}


def dump():
    json.dump(res, open(f"{OUT}/llama7b.json", "w"), indent=1)


def cuda_time(fn, n=30, warm=5):
    return shared_cuda_time(fn, n, warm)


# The ceilings, measured in this run.
n = 1 << 30
src = torch.empty(n, dtype=torch.uint8, device="cuda")
dst = torch.empty_like(src)
ms = cuda_time(lambda: dst.copy_(src), n=10)
res["bandwidth"]["d2d_GBps"] = 2 * n / ms / 1e6
del src, dst
host = torch.empty(n // 4, dtype=torch.uint8).pin_memory()
dev = torch.empty(n // 4, dtype=torch.uint8, device="cuda")
res["bandwidth"]["h2d_pinned_GBps"] = (n // 4) / cuda_time(lambda: dev.copy_(host, non_blocking=True), n=10) / 1e6
pageable = torch.empty(n // 4, dtype=torch.uint8)
res["bandwidth"]["h2d_pageable_GBps"] = (n // 4) / cuda_time(lambda: dev.copy_(pageable), n=5) / 1e6
del host, dev, pageable
torch.cuda.empty_cache()
print("bandwidth", res["bandwidth"], flush=True)
dump()

for spec in args.artifact:
    layers, art = spec.split("=", 1)
    layers = int(layers)
    r = res["models"][layers] = {"T": {}}
    t0 = time.time()
    model = make_model(layers)
    real = f"{work}/real{layers}.pt2"
    export(model, real)
    r["export_s"] = time.time() - t0
    r["archive_bytes"] = os.path.getsize(real)
    print(f"{layers} layer(s): exported {r['archive_bytes'] / 1e9:.2f} GB in {r['export_s']:.1f} s", flush=True)
    for T in args.T:
        rt = r["T"][T] = {}
        torch.manual_seed(100 + T)
        ids = torch.randint(0, 32000, (1, T), device="cuda")
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        with torch.no_grad():
            ref = model(ids)
        rt["torch_eager_peak_extra_GB"] = (torch.cuda.max_memory_allocated() - base) / 1e9
        case = f"{work}/case{layers}_{T}"
        save(ids, case + "_in0"); save(ref, case + "_out0")
        runs = [(mode, art, extra) for mode, extra in (
            ("check", ["--runs", "3"]), ("check_full", ["--runs", "3", "--cuda-graphs=full"]),
            ("eager", ["--repeat", "20", "--cuda-graphs=off"]),
            ("graphs", ["--repeat", "20"]), ("full", ["--repeat", "20", "--cuda-graphs=full"]),
            ("profile", ["--runs", "1", "--profile"]))]
        for spec_extra in args.extra:
            name, rest = spec_extra.split(":", 1)
            extra_layers, extra_art = rest.split("=", 1)
            flags = extra_flags.get(name, [])
            if int(extra_layers) == layers:
                runs += [(f"check_{name}", extra_art, ["--runs", "3", "--cuda-graphs=full"] + flags),
                         (f"full_{name}", extra_art, ["--repeat", "20", "--cuda-graphs=full"] + flags)]
        for mode, run_art, extra in runs:
            cmd = [args.magi_run, run_art, "--weights-from", real, "--fixture", case] + extra
            out, rt[f"magi_{mode}"] = run_magi(cmd)
            rc = rt[f"magi_{mode}"]["rc"]
            print(layers, T, mode, rc, rt[f"magi_{mode}"]["ms"], rt[f"magi_{mode}"]["rel_err"],
                  rt[f"magi_{mode}"]["weights"], flush=True)
            if rc != 0:
                print(out[-1500:], flush=True)
            if mode == "profile":
                rt["magi_attention_ms"], rt["magi_attention_kernels"] = magi_profile_attention_ms(out)
            dump()
        with torch.no_grad():
            rt["torch_eager_ms"] = cuda_time(lambda: model(ids))
            rt["torch_eager_attention_ms"], rt["torch_eager_attention_kernels"] = \
                attention_kernel_ms(kernel_times(lambda: model(ids)))
            for name, kw in (("inductor", {}), ("inductor_cg", {"mode": "reduce-overhead"})):
                if name in args.anchors.split(","):
                    torch._dynamo.reset()
                    c = torch.compile(model, dynamic=False, **kw)
                    t1 = time.time()
                    c(ids)
                    rt[f"{name}_first_call_s"] = time.time() - t1
                    rt[f"{name}_ms"] = cuda_time(lambda: c(ids))
                    if name == "inductor":
                        # Kernels replayed inside CUDA graphs may not be traced: reduce-overhead
                        # runs the same kernels as the default mode, so its attention time is
                        # taken from there.
                        kernels = kernel_times(lambda: c(ids))
                        rt["inductor_attention_ms"], rt["inductor_attention_kernels"] = \
                            attention_kernel_ms(kernels)
                        # Its kernels, longest first: what the anchor spends a layer on.
                        rt["inductor_kernels"] = sorted(
                            ([name, round(ms, 4), calls] for name, (ms, calls) in kernels.items()),
                            key=lambda k: -k[1])[:25]
        print(layers, T, {k: v for k, v in rt.items() if k.endswith("_ms")}, flush=True)
        dump()
    del model
    torch.cuda.empty_cache()

# Per-layer cost from the 1- and 4-layer models.
rows = []
ls = sorted(res["models"])
for T in args.T:
    row = {"T": T}
    extra_keys = sorted({"magi_full_" + e.split(":", 1)[0] for e in args.extra})
    for key in ["magi_eager", "magi_graphs", "magi_full", "torch_eager_ms", "inductor_ms",
                "inductor_cg_ms", "magi_attention_ms", "torch_eager_attention_ms",
                "inductor_attention_ms"] + extra_keys:
        vals = {}
        for L in ls:
            v = res["models"][L]["T"].get(T, {}).get(key)
            vals[L] = v["ms"] if isinstance(v, dict) else v
        row[key] = vals
        if 1 in vals and 4 in vals and vals[1] is not None and vals[4] is not None:
            row[key + "_per_layer"] = (vals[4] - vals[1]) / 3
    rows.append(row)

# The long-sequence target compares the cost of a layer outside attention: each
# contender's per-layer time minus its own attention kernels' (Magi's from its profile, PyTorch's
# from torch.profiler; torch.compile + CUDA graphs takes torch.compile's).
attention_of = {"magi_eager": "magi_attention_ms", "magi_graphs": "magi_attention_ms",
                "magi_full": "magi_attention_ms", "torch_eager_ms": "torch_eager_attention_ms",
                "inductor_ms": "inductor_attention_ms", "inductor_cg_ms": "inductor_attention_ms"}
for row in rows:
    outside = {}
    for key, attention in attention_of.items():
        if row.get(key + "_per_layer") is not None and row.get(attention + "_per_layer") is not None:
            outside[key] = row[key + "_per_layer"] - row[attention + "_per_layer"]
    row["outside_attention_per_layer"] = outside
    magi = [outside[k] for k in ("magi_eager", "magi_graphs", "magi_full") if k in outside]
    anchors = [k for k in ("torch_eager_ms", "inductor_ms", "inductor_cg_ms") if k in outside]
    if magi and anchors:
        fastest = min(anchors, key=lambda k: row[k + "_per_layer"])
        row["fastest_anchor"] = fastest
        row["outside_attention_ratio"] = min(magi) / outside[fastest]
res["table"] = rows
dump()
for row in rows:
    for key in sorted(k for k in row if k.startswith("magi_full_") and not k.endswith("_per_layer")):
        print(f"T={row['T']} {key}: " + ", ".join(f"{L}l {v}" for L, v in row[key].items())
              + (f", per layer {row[key + '_per_layer']:.3f}" if key + "_per_layer" in row else ""))
print("| T | model | magi (graphs off) | magi (piecewise graphs) | magi (full graph) | eager | torch.compile | torch.compile+CG |")
print("|---|---|---|---|---|---|---|---|")
fmt = lambda v: "-" if v is None else f"{v:.3f}"
for row in rows:
    for L in ls:
        print(f"| {row['T']} | {L}l | " + " | ".join(fmt(row[k].get(L)) for k in
              ("magi_eager", "magi_graphs", "magi_full", "torch_eager_ms", "inductor_ms", "inductor_cg_ms")) + " |")
    if 1 in ls and 4 in ls:
        print(f"| {row['T']} | per layer | " + " | ".join(fmt(row.get(k + "_per_layer")) for k in
              ("magi_eager", "magi_graphs", "magi_full", "torch_eager_ms", "inductor_ms", "inductor_cg_ms")) + " |")
        print(f"| {row['T']} | per layer outside attention | " + " | ".join(
              fmt(row["outside_attention_per_layer"].get(k)) for k in
              ("magi_eager", "magi_graphs", "magi_full", "torch_eager_ms", "inductor_ms", "inductor_cg_ms")) + " |")
for row in rows:
    if "outside_attention_ratio" in row:
        print(f"T={row['T']}: per layer outside attention, Magi's best / the fastest anchor's: "
              f"{row['outside_attention_ratio']:.2f} ({row['fastest_anchor']}); attention per layer: Magi "
              f"{fmt(row.get('magi_attention_ms_per_layer'))}, eager "
              f"{fmt(row.get('torch_eager_attention_ms_per_layer'))}, torch.compile "
              f"{fmt(row.get('inductor_attention_ms_per_layer'))} ms")
for L in ls:
    for T in args.T:
        kernels = res["models"][L]["T"].get(T, {}).get("inductor_kernels")
        if L == ls[0] and kernels:
            print(f"torch.compile's kernels, {L} layer(s), T={T} (ms per call, launches per call):")
            for name, ms, calls in kernels[:12]:
                print(f"  {ms:.4f} {calls:g} {name[:90]}")
