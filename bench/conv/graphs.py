#!/usr/bin/env python3
"""Writes one magi graph per convolution of the sweep (here, before
compiling): `<out>/<name>.mlir` holding a single `magi.convolution` over
user inputs x, w (and a bias), static sizes, and `<out>/configs.json`
describing them for check.py. The shapes are ResNet-50's at batch 8 and
224 x 224 (stem, 3 x 3 and 1 x 1 convolutions at each resolution, a
strided one), a depthwise one (groups = channels, MobileNet's), three
grouped ones (ResNeXt's), a 1-d, a
dilated and a 3-d one, a batch of one, and three transposed ones (a
decoder's upsampling: UNet's 2 x 2 of stride 2, DCGAN's 4 x 4 of stride 2,
a 3 x 3 of stride 2 with output padding).

    python3 bench/conv/graphs.py OUT
"""
import json, os, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def conv(name, n, c, size, o, k, stride=1, pad=0, dilation=1, groups=1, bias=False, dtype="bf16",
         transposed=False, output_padding=0):
    return dict(name=name, batch=n, channels=c, size=list(size), out_channels=o, kernel=k,
                stride=stride, padding=pad, dilation=dilation, groups=groups, bias=bias,
                dtype=dtype, transposed=transposed, output_padding=output_padding)


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
    # Grouped, not depthwise: ResNeXt-50 32x4d's (4 channels a group: one
    # generic), ResNeXt-101 32x8d's (8 channels x 9 taps: a product per
    # group, batched), and two groups of 128 channels.
    conv("g32x4-3x3-c128-56", 8, 128, (56, 56), 128, 3, pad=1, groups=32),
    conv("g32x8-3x3-c256-56", 8, 256, (56, 56), 256, 3, pad=1, groups=32),
    conv("g2-3x3-c256-28", 8, 256, (28, 28), 256, 3, pad=1, groups=2),
    conv("1d-k3-c256", 4, 256, (1024,), 256, 3, pad=1, bias=True),
    conv("3x3-c64-56-n1", 1, 64, (56, 56), 64, 3, pad=1),
    conv("3x3-c64-56-d2", 8, 64, (56, 56), 64, 3, pad=2, dilation=2),
    conv("3d-k3-c32", 2, 32, (16, 16, 16), 32, 3, pad=1, bias=True),
    conv("t2x2-s2-c256-28", 8, 256, (28, 28), 128, 2, stride=2, transposed=True),
    conv("t4x4-s2-c128-32-bias", 8, 128, (32, 32), 64, 4, stride=2, pad=1, bias=True,
         transposed=True),
    conv("t3x3-s2-op1-c64-56", 8, 64, (56, 56), 64, 3, stride=2, pad=1, transposed=True,
         output_padding=1),
]


def out_size(c):
    span = c["dilation"] * (c["kernel"] - 1) + 1
    if c["transposed"]:
        return [(s - 1) * c["stride"] - 2 * c["padding"] + span + c["output_padding"]
                for s in c["size"]]
    return [(s + 2 * c["padding"] - span) // c["stride"] + 1 for s in c["size"]]


for c in configs:
    el, spatial = c["dtype"], len(c["size"])
    dims = lambda shape: "x".join(str(d) for d in shape)
    x = f"tensor<{dims([c['batch'], c['channels']] + c['size'])}x{el}>"
    # A transposed convolution's weight is [C, O / groups, *kernel].
    w_shape = ([c["channels"], c["out_channels"] // c["groups"]] if c["transposed"] else
               [c["out_channels"], c["channels"] // c["groups"]]) + [c["kernel"]] * spatial
    w = f"tensor<{dims(w_shape)}x{el}>"
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
    if c["transposed"]:
        attrs += ", transposed"
        if c["output_padding"]:
            attrs += f", output_padding = {ints(c['output_padding'])}"
    lines = [f"func.func @conv({', '.join(args)}) -> {y} {{",
             f"  %y = magi.convolution {operands} {{{attrs}}} : ({types}) -> {y}",
             f"  return %y : {y}", "}"]
    open(f"{out}/{c['name']}.mlir", "w").write("\n".join(lines) + "\n")
json.dump(configs, open(f"{out}/configs.json", "w"), indent=1)
print(len(configs), "graphs in", out)
