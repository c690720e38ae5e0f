// RUN: magi-opt %s | FileCheck %s
// RUN: magi-opt %s | magi-opt | FileCheck %s
// RUN: magi-opt %s -emit-bytecode | magi-opt | FileCheck %s
// RUN: magi-opt %s --verify-roundtrip | FileCheck %s

// Positive tests for the indexing ops: magi.embedding, magi.index,
// magi.index_select and magi.gather.

// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[W:.*]]: tensor<512x64xbf16>, %[[I:.*]]: tensor<1x?xi64>, %[[J:.*]]: tensor<3xi32>, %[[K:.*]]: tensor<i64>)
func.func @embedding(%w: tensor<512x64xbf16>, %i: tensor<1x?xi64>, %j: tensor<3xi32>, %k: tensor<i64>) {
  // The indices' shape followed by the embedding size. The default
  // padding_idx (-1) is not printed.
  // CHECK: magi.embedding %[[W]], %[[I]] : (tensor<512x64xbf16>, tensor<1x?xi64>) -> tensor<1x?x64xbf16>
  %0 = magi.embedding %w, %i : (tensor<512x64xbf16>, tensor<1x?xi64>) -> tensor<1x?x64xbf16>
  // CHECK: magi.embedding %[[W]], %[[J]] {padding_idx = 0 : i64} : (tensor<512x64xbf16>, tensor<3xi32>) -> tensor<3x64xbf16>
  %1 = magi.embedding %w, %j {padding_idx = 0 : i64} : (tensor<512x64xbf16>, tensor<3xi32>) -> tensor<3x64xbf16>
  // 0-d indices.
  // CHECK: magi.embedding %[[W]], %[[K]] : (tensor<512x64xbf16>, tensor<i64>) -> tensor<64xbf16>
  %2 = magi.embedding %w, %k : (tensor<512x64xbf16>, tensor<i64>) -> tensor<64xbf16>
  return
}

// CHECK-LABEL: func.func @index
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[I:.*]]: tensor<5xi64>, %[[J:.*]]: tensor<2x1xi32>, %[[K:.*]]: tensor<?xi64>)
func.func @index(%x: tensor<2x3x4xf32>, %i: tensor<5xi64>, %j: tensor<2x1xi32>, %k: tensor<?xi64>) {
  // One index tensor: its shape replaces the indexed dimension.
  // CHECK: magi.index %[[X]][%[[I]]] {indexed_dims = array<i64: 1>} : (tensor<2x3x4xf32>, tensor<5xi64>) -> tensor<2x5x4xf32>
  %0 = magi.index %x [%i] {indexed_dims = array<i64: 1>} : (tensor<2x3x4xf32>, tensor<5xi64>) -> tensor<2x5x4xf32>
  // Adjacent indexed dimensions: the broadcast index shape (2x5) in place.
  // CHECK: magi.index %[[X]][%[[I]], %[[J]]] {indexed_dims = array<i64: 1, 2>} : (tensor<2x3x4xf32>, tensor<5xi64>, tensor<2x1xi32>) -> tensor<2x2x5xf32>
  %1 = magi.index %x [%i, %j] {indexed_dims = array<i64: 1, 2>} : (tensor<2x3x4xf32>, tensor<5xi64>, tensor<2x1xi32>) -> tensor<2x2x5xf32>
  // Non-adjacent indexed dimensions: the broadcast index shape comes first.
  // CHECK: magi.index %[[X]][%[[I]], %[[J]]] {indexed_dims = array<i64: 0, 2>} : (tensor<2x3x4xf32>, tensor<5xi64>, tensor<2x1xi32>) -> tensor<2x5x3xf32>
  %2 = magi.index %x [%i, %j] {indexed_dims = array<i64: 0, 2>} : (tensor<2x3x4xf32>, tensor<5xi64>, tensor<2x1xi32>) -> tensor<2x5x3xf32>
  // All dimensions indexed, with a dynamic index length.
  // CHECK: magi.index %[[X]][%[[K]], %[[K]], %[[K]]] {indexed_dims = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xf32>
  %3 = magi.index %x [%k, %k, %k] {indexed_dims = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xf32>
  // The leading dimension.
  // CHECK: magi.index %[[X]][%[[J]]] {indexed_dims = array<i64: 0>} : (tensor<2x3x4xf32>, tensor<2x1xi32>) -> tensor<2x1x3x4xf32>
  %4 = magi.index %x [%j] {indexed_dims = array<i64: 0>} : (tensor<2x3x4xf32>, tensor<2x1xi32>) -> tensor<2x1x3x4xf32>
  return
}

// CHECK-LABEL: func.func @index_select
// CHECK-SAME: (%[[X:.*]]: tensor<4x?x6xf16>, %[[I:.*]]: tensor<3xi64>, %[[J:.*]]: tensor<?xi32>, %[[K:.*]]: tensor<i64>)
func.func @index_select(%x: tensor<4x?x6xf16>, %i: tensor<3xi64>, %j: tensor<?xi32>, %k: tensor<i64>) {
  // CHECK: magi.index_select %[[X]], %[[I]] {dim = 0 : i64} : (tensor<4x?x6xf16>, tensor<3xi64>) -> tensor<3x?x6xf16>
  %0 = magi.index_select %x, %i {dim = 0 : i64} : (tensor<4x?x6xf16>, tensor<3xi64>) -> tensor<3x?x6xf16>
  // CHECK: magi.index_select %[[X]], %[[J]] {dim = -1 : i64} : (tensor<4x?x6xf16>, tensor<?xi32>) -> tensor<4x?x?xf16>
  %1 = magi.index_select %x, %j {dim = -1 : i64} : (tensor<4x?x6xf16>, tensor<?xi32>) -> tensor<4x?x?xf16>
  // CHECK: magi.index_select %[[X]], %[[I]] {dim = 1 : i64} : (tensor<4x?x6xf16>, tensor<3xi64>) -> tensor<4x3x6xf16>
  %2 = magi.index_select %x, %i {dim = 1 : i64} : (tensor<4x?x6xf16>, tensor<3xi64>) -> tensor<4x3x6xf16>
  // A 0-d index selects one entry, keeping the dimension.
  // CHECK: magi.index_select %[[X]], %[[K]] {dim = 2 : i64} : (tensor<4x?x6xf16>, tensor<i64>) -> tensor<4x?x1xf16>
  %3 = magi.index_select %x, %k {dim = 2 : i64} : (tensor<4x?x6xf16>, tensor<i64>) -> tensor<4x?x1xf16>
  return
}

// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>, %[[I:.*]]: tensor<4x2xi64>, %[[J:.*]]: tensor<?x?xi32>)
func.func @gather(%x: tensor<4x6xf32>, %i: tensor<4x2xi64>, %j: tensor<?x?xi32>) {
  // The result has the index's shape and self's dtype.
  // CHECK: magi.gather %[[X]], %[[I]] {dim = 1 : i64} : (tensor<4x6xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  %0 = magi.gather %x, %i {dim = 1 : i64} : (tensor<4x6xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  // CHECK: magi.gather %[[X]], %[[J]] {dim = -2 : i64} : (tensor<4x6xf32>, tensor<?x?xi32>) -> tensor<?x?xf32>
  %1 = magi.gather %x, %j {dim = -2 : i64} : (tensor<4x6xf32>, tensor<?x?xi32>) -> tensor<?x?xf32>
  return
}
