// Tile-size choices shared by the hand-shaped seed schedules
// (window_seeds.h, winograd_seeds.h).
#ifndef PRUNER_COMMON_SKETCH_SEED_TILES_H_
#define PRUNER_COMMON_SKETCH_SEED_TILES_H_

#include <cstdint>
#include <initializer_list>

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

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_SEED_TILES_H_
