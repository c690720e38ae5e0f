#!/usr/bin/env python3
"""Writes one magi graph per attention configuration of the sweep (here,
before compiling): `<out>/<name>.mlir` holding a single `magi.attention` over
user inputs q, k, v (and a mask) with a symbolic token count (static
sizes for the decode steps: one query row over `keys` cached ones), and
`<out>/configs.json` describing them for check.py.

    python3 bench/attention/graphs.py OUT
"""
import json, math, os, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
configs = []
for dtype in ("bf16", "f16"):
    for dim in (64, 128):
        for causal in (True, False):
            for kv_heads in (32, 8):
                configs.append(dict(dtype=dtype, dim=dim, causal=causal, heads=32,
                                    kv_heads=kv_heads, mask="none"))
# LLaMA's export: an additive causal mask of 0 / -inf; a boolean mask that
# hides some rows entirely (they give zeros).
configs.append(dict(dtype="bf16", dim=128, causal=False, heads=32, kv_heads=32, mask="additive-causal"))
configs.append(dict(dtype="f16", dim=64, causal=False, heads=8, kv_heads=2, mask="bool-random"))
# Each mask with the other head dimension and element type.
configs.append(dict(dtype="f16", dim=64, causal=False, heads=32, kv_heads=8, mask="additive-causal"))
configs.append(dict(dtype="bf16", dim=128, causal=False, heads=32, kv_heads=8, mask="bool-random"))

# A decode step: one query row over 4096 cached keys, static sizes (what the
# split over keys needs), each head dimension.
for dtype, dim in (("bf16", 128), ("f16", 64), ("bf16", 64)):
    configs.append(dict(dtype=dtype, dim=dim, causal=False, heads=32, kv_heads=8, mask="none",
                        queries=1, keys=4096))

for c in configs:
    el, h, hk, d = c["dtype"], c["heads"], c["kv_heads"], c["dim"]
    if "keys" in c:
        c["name"] = "{dtype}-d{dim}-h{heads}kv{kv_heads}-decode{keys}".format(**c)
        q = f"tensor<1x{h}x{c['queries']}x{d}x{el}>"
        kv = f"tensor<1x{hk}x{c['keys']}x{d}x{el}>"
    else:
        c["name"] = "{dtype}-d{dim}-h{heads}kv{kv_heads}-{c}-{mask}".format(
            c="causal" if c["causal"] else "full", **c)
        q, kv = f"tensor<1x{h}x?x{d}x{el}>", f"tensor<1x{hk}x?x{d}x{el}>"
    mask_type = {"none": None, "additive-causal": f"tensor<1x1x?x?x{el}>",
                 "bool-random": "tensor<1x1x?x?xi1>"}[c["mask"]]
    args = [f'%q: {q} {{magi.input_kind = "user_input", magi.name = "q"}}',
            f'%k: {kv} {{magi.input_kind = "user_input", magi.name = "k"}}',
            f'%v: {kv} {{magi.input_kind = "user_input", magi.name = "v"}}']
    if mask_type:
        args.append(f'%m: {mask_type} {{magi.input_kind = "user_input", magi.name = "mask"}}')
    lines = [f"func.func @attention({', '.join(args)}) -> {q} {{"]
    if "keys" not in c:
        lines += ['  %s0 = magi.symbolic_int "s0" min 1 max 16384',
                  f"  magi.bind_symbolic_shape %q, [%s0], affine_map<()[s0] -> (1, {h}, s0, {d})> : {q}",
                  f"  magi.bind_symbolic_shape %k, [%s0], affine_map<()[s0] -> (1, {hk}, s0, {d})> : {kv}",
                  f"  magi.bind_symbolic_shape %v, [%s0], affine_map<()[s0] -> (1, {hk}, s0, {d})> : {kv}"]
    operands, types = "%q, %k, %v", f"{q}, {kv}, {kv}"
    if mask_type:
        lines.append(f"  magi.bind_symbolic_shape %m, [%s0], affine_map<()[s0] -> (1, 1, s0, s0)> : {mask_type}")
        operands += " mask %m"
        types += f", {mask_type}"
    causal = "is_causal = true, " if c["causal"] else ""
    lines += [f"  %o = magi.attention {operands} {{{causal}scale = {1 / math.sqrt(d)!r} : f64}} : ({types}) -> {q}",
              f"  return %o : {q}", "}"]
    open(f"{out}/{c['name']}.mlir", "w").write("\n".join(lines) + "\n")
json.dump(configs, open(f"{out}/configs.json", "w"), indent=1)
print(len(configs), "graphs in", out)
