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

// -----

// A static loop whose rows are long (1000 columns: 4 blocks of 256, 24
// threads idle) is numbered by row: grid.y is the row, the ids run over one
// row's columns, and no iteration divides.
// CHECK-LABEL: func @by_row
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], %[[BY:[^,]*]], %{{[^,]*}}) in (%{{[^,]*}} = %c4, %{{[^,]*}} = %c6{{(_[0-9]+)?}}, %{{[^,]*}} = %c1{{(_[0-9]+)?}}) threads(%[[TX:[^,]*]],
// CHECK: %[[COLS:.*]] = arith.constant 1000 : index
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// The row: lower bound + blockIdx.y * step (folded later).
// CHECK: %[[ROWSTEP:.*]] = arith.muli %[[BY]], %{{.*}}
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[ROWSTEP]]
// CHECK: %[[START:.*]] = arith.muli %[[BX]], %{{.*}}
// CHECK: %[[ID:.*]] = arith.addi %[[START]], %[[TX]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ID]], %[[COLS]]
// CHECK: scf.if %[[IN]] {
// CHECK-NOT: arith.divui
// CHECK:   %[[COLSTEP:.*]] = arith.muli %[[ID]], %{{.*}}
// CHECK:   %[[COL:.*]] = arith.addi %{{.*}}, %[[COLSTEP]]
// CHECK:   memref.load %arg0[%[[ROW]], %[[COL]]]
// CHECK:   memref.store %{{.*}}, %arg1[%[[ROW]], %[[COL]]]
func.func @by_row(%a: memref<6x1000xf32, strided<[2000, 1], offset: 1000>>, %b: memref<6x1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c1000 = arith.constant 1000 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c1000) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<6x1000xf32, strided<[2000, 1], offset: 1000>>
    %y = arith.addf %x, %x : f32
    memref.store %y, %b[%i, %j] : memref<6x1000xf32>
    scf.reduce
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise"}}
  return
}

// -----

// Several leading loops: the row (blockIdx.y) is delinearized once, and
// several iterations a thread stay a block apart within the row.
// CHECK-LABEL: func @by_row_several
// CHECK: gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}})
// CHECK: arith.remui %{{.*}}, %{{.*}} : i32
// CHECK: arith.divui %{{.*}}, %{{.*}} : i32
// CHECK: scf.if
// CHECK-NOT: arith.divui
// CHECK: memref.load
// CHECK: memref.load
// CHECK: memref.store
// CHECK: memref.store
// CHECK: } else {
// CHECK: elements_per_thread = 2 : i64
func.func @by_row_several(%a: memref<2x3x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c512 = arith.constant 512 : index
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c2, %c3, %c512) step (%c1, %c1, %c1) {
    %x = memref.load %a[%i, %j, %k] : memref<2x3x512xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %a[%i, %j, %k] : memref<2x3x512xf32>
    scf.reduce
  } {magi.kernel_config = {block_size = 128 : i64, elements_per_thread = 2 : i64, strategy = "elementwise"}}
  return
}

// -----

// Rows too short to fill the blocks (300 columns: 2 blocks of 256, 212
// threads idle) stay linear.
// CHECK-LABEL: func @short_rows_linear
// CHECK-DAG: %[[TOTAL:.*]] = arith.constant 1800 : index
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %[[ONE:c1[_0-9]*]], %{{.*}} = %[[ONE]])
// CHECK: arith.divui
func.func @short_rows_linear(%a: memref<6x300xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c300 = arith.constant 300 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c300) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<6x300xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %a[%i, %j] : memref<6x300xf32>
    scf.reduce
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise"}}
  return
}

// -----

// A serial reduction into an element of a fresh buffer keeps the element
// in a register: one load before the loop, one store after, the sum carried
// by the loop.
// CHECK-LABEL: func @serial_sum_in_register
// CHECK: gpu.launch
// CHECK:   %[[INIT:.*]] = memref.load %[[ACC:alloc[_0-9]*]][%[[I:.*]]] : memref<64xi64>
// CHECK:   %[[SUM:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[CARRIED:.*]] = %[[INIT]]) -> (i64) {
// CHECK-NOT: memref.store
// CHECK:     %[[X:.*]] = memref.load %arg0[
// CHECK:     %[[NEXT:.*]] = arith.addi %[[CARRIED]], %[[X]] : i64
// CHECK:     scf.yield %[[NEXT]] : i64
// CHECK:   }
// CHECK:   memref.store %[[SUM]], %[[ACC]][%[[I]]] : memref<64xi64>
func.func @serial_sum_in_register(%x: memref<64x300xi64>) -> memref<64xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c300 = arith.constant 300 : index
  %acc = memref.alloc() : memref<64xi64>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.for %k = %c0 to %c300 step %c1 {
      %v = memref.load %x[%i, %k] : memref<64x300xi64>
      %a = memref.load %acc[%i] : memref<64xi64>
      %s = arith.addi %a, %v : i64
      memref.store %s, %acc[%i] : memref<64xi64>
    }
    scf.reduce
  } {magi.kernel_config = {block_size = 64 : i64, strategy = "serial-reduction"}}
  return %acc : memref<64xi64>
}

// -----

// Into a buffer that may be a view of an input (a function argument), the
// element stays in memory: the loop's loads might read it.
// CHECK-LABEL: func @serial_sum_in_argument
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK:   memref.load %arg1
// CHECK:   memref.store
func.func @serial_sum_in_argument(%x: memref<64x300xi64>, %acc: memref<64xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c300 = arith.constant 300 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.for %k = %c0 to %c300 step %c1 {
      %v = memref.load %x[%i, %k] : memref<64x300xi64>
      %a = memref.load %acc[%i] : memref<64xi64>
      %s = arith.addi %a, %v : i64
      memref.store %s, %acc[%i] : memref<64xi64>
    }
    scf.reduce
  } {magi.kernel_config = {block_size = 64 : i64, strategy = "serial-reduction"}}
  return
}

// -----

// vector_width = 8: the loop runs over vectors of 8 bf16 (4096 / 8 = 512 a
// row, numbered by row); streaming accesses become 16-byte aligned
// vector.load/vector.store at column 8 * id, the arithmetic works on
// vectors, and the row's scale (a load that does not depend on the column)
// is loaded once and broadcast.
// CHECK-LABEL: func @vectors
// CHECK: gpu.launch
// CHECK:   %[[COL:.*]] = arith.muli %{{.*}}, %c8{{(_[0-9]+)?}} : index
// CHECK:   %[[X:.*]] = vector.load %arg0[%{{.*}}, %[[COL]]] {alignment = 16 : i64} : memref<16x4096xbf16>, vector<8xbf16>
// CHECK:   %[[S:.*]] = memref.load %arg1[%{{.*}}] : memref<16xf32>
// CHECK:   %[[XF:.*]] = arith.extf %[[X]] : vector<8xbf16> to vector<8xf32>
// CHECK:   %[[SV:.*]] = vector.broadcast %[[S]] : f32 to vector<8xf32>
// CHECK:   %[[Y:.*]] = arith.mulf %[[XF]], %[[SV]] : vector<8xf32>
// CHECK:   %[[T:.*]] = arith.truncf %[[Y]] : vector<8xf32> to vector<8xbf16>
// CHECK:   vector.store %[[T]], %arg2[%{{.*}}, %[[COL]]] {alignment = 16 : i64} : memref<16x4096xbf16>, vector<8xbf16>
// CHECK: vector_width = 8 : i64
func.func @vectors(%a: memref<16x4096xbf16>, %s: memref<16xf32>, %o: memref<16x4096xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c4096 = arith.constant 4096 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c4096) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<16x4096xbf16>
    %r = memref.load %s[%i] : memref<16xf32>
    %xf = arith.extf %x : bf16 to f32
    %y = arith.mulf %xf, %r : f32
    %t = arith.truncf %y : f32 to bf16
    memref.store %t, %o[%i, %j] : memref<16x4096xbf16>
    scf.reduce
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise", vector_width = 8 : i64}}
  return
}

// -----

// A vector_width the loop does not match is an error.
func.func @vectors_refused(%a: memref<16x4096xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c4096 = arith.constant 4096 : index
  // expected-error @+1 {{vector_width 4 needs an elementwise loop whose accesses stream along its last loop, W-aligned, over a multiple of W elements}}
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c4096) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<16x4096xbf16>
    memref.store %x, %a[%j, %i] : memref<16x4096xbf16>
    scf.reduce
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise", vector_width = 4 : i64}}
  return
}

// -----

func.func @vector_width_bad(%a: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  // expected-error @+1 {{vector_width 3 is not a power of two in 2..16}}
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %x = memref.load %a[%i] : memref<16xf32>
    memref.store %x, %a[%i] : memref<16xf32>
    scf.reduce
  } {magi.kernel_config = {block_size = 32 : i64, strategy = "elementwise", vector_width = 3 : i64}}
  return
}

// -----

func.func @vector_width_serial(%a: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  // expected-error @+1 {{vector_width needs the elementwise strategy}}
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    scf.for %k = %c0 to %c16 step %c1 {
      %x = memref.load %a[%k] : memref<16xf32>
      memref.store %x, %a[%i] : memref<16xf32>
    }
    scf.reduce
  } {magi.kernel_config = {block_size = 32 : i64, strategy = "serial-reduction", vector_width = 4 : i64}}
  return
}

// -----

// The rotated half: the partner index and the half's test are computed
// once, for the vector's first element, and the test selects between whole
// vectors.
// CHECK-LABEL: func @rotated_half
// CHECK: gpu.launch
// CHECK:   %[[FIRST:.*]] = arith.muli %{{.*}}, %c8{{(_[0-9]+)?}} : index
// CHECK:   %[[P:.*]] = affine.apply #{{.*}}(%[[FIRST]])
// CHECK:   %[[A:.*]] = vector.load %arg0[%{{.*}}, %[[FIRST]]] {alignment = 16 : i64} : memref<512x128xbf16>, vector<8xbf16>
// CHECK:   %[[B:.*]] = vector.load %arg0[%{{.*}}, %[[P]]] {alignment = 16 : i64} : memref<512x128xbf16>, vector<8xbf16>
// CHECK:   %[[LOW:.*]] = arith.cmpi slt, %[[FIRST]], %{{.*}} : index
// CHECK:   %[[NB:.*]] = arith.negf %[[B]] : vector<8xbf16>
// CHECK:   %[[LOWV:.*]] = vector.broadcast %[[LOW]] : i1 to vector<8xi1>
// CHECK:   arith.select %[[LOWV]], %[[NB]], %[[B]] : vector<8xi1>, vector<8xbf16>
#rotate = affine_map<(d0) -> (d0 - ((d0 + 64) floordiv 128) * 128 + 64)>
func.func @rotated_half(%x: memref<512x128xbf16>, %o: memref<512x128xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c512, %c128) step (%c1, %c1) {
    %p = affine.apply #rotate(%j)
    %a = memref.load %x[%i, %j] : memref<512x128xbf16>
    %b = memref.load %x[%i, %p] : memref<512x128xbf16>
    %low = arith.cmpi slt, %j, %c64 : index
    %nb = arith.negf %b : bf16
    %r = arith.select %low, %nb, %b : bf16
    %s = arith.addf %a, %r : bf16
    memref.store %s, %o[%i, %j] : memref<512x128xbf16>
    scf.reduce
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise", vector_width = 8 : i64}}
  return
}

// -----

// An im2col's window read, x[i, k + j] for a tap k: the index is computed for
// each of the vector's 8 elements (first + 1 ... first + 7), the 8 scalar
// loads make one vector, and the store stays one 16-byte access.
// CHECK-LABEL: func @gathered
// CHECK: gpu.launch
// CHECK:   %[[FIRST:.*]] = arith.muli %{{.*}}, %c8{{(_[0-9]+)?}} : index
// CHECK:   %[[J1:.*]] = arith.addi %[[FIRST]], %c1{{(_[0-9]+)?}} : index
// CHECK:   %[[J7:.*]] = arith.addi %[[FIRST]], %c7{{(_[0-9]+)?}} : index
// CHECK:   %[[P0:.*]] = affine.apply #{{.*}}(%[[K:[^,]*]], %[[FIRST]])
// CHECK:   %[[P1:.*]] = affine.apply #{{.*}}(%[[K]], %[[J1]])
// CHECK:   %[[P7:.*]] = affine.apply #{{.*}}(%[[K]], %[[J7]])
// CHECK:   %[[E0:.*]] = memref.load %arg0[%{{.*}}, %[[P0]]] : memref<64x58xbf16>
// CHECK:   %[[E7:.*]] = memref.load %arg0[%{{.*}}, %[[P7]]] : memref<64x58xbf16>
// CHECK:   %[[V:.*]] = vector.from_elements %[[E0]], {{.*}}, %[[E7]] : vector<8xbf16>
// CHECK:   vector.store %[[V]], %arg1[%{{.*}}, %{{.*}}, %[[FIRST]]] {alignment = 16 : i64} : memref<64x3x56xbf16>, vector<8xbf16>
// CHECK: vector_width = 8 : i64
#tap = affine_map<(d0, d1) -> (d0 + d1)>
func.func @gathered(%x: memref<64x58xbf16>, %o: memref<64x3x56xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c56 = arith.constant 56 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %k, %j) = (%c0, %c0, %c0) to (%c64, %c3, %c56) step (%c1, %c1, %c1) {
    %p = affine.apply #tap(%k, %j)
    %v = memref.load %x[%i, %p] : memref<64x58xbf16>
    memref.store %v, %o[%i, %k, %j] : memref<64x3x56xbf16>
    scf.reduce
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise", vector_width = 8 : i64}}
  return
}

// -----

// A lane's own index stored, or used as a value, is not gathered: the
// vector_width does not match.
func.func @gathered_index_stored(%x: memref<64x58xi64>, %o: memref<64x56xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c56 = arith.constant 56 : index
  %c64 = arith.constant 64 : index
  // expected-error @+1 {{vector_width 2 needs an elementwise loop whose accesses stream along its last loop, W-aligned, over a multiple of W elements}}
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c56) step (%c1, %c1) {
    %p = arith.addi %j, %c1 : index
    %v = arith.index_cast %p : index to i64
    memref.store %v, %o[%i, %j] : memref<64x56xi64>
    scf.reduce
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise", vector_width = 2 : i64}}
  return
}

// -----

// A padded im2col's bound: j + k - 1 tested for each of the 8 elements, the
// clamped positions gathered, and the select taking the vector of the 8
// tests (vector<8xi1>).
// CHECK-LABEL: func @gathered_in_bounds
// CHECK: gpu.launch
// CHECK-COUNT-8: arith.cmpi sge
// CHECK:   %[[IN:.*]] = vector.from_elements %{{.*}} : vector<8xi1>
// CHECK:   arith.select %[[IN]], %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xbf16>
// CHECK:   vector.store
// CHECK: vector_width = 8 : i64
#shifted = affine_map<(d0, d1) -> (d0 + d1 - 1)>
func.func @gathered_in_bounds(%x: memref<64x56xbf16>, %o: memref<64x3x56xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c55 = arith.constant 55 : index
  %c56 = arith.constant 56 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : bf16
  scf.parallel (%i, %k, %j) = (%c0, %c0, %c0) to (%c64, %c3, %c56) step (%c1, %c1, %c1) {
    %p = affine.apply #shifted(%k, %j)
    %low = arith.cmpi sge, %p, %c0 : index
    %high = arith.cmpi slt, %p, %c56 : index
    %in = arith.andi %low, %high : i1
    %below = arith.minsi %p, %c55 : index
    %at = arith.maxsi %below, %c0 : index
    %v = memref.load %x[%i, %at] : memref<64x56xbf16>
    %r = arith.select %in, %v, %zero : bf16
    memref.store %r, %o[%i, %k, %j] : memref<64x3x56xbf16>
    scf.reduce
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise", vector_width = 8 : i64}}
  return
}

// -----

// Scalar arithmetic on constants that did not fold (bf16 cannot hold
// float16's lowest, -65504, exactly, so the rounding stays an
// arith.truncf) is computed in the kernel too: a launch plan passes only
// memrefs, integers and float constants.
// CHECK-LABEL: func @rounded_constant
// CHECK:       gpu.launch
// CHECK:         %[[LOWEST:.*]] = arith.constant -6.550400e+04 : f64
// CHECK-NEXT:    %[[ROUNDED:.*]] = arith.truncf %[[LOWEST]] : f64 to bf16
// CHECK:         memref.store %[[ROUNDED]]
func.func @rounded_constant(%a: memref<64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %lowest = arith.constant -6.550400e+04 : f64
  %rounded = arith.truncf %lowest : f64 to bf16
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    memref.store %rounded, %a[%i] : memref<64xbf16>
    scf.reduce
  } {magi.kernel_config = {block_size = 256 : i64, strategy = "elementwise"}}
  return
}

// -----

// An integer the function only returns (through casts) is read by the host
// once the piece has run (magi.item; the launch plan's read result): no
// kernel.
// CHECK-LABEL: func @host_read
// CHECK-NOT: gpu.launch
// CHECK: %[[N:.*]] = memref.load %arg0[] : memref<i64>
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[N]] : i64 to index
// CHECK-NEXT: return %[[I]] : index
func.func @host_read(%count: memref<i64>) -> index {
  %n = memref.load %count[] : memref<i64>
  %i = arith.index_cast %n : i64 to index
  return %i : index
}
