"""Summarizes an `ncu --csv --print-units base` run with the metrics
gpu__time_duration.sum, dram__bytes_read.sum and dram__bytes_write.sum:
one line per launch (sorted by time), then totals for gemms (cuBLAS kernels),
Magi's few-row products (gemmN), Magi's attention kernels (attentionN,
attentionN_mask_tiles) and Magi's other kernels (kN), and how many of the
gemmN and kN kernels that move >= 16 MB reach 0.8 of the copy bandwidth (when
--copy-gbps is given)."""
import argparse, csv, re, statistics, sys

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
    k["kind"] = ("magi" if re.fullmatch(r"k\d+", k["name"]) else
                 "magi gemm" if re.fullmatch(r"gemm\d+", k["name"]) else
                 "attention" if re.fullmatch(r"attention\d+(_mask_tiles)?", k["name"]) else "gemm")
total = sum(k["ms"] for k in launches)
print(f"== {a.title}: {len(launches)} launches, {total:.3f} ms of kernel time")
print("| kernel | grid | block | ms | MB | GB/s | of copy |")
print("|---|---|---|---|---|---|---|")
for k in sorted(launches, key=lambda k: -k["ms"]):
    frac = f"{k['gbps'] / a.copy_gbps:.2f}" if a.copy_gbps else "-"
    print(f"| {k['name'][:40]} | {k['grid']} | {k['block']} | {k['ms']:.4f} | {k['bytes'] / 1e6:.1f} | {k['gbps']:.0f} | {frac} |")
for label, kind in (("gemms", "gemm"), ("magi gemms", "magi gemm"), ("attention", "attention"),
                    ("magi kernels", "magi")):
    sel = [k for k in launches if k["kind"] == kind]
    print(f"{label}: {len(sel)} launches, {sum(k['ms'] for k in sel):.3f} ms, {sum(k['bytes'] for k in sel) / 1e6:.0f} MB")
big = [k for k in launches if k["kind"] in ("magi", "magi gemm") and k["bytes"] >= 16e6]
if big:
    med = statistics.median(k["gbps"] for k in big)
    line = f"magi kernels (kN, gemmN) moving >= 16 MB: {len(big)}, {sum(k['ms'] for k in big):.3f} ms, median {med:.0f} GB/s"
    if a.copy_gbps:
        line += f" ({med / a.copy_gbps:.2f} of copy); >= 0.8 of copy: {sum(k['gbps'] >= 0.8 * a.copy_gbps for k in big)}"
    print(line)
