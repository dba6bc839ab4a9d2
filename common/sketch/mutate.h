// Mutation of complete schedules for the evolutionary search (ansor.md
// §3.4). A mutation edits the schedule's sentence and replays it on the
// workload; the result is bound-inferred and within the device's limits, or
// an error when this particular edit is impossible or invalid (the search
// then simply tries again).
#ifndef PRUNER_COMMON_SKETCH_MUTATE_H_
#define PRUNER_COMMON_SKETCH_MUTATE_H_

#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/schedule/state.h"

namespace pruner {

enum class MutationKind {
  // Move a factor between two parts of one split, keeping their product.
  kTileSize,
  // Redraw one auto_unroll_max_step pragma.
  kAutoUnroll,
  // Move one non-tiled stage's compute_at to another candidate (CPU).
  kComputeLocation,
  // Change how many outer loops are fused into a parallel loop (CPU).
  kParallel,
};

const char* MutationKindName(MutationKind kind);

// Ansor's rule weights: CPU tile size 0.90, auto-unroll 0.04, compute
// location 0.05, parallel 0.01; GPU tile size 0.90, auto-unroll 0.10.
std::vector<std::pair<MutationKind, double>> MutationWeights(const DeviceProfile& device);

absl::StatusOr<State> Mutate(const State& state, MutationKind kind, const DeviceProfile& device,
                             Rng& rng, const AnnotationOptions& options = {});

// Mutate with a kind drawn by MutationWeights.
absl::StatusOr<State> MutateRandom(const State& state, const DeviceProfile& device, Rng& rng,
                                   const AnnotationOptions& options = {});

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_MUTATE_H_
