// magi-bufferize gives each use of a shared fill of an empty tensor its own
// buffer, filled just before the use: CSE merges the identical fills of
// two RMSNorms' sums, which would otherwise bufferize as one buffer filled
// once and copied (a linalg.copy, a kernel) for the other use.
// RUN: magi-opt %s --magi-bufferize | FileCheck %s

#row = affine_map<(d0, d1) -> (d0, d1)>
#sum = affine_map<(d0, d1) -> (d0)>
func.func @two_sums(%x: tensor<4x256xf32>, %y: tensor<4x256xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#row, #sum], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x256xf32>) outs(%fill : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.mulf %in, %in : f32
    %t = arith.addf %s, %acc : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#row, #sum], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<4x256xf32>) outs(%fill : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %t = arith.addf %in, %acc : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @two_sums
// CHECK-NOT: linalg.copy
// CHECK: %[[A:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[A]] : memref<4xf32>)
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[A]] : memref<4xf32>)
// CHECK: %[[B:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[B]] : memref<4xf32>)
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[B]] : memref<4xf32>)
// CHECK-NOT: linalg.copy
// CHECK: return
