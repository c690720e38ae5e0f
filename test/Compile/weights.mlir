// Weights by reference: the artifact names where each weight lives (its
// archive, relative to the artifact; the entry, method, range, CRC-32 and
// view) and magi-compile never holds the bytes: a 320 MiB weight compiles in
// far less memory than its size, referenced or packed (streamed in chunks).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make-weight-archive.py %t/big.zip big/data/weights/w 320
// RUN: %peak_rss 200 magi-compile %S/Inputs/big-weight.mlir --weights %t/big.zip -o %t/ref --cache-mode=off --no-cubin --quiet | FileCheck %s --check-prefix=RSS
// RUN: FileCheck %s --check-prefix=REF --input-file=%t/ref/manifest.json
// RUN: not ls %t/ref/weights.bin
// RUN: %peak_rss 200 magi-compile %S/Inputs/big-weight.mlir --weights %t/big.zip -o %t/packed --pack-weights --cache-mode=off --no-cubin --quiet | FileCheck %s --check-prefix=RSS
// RUN: FileCheck %s --check-prefix=PACKED --input-file=%t/packed/manifest.json
// RUN: %python -c "import os,sys; sys.exit(os.path.getsize(sys.argv[1]) != 320 << 20)" %t/packed/weights.bin

// RSS: peak-rss: under {{[0-9]+}} MiB

// REF:      "weight": {
// REF-NEXT:   "bytes": 335544320,
// REF-NEXT:   "crc32": {{[0-9]+}},
// REF-NEXT:   "entry": "big/data/weights/w",
// REF-NEXT:   "file": 0,
// REF-NEXT:   "method": "stored",
// REF-NEXT:   "offset": {{[0-9]+}},
// REF-NEXT:   "storage_offset": 0,
// REF-NEXT:   "stored_bytes": 335544320,
// REF-NEXT:   "strides": [
// REF-NEXT:     1
// REF-NEXT:   ]
// REF: "version": 14,
// REF-NEXT: "weights": {
// REF-NEXT:   "files": [
// REF-NEXT:     {
// REF-NEXT:       "bytes": {{[0-9]+}},
// REF-NEXT:       "path": "../big.zip"

// PACKED:      "weight": {
// PACKED-NEXT:   "bytes": 335544320,
// PACKED-NEXT:   "crc32": {{[0-9]+}},
// PACKED-NEXT:   "file": 0,
// PACKED-NEXT:   "method": "stored",
// PACKED-NEXT:   "offset": 0,
// PACKED:      "path": "weights.bin"

// A damaged or missing archive is refused, naming it; so is a weight whose
// view does not fit its entry.
// RUN: head -c 1000 %t/big.zip > %t/truncated.zip
// RUN: not magi-compile %S/Inputs/big-weight.mlir --weights %t/truncated.zip -o %t/bad --cache-mode=off --no-cubin 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: error: {{.*}}truncated.zip: not a zip archive (no end-of-central-directory record)
// RUN: %python %S/Inputs/make-weight-archive.py %t/small.zip big/data/weights/w 1
// RUN: not magi-compile %S/Inputs/big-weight.mlir --weights %t/small.zip -o %t/bad --cache-mode=off --no-cubin 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: error: argument 1 ('w'): its view of entry 'big/data/weights/w' reaches byte 335544320 of storage that holds 1048576
// RUN: %python %S/Inputs/make-weight-archive.py %t/other.zip big/data/weights/other 1
// RUN: not magi-compile %S/Inputs/big-weight.mlir --weights %t/other.zip -o %t/bad --cache-mode=off --no-cubin 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: argument 1 ('w'): {{.*}}other.zip has no entry 'big/data/weights/w'
