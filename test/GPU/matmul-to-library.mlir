// magi-matmul-to-library-call: plain matrix products over zero-filled
// outputs become gemm calls on [batch, m, k] / [batch, k, n] / [batch, m, n]
// views; anything else stays a linalg op.
// RUN: magi-opt %s --split-input-file --magi-matmul-to-library-call | FileCheck %s
// One thread visits the gemm declarations the pass adds too, and skips them.
// RUN: magi-opt %s --split-input-file --magi-matmul-to-library-call --mlir-disable-threading | FileCheck %s

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// bf16 x (bf16)ᵀ into f32: the transposed weight is a transposed view, a unit
// batch is added to each operand, and the fill is gone.
// CHECK-LABEL: func @mm_transposed
// CHECK-SAME: (%[[X:.*]]: memref<?x128xbf16>, %[[W:.*]]: memref<64x128xbf16>, %[[OUT:.*]]: memref<?x64xf32>)
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[A:.*]] = memref.expand_shape %[[X]] {{\[\[}}0, 1], [2]] output_shape [1, %{{.*}}, 128]
// CHECK-DAG: %[[WT:.*]] = memref.transpose %[[W]] (d0, d1) -> (d1, d0)
// CHECK-DAG: %[[B:.*]] = memref.expand_shape %[[WT]] {{\[\[}}0, 1], [2]] output_shape [1, 128, 64]
// CHECK-DAG: %[[C:.*]] = memref.expand_shape %[[OUT]] {{\[\[}}0, 1], [2]]
// CHECK: call @magi_library_gemm_0(%[[A]], %[[B]], %[[C]]) {magi.library = "gemm"}
// CHECK-NOT: linalg.generic
// CHECK: func.func private @magi_library_gemm_0(memref<1x?x128xbf16>, memref<1x128x64xbf16, strided<[128, 1, 128]>>, memref<1x?x64xf32>)
func.func @mm_transposed(%x: memref<?x128xbf16>, %w: memref<64x128xbf16>, %out: memref<?x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<?x64xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x128xbf16>, memref<64x128xbf16>) outs(%out : memref<?x64xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %acc : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// A batched product keeps its batch; a fill that another op reads (through a
// copy) stays, and the copy of zeros counts as zeros.
// CHECK-LABEL: func @bmm_shared_fill
// CHECK: linalg.fill
// CHECK: memref.copy
// CHECK: call @magi_library_gemm_0(%{{.*}}, %{{.*}}, %[[COPY:.*]]) {magi.library = "gemm"} : (memref<2x?x32xf32>, memref<2x32x16xf32>, memref<2x?x16xf32>)
// CHECK: call @magi_library_gemm_0({{.*}}) {magi.library = "gemm"}
func.func @bmm_shared_fill(%x: memref<2x?x32xf32>, %y: memref<2x32x16xf32>, %o1: memref<2x?x16xf32>, %o2: memref<2x?x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%o1 : memref<2x?x16xf32>)
  memref.copy %o1, %o2 : memref<2x?x16xf32> to memref<2x?x16xf32>
  linalg.batch_matmul ins(%x, %y : memref<2x?x32xf32>, memref<2x32x16xf32>) outs(%o2 : memref<2x?x16xf32>)
  linalg.batch_matmul ins(%x, %y : memref<2x?x32xf32>, memref<2x32x16xf32>) outs(%o1 : memref<2x?x16xf32>)
  return
}

// -----

// Not plain products: an output that is not known to hold zeros (it
// accumulates), and a fused prologue in the body.
// CHECK-LABEL: func @not_gemms
// CHECK-NOT: call
// CHECK: linalg.matmul
// CHECK: linalg.generic
func.func @not_gemms(%x: memref<4x8xf32>, %y: memref<8x4xf32>, %out: memref<4x4xf32>) {
  linalg.matmul ins(%x, %y : memref<4x8xf32>, memref<8x4xf32>) outs(%out : memref<4x4xf32>)
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<4x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<4x8xf32>, memref<8x4xf32>) outs(%out : memref<4x4xf32>) {
  ^bb0(%in: f32, %in_1: f32, %acc: f32):
    %e = math.exp %in : f32
    %2 = arith.mulf %e, %in_1 : f32
    %3 = arith.addf %2, %acc : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// A product over one k (LLaMA's RoPE table: inverse frequencies times
// positions) is an outer product: it stays a kernel.
// CHECK-LABEL: func @outer_product
// CHECK-NOT: call
// CHECK: linalg.batch_matmul
func.func @outer_product(%f: memref<1x64x1xf32>, %p: memref<1x1x?xf32>, %out: memref<1x64x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<1x64x?xf32>)
  linalg.batch_matmul ins(%f, %p : memref<1x64x1xf32>, memref<1x1x?xf32>) outs(%out : memref<1x64x?xf32>)
  return
}

// -----

// Attention's scores: two batch loops (batch, heads) held contiguously by
// every operand collapse into one batch of the call; k is read transposed.
#q = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#k = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#s = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func @scores
// CHECK-DAG: %[[Q:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1], [2], [3]] : memref<1x32x?x128xbf16> into memref<32x?x128xbf16>
// CHECK-DAG: %[[KT:.*]] = memref.transpose %arg1 (d0, d1, d2, d3) -> (d0, d1, d3, d2)
// CHECK-DAG: %[[K:.*]] = memref.collapse_shape %[[KT]] {{\[\[}}0, 1], [2], [3]]
// CHECK-DAG: %[[S:.*]] = memref.collapse_shape %arg2 {{\[\[}}0, 1], [2], [3]] : memref<1x32x?x?xf32> into memref<32x?x?xf32>
// CHECK: call @magi_library_gemm_0(%[[Q]], %[[K]], %[[S]]) {magi.library = "gemm"}
// CHECK-NOT: linalg.generic
func.func @scores(%q: memref<1x32x?x128xbf16>, %k: memref<1x32x?x128xbf16>, %s: memref<1x32x?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<1x32x?x?xf32>)
  linalg.generic {indexing_maps = [#q, #k, #s],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<1x32x?x128xbf16>, memref<1x32x?x128xbf16>) outs(%s : memref<1x32x?x?xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %x = arith.extf %a : bf16 to f32
    %y = arith.extf %b : bf16 to f32
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %p, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A bf16 product into a local f32 buffer that only a rounding back to bf16
// reads: the call writes the rounding's buffer (allocated above the call now)
// and neither the rounding nor the f32 buffer's fill is left. The second
// product's zeros came from a fill shared through a copy: once both calls
// write elsewhere, the fill and the copy are dead too.
// CHECK-LABEL: func @products_then_rounding
// CHECK-NOT: linalg.
// CHECK: %[[OUT1:.*]] = memref.alloc({{.*}}) : memref<?x64xbf16>
// CHECK-NOT: linalg.
// CHECK: %[[C1:.*]] = memref.expand_shape %[[OUT1]]
// CHECK: call @magi_library_gemm_0(%{{.*}}, %{{.*}}, %[[C1]]) {magi.library = "gemm"} : (memref<1x?x128xbf16>, memref<1x128x64xbf16, strided<[128, 1, 128]>>, memref<1x?x64xbf16>)
// CHECK-NOT: linalg.
// CHECK: %[[OUT2:.*]] = memref.alloc({{.*}}) : memref<?x64xbf16>
// CHECK: %[[C2:.*]] = memref.expand_shape %[[OUT2]]
// CHECK: call @magi_library_gemm_0(%{{.*}}, %{{.*}}, %[[C2]])
// CHECK-NOT: linalg.
// CHECK: return %[[OUT1]], %[[OUT2]]
#a2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#c2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @products_then_rounding(%x: memref<?x128xbf16>, %w: memref<64x128xbf16>) -> (memref<?x64xbf16>, memref<?x64xbf16>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x128xbf16>
  %zero = arith.constant 0.0 : f32
  %shared = memref.alloc(%n) : memref<?x64xf32>
  linalg.fill ins(%zero : f32) outs(%shared : memref<?x64xf32>)
  %acc = memref.alloc(%n) : memref<?x64xf32>
  linalg.copy ins(%shared : memref<?x64xf32>) outs(%acc : memref<?x64xf32>)
  linalg.generic {indexing_maps = [#a2, #bt2, #c2], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x128xbf16>, memref<64x128xbf16>) outs(%acc : memref<?x64xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  %out1 = memref.alloc(%n) : memref<?x64xbf16>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<?x64xf32>) outs(%out1 : memref<?x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  }
  linalg.generic {indexing_maps = [#a2, #bt2, #c2], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x128xbf16>, memref<64x128xbf16>) outs(%shared : memref<?x64xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  %out2 = memref.alloc(%n) : memref<?x64xbf16>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%shared : memref<?x64xf32>) outs(%out2 : memref<?x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  }
  return %out1, %out2 : memref<?x64xbf16>, memref<?x64xbf16>
}

// -----

// The f32 result is also read by something else (here: returned), or the
// rounding writes a buffer the function was given: the call writes f32 and
// the rounding stays a kernel.
// CHECK-LABEL: func @rounding_kept
// CHECK: call @magi_library_gemm_0({{.*}}) {magi.library = "gemm"} : ({{.*}}, memref<1x4x64xf32>)
// CHECK: arith.truncf
// CHECK: call @magi_library_gemm_0({{.*}}) {magi.library = "gemm"} : ({{.*}}, memref<1x4x64xf32>)
// CHECK: arith.truncf
#a3 = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt3 = affine_map<(d0, d1, d2) -> (d1, d2)>
#c3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#id3 = affine_map<(d0, d1) -> (d0, d1)>
func.func @rounding_kept(%x: memref<4x128xbf16>, %w: memref<64x128xbf16>, %given: memref<4x64xbf16>) -> (memref<4x64xf32>, memref<4x64xbf16>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<4x64xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<4x64xf32>)
  linalg.generic {indexing_maps = [#a3, #bt3, #c3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<4x128xbf16>, memref<64x128xbf16>) outs(%acc : memref<4x64xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  %out1 = memref.alloc() : memref<4x64xbf16>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x64xf32>) outs(%out1 : memref<4x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  }
  %acc2 = memref.alloc() : memref<4x64xf32>
  linalg.fill ins(%zero : f32) outs(%acc2 : memref<4x64xf32>)
  linalg.generic {indexing_maps = [#a3, #bt3, #c3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<4x128xbf16>, memref<64x128xbf16>) outs(%acc2 : memref<4x64xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%acc2 : memref<4x64xf32>) outs(%given : memref<4x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  }
  return %acc, %out1 : memref<4x64xf32>, memref<4x64xbf16>
}

// -----

// A batch that only one input has (a convolution's images over one weight):
// the weight gets a unit batch (the runtime reads it again for each image),
// the columns and the output keep theirs.
#w4 = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#col4 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#out4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @shared_weight
// CHECK-SAME: (%[[W:.*]]: memref<16x27xbf16>, %[[COL:.*]]: memref<?x27x64xbf16>, %[[OUT:.*]]: memref<?x16x64xf32>)
// CHECK-NOT: linalg.fill
// CHECK: %[[A:.*]] = memref.expand_shape %[[W]] {{\[\[}}0, 1], [2]] output_shape [1, 16, 27]
// CHECK: call @magi_library_gemm_0(%[[A]], %[[COL]], %[[OUT]]) {magi.library = "gemm"} : (memref<1x16x27xbf16>, memref<?x27x64xbf16>, memref<?x16x64xf32>)
// CHECK-NOT: linalg.generic
func.func @shared_weight(%w: memref<16x27xbf16>, %col: memref<?x27x64xbf16>, %out: memref<?x16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<?x16x64xf32>)
  linalg.generic {indexing_maps = [#w4, #col4, #out4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%w, %col : memref<16x27xbf16>, memref<?x27x64xbf16>) outs(%out : memref<?x16x64xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// The same product with the images second in the columns ([k, n, position]):
// no batch leads both, so the op stays a kernel.
#w5 = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#col5 = affine_map<(d0, d1, d2, d3) -> (d3, d0, d2)>
#out5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @shared_weight_batch_inside
// CHECK-NOT: call
// CHECK: linalg.generic
func.func @shared_weight_batch_inside(%w: memref<16x27xf32>, %col: memref<27x?x64xf32>, %out: memref<?x16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<?x16x64xf32>)
  linalg.generic {indexing_maps = [#w5, #col5, #out5], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%w, %col : memref<16x27xf32>, memref<27x?x64xf32>) outs(%out : memref<?x16x64xf32>) {
  ^bb0(%in: f32, %in_1: f32, %acc: f32):
    %0 = arith.mulf %in, %in_1 : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}
