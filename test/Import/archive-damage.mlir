// Zip headers that lie, and data that does not match them: one clear error
// naming the entry, before anything is allocated for the claim.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t

// A stored entry holds what it stores, whatever its header claims (a claim
// of 2^62 bytes used to abort with std::length_error).
// RUN: %python %S/Inputs/damage_zip.py %fixtures/llama-f32/model.pt2 %t/huge.pt2 claim-size model/models/model.json 4611686018427387904
// RUN: not magi-import %t/huge.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: test ! -e %t/out.mlir
// HUGE: huge.pt2:0:0: error: entry 'model/models/model.json' is truncated: its header claims 4611686018427387904 bytes, but it stores only {{[0-9]+}}{{$}}

// A deflated entry inflates at most 1032 times its compressed size: 5 GiB
// and 2^62 byte claims are refused before reading.
// RUN: %python %S/Inputs/damage_zip.py %fixtures/llama-f32/model.pt2 %t/bomb.pt2 deflate model/models/model.json 5368709120
// RUN: not magi-import %t/bomb.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=BOMB
// RUN: test ! -e %t/out.mlir
// BOMB: error: entry 'model/models/model.json' claims 5368709120 bytes, more than its {{[0-9]+}} compressed bytes can inflate to
// RUN: %python %S/Inputs/damage_zip.py %fixtures/llama-f32/model.pt2 %t/bomb62.pt2 deflate model/models/model.json 4611686018427387904
// RUN: not magi-import %t/bomb62.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=BOMB62
// BOMB62: error: entry 'model/models/model.json' claims 4611686018427387904 bytes, more than its {{[0-9]+}} compressed bytes can inflate to

// An honest deflated entry reads as a stored one.
// RUN: %python %S/Inputs/damage_zip.py %fixtures/llama-f32/model.pt2 %t/deflated.pt2 deflate model/models/model.json
// RUN: magi-import %t/deflated.pt2 -o %t/deflated.mlir
// RUN: magi-import %fixtures/llama-f32/model.pt2 -o %t/stored.mlir
// RUN: sed 's/deflated.pt2/model.pt2/g' %t/deflated.mlir | diff - %t/stored.mlir

// Weights are not read by the importer, but their claims are checked.
// RUN: %python %S/Inputs/damage_zip.py %fixtures/llama-f32/model.pt2 %t/weight5g.pt2 claim-size model/data/weights/weight_0 5368709120
// RUN: not magi-import %t/weight5g.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=WEIGHT
// RUN: test ! -e %t/out.mlir
// WEIGHT: error: entry 'model/data/weights/weight_0' is truncated: its header claims 5368709120 bytes, but it stores only 262144

// JSON entries are capped (ImportOptions::maxJsonBytes, 1 GiB by default).
// RUN: not magi-import %fixtures/llama-f32/model.pt2 --max-json-bytes=100000 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=CAP
// RUN: test ! -e %t/out.mlir
// CAP: error: entry 'model/models/model.json' holds {{[0-9]+}} bytes, more than the limit of 100000 for a JSON entry (--max-json-bytes)

// Data shorter or longer than its header claims (this used to read "read N
// of M bytes (No error)", or pass unnoticed).
// RUN: %python %S/Inputs/damage_zip.py %fixtures/llama-f32/model.pt2 %t/short.pt2 deflate model/models/model.json 300000
// RUN: not magi-import %t/short.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: test ! -e %t/out.mlir
// SHORT: error: entry 'model/models/model.json' is truncated: it holds {{[0-9]+}} of the 300000 bytes its header claims
// RUN: %python %S/Inputs/damage_zip.py %fixtures/llama-f32/model.pt2 %t/long.pt2 claim-size model/models/model.json 1000
// RUN: not magi-import %t/long.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: test ! -e %t/out.mlir
// LONG: error: entry 'model/models/model.json' is damaged: it holds more than the 1000 bytes its header claims
// RUN: %python %S/Inputs/damage_zip.py %fixtures/llama-f32/model.pt2 %t/longdeflated.pt2 deflate model/models/model.json 1000
// RUN: not magi-import %t/longdeflated.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=LONG

// A CRC-32 mismatch in any entry read (libzip checks it at the entry's end).
// RUN: %python %S/Inputs/damage_zip.py %fixtures/llama-f32/model.pt2 %t/crc.pt2 flip-byte model/models/model.json
// RUN: not magi-import %t/crc.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=CRC
// RUN: test ! -e %t/out.mlir
// CRC: error: entry 'model/models/model.json' is damaged: its data does not match its CRC-32
// RUN: %python %S/Inputs/damage_zip.py %fixtures/llama-f32/model.pt2 %t/crcconfig.pt2 flip-byte model/data/weights/model_weights_config.json
// RUN: not magi-import %t/crcconfig.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=CRCCONFIG
// CRCCONFIG: error: entry 'model/data/weights/model_weights_config.json' is damaged: its data does not match its CRC-32

// Two entries of one name (libzip says only "File already exists").
// RUN: %python %S/Inputs/damage_zip.py %fixtures/llama-f32/model.pt2 %t/dup.pt2 duplicate model/data/weights/weight_3
// RUN: not magi-import %t/dup.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=DUP
// RUN: test ! -e %t/out.mlir
// DUP: dup.pt2:0:0: error: cannot open '{{.*}}dup.pt2': the archive holds two entries named 'model/data/weights/weight_3'
