#!/usr/bin/env python3
"""Runs a command and checks its peak resident memory:
    peak-rss.py LIMIT_MIB command args...
prints the command's output, then "peak-rss: under LIMIT MiB (N MiB)" or
"peak-rss: over LIMIT MiB (N MiB)". Exits with the command's status when it
failed (a test may expect that, with `not`), else 1 when over the limit."""
import os
import resource
import subprocess
import sys

limit = int(sys.argv[1])
# Under AddressSanitizer (scripts/test-sanitized.sh sets ASAN_OPTIONS) the
# allocator's quarantine and shadow memory add hundreds of MB.
if "ASAN_OPTIONS" in os.environ:
    limit *= 4
result = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.write(result.stdout.decode(errors="replace"))
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
print(f"peak-rss: {'under' if peak < limit else 'over'} {limit} MiB ({peak} MiB)")
if result.returncode != 0:
    sys.exit(result.returncode)
sys.exit(1 if peak >= limit else 0)
