// S7, the innermost transfer length (paper Table 2, "L2TransDim"): how many
// contiguous bytes one memory transfer of an access covers. P_l2,m compares
// it with the DRAM transaction (GPU) or the cache line (CPU); the public
// code has no S7 at all.
#ifndef PRUNER_COMMON_ANALYSIS_TRANSFER_RUN_H_
#define PRUNER_COMMON_ANALYSIS_TRANSFER_RUN_H_

#include <algorithm>
#include <vector>

#include "common/analysis/store_walk.h"
#include "common/features/store_accesses.h"
#include "common/features/touch_regions.h"

namespace pruner {

// Returned when no loop of the transfer moves the access (every thread of
// the warp, or every iteration, reads the same element): one transaction
// serves them all, so there is nothing to penalize.
inline constexpr double kBroadcastTransfer = -1;

// Sets the range of `loop`'s variable to the loop's first `count` values
// (CloseLoop: back to its first value alone), so that EvalInterval gives an
// access's region while the opened loops run.
void OpenLoop(const LoopInfo& loop, int64_t count, std::vector<Interval>* ranges);
void CloseLoop(const LoopInfo& loop, std::vector<Interval>* ranges);
// The interval of `instance`'s dimension d under `ranges`.
Interval RegionDimBounds(const StoreAccesses& accesses, const AccessGroup& group, int instance,
                         int d, const std::vector<Interval>& ranges);

// GPU: bytes of the innermost dimension that the first warp touches in one
// access: the extent of that dimension's index while threadIdx.x runs over
// 0..min(extent, warp_size)-1 and every vectorized loop over its range.
// `ranges` holds one zero interval per program variable, and again on return.
double WarpTransferBytes(const StoreSite& site, const StoreAccesses& accesses,
                         const AccessGroup& group, int warp_size, std::vector<Interval>* ranges);

// CPU: contiguous bytes of the region the access touches while loops
// [level, n) run (the region the cache model fetches as a whole): the
// innermost dimension's extent in the buffer's own row-major layout, times
// the next dimension's while the inner one spans its full allocated extent.
// A region one element wide in the innermost dimension (a column) gives
// one element per transfer.
double RegionRunBytes(const StoreSite& site, const StoreAccesses& accesses,
                      const AccessGroup& group, int level, std::vector<Interval>* ranges);

// S7 of a row: the smallest transfer over the access groups `counts(g)`
// accepts (by index), `run(g)` giving each one's bytes. A row whose
// counted accesses are all broadcasts gets one whole `transaction`.
template <typename Counts, typename Run>
double SmallestTransfer(const StoreAccesses& accesses, Counts counts, Run run,
                        double transaction) {
  double smallest = kBroadcastTransfer;
  for (size_t g = 0; g < accesses.groups().size(); ++g) {
    if (!counts(g)) continue;
    const double bytes = run(accesses.groups()[g]);
    if (bytes == kBroadcastTransfer) continue;
    smallest = smallest == kBroadcastTransfer ? bytes : std::min(smallest, bytes);
  }
  return smallest == kBroadcastTransfer ? transaction : smallest;
}

}  // namespace pruner

#endif  // PRUNER_COMMON_ANALYSIS_TRANSFER_RUN_H_
