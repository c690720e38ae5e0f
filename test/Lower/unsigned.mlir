// Unsigned tensors (torch.uint8). arith takes signless integers only, so
// magi-lower-to-linalg computes every op that reads or makes uint8 in i16
// (its uint8 operands zero-extended, its uint8 results truncated back: the
// low byte is PyTorch's wrap-around), then makes every uint8 tensor i8, the
// signature's too. Only to_copy converts across uint8: zero-extension from
// it, and from a float through i64 as PyTorch does (-1.0 becomes 255).
// RUN: magi-opt %s --magi-lower-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @wraps(
// CHECK-SAME:      %[[X:.*]]: tensor<4xi8>) -> tensor<4xi8>
// CHECK:         %[[WIDE:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4xi8>) outs({{.*}} : tensor<4xi16>)
// CHECK:           arith.extui %{{.*}} : i8 to i16
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[WIDE]] : tensor<4xi16>) outs({{.*}} : tensor<4xi16>)
// CHECK:           arith.addi %{{.*}} : i16
// CHECK:         %[[LOW:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<4xi16>) outs({{.*}} : tensor<4xi8>)
// CHECK:           arith.trunci %{{.*}} : i16 to i8
// CHECK:         return %[[LOW]] : tensor<4xi8>
func.func @wraps(%x: tensor<4xui8>) -> tensor<4xui8> {
  %ten = arith.constant 10 : i64
  %s = magi.add %x, %ten : (tensor<4xui8>, i64) -> tensor<4xui8>
  return %s : tensor<4xui8>
}

// An unsigned comparison, with the constant in i16 (100 is negative in i8).
// CHECK-LABEL: func.func @compares(
// CHECK:           arith.extui %{{.*}} : i8 to i16
// CHECK:           %[[C:.*]] = arith.trunci %{{.*}} : i64 to i16
// CHECK-NEXT:      arith.cmpi sgt, %{{.*}}, %[[C]] : i16
func.func @compares(%x: tensor<4xui8>) -> tensor<4xi1> {
  %hundred = arith.constant 100 : i64
  %gt = magi.gt %x, %hundred : (tensor<4xui8>, i64) -> tensor<4xi1>
  return %gt : tensor<4xi1>
}

// CHECK-LABEL: func.func @casts(
// CHECK-SAME:      tensor<4xi8>, %{{.*}}: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi8>)
// CHECK:           arith.uitofp %{{.*}} : i8 to f32
// CHECK:           %[[I:.*]] = arith.fptosi %{{.*}} : f32 to i64
// CHECK-NEXT:      arith.trunci %[[I]] : i64 to i8
func.func @casts(%x: tensor<4xui8>, %f: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xui8>) {
  %xf = magi.to_copy %x {dtype = f32} : (tensor<4xui8>) -> tensor<4xf32>
  %fu = magi.to_copy %f {dtype = ui8} : (tensor<4xf32>) -> tensor<4xui8>
  return %xf, %fu : tensor<4xf32>, tensor<4xui8>
}

// A uint8 result of an op with a dtype attribute: made in i16, then narrowed.
// CHECK-LABEL: func.func @full(
// CHECK:         linalg.fill ins(%{{.*}} : i16) outs(%{{.*}} : tensor<2xi16>)
// CHECK:           arith.trunci %{{.*}} : i16 to i8
func.func @full() -> tensor<2xui8> {
  %f = magi.full [2] {fill_value = 200 : i64, dtype = ui8} : tensor<2xui8>
  return %f : tensor<2xui8>
}

// End to end on the CPU (the archive's values by hand: x = [250, 3, 128, 0],
// f = [-1, 300.5, 2.7, -7.9]): x + 10 wraps (260 is 4), x > 100 reads 250
// and 128 as large, f to uint8 through int64 (300 is 44, -7 is 249), amax,
// floor division by 3, and x.float() / 255.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Import/Inputs/op_archive.py %fixtures/llama-f32/model.pt2 %t/uint8.pt2 @%S/../Import/Inputs/uint8.spec
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/x.npy uint8 4 250,3,128,0
// RUN: %python %S/../Interp/Inputs/tensors.py npy %t/f.npy float32 4 -1,300.5,2.7,-7.9
// RUN: magi-interp %t/uint8.pt2 --input %t/x.npy --input %t/f.npy | FileCheck %s --check-prefix=VALUES
// RUN: magi-interp %t/uint8.pt2 --input %t/x.npy --input %t/f.npy --lowered-pieces | FileCheck %s --check-prefix=VALUES
// VALUES-LABEL: out0: tensor<4xui8> = [4, 13, 138, 10]
// VALUES-NEXT: out1: tensor<4xi1> = [true, false, true, false]
// VALUES-NEXT: out2: tensor<4xui8> = [255, 44, 2, 249]
// VALUES-NEXT: out3: tensor<ui8> = 250
// VALUES-NEXT: out4: tensor<4xui8> = [83, 1, 42, 0]
// VALUES-NEXT: out5: tensor<4xf32> = [0.98039216, 0.011764706, 0.5019608, 0]
// And for the GPU, to PTX.
// RUN: magi-compile %t/uint8.pt2 -o %t/artifact --no-cubin --cache-mode=off --quiet
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/artifact/pieces/piece_0.ptx
// PTX: cvt.rzi.s64.f32
// PTX: cvt.rn.f32.u32
