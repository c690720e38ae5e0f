"""Integer-valued test data for convolutions and their results, computed
here in plain Python (exact: small integers in f32 and bf16), printed as
magi-interp prints tensors.

  conv_reference.py data COUNT          the values: (7 i + 3) mod 5 - 2
  conv_reference.py conv X_SHAPE W_SHAPE BIAS(0/1) STRIDE PADDING DILATION
                    GROUPS NAME TYPE    one output line
  conv_reference.py tconv X_SHAPE W_SHAPE BIAS STRIDE PADDING DILATION
                    OUTPUT_PADDING GROUPS NAME TYPE
                                        a transposed convolution's line (the
                                        weight [C, O / groups, *kernel]); each
                                        input element scattered to
                                        i * stride - padding + tap * dilation
Shapes and the per-dimension lists are comma-separated."""
import itertools
import sys


def data(count):
    return [(7 * i + 3) % 5 - 2 for i in range(count)]


def nested(flat, shape):
    if not shape:
        return flat[0]
    step = len(flat) // shape[0]
    return [nested(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def text(v):
    if isinstance(v, list):
        return "[" + ", ".join(text(x) for x in v) + "]"
    return str(int(v))


def ints(s):
    return [int(x) for x in s.split(",")]


if sys.argv[1] == "data":
    print(",".join(str(v) for v in data(int(sys.argv[2]))))
    sys.exit(0)



def at(t, idx):
    for i in idx:
        t = t[i]
    return t


def product(shape):
    total = 1
    for s in shape:
        total *= s
    return total


def show(name, typ, shape, flat):
    print("%s: tensor<%s> = %s" % (name, "x".join(map(str, shape)) + "x" + typ, text(nested(flat, shape))))


if sys.argv[1] == "tconv":
    xs, ws, has_bias, stride, pad, dil, out_pad, groups, name, typ = sys.argv[2:12]
    xs, ws, stride, pad, dil, out_pad = ints(xs), ints(ws), ints(stride), ints(pad), ints(dil), ints(out_pad)
    groups = int(groups)
    x = nested(data(product(xs)), xs)
    w = nested(data(product(ws)), ws)
    sp = len(xs) - 2
    out_per_group = ws[1]
    out_channels = out_per_group * groups
    per_group = xs[1] // groups
    bias = data(out_channels) if has_bias == "1" else [0] * out_channels
    out_sp = [(xs[2 + d] - 1) * stride[d] - 2 * pad[d] + dil[d] * (ws[2 + d] - 1) + out_pad[d] + 1
              for d in range(sp)]
    shape = [xs[0], out_channels] + out_sp
    out = {}
    for n in range(xs[0]):
        for c in range(xs[1]):
            g = c // per_group
            for o in range(out_per_group):
                for pos in itertools.product(*[range(s) for s in xs[2:]]):
                    for tap in itertools.product(*[range(k) for k in ws[2:]]):
                        dst = [pos[d] * stride[d] - pad[d] + tap[d] * dil[d] for d in range(sp)]
                        if all(0 <= dst[d] < out_sp[d] for d in range(sp)):
                            key = (n, g * out_per_group + o) + tuple(dst)
                            out[key] = out.get(key, 0) + at(x, [n, c] + list(pos)) * at(w, [c, o] + list(tap))
    flat = [out.get((n, o) + pos, 0) + bias[o]
            for n in range(xs[0]) for o in range(out_channels)
            for pos in itertools.product(*[range(s) for s in out_sp])]
    show(name, typ, shape, flat)
    sys.exit(0)

xs, ws, has_bias, stride, pad, dil, groups, name, typ = sys.argv[2:11]
xs, ws, stride, pad, dil, groups = ints(xs), ints(ws), ints(stride), ints(pad), ints(dil), int(groups)
x = nested(data(eval("*".join(map(str, xs)))), xs)
w = nested(data(eval("*".join(map(str, ws)))), ws)
bias = data(ws[0]) if has_bias == "1" else [0] * ws[0]
sp = len(xs) - 2
out_sp = [(xs[2 + d] + 2 * pad[d] - dil[d] * (ws[2 + d] - 1) - 1) // stride[d] + 1 for d in range(sp)]
per_group, out_per_group = ws[1], ws[0] // groups


flat = []
for n in range(xs[0]):
    for o in range(ws[0]):
        g = o // out_per_group
        for pos in itertools.product(*[range(s) for s in out_sp]):
            total = bias[o]
            for c in range(per_group):
                for tap in itertools.product(*[range(k) for k in ws[2:]]):
                    src = [pos[d] * stride[d] - pad[d] + tap[d] * dil[d] for d in range(sp)]
                    if all(0 <= src[d] < xs[2 + d] for d in range(sp)):
                        total += at(x, [n, g * per_group + c] + src) * at(w, [o, c] + list(tap))
            flat.append(total)
show(name, typ, [xs[0], ws[0]] + out_sp, flat)
