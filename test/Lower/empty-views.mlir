// A view of a tensor with a static size 0 has no elements to move: it
// lowers to an empty tensor of the view's sizes (collapsing [?, 0, ?] gave
// a collapse_shape that canonicalized into an invalid one).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import json; open('%t/x.bin', 'wb').close(); json.dump({'shape': [2, 0, 3], 'dtype': 'float32'}, open('%t/x.json', 'w'))"
// RUN: magi-opt %s --magi-lower-to-linalg | FileCheck %s --check-prefix=IR
// RUN: magi-interp %s --input=%t/x.bin | FileCheck %s
// RUN: magi-interp %s --input=%t/x.bin --lowered-pieces | FileCheck %s

// IR-LABEL: func.func @main
// IR-NOT: tensor.collapse_shape
// IR: tensor.empty(%{{.*}}) : tensor<?xf32>
// IR-NOT: tensor.collapse_shape

// CHECK: out0: tensor<0xf32> = []
func.func @main(%x: tensor<?x0x?xf32>) -> tensor<?xf32> {
  %y = magi.view %x [-1] : tensor<?x0x?xf32> -> tensor<?xf32>
  return %y : tensor<?xf32>
}
