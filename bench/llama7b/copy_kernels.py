#!/usr/bin/env python3
"""On the GPU machine, under ncu (bench/llama7b/profile.sh runs it): PyTorch's
own elementwise kernels on the tensors a 7B-shaped layer's memory-bound
kernels move at T=4096 (bf16), one profiled call each after a warm-up, so
that Magi's kernels can be set beside copy-shaped kernels of the same bytes
measured the same way (ncu's DRAM bytes over the kernel's time; a kernel
whose output stays in the 50 MB L2 shows fewer DRAM bytes than it moved):
  copy 32+32 MB   y = x * 1        [4096, 4096] (an RMSNorm's traffic)
  add 64+32 MB    z = x + y        [4096, 4096] (a residual add + RMSNorm)
  add2 64+64 MB   z = x + y twice  (a residual add + RMSNorm writing both)
  mul 180+90 MB   z = a * b        [4096, 11008] (SiLU-mul)
  gather 32+32 MB y = table[ids]   4096 rows of [32000, 4096] (the embedding)
"""
import torch

T, H, F, V = 4096, 4096, 11008, 32000
dev = "cuda"
bf = torch.bfloat16
x, y = torch.randn(T, H, device=dev, dtype=bf), torch.randn(T, H, device=dev, dtype=bf)
out, out2 = torch.empty_like(x), torch.empty_like(x)
a, b = torch.randn(T, F, device=dev, dtype=bf), torch.randn(T, F, device=dev, dtype=bf)
c = torch.empty_like(a)
table = torch.randn(V, H, device=dev, dtype=bf)
ids = torch.randint(0, V, (T,), device=dev)
gathered = torch.empty(T, H, device=dev, dtype=bf)
work = [
    lambda: torch.mul(x, 1, out=out),
    lambda: torch.add(x, y, out=out),
    lambda: (torch.add(x, y, out=out), torch.add(y, x, out=out2)),
    lambda: torch.mul(a, b, out=c),
    lambda: torch.index_select(table, 0, ids, out=gathered),
]
for w in work:
    w()
torch.cuda.synchronize()
torch.cuda.profiler.start()
for w in work:
    w()
torch.cuda.synchronize()
torch.cuda.profiler.stop()
