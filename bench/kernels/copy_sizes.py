"""Device-to-device copy bandwidth by size (PyTorch's copy kernel), to read
the "fraction of copy bandwidth" of Magi's kernels against: the copy figure
the benchmarks use is a 1 GiB copy, and a kernel that moves 40 MB pays its
start and drain against far fewer bytes. Runs on the GPU machine:
    python3 bench/kernels/copy_sizes.py
Prints, per size (bytes read plus bytes written), the median over 20
samples of the time per copy of 20 back-to-back copies between two CUDA
events (one copy per event pair would time the launch, about 18 us),
rotating over enough buffers that the L2 holds none of them, and the
bandwidth as a fraction of the 1 GiB copy's."""
import statistics, torch

BATCH = 20

def median_ms(fn, reps=20):
    times = []
    for _ in range(reps + 3):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(BATCH):
            fn()
        b.record(); torch.cuda.synchronize()
        times.append(a.elapsed_time(b) / BATCH)
    return statistics.median(times[3:])

def copy_gbps(nbytes):
    sets = max(2, (256 << 20) // nbytes + 1)  # > 200 MB touched between reuses
    bufs = [(torch.empty(nbytes, dtype=torch.uint8, device="cuda"),
             torch.empty(nbytes, dtype=torch.uint8, device="cuda")) for _ in range(sets)]
    i = [0]
    def step():
        src, dst = bufs[i[0] % sets]; i[0] += 1
        dst.copy_(src)
    ms = median_ms(step)
    return ms, 2 * nbytes / (ms * 1e6)

ref_ms, ref = copy_gbps(1 << 30)
print(f"| moved MB | ms | GB/s | of the 1 GiB copy |")
print(f"|---|---|---|---|")
for mb in (4, 8, 16, 32, 64, 128, 256, 512):
    ms, gbps = copy_gbps(mb << 19)  # moved = 2 x copied
    print(f"| {mb} | {ms:.4f} | {gbps:.0f} | {gbps / ref:.2f} |")
print(f"| 2048 | {ref_ms:.4f} | {ref:.0f} | 1.00 |")
