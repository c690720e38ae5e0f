// The pipeline's binary phase (magi-opt --magi-compile-to=binary,
// magi-compile-pieces): every piece becomes a declaration that carries its
// launch plan and its kernels' PTX, compiled exactly as magi-compile
// compiles the piece's variant for any size (same plan, same PTX).
// REQUIRES: ptxas
// RUN: magi-opt %S/Inputs/small-graph.mlir --magi-compile-to=binary --magi-splitting-ops=magi.mm --magi-binary-options="cuda-path=%cuda_path" -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: rm -rf %t.art && magi-compile %S/Inputs/small-graph.mlir -o %t.art --splitting-ops=magi.mm --cache-mode=off --quiet --cuda-path=%cuda_path
// RUN: %python %S/Inputs/compare-binary-phase.py %t.mlir %t.art | FileCheck %s --check-prefix=SAME
// SAME: main_piece_0: same plan and PTX
// SAME-NEXT: main_piece_1: same plan
// SAME-NEXT: main_piece_2: same plan and PTX

// The elementwise piece: one kernel, its configuration in the plan.
// CHECK-LABEL: func.func private @main_piece_0(
// CHECK-SAME: magi.launch_plan = "{\22kernels\22:[{\22config\22:{\22block_size\22:256,{{.*}}\22name\22:\22k0\22}],\22plan\22:[
// CHECK-SAME: \22kernel\22:\22k0\22,\22op\22:\22launch\22
// CHECK-SAME: magi.ptx = "{{.*}}.target sm_90{{.*}}.entry k0(
// The splitting matmul piece is one library call: a plan, no PTX.
// CHECK-LABEL: func.func private @main_piece_1(
// CHECK-SAME: magi.is_splitting = true, magi.launch_plan = "{\22kernels\22:[],\22plan\22:[
// CHECK-SAME: \22op\22:\22gemm\22
// CHECK-NOT: magi.ptx
// CHECK-LABEL: func.func private @main_piece_2(
// CHECK-SAME: magi.graph_index = 1 : i64
// CHECK-SAME: magi.ptx =
// The split graph still calls them.
// CHECK-LABEL: func.func @main(
// CHECK: call @main_piece_0(
// CHECK: call @main_piece_1(
// CHECK: call @main_piece_2(

// The pipeline as it runs: the lower phase forms tiled attention (auto),
// then magi-compile-pieces with its options.
// RUN: magi-opt %S/Inputs/small-graph.mlir --magi-compile-to=binary --magi-binary-options="chip=sm_90 opt-level=2" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: magi-split
// PIPELINE: magi-lower-to-linalg{{.*}}tiled-attention=true
// PIPELINE: magi-compile-pieces{{.*}}chip=sm_90{{.*}}opt-level=2
// RUN: magi-opt %S/Inputs/small-graph.mlir --magi-compile-to=binary --magi-tiled-attention=off --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNTILED
// UNTILED: magi-lower-to-linalg{{.*}}tiled-attention=false

// magi-gpu-pipeline records the plan on the host function it leaves
// (magi-extract-launch-plan, between outlining and NVVM).
// RUN: magi-opt %S/Inputs/small-graph.mlir --magi-lower-to-linalg \
// RUN: | magi-opt --magi-gpu-pipeline="chip=sm_90" | FileCheck %s --check-prefix=PLAN
// PLAN: func.func @main(
// PLAN-SAME: magi.launch_plan = "{\22kernels\22:[{\22name\22:\22k0\22}
// PLAN-SAME: \22op\22:\22gemm\22
// PLAN: gpu.binary @main_kernels

// Without pieces there is nothing to compile.
// RUN: not magi-opt %S/Inputs/small-graph.mlir --magi-lower-to-linalg --magi-compile-pieces 2>&1 | FileCheck %s --check-prefix=NOPIECES
// NOPIECES: error: magi-compile-pieces: no piece to compile (a function marked 'magi.piece_index'): run the split phase first
