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

// A node whose arguments do not fit its target names the node and the
// argument (an mm retargeted to sym_size.int used to fail without a word).
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/symsize.pt2 retarget torch.ops.aten.mm.default torch.ops.aten.sym_size.int
// RUN: not magi-import %t/symsize.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=SYMSIZE
// RUN: test ! -e %t/out.mlir
// SYMSIZE: error: node 'mm (torch.ops.aten.sym_size.int)': expected a constant integer for argument 'dim'
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/permute.pt2 retarget torch.ops.aten.mm.default torch.ops.aten.permute.default
// RUN: not magi-import %t/permute.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=PERMUTE
// PERMUTE: error: node 'mm (torch.ops.aten.permute.default)': expected constant integers for argument 'dims'
// transpose.int needs its two dimensions, and t a tensor of rank at most 2
// (a 3-d permute retargeted to either used to import as a silent swap).
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/transpose.pt2 retarget torch.ops.aten.permute.default torch.ops.aten.transpose.int
// RUN: not magi-import %t/transpose.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=TRANSPOSE
// TRANSPOSE: error: node 'permute (torch.ops.aten.transpose.int)': expected a constant integer for argument 'dim0'
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/t.pt2 retarget torch.ops.aten.permute.default torch.ops.aten.t.default
// RUN: not magi-import %t/t.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=T
// T: error: node 'permute (torch.ops.aten.t.default)': expects a tensor of rank at most 2, got rank 3
// An overload without a converter row stays opaque (where.out used to be
// taken for a select).
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/whereout.pt2 retarget torch.ops.aten.where.self torch.ops.aten.where.out
// RUN: magi-import %t/whereout.pt2 -o %t/whereout.mlir 2>&1 | FileCheck %s --check-prefix=WHEREOUT
// WHEREOUT: warning: ops without a typed magi op, kept as magi.opaque: aten::where.out (1)
// Only the first of several missing arguments is reported.
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/sdpa.pt2 retarget torch.ops.aten.mm.default torch.ops.aten._scaled_dot_product_efficient_attention.default
// RUN: not magi-import %t/sdpa.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=SDPA --implicit-check-not=error:
// SDPA: error: node 'mm (torch.ops.aten._scaled_dot_product_efficient_attention.default)': expected a tensor for argument 'query'

// Malformed arguments used to be dereferenced as they were (a crash).
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/badsym.pt2 set-arg _operator.add b '{"as_sym_int": {}}'
// RUN: not magi-import %t/badsym.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=BADSYM
// RUN: test ! -e %t/out.mlir
// BADSYM: error: node 'add_634 (_operator.add)': malformed 'as_sym_int' in argument 'b'
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/badcat.pt2 set-arg torch.ops.aten.cat.default tensors '{"as_tensors": [{}]}'
// RUN: not magi-import %t/badcat.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=BADCAT
// BADCAT: error: node 'cat (torch.ops.aten.cat.default)': malformed tensor in argument 'tensors'

// A scalar argument that holds something else is an error, not its
// default (cumsum's dim used to become 0); an integer written as a number
// with a zero fraction still reads as that integer.
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/baddim.pt2 set-arg torch.ops.aten.cumsum.default dim '{"as_int": -1.5}'
// RUN: not magi-import %t/baddim.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=BADDIM
// RUN: test ! -e %t/out.mlir
// BADDIM: error: node 'cumsum (torch.ops.aten.cumsum.default)': malformed 'as_int' in argument 'dim'
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/baddims.pt2 set-arg torch.ops.aten.cumsum.default dim '{"as_ints": [1, "x"]}'
// RUN: not magi-import %t/baddims.pt2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=BADDIMS
// BADDIMS: error: node 'cumsum (torch.ops.aten.cumsum.default)': malformed 'as_ints' in argument 'dim'
// RUN: %python %S/Inputs/mutate_archive.py %fixtures/llama-f32/model.pt2 %t/floatdim.pt2 set-arg torch.ops.aten.cumsum.default dim '{"as_int": -1.0}'
// RUN: magi-import %t/floatdim.pt2 -o %t/floatdim.mlir
// RUN: magi-import %fixtures/llama-f32/model.pt2 -o %t/plain.mlir
// RUN: diff %t/floatdim.mlir %t/plain.mlir
