#include "common/analysis/set_conflicts.h"

#include <algorithm>

#include "common/analysis/transfer_run.h"

namespace pruner {
namespace {

// Regions with more lines than this (twice what a 32 KiB L1 holds) are
// judged by their lines per set on average, which the hottest set holds at
// least (16 or more on 64 sets, past the ways of any L1 up to 64 KiB), as
// enumerating them would cost more than the rest of the analysis.
constexpr int64_t kMaxEnumeratedLines = 1 << 10;

// The largest number of `group`'s lines that map to one set while the
// opened loops run (`ranges`), or a count known to be no larger that is
// still at most the ways (a region of few lines is not enumerated).
int64_t HottestSetLines(const StoreSite& site, const StoreAccesses& accesses,
                        const AccessGroup& group, const CacheSets& cache,
                        const std::vector<Interval>& ranges, SetScratch* scratch) {
  const std::vector<int64_t>& shape = site.program->buffer(group.buffer).shape;
  const int dims = group.num_dims;
  if (dims == 0 || group.num_instances == 0 || static_cast<int>(shape.size()) != dims) return 1;
  // The region's box: each dimension from its first value, as wide as the
  // widest instance.
  std::vector<int64_t>& lo = scratch->lo;
  std::vector<int64_t>& extent = scratch->extent;
  std::vector<int64_t>& stride = scratch->stride;
  lo.assign(dims, 0);
  extent.assign(dims, 1);
  stride.assign(dims, 1);
  for (int d = 0; d < dims; ++d) {
    for (int i = 0; i < group.num_instances; ++i) {
      const Interval b = RegionDimBounds(accesses, group, i, d, ranges);
      if (i == 0) lo[d] = b.lo;
      extent[d] = std::max(extent[d], b.hi - b.lo + 1);
    }
  }
  const int64_t elem = group.elem_bytes;
  const int64_t line = cache.line_bytes;
  int64_t rows = 1;
  for (int d = 0; d + 1 < dims; ++d) rows *= extent[d];
  const int64_t row_bytes = extent[dims - 1] * elem;
  // A row starting anywhere in a line spans at most this many.
  const int64_t lines_per_row = (row_bytes + line - 2) / line + 1;
  if (rows * lines_per_row <= cache.ways) return rows * lines_per_row;
  if (rows * lines_per_row > kMaxEnumeratedLines) {
    return rows * ((row_bytes + line - 1) / line) / cache.sets;
  }
  for (int d = dims - 2; d >= 0; --d) {
    stride[d] = stride[d + 1] * std::max<int64_t>(shape[d + 1], 1);
  }
  std::vector<int64_t>& lines = scratch->lines;
  std::vector<int64_t>& index = scratch->index;
  lines.clear();
  index.assign(dims, 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t offset = 0;
    for (int d = 0; d < dims; ++d) offset += (lo[d] + index[d]) * stride[d];
    const int64_t first = offset * elem / line;
    const int64_t last = (offset * elem + row_bytes - 1) / line;
    for (int64_t l = first; l <= last; ++l) lines.push_back(l);
    for (int d = dims - 2; d >= 0; --d) {  // next row (odometer over the outer dimensions)
      if (++index[d] < extent[d]) break;
      index[d] = 0;
    }
  }
  // Rows share no line when each lies inside its own dimension's extent
  // (then rows are apart) and a line's worth of bytes separates them; then
  // the lines are distinct as listed.
  bool rows_apart = dims < 2 || (stride[dims - 2] * elem - row_bytes >= line);
  for (int d = 1; d < dims && rows_apart; ++d) rows_apart = extent[d] <= shape[d];
  if (!rows_apart) {
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  }
  std::vector<int64_t>& per_set = scratch->per_set;
  per_set.assign(cache.sets, 0);
  int64_t hottest = 0;
  for (int64_t l : lines) {
    int64_t& count = per_set[static_cast<size_t>(((l % cache.sets) + cache.sets) % cache.sets)];
    hottest = std::max(hottest, ++count);
  }
  return hottest;
}

}  // namespace

CacheSets PageIndexedSets(int64_t capacity_bytes, int line_bytes, int64_t page_bytes) {
  CacheSets out;
  out.line_bytes = std::max(line_bytes, 1);
  out.sets = static_cast<int>(std::max<int64_t>(page_bytes / out.line_bytes, 1));
  out.ways =
      static_cast<int>(std::max<int64_t>(capacity_bytes / std::max<int64_t>(page_bytes, 1), 1));
  return out;
}

bool RegionsFitSets(const StoreSite& site, const StoreAccesses& accesses, int level,
                    const CacheSets& cache, std::vector<Interval>* ranges, SetScratch* scratch) {
  const int n = static_cast<int>(site.loops.size());
  for (int l = level; l < n; ++l) OpenLoop(site.loops[l], site.loops[l].extent, ranges);
  bool fits = true;
  for (const AccessGroup& g : accesses.groups()) {
    if (HottestSetLines(site, accesses, g, cache, *ranges, scratch) > cache.ways) {
      fits = false;
      break;
    }
  }
  for (int l = level; l < n; ++l) CloseLoop(site.loops[l], ranges);
  return fits;
}

}  // namespace pruner
