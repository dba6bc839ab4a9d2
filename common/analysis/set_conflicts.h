// The L1 cache's sets, which the capacity model (cache_traffic.h) does not
// see: a region that fits the cache's bytes can still not stay in it when
// its rows fall into a few sets.
//
// Why: an x86 core's L1 data cache is indexed by the address bits inside a
// 4 KiB page (so that it can be read before translation), i.e. it has
// 4096 / 64 = 64 sets and as many ways as its capacity allows (8 on a
// 32 KiB L1, 12 on a 48 KiB one). Rows of a row-major tensor whose row is
// a multiple of 4 KiB long (a 1024-, 2048- or 4096-wide fp32 matrix: every
// dense layer of BERT) all start in the same set, so a register tile that
// reads 16 of its rows at one k keeps 16 lines in one 8-way set and misses
// at every step. On the EPYC dataset such tiles measured 2-4x their
// estimate (dense_bias_gelu_M256_K1024_N4096: 85 ms for an estimate among
// the fastest, whose schedule reads 16 rows 4 KiB apart; bench/README.md,
// session 52).
//
// Each group is judged on its own (a group's hottest set against all the
// ways): buffers start at addresses the analyzer does not know, so where
// two buffers' hottest sets meet is not known either.
#ifndef PRUNER_COMMON_ANALYSIS_SET_CONFLICTS_H_
#define PRUNER_COMMON_ANALYSIS_SET_CONFLICTS_H_

#include <cstdint>
#include <vector>

#include "common/analysis/store_walk.h"
#include "common/features/store_accesses.h"
#include "common/features/touch_regions.h"

namespace pruner {

struct CacheSets {
  int sets = 64;
  int ways = 8;
  int line_bytes = 64;
};

// The sets of an L1 indexed within a page of `page_bytes`: page / line sets,
// capacity / page ways (at least 1).
CacheSets PageIndexedSets(int64_t capacity_bytes, int line_bytes, int64_t page_bytes = 4096);

// Reusable buffers of RegionsFitSets (it runs for thousands of programs a
// round).
struct SetScratch {
  std::vector<int64_t> lines, per_set, lo, extent, stride, index;
};

// Whether every access group of the store keeps no more lines in any one
// set than the cache has ways while loops [level, n) run (the region the
// capacity model keeps cached at that level). Each group's region is its
// bounding box, every instance's extents the largest, placed where the
// loops' first iteration puts it. `ranges` holds one zero interval per
// program variable, and again on return.
bool RegionsFitSets(const StoreSite& site, const StoreAccesses& accesses, int level,
                    const CacheSets& cache, std::vector<Interval>* ranges, SetScratch* scratch);

}  // namespace pruner

#endif  // PRUNER_COMMON_ANALYSIS_SET_CONFLICTS_H_
