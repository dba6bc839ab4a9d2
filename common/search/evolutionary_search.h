// Ansor's EvolutionarySearch (ansor.md §3.3): a genetic search over complete
// schedules, scored by the cost model, that returns the best distinct
// states it met. Only mutation is used (the paper's crossover is not in
// Ansor's code either).
//
//   pop := initial population
//   for k in 0..num_iters:          (num_iters + 1 scorings, num_iters mutation passes)
//     score pop with ONE CostModel::Predict call
//     offer every state to the out_size best (skipping excluded ones)
//     if k == num_iters: stop
//     next := population draws by roulette on max(score, 0); each parent is
//             mutated with mutation_prob (a failed mutation is just drawn
//             again), otherwise copied
//
// Departures from Ansor, all chosen to save time or avoid waste:
// - Within one call a state is scored once: the Predict of a generation
//   carries only the distinct states not scored before. (A learned model
//   is deterministic, so this changes nothing but the time; with random
//   scores a state keeps its first draw.)
// - States scored -inf or NaN (the model could not score them) never enter
//   the result and are never selected as parents; Ansor lets them into a
//   heap that is not yet full.
// - A generation stops after population * max_draw_factor draws even if it
//   is not full, so a population whose mutations all fail still ends.
// Sampled and mutated states are already bound-inferred and within the
// device's limits (annotate.h, mutate.h), which is Ansor's InferBound +
// pruning step.
#ifndef PRUNER_COMMON_SEARCH_EVOLUTIONARY_SEARCH_H_
#define PRUNER_COMMON_SEARCH_EVOLUTIONARY_SEARCH_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/model/cost_model.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/schedule/state.h"
#include "common/search/scored_states.h"
#include "common/search/search_counters.h"

namespace pruner {

struct EvolutionParams {
  int population = 2048;
  int num_iters = 4;
  double mutation_prob = 0.85;
  int max_draw_factor = 16;
  AnnotationOptions annotation;
};

// Up to `out_size` distinct states (by ToStr), best score first, none for
// which `excluded(str)` holds. `excluded` may be empty. Errors only when
// the model answers with the wrong number of scores.
absl::StatusOr<std::vector<ScoredState>> EvolutionarySearch(
    std::vector<State> init_population, int out_size, const EvolutionParams& params,
    const DeviceProfile& device, CostModel& model,
    const std::function<bool(const std::string&)>& excluded, Rng& rng, SearchCounters* counters);

}  // namespace pruner

#endif  // PRUNER_COMMON_SEARCH_EVOLUTIONARY_SEARCH_H_
