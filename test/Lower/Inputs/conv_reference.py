"""Integer-valued test data for convolutions and their results, computed
here in plain Python (exact: small integers in f32 and bf16), printed as
magi-interp prints tensors.

  conv_reference.py data COUNT          the values: (7 i + 3) mod 5 - 2
  conv_reference.py conv X_SHAPE W_SHAPE BIAS(0/1) STRIDE PADDING DILATION
                    GROUPS NAME TYPE    one output line
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

xs, ws, has_bias, stride, pad, dil, groups, name, typ = sys.argv[2:11]
xs, ws, stride, pad, dil, groups = ints(xs), ints(ws), ints(stride), ints(pad), ints(dil), int(groups)
x = nested(data(eval("*".join(map(str, xs)))), xs)
w = nested(data(eval("*".join(map(str, ws)))), ws)
bias = data(ws[0]) if has_bias == "1" else [0] * ws[0]
sp = len(xs) - 2
out_sp = [(xs[2 + d] + 2 * pad[d] - dil[d] * (ws[2 + d] - 1) - 1) // stride[d] + 1 for d in range(sp)]
per_group, out_per_group = ws[1], ws[0] // groups


def at(t, idx):
    for i in idx:
        t = t[i]
    return t


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
shape = [xs[0], ws[0]] + out_sp
print("%s: tensor<%s> = %s" % (name, "x".join(map(str, shape)) + "x" + typ, text(nested(flat, shape))))
