"""Helpers the GPU benchmarks share (bench/attention/check.py, bench/llama7b/bench.py,
bench/llama7b/full_model.py): fixture files in magi-run's format and CUDA-event timing."""
import json
import statistics

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
