// Bad archives give one clear error, a nonzero exit and no output file.
// REQUIRES: fixtures
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo "not a zip" > %t/plain.pt2
// RUN: not magi-import %t/plain.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=NOTZIP
// RUN: test ! -e %t/out.mlir
// NOTZIP: plain.pt2:0:0: error: cannot open '{{.*}}plain.pt2' as a zip archive: Not a zip archive

// RUN: not magi-import %t/missing.pt2 2>&1 | FileCheck %s --check-prefix=MISSINGFILE
// MISSINGFILE: error: cannot open '{{.*}}missing.pt2' as a zip archive: No such file

// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/nojson.pt2 no-model-json
// RUN: not magi-import %t/nojson.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=NOJSON
// RUN: test ! -e %t/out.mlir
// NOJSON: error: missing entry 'model/models/model.json': this is not a torch.export archive

// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/schema7.pt2 schema7
// RUN: not magi-import %t/schema7.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=SCHEMA
// RUN: test ! -e %t/out.mlir
// SCHEMA: error: unsupported ExportedProgram schema version 7.3: Magi reads schema 8.x

// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/trunc.pt2 truncate-weight
// RUN: not magi-import %t/trunc.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=TRUNC
// RUN: test ! -e %t/out.mlir
// TRUNC: error: truncated weight data for 'm.model.embed_tokens.weight': entry 'model/data/weights/weight_0' has 131072 bytes, needs 262144

// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/dtype.pt2 unknown-dtype
// RUN: not magi-import %t/dtype.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: test ! -e %t/out.mlir
// DTYPE: error: unsupported dtype code 10 for tensor 'p_m_model_embed_tokens_weight'

// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/undef.pt2 undefined-value
// RUN: not magi-import %t/undef.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=UNDEF
// RUN: test ! -e %t/out.mlir
// UNDEF: error: node 'sym_size_int_50 (torch.ops.aten.sym_size.int)': reference to undefined value 'no_such_value'
