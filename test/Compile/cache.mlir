// magi-compile with the compile cache: a second compile restores the whole
// artifact from one entry (no import, no lowering) with the same bytes; a
// first compile also stores every piece on its own, so a changed graph that
// shares pieces still hits them; a damaged entry is detected, recompiled and
// replaced; must-hit turns a miss into an error naming the piece; readonly
// never writes; --explain-cache names the factor that differs.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: magi-compile %S/Inputs/small-graph.mlir --splitting-ops=magi.mm -o %t/cold --cache-dir=%t/cache --stats | FileCheck %s --check-prefix=COLD
// COLD: pieces: 3 (3 compiled, 0 from the cache, 0 identical to an earlier piece)
// COLD: hits: 0
// COLD: misses: 4 (0 damaged)
// COLD: stored: 4 (0 already present, 0 failed)
// The model's index maps each compute piece (graph 0 and 1; the splitting
// matmul piece has no graph index) to its entry.
// RUN: magi-cache ls --cache-dir=%t/cache | FileCheck %s --check-prefix=INDEX
// INDEX:      models: 1
// INDEX-NEXT:   small-graph-{{[0-9a-f]+}}-rank0 (2 entries)
// INDEX-NEXT:     graph 0 shape dynamic backend cuda-cubin -> {{[0-9a-f]+}}
// INDEX-NEXT:     graph 1 shape dynamic backend cuda-cubin -> {{[0-9a-f]+}}
// RUN: magi-compile %S/Inputs/small-graph.mlir --splitting-ops=magi.mm -o %t/warm --cache-dir=%t/cache --stats | FileCheck %s --check-prefix=WARM
// WARM: pieces: 3 (0 compiled, 3 from the cache, 0 identical to an earlier piece)
// WARM: hits: 1
// WARM: misses: 0 (0 damaged)
// WARM: stored: 0
// WARM: piece 0 {{.*}} hit
// WARM: piece 1 {{.*}} hit
// WARM: piece 2 {{.*}} hit
// RUN: diff -r %t/cold %t/warm
// RUN: magi-cache verify --cache-dir=%t/cache | FileCheck %s --check-prefix=VERIFY
// VERIFY: verified 4 entries: all good

// Damage: flip a byte of the PTX in every entry (the artifact's and each
// piece's). The next compile reports each entry, recompiles, stores it
// again, and writes the same artifact.
// RUN: for f in %t/cache/store/*/*/*.ptx; do printf 'X' | dd of=$f bs=1 seek=10 conv=notrunc 2>/dev/null; done
// RUN: magi-compile %S/Inputs/small-graph.mlir --splitting-ops=magi.mm -o %t/repaired --cache-dir=%t/cache --stats 2>%t/damage.err | FileCheck %s --check-prefix=DAMAGED
// RUN: FileCheck %s --check-prefix=DAMAGE-WARN --input-file=%t/damage.err
// DAMAGED: pieces: 3 (3 compiled, 0 from the cache, 0 identical to an earlier piece)
// DAMAGED: misses: 4 (4 damaged)
// DAMAGED: stored: 4
// DAMAGE-WARN: magi-compile: warning: cache: {{.*}}.ptx
// RUN: diff -r %t/cold %t/repaired
// RUN: magi-cache verify --cache-dir=%t/cache | FileCheck %s --check-prefix=VERIFY

// More damage: truncate every plan, delete every cubin, and leave a
// half-written temporary entry behind. Detected, recompiled, same artifact.
// RUN: for f in %t/cache/store/*/*/plan.json; do head -c 20 $f > $f.cut && mv $f.cut $f; done
// RUN: rm -f %t/cache/store/*/*/*.cubin
// RUN: mkdir -p %t/cache/tmp/stale-writer && printf 'half' > %t/cache/tmp/stale-writer/piece.ptx
// RUN: magi-compile %S/Inputs/small-graph.mlir --splitting-ops=magi.mm -o %t/repaired2 --cache-dir=%t/cache --stats 2>/dev/null | FileCheck %s --check-prefix=DAMAGED2
// DAMAGED2: pieces: 3 (3 compiled, 0 from the cache, 0 identical to an earlier piece)
// DAMAGED2: misses: 4 (4 damaged)
// RUN: diff -r %t/cold %t/repaired2
// RUN: magi-cache verify --cache-dir=%t/cache | FileCheck %s --check-prefix=VERIFY

// must-hit: a miss is an error naming the piece.
// RUN: not magi-compile %S/Inputs/small-graph.mlir --splitting-ops=magi.mm -o %t/musthit --cache-dir=%t/empty --cache-mode=must-hit 2>&1 | FileCheck %s --check-prefix=MUSTHIT
// MUSTHIT: error: cache miss for piece 'main_piece_0' in must-hit mode

// readonly: compiles, stores nothing.
// RUN: magi-compile %S/Inputs/small-graph.mlir --splitting-ops=magi.mm -o %t/ro --cache-dir=%t/ro-cache --cache-mode=readonly --stats | FileCheck %s --check-prefix=RO
// RO: pieces: 3 (3 compiled, 0 from the cache
// RO: stored: 0
// RUN: not ls %t/ro-cache

// --explain-cache: a changed salt misses, and the closest entry says why.
// RUN: magi-compile %S/Inputs/small-graph.mlir --splitting-ops=magi.mm -o %t/salted --cache-dir=%t/cache --cache-salt=v2 --explain-cache --quiet | FileCheck %s --check-prefix=EXPLAIN
// EXPLAIN: artifact: key
// EXPLAIN:   salt: 'v2'
// EXPLAIN:   miss: closest entry store/{{.*}} differs in salt (wanted 'v2', entry has (empty))
// EXPLAIN: piece 0 @main_piece_0 (dynamic): key
// EXPLAIN:   piece_ir: 'sha256:
// EXPLAIN:   salt: 'v2'
// EXPLAIN:   miss: closest entry store/{{.*}} has 9 of 10 key factors equal; differs in salt (wanted 'v2', entry has (empty))

// Eight processes compiling the same graph into one cache at once: all
// succeed, their artifacts are identical, and the cache verifies clean.
// RUN: rm -rf %t/par && mkdir -p %t/par
// RUN: sh %S/Inputs/parallel-compile.sh magi-compile 8 %S/Inputs/small-graph.mlir %t/par %t/par/cache --splitting-ops=magi.mm | FileCheck %s --check-prefix=PARALLEL
// PARALLEL-NOT: failed
// PARALLEL: all 8 processes done
// RUN: for i in 2 3 4 5 6 7 8; do diff -r %t/par/out1 %t/par/out$i; done
// RUN: diff -r %t/cold %t/par/out1
// RUN: magi-cache verify --cache-dir=%t/par/cache | FileCheck %s --check-prefix=VERIFY
