// magi-expand-shapes-to-casts: an expansion with two dynamic sizes in one
// group (which upstream expand-strided-metadata cannot take) becomes a
// reinterpret_cast of the source's base with the output sizes and strides
// multiplied within the group; one dynamic size a group is left alone.
// RUN: magi-opt %s --split-input-file --magi-expand-shapes-to-casts | FileCheck %s
// RUN: magi-opt %s --split-input-file --magi-expand-shapes-to-casts --expand-strided-metadata | FileCheck %s --check-prefix=META

// CHECK-LABEL: func @two_dynamic_sizes
// CHECK-SAME: (%[[SRC:.*]]: memref<?x8x?xbf16>, %[[N:.*]]: index, %[[H:.*]]: index, %[[W:.*]]: index)
// CHECK: %[[BASE:.*]], %[[OFFSET:.*]], %{{.*}}:3, %[[STRIDES:.*]]:3 = memref.extract_strided_metadata %[[SRC]]
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[N]], 8, %[[H]], %[[W]]], strides: [%[[STRIDES]]#0, %[[STRIDES]]#1, %[[W]], 1]
// CHECK-NOT: memref.expand_shape
// META-LABEL: func @two_dynamic_sizes
// META-NOT: memref.expand_shape
// META: return
func.func @two_dynamic_sizes(%src: memref<?x8x?xbf16>, %n: index, %h: index, %w: index) -> memref<?x8x?x?xbf16> {
  %view = memref.expand_shape %src [[0], [1], [2, 3]] output_shape [%n, 8, %h, %w] : memref<?x8x?xbf16> into memref<?x8x?x?xbf16>
  return %view : memref<?x8x?x?xbf16>
}

// -----

// Three dimensions of one group: the first strides over the two after it.
// CHECK-LABEL: func @three_in_a_group
// CHECK-SAME: (%[[SRC:.*]]: memref<?xf32>, %[[A:.*]]: index, %[[B:.*]]: index)
// CHECK: %[[BASE:.*]], %{{.*}}, %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[SRC]]
// CHECK: %[[OUTER:.*]] = affine.apply #[[TIMES4:.*]]()[%[[B]]]
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[A]], %[[B]], 4], strides: [%[[OUTER]], 4, 1]
func.func @three_in_a_group(%src: memref<?xf32>, %a: index, %b: index) -> memref<?x?x4xf32> {
  %view = memref.expand_shape %src [[0, 1, 2]] output_shape [%a, %b, 4] : memref<?xf32> into memref<?x?x4xf32>
  return %view : memref<?x?x4xf32>
}

// -----

// CHECK-LABEL: func @one_dynamic_size
// CHECK: memref.expand_shape
// CHECK-NOT: memref.reinterpret_cast
func.func @one_dynamic_size(%src: memref<?x64xf32>, %n: index) -> memref<?x4x16xf32> {
  %view = memref.expand_shape %src [[0], [1, 2]] output_shape [%n, 4, 16] : memref<?x64xf32> into memref<?x4x16xf32>
  return %view : memref<?x4x16xf32>
}
