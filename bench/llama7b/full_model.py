"""The whole 7B-shaped causal LM (32 layers, LM head) on the GPU machine: Magi against PyTorch eager.

usage: python3 bench/llama7b/full_model.py --harness DIR --magi-run BIN --artifact DIR [--T 16 512 4096]

The artifact is compiled on the CPU machine from `../shared/fixtures/llama7b/llama7b-32l-lm-zero.pt2`
(zero weights). This re-creates the same seeded model with real weights (the shared harness,
`make_model(32, lm=True)`), exports it, computes PyTorch eager's logits for each T (median time,
peak memory beyond the weights), frees the model, then runs `magi-run ARTIFACT --weights-from REAL.pt2`
for each T: checked with --runs 3 (a CUDA graph replay) against eager's logits (bf16 bar 3e-2), and
both Magi's and eager's bf16 logits against the same model run in f32 (TF32 off), and
eager's against PyTorch's own bf16 run with the math attention backend (the spread between two
valid bf16 computations), timed
with --repeat 10, its weight-load line recorded (beside pinned and pageable host-to-device
bandwidth measured in the same run), and the GPU memory it used sampled with nvidia-smi
(peak of memory.used during the run, minus what was used before it started), and the size of
the arena its run buffers were placed in (magi-run's "run buffers" line). Results:
$OUT/full_model.json and a table on stdout.
"""
import argparse, json, os, re, subprocess, sys, threading, time

import torch

p = argparse.ArgumentParser()
p.add_argument("--harness", required=True)
p.add_argument("--magi-run", required=True)
p.add_argument("--artifact", required=True)
p.add_argument("--T", type=int, nargs="*", default=[16, 512, 4096])
args = p.parse_args()
sys.path.insert(0, args.harness)
from llama7b_common import make_model, export  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from torch_util import save, run_magi, cuda_time  # noqa: E402

OUT = os.environ.get("OUT", "/tmp/out")
os.makedirs(OUT, exist_ok=True)
work = "/tmp/magi-llama7b-full"
os.makedirs(work, exist_ok=True)
res = {"T": {}}


def dump():
    json.dump(res, open(f"{OUT}/full_model.json", "w"), indent=1)


def gpu_used_mb():
    out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True).stdout
    return float(out.split()[0])


t0 = time.time()
model = make_model(32, lm=True)
real = f"{work}/real32.pt2"
export(model, real)
res["export_s"] = time.time() - t0
res["archive_bytes"] = os.path.getsize(real)
print(f"exported {res['archive_bytes'] / 1e9:.2f} GB in {res['export_s']:.1f} s", flush=True)
dump()

with torch.no_grad():
    for T in args.T:
        rt = res["T"][T] = {}
        torch.manual_seed(100 + T)
        ids = torch.randint(0, 32000, (1, T), device="cuda")
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        ref = model(ids)
        torch.cuda.synchronize()
        rt["torch_eager_peak_extra_GB"] = (torch.cuda.max_memory_allocated() - base) / 1e9
        rt["torch_eager_ms"] = cuda_time(lambda: model(ids), n=6, warm=2)
        case = f"{work}/case32_{T}"
        save(ids, case + "_in0"); save(ref, case + "_out0")
        # Another bf16 computation PyTorch itself makes of the same model:
        # its attention by the math backend instead of the fused kernel. How
        # far it lands from eager's logits is the spread the bf16 bar meets
        # over 32 layers whatever computes them.
        from torch.nn.attention import SDPBackend, sdpa_kernel
        with sdpa_kernel(SDPBackend.MATH):
            other = model(ids)
        rt["torch_math_attention_vs_eager_rel_err"] = float(
            (other.float() - ref.float()).norm() / ref.float().norm())
        del ref, other
        print(T, "eager", rt, flush=True)
        dump()
# An f32 reference: how far eager's bf16 logits and Magi's are from the same
# model computed in f32 (the bf16 bar compares two bf16 computations whose
# roundings differ and compound over 32 layers).
with torch.no_grad():
    model.float()
    torch.backends.cuda.matmul.allow_tf32 = False
    for T in args.T:
        torch.manual_seed(100 + T)
        ids = torch.randint(0, 32000, (1, T), device="cuda")
        ref32 = model(ids).float().cpu()
        torch.save(ref32, f"{work}/case32_{T}_f32.pt")
        bf = torch.from_numpy(__import__("numpy").fromfile(f"{work}/case32_{T}_out0.bin", dtype="int16")).view(torch.bfloat16).float().reshape(ref32.shape)
        res["T"][T]["torch_eager_bf16_vs_f32_rel_err"] = float((bf - ref32).norm() / ref32.norm())
        del ref32
        print(T, "eager bf16 vs f32", res["T"][T]["torch_eager_bf16_vs_f32_rel_err"], flush=True)
        dump()
del model
torch.cuda.empty_cache()

# What the weight load is measured against, in this run: pinned and
# pageable host-to-device copies of 256 MiB.
host = torch.empty(1 << 28, dtype=torch.uint8).pin_memory()
dev = torch.empty(1 << 28, dtype=torch.uint8, device="cuda")
for kind, src in (("pinned", host), ("pageable", torch.empty(1 << 28, dtype=torch.uint8))):
    ms = cuda_time(lambda: dev.copy_(src, non_blocking=True), n=5, warm=1)
    res[f"h2d_{kind}_GBps"] = (1 << 28) / ms / 1e6
del host, dev
torch.cuda.empty_cache()
print("host to device GB/s: pinned", res["h2d_pinned_GBps"], "pageable", res["h2d_pageable_GBps"], flush=True)
dump()

for T in args.T:
    rt = res["T"][T]
    case = f"{work}/case32_{T}"
    saved = f"{work}/magi32_{T}"
    for mode, extra in (("check", ["--runs", "3", "--save-outputs", saved]), ("graphs", ["--repeat", "10"])):
        before = gpu_used_mb()
        peak = [before]
        done = threading.Event()

        def sample():
            while not done.is_set():
                peak[0] = max(peak[0], gpu_used_mb())
                time.sleep(0.05)

        sampler = threading.Thread(target=sample)
        sampler.start()
        cmd = [args.magi_run, args.artifact, "--weights-from", real, "--fixture", case] + extra
        out, result = run_magi(cmd, timeout=240)
        rc = result["rc"]
        done.set()
        sampler.join()
        b = re.search(r"^magi-run: run buffers: .*placed in ([0-9.]+) GB$", out, re.M)
        result["run_buffers_GB"] = float(b.group(1)) if b else None
        result["gpu_used_peak_extra_GB"] = (peak[0] - before) / 1024
        rt[f"magi_{mode}"] = result
        print(T, mode, rc, rt[f"magi_{mode}"]["ms"], rt[f"magi_{mode}"]["rel_err"],
              rt[f"magi_{mode}"]["weights"], f"{rt[f'magi_{mode}']['gpu_used_peak_extra_GB']:.1f} GB", flush=True)
        if rc != 0:
            print(out[-1200:], flush=True)
        if mode == "check" and os.path.exists(saved + "/out0.bin"):
            ref32 = torch.load(f"{work}/case32_{T}_f32.pt")
            got = torch.from_numpy(__import__("numpy").fromfile(saved + "/out0.bin", dtype="int16")).view(torch.bfloat16).float().reshape(ref32.shape)
            rt["magi_vs_f32_rel_err"] = float((got - ref32).norm() / ref32.norm())
            print(T, "magi vs f32", rt["magi_vs_f32_rel_err"], flush=True)
        dump()

print("| T | Magi ms (graphs) | PyTorch eager ms | rel_err Magi vs eager | Magi vs f32 | eager bf16 vs f32 | PyTorch math attention vs eager | Magi GPU memory GB (weights included) | Magi run buffers GB | eager peak beyond weights GB |")
print("|---|---|---|---|---|---|---|---|---|---|")
for T in args.T:
    rt = res["T"][T]
    g, c = rt.get("magi_graphs", {}), rt.get("magi_check", {})
    print(f"| {T} | {g.get('ms')} | {rt['torch_eager_ms']:.3f} | {','.join(c.get('rel_err', []))} | "
          f"{rt.get('magi_vs_f32_rel_err')} | {rt.get('torch_eager_bf16_vs_f32_rel_err')} | "
          f"{rt.get('torch_math_attention_vs_eager_rel_err')} | "
          f"{g.get('gpu_used_peak_extra_GB', 0):.1f} | {c.get('run_buffers_GB')} | {rt['torch_eager_peak_extra_GB']:.2f} |")
