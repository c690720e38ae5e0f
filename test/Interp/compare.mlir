// --fixture: inputs from PREFIX_inN, outputs compared with PREFIX_outN by the
// norm-wise relative error; integer outputs must match exactly.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/tensors.py bin %t/ok_in0 float32 4 1,2,3,4
// RUN: %python %S/Inputs/tensors.py bin %t/ok_out0 float32 4 2,4,6,8
// RUN: %python %S/Inputs/tensors.py bin %t/ok_out1 int64 "" 10
// RUN: magi-interp %s --fixture %t/ok | FileCheck %s --check-prefix=OK
// OK:      out0: rel_err=0.000e+00 OK
// OK-NEXT: out1: rel_err=0.000e+00 OK
// OK-NOT:  out2

// Off by 1e-3 in one element: rel_err = 1e-3 / 10.955 = 9.128e-05 passes
// the f32 bar of 1e-4; 2e-3 fails it unless --tolerance raises the bar.
// RUN: cp %t/ok_in0.bin %t/near_in0.bin && cp %t/ok_in0.json %t/near_in0.json
// RUN: cp %t/ok_out1.bin %t/near_out1.bin && cp %t/ok_out1.json %t/near_out1.json
// RUN: %python %S/Inputs/tensors.py bin %t/near_out0 float64 4 2,4,6,8.001
// RUN: not magi-interp %s --fixture %t/near | FileCheck %s --check-prefix=DTYPE
// DTYPE: out0: rel_err=9.128e-05 FAIL (dtype float32, reference float64)
// RUN: %python %S/Inputs/tensors.py bin %t/near_out0 float32 4 2,4,6,8.001
// RUN: magi-interp %s --fixture %t/near | FileCheck %s --check-prefix=NEAR
// NEAR: out0: rel_err=9.{{[0-9]+}}e-05 OK
// RUN: %python %S/Inputs/tensors.py bin %t/near_out0 float32 4 2,4,6,8.002
// RUN: not magi-interp %s --fixture %t/near | FileCheck %s --check-prefix=FAR
// FAR:      out0: rel_err=1.8{{[0-9]+}}e-04 FAIL
// FAR-NEXT: out1: rel_err=0.000e+00 OK
// RUN: magi-interp %s --fixture %t/near --tolerance=1e-3 | FileCheck %s --check-prefix=LOOSE
// LOOSE: out0: rel_err=1.8{{[0-9]+}}e-04 OK

// Integers: any difference fails, whatever the tolerance.
// RUN: %python %S/Inputs/tensors.py bin %t/near_out1 int64 "" 11
// RUN: not magi-interp %s --fixture %t/near --tolerance=1 | FileCheck %s --check-prefix=INT
// INT: out1: rel_err=9.091e-02 FAIL (integer outputs must match exactly)

// A shape that differs from the reference fails.
// RUN: %python %S/Inputs/tensors.py bin %t/near_out1 int64 1 10
// RUN: not magi-interp %s --fixture %t/near | FileCheck %s --check-prefix=SHAPE
// SHAPE: out1: rel_err=inf FAIL (shape [], reference [1])

// Missing or extra files.
// RUN: not magi-interp %s --fixture %t/nothing/case0 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: magi-interp: error: no fixture at '{{.*}}nothing/case0': neither '{{.*}}nothing/case0_in0.json' nor '{{.*}}nothing/case0_out0.json' exists
// RUN: rm %t/near_out1.json
// RUN: not magi-interp %s --fixture %t/near 2>&1 | FileCheck %s --check-prefix=REFS
// REFS: magi-interp: error: the graph has 2 output(s), but the fixture has 1 reference output(s) ('{{.*}}near_outN.json')
// RUN: rm %t/ok_in0.bin
// RUN: not magi-interp %s --fixture %t/ok 2>&1 | FileCheck %s --check-prefix=NOBIN
// NOBIN: magi-interp: error: cannot read '{{.*}}ok_in0.bin': {{[Nn]}}o such file or directory
// RUN: not magi-interp %s --fixture %t/ok --input %t/x.npy 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: magi-interp: error: give user inputs either with --fixture or with --input, not both

func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<i64>) {
  %two = arith.constant 2 : i64
  %y = magi.mul %x, %two : (tensor<4xf32>, i64) -> tensor<4xf32>
  %s = magi.sum %x {dtype = i64} : (tensor<4xf32>) -> tensor<i64>
  return %y, %s : tensor<4xf32>, tensor<i64>
}
