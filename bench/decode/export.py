"""On the GPU machine: export the 7B-shaped decoder (one token against a static KV cache of
--cache-len positions) with 1 and 4 layers and write zero-weight archives (weights and cache zeroed,
deflated) to $OUT, with a description of each program's signature and ops in $OUT/decode-export.json.

usage: python3 bench/decode/export.py --harness DIR [--layers 1 4] [--cache-len 4096]
"""
import argparse, collections, json, os, sys, time, traceback

import torch

p = argparse.ArgumentParser()
p.add_argument("--harness", required=True)
p.add_argument("--layers", type=int, nargs="*", default=[1, 4])
p.add_argument("--cache-len", type=int, default=4096)
args = p.parse_args()
sys.path.insert(0, args.harness)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llama7b_common import make_model, zero_weights  # noqa: E402
from decode_common import make_decoder, export_step  # noqa: E402

OUT = os.environ.get("OUT", "/tmp/out")
os.makedirs(OUT, exist_ok=True)
work = "/tmp/magi-decode"
os.makedirs(work, exist_ok=True)
import transformers  # noqa: E402
res = {"torch": torch.__version__, "transformers": transformers.__version__, "models": {}}
for layers in args.layers:
    r = res["models"][layers] = {}
    t0 = time.time()
    try:
        # The graph does not depend on the cache's contents: export an empty one.
        dec, _, r["cache_tensors"] = make_decoder(make_model, layers, args.cache_len, filled=0)
        real = f"{work}/decode{layers}.pt2"
        log = r["export"] = {}
        ep = export_step(dec, args.cache_len - 1, real, log)
        zero_weights(real, f"{OUT}/llama7b-decode-{layers}l-zero.pt2")
        sig = ep.graph_signature
        r["export_s"] = time.time() - t0
        r["inputs"] = [(str(s.kind), s.arg.name, s.target) for s in sig.input_specs
                       if str(s.kind) != "InputKind.PARAMETER"]
        r["outputs"] = [(str(s.kind), s.arg.name, s.target) for s in sig.output_specs]
        r["ops"] = collections.Counter(str(n.target) for n in ep.graph_module.graph.nodes
                                       if n.op == "call_function")
        r["archive_bytes"] = os.path.getsize(f"{OUT}/llama7b-decode-{layers}l-zero.pt2")
        if layers == args.layers[0]:
            open(f"{OUT}/decode-{layers}l-graph.txt", "w").write(str(ep.graph_module.code))
        log.pop("training_ir", None)
        del dec, ep
    except Exception:
        r["error"] = traceback.format_exc()
        if "training_ir" in r.get("export", {}):
            open(f"{OUT}/decode-{layers}l-training-ir.txt", "w").write(r["export"].pop("training_ir"))
        print(r["error"], flush=True)
    torch.cuda.empty_cache()
    print(layers, {k: v for k, v in r.items() if k in ("export_s", "archive_bytes")}, flush=True)
    json.dump(res, open(f"{OUT}/decode-export.json", "w"), indent=1)
