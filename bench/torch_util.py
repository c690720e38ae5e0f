"""Helpers the GPU benchmarks share (bench/attention/check.py, bench/llama7b/bench.py,
bench/llama7b/full_model.py, bench/decode/bench.py): fixture files in magi-run's format, a
magi-run call and what it reports, and CUDA-event timing."""
import json
import re
import statistics
import subprocess
import time

import torch


def save(t, path):
    """Writes `t` as PATH.bin (raw, row-major; bf16 as its 16-bit patterns) and PATH.json."""
    t = t.detach().cpu().contiguous()
    json.dump({"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", "")},
              open(path + ".json", "w"))
    raw = t.view(torch.int16) if t.dtype == torch.bfloat16 else t
    open(path + ".bin", "wb").write(raw.numpy().tobytes())


def cuda_time(fn, n=20, warm=3):
    """The median of n calls of fn in milliseconds, by CUDA events, after `warm` calls."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(n):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def run_magi(cmd, timeout=300):
    """Runs a magi-run command line; returns its output and what it reports: exit status, median
    time, each output's rel_err, and the weights, run buffers and mutations lines."""
    t = time.time()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        out, rc = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired:
        out, rc = "timeout", -1

    def line(pattern):
        m = re.search(pattern, out, re.M)
        return m.group(0) if m else None
    m = re.search(r"time: median ([0-9.]+) ms", out)
    return out, {"rc": rc, "ms": float(m.group(1)) if m else None,
                 "rel_err": re.findall(r"rel_err=([0-9.e+-]+)", out),
                 "weights": line(r"^magi-run: weights: .*$"),
                 "run_buffers": line(r"^magi-run: run buffers: .*$"),
                 "mutations": line(r"^magi-run: mutations: .*$"),
                 "wall_s": time.time() - t, "tail": out[-1500:]}
