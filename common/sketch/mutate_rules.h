// The individual mutation rules behind Mutate (mutate.h).
#ifndef PRUNER_COMMON_SKETCH_MUTATE_RULES_H_
#define PRUNER_COMMON_SKETCH_MUTATE_RULES_H_

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/schedule/state.h"

namespace pruner {

// Picks a split with chosen lengths, extent > 1 and an innermost length
// within its bound: max_innermost_split_factor for tile splits; for a split
// whose inner part the next steps bind to threadIdx.x (a GPU thread split)
// max_threads_per_block, and for one whose inner part they vectorize the
// device's vector width (Ansor uses 64 for both and lets the validity check
// reject). Walks the parts [outer, l1..ln] in random order and moves a
// random divisor f > 1 of the first part that has one to the part after it
// (cyclically), keeping the innermost within its bound.
absl::StatusOr<State> MutateTileSize(const State& state, const DeviceProfile& device, Rng& rng,
                                     const AnnotationOptions& options);

// Redraws one auto_unroll_max_step pragma, to a value different from the
// current one.
absl::StatusOr<State> MutateAutoUnroll(const State& state, const DeviceProfile& device, Rng& rng,
                                       const AnnotationOptions& options);

// Picks a compute_at step of a stage whose location annotation chose
// (neither tiled nor in need of tiling), computes the candidates on the
// state just before that step (Ansor computes them on the final state and
// maps them back, which can point at loops that no longer exist) and moves
// it to a different candidate.
absl::StatusOr<State> MutateComputeLocation(const State& state, const DeviceProfile& device,
                                            Rng& rng, const AnnotationOptions& options);

// Picks a parallel annotation of loop 0 made right after fusing loops
// [0, c), draws a new count c' in [1, max fusable], and replays with the
// later annotation/pragma steps of that stage shifted by c - c'. Any other
// later step on that stage (or one attaching to it, or one inserting a
// stage) makes the mutation invalid, as in Ansor.
absl::StatusOr<State> MutateParallel(const State& state, const DeviceProfile& device, Rng& rng,
                                     const AnnotationOptions& options);

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_MUTATE_RULES_H_
