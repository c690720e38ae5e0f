"""Writes a copy of a torch.export archive with one defect, for the importer's
error tests: mutate_archive.py SRC DST MUTATION."""
import json
import sys
import zipfile

src, dst, mutation = sys.argv[1:4]

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
else:
    sys.exit("unknown mutation " + mutation)

if model_entry in entries:
    entries[model_entry] = json.dumps(program).encode()
with zipfile.ZipFile(dst, "w") as zout:
    for name, data in entries.items():
        zout.writestr(name, data)
