// User inputs from .npy and .bin/.json files, checked against the signature;
// symbolic sizes bound from the inputs' actual sizes.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/tensors.py npy %t/x3.npy float32 1,3 1.5,2,-3
// RUN: %python %S/Inputs/tensors.py npy %t/x3v2.npy float32 1,3 1.5,2,-3 --version 2
// RUN: %python %S/Inputs/tensors.py npy %t/ids3.npy int64 1,3 2,0,-1
// RUN: %python %S/Inputs/tensors.py npy %t/ids4.npy int64 1,4 2,0,-1,1
// RUN: %python %S/Inputs/tensors.py npy %t/x1.npy float32 1,1 1
// RUN: %python %S/Inputs/tensors.py npy %t/x23.npy float32 2,3 1,2,3,4,5,6
// RUN: %python %S/Inputs/tensors.py npy %t/x9.npy float32 1,9 1,2,3,4,5,6,7,8,9

// RUN: magi-interp %s --function=main --input %t/x3.npy --input %t/ids3.npy | FileCheck %s --check-prefix=MAIN
// RUN: magi-interp %s --function=main --input %t/x3v2.npy --input %t/ids3.npy | FileCheck %s --check-prefix=MAIN
// MAIN:      out0: tensor<1x3xf32> = {{\[}}[3, 0, 3]]
// MAIN-NEXT: out1: tensor<1x4xi64> = {{\[}}[0, 1, 2, 3]]

// A wrong dtype, shape or count of inputs is an error.
// RUN: not magi-interp %s --function=main --input %t/x3.npy --input %t/x3.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: magi-interp: error: argument 1 ('ids') has dtype 'f32', but the graph expects 'i64'
// RUN: not magi-interp %s --function=main --input %t/x23.npy --input %t/ids3.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: magi-interp: error: argument 0 ('x') has shape [2, 3], but the graph expects 'tensor<1x?xf32>'
// RUN: not magi-interp %s --function=main --input %t/x3.npy 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: magi-interp: error: the graph takes 2 user input(s), got 1
// RUN: not magi-interp %s --function=main 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: magi-interp: error: the graph takes 2 user input(s), got 0

// Symbols are checked against their ranges and every binding.
// RUN: not magi-interp %s --function=main --input %t/x1.npy --input %t/ids3.npy 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: magi-interp: error: symbol 's0' would be 1, outside its range [2, 8] at {{.*}}inputs.mlir:{{[0-9]+}}:3
// RUN: not magi-interp %s --function=main --input %t/x9.npy --input %t/ids3.npy 2>&1 | FileCheck %s --check-prefix=RANGE9
// RANGE9: magi-interp: error: symbol 's0' would be 9, outside its range [2, 8]
// RUN: not magi-interp %s --function=main --input %t/x3.npy --input %t/ids4.npy 2>&1 | FileCheck %s --check-prefix=BIND
// BIND: magi-interp: error: dimension 1 has size 4, but it is bound to s0 = 3 at {{.*}}inputs.mlir:{{[0-9]+}}:3

func.func @main(%x: tensor<1x?xf32> {magi.input_kind = "user_input", magi.name = "x"},
                %ids: tensor<1x?xi64> {magi.input_kind = "user_input", magi.name = "ids"})
    -> (tensor<1x?xf32>, tensor<1x?xi64>) {
  %s0 = magi.symbolic_int "s0" min 2 max 8
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : index
  %onei = arith.constant 1 : i64
  magi.bind_symbolic_shape %x, [%s0], affine_map<()[s0] -> (1, s0)> : tensor<1x?xf32>
  magi.bind_symbolic_shape %ids, [%s0], affine_map<()[s0] -> (1, s0)> : tensor<1x?xi64>
  // [1.5, 2, -3] * [2, 0, -1]
  %y = magi.mul %x, %ids : (tensor<1x?xf32>, tensor<1x?xi64>) -> tensor<1x?xf32>
  %n1 = magi.sym_add %s0, %one
  %r = magi.arange %zero, %n1, %onei {dtype = i64} : (i64, index, i64) -> tensor<?xi64>
  %rv = magi.view %r [1, %n1] : tensor<?xi64> -> tensor<1x?xi64>
  magi.bind_symbolic_shape %rv, [%s0], affine_map<()[s0] -> (1, s0 + 1)> : tensor<1x?xi64>
  return %y, %rv : tensor<1x?xf32>, tensor<1x?xi64>
}

// A symbol bound only through an expression is solved for: 2 * s0 + 1 = 7
// gives s0 = 3; an even size has no solution.
// RUN: %python %S/Inputs/tensors.py npy %t/v7.npy float32 7 0,1,2,3,4,5,6
// RUN: %python %S/Inputs/tensors.py npy %t/v6.npy float32 6 0,1,2,3,4,5
// RUN: magi-interp %s --function=solve --input %t/v7.npy | FileCheck %s --check-prefix=SOLVE
// SOLVE: out0: tensor<3xf32> = [1, 3, 5]
// RUN: not magi-interp %s --function=solve --input %t/v6.npy 2>&1 | FileCheck %s --check-prefix=NOSOLVE
// NOSOLVE: magi-interp: error: dimension 0 has size 6, which s0 * 2 + 1 cannot take
func.func @solve(%v: tensor<?xf32>) -> tensor<?xf32> {
  %s0 = magi.symbolic_int "s0" min 1
  magi.bind_symbolic_shape %v, [%s0], affine_map<()[s0] -> (s0 * 2 + 1)> : tensor<?xf32>
  %two = arith.constant 2 : index
  %end = magi.sym_mul %s0, %two
  %odd = magi.slice %v, 0 [1, %end, 2] : tensor<?xf32> -> tensor<?xf32>
  return %odd : tensor<?xf32>
}

// bf16 inputs come from .bin/.json; outputs save as .bin/.json and as .npy
// (bf16 widened to float32, with a note).
// RUN: %python %S/Inputs/tensors.py bin %t/h bfloat16 2,2 1,2.5,-3,0.1
// RUN: magi-interp %s --function=half --input %t/h.bin --save-outputs %t/out --save-outputs-npy %t/npy 2>&1 | FileCheck %s --check-prefix=HALF
// HALF: note: out0 is bfloat16, which NumPy lacks; '{{.*}}out0.npy' holds it as float32
// HALF: out0: tensor<2x2xbf16> = {{\[}}[2, 5], [-6, 0.2]]
// HALF: out1: tensor<2xi64> = [1, 0]
// RUN: %python %S/Inputs/tensors.py show %t/out/out0.bin | FileCheck %s --check-prefix=SAVED
// SAVED: bfloat16 [2, 2] [2.0, 5.0, -6.0, 0.2001953125]
// RUN: %python %S/Inputs/tensors.py show %t/npy/out0.npy | FileCheck %s --check-prefix=NPY0
// NPY0: npy v1 <f4 [2, 2] [2.0, 5.0, -6.0, 0.2001953125]
// RUN: %python %S/Inputs/tensors.py show %t/npy/out1.npy | FileCheck %s --check-prefix=NPY1
// NPY1: npy v1 <i8 [2] [1, 0]
func.func @half(%h: tensor<2x2xbf16>) -> (tensor<2x2xbf16>, tensor<2xi64>) {
  %two = arith.constant 2.0 : f64
  %d = magi.mul %h, %two : (tensor<2x2xbf16>, f64) -> tensor<2x2xbf16>
  %pos = magi.gt %h, %two : (tensor<2x2xbf16>, f64) -> tensor<2x2xi1>
  %count = magi.sum %pos {dims = array<i64: 1>} : (tensor<2x2xi1>) -> tensor<2xi64>
  return %d, %count : tensor<2x2xbf16>, tensor<2xi64>
}

// Malformed .npy files.
// RUN: %python %S/Inputs/tensors.py npy-header %t/big.npy "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }"
// RUN: not magi-interp %s --function=half --input %t/big.npy 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: magi-interp: error: '{{.*}}big.npy': unsupported .npy dtype '>f4' (supported: <f8 <f4 <f2 <i8 <i4 <i2 |i1 |u1 |b1)
// RUN: %python %S/Inputs/tensors.py npy-header %t/fortran.npy "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }"
// RUN: not magi-interp %s --function=half --input %t/fortran.npy 2>&1 | FileCheck %s --check-prefix=FORTRAN
// FORTRAN: magi-interp: error: '{{.*}}fortran.npy': .npy data in Fortran order is not supported
// RUN: %python %S/Inputs/tensors.py npy-header %t/short.npy "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }"
// RUN: not magi-interp %s --function=half --input %t/short.npy 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: magi-interp: error: '{{.*}}short.npy': .npy data: holds 0 bytes, but shape [2, 2] of float32 needs 16
// RUN: not magi-interp %s --function=half --input %t/missing.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: magi-interp: error: cannot read '{{.*}}missing.npy': {{[Nn]}}o such file or directory

// A .json beside a .bin nested 100k deep used to overflow the stack in
// llvm::json::parse; a linear scan refuses more than 512 levels first.
// RUN: %python -c "print('[' * 100000 + ']' * 100000)" > %t/deep.json
// RUN: cp %t/h.bin %t/deep.bin
// RUN: not magi-interp %s --function=half --input %t/deep.bin 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: magi-interp: error: '{{.*}}deep.json' nests arrays and objects deeper than 512 levels (at byte 512)
