// magi-wait-for-previous-grid: every kernel starts by waiting for the
// previous grid, then lets the next one launch; other functions are left
// alone, and a second run adds nothing.
// RUN: magi-opt %s --magi-wait-for-previous-grid | FileCheck %s
// RUN: magi-opt %s --magi-wait-for-previous-grid --magi-wait-for-previous-grid | FileCheck %s

// The launch plan marks such kernels' launches programmatic, and the PTX
// has the instructions (sm_90a, magi-compile's default target).
// RUN: rm -rf %t && magi-compile %S/../Compile/Inputs/small-graph.mlir -o %t --cache-mode=off --quiet --no-cubin
// RUN: FileCheck %s --check-prefix=PLAN --input-file=%t/manifest.json
// RUN: cat %t/pieces/*.ptx | FileCheck %s --check-prefix=PTX
// A chip before Hopper has no griddepcontrol: plain launches.
// RUN: rm -rf %t.sm80 && magi-compile %S/../Compile/Inputs/small-graph.mlir -o %t.sm80 --cache-mode=off --quiet --no-cubin --target=sm_80
// RUN: FileCheck %s --check-prefix=SM80 --input-file=%t.sm80/manifest.json

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // CHECK-LABEL: gpu.func @scale(
    // CHECK-NEXT: nvvm.griddepcontrol wait
    // CHECK-NEXT: nvvm.griddepcontrol launch_dependents
    // CHECK-NEXT: %[[I:.*]] = gpu.thread_id x
    // CHECK-NOT: nvvm.griddepcontrol
    // CHECK: gpu.return
    gpu.func @scale(%a: memref<64xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<64xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %a[%i] : memref<64xf32>
      gpu.return
    }
    // A kernel that waits itself, after work that reads nothing an earlier
    // kernel writes (a few-row product's weight prefetch), is left as it is.
    // CHECK-LABEL: gpu.func @waits_itself(
    // CHECK-NEXT: %[[J:.*]] = gpu.thread_id x
    // CHECK-NEXT: nvvm.griddepcontrol wait
    // CHECK-NOT: nvvm.griddepcontrol wait
    // CHECK: gpu.return
    gpu.func @waits_itself(%a: memref<64xf32>) kernel {
      %i = gpu.thread_id x
      nvvm.griddepcontrol wait
      %v = memref.load %a[%i] : memref<64xf32>
      memref.store %v, %a[%i] : memref<64xf32>
      gpu.return
    }
    // CHECK-LABEL: gpu.func @helper(
    // CHECK-NEXT: gpu.return
    gpu.func @helper() {
      gpu.return
    }
  }
}

// PLAN: "op": "launch"
// PLAN-NEXT: "programmatic": true
// PLAN: "version": 14
// PTX: griddepcontrol.wait;
// PTX-NEXT: griddepcontrol.launch_dependents;
// SM80-NOT: "programmatic"
