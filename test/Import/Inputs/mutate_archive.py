"""Writes a copy of a torch.export archive with one defect, for the importer's
error tests: mutate_archive.py SRC DST MUTATION [ARG...]."""
import json
import sys
import zipfile

src, dst, mutation = sys.argv[1:4]
args = sys.argv[4:]

with zipfile.ZipFile(src) as zin:
    entries = {info.filename: zin.read(info.filename) for info in zin.infolist()}

prefix = next(iter(entries)).split("/")[0] + "/"
model_entry = prefix + "models/model.json"
program = json.loads(entries[model_entry])
graph = program["graph_module"]["graph"]

if mutation == "schema7":
    program["schema_version"] = {"major": 7, "minor": 3}
elif mutation == "truncate-weight":
    weight = prefix + "data/weights/weight_0"
    entries[weight] = entries[weight][: len(entries[weight]) // 2]
elif mutation == "unknown-dtype":
    first_input = graph["inputs"][0]["as_tensor"]["name"]
    graph["tensor_values"][first_input]["dtype"] = 10  # complex64
elif mutation == "undefined-value":
    for node in graph["nodes"]:
        for arg in node["inputs"]:
            if "as_tensor" in arg["arg"]:
                arg["arg"]["as_tensor"]["name"] = "no_such_value"
                break
        else:
            continue
        break
elif mutation == "custom-op":
    for node in graph["nodes"]:
        if node["target"] == "torch.ops.aten.neg.default":
            node["target"] = "torch.ops.mylib.my_neg.default"
elif mutation == "no-model-json":
    del entries[model_entry]
elif mutation == "retarget":  # OLD NEW: the first node calling OLD calls NEW
    node = next(n for n in graph["nodes"] if n["target"] == args[0])
    node["target"] = args[1]
elif mutation == "set-arg":  # TARGET NAME JSON: an argument of a node
    node = next(n for n in graph["nodes"] if n["target"] == args[0])
    next(a for a in node["inputs"] if a["name"] == args[1])["arg"] = \
        json.loads(args[2])
elif mutation == "weight-size":  # N: the first weight's first size is N
    first_input = graph["inputs"][0]["as_tensor"]["name"]
    graph["tensor_values"][first_input]["sizes"][0] = {"as_int": int(args[0])}
elif mutation in ("weight-offset", "weight-stride"):  # N: of the first weight
    config_entry = prefix + "data/weights/model_weights_config.json"
    config = json.loads(entries[config_entry])
    meta = next(iter(config["config"].values()))["tensor_meta"]
    if mutation == "weight-offset":
        meta["storage_offset"] = {"as_int": int(args[0])}
    else:
        meta["strides"][0] = {"as_int": int(args[0])}
    entries[config_entry] = json.dumps(config).encode()
elif mutation == "deep-expr":  # N: the first symbolic size nests N deep
    sizes = next(t["sizes"] for t in graph["tensor_values"].values()
                 if any("as_expr" in s for s in t["sizes"]))
    depth = int(args[0])
    text = "Add(" * depth + "Symbol('s70')" + ", Integer(1))" * depth
    next(s for s in sizes if "as_expr" in s)["as_expr"]["expr_str"] = text
elif mutation == "deep-json":  # N: model.json nests N arrays deep
    pass  # written below: Python's json module cannot nest that deep
elif mutation == "bad-json":  # model.json's second line ends in a stray comma
    pass  # written below
else:
    sys.exit("unknown mutation " + mutation)

if model_entry in entries:
    entries[model_entry] = json.dumps(program).encode()
if mutation == "deep-json":
    depth = int(args[0])
    nested = "[" * depth + "]" * depth
    entries[model_entry] = ('{"deep": ' + nested + ", " +
                            entries[model_entry].decode()[1:]).encode()
if mutation == "bad-json":
    entries[model_entry] = b'{"schema_version": {"major": 8},\n "graph_module": {},}'
with zipfile.ZipFile(dst, "w") as zout:
    for name, data in entries.items():
        zout.writestr(name, data)
