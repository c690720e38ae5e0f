// magi-fuse-launches: consecutive independent elementwise launches run side
// by side as one launch; dependent ones, others and a write to an argument
// stay apart.
// RUN: magi-opt %s --split-input-file --magi-fuse-launches | FileCheck %s
// RUN: magi-opt %s --split-input-file --magi-fuse-launches=max-launches=1 | FileCheck %s --check-prefix=NONE

// Two kernels over separate buffers (the host's allocation between them
// stays where it was): one grid of 4 + 2 blocks.
// CHECK-LABEL: func.func @independent(
// CHECK-SAME: %[[A:.*]]: memref<1024xf32>, %[[B:.*]]: memref<512xf32>)
// CHECK: %[[G1:.*]] = arith.constant 4 : index
// CHECK: %[[T:.*]] = memref.alloc() : memref<1024xf32>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<512xf32>
// CHECK: %[[G:.*]] = arith.addi %[[G1]], %{{.*}} : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[G]],
// CHECK-SAME: function(@k0)
// CHECK: %[[FIRST:.*]] = arith.cmpi ult, %[[BX]], %[[G1]] : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: memref.load %[[A]]
// CHECK: memref.store %{{.*}}, %[[T]]
// CHECK: } else {
// CHECK: %[[BX2:.*]] = arith.subi %[[BX]], %[[G1]] : index
// CHECK: arith.muli %[[BX2]]
// CHECK: memref.store %{{.*}}, %[[OUT]]
// CHECK: }
// CHECK: gpu.terminator
// CHECK: magi.kernel_config = {block_size = 256 : i64, fused_launches = 2 : i64, strategy = "elementwise"}
// CHECK-NOT: gpu.launch
// NONE-LABEL: func.func @independent(
// NONE-COUNT-2: gpu.launch
func.func @independent(%a: memref<1024xf32>, %b: memref<512xf32>) -> (memref<1024xf32>, memref<512xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c2 = arith.constant 2 : index
  %c256 = arith.constant 256 : index
  %t = memref.alloc() : memref<1024xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %v = memref.load %a[%i] : memref<1024xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %t[%i] : memref<1024xf32>
    gpu.terminator
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise"}, module = @f_kernels, function = @k0}
  %out = memref.alloc() : memref<512xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %v = memref.load %b[%i] : memref<512xf32>
    memref.store %v, %out[%i] : memref<512xf32>
    gpu.terminator
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise"}, module = @f_kernels, function = @k1}
  return %t, %out : memref<1024xf32>, memref<512xf32>
}

// -----

// The second reads what the first writes: two launches.
// CHECK-LABEL: func.func @dependent(
// CHECK-COUNT-2: gpu.launch
func.func @dependent(%a: memref<512xf32>) -> memref<512xf32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c256 = arith.constant 256 : index
  %t = memref.alloc() : memref<512xf32>
  %out = memref.alloc() : memref<512xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %v = memref.load %a[%i] : memref<512xf32>
    memref.store %v, %t[%i] : memref<512xf32>
    gpu.terminator
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise"}, module = @f_kernels, function = @k0}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %v = memref.load %t[%i] : memref<512xf32>
    memref.store %v, %out[%i] : memref<512xf32>
    gpu.terminator
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise"}, module = @f_kernels, function = @k1}
  return %out : memref<512xf32>
}

// -----

// The first writes an argument and the second reads another, which may be
// the same buffer: two launches.
// CHECK-LABEL: func.func @arguments(
// CHECK-COUNT-2: gpu.launch
func.func @arguments(%a: memref<512xf32>, %b: memref<512xf32>) -> memref<512xf32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c256 = arith.constant 256 : index
  %out = memref.alloc() : memref<512xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %v = memref.load %a[%i] : memref<512xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %a[%i] : memref<512xf32>
    gpu.terminator
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise"}, module = @f_kernels, function = @k0}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %v = memref.load %b[%i] : memref<512xf32>
    memref.store %v, %out[%i] : memref<512xf32>
    gpu.terminator
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise"}, module = @f_kernels, function = @k1}
  return %out : memref<512xf32>
}

// -----

// A store on the host between them, and a launch of another strategy: no
// fusion.
// CHECK-LABEL: func.func @apart(
// CHECK-COUNT-3: gpu.launch
func.func @apart(%a: memref<512xf32>, %f: f32) -> (memref<512xf32>, memref<512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c256 = arith.constant 256 : index
  %t = memref.alloc() : memref<512xf32>
  %u = memref.alloc() : memref<512xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %v = memref.load %a[%i] : memref<512xf32>
    memref.store %v, %t[%i] : memref<512xf32>
    gpu.terminator
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise"}, module = @f_kernels, function = @k0}
  memref.store %f, %u[%c0] : memref<512xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %v = memref.load %a[%i] : memref<512xf32>
    memref.store %v, %u[%i] : memref<512xf32>
    gpu.terminator
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise"}, module = @f_kernels, function = @k1}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    gpu.terminator
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "single-thread"}, module = @f_kernels, function = @k2}
  return %t, %u : memref<512xf32>, memref<512xf32>
}
