// The atomic updates of scatter reductions and index_put with accumulate
// through Magi's GPU half to PTX for sm_90, which ptxas must accept: one
// thread an update; a bf16 add is the hardware's atom.add.noftz.bf16, a
// bf16 max and a product compare-and-swap loops (LLVM widens the 16-bit
// swap to 32 bits), an i32 add atom.add.u32.
// REQUIRES: ptxas
// RUN: magi-opt %s --magi-lower-to-linalg="fail-on-unconverted" \
// RUN: | magi-opt --magi-gpu-pipeline="chip=sm_90 features=+ptx80" \
// RUN: | python3 %S/Inputs/extract-ptx.py %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas --gpu-name sm_90 %t.ptx -o %t.cubin

// CHECK: .entry [[ADD:k[0-9]+]](
// CHECK: atom.global.add.noftz.bf16
// CHECK: .entry [[MAX:k[0-9]+]](
// CHECK: max.NaN.bf16
// CHECK: atom.{{.*}}global.cas.b32
// CHECK: .entry [[PRODUCT:k[0-9]+]](
// CHECK: mul.rn.bf16
// CHECK: atom.{{.*}}global.cas.b32
// CHECK: .entry [[PUT:k[0-9]+]](
// CHECK: atom.global.add.u32
func.func @main(%x: tensor<?x64xbf16>, %i: tensor<?x64xi64>, %s: tensor<?x64xbf16>,
                %c: tensor<16x4xi32>, %rows: tensor<8xi64>, %v: tensor<8x4xi32>)
    -> (tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<16x4xi32>) {
  %a = magi.scatter %x, %i, %s {dim = 0 : i64, reduce = "add"} : (tensor<?x64xbf16>, tensor<?x64xi64>, tensor<?x64xbf16>) -> tensor<?x64xbf16>
  %b = magi.scatter %x, %i, %s {dim = 0 : i64, reduce = "amax"} : (tensor<?x64xbf16>, tensor<?x64xi64>, tensor<?x64xbf16>) -> tensor<?x64xbf16>
  %p = magi.scatter %x, %i, %s {dim = 0 : i64, reduce = "multiply"} : (tensor<?x64xbf16>, tensor<?x64xi64>, tensor<?x64xbf16>) -> tensor<?x64xbf16>
  %q = magi.index_put %c[%rows], %v {indexed_dims = array<i64: 0>, accumulate = true} : (tensor<16x4xi32>, tensor<8xi64>, tensor<8x4xi32>) -> tensor<16x4xi32>
  return %a, %b, %p, %q : tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<16x4xi32>
}
