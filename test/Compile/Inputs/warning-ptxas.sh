#!/bin/sh
# ptxas reporting a performance loss, as it does when a call in a kernel
# serializes its wgmma instructions: runs $REAL_PTXAS, then prints the
# line it prints then (C7510), and a warning.
"$REAL_PTXAS" "$@" || exit $?
echo "ptxas info    : (C7510) Potential Performance Loss: wgmma.mma_async instructions are serialized due to wgmma pipeline crossing function boundary at a function call in the function 'attention0'"
echo "ptxas warning : Registers are spilled to local memory in function 'k0', 8 bytes spill stores, 8 bytes spill loads"
echo "ptxas info    : 0 bytes gmem"
