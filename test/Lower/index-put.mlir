// RUN: magi-opt %s -split-input-file --magi-lower-to-linalg=fail-on-unconverted | FileCheck %s
// RUN: magi-opt %s -split-input-file --magi-lower-to-linalg=fail-on-unconverted --magi-bufferize --canonicalize | FileCheck %s --check-prefix=BUF

// index_put without accumulate is an scf.forall over the indexed shape
// that inserts one element of the values per iteration into `self` (with
// accumulate, a scf.parallel of atomic adds, below); copy is
// one converting generic. With `in_place` (magi-mark-in-place-mutations) the
// piece argument `self` is the only writable one, and bufferization writes
// into it: a KV cache update writes the new positions only and returns the
// argument. Without, bufferization copies `self` first.

// CHECK-LABEL: func.func @cache
// CHECK-SAME: %[[CACHE:arg0]]: tensor<1x2x8x4xbf16> {bufferization.writable = true}
// CHECK-SAME: %[[NEW:arg1]]: tensor<1x2x1x4xbf16>, %[[POS:arg2]]: tensor<1xi64>
// CHECK: %[[LOOP:.*]] = scf.forall (%[[B:.*]], %[[H:.*]], %[[T:.*]], %[[D:.*]]) in (1, 2, 1, 4) shared_outs(%[[OUT:.*]] = %[[CACHE]])
// CHECK: %[[P:.*]] = tensor.extract %[[POS]]
// CHECK: %[[I:.*]] = arith.index_cast %[[P]]
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[I]]
// CHECK: %[[WRAP:.*]] = arith.addi %[[I]], %c8
// CHECK: %[[AT:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[I]]
// CHECK: %[[V:.*]] = tensor.extract_slice %[[NEW]][%[[B]], %[[H]], %[[T]], %[[D]]] [1, 1, 1, 1] [1, 1, 1, 1] : tensor<1x2x1x4xbf16> to tensor<bf16>
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %[[V]] into %[[OUT]][%[[B]], %[[H]], %[[AT]], %[[D]]] [1, 1, 1, 1] [1, 1, 1, 1] : tensor<bf16> into tensor<1x2x8x4xbf16>
// CHECK: return %[[LOOP]]

// BUF-LABEL: func.func @cache
// BUF-NOT: memref.alloc
// BUF: scf.forall (%{{.*}}, %{{.*}}) in (2, 4)
// BUF: linalg.copy
// BUF: return %arg0 : memref<1x2x8x4xbf16>
func.func @cache(%arg0: tensor<1x2x8x4xbf16>, %arg1: tensor<1x2x1x4xbf16>, %arg2: tensor<1xi64>) -> tensor<1x2x8x4xbf16> {
  %0 = magi.index_put %arg0[%arg2], %arg1 {in_place, indexed_dims = array<i64: 2>} : (tensor<1x2x8x4xbf16>, tensor<1xi64>, tensor<1x2x1x4xbf16>) -> tensor<1x2x8x4xbf16>
  return %0 : tensor<1x2x8x4xbf16>
}

// -----

// Two indexed dims, the values broadcast first; not in place: the argument
// stays read-only, so self is copied before the writes.
// CHECK-LABEL: func.func @copied
// CHECK-NOT: writable
// CHECK: %[[VALUES:.*]] = linalg.generic
// CHECK: scf.forall (%[[J:.*]]) in (2) shared_outs(%[[OUT:.*]] = %arg0)
// CHECK: tensor.extract %arg1[%[[J]]]
// CHECK: tensor.extract %arg2[%[[J]]]
// CHECK: tensor.extract_slice %[[VALUES]][%[[J]]] [1] [1] : tensor<2xf32> to tensor<f32>
// CHECK: tensor.parallel_insert_slice

// BUF-LABEL: func.func @copied
// BUF: %[[COPY:.*]] = memref.alloc() {{.*}} : memref<3x4xf32>
// BUF: linalg.copy ins(%arg0 : memref<3x4xf32>) outs(%[[COPY]] : memref<3x4xf32>)
// BUF: scf.forall
// BUF: return %[[COPY]]
func.func @copied(%arg0: tensor<3x4xf32>, %arg1: tensor<2xi64>, %arg2: tensor<2xi64>, %arg3: tensor<1xf32>) -> tensor<3x4xf32> {
  %0 = magi.index_put %arg0[%arg1, %arg2], %arg3 {indexed_dims = array<i64: 0, 1>} : (tensor<3x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<1xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// copy converts and broadcasts into self's dtype and shape; in place, self
// is the generic's init.
// CHECK-LABEL: func.func @counter
// CHECK-SAME: %arg0: tensor<i64> {bufferization.writable = true}
// CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<i32>) outs(%arg0 : tensor<i64>)
// CHECK: arith.extsi

// BUF-LABEL: func.func @counter
// BUF-NOT: memref.alloc
// BUF: return %arg0 : memref<i64>
func.func @counter(%arg0: tensor<i64>, %arg1: tensor<i32>) -> tensor<i64> {
  %0 = magi.copy %arg0, %arg1 {in_place} : (tensor<i64>, tensor<i32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// In place without a conversion: a write of src into self's buffer (an
// identity generic would be folded away, and the write with it).
// CHECK-LABEL: func.func @same_type_copy
// CHECK-SAME: %arg0: tensor<4xf32> {bufferization.writable = true}
// CHECK: %[[W:.*]] = bufferization.materialize_in_destination %arg1 in %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: return %[[W]]

// BUF-LABEL: func.func @same_type_copy
// BUF-NOT: memref.alloc
// BUF: linalg.copy ins(%arg1 : memref<4xf32>) outs(%arg0 : memref<4xf32>)
// BUF: return %arg0 : memref<4xf32>
func.func @same_type_copy(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
  %0 = magi.copy %arg0, %arg1 {in_place} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_copy
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<3xf16>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK: arith.extf
func.func @broadcast_copy(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf16>) -> tensor<2x3xf32> {
  %0 = magi.copy %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf16>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// With accumulate every value is added atomically (repeated indices add
// up, as in PyTorch): a scf.parallel over the indexed shape updates the
// buffer of a copy of self.
// CHECK-LABEL: func.func @accumulate
// CHECK: %[[COPY:.*]] = bufferization.alloc_tensor() copy(%arg0) : tensor<3x4xf32>
// CHECK: %[[BUFFER:.*]] = bufferization.to_buffer %[[COPY]] : tensor<3x4xf32> to memref<3x4xf32>
// CHECK: scf.parallel (%[[J:.*]]) = (%c0) to (%c2) step (%c1)
// CHECK: %[[R:.*]] = tensor.extract %arg1[%[[J]]]
// CHECK: %[[C:.*]] = tensor.extract %arg2[%[[J]]]
// CHECK: %[[V:.*]] = tensor.extract %{{.*}}[%[[J]]] : tensor<2xf32>
// CHECK: memref.atomic_rmw addf %[[V]], %[[BUFFER]]
// CHECK: bufferization.to_tensor %[[BUFFER]] restrict writable
func.func @accumulate(%arg0: tensor<3x4xf32>, %arg1: tensor<2xi64>, %arg2: tensor<2xi64>, %arg3: tensor<1xf32>) -> tensor<3x4xf32> {
  %0 = magi.index_put %arg0[%arg1, %arg2], %arg3 {indexed_dims = array<i64: 0, 1>, accumulate = true} : (tensor<3x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<1xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// In place (a mutated graph input), the adds go into self's own buffer.
// CHECK-LABEL: func.func @accumulate_in_place
// CHECK-SAME: %arg0: tensor<8x4xbf16> {bufferization.writable = true}
// CHECK-NOT: alloc_tensor
// CHECK: bufferization.to_buffer %arg0 : tensor<8x4xbf16> to memref<8x4xbf16>
// CHECK: memref.atomic_rmw addf

// BUF-LABEL: func.func @accumulate_in_place
// BUF-NOT: memref.alloc
// BUF: memref.atomic_rmw addf %{{.*}}, %arg0
// BUF: return %arg0 : memref<8x4xbf16>
func.func @accumulate_in_place(%arg0: tensor<8x4xbf16>, %arg1: tensor<3xi64>, %arg2: tensor<3x4xbf16>) -> tensor<8x4xbf16> {
  %0 = magi.index_put %arg0[%arg1], %arg2 {in_place, indexed_dims = array<i64: 0>, accumulate = true} : (tensor<8x4xbf16>, tensor<3xi64>, tensor<3x4xbf16>) -> tensor<8x4xbf16>
  return %0 : tensor<8x4xbf16>
}
