// The walk the analyzer makes over a lowered program: every store with the
// loops that enclose it, outermost first, and products of loop extents over
// the loops that move a buffer access.
#ifndef PRUNER_COMMON_ANALYSIS_STORE_WALK_H_
#define PRUNER_COMMON_ANALYSIS_STORE_WALK_H_

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "common/features/store_accesses.h"
#include "common/lower/program.h"

namespace pruner {

struct LoopInfo {
  int var = -1;
  int64_t extent = 1;
  ForKind kind = ForKind::kSerial;
  // The backend emits the loop body `extent` times instead of a loop: an
  // unrolled loop, or on CPUs a serial one within the LLVM backend's unroll
  // rules (common/lower/unroll_rules.h).
  bool unrolled = false;
};

// One store and what encloses it.
struct StoreSite {
  const Program* program = nullptr;
  int kernel = 0;
  const StmtNode* store = nullptr;
  // Outermost first. A thread axis bound again inside its own binding (the
  // cooperative fetch binds threadIdx.x inside the consumer's threadIdx.x)
  // is one hardware index, so the outer binding is left out, as the
  // feature extractor does.
  std::span<const LoopInfo> loops;
};

// Calls `visit` for every store of every kernel, in program order. Guards
// are transparent (a guarded store is analysed as if it always ran).
void ForEachStore(const Program& program, const std::function<void(const StoreSite&)>& visit);

// Product of the extents of the loops in `loops` that move `group` (whose
// variable occurs in one of its global-coordinate indices) and that `keep`
// accepts: the code's LoopProd(I_B, L) (../shared/specs/pruner.md §2.3).
template <typename Keep>
double MovingLoopProduct(const StoreAccesses& accesses, const AccessGroup& group,
                         std::span<const LoopInfo> loops, Keep keep) {
  double product = 1;
  for (const LoopInfo& loop : loops) {
    if (keep(loop) && accesses.Uses(group, loop.var)) product *= static_cast<double>(loop.extent);
  }
  return product;
}

// Product of the extents of the loops that `keep` accepts.
template <typename Keep>
double LoopProduct(std::span<const LoopInfo> loops, Keep keep) {
  double product = 1;
  for (const LoopInfo& loop : loops) {
    if (keep(loop)) product *= static_cast<double>(loop.extent);
  }
  return product;
}

}  // namespace pruner

#endif  // PRUNER_COMMON_ANALYSIS_STORE_WALK_H_
