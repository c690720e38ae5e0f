"""Summarizes an `ncu --csv --print-units base` run with the metrics
gpu__time_duration.sum, dram__bytes_read.sum and dram__bytes_write.sum:
one line per launch (sorted by time), then totals for gemms (cuBLAS kernels)
and for Magi's kernels, and how many of the kernels that move >= 16 MB reach
0.8 of the copy bandwidth (when --copy-gbps is given)."""
import argparse, csv, statistics, sys

p = argparse.ArgumentParser()
p.add_argument("csv")
p.add_argument("--copy-gbps", type=float)
p.add_argument("--title", default="")
a = p.parse_args()

rows = {}
with open(a.csv) as f:
    lines = [l for l in f if l.startswith('"')]
for r in csv.DictReader(lines):
    k = rows.setdefault(r["ID"], {"name": r["Kernel Name"], "grid": r["Grid Size"], "block": r["Block Size"]})
    k[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
launches = list(rows.values())
for k in launches:
    k["ms"] = k.get("gpu__time_duration.sum", 0) / 1e6
    k["bytes"] = k.get("dram__bytes_read.sum", 0) + k.get("dram__bytes_write.sum", 0)
    k["gbps"] = k["bytes"] / (k["ms"] * 1e6) if k["ms"] else 0
    k["gemm"] = not (k["name"].startswith("k") and k["name"][1:].isdigit())
total = sum(k["ms"] for k in launches)
print(f"== {a.title}: {len(launches)} launches, {total:.3f} ms of kernel time")
print("| kernel | grid | block | ms | MB | GB/s | of copy |")
print("|---|---|---|---|---|---|---|")
for k in sorted(launches, key=lambda k: -k["ms"]):
    frac = f"{k['gbps'] / a.copy_gbps:.2f}" if a.copy_gbps else "-"
    print(f"| {k['name'][:40]} | {k['grid']} | {k['block']} | {k['ms']:.4f} | {k['bytes'] / 1e6:.1f} | {k['gbps']:.0f} | {frac} |")
for label, sel in (("gemms", [k for k in launches if k["gemm"]]), ("magi kernels", [k for k in launches if not k["gemm"]])):
    print(f"{label}: {len(sel)} launches, {sum(k['ms'] for k in sel):.3f} ms, {sum(k['bytes'] for k in sel) / 1e6:.0f} MB")
big = [k for k in launches if not k["gemm"] and k["bytes"] >= 16e6]
if big:
    med = statistics.median(k["gbps"] for k in big)
    line = f"magi kernels moving >= 16 MB: {len(big)}, {sum(k['ms'] for k in big):.3f} ms, median {med:.0f} GB/s"
    if a.copy_gbps:
        line += f" ({med / a.copy_gbps:.2f} of copy); >= 0.8 of copy: {sum(k['gbps'] >= 0.8 * a.copy_gbps for k in big)}"
    print(line)
