// AutoTVM's model optimizer (autotvm.md §5.2, SimulatedAnnealingOptimizer):
// parallel Markov chains over complete schedules, each step a random walk
// of one knob, accepted by the Metropolis rule at a linearly cooling
// temperature, scored by the cost model in one batch per step. Every
// proposal, accepted or not, is offered to a best-`num` archive; the
// search stops after n_iter steps or early_stop steps without a change of
// the archive.
//
// Our "knob" walk is one Ansor mutation (mutate.h: a tile-size factor
// moved, an unroll pragma redrawn, a compute location or the parallel
// fusion changed), so the chains walk the same sketch + annotation space as
// the other strategies. A walk whose mutation fails is redrawn up to
// max_walk_tries times; a chain that still has no neighbour stays put.
//
// As in AutoTVM:
// - the chains persist between calls (the caller keeps AnnealingChains),
//   though the model has changed in between;
// - acceptance is exp(min((s_new - s_old) / (t + 1e-5), 1)) against a
//   uniform draw (improvements always pass);
// - the archive is returned best first without negative scores (AutoTVM
//   drops its -inf placeholders that way, and with them real schedules a
//   rank model scores below 0).
// Within one call a state is scored once (the model does not change).
#ifndef PRUNER_COMMON_SEARCH_SIMULATED_ANNEALING_H_
#define PRUNER_COMMON_SEARCH_SIMULATED_ANNEALING_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/model/cost_model.h"
#include "common/schedule/state.h"
#include "common/search/scored_states.h"
#include "common/search/search_counters.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"

namespace pruner {

// AutoTVM's defaults.
struct AnnealingParams {
  int parallel_size = 128;   // chains (AutoTVM: min(128, |space|))
  int n_iter = 500;
  int early_stop = 50;       // steps without an archive change
  double temperature = 1.0;  // cools linearly to 0 over n_iter + 1 steps
  int max_walk_tries = 8;
  AnnotationOptions annotation;
};

// The chains' current points, kept by the caller between calls.
struct AnnealingChains {
  std::vector<State> points;
  std::vector<std::string> strs;  // points[i].ToStr()
};

struct AnnealingStats {
  int steps = 0;           // Markov steps taken
  int accepted = 0;        // proposals accepted, over all chains and steps
  int proposals = 0;
  int archive_changes = 0;
};

// Runs `chains` (non-empty) and returns up to `num` distinct states by
// score, best first, none with a negative score or for which excluded(str)
// holds (`excluded` may be empty). The chains are left where they ended.
absl::StatusOr<std::vector<ScoredState>> SimulatedAnnealing(
    AnnealingChains* chains, int num, const AnnealingParams& params, const DeviceProfile& device,
    CostModel& model, const std::function<bool(const std::string&)>& excluded, Rng& rng,
    SearchCounters* counters, AnnealingStats* stats = nullptr);

}  // namespace pruner

#endif  // PRUNER_COMMON_SEARCH_SIMULATED_ANNEALING_H_
