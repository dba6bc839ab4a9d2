#include "common/lower/vector_pieces.h"

#include <algorithm>

namespace pruner {

std::vector<int64_t> VectorPieces(int64_t extent) {
  std::vector<int64_t> pieces;
  for (int64_t start = 0; start < extent;) {
    const int64_t rest = extent - start;
    int64_t width = 1;
    while (width * 2 <= rest && width * 2 <= kMaxVectorPieceLanes) width *= 2;
    if (rest < kSplitVectorLanes) width = rest;
    pieces.push_back(width);
    start += width;
  }
  return pieces;
}

int64_t VectorRegisters(int64_t extent, int64_t register_lanes) {
  const int64_t lanes = std::max<int64_t>(register_lanes, 1);
  int64_t registers = 0;
  for (int64_t piece : VectorPieces(extent)) registers += (piece + lanes - 1) / lanes;
  return std::max<int64_t>(registers, 1);
}

}  // namespace pruner
