// Tile-size sampling: the exact factorizations of a loop extent (Ansor's
// InitFillTileSize, ansor.md §2.4.1).
#ifndef PRUNER_COMMON_SKETCH_ANNOTATE_TILE_SIZE_H_
#define PRUNER_COMMON_SKETCH_ANNOTATE_TILE_SIZE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "common/ir/compute_dag.h"
#include "common/sketch/random.h"
#include "common/schedule/state.h"
#include "common/schedule/step.h"

namespace pruner {

// Every ordered choice of `num_lengths` inner split lengths that divide
// `extent` exactly (the outer part being extent / product) with the
// innermost length at most `max_innermost`. Memoized per argument triple,
// thread-safe; the reference stays valid for the life of the process.
const std::vector<std::vector<int64_t>>& Factorizations(int64_t extent, int num_lengths,
                                                        int64_t max_innermost);

// Sorted divisors of n (n >= 1).
std::vector<int64_t> Divisors(int64_t n);

// Replays `steps` on the DAG's initial state, choosing every open split
// length on the way: each split sees the real extent of its loop, which may
// depend on lengths chosen earlier (an rfactor split sets the extent of the
// factored stage). Only exact tilings are drawn, as in Ansor. The chosen
// lengths and extents are written into the returned state's steps.
absl::StatusOr<State> FillTileSizes(std::shared_ptr<const ComputeDag> dag,
                                    const std::vector<Step>& steps, int64_t max_innermost,
                                    Rng& rng);

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_ANNOTATE_TILE_SIZE_H_
