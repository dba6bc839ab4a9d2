// Compute locations of non-tiled stages on CPU (ansor.md §2.4.2, §2.6):
// where a stage may be computed inside its consumer's loop nest, and the
// annotation rule that draws one.
#ifndef PRUNER_COMMON_SKETCH_ANNOTATE_COMPUTE_LOCATION_H_
#define PRUNER_COMMON_SKETCH_ANNOTATE_COMPUTE_LOCATION_H_

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "common/sketch/random.h"
#include "common/schedule/state.h"

namespace pruner {

// (target stage, loop index) pairs `stage` may be computed at. The target is
// the single consumer, or the common root of all consumers. Its loops are
// walked outside in, stopping at a reduce loop (untiled target), at a
// spatial loop after a reduce loop (the inner tile), at an unrolled loop and
// after the first loop something is attached at; extent-1 loops are
// skipped, and so are ".0" loops of a target that is itself attached (they
// have extent 1 there). If the target is attached to a stage X, X's leading
// spatial loops are candidates too. Extents are read from `state` as they
// are: a bound-inferred state gives the exact ones; before bound inference
// an attached target shows whole-domain extents, so an extent-1 loop may be
// offered (a harmless extra candidate; Ansor sees undefined extents there).
std::vector<std::pair<int, int>> ComputeLocationCandidates(const State& state, int stage);

// True for the stages whose compute location annotation may choose: compute
// stages that are neither inlined, tiled, nor in need of tiling.
bool HasFreeComputeLocation(const State& state, int stage);

// InitChangeComputeLocation: for every free stage, last to first, draws
// uniformly among {inline, root, each candidate}. Inline only applies to a
// stage without reduction that is currently attached (Ansor's condition);
// choosing root for a stage already at root records no step (Ansor records a
// redundant compute_root). Appends the steps to `state`.
absl::Status ChangeComputeLocations(State* state, Rng& rng);

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_ANNOTATE_COMPUTE_LOCATION_H_
