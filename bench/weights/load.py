"""Weight-load speed of magi-run on the 32-layer 7B-shaped model (13.5 GB), on the GPU machine,
beside the pinned and pageable host-to-device bandwidth measured in the same run.

usage: python3 bench/weights/load.py --archive ZERO.pt2 --artifact DIR --input IDS
                                     --magi-run NAME=BIN [--magi-run NAME=BIN ...] [--loads N]

ZERO.pt2 is `llama7b-32l-lm-zero.pt2` (deflated zeros, 16 MB); this rewrites it with every entry
stored, as `torch.export.save` writes real weights, into /tmp (so the file is in the page cache, as
the issue's goal assumes), then runs each magi-run binary N times in turn (`--weights-from` the
stored copy: every storage streamed and CRC-checked) and parses its `weights:` line. Loading zeros
costs what loading real weights costs: nothing looks at the values but the CRC. Results:
$OUT/load.json and a table on stdout.
"""
import argparse, json, os, re, statistics, subprocess, time, zipfile

import torch

p = argparse.ArgumentParser()
p.add_argument("--archive", required=True)
p.add_argument("--artifact", required=True)
p.add_argument("--input", required=True)
p.add_argument("--magi-run", action="append", required=True, help="NAME=BIN")
p.add_argument("--loads", type=int, default=4)
args = p.parse_args()
OUT = os.environ.get("OUT", "/tmp/out")
os.makedirs(OUT, exist_ok=True)
res = {"runs": {}}

stored = "/tmp/magi-load-stored.pt2"
t0 = time.time()
with zipfile.ZipFile(args.archive) as zin, zipfile.ZipFile(stored, "w", zipfile.ZIP_STORED) as zout:
    for info in zin.infolist():
        with zin.open(info) as src, zout.open(zipfile.ZipInfo(info.filename, info.date_time),
                                               "w") as dst:
            while chunk := src.read(64 << 20):
                dst.write(chunk)
res["stored_bytes"] = os.path.getsize(stored)
res["stored_write_s"] = time.time() - t0
print(f"stored copy: {res['stored_bytes'] / 1e9:.2f} GB in {res['stored_write_s']:.1f} s", flush=True)

host = torch.empty(1 << 28, dtype=torch.uint8).pin_memory()
dev = torch.empty(1 << 28, dtype=torch.uint8, device="cuda")
for kind, src in (("pinned", host), ("pageable", torch.empty(1 << 28, dtype=torch.uint8))):
    for _ in range(2):
        dev.copy_(src, non_blocking=True)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(5):
        start.record()
        dev.copy_(src, non_blocking=True)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    res[f"h2d_{kind}_GBps"] = (1 << 28) / statistics.median(times) / 1e6
del host, dev
torch.cuda.empty_cache()
pinned = res["h2d_pinned_GBps"]
print(f"host to device GB/s: pinned {pinned:.1f}, pageable {res['h2d_pageable_GBps']:.1f}", flush=True)

binaries = dict(spec.split("=", 1) for spec in args.magi_run)
line = re.compile(r"weights: .* in ([0-9.]+) s \(([0-9.]+) GB/s\)")
for n in range(args.loads):
    for name, binary in binaries.items():  # in turn, so drift hits every binary alike
        proc = subprocess.run([binary, args.artifact, "--weights-from", stored, "--input", args.input,
                               "--print-limit", "0", "--verbose"],
                              capture_output=True, text=True, timeout=300)
        out = proc.stdout + proc.stderr
        m = line.search(out)
        split = re.findall(r"^weights: ([0-9.]+) s opening.*?, ([0-9.]+) s reading", out, re.M)
        run = {"rc": proc.returncode, "s": float(m.group(1)) if m else None,
               "GBps": float(m.group(2)) if m else None, "split": split,
               "tail": out[-600:] if proc.returncode or not m else ""}
        res["runs"].setdefault(name, []).append(run)
        print(name, n, run["s"], run["GBps"], split, run["tail"], flush=True)
json.dump(res, open(f"{OUT}/load.json", "w"), indent=1)
os.remove(stored)

print(f"\n| magi-run | loads | median s | median GB/s | of pinned ({pinned:.1f} GB/s) |")
print("|---|---|---|---|---|")
for name, runs in res["runs"].items():
    ok = [r for r in runs if r["GBps"]]
    if not ok:
        print(f"| {name} | 0 of {len(runs)} | | | |")
        continue
    gbps = statistics.median(r["GBps"] for r in ok)
    print(f"| {name} | {len(ok)} | {statistics.median(r['s'] for r in ok):.3f} | {gbps:.1f} "
          f"| {gbps / pinned:.2f} |")
