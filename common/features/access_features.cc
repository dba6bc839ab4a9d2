#include "common/features/access_features.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <tuple>

#include "common/features/feature_columns.h"
#include "common/features/feature_math.h"

namespace pruner {
namespace {

namespace fc = feature_columns;

// Memory stride of `var` in the group's accesses: for each access, the
// innermost dimension whose index uses var gives |coef| times that
// dimension's row-major stride in the buffer's allocated layout; the
// smallest over the accesses wins. 0 when no access uses var.
int64_t StrideOf(const StoreAccesses& accesses, const AccessGroup& g,
                 const std::vector<int64_t>& shape, int var) {
  int64_t best = std::numeric_limits<int64_t>::max();
  bool found = false;
  for (int inst = 0; inst < g.num_instances; ++inst) {
    int64_t shape_stride = 1;
    for (int d = g.num_dims - 1; d >= 0; --d) {
      int64_t coef = 0;
      for (const IndexTerm& t : accesses.terms(accesses.dim(g, inst, d))) {
        if (t.var == var) coef = t.coef;
      }
      if (coef != 0) {
        found = true;
        best = std::min(best, std::abs(coef) * shape_stride);
        break;
      }
      if (d < static_cast<int>(shape.size())) shape_stride *= shape[d];
    }
  }
  return found ? best : 0;
}

// TVM/TenSet's ComputeReuse on our loop views: scan the loops from the
// innermost outward. While the loops index the buffer, the reuse distance
// grows; the first loop that does not index it starts a LoopMultipleRead
// reuse whose count multiplies the extents of the consecutive non-indexing
// loops. A loop under which an earlier statement also touched the buffer
// gives SerialMultipleReadWrite instead.
void ComputeReuse(const StoreAccesses& accesses, const AccessGroup& g,
                  std::span<const LoopView> loops, AccessFeature* f) {
  double dis_iter = 1;
  double dis_bytes = -1;
  double ct = 1;
  bool counting = false;  // past the first non-indexing loop
  for (int i = static_cast<int>(loops.size()) - 1; i >= 0; --i) {
    const LoopView& loop = loops[i];
    const double extent = static_cast<double>(loop.extent);
    const bool indexes = accesses.Uses(g, loop.var);
    if (loop.extent == 1) {
      // One iteration re-touches nothing and moves nothing (our lowering
      // emits such loops only for bindings of extent 1): transparent,
      // where TVM would report a reuse count of 1.
    } else if (!counting) {
      if (indexes) {
        dis_iter *= extent;
        dis_bytes = loop.touches->all_bytes();
      } else {
        // A reuse carried by the innermost loop: one element of each
        // access lies between two uses.
        if (dis_bytes < 0) dis_bytes = loop.touches->elem_bytes();
        counting = true;
        ct *= extent;
      }
    } else if (indexes) {
      f->reuse_type = ReuseType::kLoopMultipleRead;
      f->reuse_dis_iter = dis_iter;
      f->reuse_dis_bytes = dis_bytes;
      f->reuse_ct = ct;
      return;
    } else {
      ct *= extent;
    }
    const LoopTouches::PerBuffer* mine = loop.touches->Find(g.buffer);
    if (mine != nullptr && mine->entries > 1) {
      double serial_ct = 1;
      for (int j = i; j >= 0; --j) serial_ct *= static_cast<double>(loops[j].extent);
      f->reuse_type = ReuseType::kSerialMultipleReadWrite;
      f->reuse_dis_iter = mine->min_elements / extent;
      f->reuse_dis_bytes = loop.touches->read_bytes() / extent;
      f->reuse_ct = serial_ct;
      return;
    }
  }
  if (counting) {
    f->reuse_type = ReuseType::kLoopMultipleRead;
    f->reuse_dis_iter = dis_iter;
    f->reuse_dis_bytes = dis_bytes;
    f->reuse_ct = ct;
  } else {
    f->reuse_type = ReuseType::kNoReuse;
    f->reuse_dis_iter = f->reuse_dis_bytes = f->reuse_ct = 0;
  }
}

}  // namespace

void ComputeAccessFeatures(const StoreAccesses& accesses, const TouchRegions& regions,
                           const AccessContext& ctx, std::vector<AccessFeature>* out) {
  out->clear();
  const std::vector<AccessGroup>& groups = accesses.groups();
  const int n = static_cast<int>(ctx.loops.size());
  const double cache_line = ctx.cache_line_bytes > 0 ? ctx.cache_line_bytes : 64;
  for (int gi = 0; gi < static_cast<int>(groups.size()); ++gi) {
    const AccessGroup& g = groups[gi];
    const std::vector<int64_t>& shape = ctx.program->buffer(g.buffer).shape;
    const double elem = g.elem_bytes;
    AccessFeature f;
    f.type = g.type;
    f.bytes = ctx.outer_prod * elem;
    if (n == 0) {
      f.unique_bytes = elem;
      f.stride = 0;
      f.lines = 1;
      f.unique_lines = 1;
    } else {
      f.unique_bytes = regions.outer_elements(gi) * elem;
      int64_t stride = 0;
      double reduce_ratio = 1;
      int i = n - 1;
      for (; i >= 0; --i) {
        stride = StrideOf(accesses, g, shape, ctx.loops[i].var);
        if (stride != 0) break;
        // [quirk fixed] TVM multiplies the innermost loop's extent here
        // for every skipped loop; we use the skipped loop's own extent.
        reduce_ratio *= static_cast<double>(ctx.loops[i].extent);
      }
      f.lines = ctx.outer_prod / reduce_ratio *
                std::min(1.0, static_cast<double>(stride) * elem / cache_line);
      f.lines = std::max(f.lines, 1.0);
      f.stride = i == n - 1 ? static_cast<double>(stride) : 0;
      // Contiguous bytes: the innermost dimension whose whole allocated
      // extent is covered ([quirk fixed] TVM reads the region of whichever
      // buffer it processed last; this is the group's own region).
      double n_continuous = elem;
      for (int d = std::min<int>(g.num_dims, shape.size()) - 1; d >= 0; --d) {
        if (regions.outer_extent(gi, d) >= shape[d]) {
          n_continuous *= static_cast<double>(shape[d]);
          break;
        }
      }
      f.unique_lines = std::max(1.0, f.unique_bytes / std::min(n_continuous, cache_line));
    }
    ComputeReuse(accesses, g, ctx.loops, &f);
    out->push_back(f);
  }
}

void WriteBufferAccessColumns(std::vector<AccessFeature>* features, float* row) {
  // TVM compares the float values it stores; so do we, so that values that
  // differ only below float precision tie the same way.
  auto key = [](const AccessFeature& f) {
    return std::make_tuple(static_cast<float>(f.reuse_dis_bytes),
                           static_cast<float>(f.unique_bytes), static_cast<float>(f.unique_lines),
                           static_cast<int>(f.type));
  };
  std::stable_sort(features->begin(), features->end(),
                   [&](const AccessFeature& a, const AccessFeature& b) { return key(a) < key(b); });
  float* out = row + fc::kBufferAccessOffset;
  std::fill(out, out + fc::kMaxBufferSlots * fc::kBufferSlotWidth, 0.0f);
  const int slots = std::min<int>(fc::kMaxBufferSlots, features->size());
  for (int s = 0; s < slots; ++s) WriteAccessSlot((*features)[s], out + s * fc::kBufferSlotWidth);
}

void WriteAccessSlot(const AccessFeature& f, float* slot) {
  std::fill(slot, slot + fc::kBufferSlotWidth, 0.0f);
  slot[fc::kAccRead + static_cast<int>(f.type)] = 1.0f;
  slot[fc::kBytes] = Slog(f.bytes);
  slot[fc::kUniqueBytes] = Slog(f.unique_bytes);
  slot[fc::kLines] = Slog(f.lines);
  slot[fc::kUniqueLines] = Slog(f.unique_lines);
  slot[fc::kReuseLoopMultipleRead + static_cast<int>(f.reuse_type)] = 1.0f;
  slot[fc::kReuseDisIter] = Slog(f.reuse_dis_iter);
  slot[fc::kReuseDisBytes] = Slog(f.reuse_dis_bytes);
  slot[fc::kReuseCt] = Slog(f.reuse_ct);
  // Without reuse TVM multiplies by a magic 2 instead of dividing.
  const bool reused = f.reuse_ct > 0.5;
  auto per_reuse = [&](double v) { return Slog(reused ? v / f.reuse_ct : v * 2); };
  slot[fc::kBytesDReuseCt] = per_reuse(f.bytes);
  slot[fc::kUniqueBytesDReuseCt] = per_reuse(f.unique_bytes);
  slot[fc::kLinesDReuseCt] = per_reuse(f.lines);
  slot[fc::kUniqueLinesDReuseCt] = per_reuse(f.unique_lines);
  slot[fc::kStride] = Slog(f.stride);
}

}  // namespace pruner
