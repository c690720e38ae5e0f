"""Writes a small seed for the pt2 fuzz target from a torch.export archive:
the same entries, weights and constants zeroed and every entry deflated, so
the importer sees a real program at a few KiB. With --nodes N, only the
graph's first N nodes are kept, the last one's first tensor its output, and
the tensor values nothing kept refers to are dropped: a smaller program
imports many times faster, so the fuzzer runs many more mutants of it.

usage: make_pt2_seed.py SRC.pt2 DST.pt2 [--nodes N]"""
import json
import sys
import zipfile

args = sys.argv[1:]
nodes = None
if "--nodes" in args:
    at = args.index("--nodes")
    nodes = int(args[at + 1])
    del args[at:at + 2]
src, dst = args


def truncated(text, count):
    program = json.loads(text)
    graph = program["graph_module"]["graph"]
    kept = graph["nodes"][:count]
    last = next((o["as_tensor"]["name"] for node in reversed(kept)
                 for o in node["outputs"] if "as_tensor" in o), None)
    if last is None:
        return text
    graph["nodes"] = kept
    graph["outputs"] = [{"as_tensor": {"name": last}}]
    program["graph_module"]["signature"]["output_specs"] = [
        {"user_output": {"arg": {"as_tensor": {"name": last}}}}]
    # Tensor values: the graph's inputs and what the kept nodes produce.
    used = {i["as_tensor"]["name"] for i in graph["inputs"] if "as_tensor" in i}
    for node in kept:
        for o in node["outputs"]:
            for t in [o.get("as_tensor")] + list(o.get("as_tensors", [])):
                if t:
                    used.add(t["name"])
    graph["tensor_values"] = {k: v for k, v in graph["tensor_values"].items() if k in used}
    return json.dumps(program)


with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zout:
    for info in zin.infolist():
        data = zin.read(info.filename)
        if "/data/weights/" in info.filename or "/data/constants/" in info.filename:
            if not info.filename.endswith(".json"):
                data = bytes(len(data))
        if nodes is not None and info.filename.endswith("models/model.json"):
            data = truncated(data.decode(), nodes).encode()
        zout.writestr(info.filename, data)
