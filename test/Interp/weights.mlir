// Parameters, buffers and constants come from a torch.export archive through
// their magi.weight = {entry, offset (bytes), strides (elements)} attribute.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/tensors.py zip %t/model.pt2 m/data/weights/w0=float32:0,1,2,3,4,5,6,7 m/data/weights/w1=bfloat16:0.5,-1 m/data/constants/c0=int64:7,8,9 m/version=uint8:1
// RUN: %python %S/Inputs/tensors.py npy %t/x.npy float32 3 1,1,1
// RUN: magi-interp %s --weights %t/model.pt2 --input %t/x.npy | FileCheck %s
// CHECK:      out0: tensor<2x3xf32> = {{\[}}[2, 4, 6], [3, 5, 7]]
// CHECK-NEXT: out1: tensor<2xbf16> = [0.5, -1]
// CHECK-NEXT: out2: tensor<i64> = 9
// CHECK-NEXT: out3: tensor<2xf32> = [12, 15]

func.func @main(
    // Element (i, j) is float number 2 + i + 2 j of the entry: a transposed,
    // offset view of its storage.
    %w: tensor<2x3xf32> {magi.input_kind = "parameter", magi.name = "w",
                         magi.weight = {entry = "m/data/weights/w0", offset = 8 : i64, strides = array<i64: 1, 2>}},
    // Entry names may leave out the archive's folder.
    %b: tensor<2xbf16> {magi.input_kind = "buffer", magi.name = "b",
                        magi.weight = {entry = "data/weights/w1", offset = 0 : i64, strides = array<i64: 1>}},
    %c: tensor<i64> {magi.input_kind = "constant", magi.name = "c",
                     magi.weight = {entry = "m/data/constants/c0", offset = 16 : i64, strides = array<i64>}},
    %x: tensor<3xf32> {magi.input_kind = "user_input", magi.name = "x"})
    -> (tensor<2x3xf32>, tensor<2xbf16>, tensor<i64>, tensor<2xf32>) {
  %x2 = magi.unsqueeze %x {dim = 1 : i64} : (tensor<3xf32>) -> tensor<3x1xf32>
  %y = magi.mm %w, %x2 : (tensor<2x3xf32>, tensor<3x1xf32>) -> tensor<2x1xf32>
  %yv = magi.view %y [2] : tensor<2x1xf32> -> tensor<2xf32>
  return %w, %b, %c, %yv : tensor<2x3xf32>, tensor<2xbf16>, tensor<i64>, tensor<2xf32>
}

// RUN: not magi-interp %s --input %t/x.npy 2>&1 | FileCheck %s --check-prefix=NOARCHIVE
// NOARCHIVE: magi-interp: error: argument 0 ('w') is a weight, but no archive was given to read it from

// RUN: not magi-interp %s --function=outside --weights %t/model.pt2 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// OUTSIDE: magi-interp: error: argument 0 ('w'): the view (offset 12 bytes, strides [1, 2]) reaches bytes [12, 36) but entry 'm/data/weights/w0' holds 32 bytes
func.func @outside(
    %w: tensor<2x3xf32> {magi.input_kind = "parameter", magi.name = "w",
                         magi.weight = {entry = "m/data/weights/w0", offset = 12 : i64, strides = array<i64: 1, 2>}})
    -> tensor<2x3xf32> {
  return %w : tensor<2x3xf32>
}

// RUN: not magi-interp %s --function=no_entry --weights %t/model.pt2 2>&1 | FileCheck %s --check-prefix=NOENTRY
// NOENTRY: magi-interp: error: the archive has no entry 'm/data/weights/w9'
func.func @no_entry(
    %w: tensor<2xf32> {magi.input_kind = "parameter", magi.name = "w",
                       magi.weight = {entry = "m/data/weights/w9", offset = 0 : i64, strides = array<i64: 1>}})
    -> tensor<2xf32> {
  return %w : tensor<2xf32>
}

// RUN: not magi-interp %s --function=no_attr --weights %t/model.pt2 2>&1 | FileCheck %s --check-prefix=NOATTR
// NOATTR: magi-interp: error: argument 0 ('w') has no magi.weight attribute saying where its data is
func.func @no_attr(%w: tensor<2xf32> {magi.input_kind = "parameter", magi.name = "w"}) -> tensor<2xf32> {
  return %w : tensor<2xf32>
}

// RUN: not magi-interp %s --weights %t/x.npy --input %t/x.npy 2>&1 | FileCheck %s --check-prefix=NOTZIP
// NOTZIP: magi-interp: error: cannot open '{{.*}}x.npy' as a zip archive: {{.*}}

// Weight entries are checked as they are read: their CRC-32, and their size
// against what the archive stores.
// RUN: %python %S/../Import/Inputs/damage_zip.py %t/model.pt2 %t/crc.pt2 flip-byte m/data/weights/w0
// RUN: not magi-interp %s --weights %t/crc.pt2 --input %t/x.npy 2>&1 | FileCheck %s --check-prefix=CRC
// CRC: magi-interp: error: entry 'm/data/weights/w0' is damaged: its data does not match its CRC-32
// RUN: %python %S/../Import/Inputs/damage_zip.py %t/model.pt2 %t/claim.pt2 claim-size m/data/weights/w0 5368709120
// RUN: not magi-interp %s --weights %t/claim.pt2 --input %t/x.npy 2>&1 | FileCheck %s --check-prefix=CLAIM
// CLAIM: magi-interp: error: entry 'm/data/weights/w0' is truncated: its header claims 5368709120 bytes, but it stores only 32
// RUN: %python %S/../Import/Inputs/damage_zip.py %t/model.pt2 %t/bomb.pt2 deflate m/data/weights/w0 4611686018427387904
// RUN: not magi-interp %s --weights %t/bomb.pt2 --input %t/x.npy 2>&1 | FileCheck %s --check-prefix=BOMB
// BOMB: magi-interp: error: entry 'm/data/weights/w0' claims 4611686018427387904 bytes, more than its {{[0-9]+}} compressed bytes can inflate to
// RUN: %python %S/../Import/Inputs/damage_zip.py %t/model.pt2 %t/deflated.pt2 deflate m/data/weights/w0
// RUN: magi-interp %s --weights %t/deflated.pt2 --input %t/x.npy | FileCheck %s

// A lying claim allocates no more than the data that really inflates: 4 MiB
// of deflated weight whose headers claim 3 GiB (plausible for deflate, which
// inflates up to 1032:1) is read to its real end, not allocated up front.
// RUN: %python -c "import os, zipfile; zipfile.ZipFile('%t/big.pt2', 'w').writestr('m/data/weights/w0', os.urandom(4 << 20))"
// RUN: %python %S/../Import/Inputs/damage_zip.py %t/big.pt2 %t/biglie.pt2 deflate m/data/weights/w0 3221225472
// RUN: not %peak_rss 1024 magi-interp %s --function=big --weights %t/biglie.pt2 | FileCheck %s --check-prefix=BIG
// BIG: magi-interp: error: entry 'm/data/weights/w0' is truncated: it holds 4194304 of the 3221225472 bytes its header claims
// BIG: peak-rss: under {{[0-9]+}} MiB
func.func @big(
    %w: tensor<1048576xf32> {magi.input_kind = "parameter", magi.name = "w",
                             magi.weight = {entry = "m/data/weights/w0", offset = 0 : i64, strides = array<i64: 1>}})
    -> tensor<1xf32> {
  %s = magi.slice %w, 0 [0, 1, 1] : tensor<1048576xf32> -> tensor<1xf32>
  return %s : tensor<1xf32>
}

// A concatenated weight (magi-merge-projections' magi.concat_of): its parts,
// read from the archive, one after another along dim 0.
// RUN: magi-interp %s --function=concat --weights %t/model.pt2 | FileCheck %s --check-prefix=CONCAT
// CONCAT: out0: tensor<3x2xf32> = {{\[}}[0, 1], [2, 3], [6, 7]]
func.func @concat(
    %a: tensor<2x2xf32> {magi.input_kind = "parameter", magi.name = "a",
                         magi.weight = {entry = "m/data/weights/w0", offset = 0 : i64, strides = array<i64: 2, 1>}},
    %b: tensor<1x2xf32> {magi.input_kind = "parameter", magi.name = "b",
                         magi.weight = {entry = "m/data/weights/w0", offset = 24 : i64, strides = array<i64: 2, 1>}},
    %ab: tensor<3x2xf32> {magi.input_kind = "parameter", magi.name = "a+b", magi.concat_of = ["a", "b"]})
    -> tensor<3x2xf32> {
  return %ab : tensor<3x2xf32>
}

// RUN: not magi-interp %s --function=concat_unknown --weights %t/model.pt2 2>&1 | FileCheck %s --check-prefix=CONCAT-UNKNOWN
// CONCAT-UNKNOWN: magi-interp: error: argument 1 ('a+z'): "z" names no weight argument read from the archive
func.func @concat_unknown(
    %a: tensor<2x2xf32> {magi.input_kind = "parameter", magi.name = "a",
                         magi.weight = {entry = "m/data/weights/w0", offset = 0 : i64, strides = array<i64: 2, 1>}},
    %az: tensor<3x2xf32> {magi.input_kind = "parameter", magi.name = "a+z", magi.concat_of = ["a", "z"]})
    -> tensor<3x2xf32> {
  return %az : tensor<3x2xf32>
}

// RUN: not magi-interp %s --function=concat_shape --weights %t/model.pt2 2>&1 | FileCheck %s --check-prefix=CONCAT-SHAPE
// CONCAT-SHAPE: magi-interp: error: argument 2 ('a+c'): part "c" of type 'tensor<2xf32>' does not concatenate along dim 0 into 'tensor<4x2xf32>'
func.func @concat_shape(
    %a: tensor<2x2xf32> {magi.input_kind = "parameter", magi.name = "a",
                         magi.weight = {entry = "m/data/weights/w0", offset = 0 : i64, strides = array<i64: 2, 1>}},
    %c: tensor<2xf32> {magi.input_kind = "parameter", magi.name = "c",
                       magi.weight = {entry = "m/data/weights/w0", offset = 0 : i64, strides = array<i64: 1>}},
    %ac: tensor<4x2xf32> {magi.input_kind = "parameter", magi.name = "a+c", magi.concat_of = ["a", "c"]})
    -> tensor<4x2xf32> {
  return %ac : tensor<4x2xf32>
}

// RUN: not magi-interp %s --function=concat_rows --weights %t/model.pt2 2>&1 | FileCheck %s --check-prefix=CONCAT-ROWS
// CONCAT-ROWS: magi-interp: error: argument 1 ('a+a'): its parts hold more than 'tensor<3x2xf32>'
func.func @concat_rows(
    %a: tensor<2x2xf32> {magi.input_kind = "parameter", magi.name = "a",
                         magi.weight = {entry = "m/data/weights/w0", offset = 0 : i64, strides = array<i64: 2, 1>}},
    %aa: tensor<3x2xf32> {magi.input_kind = "parameter", magi.name = "a+a", magi.concat_of = ["a", "a"]})
    -> tensor<3x2xf32> {
  return %aa : tensor<3x2xf32>
}

// RUN: not magi-interp %s --function=concat_few --weights %t/model.pt2 2>&1 | FileCheck %s --check-prefix=CONCAT-FEW
// CONCAT-FEW: magi-interp: error: argument 1 ('a+?'): its parts have 2 rows, not 3
func.func @concat_few(
    %a: tensor<2x2xf32> {magi.input_kind = "parameter", magi.name = "a",
                         magi.weight = {entry = "m/data/weights/w0", offset = 0 : i64, strides = array<i64: 2, 1>}},
    %ax: tensor<3x2xf32> {magi.input_kind = "parameter", magi.name = "a+?", magi.concat_of = ["a"]})
    -> tensor<3x2xf32> {
  return %ax : tensor<3x2xf32>
}

// RUN: not magi-interp %s --function=concat_empty --weights %t/model.pt2 2>&1 | FileCheck %s --check-prefix=CONCAT-NONE
// CONCAT-NONE: magi-interp: error: argument 0 ('none'): magi.concat_of needs a non-empty list of weight names
func.func @concat_empty(
    %n: tensor<3x2xf32> {magi.input_kind = "parameter", magi.name = "none", magi.concat_of = []})
    -> tensor<3x2xf32> {
  return %n : tensor<3x2xf32>
}
