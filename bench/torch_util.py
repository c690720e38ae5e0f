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


# Attention kernels by name: PyTorch's flash, memory-efficient (fmha) and cuDNN SDPA kernels, and
# Magi's own (attention0, attention0_mask_tiles, ...). Triton kernels are left out: inductor names
# the pointwise kernels that feed SDPA after it ("triton_poi_fused__scaled_dot_product_...").
ATTENTION_KERNEL = re.compile(r"flash|fmha|sdpa|attention", re.I)


def kernel_times(fn, n=5):
    """fn's CUDA kernels from torch.profiler's trace of n calls: {name: (ms per call, launches
    per call)}, names cut to 120 characters."""
    from torch.profiler import profile, ProfilerActivity
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
    kernels = {}
    for e in prof.key_averages():
        us = getattr(e, "self_device_time_total", None)
        if us is None:
            us = e.self_cuda_time_total
        if not us:
            continue
        ms, calls = kernels.get(e.key[:120], (0.0, 0.0))
        kernels[e.key[:120]] = (ms + us / n / 1000, calls + e.count / n)
    return kernels


def attention_kernel_ms(kernels):
    """The time per call in ms of the attention kernels (by name, ATTENTION_KERNEL) among
    kernel_times' kernels, and their names."""
    names = sorted(name for name in kernels
                   if not name.startswith("triton") and ATTENTION_KERNEL.search(name))
    return sum(kernels[name][0] for name in names), names


def magi_profile_attention_ms(out):
    """The attention kernels' time in ms in a `magi-run --profile` table (every launch timed
    alone), and their names."""
    total_us, names = 0.0, set()
    for m in re.finditer(r"^\| [^|]* \| (attention\S*) \| [^|]* \| [^|]* \| ([0-9.]+) \|", out, re.M):
        total_us += float(m.group(2))
        names.add(m.group(1))
    return total_us / 1000, sorted(names)
