// Which loops of a lowered CPU program the code generator unrolls: TVM's
// step count and the auto_unroll_max_step budget. Kept below codegen so that
// the LLVM emitter (which applies them) and the symbol analyzer (which
// predicts what the emitted code does) read one rule.
#ifndef PRUNER_COMMON_LOWER_UNROLL_RULES_H_
#define PRUNER_COMMON_LOWER_UNROLL_RULES_H_

#include <algorithm>
#include <cstdint>

#include "common/lower/program.h"

namespace pruner {

// Serial loops of at most this many steps (extent times statements, a
// vectorized loop counting one) are unrolled whatever the schedule says, as
// LLVM's and GCC's -O3 fully unroll small constant loops: a register tile
// whose row loop stays a loop keeps its accumulators in memory.
inline constexpr int64_t kAlwaysUnrollSteps = 16;

// TVM's unroll step count: one per store, times the extent of each loop. A
// vectorized loop counts once: TVM vectorizes before it unrolls, so by then
// the loop is one vector statement. (Counting its lanes kept a 14 x 16-lane
// conv2d register tile from being unrolled unless the schedule drew the
// largest auto_unroll_max_step, and without the unroll the tile stays in
// memory.) Saturates at 2^40.
int64_t UnrollStepCount(const Stmt& s);

// True when a serial loop inside the scope of auto_unroll_max_step = budget
// is unrolled: its steps, extent included, are within the budget.
bool WithinUnrollBudget(const StmtNode& loop, int64_t budget);

// The LLVM backend's choice for a serial (not parallel, not vectorized)
// loop under the innermost enclosing auto_unroll_max_step `budget` (0: none):
// unrolled within the budget or within kAlwaysUnrollSteps.
// (One step count for both limits: this runs for every loop of every
// candidate the analyzer scores.)
inline bool SerialLoopUnrolled(const StmtNode& loop, int64_t budget) {
  return WithinUnrollBudget(loop, std::max(budget, kAlwaysUnrollSteps));
}

}  // namespace pruner

#endif  // PRUNER_COMMON_LOWER_UNROLL_RULES_H_
