#include "common/sketch/sketch_tiling.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace pruner {
namespace {

// Reorders the stage's loops into the given node order.
absl::Status ReorderByNodes(State* state, int stage, const std::vector<int>& nodes) {
  std::vector<int> order;
  for (int node : nodes) order.push_back(state->stage(stage).IterIndexOfNode(node));
  return state->Apply(ReorderStep(stage, order));
}

}  // namespace

absl::StatusOr<std::vector<int>> ApplyMultiLevelTiling(State* state, int stage,
                                                       std::string_view structure,
                                                       int innermost_axis) {
  const int n_space = static_cast<int>(std::count(structure.begin(), structure.end(), 'S'));
  const int n_reduce = static_cast<int>(std::count(structure.begin(), structure.end(), 'R'));
  if (n_space < 1 || n_reduce < 1 ||
      n_space + n_reduce != static_cast<int>(structure.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad tiling structure '", std::string(structure),
                     "': use only S and R, at least one of each"));
  }
  std::vector<std::vector<int>> space_levels(n_space);
  std::vector<std::vector<int>> reduce_levels(n_reduce);
  std::vector<int> spatial_split_steps;
  std::vector<int> original_nodes;
  for (const Iterator& it : state->stage(stage).iters) original_nodes.push_back(it.node);
  for (int node : original_nodes) {
    const Stage& s = state->stage(stage);
    const IterKind kind = s.nodes[node].kind;
    if (kind == IterKind::kMixed) {
      return absl::FailedPreconditionError(
          absl::StrCat("stage '", s.op->name, "' has a mixed loop and cannot be tiled"));
    }
    auto& levels = kind == IterKind::kSpatial ? space_levels : reduce_levels;
    const int parts = static_cast<int>(levels.size());
    if (parts == 1) {
      levels[0].push_back(node);
      continue;
    }
    const Step split = SplitStep(stage, s.IterIndexOfNode(node), s.nodes[node].extent,
                                 std::vector<std::optional<int64_t>>(parts - 1));
    PRUNER_RETURN_IF_ERROR(state->Apply(split));
    if (kind == IterKind::kSpatial) {
      spatial_split_steps.push_back(static_cast<int>(state->steps().size()) - 1);
    }
    const std::vector<int>& outs = state->stage(stage).relations.back().outputs;
    for (int i = 0; i < parts; ++i) levels[i].push_back(outs[i]);
  }
  std::vector<int>& last_space = space_levels.back();
  if (innermost_axis >= 0 && innermost_axis < static_cast<int>(last_space.size())) {
    std::rotate(last_space.begin() + innermost_axis, last_space.begin() + innermost_axis + 1,
                last_space.end());
  }
  std::vector<int> order;
  int next_space = 0;
  int next_reduce = 0;
  for (char c : structure) {
    const auto& level = c == 'S' ? space_levels[next_space++] : reduce_levels[next_reduce++];
    order.insert(order.end(), level.begin(), level.end());
  }
  PRUNER_RETURN_IF_ERROR(ReorderByNodes(state, stage, order));
  return spatial_split_steps;
}

absl::StatusOr<int> ApplyFollowTiling(State* state, int consumer,
                                      const std::vector<int>& spatial_split_steps, int level) {
  const Stage& c = state->stage(consumer);
  const size_t num_follow = spatial_split_steps.size();
  bool trailing_reduce = c.iters.size() >= num_follow;
  for (size_t k = num_follow; trailing_reduce && k < c.iters.size(); ++k) {
    trailing_reduce = c.iter_kind(static_cast<int>(k)) == IterKind::kReduce;
  }
  if (!trailing_reduce) {
    return absl::FailedPreconditionError(
        absl::StrCat("stage '", c.op->name, "' has ", c.iters.size(), " loops but the producer ",
                     num_follow, " spatial splits (only reduce loops may be left over)"));
  }
  std::vector<std::vector<int>> levels(level + 1);
  std::vector<int> original_nodes;
  for (const Iterator& it : c.iters) original_nodes.push_back(it.node);
  for (size_t k = 0; k < num_follow; ++k) {
    const int index = state->stage(consumer).IterIndexOfNode(original_nodes[k]);
    if (absl::Status st =
            state->Apply(FollowSplitStep(consumer, index, spatial_split_steps[k], level));
        !st.ok()) {
      return st;
    }
    const std::vector<int>& outs = state->stage(consumer).relations.back().outputs;
    for (int i = 0; i <= level; ++i) levels[i].push_back(outs[i]);
  }
  // The consumer's own reduction (the sum over rfactor partials) runs
  // innermost, inside the last level.
  for (size_t k = num_follow; k < original_nodes.size(); ++k) {
    levels[level].push_back(original_nodes[k]);
  }
  std::vector<int> order;
  for (const auto& l : levels) order.insert(order.end(), l.begin(), l.end());
  PRUNER_RETURN_IF_ERROR(ReorderByNodes(state, consumer, order));
  return level * static_cast<int>(num_follow) - 1;
}

}  // namespace pruner
