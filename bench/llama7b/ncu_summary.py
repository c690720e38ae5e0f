"""Summarizes an `ncu --csv --print-units base` run with the metrics
gpu__time_duration.sum, dram__bytes_read.sum and dram__bytes_write.sum (and,
when present, lts__t_sectors_srcunit_tex_op_read.sum and _write.sum: the
32-byte sectors the kernel's loads and stores move through L2, which count
writes that stay in L2 past the kernel's end, as DRAM bytes do not):
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
    l2 = [k.get(f"lts__t_sectors_srcunit_tex_op_{op}.sum") for op in ("read", "write")]
    k["l2bytes"] = 32 * sum(l2) if None not in l2 else None
    k["l2gbps"] = k["l2bytes"] / (k["ms"] * 1e6) if k["l2bytes"] is not None and k["ms"] else None
    k["kind"] = ("magi" if re.fullmatch(r"k\d+", k["name"]) else
                 "magi gemm" if re.fullmatch(r"gemm\d+", k["name"]) else
                 "attention" if re.fullmatch(r"attention\d+(_mask_tiles)?", k["name"]) else "gemm")
total = sum(k["ms"] for k in launches)
print(f"== {a.title}: {len(launches)} launches, {total:.3f} ms of kernel time")
has_l2 = any(k["l2bytes"] is not None for k in launches)
l2_head = " L2 MB | of copy (L2) |" if has_l2 else ""
print("| kernel | grid | block | ms | MB | GB/s | of copy |" + l2_head)
print("|---|---|---|---|---|---|---|" + ("---|---|" if has_l2 else ""))
for k in sorted(launches, key=lambda k: -k["ms"]):
    frac = f"{k['gbps'] / a.copy_gbps:.2f}" if a.copy_gbps else "-"
    l2 = ""
    if has_l2:
        l2frac = f"{k['l2gbps'] / a.copy_gbps:.2f}" if a.copy_gbps and k["l2gbps"] is not None else "-"
        l2 = f" {(k['l2bytes'] or 0) / 1e6:.1f} | {l2frac} |"
    print(f"| {k['name'][:40]} | {k['grid']} | {k['block']} | {k['ms']:.4f} | {k['bytes'] / 1e6:.1f} | {k['gbps']:.0f} | {frac} |" + l2)
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
big_l2 = [k for k in launches if k["kind"] in ("magi", "magi gemm") and (k["l2bytes"] or 0) >= 16e6]
if has_l2 and big_l2 and a.copy_gbps:
    med = statistics.median(k["l2gbps"] for k in big_l2)
    print(f"by L2 bytes: magi kernels moving >= 16 MB: {len(big_l2)}, median {med / a.copy_gbps:.2f} of copy; "
          f">= 0.8 of copy: {sum(k['l2gbps'] >= 0.8 * a.copy_gbps for k in big_l2)}")
