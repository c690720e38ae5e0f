//===- CausalMask.h - Attention masks proved causal -------------*- C++ -*-===//
//
// magi-fuse's `causal-mask`: a `magi.attention` whose mask is, element for
// element, "key position <= query position" (0 / -inf, or a boolean mask),
// built from aranges as transformers builds it, loses the mask for
// `is_causal`. Defined in CausalMask.cpp, run by Fusions.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MAGI_PASSES_FULLGRAPH_CAUSALMASK_H
#define MAGI_PASSES_FULLGRAPH_CAUSALMASK_H

#include "mlir/IR/PatternMatch.h"

namespace magi {
void populateCausalMaskPatterns(mlir::RewritePatternSet &patterns);
} // namespace magi

#endif // MAGI_PASSES_FULLGRAPH_CAUSALMASK_H
