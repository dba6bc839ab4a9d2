#include "common/analysis/transfer_run.h"

#include <algorithm>
#include <limits>

namespace pruner {

void OpenLoop(const LoopInfo& loop, int64_t count, std::vector<Interval>* ranges) {
  if (loop.var >= 0 && static_cast<size_t>(loop.var) < ranges->size()) {
    (*ranges)[loop.var] = {0, std::max<int64_t>(count, 1) - 1};
  }
}

void CloseLoop(const LoopInfo& loop, std::vector<Interval>* ranges) { OpenLoop(loop, 1, ranges); }

Interval RegionDimBounds(const StoreAccesses& accesses, const AccessGroup& group, int instance,
                         int d, const std::vector<Interval>& ranges) {
  return EvalInterval(*accesses.dim(group, instance, d).index, ranges);
}

namespace {

// Extent of the interval of `instance`'s dimension d under `ranges`.
int64_t DimExtent(const StoreAccesses& accesses, const AccessGroup& group, int instance, int d,
                  const std::vector<Interval>& ranges) {
  const Interval b = RegionDimBounds(accesses, group, instance, d, ranges);
  return b.hi - b.lo + 1;
}

}  // namespace

double WarpTransferBytes(const StoreSite& site, const StoreAccesses& accesses,
                         const AccessGroup& group, int warp_size, std::vector<Interval>* ranges) {
  if (group.num_dims == 0 || group.num_instances == 0) return kBroadcastTransfer;
  // The innermost threadIdx.x binding is the warp's lane index.
  std::vector<std::pair<const LoopInfo*, int64_t>> lanes;
  for (const LoopInfo& loop : site.loops) {
    if (loop.kind == ForKind::kThreadX) {
      lanes.clear();
      lanes.push_back({&loop, std::min<int64_t>(loop.extent, warp_size)});
    }
  }
  for (const LoopInfo& loop : site.loops) {
    if (loop.kind == ForKind::kVectorized) lanes.push_back({&loop, loop.extent});
  }
  bool moved = false;
  for (const auto& [loop, count] : lanes) moved = moved || accesses.Uses(group, loop->var);
  if (!moved) return kBroadcastTransfer;

  for (const auto& [loop, count] : lanes) OpenLoop(*loop, count, ranges);
  int64_t run = std::numeric_limits<int64_t>::max();
  for (int i = 0; i < group.num_instances; ++i) {
    run = std::min(run, DimExtent(accesses, group, i, group.num_dims - 1, *ranges));
  }
  for (const auto& [loop, count] : lanes) CloseLoop(*loop, ranges);
  return static_cast<double>(std::max<int64_t>(run, 1)) * group.elem_bytes;
}

double RegionRunBytes(const StoreSite& site, const StoreAccesses& accesses,
                      const AccessGroup& group, int level, std::vector<Interval>* ranges) {
  if (group.num_dims == 0 || group.num_instances == 0) return kBroadcastTransfer;
  const std::vector<int64_t>& shape = site.program->buffer(group.buffer).shape;
  const int n = static_cast<int>(site.loops.size());
  for (int l = level; l < n; ++l) OpenLoop(site.loops[l], site.loops[l].extent, ranges);
  int64_t run = std::numeric_limits<int64_t>::max();
  for (int i = 0; i < group.num_instances; ++i) {
    int64_t instance_run = 1;
    for (int d = group.num_dims - 1; d >= 0; --d) {
      const int64_t extent = DimExtent(accesses, group, i, d, *ranges);
      instance_run *= extent;
      const int64_t allocated = d < static_cast<int>(shape.size()) ? shape[d] : 1;
      if (extent < allocated) break;  // rows of the region are apart
    }
    run = std::min(run, instance_run);
  }
  for (int l = level; l < n; ++l) CloseLoop(site.loops[l], ranges);
  return static_cast<double>(std::max<int64_t>(run, 1)) * group.elem_bytes;
}

}  // namespace pruner
