#include "common/analysis/cache_traffic.h"

namespace pruner {

void RegionFootprints::Compute(const StoreSite& site, const StoreAccesses& accesses,
                               std::vector<Interval>* ranges) {
  const std::vector<AccessGroup>& groups = accesses.groups();
  num_levels_ = static_cast<int>(site.loops.size());
  num_groups_ = static_cast<int>(groups.size());
  if (touches_.size() < site.loops.size()) touches_.resize(site.loops.size());
  views_.clear();
  var_level_.assign(ranges->size(), -1);
  for (int l = 0; l < num_levels_; ++l) {
    const LoopInfo& loop = site.loops[l];
    touches_[l].Clear();
    views_.push_back({loop.var, loop.extent, loop.kind, &touches_[l]});
    if (loop.var >= 0 && loop.var < static_cast<int>(var_level_.size())) var_level_[loop.var] = l;
  }
  regions_.Compute(accesses, views_, var_level_, ranges);
  // Each loop's touches hold exactly this store's groups, one entry per
  // buffer: the region of that buffer with the loop and those inside it
  // running.
  elements_.assign(static_cast<size_t>(num_levels_) * num_groups_, 1.0);
  for (int l = 0; l < num_levels_; ++l) {
    for (int g = 0; g < num_groups_; ++g) {
      const LoopTouches::PerBuffer* b = touches_[l].Find(groups[g].buffer);
      if (b != nullptr) elements_[l * num_groups_ + g] = b->min_elements;
    }
  }
}

double RegionFootprints::bytes(const StoreAccesses& accesses, int level) const {
  double total = 0;
  for (int g = 0; g < num_groups_; ++g) total += elements(g, level) * accesses.groups()[g].elem_bytes;
  return total;
}

CacheTraffic MissTraffic(const StoreSite& site, const StoreAccesses& accesses,
                         const RegionFootprints& footprints, double capacity_bytes,
                         const std::vector<bool>& resident,
                         absl::FunctionRef<bool(int level)> also_fits) {
  const int num_groups = static_cast<int>(accesses.groups().size());
  const int n = footprints.num_levels();
  CacheTraffic out;
  out.group_elements.assign(num_groups, 0.0);
  // Walk outward while one iteration of loop l (loops l+1 .. n-1) fits.
  out.level = n;
  while (out.level > 0 && footprints.bytes(accesses, out.level) <= capacity_bytes) --out.level;
  // Then inward while the second test fails. Both tests fail at every level
  // outside one where they fail (an outer level's regions hold the inner
  // ones), so where the bytes fit this is one call of `also_fits`.
  while (out.level < n && !also_fits(out.level + 1)) ++out.level;
  double repeats = 1;
  for (int l = 0; l < out.level; ++l) repeats *= static_cast<double>(site.loops[l].extent);
  for (int g = 0; g < num_groups; ++g) {
    if (g < static_cast<int>(resident.size()) && resident[g]) continue;
    out.group_elements[g] = footprints.elements(g, out.level) * repeats;
    out.elements += out.group_elements[g];
  }
  return out;
}

}  // namespace pruner
