// magi-map-to-gpu: each configured top-level loop becomes one gpu.launch of
// ceildiv(n, block) blocks; the iteration is delinearized from the thread id.
// RUN: magi-opt %s --split-input-file --magi-map-to-gpu --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func @elementwise
// CHECK-SAME: (%[[A:.*]]: memref<?x64xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[N:.*]] = memref.dim %[[A]], %[[C0]]
// The trip counts and their product, folded where the bounds are constant
// (n - 0 steps of 1 is n; a constant count is rematerialized in the kernel).
// CHECK: %[[TOTAL:.*]] = arith.muli %[[N]], %[[C64]]
// CHECK: %[[BS:.*]] = arith.constant 256 : index
// CHECK: %[[GRID:.*]] = arith.ceildivsi %[[TOTAL]], %[[BS]]
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[BS]], {{.*}} module(@elementwise_kernels) function(@k0) {
// CHECK: %[[SCALED:.*]] = arith.muli %[[BX]], %[[BS]]
// CHECK: %[[ID:.*]] = arith.addi %[[SCALED]], %[[TX]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ID]], %[[TOTAL]]
// CHECK: scf.if %[[IN]] {
// The last loop varies fastest; the divisions are 32-bit when the total
// fits, 64-bit otherwise.
// CHECK:   %[[FITS:.*]] = arith.cmpi ule, %[[TOTAL]], %{{.*}} : index
// CHECK:   %[[POS:.*]]:2 = scf.if %[[FITS]] -> (index, index) {
// CHECK:     %[[ID32:.*]] = arith.index_castui %[[ID]] : index to i32
// CHECK:     %[[T132:.*]] = arith.index_castui %[[K64:c64_[0-9]+]] : index to i32
// CHECK:     arith.remui %[[ID32]], %[[T132]] : i32
// CHECK:     arith.divui %[[ID32]], %[[T132]] : i32
// CHECK:   } else {
// CHECK:     %[[J:.*]] = arith.remui %[[ID]], %[[K64]] : index
// CHECK:     %[[I:.*]] = arith.divui %[[ID]], %[[K64]] : index
// CHECK:     scf.yield %[[I]], %[[J]]
// CHECK:   }
// CHECK:   memref.load %[[A]][
// CHECK:   memref.store
// CHECK: }
// CHECK: gpu.terminator
// CHECK: } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise"}}
// CHECK-NOT: scf.parallel
func.func @elementwise(%a: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %a, %c0 : memref<?x64xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c64) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<?x64xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %a[%i, %j] : memref<?x64xf32>
    scf.reduce
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise"}}
  return
}

// -----

// Two iterations a thread, a block (128) apart: a block of 256 iterations
// all in range loads both elements before storing either; the last block
// runs them one by one, each guarded.
// CHECK-LABEL: func @two_per_thread
// CHECK-DAG: %[[CHUNK:.*]] = arith.constant 256 : index
// CHECK: %[[GRID:.*]] = arith.ceildivsi %{{.*}}, %[[CHUNK]]
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]],
// CHECK: %[[START:.*]] = arith.muli %[[BX]], %{{.*}}
// CHECK: %[[FIRST:.*]] = arith.addi %[[START]], %{{.*}}
// CHECK: %[[END:.*]] = arith.addi %[[START]], %{{.*}}
// CHECK: %[[WHOLE:.*]] = arith.cmpi ule, %[[END]], %{{.*}}
// CHECK: scf.if %[[WHOLE]] {
// CHECK:   arith.constant 128 : index
// CHECK:   arith.addi %[[FIRST]], %{{.*}}
// CHECK:   %[[X0:.*]] = memref.load %arg0
// CHECK:   %[[Y0:.*]] = arith.addf %[[X0]], %[[X0]]
// CHECK:   %[[X1:.*]] = memref.load %arg0
// CHECK:   %[[Y1:.*]] = arith.addf %[[X1]], %[[X1]]
// CHECK:   memref.store %[[Y0]], %arg1
// CHECK:   memref.store %[[Y1]], %arg1
// CHECK: } else {
// CHECK:   scf.for
// CHECK:     arith.cmpi ult
// CHECK:     scf.if
// CHECK:       memref.load
// CHECK:       memref.store
// CHECK: elements_per_thread = 2 : i64
func.func @two_per_thread(%a: memref<?xf32>, %b: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %b[%i] : memref<?xf32>
    scf.reduce
  } {magi.kernel_config = {block_size = 128 : i64, elements_per_thread = 2 : i64, strategy = "elementwise"}}
  return
}

// -----

// A body that reads after its store cannot reorder its iterations' loads.
func.func @read_after_store(%a: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  // expected-error @+1 {{elements_per_thread needs an elementwise loop whose body has no regions and reads nothing after its first store}}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %x = memref.load %a[%i] : memref<?xf32>
    memref.store %x, %a[%c0] : memref<?xf32>
    %y = memref.load %a[%i] : memref<?xf32>
    memref.store %y, %a[%i] : memref<?xf32>
    scf.reduce
  } {magi.kernel_config = {block_size = 128 : i64, elements_per_thread = 2 : i64, strategy = "elementwise"}}
  return
}

// -----

// Consecutive single-thread ops share one launch of one thread; a loop in
// between starts another kernel.
// CHECK-LABEL: func @single_threads
// Constants are rematerialized in the kernel, not passed to it.
// CHECK: gpu.launch {{.*}} module(@single_threads_kernels) function(@k0) {
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[I1:.*]] = arith.constant 1 : index
// CHECK: memref.store %[[ZERO]], %{{.*}}[%[[I0]]]
// CHECK-NEXT: memref.store %[[ZERO]], %{{.*}}[%[[I1]]]
// CHECK-NEXT: gpu.terminator
// CHECK-NEXT: } {magi.kernel_config = {block_size = 1 : i64, strategy = "single-thread"}}
// CHECK: gpu.launch {{.*}} function(@k1) {
// CHECK: gpu.launch {{.*}} function(@k2) {
// CHECK: memref.store
func.func @single_threads(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %out[%c0] {magi.kernel_config = {block_size = 1 : i64, strategy = "single-thread"}} : memref<4xf32>
  memref.store %zero, %out[%c1] {magi.kernel_config = {block_size = 1 : i64, strategy = "single-thread"}} : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %out[%i] : memref<4xf32>
    scf.reduce
  } {magi.kernel_config = {block_size = 32 : i64, strategy = "elementwise"}}
  memref.store %zero, %out[%c0] {magi.kernel_config = {block_size = 1 : i64, strategy = "single-thread"}} : memref<4xf32>
  return
}

// -----

func.func @unconfigured(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{has no 'magi.kernel_config' with block_size and strategy (run magi-choose-kernel-config first)}}
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %out[%i] : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

func.func @too_big(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{block size 4096 is outside 1..1024 (the CUDA limit)}}
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %out[%i] : memref<4xf32>
    scf.reduce
  } {magi.kernel_config = {block_size = 4096 : i64, strategy = "elementwise"}}
  return
}

// -----

// A scalar loaded by a single-thread op, then computed on: the computation
// joins the kernel (the host cannot see the loaded value).
// CHECK-LABEL: func @loaded_scalar
// CHECK: gpu.launch
// CHECK: %[[X:.*]] = memref.load
// CHECK-NEXT: %[[Y:.*]] = arith.addf %[[X]], %[[X]]
// CHECK-NEXT: memref.store %[[Y]]
// CHECK-NEXT: gpu.terminator
func.func @loaded_scalar(%in: memref<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %x = memref.load %in[%c0] {magi.kernel_config = {block_size = 1 : i64, strategy = "single-thread"}} : memref<4xf32>
  %y = arith.addf %x, %x : f32
  memref.store %y, %out[%c0] {magi.kernel_config = {block_size = 1 : i64, strategy = "single-thread"}} : memref<4xf32>
  return
}

// -----

func.func @escaping(%in: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{computes a value the host uses; a kernel cannot return values}}
  %x = memref.load %in[%c0] {magi.kernel_config = {block_size = 1 : i64, strategy = "single-thread"}} : memref<4xf32>
  return %x : f32
}
