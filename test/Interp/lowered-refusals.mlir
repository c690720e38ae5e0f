// --lowered-pieces on arguments the lowered code cannot check: the
// interpreter runs each piece first, so what it refuses (an index out of
// range, a slice step of 0) is an error naming the piece and is never run
// lowered (it used to read anywhere: segfaults, heap corruption); a lowered
// result of another shape than the interpreter's is an error too (an
// elementwise op whose dynamic sizes broadcast at run time, which the
// lowering assumes they never do). The interpreter itself refuses a result
// too large to hold.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/tensors.py npy %t/x.npy float32 2,3 1,2,3,4,5,6
// RUN: %python %S/Inputs/tensors.py npy %t/x3.npy float32 3 1,2,3
// RUN: %python %S/Inputs/tensors.py npy %t/one.npy float32 1 7
// RUN: %python %S/Inputs/tensors.py npy %t/n.npy int64 "" 4611686018427387904

// RUN: not magi-interp %s --function=select --input %t/x.npy --lowered-pieces 2>&1 | FileCheck %s --check-prefix=SELECT
// SELECT: error: index 1000000000 is out of range for dimension 1 of size 3
// SELECT: error: piece @select_piece_0 was not run lowered: the interpreter refuses its arguments
func.func @select(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %y = magi.select %x, 1 [1000000000] : tensor<?x?xf32> -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// RUN: not magi-interp %s --function=step0 --input %t/x3.npy --lowered-pieces 2>&1 | FileCheck %s --check-prefix=STEP
// STEP: error: slice step must be positive, got 0
// STEP: error: piece @step0_piece_0 was not run lowered
func.func @step0(%x: tensor<?xf32>) -> tensor<?xf32> {
  %n = magi.sym_size %x, 0 : tensor<?xf32>
  %z = arith.constant 0 : index
  %s = magi.sym_mul %n, %z
  %y = magi.slice %x, 0 [0, 9223372036854775807, %s] : tensor<?xf32> -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// RUN: magi-interp %s --function=broadcast --input %t/one.npy --input %t/x3.npy | FileCheck %s --check-prefix=BCAST
// BCAST: out0: tensor<3xf32> = [8, 9, 10]
// RUN: not magi-interp %s --function=broadcast --input %t/one.npy --input %t/x3.npy --lowered-pieces 2>&1 | FileCheck %s --check-prefix=BCAST-LOWERED
// BCAST-LOWERED: error: piece @broadcast_piece_0, lowered, gives result 0 the shape [1] where the interpreter gives [3]
func.func @broadcast(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %z = magi.add %x, %y : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %z : tensor<?xf32>
}

// RUN: not magi-interp %s --function=huge --input %t/n.npy 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: error: a result of shape [4611686018427387904] and dtype 'f32' holds more than the interpreter's limit of 16 GiB
func.func @huge(%n: index) -> tensor<?xf32> {
  %y = magi.full [%n] {fill_value = 1.0 : f64, dtype = f32} : tensor<?xf32>
  return %y : tensor<?xf32>
}

// RUN: not magi-interp %s --function=pad --input %t/x3.npy 2>&1 | FileCheck %s --check-prefix=PAD
// PAD: error: a result of shape [4611686018427387907] and dtype 'f32' holds more than the interpreter's limit of 16 GiB
func.func @pad(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c = arith.constant 4611686018427387904 : index
  %y = magi.constant_pad_nd %x [0, %c] {value = 0.0 : f64} : tensor<?xf32> -> tensor<?xf32>
  return %y : tensor<?xf32>
}
