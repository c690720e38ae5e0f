#!/bin/sh
# ptxas rejecting its input: a message naming the PTX line on stderr, a
# line of its banner on stdout, exit 255 (as for an instruction the target
# does not have). `--version` answers as ptxas does.
if [ "$1" = --version ]; then
  echo "ptxas: NVIDIA (R) Ptx optimizing assembler"
  echo "Cuda compilation tools, release 13.0, V13.0.0"
  exit 0
fi
echo "ptxas info    : 0 bytes gmem"
echo "ptxas $2.ptx, line 42; error   : Instruction 'ld' requires '.v8.b32/.v4.b64' type with '.L2::evict_first' modifier." >&2
echo "ptxas fatal   : Ptx assembly aborted due to errors" >&2
exit 255
