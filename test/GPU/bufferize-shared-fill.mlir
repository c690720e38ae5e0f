// magi-bufferize gives each use of a shared fill of an empty tensor its own
// buffer, filled just before the use: CSE merges the identical fills of
// two RMSNorms' sums, which would otherwise bufferize as one buffer filled
// once and copied (a linalg.copy, a kernel) for the other use.
// RUN: magi-opt %s --magi-bufferize | FileCheck %s

#row = affine_map<(d0, d1) -> (d0, d1)>
#sum = affine_map<(d0, d1) -> (d0)>
#vec = affine_map<(d0) -> (d0)>
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

// A use inside a loop gets its fill in the loop body: a fresh accumulator
// every iteration, filled in place rather than copied from a buffer filled
// outside.
// CHECK-LABEL: func.func @sum_in_loop
// CHECK-NOT: linalg.copy
// CHECK: linalg.fill
// CHECK-NOT: linalg.copy
// CHECK: scf.for
// CHECK-NOT: linalg.copy
// CHECK: linalg.fill
// CHECK-NOT: linalg.copy
// CHECK: return
func.func @sum_in_loop(%x: tensor<4x256xf32>, %n: index) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %empty = tensor.empty() : tensor<4xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#row, #sum], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x256xf32>) outs(%fill : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %t = arith.addf %in, %acc : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%carried = %a) -> (tensor<4xf32>) {
    %b = linalg.generic {indexing_maps = [#row, #sum], iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<4x256xf32>) outs(%fill : tensor<4xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %t = arith.maximumf %in, %acc : f32
      linalg.yield %t : f32
    } -> tensor<4xf32>
    %s = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
        ins(%b : tensor<4xf32>) outs(%carried : tensor<4xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    } -> tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
