// The two loop transformations behind the tiling rules (ansor.md §2.3).
#ifndef PRUNER_COMMON_SKETCH_SKETCH_TILING_H_
#define PRUNER_COMMON_SKETCH_SKETCH_TILING_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/schedule/state.h"

namespace pruner {

// Tiles an untransformed stage by a structure string such as "SSRSRS":
// every spatial loop is split into (#S) parts and every reduce loop into
// (#R) parts, all lengths left open, then the parts are reordered level by
// level as the string says. For matmul and "SSRSRS":
//   i.0 j.0 | i.1 j.1 | k.0 | i.2 j.2 | k.1 | i.3 j.3
// Returns the ids (indices into state->steps()) of the spatial SP steps, in
// loop order; the fusion rule and cooperative fetching follow them.
// innermost_axis >= 0 moves that spatial axis's part of the last spatial
// level to the end (the loop a CPU vectorizes), e.g. ff.3 after xx.3.
absl::StatusOr<std::vector<int>> ApplyMultiLevelTiling(State* state, int stage,
                                                       std::string_view structure,
                                                       int innermost_axis = -1);

// Tiles the leading loops of `consumer` like its producer's first `level`
// spatial tile levels (one FSP per loop, following `spatial_split_steps` in
// order), reorders level by level and returns the loop index that closes
// tile level `level`, where the producer is then computed (tiling with
// fusion). Consumer loops beyond the splits must be reduce loops (the sum
// over an rfactor stage's partials); they stay innermost.
absl::StatusOr<int> ApplyFollowTiling(State* state, int consumer,
                                      const std::vector<int>& spatial_split_steps, int level);

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_SKETCH_TILING_H_
