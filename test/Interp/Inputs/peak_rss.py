"""Runs a command and says whether its peak resident memory stayed under a
bound: peak_rss.py MIB COMMAND... prints the command's output, then
"peak-rss: under MIB MiB" or "peak-rss: over MIB MiB (N MiB)", and exits
with the command's status."""
import resource
import subprocess
import sys

limit = int(sys.argv[1])
result = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT)
sys.stdout.write(result.stdout.decode(errors="replace"))
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024  # KiB
if peak < limit:
    print("peak-rss: under %d MiB" % limit)
else:
    print("peak-rss: over %d MiB (%d MiB)" % (limit, peak))
sys.exit(result.returncode)
