#!/usr/bin/env python3
"""On the GPU machine: what --pad-to-compile-sizes buys when every call has
another length, as a serving loop's prefills do. The artifact (a 7B-shaped
layer compiled with --compile-sizes, scripts/gpu-prepare.sh) is loaded twice
with the `magi` package, padded and not; both are called on the same
sequence of lengths drawn at random between --low and --high (fresh token ids
each call), and each call is timed on the host from its start to the GPU
being done. Unpadded, a length met for the first time runs eagerly (the
variant for any size, launch by launch); padded, it runs as the next compile
size, whose CUDA graphs replay after their first two calls. Also printed:
each at one repeated length (both replay), the cost padding adds in work.

    PYTHONPATH=build-run/python python3 bench/padding/varying.py .gpu/llama7b-1l
"""

import argparse
import random
import statistics
import time

import torch

import magi


def timed_calls(artifact, lengths, vocab, device):
    times = []
    for length in lengths:
        ids = torch.randint(0, vocab, (1, length), device=device)
        torch.cuda.synchronize()
        start = time.perf_counter()
        artifact(ids)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("artifact")
    parser.add_argument("--low", type=int, default=17)
    parser.add_argument("--high", type=int, default=511)
    parser.add_argument("--calls", type=int, default=60)
    parser.add_argument("--vocab", type=int, default=32000)
    args = parser.parse_args()
    device = torch.device("cuda", torch.cuda.current_device())
    random.seed(0)
    lengths = [random.randint(args.low, args.high) for _ in range(args.calls)]
    results = {}
    for pad in (False, True):
        artifact = magi.load(args.artifact, pad_to_compile_sizes=pad, outputs="borrow")
        # Warm-up at the lengths the padded run meets: modules, cuBLASLt's
        # choices and the compile sizes' graphs; the unpadded run still
        # meets each random length for the first time.
        timed_calls(artifact, [args.high] * 3 + [args.low] * 3, args.vocab, device)
        varying = timed_calls(artifact, lengths, args.vocab, device)
        repeated = timed_calls(artifact, [lengths[0]] * 20, args.vocab, device)
        results[pad] = (varying, repeated[5:])
        artifact.close()
        del artifact
        torch.cuda.empty_cache()
    print(f"{args.calls} calls, lengths drawn in [{args.low}, {args.high}] "
          f"(first {lengths[:8]}), ms per call (host, start to GPU done)")
    print("| | varying: median | varying: mean | one length ({}): median |".format(lengths[0]))
    print("|---|---|---|---|")
    for pad in (False, True):
        varying, repeated = results[pad]
        print(f"| {'padded' if pad else 'unpadded'} | {statistics.median(varying):.3f} | "
              f"{statistics.mean(varying):.3f} | {statistics.median(repeated):.3f} |")


main()
