#!/usr/bin/env python3
"""Runs a command and checks its peak resident memory:
    peak-rss.py LIMIT_MB command args...
Prints `peak RSS: N MB` and exits 1 when N exceeds LIMIT_MB (or with the
command's own status when it fails)."""
import os
import resource
import subprocess
import sys

limit = int(sys.argv[1])
# Under AddressSanitizer (scripts/test-sanitized.sh sets ASAN_OPTIONS) the
# allocator's quarantine and shadow memory add hundreds of MB.
if "ASAN_OPTIONS" in os.environ:
    limit *= 4
status = subprocess.call(sys.argv[2:])
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
print(f"peak RSS: {peak} MB")
if status != 0:
    sys.exit(status)
if peak > limit:
    print(f"peak RSS {peak} MB is over the limit of {limit} MB", file=sys.stderr)
    sys.exit(1)
