"""Uses the `magi` package of this build without PyTorch: its version, the
compile C API through ctypes (a good compile, a bad option, a bad graph),
and the runtime library's loading. Prints what it saw, for FileCheck."""

import os
import sys

import magi

graph, out = sys.argv[1], sys.argv[2]
print("version:", magi.__version__)
print("compile C API:", magi.c_api_version("compile"))
names = magi.compile_option_names()
print("options:", len(names), "compile-sizes" in names, "o" in names)

result = magi.compile_file(graph, os.path.join(out, "artifact"), no_cubin=True,
                           cache_mode="off", compile_sizes=[4])
print("compiled:", result.pieces, "pieces,", result.cached_pieces, "from the cache")
print("manifest:", os.path.exists(os.path.join(out, "artifact", "manifest.json")))

for bad in ({"bogus_flag": 1}, {"block_size": "many"}, {"cache_mode": "sometimes"}):
    try:
        magi.compile_file(graph, os.path.join(out, "bad"), **bad)
        print("bad option accepted:", bad)
    except magi.MagiError as e:
        print("refused:", e)

with open(os.path.join(out, "broken.mlir"), "w") as f:
    f.write("func.func @main(%x: tensor<2xf32>) -> tensor<3xf32> {\n"
            "  %0 = magi.relu %x : (tensor<2xf32>) -> tensor<3xf32>\n"
            "  return %0 : tensor<3xf32>\n}\n")
try:
    magi.compile_file(os.path.join(out, "broken.mlir"), os.path.join(out, "bad"),
                      cache_mode="off")
    print("broken graph accepted")
except magi.MagiError as e:
    print("broken graph:", str(e).replace("\n", " | "))

# Without a CUDA driver (CI) the runtime library cannot load; with one it does.
try:
    print("runtime C API:", magi.c_api_version("runtime"))
except magi.MagiError as e:
    print("runtime C API:", e)

# How outputs are returned is checked before anything needs PyTorch.
try:
    magi.load(os.path.join(out, "artifact"), outputs="share")
    print("outputs='share' accepted")
except magi.MagiError as e:
    print("refused:", e)
try:
    magi.load(os.path.join(out, "artifact"), pad_to_compile_sizes="yes")
    print("pad_to_compile_sizes='yes' accepted")
except magi.MagiError as e:
    print("refused:", e)
