// magi-choose-kernel-config's earlier-row-phases in the whole GPU pipeline
// (the default): the embedding gather, with the positions' loops between it
// and the RMSNorm, joins the RMSNorm's row group, so one kernel reads each
// table row once and writes both the embedding and the normalized rows.
// Each linalg op bufferizes its own memref.dim of the ids; the pipeline runs
// a CSE first so the row bounds compare as one value. kernel-pass-options
// (magi-compile --kernel-pass-options) turns it off.
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" \
// RUN: | magi-opt --magi-gpu-pipeline="chip=sm_90 features=+ptx80 kernel-pass-options='magi-choose-kernel-config{earlier-row-phases=false}'" \
// RUN:     --mlir-print-ir-after=magi-choose-kernel-config -o /dev/null 2>&1 \
// RUN: | FileCheck %s --check-prefix=OFF
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" \
// RUN: | magi-opt --magi-gpu-pipeline="chip=sm_90 features=+ptx80" \
// RUN:     --mlir-print-ir-after=magi-choose-kernel-config -o /dev/null 2>&1 \
// RUN: | FileCheck %s --check-prefix=ON
// Options of a pass the pipeline cannot tune, or that the pass does not
// have, are refused by name:
// RUN: not magi-opt %s --magi-gpu-pipeline="chip=sm_90 kernel-pass-options='cse{x=1}'" 2>&1 \
// RUN: | FileCheck %s --check-prefix=NOTTUNABLE
// RUN: not magi-opt %s --magi-gpu-pipeline="chip=sm_90 kernel-pass-options='magi-map-to-gpu{lean=1}'" 2>&1 \
// RUN: | FileCheck %s --check-prefix=NOOPTION
// RUN: not magi-opt %s --magi-gpu-pipeline="chip=sm_90 kernel-pass-options='magi-map-to-gpu{lean-row-groups=true'" 2>&1 \
// RUN: | FileCheck %s --check-prefix=UNCLOSED
// NOTTUNABLE: kernel pass options: 'cse' is not one of magi-few-row-matmul-to-gpu, magi-choose-kernel-config, magi-map-to-gpu, magi-tiled-attention-to-gpu
// NOOPTION: kernel pass options of 'magi-map-to-gpu': <Pass-Options-Parser>: no such option lean
// UNCLOSED: kernel pass options: no '}' closes 'magi-map-to-gpu{'

func.func @embed_then_norm(%table: tensor<64x256xbf16>, %ids: tensor<1x?xi64>, %n: index {magi.symbol = "s0"}, %w: tensor<256xbf16>) -> (tensor<1x?x256xbf16>, tensor<1x?x256xbf16>, tensor<?xf32>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  magi.bind_symbolic_shape %ids, [%n], affine_map<()[s0] -> (1, s0)> : tensor<1x?xi64>
  %e = magi.embedding %table, %ids : (tensor<64x256xbf16>, tensor<1x?xi64>) -> tensor<1x?x256xbf16>
  magi.bind_symbolic_shape %e, [%n], affine_map<()[s0] -> (1, s0, 256)> : tensor<1x?x256xbf16>
  %pos = magi.arange %c0, %n, %c1 {dtype = i64} : (i64, index, i64) -> tensor<?xi64>
  magi.bind_symbolic_shape %pos, [%n], affine_map<()[s0] -> (s0)> : tensor<?xi64>
  %f = magi.to_copy %pos {dtype = f32} : (tensor<?xi64>) -> tensor<?xf32>
  magi.bind_symbolic_shape %f, [%n], affine_map<()[s0] -> (s0)> : tensor<?xf32>
  %cos = magi.cos %f : (tensor<?xf32>) -> tensor<?xf32>
  magi.bind_symbolic_shape %cos, [%n], affine_map<()[s0] -> (s0)> : tensor<?xf32>
  %y = magi.rms_norm %e weight %w {eps = 1.000000e-05 : f64} : (tensor<1x?x256xbf16>, tensor<256xbf16>) -> tensor<1x?x256xbf16>
  magi.bind_symbolic_shape %y, [%n], affine_map<()[s0] -> (1, s0, 256)> : tensor<1x?x256xbf16>
  return %e, %y, %cos : tensor<1x?x256xbf16>, tensor<1x?x256xbf16>, tensor<?xf32>
}

// OFF-LABEL: func.func @embed_then_norm
// OFF: memref.load %arg0
// OFF: strategy = "elementwise"
// OFF: math.cos
// OFF: strategy = "elementwise"
// OFF-COUNT-3: strategy = "row-group"

// ON-LABEL: func.func @embed_then_norm
// ON: math.cos
// ON: strategy = "elementwise"
// ON-NOT: strategy = "elementwise"
// ON: memref.load %arg0
// ON: group = 0 : i64, row_chunks = 1 : i64, strategy = "row-group"
// ON-COUNT-3: group = 0 : i64, row_chunks = 1 : i64, strategy = "row-group"
// ON-NOT: magi.kernel_config
