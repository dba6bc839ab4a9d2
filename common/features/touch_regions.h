// The regions a store touches at every enclosing loop level: TVM computes,
// for loop level i, the bounding box of each buffer's indices while the
// loops from i inward run and the outer ones stay at their first iteration.
// These give unique_bytes, the reuse distances (recorded into each loop's
// LoopTouches) and the memory axis of the arithmetic-intensity curve.
#ifndef PRUNER_COMMON_FEATURES_TOUCH_REGIONS_H_
#define PRUNER_COMMON_FEATURES_TOUCH_REGIONS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "common/features/loop_touches.h"
#include "common/features/store_accesses.h"
#include "common/ir/int_bounds.h"

namespace pruner {

// Inclusive range of a loop variable (or of an expression).
using Interval = IntBounds;

// Bounds of an integer expression given the variables' ranges (variables
// with no entry are 0). Reads, calls and other non-index nodes are
// unbounded (saturated to +-2^40).
Interval EvalInterval(const ExprNode& e, std::span<const Interval> ranges);

class TouchRegions {
 public:
  // Analyses `accesses` under `loops` (outermost first). `var_level[v]` is
  // the position of loop variable v in `loops`, or -1. `ranges` holds an
  // entry per program variable, all {0, 0} on entry and again on return.
  // Adds one entry per access group to every loop's LoopTouches.
  void Compute(const StoreAccesses& accesses, std::span<const LoopView> loops,
               std::span<const int> var_level, std::vector<Interval>* ranges);

  // log2(bytes touched by all groups) with loops from level i inward
  // running, innermost level first (TVM's mem_bytes_list).
  const std::vector<double>& log_mem_bytes() const { return log_mem_bytes_; }
  // Elements of group g touched over the whole loop nest.
  double outer_elements(int g) const { return outer_elements_[g]; }
  // Extent of dimension d of group g's bounding box over the whole nest.
  int64_t outer_extent(int g, int d) const { return outer_extents_[outer_offset_[g] + d]; }

 private:
  std::vector<double> log_mem_bytes_;
  std::vector<double> outer_elements_;
  std::vector<int64_t> outer_extents_;
  std::vector<int> outer_offset_;
  std::vector<Interval> dim_bounds_;  // current bounds of every affine dim
};

}  // namespace pruner

#endif  // PRUNER_COMMON_FEATURES_TOUCH_REGIONS_H_
