// Tile-size choices shared by the hand-shaped seed schedules
// (window_seeds.h, winograd_seeds.h, matmul_seeds.h).
#ifndef PRUNER_COMMON_SKETCH_SEED_TILES_H_
#define PRUNER_COMMON_SKETCH_SEED_TILES_H_

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "common/schedule/step.h"

namespace pruner {

// The first of `candidates` that divides `extent` (1 if none does).
inline int64_t FirstDivisor(int64_t extent, std::initializer_list<int64_t> candidates) {
  for (int64_t c : candidates) {
    if (c >= 1 && extent % c == 0) return c;
  }
  return 1;
}

// How many channels one vector of a register tile (or of a copy) covers:
// the device's vector, or a half or quarter of it that divides.
inline int64_t VectorTile(int64_t channels, int64_t vector_lanes) {
  return FirstDivisor(channels, {vector_lanes, vector_lanes / 2, vector_lanes / 4});
}

// Chooses every open length of `stage`'s splits in `steps`. A reduce loop
// (one length) goes whole inside the stage's register tile. A spatial
// axis's lengths (the inner levels, level 1 first; level 0 is the rest)
// start at 1 and are set by `spatial(axis, extent, lengths)`, the axes
// counted in the order their splits appear.
template <typename SpatialLengths>
void FillOpenSplits(int stage, std::vector<Step>& steps, SpatialLengths spatial) {
  int axis = 0;
  for (Step& step : steps) {
    if (step.kind != StepKind::kSplit || step.stage != stage || step.IsDefined()) continue;
    std::vector<int64_t> lengths(step.lengths.size(), 1);
    if (lengths.size() == 1) {
      lengths[0] = step.extent;
    } else {
      spatial(axis++, step.extent, lengths);
    }
    for (size_t k = 0; k < lengths.size(); ++k) step.lengths[k] = lengths[k];
  }
}

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_SEED_TILES_H_
