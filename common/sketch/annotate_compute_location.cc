#include "common/sketch/annotate_compute_location.h"

#include "common/sketch/access_analysis.h"
#include "common/sketch/sketch_state_queries.h"

namespace pruner {
namespace {

// The single consumer, or the root every consumer is computed in; -1 when
// there is none or the consumers live in different nests.
int LocationTarget(const State& state, int stage) {
  const std::vector<int> consumers = GetConsumers(state, stage);
  if (consumers.empty()) return -1;
  if (consumers.size() == 1) return consumers[0];
  int common_root = -1;
  for (int c : consumers) {
    const Stage& s = state.stage(c);
    const int root = s.compute_at == ComputeAtKind::kIter ? s.attach_stage : c;
    if (common_root >= 0 && root != common_root) return -1;
    common_root = root;
  }
  return common_root;
}

}  // namespace

std::vector<std::pair<int, int>> ComputeLocationCandidates(const State& state, int stage) {
  std::vector<std::pair<int, int>> candidates;
  const int target = LocationTarget(state, stage);
  if (target < 0) return candidates;
  const Stage& t = state.stage(target);
  const bool target_attached = t.compute_at == ComputeAtKind::kIter;
  const bool target_tiled = IsTiled(t);
  bool visited_reduce = false;
  for (int i = 0; i < static_cast<int>(t.iters.size()); ++i) {
    const IterKind kind = t.iter_kind(i);
    if (kind == IterKind::kReduce) {
      visited_reduce = true;
      if (!target_tiled) break;  // never inside an untiled reduction
    } else if (kind == IterKind::kSpatial && visited_reduce) {
      break;  // the inner tile
    }
    if (t.iters[i].annotation == IterAnnotation::kUnroll) break;
    if (t.iter_extent(i) == 1) continue;
    if (target_attached && kind == IterKind::kSpatial && NameEndsWith(t.iter_name(i), ".0")) {
      continue;
    }
    candidates.emplace_back(target, i);
    if (HasAttachedStages(state, target, i)) break;
  }
  if (target_attached) {
    const int outer = t.attach_stage;
    const Stage& x = state.stage(outer);
    for (int i = 0; i < static_cast<int>(x.iters.size()); ++i) {
      if (x.iter_kind(i) == IterKind::kReduce || HasAttachedStages(state, outer, i)) break;
      if (x.iter_extent(i) == 1) continue;
      candidates.emplace_back(outer, i);
    }
  }
  return candidates;
}

bool HasFreeComputeLocation(const State& state, int stage) {
  const Stage& s = state.stage(stage);
  if (s.is_placeholder() || s.compute_at == ComputeAtKind::kInlined || IsTiled(s)) return false;
  const AccessAnalysis analysis(state.current_dag());
  return !analysis.NeedsMultiLevelTiling(stage);
}

absl::Status ChangeComputeLocations(State* state, Rng& rng) {
  const AccessAnalysis analysis(state->current_dag());
  for (int stage = state->num_stages() - 1; stage >= 0; --stage) {
    const Stage& s = state->stage(stage);
    if (s.is_placeholder() || s.compute_at == ComputeAtKind::kInlined || IsTiled(s) ||
        analysis.NeedsMultiLevelTiling(stage)) {
      continue;
    }
    const auto candidates = ComputeLocationCandidates(*state, stage);
    const uint64_t choice = rng.Below(candidates.size() + 2);
    absl::Status st;
    if (choice == 0) {
      // Also skipped when stages are attached to it (State refuses; Ansor
      // would draw an invalid state).
      if (!s.has_reduce() && s.compute_at == ComputeAtKind::kIter &&
          state->AttachedStages(stage, -1).empty()) {
        st = state->Apply(ComputeInlineStep(stage));
      }
    } else if (choice == 1) {
      if (s.compute_at != ComputeAtKind::kRoot) st = state->Apply(ComputeRootStep(stage));
    } else {
      const auto [target, iter] = candidates[choice - 2];
      st = state->Apply(ComputeAtStep(stage, target, iter));
    }
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace pruner
