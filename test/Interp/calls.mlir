// func.call runs the callee, as a split graph calls its pieces; arguments
// and results are checked at both ends.

// RUN: magi-interp %s | FileCheck %s
// CHECK:      out0: tensor<3xf32> = [2, 4, 6]
// CHECK-NEXT: out1: tensor<i64> = 3
func.func @main() -> (tensor<?xf32>, tensor<i64>) {
  %x = magi.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %n = magi.sym_size %x, 0 : tensor<3xf32>
  %xd = magi.view %x [%n] : tensor<3xf32> -> tensor<?xf32>
  %y, %m = call @piece(%xd, %n) : (tensor<?xf32>, index) -> (tensor<?xf32>, index)
  %t = magi.scalar_tensor %m {dtype = i64} : (index) -> tensor<i64>
  return %y, %t : tensor<?xf32>, tensor<i64>
}

func.func private @piece(%x: tensor<?xf32>, %n: index {magi.symbol = "s0"}) -> (tensor<?xf32>, index) {
  %y = magi.add %x, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %y, %n : tensor<?xf32>, index
}

// An error inside a callee names the call too.
// RUN: not magi-interp %s --function=bad_call 2>&1 | FileCheck %s --check-prefix=BAD
// BAD:      magi-interp: error: cannot view a tensor of shape [2] (2 elements) as [3] (3 elements) at {{.*}}calls.mlir:{{[0-9]+}}:8
// BAD-NEXT: magi-interp: error: in this call of @takes3 at {{.*}}calls.mlir:{{[0-9]+}}:8
func.func @bad_call() -> tensor<3xf32> {
  %x = magi.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %two = magi.sym_size %x, 0 : tensor<2xf32>
  %xd = magi.view %x [%two] : tensor<2xf32> -> tensor<?xf32>
  %y = call @takes3(%xd) : (tensor<?xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @takes3(%x: tensor<?xf32>) -> tensor<3xf32> {
  %y = magi.view %x [3] : tensor<?xf32> -> tensor<3xf32>
  return %y : tensor<3xf32>
}
