"""Writes a torch.export archive holding a small graph described in a few
lines, for import tests of single ops (PyTorch is not here to export them):
the entries of a real archive (BASE) around a program with only user inputs,
the nodes given, and their outputs.

usage: op_archive.py BASE.pt2 DST.pt2 SPEC|@SPEC_FILE

SPEC is Python literal syntax:
  {"symbols": {"s0": (2, None)},                      # name: (min, max)
   "inputs": {"x": ("f32", [2, "s0"])},                # dtype, sizes
   "nodes": [("aten.var.dim", [("self", "x"), ("dim", [1]),
                               ("unbiased", False)],
              {"y": ("f32", [2])})],                    # tensor outputs
   "outputs": ["y"]}
An argument is a value name (a tensor or SymInt defined before), an int, a
float (1e400 and -1e400 are the infinities), a bool, None, a list of ints
or ("str", TEXT), ("floats", [NUMBERS]), ("dtype", DTYPE), ("tensors", [NAMES]) (a tensor list), ("graph", NAME,
SUBGRAPH) (a higher-order op's subgraph: a dict of "inputs", "nodes" and
"outputs" as above, with tensor metadata of its own, as torch.export
serializes cond's and while_loop's branches), a string; a tensor output
("f32", [SIZES], "EXPR") has the symbolic storage offset EXPR (a view's);
an output ("index",
"EXPR") is a SymInt, EXPR its value as torch.export writes it
("Mul(Integer(2), Symbol('s0', positive=True, integer=True))"), and
("symbool", "EXPR") a SymBool, ("symfloat", "EXPR") a SymFloat (a float
.item()). A node without outputs (an assertion) is
named after its target. An argument
named "" is positional, as torch.export names a higher-order op's."""
import ast
import json
import sys
import zipfile

DTYPES = {"u8": 1, "i8": 2, "i16": 3, "i32": 4, "i64": 5, "f16": 6, "f32": 7,
          "f64": 8, "bool": 12, "bf16": 13}

base, dst, spec_text = sys.argv[1:4]
if spec_text.startswith("@"):  # the spec in a file
    with open(spec_text[1:]) as f:
        spec_text = f.read()
spec = ast.literal_eval(spec_text)


def size(s):
    if isinstance(s, int):
        return {"as_int": s}
    return {"as_expr": {"expr_str": "Symbol('%s', positive=True, integer=True)" % s,
                        "hint": {"as_int": 4}}}


def meta(dtype, sizes):
    # Strides as contiguous ones, a symbol counted as its hint (the importer
    # reads sizes, not strides).
    strides, running = [], 1
    for s in reversed(sizes):
        strides.insert(0, {"as_int": running})
        running *= s if isinstance(s, int) else 4
    return {"dtype": DTYPES[dtype], "sizes": [size(s) for s in sizes],
            "requires_grad": False, "device": {"type": "cpu"}, "strides": strides,
            "storage_offset": {"as_int": 0}, "layout": 7}


symbols, sym_ints, sym_bools, sym_floats = spec.get("symbols", {}), {}, {}, {}


def argument(value):
    if value is None:
        return {"as_none": True}
    if isinstance(value, bool):
        return {"as_bool": value}
    if isinstance(value, int):
        return {"as_int": value}
    if isinstance(value, float):
        # Infinities as torch.export writes them (JSON has no literal).
        if value in (float("inf"), float("-inf")):
            return {"as_float": "Infinity" if value > 0 else "-Infinity"}
        return {"as_float": value}
    if isinstance(value, list):
        return {"as_ints": value}
    if isinstance(value, tuple) and value[0] == "str":
        return {"as_string": value[1]}
    if isinstance(value, tuple) and value[0] == "floats":
        return {"as_floats": value[1]}
    if isinstance(value, tuple) and value[0] == "dtype":
        return {"as_scalar_type": DTYPES[value[1]]}
    if isinstance(value, tuple) and value[0] == "tensors":
        return {"as_tensors": [{"name": n} for n in value[1]]}
    if isinstance(value, tuple) and value[0] == "graph":
        return {"as_graph": {"name": value[1], "graph": graph(value[2])[0]}}
    if value in sym_ints:
        return {"as_sym_int": {"as_name": value}}
    if value in sym_bools:
        return {"as_sym_bool": {"as_name": value}}
    if value in sym_floats:
        return {"as_sym_float": {"as_name": value}}
    return {"as_tensor": {"name": value}}


def graph(part):
    """The serialized graph of `part` and its input names."""
    tensor_values, graph_sym_ints, graph_sym_bools, graph_sym_floats, inputs = {}, {}, {}, {}, []
    for name, (dtype, sizes) in part["inputs"].items():
        tensor_values[name] = meta(dtype, sizes)
        inputs.append({"as_tensor": {"name": name}})
    nodes = []
    for target, args, outputs in part["nodes"]:
        node_outputs = []
        for out, value in outputs.items():
            dtype, sizes = value[:2]
            if dtype == "index":
                sym_ints[out] = graph_sym_ints[out] = sizes  # as written
                node_outputs.append({"as_sym_int": {"as_name": out}})
            elif dtype == "symbool":
                sym_bools[out] = graph_sym_bools[out] = sizes  # as written
                node_outputs.append({"as_sym_bool": {"as_name": out}})
            elif dtype == "symfloat":
                sym_floats[out] = graph_sym_floats[out] = sizes  # as written
                node_outputs.append({"as_sym_float": {"as_name": out}})
            else:
                tensor_values[out] = meta(dtype, sizes)
                if len(value) == 3:  # a view's symbolic storage offset
                    tensor_values[out]["storage_offset"] = {
                        "as_expr": {"expr_str": value[2], "hint": None}}
                node_outputs.append({"as_tensor": {"name": out}})
        nodes.append({"target": "torch.ops." + target,
                      "inputs": [{"name": n, "arg": argument(v), "kind": 1}
                                 for n, v in args],
                      "outputs": node_outputs, "metadata": {},
                      "is_hop_single_tensor_return": None,
                      "name": list(outputs)[0] if outputs
                      else target.replace(".", "_")})
    outputs = [argument(o) for o in part["outputs"]]
    return ({"inputs": inputs, "outputs": outputs, "nodes": nodes,
             "tensor_values": tensor_values,
             "sym_int_values": {s: {"as_expr": {"expr_str": e, "hint": {"as_int": 4}}}
                                for s, e in graph_sym_ints.items()},
             "sym_bool_values": {s: {"as_expr": {"expr_str": e}}
                                 for s, e in graph_sym_bools.items()},
             "is_single_tensor_return": False,
             "custom_obj_values": {},
             "sym_float_values": {s: {"as_expr": {"expr_str": e}}
                                  for s, e in graph_sym_floats.items()}}, list(part["inputs"]))


top, input_names = graph(spec)
input_specs = [{"user_input": {"arg": {"as_tensor": {"name": n}}}} for n in input_names]
graph_outputs = top["outputs"]
with zipfile.ZipFile(base) as zin:
    entries = {info.filename: zin.read(info.filename) for info in zin.infolist()}
prefix = next(iter(entries)).split("/")[0] + "/"
program = json.loads(entries[prefix + "models/model.json"])
program["range_constraints"] = {s: {"min_val": lo, "max_val": hi}
                                for s, (lo, hi) in symbols.items()}
program["guards_code"] = []
gm = program["graph_module"]
gm["graph"] = top
gm["signature"] = {"input_specs": input_specs,
                   "output_specs": [{"user_output": {"arg": a}} for a in graph_outputs]}

with zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
    for name, data in entries.items():
        if "/data/weights/" in name or "/data/constants/" in name:
            if name.endswith("_config.json"):
                zout.writestr(name, json.dumps({"config": {}}))
            continue
        if name.endswith("models/model.json"):
            data = json.dumps(program).encode()
        zout.writestr(name, data)
