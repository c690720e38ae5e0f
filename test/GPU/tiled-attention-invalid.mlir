// The tiling options' bounds.
// RUN: not magi-opt %s --pass-pipeline="builtin.module(func.func(magi-tiled-attention-to-gpu{rows-per-warp=24}))" 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: not magi-opt %s --pass-pipeline="builtin.module(func.func(magi-tiled-attention-to-gpu{rows-per-warp=16 key-rows=48}))" 2>&1 | FileCheck %s --check-prefix=KEYS
// RUN: not magi-opt %s --pass-pipeline="builtin.module(func.func(magi-tiled-attention-to-gpu{rows-per-warp=16 min-blocks-per-sm=33}))" 2>&1 | FileCheck %s --check-prefix=BLOCKS
// RUN: not magi-opt %s --pass-pipeline="builtin.module(func.func(magi-tiled-attention-to-gpu{key-splits=-1}))" 2>&1 | FileCheck %s --check-prefix=SPLITS

// ROWS: error: magi-tiled-attention-to-gpu: rows-per-warp must be 0 (chosen per attention), 16 or 32, got 24
// KEYS: error: magi-tiled-attention-to-gpu: key-rows must be 32 or 64, got 48
// BLOCKS: error: magi-tiled-attention-to-gpu: min-blocks-per-sm must be between 0 and 32, got 33
// SPLITS: error: magi-tiled-attention-to-gpu: key-splits must be between 0 and 1024, got -1
func.func @f() {
  return
}
