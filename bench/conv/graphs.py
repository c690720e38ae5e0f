#!/usr/bin/env python3
"""Writes one magi graph per convolution of the sweep (here, before
compiling): `<out>/<name>.mlir` holding a single `magi.convolution` over
user inputs x, w (and a bias), static sizes, and `<out>/configs.json`
describing them for check.py. The shapes are ResNet-50's at batch 8 and
224 x 224 (stem, 3 x 3 and 1 x 1 convolutions at each resolution, a
strided one), a depthwise one (groups = channels, MobileNet's), a 1-d, a
dilated and a 3-d one, and a batch of one.

    python3 bench/conv/graphs.py OUT
"""
import json, os, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def conv(name, n, c, size, o, k, stride=1, pad=0, dilation=1, groups=1, bias=False, dtype="bf16"):
    return dict(name=name, batch=n, channels=c, size=list(size), out_channels=o, kernel=k,
                stride=stride, padding=pad, dilation=dilation, groups=groups, bias=bias,
                dtype=dtype)


configs = [
    conv("stem-7x7-s2", 8, 3, (224, 224), 64, 7, stride=2, pad=3),
    conv("3x3-c64-56", 8, 64, (56, 56), 64, 3, pad=1),
    conv("1x1-c256-56", 8, 256, (56, 56), 64, 1),
    conv("3x3-c128-28", 8, 128, (28, 28), 128, 3, pad=1),
    conv("3x3-c256-s2", 8, 256, (28, 28), 256, 3, stride=2, pad=1),
    conv("1x1-c1024-14", 8, 1024, (14, 14), 256, 1),
    conv("3x3-c512-7", 8, 512, (7, 7), 512, 3, pad=1),
    conv("3x3-c64-56-f32-bias", 8, 64, (56, 56), 64, 3, pad=1, bias=True, dtype="f32"),
    conv("3x3-c64-56-bias", 8, 64, (56, 56), 64, 3, pad=1, bias=True),
    conv("dw3x3-c96-56", 8, 96, (56, 56), 96, 3, pad=1, groups=96),
    conv("1d-k3-c256", 4, 256, (1024,), 256, 3, pad=1, bias=True),
    conv("3x3-c64-56-n1", 1, 64, (56, 56), 64, 3, pad=1),
    conv("3x3-c64-56-d2", 8, 64, (56, 56), 64, 3, pad=2, dilation=2),
    conv("3d-k3-c32", 2, 32, (16, 16, 16), 32, 3, pad=1, bias=True),
]


def out_size(c):
    span = c["dilation"] * (c["kernel"] - 1) + 1
    return [(s + 2 * c["padding"] - span) // c["stride"] + 1 for s in c["size"]]


for c in configs:
    el, spatial = c["dtype"], len(c["size"])
    dims = lambda shape: "x".join(str(d) for d in shape)
    x = f"tensor<{dims([c['batch'], c['channels']] + c['size'])}x{el}>"
    w = f"tensor<{dims([c['out_channels'], c['channels'] // c['groups']] + [c['kernel']] * spatial)}x{el}>"
    b = f"tensor<{c['out_channels']}x{el}>"
    y = f"tensor<{dims([c['batch'], c['out_channels']] + out_size(c))}x{el}>"
    args = [f'%x: {x} {{magi.input_kind = "user_input", magi.name = "x"}}',
            f'%w: {w} {{magi.input_kind = "user_input", magi.name = "w"}}']
    operands, types = "%x, %w", f"{x}, {w}"
    if c["bias"]:
        args.append(f'%b: {b} {{magi.input_kind = "user_input", magi.name = "b"}}')
        operands, types = operands + ", %b", types + f", {b}"
    ints = lambda v: "array<i64: " + ", ".join([str(v)] * spatial) + ">"
    attrs = (f"stride = {ints(c['stride'])}, padding = {ints(c['padding'])}, "
             f"dilation = {ints(c['dilation'])}, groups = {c['groups']} : i64")
    lines = [f"func.func @conv({', '.join(args)}) -> {y} {{",
             f"  %y = magi.convolution {operands} {{{attrs}}} : ({types}) -> {y}",
             f"  return %y : {y}", "}"]
    open(f"{out}/{c['name']}.mlir", "w").write("\n".join(lines) + "\n")
json.dump(configs, open(f"{out}/configs.json", "w"), indent=1)
print(len(configs), "graphs in", out)
