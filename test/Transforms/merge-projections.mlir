// RUN: magi-opt %s -split-input-file -magi-merge-projections | FileCheck %s

// magi-merge-projections: products of one input with transposed weight
// arguments become one product over a concatenated weight argument
// (magi.concat_of), sliced by columns.

// Q/K/V of different widths: one mm over a 256x8 weight added after the
// last part; each projection is a slice, in block order, and keeps its type
// and binding.
// CHECK: #[[$M256:.+]] = affine_map<()[s0] -> (s0, 256)>
// CHECK-LABEL: func.func @qkv
// CHECK-SAME: %arg0: tensor<?x8xbf16>
// CHECK-SAME: %[[Q:arg1]]: tensor<128x8xbf16> {{{.*}}magi.name = "q"
// CHECK-SAME: %[[K:arg2]]: tensor<64x8xbf16>
// CHECK-SAME: %[[V:arg3]]: tensor<64x8xbf16>
// CHECK-SAME: %[[CAT:arg4]]: tensor<256x8xbf16> {magi.concat_of = ["q", "k", "v"], magi.input_kind = "parameter", magi.name = "q+k+v"}
// CHECK-NEXT: %[[S:.*]] = magi.symbolic_int "s0"
// CHECK-NEXT: %[[T:.*]] = magi.permute %[[CAT]] {dims = array<i64: 1, 0>} : (tensor<256x8xbf16>) -> tensor<8x256xbf16>
// CHECK-NEXT: %[[MM:.*]] = magi.mm %arg0, %[[T]] : (tensor<?x8xbf16>, tensor<8x256xbf16>) -> tensor<?x256xbf16>
// CHECK-NEXT: magi.bind_symbolic_shape %[[MM]], [%[[S]]], #[[$M256]]
// CHECK-NEXT: %[[SQ:.*]] = magi.slice %[[MM]], 1 [0, 128, 1] : tensor<?x256xbf16> -> tensor<?x128xbf16>
// CHECK-NEXT: %[[SK:.*]] = magi.slice %[[MM]], 1 [128, 192, 1] : tensor<?x256xbf16> -> tensor<?x64xbf16>
// CHECK-NEXT: %[[SV:.*]] = magi.slice %[[MM]], 1 [192, 256, 1] : tensor<?x256xbf16> -> tensor<?x64xbf16>
// CHECK-NEXT: magi.bind_symbolic_shape %[[SQ]], [%[[S]]], #{{.*}} : tensor<?x128xbf16>
// CHECK-NOT: magi.mm
// CHECK: return %[[SQ]], %[[SK]], %[[SV]]
func.func @qkv(%x: tensor<?x8xbf16> {magi.input_kind = "user_input"},
               %q: tensor<128x8xbf16> {magi.input_kind = "parameter", magi.name = "q", magi.weight = {entry = "w/0", offset = 0 : i64, strides = array<i64: 8, 1>}},
               %k: tensor<64x8xbf16> {magi.input_kind = "parameter", magi.name = "k", magi.weight = {entry = "w/1", offset = 0 : i64, strides = array<i64: 8, 1>}},
               %v: tensor<64x8xbf16> {magi.input_kind = "parameter", magi.name = "v", magi.weight = {entry = "w/2", offset = 0 : i64, strides = array<i64: 8, 1>}})
    -> (tensor<?x128xbf16>, tensor<?x64xbf16>, tensor<?x64xbf16>) {
  %s0 = magi.symbolic_int "s0" min 1 max 4096
  %qt = magi.permute %q {dims = array<i64: 1, 0>} : (tensor<128x8xbf16>) -> tensor<8x128xbf16>
  %yq = magi.mm %x, %qt : (tensor<?x8xbf16>, tensor<8x128xbf16>) -> tensor<?x128xbf16>
  magi.bind_symbolic_shape %yq, [%s0], affine_map<()[s0] -> (s0, 128)> : tensor<?x128xbf16>
  %kt = magi.permute %k {dims = array<i64: 1, 0>} : (tensor<64x8xbf16>) -> tensor<8x64xbf16>
  %yk = magi.mm %x, %kt : (tensor<?x8xbf16>, tensor<8x64xbf16>) -> tensor<?x64xbf16>
  %vt = magi.permute %v {dims = array<i64: 1, 0>} : (tensor<64x8xbf16>) -> tensor<8x64xbf16>
  %yv = magi.mm %x, %vt : (tensor<?x8xbf16>, tensor<8x64xbf16>) -> tensor<?x64xbf16>
  return %yq, %yk, %yv : tensor<?x128xbf16>, tensor<?x64xbf16>, tensor<?x64xbf16>
}

// -----

// addmm with unit scales and 1-d bias weights: the biases are concatenated
// too (each concatenation after its last part). Another product of the same input (a user-input matrix) stays.
// CHECK-LABEL: func.func @biased
// CHECK-SAME: %[[WB:arg5]]: tensor<8x4xf32> {magi.concat_of = ["a.w", "b.w"], magi.input_kind = "parameter", magi.name = "a.w+b.w"}
// CHECK-SAME: %[[BB:arg7]]: tensor<8xf32> {magi.concat_of = ["a.b", "b.b"], magi.input_kind = "parameter", magi.name = "a.b+b.b"}
// CHECK: %[[T:.*]] = magi.permute %[[WB]]
// CHECK-NEXT: %[[MM:.*]] = magi.addmm %[[BB]], %arg0, %[[T]] : (tensor<8xf32>, tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: magi.slice %[[MM]], 1 [0, 4, 1] : tensor<2x8xf32> -> tensor<2x4xf32>
// CHECK-NEXT: magi.slice %[[MM]], 1 [4, 8, 1] : tensor<2x8xf32> -> tensor<2x4xf32>
// CHECK: magi.mm %arg0, %arg1
func.func @biased(%x: tensor<2x4xf32> {magi.input_kind = "user_input"},
                  %m: tensor<4x4xf32> {magi.input_kind = "user_input"},
                  %aw: tensor<4x4xf32> {magi.input_kind = "parameter", magi.name = "a.w", magi.weight = {entry = "w/0", offset = 0 : i64, strides = array<i64: 4, 1>}},
                  %ab: tensor<4xf32> {magi.input_kind = "parameter", magi.name = "a.b", magi.weight = {entry = "w/1", offset = 0 : i64, strides = array<i64: 1>}},
                  %bw: tensor<4x4xf32> {magi.input_kind = "parameter", magi.name = "b.w", magi.weight = {entry = "w/2", offset = 0 : i64, strides = array<i64: 4, 1>}},
                  %bb: tensor<4xf32> {magi.input_kind = "parameter", magi.name = "b.b", magi.weight = {entry = "w/3", offset = 0 : i64, strides = array<i64: 1>}})
    -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %awt = magi.permute %aw {dims = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %ya = magi.addmm %ab, %x, %awt : (tensor<4xf32>, tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %bwt = magi.permute %bw {dims = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %yb = magi.addmm %bb, %x, %bwt : (tensor<4xf32>, tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %ym = magi.mm %x, %m : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  return %ya, %yb, %ym : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Nothing merges: a weight with another use, a user input as the weight,
// a weight of another reduction size, a product that is already
// transposed, an addmm with a scale, mm and addmm together, and weights of
// different dtypes or input kinds.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: magi.concat_of
// CHECK-NOT: magi.slice
// CHECK-COUNT-2: magi.mm %arg0
// CHECK: magi.mm %arg0, %arg3 {transpose_mat2}
// CHECK-COUNT-2: magi.addmm
// CHECK-COUNT-2: magi.mm %arg0
func.func @kept(%x: tensor<2x4xf32> {magi.input_kind = "user_input"},
                %used: tensor<4x4xf32> {magi.input_kind = "parameter", magi.name = "used", magi.weight = {entry = "w/0", offset = 0 : i64, strides = array<i64: 4, 1>}},
                %user: tensor<4x4xf32> {magi.input_kind = "user_input"},
                %flagged: tensor<4x4xf32> {magi.input_kind = "parameter", magi.name = "flagged", magi.weight = {entry = "w/1", offset = 0 : i64, strides = array<i64: 4, 1>}},
                %scaled: tensor<4x4xf32> {magi.input_kind = "parameter", magi.name = "scaled", magi.weight = {entry = "w/2", offset = 0 : i64, strides = array<i64: 4, 1>}},
                %bias: tensor<4xf32> {magi.input_kind = "parameter", magi.name = "bias", magi.weight = {entry = "w/3", offset = 0 : i64, strides = array<i64: 1>}},
                %plain: tensor<4x4xf32> {magi.input_kind = "parameter", magi.name = "plain", magi.weight = {entry = "w/4", offset = 0 : i64, strides = array<i64: 4, 1>}},
                %buf: tensor<4x4xf32> {magi.input_kind = "buffer", magi.name = "buf", magi.weight = {entry = "w/5", offset = 0 : i64, strides = array<i64: 4, 1>}})
    -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<4x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %ut = magi.permute %used {dims = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %y0 = magi.mm %x, %ut : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %nt = magi.permute %user {dims = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %y1 = magi.mm %x, %nt : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %y2 = magi.mm %x, %flagged {transpose_mat2} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %st = magi.permute %scaled {dims = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %y3 = magi.addmm %bias, %x, %st {beta = 2.0 : f64} : (tensor<4xf32>, tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %y4 = magi.addmm %bias, %x, %st : (tensor<4xf32>, tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %pt = magi.permute %plain {dims = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %y5 = magi.mm %x, %pt : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %bt = magi.permute %buf {dims = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %y6 = magi.mm %x, %bt : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  return %y0, %y1, %used, %y2, %y3, %y5, %y6 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<4x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}
