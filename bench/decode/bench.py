"""On the GPU machine: one decode step (T = 1 against a static KV cache of --cache-len positions,
all but the last filled by a prefill) of the 7B-shaped causal LM, Magi beside PyTorch in one run.

usage: python3 bench/decode/bench.py --harness DIR --magi-run BIN --artifact L=DIR [--artifact L=DIR]

For each artifact (compiled here from examples/llama7b-decode/llama7b-decode-<L>l-zero.pt2), this
re-creates the same seeded model with the shared harness, fills its cache with a prefill of
cache-len - 1 random tokens, and exports the step with its real weights and that cache
(bench/decode/decode_common.py). `magi-run ARTIFACT --weights-from REAL.pt2` then checks the step's
logits against PyTorch eager's (bf16 bar 3e-2; --runs 3: a replayed step, each writing the same
cache position) and times it with piecewise and full CUDA graphs; beside it, PyTorch eager,
torch.compile and torch.compile(mode="reduce-overhead") time the same step, and the device-to-device
copy bandwidth is measured. With a 1- and a 4-layer artifact it reports the cost of a layer,
(t4 - t1) / 3. Results: $OUT/decode.json and a table on stdout.
"""
import argparse, json, os, sys, time

import torch

p = argparse.ArgumentParser()
p.add_argument("--harness", required=True)
p.add_argument("--magi-run", required=True)
p.add_argument("--artifact", action="append", required=True, help="LAYERS=DIR")
p.add_argument("--cache-len", type=int, default=4096)
p.add_argument("--anchors", default="inductor,inductor_cg")
args = p.parse_args()
sys.path.insert(0, args.harness)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from llama7b_common import make_model  # noqa: E402
from decode_common import make_decoder, export_step, step_inputs  # noqa: E402
from torch_util import save, run_magi, cuda_time  # noqa: E402

OUT = os.environ.get("OUT", "/tmp/out")
os.makedirs(OUT, exist_ok=True)
work = "/tmp/magi-decode-bench"
os.makedirs(work, exist_ok=True)
res = {"cache_len": args.cache_len, "models": {}}


def dump():
    json.dump(res, open(f"{OUT}/decode.json", "w"), indent=1)


n = 1 << 30
src = torch.empty(n, dtype=torch.uint8, device="cuda")
dst = torch.empty_like(src)
res["d2d_GBps"] = 2 * n / cuda_time(lambda: dst.copy_(src), n=10) / 1e6
del src, dst
torch.cuda.empty_cache()

position = args.cache_len - 1
for spec in args.artifact:
    layers, art = spec.split("=", 1)
    layers = int(layers)
    r = res["models"][layers] = {}
    t0 = time.time()
    dec, filled, _ = make_decoder(make_model, layers, args.cache_len)
    # The archive's folder must be the one the artifact's entries name.
    real = f"{work}/decode{layers}.pt2"
    export_step(dec, position, real)
    r["export_s"] = time.time() - t0
    r["weights_GB"] = sum(t.numel() * t.element_size() for t in dec.parameters()) / 1e9
    ids, pos = step_inputs(position)
    with torch.no_grad():
        ref = dec(input_ids=ids, cache_position=pos)
    case = f"{work}/case{layers}"
    save(ids, case + "_in0")
    save(pos, case + "_in1")
    save(ref, case + "_out0")
    for mode, extra in (("check", ["--runs", "3"]), ("check_full", ["--runs", "3", "--cuda-graphs=full"]),
                        ("graphs", ["--repeat", "50"]), ("full", ["--repeat", "50", "--cuda-graphs=full"])):
        cmd = [args.magi_run, art, "--weights-from", real, "--fixture", case] + extra
        out, r[f"magi_{mode}"] = run_magi(cmd)
        rc = r[f"magi_{mode}"]["rc"]
        print(layers, mode, rc, r[f"magi_{mode}"]["ms"], r[f"magi_{mode}"]["rel_err"],
              r[f"magi_{mode}"]["mutations"], flush=True)
        if rc != 0:
            print(out[-1500:], flush=True)
        dump()
    with torch.no_grad():
        step = lambda: dec(input_ids=ids, cache_position=pos)  # noqa: E731
        r["torch_eager_ms"] = cuda_time(step, n=30)
        for name, kw in (("inductor", {}), ("inductor_cg", {"mode": "reduce-overhead"})):
            if name not in args.anchors.split(","):
                continue
            try:
                torch._dynamo.reset()
                c = torch.compile(dec, dynamic=False, **kw)
                t1 = time.time()
                c(input_ids=ids, cache_position=pos)
                r[f"{name}_first_call_s"] = time.time() - t1
                r[f"{name}_ms"] = cuda_time(lambda: c(input_ids=ids, cache_position=pos), n=30)
                r[f"{name}_rel_err"] = float(
                    (c(input_ids=ids, cache_position=pos).float() - ref.float()).norm()
                    / ref.float().norm())
            except Exception as e:  # noqa: BLE001 - recorded, the run goes on
                r[f"{name}_error"] = repr(e)[-800:]
    print(layers, {k: v for k, v in r.items() if k.endswith("_ms")}, flush=True)
    dump()
    del dec
    torch.cuda.empty_cache()

# Per layer, and the weights streamed per layer at the copy bandwidth (the step's floor).
if {1, 4} <= set(res["models"]):
    one, four = res["models"][1], res["models"][4]
    table = {}
    for key in ("magi_graphs", "magi_full", "torch_eager", "inductor", "inductor_cg"):
        a = one.get(key, {}).get("ms") if key.startswith("magi") else one.get(f"{key}_ms")
        b = four.get(key, {}).get("ms") if key.startswith("magi") else four.get(f"{key}_ms")
        if a is not None and b is not None:
            table[key] = {"1": a, "4": b, "per_layer": (b - a) / 3}
    layer_bytes = (four["weights_GB"] - one["weights_GB"]) / 3 * 1e9
    kv_bytes = 2 * 32 * args.cache_len * 128 * 2
    table["floor_per_layer_ms"] = (layer_bytes + kv_bytes) / (res["d2d_GBps"] * 1e9) * 1e3
    res["table"] = table
    print(json.dumps(table, indent=1))
dump()
