// Buffer layouts chosen by the loops that use them (CPU programs).
//
// Lowering gives every buffer its tensor's dimension order. On a CPU two
// kinds of buffer are better stored in the order of the loops around their
// hottest access, so that the innermost (vectorized) loop walks the last,
// contiguous dimension:
// - attached buffers (cache-write accumulators, compute_at stages): local
//   to the kernel, so any order is free. A register tile whose vectorized
//   loop runs over output channels, e.g. conv2d.local[xx.3][ff.3] instead of
//   [ff.3][xx.3], is what lets the compiler keep the tile in vector
//   registers.
// - layout-free inputs (Op::is_layout_free, a layer's weights): stored
//   transposed, the transpose done once before the kernel runs and never
//   timed (TVM's layout rewrite; oneDNN's weight reorders likewise). Only
//   an input read at exactly one place in the program is reordered.
//
// The order: dimensions sorted by the depth of the deepest loop whose
// variable appears in their index at that access (dimensions no loop moves
// first), ties kept in tensor order. Buffer::dim_order records the result.
#ifndef PRUNER_COMMON_LOWER_LAYOUT_ORDER_H_
#define PRUNER_COMMON_LOWER_LAYOUT_ORDER_H_

#include "common/ir/compute_dag.h"
#include "common/lower/program.h"

namespace pruner {

// Reorders the dimensions of the CPU program's attached buffers and of the
// layout-free inputs (placeholders of `dag` marked so) as above, rewriting
// every access. GPU programs are left as they are.
void OrderBufferDimsByLoops(const ComputeDag& dag, Program* program);

}  // namespace pruner

#endif  // PRUNER_COMMON_LOWER_LAYOUT_ORDER_H_
