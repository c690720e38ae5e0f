// Sizes, offsets and nesting from the archive are checked before anything
// computes with them: one clear error, a nonzero exit and no output file.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t

// JSON nested 100k deep used to overflow the stack in llvm::json::parse; it
// is refused by a linear scan first (up to 512 levels are read).
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/deep.pt2 deep-json 100000
// RUN: not magi-import %t/deep.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: test ! -e %t/out.mlir
// DEEP: error: entry 'model/models/model.json' nests arrays and objects deeper than 512 levels (at byte 520)
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/deep511.pt2 deep-json 511
// RUN: magi-import %t/deep511.pt2 -o %t/out.mlir
// RUN: rm %t/out.mlir

// Text that is not JSON is refused with the parser's line and column.
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/badjson.pt2 bad-json
// RUN: not magi-import %t/badjson.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=BADJSON
// RUN: test ! -e %t/out.mlir
// BADJSON: error: entry 'model/models/model.json' is not valid JSON: parse error at line 2, column 21: syntax error while parsing object key - unexpected '}'; expected string literal

// So did a sympy expression nested 100k deep.
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/deepexpr.pt2 deep-expr 100000
// RUN: not magi-import %t/deepexpr.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=DEEPEXPR
// RUN: test ! -e %t/out.mlir
// DEEPEXPR: error: the expr_str of size 1 of tensor 'input_ids' nests deeper than 256 levels

// Negative sizes (this used to write tensor<-5x128xf32>) and sizes whose
// bytes overflow int64.
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/negsize.pt2 weight-size -5
// RUN: not magi-import %t/negsize.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=NEGSIZE
// RUN: test ! -e %t/out.mlir
// NEGSIZE: error: negative size -5 in dimension 0 of tensor 'p_m_model_embed_tokens_weight'
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/bigsize.pt2 weight-size 2305843009213693952
// RUN: not magi-import %t/bigsize.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=BIGSIZE
// RUN: test ! -e %t/out.mlir
// BIGSIZE: error: the sizes of tensor 'p_m_model_embed_tokens_weight' need more than 2^63 bytes

// A storage offset or stride of 2^62 used to wrap the bytes a weight needs.
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/bigoffset.pt2 weight-offset 4611686018427387904
// RUN: not magi-import %t/bigoffset.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=BIGSTEP
// RUN: test ! -e %t/out.mlir
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/bigstride.pt2 weight-stride 4611686018427387904
// RUN: not magi-import %t/bigstride.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=BIGSTEP
// RUN: test ! -e %t/out.mlir
// BIGSTEP: error: the storage offset and strides of 'm.model.embed_tokens.weight' reach past 2^63 bytes
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/negoffset.pt2 weight-offset -1
// RUN: not magi-import %t/negoffset.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=NEGOFFSET
// NEGOFFSET: error: 'm.model.embed_tokens.weight' has a negative storage offset -1
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/negstride.pt2 weight-stride -128
// RUN: not magi-import %t/negstride.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=NEGSTRIDE
// NEGSTRIDE: error: 'm.model.embed_tokens.weight' has a negative stride -128 in dimension 0
// A large offset that does not overflow is a plain truncation.
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/faroffset.pt2 weight-offset 576460752303423488
// RUN: not magi-import %t/faroffset.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=FAR
// FAR: error: truncated weight data for 'm.model.embed_tokens.weight': entry 'model/data/weights/weight_0' has 262144 bytes, needs 2305843009213956096
