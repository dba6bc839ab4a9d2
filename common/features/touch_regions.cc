#include "common/features/touch_regions.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "common/ir/int_bounds.h"

namespace pruner {
namespace {

constexpr int64_t kWide = int64_t{1} << 40;
constexpr Interval kUnbounded{-kWide, kWide};

int64_t Clamp(int64_t v) { return std::clamp(v, -kWide, kWide); }
int64_t SatMul(int64_t a, int64_t b) { return Clamp(SaturatingMul(a, b)); }

Interval EvalBinary(const ExprNode& e, std::span<const Interval> ranges) {
  const std::optional<Interval> r = BinaryBounds(
      e.binary_op(), EvalInterval(*e.args[0], ranges), EvalInterval(*e.args[1], ranges));
  return r.has_value() ? Interval{Clamp(r->lo), Clamp(r->hi)} : kUnbounded;
}

}  // namespace

Interval EvalInterval(const ExprNode& e, std::span<const Interval> ranges) {
  switch (e.kind) {
    case ExprKind::kIntImm:
      return {Clamp(e.int_value), Clamp(e.int_value)};
    case ExprKind::kVar:
      return e.id >= 0 && static_cast<size_t>(e.id) < ranges.size() ? ranges[e.id] : Interval{};
    case ExprKind::kCast:
      return EvalInterval(*e.args[0], ranges);
    case ExprKind::kBinary:
      return EvalBinary(e, ranges);
    case ExprKind::kSelect: {
      const Interval t = EvalInterval(*e.args[1], ranges);
      const Interval f = EvalInterval(*e.args[2], ranges);
      return {std::min(t.lo, f.lo), std::max(t.hi, f.hi)};
    }
    default:
      return kUnbounded;
  }
}

void TouchRegions::Compute(const StoreAccesses& accesses, std::span<const LoopView> loops,
                           std::span<const int> var_level, std::vector<Interval>* ranges) {
  const std::vector<AccessGroup>& groups = accesses.groups();
  const std::vector<IndexDim>& dims = accesses.all_dims();
  const int num_groups = static_cast<int>(groups.size());
  log_mem_bytes_.clear();
  outer_elements_.assign(num_groups, 1.0);
  outer_offset_.resize(num_groups);
  outer_extents_.clear();
  for (int g = 0; g < num_groups; ++g) {
    outer_offset_[g] = static_cast<int>(outer_extents_.size());
    outer_extents_.resize(outer_extents_.size() + groups[g].num_dims, 1);
  }
  dim_bounds_.resize(dims.size());
  for (size_t k = 0; k < dims.size(); ++k) dim_bounds_[k] = {dims[k].constant, dims[k].constant};

  const int n = static_cast<int>(loops.size());
  for (int level = n - 1; level >= 0; --level) {
    const LoopView& loop = loops[level];
    const int64_t span = loop.extent - 1;
    if (loop.var >= 0 && static_cast<size_t>(loop.var) < ranges->size()) {
      (*ranges)[loop.var] = {0, span};
    }
    // Affine dims grow by |coef| * (extent - 1) for each term of this loop;
    // other dims are re-evaluated, but only when they use this loop.
    for (size_t k = 0; k < dims.size(); ++k) {
      const IndexDim& dim = dims[k];
      bool moved = false;
      for (const IndexTerm& t : accesses.terms(dim)) {
        if (t.var < 0 || static_cast<size_t>(t.var) >= var_level.size() ||
            var_level[t.var] != level) {
          continue;
        }
        moved = true;
        if (!dim.affine) break;
        const int64_t delta = SatMul(t.coef, span);
        (delta < 0 ? dim_bounds_[k].lo : dim_bounds_[k].hi) += delta;
      }
      if (!dim.affine && (moved || level == n - 1)) {
        Interval b = EvalInterval(*dim.index, *ranges);
        if (dim.region_min != nullptr) {
          const Interval r = EvalInterval(*dim.region_min, *ranges);
          b = {Clamp(b.lo + r.lo), Clamp(b.hi + r.hi)};
        }
        dim_bounds_[k] = b;
      }
    }
    double mem_bytes = 0;
    for (int g = 0; g < num_groups; ++g) {
      const AccessGroup& group = groups[g];
      double elements = 1;
      for (int d = 0; d < group.num_dims; ++d) {
        int64_t lo = kWide, hi = -kWide;
        for (int inst = 0; inst < group.num_instances; ++inst) {
          const Interval b = dim_bounds_[group.first_dim + inst * group.num_dims + d];
          lo = std::min(lo, b.lo);
          hi = std::max(hi, b.hi);
        }
        const int64_t extent = group.num_instances > 0 ? hi - lo + 1 : 1;
        elements *= static_cast<double>(extent);
        if (level == 0) outer_extents_[outer_offset_[g] + d] = extent;
      }
      loop.touches->Add(group.buffer, group.type, elements, group.elem_bytes);
      mem_bytes += elements * group.elem_bytes;
      if (level == 0) outer_elements_[g] = elements;
    }
    log_mem_bytes_.push_back(std::log2(mem_bytes));
  }
  for (const LoopView& loop : loops) {
    if (loop.var >= 0 && static_cast<size_t>(loop.var) < ranges->size()) {
      (*ranges)[loop.var] = {0, 0};
    }
  }
}

}  // namespace pruner
