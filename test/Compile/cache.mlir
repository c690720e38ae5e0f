// magi-compile with the compile cache: a second compile is all hits and
// gives the same artifact bytes; a damaged entry is detected, recompiled and
// replaced; must-hit turns a miss into an error naming the piece; readonly
// never writes; --explain-cache names the factor that differs.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: magi-compile %S/Inputs/small-graph.mlir --splitting-ops=magi.mm -o %t/cold --cache-dir=%t/cache --stats | FileCheck %s --check-prefix=COLD
// COLD: pieces: 3 (3 compiled, 0 from the cache, 0 identical to an earlier piece)
// COLD: hits: 0
// COLD: misses: 3 (0 damaged)
// COLD: stored: 3 (0 already present, 0 failed)
// RUN: magi-compile %S/Inputs/small-graph.mlir --splitting-ops=magi.mm -o %t/warm --cache-dir=%t/cache --stats | FileCheck %s --check-prefix=WARM
// WARM: pieces: 3 (0 compiled, 3 from the cache, 0 identical to an earlier piece)
// WARM: hits: 3
// WARM: misses: 0 (0 damaged)
// WARM: stored: 0
// WARM: piece 0 {{.*}} hit
// WARM: piece 1 {{.*}} hit
// WARM: piece 2 {{.*}} hit
// RUN: diff -r %t/cold %t/warm
// RUN: magi-cache verify --cache-dir=%t/cache | FileCheck %s --check-prefix=VERIFY
// VERIFY: verified 3 entries: all good

// Damage: flip the PTX of every entry. The next compile reports each entry,
// recompiles, stores it again, and writes the same artifact.
// RUN: for f in %t/cache/store/*/*/piece.ptx; do printf 'X' | dd of=$f bs=1 seek=10 conv=notrunc 2>/dev/null; done
// RUN: magi-compile %S/Inputs/small-graph.mlir --splitting-ops=magi.mm -o %t/repaired --cache-dir=%t/cache --stats 2>%t/damage.err | FileCheck %s --check-prefix=DAMAGED
// RUN: FileCheck %s --check-prefix=DAMAGE-WARN --input-file=%t/damage.err
// DAMAGED: pieces: 3 (3 compiled, 0 from the cache, 0 identical to an earlier piece)
// DAMAGED: misses: 3 (3 damaged)
// DAMAGED: stored: 3
// DAMAGE-WARN: magi-compile: warning: cache: {{.*}}piece.ptx
// RUN: diff -r %t/cold %t/repaired
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
// EXPLAIN: piece 0 @main_piece_0: key
// EXPLAIN:   piece_ir: 'sha256:
// EXPLAIN:   salt: 'v2'
// EXPLAIN:   miss: closest entry store/{{.*}} has 9 of 10 key factors equal; differs in salt (wanted 'v2', entry has (empty))
