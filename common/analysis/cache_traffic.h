// The CPU memory model: how many elements a store moves past a cache of a
// given capacity, by the classic capacity argument. Data reused across the
// iterations of a loop stays in the cache when one iteration of that loop
// touches no more than the capacity; the outermost such loop's whole
// footprint is fetched once, and every loop outside it fetches it again.
//
// Footprints are the bounding boxes of each buffer's global coordinates
// (TouchRegions of the feature extractor), so fused loops and sliding
// windows (a convolution's h + r - 1) are counted as the elements they
// really span.
#ifndef PRUNER_COMMON_ANALYSIS_CACHE_TRAFFIC_H_
#define PRUNER_COMMON_ANALYSIS_CACHE_TRAFFIC_H_

#include <vector>

#include "absl/functional/function_ref.h"
#include "common/analysis/store_walk.h"
#include "common/features/loop_touches.h"
#include "common/features/store_accesses.h"
#include "common/features/touch_regions.h"

namespace pruner {

// Elements of every access group while the loops from some level inward
// run. Reusable from store to store (it keeps its scratch).
class RegionFootprints {
 public:
  // `ranges` holds one zero interval per program variable, and again on
  // return.
  void Compute(const StoreSite& site, const StoreAccesses& accesses,
               std::vector<Interval>* ranges);

  int num_levels() const { return num_levels_; }  // the number of loops
  // Elements of group g touched while loops [level, num_levels()) run; one
  // element at level == num_levels().
  double elements(int g, int level) const {
    return level >= num_levels_ ? 1.0 : elements_[level * num_groups_ + g];
  }
  // Bytes of all groups at `level`.
  double bytes(const StoreAccesses& accesses, int level) const;

 private:
  int num_levels_ = 0;
  int num_groups_ = 0;
  std::vector<double> elements_;  // [level][group]
  std::vector<LoopTouches> touches_;
  std::vector<LoopView> views_;
  std::vector<int> var_level_;
  TouchRegions regions_;
};

struct CacheTraffic {
  double elements = 0;                 // all groups that pay, summed
  std::vector<double> group_elements;  // per access group (0: stays cached)
  // Loops [level, n) enjoy reuse; each iteration of the loops outside
  // fetches their footprint again.
  int level = 0;
};

// `resident[g]`: group g is a small buffer the nest allocates itself and
// that fits in the cache (a cache-write tile): it is never fetched, only
// counted in the working set.
// `also_fits`: a second test of each level whose bytes fit (the L1's sets,
// set_conflicts.h); by default every such level fits.
CacheTraffic MissTraffic(
    const StoreSite& site, const StoreAccesses& accesses, const RegionFootprints& footprints,
    double capacity_bytes, const std::vector<bool>& resident,
    absl::FunctionRef<bool(int level)> also_fits = [](int) { return true; });

}  // namespace pruner

#endif  // PRUNER_COMMON_ANALYSIS_CACHE_TRAFFIC_H_
