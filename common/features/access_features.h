// Group 2 (../shared/specs/ansor.md §5.4): the 18 values of each buffer a store
// touches, then the sort that keeps five of them.
#ifndef PRUNER_COMMON_FEATURES_ACCESS_FEATURES_H_
#define PRUNER_COMMON_FEATURES_ACCESS_FEATURES_H_

#include <cstdint>
#include <span>
#include <vector>

#include "common/features/loop_touches.h"
#include "common/features/store_accesses.h"
#include "common/features/touch_regions.h"
#include "common/lower/program.h"

namespace pruner {

// Values are the one-hot positions of the reuse_type feature.
enum class ReuseType : uint8_t {
  kLoopMultipleRead = 0,
  kSerialMultipleReadWrite = 1,
  kNoReuse = 2
};

// Raw (not yet slog'ed) values of one access group.
struct AccessFeature {
  AccessType type = AccessType::kRead;
  double bytes = 0;
  double unique_bytes = 0;
  double lines = 0;
  double unique_lines = 0;
  ReuseType reuse_type = ReuseType::kNoReuse;
  double reuse_dis_iter = 0;
  double reuse_dis_bytes = 0;
  double reuse_ct = 0;
  double stride = 0;
};

struct AccessContext {
  const Program* program = nullptr;
  std::span<const LoopView> loops;  // outermost first
  double outer_prod = 1;            // product of the loops' extents
  int cache_line_bytes = 64;
};

// One AccessFeature per group of `accesses`, in group order. `regions` must
// have been computed for the same accesses and loops (the loops' touches
// then include this statement, as in TVM).
void ComputeAccessFeatures(const StoreAccesses& accesses, const TouchRegions& regions,
                           const AccessContext& context, std::vector<AccessFeature>* out);

// Writes the 18 values of one group-2 slot (acc_type one-hot, bytes,
// unique_bytes, lines, unique_lines, reuse_type one-hot, reuse_dis_iter,
// reuse_dis_bytes, reuse_ct, the four *_d_reuse_ct, stride; slog'ed) to
// slot[0, kBufferSlotWidth). The PaCM dataflow block holds the same 18
// values in the same order (dataflow_block.h).
void WriteAccessSlot(const AccessFeature& f, float* slot);

// Sorts `features` ascending by (reuse_dis_bytes, unique_bytes,
// unique_lines, acc_type) (stable, so ties keep group order), writes the
// first five slots into row[kBufferAccessOffset, kArithCurveOffset) and
// zeroes the missing ones.
void WriteBufferAccessColumns(std::vector<AccessFeature>* features, float* row);

}  // namespace pruner

#endif  // PRUNER_COMMON_FEATURES_ACCESS_FEATURES_H_
